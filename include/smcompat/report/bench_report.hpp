// Rendering of benchmark runs (bench/'s BenchRun): versioned JSON (schema smcompat.bench/1,
// docs/json-schema.md), a terminal table, Markdown and one self-contained HTML page with plots,
// each with the comparison with a baseline run when given (--baseline; bench/compare.hpp). Every
// printer works from a recorded run alone, so `smcompat bench report RESULTS.json` needs no GPU.
// Results are untrusted input: the HTML printer escapes every string it takes from them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/bench/compare.hpp"
#include "smcompat/bench/results.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kBenchSchema = "smcompat.bench/1";

/// The run as JSON. `tool_version` and `argv` are the run's own (recorded when it ran, by smcompat
/// or by the torch script), not the renderer's, so that read_bench_run(bench_to_json(r)) == r.
/// With a comparison, a `comparison` object is added (docs/json-schema.md).
nlohmann::json bench_to_json(const bench::BenchRun& run,
                             const BenchComparison* comparison = nullptr);

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
