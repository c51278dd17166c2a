// `smcompat doctor`: checks the driver, CUDA toolkits, Python environments and environment
// variables the way an expert would, and prints findings with evidence and exact fixes.
// Library: doctor/doctor.hpp. Also what `smcompat` with no arguments runs (default.cpp).
#include "smcompat/doctor/doctor.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "commands.hpp"
#include "doctor_cli.hpp"
#include "options.hpp"
#include "smcompat/report/doctor_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

int run_doctor_cli(Context& ctx, const DoctorCliOptions& o) {
  doctor::DoctorOptions opt;
  opt.gpus = o.gpus;
  opt.pythons = o.pythons;
  opt.discover_active = !o.no_active;
  opt.scan_code = !o.no_scan;
  opt.env = doctor::current_environment();
  if (!o.proc_root.empty()) opt.proc_root = o.proc_root;
  auto fail_on = doctor::parse_severity(o.fail_on);
  if (!fail_on) return ctx.fail("doctor", "--fail-on must be error, warning or info");
  if (isatty(fileno(stderr)))
    fmt::print(stderr, "{}",
               ctx.err_style().dim(
                   "smcompat doctor: reading driver, toolkits and Python environments…\n"));
  auto report = doctor::run_doctor(opt);
  if (o.json) {
    fmt::print("{}\n", json_text(doctor_to_json(report, ctx.argv)));
  } else if (o.markdown) {
    fmt::print("{}", render_doctor_markdown(report));
  } else {
    fmt::print("{}", render_doctor_text(report, ctx.out_style()));
  }
  for (auto& e : report.errors) fmt::print(stderr, "smcompat doctor: {}\n", e);
  if (!o.fix_script.empty()) {
    if (auto e = write_file_atomically(o.fix_script, render_fix_script(report)))
      return ctx.fail("doctor", e->to_string());
    fmt::print(stderr, "smcompat doctor: wrote {} (review it, then run it yourself: sh {})\n",
               o.fix_script, o.fix_script);
  }
  if (!report.errors.empty()) return kExitError;
  for (auto& f : report.findings)
    if (static_cast<int>(f.severity) >= static_cast<int>(*fail_on)) return kExitFindings;
  return kExitOk;
}

void register_doctor(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "doctor", "Check driver, toolkits, Python environments and variables; findings with fixes");
  auto o = std::make_shared<DoctorCliOptions>();
  add_repeatable(
      cmd, "--gpu", o->gpus,
      "Judge the environment for this GPU too (repeatable), e.g. \"RTX 5090\", H100, B200");
  add_repeatable(cmd, "--python", o->pythons,
                 "A Python interpreter, environment prefix or site-packages to check (repeatable)");
  add_format_flags(cmd, o->json, &o->markdown, "smcompat.doctor/1");
  cmd->add_option("--fix-script", o->fix_script,
                  "Write the fixes as a shell script to review (never run by smcompat)");
  add_severity_fail_on(cmd, o->fail_on);
  cmd->add_flag("--no-scan", o->no_scan, "Do not read the device code of installed libraries");
  cmd->add_flag("--no-active", o->no_active,
                "Do not look at $VIRTUAL_ENV, $CONDA_PREFIX or python3 on PATH");
  cmd->add_option("--proc-root", o->proc_root, "Read /proc files from this directory (testing)")
      ->group("");
  cmd->callback([&ctx, o] { ctx.exit_code = run_doctor_cli(ctx, *o); });
}

}  // namespace smcompat::cli
