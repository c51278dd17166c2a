// Markdown of the wheel index's answers (include/smcompat/report/index_report.hpp), for issues
// and pull requests. Names, versions and notes come from the index (untrusted): Markdown and
// inline-HTML punctuation is backslash-escaped and line breaks are flattened, so a value cannot
// break a table or inject markup; pip commands go in code spans.
#include <fmt/format.h>

#include <algorithm>

#include "index_view.hpp"
#include "markdown_text.hpp"
#include "smcompat/report/index_report.hpp"

namespace smcompat {

namespace {

using namespace index_view;  // NOLINT(build/namespaces): the printers' shared vocabulary

std::string md(const std::string& s) { return markdown_text(s); }

// A code span that survives backticks inside (CommonMark: a longer fence of backticks).
std::string code(const std::string& s) {
  std::string flat;
  for (char ch : s) flat += (ch == '\n' || ch == '\r' || ch == '|') ? ' ' : ch;
  size_t run = 0, longest = 0;
  for (char ch : flat) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  return fence + " " + flat + " " + fence;
}

std::string row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out + "\n";
}

std::string head(const std::vector<std::string>& cells) {
  std::string sep = "|";
  for (size_t i = 0; i < cells.size(); ++i) sep += " --- |";
  return row(cells) + sep + "\n";
}

std::string header(const IndexAnswerContext& c) {
  std::string out;
  for (const auto& [label, value] : header_facts(c))
    out += fmt::format("- **{}:** {}\n", label, md(value));
  return out;
}

std::string md_or_dash(const std::string& s) { return s.empty() ? "–" : md(s); }

std::string footer(const IndexAnswerContext& c) {
  return fmt::format(
      "\n_Predicted from the device code of each wheel (compatibility rules), not run on a GPU. "
      "Refresh the index with {}._\n",
      code(c.index_rebuild.empty() ? "smcompat index build PKG..." : c.index_rebuild));
}

}  // namespace

std::string render_advise_markdown(const std::vector<PackageAdvice>& advice,
                                   const IndexAnswerContext& c) {
  std::string out = "# smcompat advise\n\n" + header(c);
  if (advice.empty()) return out + "\nNo package to advise on.\n" + footer(c);
  out += "\n" + head({"package", "installed", "recommended", "verdict", "runs natively"});
  for (const auto& a : advice) {
    const ReleaseFit* rec = recommended_release(a);
    std::string recommended = a.recommended ? md(*a.recommended) : "–";
    if (a.recommended && a.install_command.empty()) recommended += " (installed)";
    out += row({md(a.package), a.installed_version ? md(*a.installed_version) : "–", recommended,
                rec ? fit_word(rec->verdict) : "–", md(native_cell(a))});
  }
  for (const auto& a : advice) {
    out += "\n## " + md(a.package) + "\n\n";
    if (!a.install_command.empty()) out += code(a.install_command) + "\n\n";
    if (auto s = native_sentence(a); !s.empty()) out += md(s) + ".\n\n";
    for (const auto& n : a.notes) out += "- " + md(n) + "\n";
    if (c.verbose && !a.releases.empty()) {
      out += "\n" + head({"version", "verdict", "CUDA", "torch", "wheel"});
      for (const auto& r : a.releases) {
        std::string version = md(r.version);
        if (a.recommended && r.version == *a.recommended) version = "**" + version + "**";
        out += row({version, fit_word(r.verdict), md_or_dash(cuda_cell(r.cuda)),
                    md_or_dash(r.torch_pin), md(r.filename)});
      }
    }
  }
  return out + footer(c);
}

std::string render_query_markdown(const std::vector<QueryRow>& rows, const IndexAnswerContext& c,
                                  const std::vector<std::string>& packages) {
  std::string out = "# smcompat index query\n\n" + header(c) + "\n";
  if (rows.empty()) {
    out += "No indexed wheel matches.\n";
  } else {
    out += head({"package", "version", "machine", "verdict", "CUDA", "wheel"});
    for (const auto& r : rows)
      out += row({md(r.package), md(r.version), md(r.machine), fit_word(r.verdict),
                  md_or_dash(cuda_cell(r.cuda)), md(r.filename)});
  }
  for (const auto& p : packages) {
    std::string n = normalize_package_name(p);
    if (std::none_of(rows.begin(), rows.end(), [&](const QueryRow& r) { return r.package == n; }))
      out += "\n- " + md(n) + ": not in the index" +
             (c.machine.empty() ? "" : " for " + md(c.machine)) + "\n";
  }
  return out + footer(c);
}

std::string render_diff_markdown(const std::vector<WheelDiff>& diffs, const std::string& old_arg,
                                 const std::string& new_arg) {
  std::string out = fmt::format("# smcompat index diff\n\n- **old:** {}\n- **new:** {}\n",
                                md(old_arg), md(new_arg));
  if (diffs.empty()) return out + "\nNothing to compare.\n";
  out += "\n" + head({"package", "machine", "old", "new", "SASS added", "SASS dropped", "PTX added",
                      "PTX dropped", "CUDA"});
  size_t dropping = 0;
  for (const auto& d : diffs) {
    if (d.dropped_any()) ++dropping;
    auto dropped = [](const std::vector<std::string>& v) {
      return v.empty() ? std::string("–") : "**" + md(join(v)) + "**";
    };
    std::string cuda = d.old_cuda == d.new_cuda ? md_or_dash(cuda_cell(d.new_cuda))
                                                : md_or_dash(cuda_cell(d.old_cuda)) + " → " +
                                                      md_or_dash(cuda_cell(d.new_cuda));
    out += row({md(d.package), md(d.machine), md_or_dash(d.old_version), md_or_dash(d.new_version),
                md(join(d.added_sass)), dropped(d.dropped_sass), md(join(d.added_ptx)),
                dropped(d.dropped_ptx), cuda});
  }
  bool files = std::any_of(diffs.begin(), diffs.end(), [](const WheelDiff& d) {
    return !d.added_files.empty() || !d.dropped_files.empty();
  });
  if (files) {
    out += "\n" + head({"package", "machine", "files added", "files dropped"});
    for (const auto& d : diffs) {
      if (d.added_files.empty() && d.dropped_files.empty()) continue;
      out +=
          row({md(d.package), md(d.machine), md(join(d.added_files)), md(join(d.dropped_files))});
    }
  }
  out += dropping == 0 ? "\nNo SASS or PTX target dropped.\n"
                       : fmt::format("\n**{} of {} compared dropped a SASS or PTX target.**\n",
                                     dropping, diffs.size());
  return out;
}

}  // namespace smcompat
