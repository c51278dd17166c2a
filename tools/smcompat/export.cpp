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
#include "smcompat/api/api.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat::cli {

namespace {

int run_export_prometheus(const api::PrometheusRequest& request, const std::string& textfile) {
  const char* me = "smcompat export prometheus";
  // A textfile in a directory that does not exist: say so before doing any work.
  if (!textfile.empty()) {
    std::filesystem::path dir = std::filesystem::path(textfile).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      fmt::print(stderr, "{}: --textfile {}: directory {} does not exist\n", me, textfile,
                 dir.string());
      return kExitError;
    }
  }
  auto text = api::prometheus(request);
  if (!text) {
    fmt::print(stderr, "{}: {}\n", me, text.error().what);
    return kExitError;
  }
  if (textfile.empty()) {
    fmt::print("{}", *text);
    return kExitOk;
  }
  if (auto err = write_file_atomically(textfile, *text)) {
    fmt::print(stderr, "{}: --textfile {}: {}\n", me, err->file, err->what);
    return kExitError;
  }
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
  cmd->add_option("--scan", a->request.scans,
                  "A path to scan and judge (repeatable): an image root, a venv, a wheel, a "
                  "library")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--python", a->request.pythons,
                  "A Python interpreter, environment prefix or site-packages to run the doctor "
                  "on (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--gpu", a->request.gpus,
                  "Judge for this GPU too, present or not (repeatable), e.g. \"RTX 5090\", B200")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
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
  cmd->callback([&ctx, a] { ctx.exit_code = run_export_prometheus(a->request, a->textfile); });
}

}  // namespace smcompat::cli
