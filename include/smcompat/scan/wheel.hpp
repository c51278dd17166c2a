// A wheel's own facts (PEP 427): its members and METADATA's Requires-Dist, read with libzip. The
// inventory reads the members with device code; these say what the package needs around them.
// One reader for scan (the CUDA runtime a scanned wheel needs) and the wheel index (records).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

/// {distribution}-{version}(-{build tag})?-{python tag}-{abi tag}-{platform tag}.whl (PEP 427).
struct WheelName {
  std::string name, version, python, abi, platform;
};
std::optional<WheelName> parse_wheel_name(std::string_view filename);

/// The machine a platform tag is for: "x86_64" for manylinux_2_28_x86_64, "any" for any.
std::string machine_of(std::string_view platform);

struct WheelFacts {
  size_t members = 0;                      ///< files (directories not counted)
  std::vector<std::string> member_paths;   ///< every file's path inside the wheel
  std::vector<std::string> requires_dist;  ///< METADATA Requires-Dist lines, markers kept
  std::optional<Error> error;              ///< "zip: …" when the wheel cannot be opened
};

/// Reads the top-level NAME-VER.dist-info/METADATA's headers (bounded at 16 MiB) and the member
/// list. Never fails as a whole: an unreadable zip gives `error` and no members.
WheelFacts read_wheel_facts(ByteView bytes);

}  // namespace smcompat
