// Terminal text of the wheel index's answers (include/smcompat/report/index_report.hpp): aligned
// tables (util/table.hpp) and colour only as the Style allows, verdict colours as in `scan`.
#include <fmt/format.h>

#include <algorithm>

#include "index_view.hpp"
#include "smcompat/report/index_report.hpp"
#include "smcompat/report/scan_report.hpp"

namespace smcompat {

namespace {

using namespace index_view;  // NOLINT(build/namespaces): the printers' shared vocabulary
using A = Table::Align;

std::string header_text(const IndexAnswerContext& c, const Style& st) {
  auto facts = header_facts(c);
  size_t width = 0;
  for (const auto& [label, value] : facts) width = std::max(width, label.size());
  std::string out;
  for (const auto& [label, value] : facts)
    out += st.bold(fmt::format("{:<{}}", label, width)) + "  " + value + "\n";
  return out;
}

std::string verdict_cell(const WheelVerdict& v, const Style& st) {
  return v.has_device_code ? styled_verdict(v.fit, st) : st.dim("no device code");
}

std::string or_dash(const std::string& s) { return s.empty() ? "–" : s; }

// The file verdicts of one wheel, indented under its row (-v).
std::string file_lines(const WheelVerdict& v, const std::string& indent, const Style& st) {
  std::string out;
  for (const auto& f : v.files) {
    std::string note = f.specialized_elsewhere ? " (specialised for other GPUs)" : "";
    if (!v.variant.empty() && f.path == v.variant) note += " (the runtime variant that decides)";
    bool say = !f.summary.empty() && f.summary != to_string(f.fit);
    out += fmt::format("{}{}  {}{}{}\n", indent, f.path, styled_verdict(f.fit, st), note,
                       say ? "  " + st.dim(f.summary) : "");
  }
  return out;
}

std::string releases_table(const PackageAdvice& a, const Style& st) {
  Table t({"version", "verdict", "CUDA", "torch", "wheel", ""});
  for (const auto& r : a.releases) {
    std::string mark;
    if (a.recommended && r.version == *a.recommended) mark = st.green("← recommended");
    if (a.installed_version && same_public_version(r.version, *a.installed_version))
      mark += (mark.empty() ? "" : ", ") + std::string("installed");
    t.add_row({r.version, verdict_cell(r.verdict, st), or_dash(cuda_cell(r.cuda)),
               or_dash(r.torch_pin), r.filename, mark});
  }
  return t.render(st, "    ");
}

std::string package_section(const PackageAdvice& a, const IndexAnswerContext& c, const Style& st) {
  std::string out;
  if (!a.indexed)
    out += st.bold(a.package) + "\n";  // the notes say why
  else if (a.recommended)
    out += st.bold(a.package) + " → " + st.bold(*a.recommended) + "\n";
  else
    out += st.bold(a.package) + ": " + st.red("nothing to install") + "\n";
  if (!a.install_command.empty()) out += "  " + st.cyan(a.install_command) + "\n";
  if (auto s = native_sentence(a); !s.empty()) out += "  " + s + "\n";
  for (const auto& n : a.notes) out += "  · " + n + "\n";
  if (c.verbose && !a.releases.empty()) {
    out += releases_table(a, st);
    for (const auto& r : a.releases) {
      if (r.verdict.files.empty()) continue;
      out += "    " + st.bold(r.version) + "  " + r.verdict.summary + "\n";
      out += file_lines(r.verdict, "      ", st);
    }
  }
  return out;
}

std::string footer(const IndexAnswerContext& c, const Style& st) {
  std::string rebuild = c.index_rebuild.empty() ? "smcompat index build PKG..." : c.index_rebuild;
  return st.dim(
             "Predicted from the device code of each wheel (compatibility rules), not run on "
             "a GPU.") +
         "\n" + st.dim("Refresh the index with: " + rebuild) + "\n";
}

}  // namespace

std::string render_advise_text(const std::vector<PackageAdvice>& advice,
                               const IndexAnswerContext& c, const Style& st) {
  std::string out = header_text(c, st) + "\n";
  if (advice.empty()) {
    out += "No package to advise on";
    out += c.python.empty() ? ".\n" : ": none of the installed distributions is in the index.\n";
    return out + "\n" + footer(c, st);
  }
  Table t({"package", "installed", "recommended", "verdict", "runs natively"});
  for (const auto& a : advice) {
    const ReleaseFit* rec = recommended_release(a);
    std::string installed = a.installed_version ? *a.installed_version : "–";
    std::string recommended = a.recommended ? *a.recommended : "–";
    if (a.recommended && a.install_command.empty()) recommended += " (installed)";
    t.add_row({a.package, installed, recommended, rec ? verdict_cell(rec->verdict, st) : "–",
               native_cell(a)});
  }
  out += t.render(st) + "\n";
  for (const auto& a : advice) out += package_section(a, c, st) + "\n";
  return out + footer(c, st);
}

std::string render_query_text(const std::vector<QueryRow>& rows, const IndexAnswerContext& c,
                              const std::vector<std::string>& packages, const Style& st) {
  std::string out = header_text(c, st) + "\n";
  const bool machine_column =
      c.machine.empty() || std::any_of(rows.begin(), rows.end(),
                                       [&](const QueryRow& r) { return r.machine != c.machine; });
  std::vector<std::string> headers = {"package", "version"};
  if (machine_column) headers.push_back("machine");
  for (const char* h : {"verdict", "CUDA", "wheel"}) headers.push_back(h);
  Table t(headers);
  for (const auto& r : rows) {
    std::vector<std::string> cells = {r.package, r.version};
    if (machine_column) cells.push_back(r.machine);
    cells.push_back(verdict_cell(r.verdict, st));
    cells.push_back(or_dash(cuda_cell(r.cuda)));
    cells.push_back(r.filename);
    t.add_row(std::move(cells));
  }
  if (t.empty())
    out += "No indexed wheel matches.\n";
  else
    out += t.render(st);
  for (const auto& p : packages) {
    std::string n = normalize_package_name(p);
    bool found =
        std::any_of(rows.begin(), rows.end(), [&](const QueryRow& r) { return r.package == n; });
    if (!found)
      out += st.yellow(fmt::format("{}: not in the index{}", n,
                                   c.machine.empty() ? "" : " for " + c.machine)) +
             "\n";
  }
  if (c.verbose) {
    for (const auto& r : rows) {
      if (r.verdict.files.empty()) continue;
      out += "\n" + st.bold(r.filename) + "  " + r.verdict.summary + "\n";
      out += file_lines(r.verdict, "  ", st);
    }
  }
  return out + "\n" + footer(c, st);
}

std::string render_diff_text(const std::vector<WheelDiff>& diffs, const std::string& old_arg,
                             const std::string& new_arg, const Style& st) {
  std::string out =
      st.bold("old") + "  " + old_arg + "\n" + st.bold("new") + "  " + new_arg + "\n\n";
  size_t dropping = 0;
  for (const auto& d : diffs) {
    if (d.dropped_any()) ++dropping;
    out += fmt::format("{} ({}): {} → {}\n", st.bold(d.package), d.machine,
                       d.old_version.empty() ? "(none)" : d.old_version,
                       d.new_version.empty() ? "(none)" : d.new_version);
    if (!d.old_filename.empty() || !d.new_filename.empty())
      out += "  " +
             st.dim(fmt::format("{} → {}", or_dash(d.old_filename), or_dash(d.new_filename))) +
             "\n";
    Table t({"", "added", "dropped"});
    auto red_list = [&](const std::vector<std::string>& v) {
      return v.empty() ? std::string("–") : st.red(join(v));
    };
    auto green_list = [&](const std::vector<std::string>& v) {
      return v.empty() ? std::string("–") : st.green(join(v));
    };
    t.add_row({"SASS", green_list(d.added_sass), red_list(d.dropped_sass)});
    t.add_row({"PTX", green_list(d.added_ptx), red_list(d.dropped_ptx)});
    out += t.render(st, "  ");
    // Members one per line: a wheel can add or drop many libraries with long paths.
    for (const auto& f : d.added_files) out += "  " + st.green("+ " + f) + "\n";
    for (const auto& f : d.dropped_files) out += "  " + st.red("− " + f) + "\n";
    if (d.old_cuda != d.new_cuda)
      out += fmt::format("  CUDA runtime {} → {}\n", or_dash(cuda_cell(d.old_cuda)),
                         or_dash(cuda_cell(d.new_cuda)));
    out += "\n";
  }
  if (diffs.empty())
    out += "Nothing to compare.\n";
  else if (dropping == 0)
    out += st.green("No SASS or PTX target dropped.") + "\n";
  else
    out += st.red(fmt::format("{} of {} compared package{} dropped a SASS or PTX target.", dropping,
                              diffs.size(), diffs.size() == 1 ? "" : "s")) +
           "\n";
  return out;
}

}  // namespace smcompat
