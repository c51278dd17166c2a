// Doctor report renderers (include/smcompat/report/doctor_report.hpp): text (aligned, coloured
// on a TTY), JSON (schema smcompat.doctor/1, documented in docs/doctor.md), Markdown, and the
// reviewable fix script. Fit values are coloured as in the scan report (styled_verdict).
#include "smcompat/report/doctor_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "markdown_text.hpp"
#include "smcompat/report/json_document.hpp"
#include "smcompat/report/scan_report.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

using namespace doctor;
namespace fs = std::filesystem;

namespace {

std::string sev_tag(Severity s, const Style& st) {
  switch (s) {
    case Severity::kError:
      return st.red(st.bold("error  "));
    case Severity::kWarning:
      return st.yellow(st.bold("warning"));
    case Severity::kInfo:
      return st.cyan("info   ");
  }
  return "";
}

// What the driver section says for each state.
constexpr std::pair<DriverFacts::State, const char*> kDriverStates[] = {
    {DriverFacts::State::kNoDriver, "no NVIDIA driver found"},
    {DriverFacts::State::kStub, "stub libcuda (toolkit stub, not a driver)"},
    {DriverFacts::State::kNoDevice, "driver loaded, no GPU visible"},
    {DriverFacts::State::kOk, "ok"},
    {DriverFacts::State::kError, "error"},
    {DriverFacts::State::kNotChecked, "kernel module loaded (driver library not queried)"},
};

}  // namespace

std::string driver_line(const DriverFacts& d) {
  std::string s;
  for (auto& [state, text] : kDriverStates)
    if (state == d.state) s = text;
  if (d.version) s += ", driver " + d.version->to_string();
  if (d.cuda) s += ", CUDA " + d.cuda->to_string();
  if (!d.kernel_module_flavour.empty()) s += ", " + d.kernel_module_flavour + " kernel module";
  s += d.observed ? " (observed)" : "";
  return s;
}

nlohmann::json finding_to_json(const Finding& f) {
  return {{"id", f.id},          {"severity", to_string(f.severity)},
          {"title", f.title},    {"evidence", f.evidence},
          {"fix", f.fix},        {"fix_commands", f.fix_commands},
          {"subject", f.subject}};
}

std::string render_findings_text(const DoctorReport& r, const Style& st) {
  return render_findings_text(r.findings, st);
}

std::string render_findings_text(const std::vector<Finding>& findings, const Style& st) {
  auto count = [&](Severity s) {
    return std::count_if(findings.begin(), findings.end(),
                         [&](auto& f) { return f.severity == s; });
  };
  std::string out = st.bold("Findings") +
                    fmt::format(" ({} errors, {} warnings, {} info)\n", count(Severity::kError),
                                count(Severity::kWarning), count(Severity::kInfo));
  for (auto& f : findings) {
    out += fmt::format("  {} {} {}\n", sev_tag(f.severity, st), f.title, st.dim("[" + f.id + "]"));
    for (auto& e : f.evidence) out += "            " + st.dim(e) + "\n";
    if (!f.fix.empty()) out += "            " + st.bold("fix: ") + f.fix + "\n";
    for (auto& c : f.fix_commands) out += "              $ " + c + "\n";
  }
  return out;
}

std::string render_doctor_text(const DoctorReport& r, const Style& st) {
  std::string out;
  out += st.bold("smcompat doctor") +
         st.dim(" (verdicts are predicted from files; 'observed' marks what the driver reported)") +
         "\n\n";
  out += st.bold("Driver") + "\n";
  out += "  " + driver_line(r.driver) + "\n";
  if (!r.driver.detail.empty()) out += "  " + st.dim(r.driver.detail) + "\n";
  for (size_t i = 0; i < r.driver.gpus.size(); ++i)
    out +=
        fmt::format("  GPU {}: {} (compute capability {}{})\n", i, r.driver.gpus[i].name,
                    r.driver.gpus[i].cc.to_string(),
                    r.driver.gpus[i].pci_bus_id.empty() ? "" : ", " + r.driver.gpus[i].pci_bus_id);
  out += "\n" + st.bold("GPUs judged") + "\n";
  if (r.targets.empty()) {
    out +=
        "  none: no GPU reported and no --gpu given. Ask a what-if question: "
        "smcompat doctor --gpu \"RTX 5090\"\n";
  }
  for (auto& t : r.targets)
    out += fmt::format("  {} (compute capability {}, {})\n", t.name, t.cc.to_string(),
                       t.observed ? "present, observed" : "what-if, not present");
  out += "\n" + st.bold("CUDA toolkits") + "\n";
  if (r.toolkits.empty())
    out += "  none found (CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda*)\n";
  for (size_t i = 0; i < r.toolkits.size(); ++i) {
    auto& t = r.toolkits[i];
    std::string by;
    for (auto& b : t.found_by) by += (by.empty() ? "" : ", ") + b;
    out += fmt::format("  {}{}  CUDA {}  nvcc {}  (found by {}){}\n", i == 0 ? "* " : "  ", t.root,
                       t.version ? t.version->to_string() : "?", t.nvcc.empty() ? "missing" : "yes",
                       by, i == 0 ? "  ← builds use this" : "");
  }
  if (!r.libraries.empty()) {
    out +=
        "\n" + st.bold("Libraries a process would load") + " " + st.dim("(without RPATH)") + "\n";
    Table t({"soname", "file", "via"});
    for (auto& l : r.libraries) t.add_row({l.soname, l.path.empty() ? "not found" : l.path, l.via});
    out += t.render(st, "  ");
  }
  out += "\n" + st.bold("Python environments") + "\n";
  if (r.envs.empty())
    out += "  none found ($VIRTUAL_ENV, $CONDA_PREFIX, python3 on PATH; add --python PATH)\n";
  for (auto& e : r.envs) {
    size_t with_code = 0;
    for (auto& p : e.packages) with_code += p.has_device_code() ? 1 : 0;
    out +=
        fmt::format("  {} (Python {}, {}, found by {}): {} packages, {} with GPU code\n", e.prefix,
                    e.python_version, e.kind, e.found_by, e.packages.size(), with_code);
    if (e.torch)
      out += fmt::format("    torch {}  channel {}  CUDA {}\n", e.torch->version,
                         e.torch->channel.empty() ? "-" : e.torch->channel,
                         e.torch->cuda ? e.torch->cuda->to_string() : "?");
    else
      out += "    no torch\n";
  }
  if (!r.verdicts.empty()) {
    out += "\n" + st.bold("Packages with GPU code") + " " + st.dim("(predicted)") + "\n";
    Table t({"package", "version", "GPU", "verdict", "device code"});
    for (auto& v : r.verdicts) {
      std::string code;
      for (size_t i = 0; i < v.targets.size() && i < 8; ++i) code += (i ? " " : "") + v.targets[i];
      if (v.targets.size() > 8) code += fmt::format(" …(+{})", v.targets.size() - 8);
      if (v.variant)
        code = v.variant->chosen.empty()
                   ? "no " + v.variant->wanted_name + " (nothing loads)"
                   : fs::path(v.variant->chosen).filename().string() + ": " + code;
      t.add_row({v.package, v.version, v.gpu, styled_verdict(v.fit, st), code});
    }
    out += t.render(st, "  ");
    // Run-time alternatives: which library loads, by which rule, and what else is shipped.
    for (auto& v : r.verdicts) {
      if (!v.variant || v.variant->chosen.empty() || v.gpu != r.verdicts.front().gpu) continue;
      auto& c = *v.variant;
      out += fmt::format("  {} loads {} ({}: {}); not loaded: {} alternatives [{}]\n", v.package,
                         fs::path(c.chosen).filename().string(), c.wanted_by, c.how,
                         c.alternatives.size(), c.rule->source);
    }
  }
  if (!r.env_vars.empty()) {
    out += "\n" + st.bold("Environment variables") + "\n";
    for (auto& [n, v] : r.env_vars) out += fmt::format("  {}={}\n", n, v);
  }
  out += "\n" + render_findings_text(r, st);
  for (auto& e : r.errors) out += "  " + st.red("usage: ") + e + "\n";
  if (r.targets.empty())
    out +=
        "\nTo judge this machine's environments for a GPU that is not here: smcompat doctor "
        "--gpu \"RTX 5090\" (repeatable; `smcompat gpus` lists names).\n";
  return out;
}

nlohmann::json driver_facts_to_json(const DriverFacts& d) {
  using nlohmann::json;
  json gpus = json::array();
  for (auto& g : d.gpus)
    gpus.push_back({{"name", g.name}, {"cc", g.cc.to_string()}, {"pci_bus_id", g.pci_bus_id}});
  return {
      {"state", to_string(d.state)},
      {"detail", d.detail},
      {"observed", d.observed},
      {"version", d.version ? json(d.version->to_string()) : json()},
      {"cuda", d.cuda ? json(d.cuda->to_string()) : json()},
      {"kernel_module", d.kernel_module_flavour.empty() ? json() : json(d.kernel_module_flavour)},
      {"kernel_module_line", d.kernel_module_line},
      {"gpus", std::move(gpus)}};
}

nlohmann::json doctor_to_json(const DoctorReport& r, const std::vector<std::string>& argv) {
  using nlohmann::json;
  json driver = driver_facts_to_json(r.driver);
  json targets = json::array();
  for (auto& t : r.targets)
    targets.push_back({{"name", t.name}, {"cc", t.cc.to_string()}, {"present", t.observed}});
  json toolkits = json::array();
  for (auto& t : r.toolkits)
    toolkits.push_back({{"root", t.root},
                        {"version", t.version ? json(t.version->to_string()) : json()},
                        {"version_source", t.version_source},
                        {"nvcc", t.nvcc.empty() ? json() : json(t.nvcc)},
                        {"found_by", t.found_by}});
  json libs = json::array();
  for (auto& l : r.libraries)
    libs.push_back(
        {{"soname", l.soname}, {"path", l.path.empty() ? json() : json(l.path)}, {"via", l.via}});
  json envs = json::array();
  for (auto& e : r.envs) {
    json pkgs = json::array();
    for (auto& p : e.packages) {
      if (!p.has_device_code()) continue;
      json ls = json::array();
      for (auto& l : p.libraries) {
        json targets_j = json::array();
        for (auto& t : l.targets) targets_j.push_back(t.to_string());
        ls.push_back({{"path", l.path}, {"targets", targets_j}});
      }
      pkgs.push_back({{"name", p.dist.name},
                      {"version", p.dist.version},
                      {"dist_info", p.dist.dist_info},
                      {"libraries", ls}});
    }
    json torch;
    if (e.torch)
      torch = {{"version", e.torch->version},
               {"channel", e.torch->channel},
               {"cuda", e.torch->cuda ? json(e.torch->cuda->to_string()) : json()},
               {"version_py", e.torch->version_py}};
    envs.push_back({{"prefix", e.prefix},
                    {"site_packages", e.site_packages},
                    {"python_version", e.python_version},
                    {"kind", e.kind},
                    {"found_by", e.found_by},
                    {"package_count", e.packages.size()},
                    {"gpu_packages", pkgs},
                    {"torch", torch},
                    {"warnings", e.warnings}});
  }
  json verdicts = json::array();
  for (auto& v : r.verdicts) {
    json ls = json::array();
    for (auto& l : v.libraries)
      ls.push_back({{"path", l.path},
                    {"fit", to_string(l.fit)},
                    {"best_image", l.best_image},
                    {"reason", l.reason}});
    verdicts.push_back({{"env", v.env},
                        {"package", v.package},
                        {"version", v.version},
                        {"gpu", v.gpu},
                        {"cc", v.cc.to_string()},
                        {"fit", to_string(v.fit)},
                        {"predicted", true},
                        {"targets", v.targets},
                        {"libraries", ls}});
    if (v.variant) {
      auto& c = *v.variant;
      verdicts.back()["runtime_variant"] = {
          {"loads", c.chosen.empty() ? json(nullptr) : json(c.chosen)},
          {"wanted", c.wanted_name},
          {"wanted_by", c.wanted_by},
          {"how", c.how},
          {"rule", c.rule->chosen_by},
          {"source", c.rule->source},
          {"alternatives", c.alternatives},
          {"problem", c.problem}};
    }
  }
  json vars = json::object();
  for (auto& [n, v] : r.env_vars) vars[n] = v;
  json findings = json::array();
  for (auto& f : r.findings) findings.push_back(finding_to_json(f));
  return node_json_document(kDoctorSchema, argv,
                            {{"driver", driver},
                             {"targets", targets},
                             {"toolkits", toolkits},
                             {"libraries", libs},
                             {"python_envs", envs},
                             {"verdicts", verdicts},
                             {"env_vars", vars},
                             {"host",
                              {{"cores", r.host.cores},
                               {"mem_total_gib", r.host.mem_total_gib},
                               {"mem_available_gib", r.host.mem_available_gib},
                               {"cxx", r.host.cxx.empty() ? json() : json(r.host.cxx)},
                               {"cxx_version", r.host.cxx_version}}},
                             {"summary",
                              {{"errors", r.count(Severity::kError)},
                               {"warnings", r.count(Severity::kWarning)},
                               {"info", r.count(Severity::kInfo)}}},
                             {"findings", findings},
                             {"usage_errors", r.errors}});
}

std::string render_doctor_markdown(const DoctorReport& r) {
  std::string md = "# smcompat doctor\n\n";
  md +=
      "Verdicts are predicted from the files on disk; the driver line says what was observed.\n\n";
  md += "## Machine\n\n";
  md += "- Driver: " + driver_line(r.driver) + "\n";
  for (auto& t : r.targets)
    md += fmt::format("- GPU: {} (CC {}, {})\n", t.name, t.cc.to_string(),
                      t.observed ? "present" : "what-if");
  if (r.targets.empty()) md += "- GPU: none judged (ask with `--gpu NAME`)\n";
  for (auto& t : r.toolkits)
    md += fmt::format("- CUDA toolkit: {} (CUDA {})\n", markdown_code(t.root),
                      t.version ? t.version->to_string() : "?");
  for (auto& e : r.envs) {
    md += fmt::format("- Python {} ({}): {}", markdown_text(e.python_version), e.kind,
                      markdown_code(e.prefix));
    if (e.torch) md += fmt::format(" — torch {}", markdown_text(e.torch->version));
    md += "\n";
  }
  if (!r.verdicts.empty()) {
    md +=
        "\n## Packages with GPU code (predicted)\n\n| package | version | GPU | verdict | device "
        "code |\n|---|---|---|---|---|\n";
    for (auto& v : r.verdicts) {
      std::string code;
      for (auto& t : v.targets) code += (code.empty() ? "" : " ") + t;
      md += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_text(v.package),
                        markdown_text(v.version), markdown_text(v.gpu), to_string(v.fit),
                        code);  // targets smcompat wrote ("sm_80"), not read text
    }
  }
  md += "\n" + render_findings_markdown(r.findings);
  return md;
}

std::string render_findings_markdown(const std::vector<Finding>& findings) {
  auto count = [&](Severity s) {
    return std::count_if(findings.begin(), findings.end(),
                         [&](auto& f) { return f.severity == s; });
  };
  std::string md =
      fmt::format("## Findings ({} errors, {} warnings, {} info)\n\n", count(Severity::kError),
                  count(Severity::kWarning), count(Severity::kInfo));
  for (auto& f : findings) {
    md += fmt::format("### {}: {}\n\n", to_string(f.severity), f.title);
    for (auto& e : f.evidence) md += "- " + e + "\n";
    if (!f.fix.empty()) md += "\n**Fix:** " + f.fix + "\n";
    if (!f.fix_commands.empty()) {
      md += "\n```sh\n";
      for (auto& c : f.fix_commands) md += c + "\n";
      md += "```\n";
    }
    md += "\n";
  }
  return md;
}

std::string render_fix_script(const DoctorReport& r) {
  std::string s = "#!/bin/sh\n";
  s += "# Written by `smcompat doctor --fix-script`. smcompat never runs it: review every line,\n";
  s += "# delete what you do not want, then run it yourself.\n";
  s += "# export/unset lines only affect this script's own shell: put them in your shell profile\n";
  s += "# or the environment's activation script to keep them.\n";
  s += "set -eu\n";
  size_t n = 0;
  for (auto& f : r.findings) {
    if (f.severity == Severity::kInfo && f.fix_commands.empty()) continue;
    if (f.fix_commands.empty() && f.fix.empty()) continue;
    s += fmt::format("\n# [{}] {}\n", to_string(f.severity), f.title);
    for (auto& e : f.evidence) s += "#   " + e + "\n";
    if (!f.fix.empty()) s += "#   fix: " + f.fix + "\n";
    if (f.fix_commands.empty()) s += "#   (no command: this needs a manual step)\n";
    for (auto& c : f.fix_commands) s += c + "\n";
    ++n;
  }
  if (n == 0) s += "\n# Nothing to fix.\n";
  return s;
}

}  // namespace smcompat
