// Which engines have a model for a hybrid architecture (data/engine_architectures.json, each row
// read from the engine's model registry or model directory at a cited commit).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "smcompat/plan/engine.hpp"
#include "smcompat/util/embedded.hpp"

SMCOMPAT_EMBEDDED(engine_architectures_json)

namespace smcompat::plan {

std::optional<std::string> architecture_not_served(Engine engine, const ModelSpec& model) {
  if (model.architecture.empty()) return std::nullopt;
  using nlohmann::json;
  json data = json::parse(
      embedded_text(embedded::engine_architectures_json, embedded::engine_architectures_json_size),
      nullptr, /*allow_exceptions=*/false);
  if (data.is_discarded() || !data.is_object() || !data.contains("architectures") ||
      !data["architectures"].is_array())
    return std::nullopt;  // the build embeds the file; tests/plan checks it parses
  const std::string name(to_string(engine));
  for (const json& row : data["architectures"]) {
    if (!row.is_object() || row.value("architecture", "") != model.architecture) continue;
    auto engines = row.find("engines");
    if (engines == row.end() || !engines->is_object()) return std::nullopt;
    auto e = engines->find(name);
    if (e == engines->end() || !e->is_object() || e->value("serves", true)) return std::nullopt;
    return fmt::format("not expressible on {}: {} ({}; {})", name,
                       e->value("why", "the engine has no model for " + model.architecture),
                       e->value("source", ""), "data/engine_architectures.json");
  }
  return std::nullopt;
}

}  // namespace smcompat::plan
