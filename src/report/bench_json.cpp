// Writing benchmark runs as JSON (include/smcompat/report/bench_report.hpp), schema
// "smcompat.bench/1" exactly as docs/json-schema.md documents it: unmeasured figures are null,
// never 0, and read_bench_run() (src/bench/results.cpp) reads every field back unchanged.
#include <utility>

#include "smcompat/report/bench_report.hpp"
#include "smcompat/report/json_document.hpp"

namespace smcompat {

namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

json state_json(const std::optional<bench::DeviceState>& s) {
  if (!s) return nullptr;
  return {{"sm_clock_mhz", opt(s->sm_clock_mhz)},
          {"memory_clock_mhz", opt(s->memory_clock_mhz)},
          {"temperature_c", opt(s->temperature_c)},
          {"power_w", opt(s->power_w)},
          {"throttle_reasons", s->throttle_reasons}};
}

json time_json(const std::optional<bench::SampleSummary>& t) {
  if (!t) return nullptr;
  return {{"samples", t->samples},   {"throttled", t->throttled},
          {"mean_s", t->mean_s},     {"median_s", t->median_s},
          {"min_s", t->min_s},       {"max_s", t->max_s},
          {"stddev_s", t->stddev_s}, {"rel_stddev", t->rel_stddev},
          {"total_s", t->total_s},   {"stop", bench::to_string(t->stop)}};
}

json result_json(const bench::BenchResult& r) {
  return {{"suite", r.suite},
          {"name", r.name},
          {"origin", bench::to_string(r.origin)},
          {"devices", r.devices},
          {"params", r.params},
          {"value", opt(r.value)},
          {"unit", r.unit},
          {"time", time_json(r.time)},
          {"peak", opt(r.peak)},
          {"peak_source", r.peak_source},
          {"percent_of_peak", opt(r.percent_of_peak())},
          {"skip_reason", r.skip_reason},
          {"verified", opt(r.verified)},
          {"state", state_json(r.state)},
          {"extra", r.extra},
          {"notes", r.notes}};
}

json comparison_json(const BenchComparison& c) {
  json rows = json::array();
  for (const auto& row : c.rows)
    rows.push_back({{"status", to_string(row.status)},
                    {"suite", row.suite},
                    {"name", row.name},
                    {"devices", row.devices},
                    {"unit", row.unit},
                    {"baseline_value", opt(row.baseline_value)},
                    {"value", opt(row.value)},
                    {"change_percent", opt(row.change_percent)},
                    {"beyond_noise", opt(row.beyond_noise)}});
  return {{"baseline",
           {{"started_utc", c.baseline_started_utc},
            {"host", c.baseline_host},
            {"tool_version", c.baseline_tool_version}}},
          {"rows", rows}};
}

}  // namespace

json bench_to_json(const bench::BenchRun& run, const BenchComparison* comparison) {
  json devices = json::array();
  for (const auto& d : run.devices)
    devices.push_back({{"ordinal", d.ordinal},
                       {"name", d.name},
                       {"uuid", d.uuid},
                       {"cc", d.cc},
                       {"catalog_gpu", opt(d.catalog_gpu)},
                       {"state_at_start", state_json(d.state_at_start)}});
  json results = json::array();
  for (const auto& r : run.results) results.push_back(result_json(r));
  const auto& m = run.method;
  json fields = {{"started_utc", run.started_utc},
                 {"host", run.host},
                 {"driver_version", opt(run.driver_version)},
                 {"cuda_driver_version", opt(run.cuda_driver_version)},
                 {"devices", devices},
                 {"method",
                  {{"min_samples", m.stop.min_samples},
                   {"min_time_s", m.stop.min_time_s},
                   {"max_rel_stddev", m.stop.max_rel_stddev},
                   {"timeout_s", m.stop.timeout_s},
                   {"max_samples", m.stop.max_samples},
                   {"blocking_kernel", m.blocking_kernel},
                   {"l2_flush", m.l2_flush},
                   {"quick", m.quick}}},
                 {"libraries", run.libraries},
                 {"results", results},
                 {"warnings", run.warnings}};
  if (comparison) fields["comparison"] = comparison_json(*comparison);
  json doc = json_document(kBenchSchema, run.argv, std::move(fields));
  // The run's own version: the torch script and older smcompat releases write theirs.
  doc["tool_version"] = run.tool_version;
  return doc;
}

}  // namespace smcompat
