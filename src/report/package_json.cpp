// include/smcompat/report/package_json.hpp
#include "smcompat/report/package_json.hpp"

namespace smcompat {

nlohmann::json package_fit_json(const PackageFit& fit) {
  using nlohmann::json;
  json libraries = json::array();
  for (const auto& l : fit.libraries) {
    json jl{{"path", l.path},
            {"verdict", to_string(l.fit)},
            {"role", to_string(l.role)},
            {"decides", l.decides},
            {"other_gpus", l.other_gpus},
            {"jit_units", l.jit_units},
            {"link_input", l.link_input}};
    if (!l.group.empty()) jl["group"] = l.group;
    if (!l.why.empty()) jl["why"] = l.why;
    libraries.push_back(std::move(jl));
  }
  return json{
      {"verdict", to_string(fit.fit)},
      {"route", fit.route},
      {"jit_units", fit.jit_units},
      {"jit_libraries", fit.jit_libraries},
      {"driver_reason", fit.driver_reason.empty() ? json(nullptr) : json(fit.driver_reason)},
      {"not_running", fit.not_running},
      {"libraries", std::move(libraries)},
      {"summary", fit.summary}};
}

}  // namespace smcompat
