// What the bench printers (text, Markdown, HTML; src/report/bench_*.cpp) share: the facts of the
// run header, results grouped by suite, the formatting of values, noise and flags, the pairing
// of native and torch rows, and the wording of a comparison row. Strings come back raw (as in
// the results, which are untrusted); each printer escapes them for its own medium.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "smcompat/report/bench_report.hpp"

namespace smcompat::bench_view {

/// Label and value of each header fact, in print order (run, host, driver, libraries, method).
std::vector<std::pair<std::string, std::string>> header_facts(const bench::BenchRun& run);
/// One line per device: "GPU 0: NVIDIA H100 80GB HBM3, cc 9.0, catalog H100 SXM, at start ...".
std::vector<std::string> device_lines(const bench::BenchRun& run);
/// "synthetic: ..." when any row is synthetic (made up, never a measurement), else empty.
std::string synthetic_banner(const bench::BenchRun& run);

/// "sw_power_cap" style NVML state, "SM 1980 MHz, mem 2619 MHz, 61 °C, 612.5 W".
std::string state_text(const bench::DeviceState& s);

struct SuiteGroup {
  std::string suite;
  std::vector<const bench::BenchResult*> measured;
  std::vector<const bench::BenchResult*> skipped;
};
/// Results grouped by suite, suites in order of first appearance, rows in run order.
std::vector<SuiteGroup> group_by_suite(const bench::BenchRun& run);

/// 3 significant-ish digits: "712.4", "53.20", "2.310".
std::string number(double v);
/// "712.4 TFLOPS"; "skipped" for no value.
std::string value_text(const bench::BenchResult& r);
/// "72.0 %"; "" without a peak.
std::string percent_text(const bench::BenchResult& r);
/// "±0.20 % n=24", with " not converged (timeout)" when sampling did not converge; "" without
/// a timing summary.
std::string noise_text(const bench::BenchResult& r);
bool not_converged(const bench::BenchResult& r);
/// "yes", "NO", or "" when no reference check was done.
std::string verified_text(const bench::BenchResult& r);
/// "throttled 4 samples (sw_power_cap)" when the GPU reported throttling; else "".
std::string flags_text(const bench::BenchResult& r);
bool throttled(const bench::BenchResult& r);
/// "0", "0→1": the devices involved.
std::string devices_text(const std::vector<int>& devices);
/// Extra figures, "load_ms=412.5 bytes=8.59e+09".
std::string extra_text(const bench::BenchResult& r);
/// The columns of a suite's results table, in print order. Optional ones appear only where a row
/// of the suite fills them (GPU: where the run names devices other than GPU 0).
enum class SuiteColumn {
  kConfiguration,
  kGpu,
  kValue,
  kPercent,
  kNoise,
  kVerified,
  kOrigin,
  kExtra,
  kFlags,
};
/// `flags_always`: the flags column even when no row is throttled (text and Markdown).
std::vector<SuiteColumn> suite_columns(const SuiteGroup& g, bool device_column, bool flags_always);
const char* column_title(SuiteColumn c);  // "configuration", "GPU", "value", "% of peak", ...
bool column_numeric(SuiteColumn c);       // value and % of peak (right-aligned)
/// A measured row's cell in column `c`, raw (the printer escapes and styles it).
std::string suite_cell(const bench::BenchResult& r, SuiteColumn c);
/// Whether any row of the group names devices other than GPU 0 (then a GPU column is shown).
bool needs_device_column(const bench::BenchRun& run);

/// Whether a row is the PyTorch view: a "torch.*" suite or origin torch.
bool is_torch_side(const bench::BenchResult& r);

/// A configuration measured both natively and through torch: the torch row's suite is
/// "torch." + the native suite (or the same suite with origin torch) and the names are equal.
struct SidePair {
  const bench::BenchResult* native;
  const bench::BenchResult* torch;
};
std::vector<SidePair> side_by_side(const bench::BenchRun& run);
/// "torch / native" as "0.98×".
std::string ratio_text(const SidePair& p);

/// "changed", "within noise", "noise unknown" (no samples), "skipped" (a side has no value),
/// "units differ", "new", "missing" for a comparison row.
std::string verdict_text(const BenchComparisonRow& row);
/// The verdict as printed: "changed" gains "(faster)" or "(slower)" — higher is faster for
/// throughput units, lower for times (s, ms, us, ns).
std::string verdict_shown(const BenchComparisonRow& row);
/// Whether text and Markdown list the row (all but "within noise", which are only counted).
bool listed(const BenchComparisonRow& row);
/// "+11.1 %"; "" when there is no change to state.
std::string change_text(const BenchComparisonRow& row);
/// "compared with the baseline of 2026-11-01T04:00:00Z on host (smcompat 0.9.0)".
std::string comparison_title(const BenchComparison& c);
/// A listed comparison row's cells, raw (each printer escapes them): suite, configuration, GPU,
/// baseline, now, change, and the verdict as shown; `verdict` is verdict_text() for styling.
struct ComparisonLine {
  std::vector<std::string> cells;
  std::string verdict;
};
/// The column names of those cells, and which are numbers (right-aligned).
inline const std::vector<std::string> kComparisonColumns = {
    "suite", "configuration", "GPU", "baseline", "now", "change", "verdict"};
inline const std::vector<bool> kComparisonNumeric = {false, false, false, true, true, true, false};
/// The rows text and Markdown list, in order, and how many within the noise they leave out.
struct ComparisonListing {
  std::vector<ComparisonLine> lines;
  size_t hidden = 0;
};
ComparisonListing comparison_listing(const BenchComparison& c);
/// "(3 rows within the noise not listed)"; "" when none is left out.
std::string hidden_rows_text(size_t hidden);
/// "2 changed beyond the noise, 30 within it, 1 new, 1 missing".
std::string comparison_summary(const BenchComparison& c);

}  // namespace smcompat::bench_view
