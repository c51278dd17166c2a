// The terminal report of a benchmark run (render_bench_text, include/smcompat/report/
// bench_report.hpp): header facts, one aligned table per suite with skips listed below it,
// native and torch side by side, warnings, and the baseline comparison. Strings from the results
// are untrusted: control characters are shown escaped so that a recorded file cannot drive the
// terminal. Colour only where Style allows (TTY, NO_COLOR unset).
#include <fmt/format.h>

#include "bench_view.hpp"
#include "smcompat/report/bench_report.hpp"

namespace smcompat {

namespace {

using namespace bench_view;  // NOLINT(build/namespaces): the printers' shared vocabulary

// Control characters (ESC above all) as \xNN; everything else as it is.
std::string term(const std::string& s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  return out;
}

// A results cell escaped for the terminal and coloured: noise that did not converge, a failed
// reference check, a synthetic origin and flags stand out.
std::string styled_cell(const bench::BenchResult& r, SuiteColumn c, const Style& st) {
  std::string text = term(suite_cell(r, c));
  switch (c) {
    case SuiteColumn::kNoise:
      return not_converged(r) ? st.yellow(text) : text;
    case SuiteColumn::kVerified:
      return text == "NO" ? st.red(text) : text == "yes" ? st.green(text) : text;
    case SuiteColumn::kOrigin:
      return r.origin == bench::Origin::kSynthetic ? st.yellow(text) : text;
    case SuiteColumn::kFlags:
      return st.yellow(text);
    default:
      return text;
  }
}

void suite_table(std::string& out, const SuiteGroup& g, bool device_column, const Style& st) {
  out += "\n" + st.bold(term(g.suite)) + "\n";
  if (!g.measured.empty()) {
    const auto columns = suite_columns(g, device_column, /*flags_always=*/true);
    std::vector<std::string> head;
    std::vector<Table::Align> align;
    for (SuiteColumn c : columns) {
      head.push_back(column_title(c));
      align.push_back(column_numeric(c) ? Table::Align::kRight : Table::Align::kLeft);
    }
    Table t(head, align);
    for (const auto* r : g.measured) {
      std::vector<std::string> row;
      for (SuiteColumn c : columns) row.push_back(styled_cell(*r, c, st));
      t.add_row(std::move(row));
    }
    out += t.render(st, "  ");
    for (const auto* r : g.measured)
      for (const auto& n : r->notes) out += "  note: " + term(r->name) + ": " + term(n) + "\n";
  }
  if (!g.skipped.empty()) {
    out += "  skipped:\n";
    for (const auto* r : g.skipped) {
      std::string where = device_column ? " (GPU " + devices_text(r->devices) + ")" : "";
      out += "    " + term(r->name) + where + ": " +
             term(r->skip_reason.empty() ? "no reason recorded" : r->skip_reason) + "\n";
    }
  }
}

void comparison_section(std::string& out, const BenchComparison& c, const Style& st) {
  out += "\n" + st.bold(term(comparison_title(c))) + "\n";
  std::vector<Table::Align> align;
  for (bool numeric : kComparisonNumeric)
    align.push_back(numeric ? Table::Align::kRight : Table::Align::kLeft);
  Table t(kComparisonColumns, align);
  const ComparisonListing listing = comparison_listing(c);
  for (const auto& line : listing.lines) {
    std::vector<std::string> cells;
    for (const auto& cell : line.cells) cells.push_back(term(cell));
    const std::string& v = line.verdict;
    cells.back() = v == "changed"                 ? st.yellow(cells.back())
                   : v == "new" || v == "missing" ? st.cyan(cells.back())
                                                  : st.dim(cells.back());
    t.add_row(cells);
  }
  if (!t.empty()) out += t.render(st, "  ");
  out += "  " + comparison_summary(c) + "\n";
  if (listing.hidden > 0) out += "  " + hidden_rows_text(listing.hidden) + "\n";
}

}  // namespace

std::string render_bench_text(const bench::BenchRun& run, const Style& st,
                              const BenchComparison* comparison) {
  std::string out = st.bold("smcompat bench") + "\n";
  if (auto banner = synthetic_banner(run); !banner.empty()) out += st.yellow(banner) + "\n";
  for (const auto& [label, value] : header_facts(run))
    out += fmt::format("  {:<10} {}\n", label, term(value));
  for (const auto& line : device_lines(run)) out += "  " + term(line) + "\n";

  const bool device_column = needs_device_column(run);
  for (const auto& g : group_by_suite(run)) suite_table(out, g, device_column, st);
  if (run.results.empty()) out += "\nno results recorded\n";

  if (auto pairs = side_by_side(run); !pairs.empty()) {
    out += "\n" + st.bold("native and torch side by side") + "\n";
    using A = Table::Align;
    Table t({"suite", "configuration", "native", "torch", "torch/native"},
            {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight});
    for (const auto& p : pairs)
      t.add_row({term(p.native->suite), term(p.native->name), term(value_text(*p.native)),
                 term(value_text(*p.torch)), ratio_text(p)});
    out += t.render(st, "  ");
  }
  if (!run.warnings.empty()) {
    out += "\n" + st.bold("warnings") + "\n";
    for (const auto& w : run.warnings) out += "  " + st.yellow(term(w)) + "\n";
  }
  if (comparison) comparison_section(out, *comparison, st);
  return out;
}

}  // namespace smcompat
