// Rendering of explanations (include/smcompat/report/explain_report.hpp): text, JSON, and the
// redacted context bundle for assistants (rules of redaction: explain/redact.cpp, docs/explain.md).
#include "smcompat/report/explain_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "markdown_text.hpp"
#include "smcompat/report/doctor_report.hpp"
#include "smcompat/report/json_document.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

using explain::env_var_allowed;
using explain::Explanation;
using explain::redact;

namespace {

// "read from the text: PyTorch (line 3); torch 2.0.1+cu118, cuDNN built 8.7.0 / found 8.5.0;
// GPU GeForce RTX 5090 (sm_120)".
std::vector<std::string> fact_lines(const explain::TextFacts& f) {
  std::vector<std::string> out;
  std::string tools;
  for (auto& t : f.tools)
    tools += (tools.empty() ? "" : ", ") + fmt::format("{} (line {})", t.tool, t.line);
  if (!tools.empty()) out.push_back("written by: " + tools);
  std::string versions;
  for (auto& v : f.versions) versions += (versions.empty() ? "" : ", ") + v.what + " " + v.value;
  if (!versions.empty()) out.push_back("versions: " + versions);
  auto listed = [&](const char* label, const std::vector<std::string>& items) {
    if (!items.empty()) out.push_back(label + join(items, ", "));
  };
  listed("missing symbols: ", f.symbols);
  listed("libraries: ", f.libraries);
  listed("extensions: ", f.extensions);
  std::string gpus;
  for (auto& g : f.gpus)
    gpus += (gpus.empty() ? "" : ", ") + g.text +
            (g.cc ? " (sm_" + std::to_string(g.cc->arch()) + ")" : "");
  if (!gpus.empty()) out.push_back("GPUs: " + gpus);
  std::string codes;
  for (auto& c : f.error_codes) codes += (codes.empty() ? "" : ", ") + c;
  if (!codes.empty()) out.push_back("error codes: " + codes);
  return out;
}

}  // namespace

std::string render_explain_text(const Explanation& e, const Style& st) {
  std::string out;
  auto facts = fact_lines(e.facts);
  if (!facts.empty()) {
    out += st.bold("read from the text:") + "\n";
    for (auto& l : facts) out += "  " + l + "\n";
    for (auto& c : e.conflicts) out += "  " + st.yellow("conflict: ") + c + "\n";
    out += "\n";
  }
  if (e.matches.empty()) {
    out += "No known failure mode matches this text.\n";
    for (auto& n : e.nearest)
      out += fmt::format("  nearest: {} ({}): {}\n", n.mode->title, n.mode->id, n.why);
    out +=
        "Run `smcompat doctor` for a check of this machine, or `smcompat explain --prompt` for "
        "a redacted context bundle to ask an assistant.\n";
    return out;
  }
  for (size_t i = 0; i < e.matches.size(); ++i) {
    auto& m = e.matches[i];
    auto& f = *m.mode;
    out += fmt::format("{} {}\n", st.bold(st.yellow("▶")), st.bold(f.title));
    out += fmt::format("  {} line {}: {}\n", st.dim("matched"), m.line, m.line_text);
    out += fmt::format("  {} {}\n", st.bold("cause:"), f.cause);
    if (!f.confirm.empty()) {
      out += fmt::format("  {}", st.bold("confirm:"));
      for (auto& c : f.confirm) out += fmt::format(" `{}`", c);
      out += "\n";
    }
    if (m.context)
      out += fmt::format("  {} {}\n", st.bold(fmt::format("fix ({}):", m.context->label)), m.fix());
    else
      out += fmt::format("  {} {}\n", st.bold("fix:"), f.fix);
    for (auto& sp : m.specifics) out += fmt::format("  {} {}\n", st.bold("for this text:"), sp);
    if (e.have_doctor) {
      auto& rel = e.on_this_machine[i];
      if (rel.empty()) {
        out += fmt::format("  {} the doctor found nothing related on this machine\n",
                           st.bold("here:"));
      } else {
        for (auto& r : rel) {
          out += fmt::format("  {} [{}] {}\n", st.bold("here:"), doctor::to_string(r.severity),
                             r.title);
          for (auto& ev : r.evidence) out += fmt::format("        {}\n", st.dim(ev));
          if (!r.fix.empty()) out += fmt::format("        fix: {}\n", r.fix);
          for (auto& c : r.fix_commands) out += fmt::format("        $ {}\n", c);
        }
      }
    }
    std::string refs;
    if (m.context)
      for (auto& r : m.context->refs) refs += (refs.empty() ? "" : ", ") + r;
    for (auto& r : f.refs)
      if (!m.context ||
          std::find(m.context->refs.begin(), m.context->refs.end(), r) == m.context->refs.end())
        refs += (refs.empty() ? "" : ", ") + r;
    if (!refs.empty() || !f.reference.empty())
      out += fmt::format("  {} {}{}{}\n", st.dim("sources:"), refs,
                         refs.empty() || f.reference.empty() ? "" : "; ", f.reference);
    out += "\n";
  }
  return out;
}

nlohmann::json explain_to_json(const Explanation& e, const std::vector<std::string>& argv) {
  nlohmann::json matches = nlohmann::json::array();
  for (size_t i = 0; i < e.matches.size(); ++i) {
    auto& m = e.matches[i];
    nlohmann::json here = nlohmann::json::array();
    for (auto& f : e.on_this_machine[i]) {
      here.push_back(finding_to_json(f));
      here.back().erase("subject");  // the explanation says where it applies
    }
    matches.push_back(
        {{"id", m.mode->id},
         {"title", m.mode->title},
         {"line", m.line},
         {"line_text", m.line_text},
         {"matched", m.matched},
         {"cause", m.mode->cause},
         {"confirm", m.mode->confirm},
         {"fix", m.fix()},
         {"fix_for", m.context ? nlohmann::json(m.context->label) : nlohmann::json()},
         {"fix_tool", m.context && !m.context->tool.empty() ? nlohmann::json(m.context->tool)
                                                            : nlohmann::json()},
         {"specifics", m.specifics},
         {"tool", m.tool.empty() ? nlohmann::json() : nlohmann::json(m.tool)},
         {"families", m.mode->families},
         {"confidence", m.confidence},
         {"refs", m.mode->refs},
         {"reference", m.mode->reference},
         {"on_this_machine", e.have_doctor ? here : nlohmann::json()}});
  }
  nlohmann::json facts = {{"lines", e.facts.lines},
                          {"tools", nlohmann::json::array()},
                          {"versions", nlohmann::json::array()},
                          {"gpus", nlohmann::json::array()},
                          {"error_codes", e.facts.error_codes},
                          {"libraries", e.facts.libraries},
                          {"extensions", e.facts.extensions},
                          {"symbols", e.facts.symbols}};
  for (auto& t : e.facts.tools)
    facts["tools"].push_back({{"tool", t.tool}, {"line", t.line}, {"evidence", t.evidence}});
  for (auto& v : e.facts.versions)
    facts["versions"].push_back(
        {{"what", v.what}, {"value", v.value}, {"line", v.line}, {"evidence", v.evidence}});
  for (auto& g : e.facts.gpus)
    facts["gpus"].push_back(
        {{"text", g.text},
         {"cc", g.cc ? nlohmann::json(g.cc->to_string()) : nlohmann::json()},
         {"catalog_name",
          g.catalog_name.empty() ? nlohmann::json() : nlohmann::json(g.catalog_name)},
         {"line", g.line}});
  nlohmann::json nearest = nlohmann::json::array();
  for (auto& n : e.nearest)
    nearest.push_back({{"id", n.mode->id}, {"title", n.mode->title}, {"why", n.why}});
  const auto* first = e.matches.empty() ? nullptr : &e.matches.front();
  nlohmann::json family = first && !first->mode->families.empty()
                              ? nlohmann::json(first->mode->families.front())
                              : nlohmann::json();
  return json_document(kExplainSchema, argv,
                       {{"doctor_consulted", e.have_doctor},
                        {"facts", facts},
                        {"conflicts", e.conflicts},
                        {"family", family},
                        {"confidence", first ? first->confidence : std::string("low")},
                        {"matches", matches},
                        {"nearest", nearest}});
}

std::string prompt_bundle(const Explanation& e, const doctor::DoctorReport* doc,
                          const doctor::Environment& env) {
  std::string md;
  md += "# GPU problem: context for an assistant\n\n";
  md +=
      "Generated by smcompat explain --prompt (offline). Secrets were masked and only "
      "allow-listed environment variables are included. Verdicts are predicted from files "
      "unless marked observed.\n\n";
  // The error: the lines the scan kept (around each match, else the head and the tail), redacted
  // as one block so that a private key's BEGIN line still masks the body lines after it.
  std::string error;
  size_t previous = 0, shown = 0;
  for (auto& [n, line] : e.excerpt) {
    if (shown >= 400) break;
    if (shown && n > previous + 1) error += "[...]\n";
    error += line + "\n";
    previous = n;
    ++shown;
  }
  const std::string head = md + "## The error\n\n```text\n";
  md.clear();
  md += "```\n\n";
  md += "## Known failure modes that match\n\n";
  if (e.matches.empty()) md += "None of smcompat's known failure modes matched.\n\n";
  for (auto& m : e.matches) {
    md += fmt::format("- **{}** (line {}): {}\n  - Fix: {}\n", m.mode->title, m.line, m.mode->cause,
                      m.mode->fix);
  }
  md += "\n";
  if (doc) {
    md += "## This machine (smcompat doctor)\n\n";
    auto& d = doc->driver;
    md += fmt::format(
        "- Driver: {}{}{}\n", doctor::to_string(d.state),
        d.version ? " " + d.version->to_string() : "",
        d.kernel_module_flavour.empty() ? "" : ", " + d.kernel_module_flavour + " kernel module");
    for (auto& t : doc->targets)
      md += fmt::format("- GPU: {} (compute capability {}, {})\n", t.name, t.cc.to_string(),
                        t.observed ? "observed" : "asked with --gpu, not present");
    for (auto& tk : doc->toolkits)
      md += fmt::format("- CUDA toolkit: {} (CUDA {})\n", markdown_code(tk.root),
                        tk.version ? tk.version->to_string() : "?");
    for (auto& pe : doc->envs) {
      md += fmt::format("- Python {} environment ({}): {}\n", markdown_text(pe.python_version),
                        pe.kind, markdown_code(pe.prefix));
      if (pe.torch)
        md += fmt::format("  - torch {} (CUDA {})\n", pe.torch->version,
                          pe.torch->cuda ? pe.torch->cuda->to_string() : "?");
    }
    if (!doc->verdicts.empty()) {
      md += "\n| package | version | GPU | verdict (predicted) |\n|---|---|---|---|\n";
      for (auto& v : doc->verdicts)
        md += fmt::format("| {} | {} | {} | {} |\n", markdown_text(v.package),
                          markdown_text(v.version), markdown_text(v.gpu), to_string(v.fit));
    }
    if (!doc->findings.empty()) {
      md += "\n### Findings\n\n";
      for (auto& f : doc->findings) {
        if (f.severity == doctor::Severity::kInfo) continue;
        md += fmt::format("- [{}] {}\n", doctor::to_string(f.severity), f.title);
        for (auto& ev : f.evidence) md += "  - " + ev + "\n";
      }
    }
    md += "\n";
  }
  md += "## Environment variables (allow-listed)\n\n";
  bool any = false;
  for (auto& [n, v] : env) {
    if (!env_var_allowed(n)) continue;
    md += fmt::format("- `{}={}`\n", n, v);
    any = true;
  }
  if (!any) md += "None of the allow-listed variables is set.\n";
  md += "\n## Question\n\nWhat causes this error on this machine, and what is the smallest fix?\n";
  // The rest passes through redaction too (doctor evidence can hold URLs); apart from the error
  // block, so that a key left open at the end of the excerpt masks nothing after it.
  return redact(head) + redact(error) + redact(md);
}

}  // namespace smcompat
