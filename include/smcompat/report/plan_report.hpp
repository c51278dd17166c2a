// Rendering of serving plans (plan/serving.hpp builds them): text for people (per GPU set the
// ranked plans, the best one's command line and why, or why nothing fits) and JSON for programs
// (schema "smcompat.plan/1", docs/json-schema.md). Every figure is an estimate of the cost model,
// and the text says so.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/plan/serving.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kPlanSchema = "smcompat.plan/1";

struct PlanTextOptions {
  bool all = false;  ///< every plan; default the fitting ones and the 3 best that do not fit
};

std::string render_plan_text(const PlanReport& report, const Style& style,
                             const PlanTextOptions& options = {});
nlohmann::json plan_to_json(const PlanReport& report, const std::vector<std::string>& argv);

}  // namespace smcompat
