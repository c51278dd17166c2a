// JSON of the wheel index's answers (include/smcompat/report/index_report.hpp, where the schemas
// smcompat.advise/1, smcompat.index-query/1 and smcompat.index-diff/1 are laid out).
#include <fmt/format.h>

#include "index_view.hpp"
#include "smcompat/report/index_report.hpp"
#include "smcompat/report/json_document.hpp"
#include "smcompat/report/package_json.hpp"

namespace smcompat {

namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json target_json(const std::optional<Target>& target) {
  if (!target) return nullptr;
  const Target& t = *target;
  return {{"label", t.label},
          {"cc", t.cc.to_string()},
          {"gpu", t.gpu ? json(t.gpu->name) : json(nullptr)},
          {"driver_cuda", t.driver_cuda ? json(t.driver_cuda->to_string()) : json(nullptr)},
          {"driver", t.driver ? json(t.driver->to_string()) : json(nullptr)}};
}

json index_json(const IndexAnswerContext& c) {
  return {{"source", c.index_source},
          {"built", c.index_built},
          {"wheels", c.index_wheels},
          {"rebuild", c.index_rebuild}};
}

json release_json(const ReleaseFit& r) {
  return {{"version", r.version},
          {"filename", r.filename},
          {"cuda", r.cuda},
          {"torch_pin", r.torch_pin},
          {"verdict", wheel_verdict_json(r.verdict)}};
}

}  // namespace

IndexAnswerContext index_answer_context(const WheelIndex& index, const std::string& source) {
  IndexAnswerContext c;
  c.index_source = source;
  c.index_built = index.built;
  c.index_wheels = index.wheels.size();
  c.index_rebuild = index.rebuild;
  return c;
}

json wheel_verdict_json(const WheelVerdict& v) {
  json files = json::array();
  for (const auto& f : v.files)
    files.push_back({{"path", f.path},
                     {"fit", to_string(f.fit)},
                     {"specialized_elsewhere", f.specialized_elsewhere},
                     {"summary", f.summary}});
  return {{"fit", to_string(v.fit)},
          {"has_device_code", v.has_device_code},
          {"summary", v.summary},
          {"variant", v.variant.empty() ? json(nullptr) : json(v.variant)},
          {"driver_cuda_needed",
           v.driver_cuda_needed ? json(v.driver_cuda_needed->to_string()) : json(nullptr)},
          {"files", std::move(files)},
          {"rollup", v.package.has_device_code ? package_fit_json(v.package) : json(nullptr)}};
}

json advise_to_json(const std::vector<PackageAdvice>& advice, const IndexAnswerContext& c) {
  json packages = json::array();
  for (const auto& a : advice) {
    json releases = json::array();
    for (const auto& r : a.releases) releases.push_back(release_json(r));
    packages.push_back({{"package", a.package},
                        {"machine", a.machine},
                        {"indexed", a.indexed},
                        {"device_code", a.device_code},
                        {"installed_version", or_null(a.installed_version)},
                        {"recommended", or_null(a.recommended)},
                        {"install_command", a.install_command},
                        {"newest_native", or_null(a.newest_native)},
                        {"first_native", or_null(a.first_native)},
                        {"first_native_is_oldest_indexed", a.first_native_is_oldest_indexed},
                        {"jit_only", a.jit_only},
                        {"notes", a.notes},
                        {"releases", std::move(releases)}});
  }
  return json_document(kAdviseSchema, c.argv,
                       {{"index", index_json(c)},
                        {"target", target_json(c.target)},
                        {"machine", c.machine},
                        {"python", c.python.empty() ? json(nullptr) : json(c.python)},
                        {"site_packages", c.site_packages},
                        {"packages", std::move(packages)}});
}

json query_to_json(const std::vector<QueryRow>& rows, const IndexAnswerContext& c,
                   const std::vector<std::string>& packages) {
  json out_rows = json::array();
  for (const auto& r : rows)
    out_rows.push_back({{"package", r.package},
                        {"version", r.version},
                        {"machine", r.machine},
                        {"filename", r.filename},
                        {"cuda", r.cuda},
                        {"verdict", wheel_verdict_json(r.verdict)}});
  return json_document(kIndexQuerySchema, c.argv,
                       {{"index", index_json(c)},
                        {"target", target_json(c.target)},
                        {"machine", c.machine.empty() ? json(nullptr) : json(c.machine)},
                        {"packages", packages},
                        {"rows", std::move(out_rows)}});
}

json diff_to_json(const std::vector<WheelDiff>& diffs, const std::string& old_arg,
                  const std::string& new_arg, const std::vector<std::string>& argv) {
  json out = json::array();
  bool any = false;
  for (const auto& d : diffs) {
    any = any || d.dropped_any();
    out.push_back({{"package", d.package},
                   {"machine", d.machine},
                   {"old_version", d.old_version},
                   {"new_version", d.new_version},
                   {"old_filename", d.old_filename},
                   {"new_filename", d.new_filename},
                   {"old_cuda", d.old_cuda},
                   {"new_cuda", d.new_cuda},
                   {"added_sass", d.added_sass},
                   {"dropped_sass", d.dropped_sass},
                   {"added_ptx", d.added_ptx},
                   {"dropped_ptx", d.dropped_ptx},
                   {"added_files", d.added_files},
                   {"dropped_files", d.dropped_files},
                   {"dropped_any", d.dropped_any()}});
  }
  return json_document(
      kIndexDiffSchema, argv,
      {{"old", old_arg}, {"new", new_arg}, {"diffs", std::move(out)}, {"dropped_any", any}});
}

}  // namespace smcompat
