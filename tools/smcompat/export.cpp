// `smcompat export prometheus [--scan PATH]... [--python PY]... [--gpu NAME]... [--textfile PATH]`:
// probes this machine, scans the given paths and runs the doctor on the given Python environments
// for every GPU model present (and every --gpu), and prints the result as Prometheus metrics
// (report/prometheus_report.hpp, docs/prometheus.md) or writes them atomically for node_exporter's
// textfile collector. `export` is a parent command so that other formats can hang under it.
// Exit codes: 0 exported, 2 usage or I/O error (nothing is written then).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "commands.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/report/prometheus_report.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat::cli {

namespace {

struct PrometheusArgs {
  std::vector<std::string> scans, pythons, gpus;
  std::string textfile;
  ProbeOptions probe;
  unsigned jobs = 0;
};

int run_export_prometheus(const PrometheusArgs& a) {
  const char* me = "smcompat export prometheus";
  auto started = std::chrono::steady_clock::now();
  double timestamp =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // A textfile in a directory that does not exist: say so before doing any work.
  if (!a.textfile.empty()) {
    std::filesystem::path dir = std::filesystem::path(a.textfile).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      fmt::print(stderr, "{}: --textfile {}: directory {} does not exist\n", me, a.textfile,
                 dir.string());
      return kExitError;
    }
  }
  for (const auto& path : a.scans) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      fmt::print(stderr, "{}: --scan {}: no such file or directory\n", me, path);
      return kExitError;
    }
  }

  PrometheusExport run;
  run.timestamp_seconds = timestamp;
  auto probed = probe_system(a.probe);
  if (probed)
    run.probe = std::move(*probed);
  else
    run.probe_error = probed.error().to_string();

  // The GPU models to judge for: each model on this machine once, then the --gpu names.
  TargetQuery query;
  query.names = a.gpus;
  if (run.probe && run.probe->status == ProbeStatus::kOk) {
    for (const ProbeDevice& d : run.probe->devices)
      query.machine.push_back({d.name, d.true_cc(), d.ordinal});
    query.machine_cuda = run.probe->cuda_driver_version;
  }
  ResolvedTargets targets = resolve_targets(query);
  if (!targets.errors.empty()) {
    for (const auto& e : targets.errors) fmt::print(stderr, "{}: {}\n", me, e.what);
    return kExitError;
  }
  // resolve_targets() keeps a --gpu naming a model present on this machine as a what-if beside
  // the observed one; both would be the same series (gpu_name, cc): the observed one stays.
  std::vector<Target> models;
  for (const Target& t : targets.targets) {
    bool seen = std::any_of(models.begin(), models.end(),
                            [&](const Target& m) { return m.name == t.name && m.cc == t.cc; });
    if (!seen) models.push_back(t);
  }

  for (const auto& path : a.scans) {
    PrometheusScanSubject subject{path, {}, 0};
    ScanOptions options;
    options.jobs = a.jobs;
    if (models.empty()) {
      subject.errors = scan_error_count(scan_paths({path}, options));
    }
    for (const Target& t : models) {
      options.target = t;
      ScanReport report = scan_paths({path}, options);
      for (const auto& e : report.errors)
        if (e.file == path) {
          fmt::print(stderr, "{}: --scan {}: {}\n", me, path, e.what);
          return kExitError;
        }
      subject.errors = scan_error_count(report);
      subject.judged.push_back({t, std::move(report)});
    }
    run.scans.push_back(std::move(subject));
  }

  for (const auto& python : a.pythons) {
    doctor::DoctorOptions options;
    options.gpus = a.gpus;
    options.pythons = {python};
    options.discover_active = false;
    options.env = doctor::current_environment();
    options.jobs = a.jobs;
    if (run.probe) options.driver = doctor::driver_facts_from_probe(*run.probe);
    PrometheusDoctorSubject subject{python, doctor::run_doctor(options)};
    if (!subject.report.errors.empty()) {
      for (const auto& e : subject.report.errors) fmt::print(stderr, "{}: {}\n", me, e);
      return kExitError;
    }
    run.doctors.push_back(std::move(subject));
  }

  run.duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string text = render_prometheus(run);
  if (a.textfile.empty()) {
    fmt::print("{}", text);
    return kExitOk;
  }
  if (auto written = write_file_atomically(a.textfile, text); !written) {
    fmt::print(stderr, "{}: --textfile {}: {}\n", me, a.textfile, written.error().what);
    return kExitError;
  }
  return kExitOk;
}

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
  cmd->add_option("--scan", a->scans,
                  "A path to scan and judge (repeatable): an image root, a venv, a wheel, a "
                  "library")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--python", a->pythons,
                  "A Python interpreter, environment prefix or site-packages to run the doctor "
                  "on (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--gpu", a->gpus,
                  "Judge for this GPU too, present or not (repeatable), e.g. \"RTX 5090\", B200")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--textfile", a->textfile,
                  "Write the metrics to this file atomically (PATH.tmp.<pid>, fsync, rename) "
                  "instead of stdout; its directory must exist");
  cmd->add_option("-j,--jobs", a->jobs, "Threads for scanning (default: all cores)");
  cmd->add_option("--proc-version", a->probe.proc_version_path,
                  "File naming the kernel module (testing)")
      ->group("");
  cmd->add_option("--dev-dir", a->probe.dev_dir, "Directory of the nvidia* device nodes (testing)")
      ->group("");
  cmd->callback([&ctx, a] { ctx.exit_code = run_export_prometheus(*a); });
}

}  // namespace smcompat::cli
