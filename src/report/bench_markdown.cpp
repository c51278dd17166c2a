// The Markdown report of a benchmark run (render_bench_markdown, include/smcompat/report/
// bench_report.hpp): the terminal report's content as GitHub-flavoured Markdown tables. Strings
// from the results are untrusted: Markdown and inline-HTML punctuation is backslash-escaped and
// line breaks are flattened, so a name cannot break a table or inject markup.
#include <fmt/format.h>

#include "bench_view.hpp"
#include "markdown_text.hpp"
#include "smcompat/report/bench_report.hpp"

namespace smcompat {

namespace {

using namespace bench_view;  // NOLINT(build/namespaces): the printers' shared vocabulary

std::string md(const std::string& s) { return markdown_text(s); }

std::string row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out + "\n";
}

// Header row and the alignment row (":" on the right for numbers).
std::string head(const std::vector<std::string>& cells, const std::vector<bool>& right) {
  std::string sep = "|";
  for (size_t i = 0; i < cells.size(); ++i) sep += right[i] ? " ---: |" : " --- |";
  return row(cells) + sep + "\n";
}

void suite_section(std::string& out, const SuiteGroup& g, bool device_column) {
  out += "\n## " + md(g.suite) + "\n\n";
  if (!g.measured.empty()) {
    const auto columns = suite_columns(g, device_column, /*flags_always=*/true);
    std::vector<std::string> h;
    std::vector<bool> right;
    for (SuiteColumn c : columns) {
      h.push_back(column_title(c));
      right.push_back(column_numeric(c));
    }
    out += head(h, right);
    for (const auto* r : g.measured) {
      std::vector<std::string> cells;
      for (SuiteColumn c : columns) {
        std::string text = md(suite_cell(*r, c));
        const bool strong = (c == SuiteColumn::kNoise && not_converged(*r)) ||
                            (c == SuiteColumn::kVerified && text == "NO");
        cells.push_back(strong ? "**" + text + "**" : text);
      }
      out += row(cells);
    }
    bool any_note = false;
    for (const auto* r : g.measured)
      for (const auto& n : r->notes) {
        if (!any_note) out += "\n";
        any_note = true;
        out += "- note: " + md(r->name) + ": " + md(n) + "\n";
      }
  }
  if (!g.skipped.empty()) {
    out += "\nSkipped:\n\n";
    for (const auto* r : g.skipped) {
      std::string where = device_column ? " (GPU " + devices_text(r->devices) + ")" : "";
      out += "- " + md(r->name) + where + ": " +
             md(r->skip_reason.empty() ? "no reason recorded" : r->skip_reason) + "\n";
    }
  }
}

}  // namespace

std::string render_bench_markdown(const bench::BenchRun& run, const BenchComparison* comparison) {
  std::string out = "# smcompat bench\n\n";
  if (auto banner = synthetic_banner(run); !banner.empty()) out += "> **" + md(banner) + "**\n\n";
  for (const auto& [label, value] : header_facts(run))
    out += "- **" + label + "**: " + md(value) + "\n";
  for (const auto& line : device_lines(run)) out += "- " + md(line) + "\n";

  const bool device_column = needs_device_column(run);
  for (const auto& g : group_by_suite(run)) suite_section(out, g, device_column);
  if (run.results.empty()) out += "\nNo results recorded.\n";

  if (auto pairs = side_by_side(run); !pairs.empty()) {
    out += "\n## native and torch side by side\n\n";
    out += head({"suite", "configuration", "native", "torch", "torch/native"},
                {false, false, true, true, true});
    for (const auto& p : pairs)
      out += row({md(p.native->suite), md(p.native->name), md(value_text(*p.native)),
                  md(value_text(*p.torch)), ratio_text(p)});
  }
  if (!run.warnings.empty()) {
    out += "\n## warnings\n\n";
    for (const auto& w : run.warnings) out += "- " + md(w) + "\n";
  }
  if (comparison) {
    out += "\n## " + md(comparison_title(*comparison)) + "\n\n";
    out += head(kComparisonColumns, kComparisonNumeric);
    const ComparisonListing listing = comparison_listing(*comparison);
    for (const auto& line : listing.lines) {
      std::vector<std::string> cells;
      for (const auto& c : line.cells) cells.push_back(md(c));
      if (line.verdict == "changed") cells.back() = "**" + cells.back() + "**";
      out += row(cells);
    }
    out += "\n" + comparison_summary(*comparison) + "\n";
    if (listing.hidden > 0) out += hidden_rows_text(listing.hidden) + "\n";
  }
  return out;
}

}  // namespace smcompat
