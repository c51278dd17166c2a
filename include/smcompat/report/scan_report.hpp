// Rendering of scan reports: aligned text for people, versioned JSON for programs.
// JSON schema: docs/json-schema.md ("smcompat.scan/2").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/scan/scan.hpp"
#include "smcompat/util/json_stream.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

struct ScanRenderOptions {
  bool deep = false;     ///< per-kernel tables
  bool verbose = false;  ///< every file and unit, full target lists
  std::vector<std::string> argv;
};

inline constexpr const char* kScanSchema = "smcompat.scan/2";

std::string render_scan_text(const ScanReport& report, const ScanOptions& options,
                             const ScanRenderOptions& render, const Style& style);
/// The "smcompat.scan/2" document, written file by file and entry by entry as it is produced.
void write_scan_json(JsonWriter& out, const ScanReport& report, const ScanOptions& options,
                     const ScanRenderOptions& render);
/// The same document as a tree (the Python API, tests).
nlohmann::json scan_to_json(const ScanReport& report, const ScanOptions& options,
                            const ScanRenderOptions& render);

/// Colour for a verdict (green native/compatible, yellow JIT, red failures).
std::string styled_verdict(Fit v, const Style& style);
/// A GPU judged, as scan's "target" field: label, cc, gpu (catalog name), driver_cuda, driver.
nlohmann::json target_to_json(const Target& target);

}  // namespace smcompat
