// The header of a PTX text (.version, .target, .address_size) and its entry names: what the
// inventory needs. The full PTX parser lives in ptx/. Facts: fatbin-format.md section 5.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

struct PtxHeader {
  Version version;                   ///< .version
  std::string target_text;           ///< ".target" operand list as written, e.g. "sm_90, debug"
  SmTarget target;                   ///< compute_XX[a|f] from the first .target operand
  bool debug = false;                ///< ".target ..., debug"
  int address_size = 0;              ///< .address_size (0 if absent)
  std::vector<std::string> entries;  ///< .entry names, when asked for
};

/// True if the text looks like PTX (a .version directive near the start). Never fails.
bool ptx_sniff(std::string_view text);
/// Parses the header; with `with_entries` also scans for every `.entry NAME`.
Result<PtxHeader> parse_ptx_header(std::string_view text, bool with_entries);

}  // namespace smcompat
