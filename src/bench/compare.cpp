// Comparing a benchmark run with a baseline run (include/smcompat/bench/compare.hpp).
#include "smcompat/bench/compare.hpp"

#include <array>
#include <tuple>

#include "smcompat/bench/stats.hpp"
#include "smcompat/util/enum_names.hpp"

namespace smcompat {

namespace {

bool same_config(const bench::BenchResult& a, const bench::BenchResult& b) {
  return std::tie(a.suite, a.name, a.devices) == std::tie(b.suite, b.name, b.devices);
}

// A row naming `r`'s configuration (suite, name, devices) in its unit.
BenchComparisonRow row_for(const bench::BenchResult& r, BenchComparisonRow::Status status) {
  return {.status = status, .suite = r.suite, .name = r.name, .devices = r.devices, .unit = r.unit};
}

}  // namespace

constexpr std::array<const char*, 3> kStatusNames = {"compared", "new", "missing"};
const char* to_string(BenchComparisonRow::Status status) {
  return enum_name(status, kStatusNames, "compared");
}

BenchComparison compare_bench_runs(const bench::BenchRun& baseline,
                                   const bench::BenchRun& current) {
  BenchComparison out;
  out.baseline_started_utc = baseline.started_utc;
  out.baseline_host = baseline.host;
  out.baseline_tool_version = baseline.tool_version;
  std::vector<bool> matched(baseline.results.size(), false);
  for (const auto& cur : current.results) {
    BenchComparisonRow row = row_for(cur, BenchComparisonRow::Status::kNew);
    row.value = cur.value;
    for (size_t i = 0; i < baseline.results.size(); ++i) {
      const auto& old = baseline.results[i];
      if (matched[i] || !same_config(old, cur)) continue;
      matched[i] = true;
      row.status = BenchComparisonRow::Status::kCompared;
      // Figures in different units are not comparable; the row still says both were run.
      if (old.unit != cur.unit) {
        row.units_differ = true;
        break;
      }
      row.baseline_value = old.value;
      if (old.value && cur.value && *old.value != 0)
        row.change_percent = (*cur.value - *old.value) / *old.value * 100.0;
      if (old.value && cur.value && old.time && cur.time && old.time->samples > 0 &&
          cur.time->samples > 0)
        row.beyond_noise = bench::differs_beyond_noise(*old.time, *cur.time);
      break;
    }
    out.rows.push_back(std::move(row));
  }
  for (size_t i = 0; i < baseline.results.size(); ++i) {
    if (matched[i]) continue;
    const auto& old = baseline.results[i];
    BenchComparisonRow row = row_for(old, BenchComparisonRow::Status::kMissing);
    row.baseline_value = old.value;
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace smcompat
