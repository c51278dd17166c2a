// Rendering of benchmark runs (bench/'s BenchRun): versioned JSON (schema smcompat.bench/1,
// docs/json-schema.md), a terminal table, Markdown and one self-contained HTML page with plots,
// plus the comparison of a run with a baseline run (--baseline). Every printer works from a
// recorded run alone, so `smcompat bench report RESULTS.json` needs no GPU. Results are untrusted
// input: the HTML printer escapes every string it takes from them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/bench/results.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kBenchSchema = "smcompat.bench/1";

/// The run as JSON. `tool_version` and `argv` are the run's own (recorded when it ran, by smcompat
/// or by the torch script), not the renderer's, so that read_bench_run(bench_to_json(r)) == r.
/// With a comparison, a `comparison` object is added (docs/json-schema.md).
struct BenchComparison;
nlohmann::json bench_to_json(const bench::BenchRun& run,
                             const BenchComparison* comparison = nullptr);

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

/// The terminal report: header (host, driver, devices with clocks, method), one table per suite
/// (configuration, value, % of peak, noise, verified, flags), skips with their reasons, native
/// and torch rows side by side where both measured the same configuration, warnings, and the
/// comparison when given. Colour only as `style` allows.
std::string render_bench_text(const bench::BenchRun& run, const Style& style,
                              const BenchComparison* comparison = nullptr);

/// The same content as GitHub-flavoured Markdown.
std::string render_bench_markdown(const bench::BenchRun& run,
                                  const BenchComparison* comparison = nullptr);

struct BenchHtmlOptions {
  /// Draw plots with the Chart.js embedded at build time. Off, or when the build had no
  /// Chart.js, the page says that plots are unavailable and still has every table.
  bool plots = true;
};

/// Whether this build embedded Chart.js (Debian's libjs-chart.js) for the HTML plots.
bool bench_html_plots_available();

/// One self-contained HTML page (no network): header facts, tables, and plots (TFLOPS vs size
/// per type, bandwidth vs size, the P2P matrix as a heat map, JIT vs native, torch rows).
std::string render_bench_html(const bench::BenchRun& run,
                              const BenchComparison* comparison = nullptr,
                              const BenchHtmlOptions& options = {});

}  // namespace smcompat
