// The data of `smcompat export prometheus` (api.hpp: collect_prometheus): the probe, one scan per
// subject and GPU model, one doctor run per environment. The text is render_prometheus()'s
// (report/prometheus_report.hpp); the CLI (tools/smcompat/export.cpp) prints or writes it.
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "smcompat/api/api.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat::api {

namespace {

// The GPU models a run judges for: each model on this machine once (resolve_targets() merges
// GPUs of one model), then the --gpu names. resolve_targets() keeps a --gpu naming a model that is
// present as a what-if beside the observed one; both would be the same series (gpu_name, cc), so
// the observed one stays alone.
Result<std::vector<Target>> gpu_models(const PrometheusRequest& request,
                                       const std::optional<ProbeReport>& probe) {
  TargetQuery query;
  query.names = request.gpus;
  if (probe && probe->status == ProbeStatus::kOk) {
    for (const ProbeDevice& d : probe->devices)
      query.machine.push_back({d.name, d.true_cc(), d.ordinal});
    query.machine_cuda = probe->cuda_driver_version;
  }
  ResolvedTargets resolved = resolve_targets(query);
  if (!resolved.errors.empty()) return resolved.errors.front();
  std::vector<Target> models;
  for (const Target& t : resolved.targets) {
    bool seen = std::any_of(models.begin(), models.end(),
                            [&](const Target& m) { return m.name == t.name && m.cc == t.cc; });
    if (!seen) models.push_back(t);
  }
  return models;
}

// A --scan path that could not be read at all (the scan's walk error names it as given).
std::optional<Error> unreadable(const ScanReport& report, const std::string& path) {
  for (const auto& e : report.errors)
    if (e.file == path) {
      Error error = e;
      error.what = "--scan " + path + ": " + e.what;
      return error;
    }
  return std::nullopt;
}

}  // namespace

Result<PrometheusExport> collect_prometheus(const PrometheusRequest& request) {
  auto started = std::chrono::steady_clock::now();
  PrometheusExport run;
  run.timestamp_seconds =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (const auto& path : request.scans) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      return make_error("--scan " + path + ": no such file or directory");
  }

  auto probed = probe_system(request.probe);
  if (probed)
    run.probe = std::move(*probed);
  else
    run.probe_error = probed.error().to_string();
  auto models = gpu_models(request, run.probe);
  if (!models) return models.error();

  for (const auto& path : request.scans) {
    PrometheusScanSubject subject{path, {}, 0};
    ScanOptions options;
    options.jobs = request.jobs;
    // One walk per subject, judged for each GPU model (a node with three models read the tree
    // three times).
    ScanReport scanned = scan_paths({path}, options);
    if (auto e = unreadable(scanned, path)) return *e;
    subject.errors = scan_error_count(scanned);
    for (size_t i = 0; i < models->size(); ++i) {
      // Copies for all but the last model, which takes the walk itself.
      ScanReport report = i + 1 < models->size() ? scanned : std::move(scanned);
      judge_report(report, (*models)[i]);
      subject.judged.push_back({(*models)[i], std::move(report)});
    }
    run.scans.push_back(std::move(subject));
  }

  for (const auto& python : request.pythons) {
    doctor::DoctorOptions options;
    options.gpus = request.gpus;
    options.pythons = {python};
    options.discover_active = false;
    options.env = doctor::current_environment();
    options.jobs = request.jobs;
    if (run.probe) options.driver = doctor::driver_facts_from_probe(*run.probe);
    PrometheusDoctorSubject subject{python, doctor::run_doctor(options)};
    if (!subject.report.errors.empty()) return make_error(subject.report.errors.front());
    run.doctors.push_back(std::move(subject));
  }
  run.duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return run;
}

Result<std::string> prometheus(const PrometheusRequest& request) {
  auto run = collect_prometheus(request);
  if (!run) return run.error();
  return render_prometheus(*run);
}

}  // namespace smcompat::api
