// `smcompat check --pid PID`: which GPU libraries a running process has loaded, and whether each
// runs on the GPU it uses (doctor/process_check.hpp), judged by the doctor's rules. Checking the
// CLI's own process would say nothing, so --pid is required; the Python binding checks its own.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/doctor/process_check.hpp"
#include "smcompat/report/check_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

struct CheckCliOptions {
  int pid = 0;
  std::vector<std::string> gpus;
  bool json = false;
  std::string fail_on = "error";
  std::string proc_root;
};

int run_check(Context& ctx, const CheckCliOptions& o) {
  if (o.pid <= 0)
    return ctx.fail("check",
                    "give the process to check with --pid PID (checking smcompat's own process "
                    "would tell nothing; from Python, smcompat.check() checks itself)");
  auto fail_on = doctor::parse_severity(o.fail_on);
  if (!fail_on) return ctx.fail("check", "--fail-on must be error, warning or info");
  doctor::ProcessCheckOptions opt;
  opt.pid = o.pid;
  // The driver numbers GPUs by the CUDA_VISIBLE_DEVICES of the process asking, so the probe must
  // ask with the checked process's value (or none). This CLI process is one-shot: setting its
  // own variable is the one way to make the driver itself apply it.
  std::string proc_root = o.proc_root.empty() ? "/proc" : o.proc_root;
  if (auto environ = read_file_prefix(fmt::format("{}/{}/environ", proc_root, o.pid), 16u << 20)) {
    auto target_env = doctor::parse_environ(*environ);
    if (auto it = target_env.find("CUDA_VISIBLE_DEVICES"); it != target_env.end())
      ::setenv("CUDA_VISIBLE_DEVICES", it->second.c_str(), 1);
    else
      ::unsetenv("CUDA_VISIBLE_DEVICES");
  }
  opt.gpus = o.gpus;
  if (!o.proc_root.empty()) opt.proc_root = o.proc_root;
  auto check = doctor::check_process(opt);
  if (!check.maps_read) {
    for (auto& e : check.errors) fmt::print(stderr, "smcompat check: {}\n", e);
    return ctx.fail(
        "check", fmt::format("process {} does not exist or is not readable by this user", o.pid));
  }
  if (o.json)
    fmt::print("{}\n", json_text(check_to_json(check, ctx.argv)));
  else
    fmt::print("{}", render_check_text(check, ctx.out_style()));
  for (auto& e : check.report.errors) fmt::print(stderr, "smcompat check: {}\n", e);
  if (!check.report.errors.empty()) return kExitError;
  for (auto& f : check.report.findings)
    if (static_cast<int>(f.severity) >= static_cast<int>(*fail_on)) return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_check(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "check", "Check a running process: its loaded GPU libraries against the GPU it uses");
  auto o = std::make_shared<CheckCliOptions>();
  cmd->add_option("--pid", o->pid, "The process to check");
  add_repeatable(cmd, "--gpu", o->gpus,
                 "Judge the loaded libraries for this GPU too (repeatable), e.g. \"RTX 5090\"");
  add_format_flags(cmd, o->json, nullptr, "smcompat.check/1");
  add_severity_fail_on(cmd, o->fail_on);
  cmd->add_option("--proc-root", o->proc_root, "Read /proc files from this directory (testing)")
      ->group("");
  cmd->callback([&ctx, o] { ctx.exit_code = run_check(ctx, *o); });
}

}  // namespace smcompat::cli
