// Comparing a benchmark run with a baseline run (`--baseline`): configurations matched by
// (suite, name, devices); a value change counts only when the two timing summaries differ beyond
// their noise (differs_beyond_noise), so a rerun on a quiet machine does not report noise as news.
// report/bench_report.hpp renders the comparison.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smcompat/bench/results.hpp"

namespace smcompat {

/// One configuration matched (or not) between a baseline run and the current run, by
/// (suite, name, devices).
struct BenchComparisonRow {
  enum class Status {
    kCompared,  ///< in both runs
    kNew,       ///< only in the current run
    kMissing,   ///< only in the baseline
  };
  Status status = Status::kCompared;
  std::string suite;
  std::string name;
  std::vector<int> devices;
  std::string unit;  ///< the current run's unit (the baseline's for a missing row)
  std::optional<double> baseline_value;
  std::optional<double> value;
  /// (value − baseline_value) / baseline_value × 100, when both exist and the baseline is not 0.
  std::optional<double> change_percent;
  /// differs_beyond_noise() on the two timing summaries; nullopt when either has none (skipped,
  /// or a row recorded without samples), so nothing can be said about the noise.
  std::optional<bool> beyond_noise;
  /// Both runs have the configuration but in different units: no values are compared.
  bool units_differ = false;
  bool changed() const { return beyond_noise.value_or(false); }
};
const char* to_string(BenchComparisonRow::Status status);  // "compared", "new", "missing"

struct BenchComparison {
  std::string baseline_started_utc;
  std::string baseline_host;
  std::string baseline_tool_version;
  /// The current run's rows in order (compared or new), then the baseline's missing rows.
  std::vector<BenchComparisonRow> rows;
};

/// Compares `current` with `baseline`. Values are compared only where units agree.
BenchComparison compare_bench_runs(const bench::BenchRun& baseline, const bench::BenchRun& current);

}  // namespace smcompat
