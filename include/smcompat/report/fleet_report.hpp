// Rendering of a merged fleet (fleet/fleet.hpp): text for people, JSON for programs (schema
// "smcompat.fleet/1", docs/json-schema.md), Markdown for a wiki page or a CI summary.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/fleet/fleet.hpp"
#include "smcompat/util/json_stream.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kFleetSchema = "smcompat.fleet/1";

std::string render_fleet_text(const fleet::FleetReport& report, const Style& style);
/// The "smcompat.fleet/1" document, written node by node.
void write_fleet_json(JsonWriter& out, const fleet::FleetReport& report,
                      const std::vector<std::string>& argv);
/// The same document as a tree.
nlohmann::json fleet_to_json(const fleet::FleetReport& report,
                             const std::vector<std::string>& argv);
std::string render_fleet_markdown(const fleet::FleetReport& report);

}  // namespace smcompat
