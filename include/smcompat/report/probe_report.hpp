// Rendering of probe reports (probe/'s ProbeReport): text for people, versioned JSON for programs.
// JSON schema "smcompat.probe/1": docs/probe.md documents every field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/probe/probe.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kProbeSchema = "smcompat.probe/1";

/// The report as JSON. Everything is observed from the driver except `bandwidth_gbs` (derived,
/// marked so) and the `arch` block (from the catalog). `argv` and the tool version are recorded.
nlohmann::json probe_to_json(const ProbeReport& report, const std::vector<std::string>& argv);

/// The text report: driver facts, one block per GPU, the topology matrix for several GPUs.
std::string render_probe_text(const ProbeReport& report, const Style& style);

}  // namespace smcompat
