// `smcompat export prometheus [--scan PATH]... [--python PY]... [--gpu NAME]... [--textfile PATH]`:
// probes this machine, scans the given paths and runs the doctor on the given Python environments
// for every GPU model present (and every --gpu), and prints the result as Prometheus metrics
// (report/prometheus_report.hpp, docs/prometheus.md) or writes them atomically for node_exporter's
// textfile collector. The run itself is api::collect_prometheus() (shared with programs that are
// not the CLI). `export` is a parent command so that other formats can hang under it.
// Exit codes: 0 exported, 2 usage or I/O error (nothing is written then).
#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/api/api.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat::cli {

namespace {

int run_export_prometheus(Context& ctx, const api::PrometheusRequest& request,
                          const std::string& textfile) {
  const char* me = "export prometheus";
  // A textfile in a directory that does not exist: say so before doing any work.
  if (!textfile.empty()) {
    std::filesystem::path dir = std::filesystem::path(textfile).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      return ctx.fail(
          me, fmt::format("--textfile {}: directory {} does not exist", textfile, dir.string()));
  }
  auto text = api::prometheus(request);
  if (!text) return ctx.fail(me, text.error().what);
  if (textfile.empty()) {
    fmt::print("{}", *text);
    return kExitOk;
  }
  if (auto err = write_file_atomically(textfile, *text))
    return ctx.fail(me, fmt::format("--textfile {}: {}", err->file, err->what));
  return kExitOk;
}

struct PrometheusArgs {
  api::PrometheusRequest request;
  std::string textfile;
};

}  // namespace

void register_export(CLI::App& app, Context& ctx) {
  CLI::App* parent =
      app.add_subcommand("export", "Export what smcompat sees in formats for other tools");
  parent->require_subcommand(1);
  auto a = std::make_shared<PrometheusArgs>();
  CLI::App* cmd = parent->add_subcommand(
      "prometheus",
      "Metrics for Prometheus (text format 0.0.4; node_exporter's textfile collector): probe, "
      "scans and doctor runs judged for every GPU model present");
  add_repeatable(cmd, "--scan", a->request.scans,
                 "A path to scan and judge (repeatable): an image root, a venv, a wheel, a "
                 "library");
  add_repeatable(cmd, "--python", a->request.pythons,
                 "A Python interpreter, environment prefix or site-packages to run the doctor on "
                 "(repeatable)");
  add_repeatable(cmd, "--gpu", a->request.gpus,
                 "Judge for this GPU too, present or not (repeatable), e.g. \"RTX 5090\", B200");
  cmd->add_option("--textfile", a->textfile,
                  "Write the metrics to this file atomically (PATH.tmp.<pid>, fsync, rename) "
                  "instead of stdout; its directory must exist");
  cmd->add_option("-j,--jobs", a->request.jobs, "Threads for scanning (default: all cores)");
  cmd->add_option("--proc-version", a->request.probe.proc_version_path,
                  "File naming the kernel module (testing)")
      ->group("");
  cmd->add_option("--dev-dir", a->request.probe.dev_dir,
                  "Directory of the nvidia* device nodes (testing)")
      ->group("");
  cmd->callback([&ctx, a] { ctx.exit_code = run_export_prometheus(ctx, a->request, a->textfile); });
}

}  // namespace smcompat::cli
