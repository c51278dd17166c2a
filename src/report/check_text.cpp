// The text of a live-process check (include/smcompat/report/check_report.hpp): the process and
// its GPU, one row per loaded library with device code (package, verdict on that GPU, best image),
// then the findings as the doctor prints them (render_findings_text).
#include <fmt/format.h>

#include "smcompat/report/check_report.hpp"
#include "smcompat/report/doctor_report.hpp"
#include "smcompat/report/scan_report.hpp"

namespace smcompat {

using namespace doctor;

std::string render_check_text(const ProcessCheck& c, const Style& st) {
  std::string out;
  out += st.bold(fmt::format("smcompat check: process {}", c.pid)) +
         st.dim(
             " (verdicts are predicted from the loaded files; 'observed' marks what the driver "
             "reported)") +
         "\n\n";
  if (!c.maps_read) {
    for (auto& e : c.errors) out += "  " + st.red("error: ") + e + "\n";
    return out;
  }
  const DoctorReport& r = c.report;
  out += st.bold("Driver") + "\n  " + driver_line(r.driver) + "\n";
  out += "\n" + st.bold("GPU") + "\n";
  if (c.gpu) {
    auto& t = r.targets[*c.gpu];
    out += fmt::format("  {} (compute capability {}, device {}, observed)\n", t.name,
                       t.cc.to_string(), c.torch ? c.torch->device : 0);
  } else {
    out += "  none: the driver shows no GPU for this process\n";
  }
  for (auto& t : r.targets)
    if (!t.observed)
      out += fmt::format("  {} (compute capability {}, what-if, not present)\n", t.name,
                         t.cc.to_string());
  if (c.torch) {
    auto& t = *c.torch;
    std::string archs;
    for (auto& a : t.arch_list) archs += (archs.empty() ? "" : " ") + a;
    out += "\n" + st.bold("torch") + " " + st.dim("(as the process reports it)") + "\n";
    out += fmt::format("  torch {}  CUDA {}  device {}{}{}\n", t.version,
                       t.cuda.empty() ? "-" : t.cuda, t.device,
                       t.device_name.empty() ? "" : " " + t.device_name,
                       t.capability ? " (capability " + t.capability->to_string() + ")" : "");
    out += "  arch list: " + (archs.empty() ? std::string("(empty)") : archs) + "\n";
  }
  std::string judged_on = r.targets.empty() ? "" : r.targets[c.gpu.value_or(0)].name;
  out += "\n" +
         st.bold(fmt::format("Loaded libraries with GPU code ({} of {} mapped files)",
                             c.libraries.size(), c.mapped_files)) +
         (judged_on.empty() ? "" : " " + st.dim("verdict on " + judged_on)) + "\n";
  if (c.libraries.empty()) {
    out += "  none\n";
  } else {
    Table t({"library", "package", "verdict", "best image", "device code"});
    for (auto& l : c.libraries) {
      std::string code;
      for (size_t i = 0; i < l.code.targets.size() && i < 8; ++i)
        code += (i ? " " : "") + l.code.targets[i].to_string();
      if (l.code.targets.size() > 8) code += fmt::format(" …(+{})", l.code.targets.size() - 8);
      std::string package = l.package.empty() ? "-" : l.package + " " + l.version;
      std::string verdict =
          l.verdict ? styled_verdict(l.verdict->fit, st) : (l.code.no_kernels ? "no kernels" : "-");
      t.add_row({l.path + (l.deleted ? " (deleted)" : ""), package, verdict,
                 l.verdict && !l.verdict->best_image.empty() ? l.verdict->best_image : "-", code});
    }
    out += t.render(st, "  ");
  }
  out += "\n" + render_findings_text(r, st);
  for (auto& e : r.errors) out += "  " + st.red("usage: ") + e + "\n";
  for (auto& e : c.errors) out += "  " + st.yellow("note: ") + e + "\n";
  return out;
}

}  // namespace smcompat
