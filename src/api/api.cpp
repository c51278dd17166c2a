// One request in, the CLI's `--json` document out (api.hpp). The CLI's files in tools/smcompat/
// use the same request handling (scan_options, select_gpus), so both paths print one document.
#include "smcompat/api/api.hpp"

#include <unistd.h>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/explain/explain.hpp"
#include "smcompat/report/catalog_report.hpp"
#include "smcompat/report/check_report.hpp"
#include "smcompat/report/doctor_report.hpp"
#include "smcompat/report/explain_report.hpp"
#include "smcompat/report/probe_report.hpp"
#include "smcompat/report/scan_report.hpp"
#include "smcompat/util/json_fields.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat::api {

namespace {

void add_repeated(std::vector<std::string>& argv, const char* flag,
                  const std::vector<std::string>& values) {
  for (const auto& v : values) {
    argv.push_back(flag);
    argv.push_back(v);
  }
}

// The first doctor usage error as a failure (the CLI prints them all and exits 2).
Error doctor_error(const doctor::DoctorReport& report) { return make_error(report.errors.front()); }

doctor::DoctorOptions doctor_options(const std::vector<std::string>& gpus,
                                     const std::vector<std::string>& pythons,
                                     bool discover_active) {
  doctor::DoctorOptions opt;
  opt.gpus = gpus;
  opt.pythons = pythons;
  opt.discover_active = discover_active;
  opt.env = doctor::current_environment();
  return opt;
}

}  // namespace

Result<ScanOptions> scan_options(const ScanRequest& request, const Catalog& catalog) {
  ScanOptions opt;
  opt.jobs = request.jobs;
  opt.inspect.deep = request.deep;
  if (!request.gpu.empty() && !request.target.empty())
    return make_error("give --gpu or --target, not both");
  const std::string& which = !request.gpu.empty() ? request.gpu : request.target;
  if (!which.empty()) {
    auto t =
        resolve_target(which, request.driver, catalog, request.gpu.empty() ? "--target" : "--gpu");
    if (!t) return t.error();
    opt.target = *t;
  } else if (!request.driver.empty()) {
    return make_error("--driver needs a target (--gpu or --target)");
  } else if (request.probe) {
    // No target named: judge for this machine's first GPU, as the driver reports it (observed),
    // with the driver's CUDA version for the PTX check.
    auto probed = probe_system();
    if (probed && probed->status == ProbeStatus::kOk && !probed->devices.empty()) {
      const ProbeDevice& d = probed->devices.front();
      TargetQuery q;
      q.machine.push_back({d.name, d.true_cc(), d.ordinal});
      q.machine_cuda = probed->cuda_driver_version;
      auto resolved = resolve_targets(q);
      if (!resolved.targets.empty()) opt.target = resolved.targets.front();
    }
  }
  return opt;
}

std::vector<std::string> scan_argv(const ScanRequest& request) {
  std::vector<std::string> argv{"smcompat", "scan"};
  argv.insert(argv.end(), request.paths.begin(), request.paths.end());
  if (!request.gpu.empty()) argv.insert(argv.end(), {"--gpu", request.gpu});
  if (!request.target.empty()) argv.insert(argv.end(), {"--target", request.target});
  if (!request.driver.empty()) argv.insert(argv.end(), {"--driver", request.driver});
  if (request.deep) argv.push_back("--deep");
  if (request.verbose) argv.push_back("--verbose");
  if (!request.probe) argv.push_back("--no-probe");
  if (request.jobs) argv.insert(argv.end(), {"--jobs", std::to_string(request.jobs)});
  argv.push_back("--json");
  return argv;
}

Result<nlohmann::json> scan(const ScanRequest& request) {
  if (request.paths.empty()) return make_error("no path to scan");
  auto options = scan_options(request);
  if (!options) return options.error();
  ScanReport report = scan_paths(request.paths, *options);
  // A path of the request that could not be read at all (the CLI's exit 2).
  for (const auto& e : report.errors)
    for (const auto& p : request.paths)
      if (e.file == p) return e;
  if (request.strict) {
    if (!report.errors.empty()) return report.errors.front();
    for (const auto& f : report.files)
      if (!f.inventory.errors.empty()) {
        Error e = f.inventory.errors.front();
        e.file = f.inventory.display_name();
        return e;
      }
  }
  ScanRenderOptions render{request.deep, request.verbose, scan_argv(request)};
  return scan_to_json(report, *options, render);
}

std::vector<std::string> doctor_argv(const DoctorRequest& request) {
  std::vector<std::string> argv{"smcompat", "doctor"};
  add_repeated(argv, "--gpu", request.gpus);
  add_repeated(argv, "--python", request.pythons);
  if (!request.discover_active) argv.push_back("--no-active");
  if (!request.scan_code) argv.push_back("--no-scan");
  argv.push_back("--json");
  return argv;
}

Result<nlohmann::json> doctor(const DoctorRequest& request) {
  auto opt = doctor_options(request.gpus, request.pythons, request.discover_active);
  opt.scan_code = request.scan_code;
  auto report = doctor::run_doctor(opt);
  if (!report.errors.empty()) return doctor_error(report);
  return doctor_to_json(report, doctor_argv(request));
}

std::vector<std::string> explain_argv(const ExplainRequest& request) {
  std::vector<std::string> argv{"smcompat", "explain"};
  if (!request.run_doctor) argv.push_back("--no-doctor");
  if (!request.discover_active) argv.push_back("--no-active");
  add_repeated(argv, "--gpu", request.gpus);
  add_repeated(argv, "--python", request.pythons);
  argv.insert(argv.end(), {"--json", "--", request.text});
  return argv;
}

Result<nlohmann::json> explain(const ExplainRequest& request) {
  if (request.text.empty()) return make_error("no error text to explain");
  std::optional<doctor::DoctorReport> report;
  if (request.run_doctor) {
    report =
        doctor::run_doctor(doctor_options(request.gpus, request.pythons, request.discover_active));
    if (!report->errors.empty()) return doctor_error(*report);
  }
  auto e = explain::explain_text(request.text, explain::KnowledgeBase::builtin(),
                                 report ? &*report : nullptr);
  return explain_to_json(e, explain_argv(request));
}

Result<std::vector<const GpuSpec*>> select_gpus(const std::string& query, const Catalog& catalog) {
  std::vector<const GpuSpec*> gpus;
  if (query.empty()) {
    for (const auto& g : catalog.gpus()) gpus.push_back(&g);
    return gpus;
  }
  if (const GpuSpec* g = catalog.find_gpu(query))
    gpus.push_back(g);
  else
    gpus = catalog.suggest_gpus(query);
  if (gpus.empty())
    return make_error("no GPU in the catalog matches \"" + query +
                      "\"; `smcompat gpus` lists them all");
  return gpus;
}

Result<nlohmann::json> gpus(const std::string& query) {
  auto selected = select_gpus(query);
  if (!selected) return selected.error();
  return gpus_json(*selected);
}

Result<nlohmann::json> probe(bool use_nvml) {
  ProbeOptions options;
  options.use_nvml = use_nvml;
  auto result = probe_system(options);
  if (!result) return result.error();
  std::vector<std::string> argv{"smcompat", "probe"};
  if (!use_nvml) argv.push_back("--no-nvml");
  argv.push_back("--json");
  return probe_to_json(*result, argv);
}

std::vector<std::string> check_argv(const CheckRequest& request) {
  std::vector<std::string> argv{"smcompat", "check", "--pid",
                                std::to_string(request.pid ? request.pid : ::getpid())};
  add_repeated(argv, "--gpu", request.gpus);
  argv.push_back("--json");
  return argv;
}

Result<doctor::ProcessCheck> check(const CheckRequest& request) {
  doctor::ProcessCheckOptions opt;
  opt.pid = request.pid;
  opt.gpus = request.gpus;
  opt.torch = request.torch;
  // This process: its environment as it is now (PROC/self/environ holds the one it started with).
  if (request.pid == 0 || request.pid == ::getpid()) opt.env = doctor::current_environment();
  auto result = doctor::check_process(opt);
  if (!result.maps_read) {
    Error e =
        make_error(result.errors.empty() ? "the process could not be read" : result.errors.front());
    e.file = result.maps;
    return e;
  }
  if (!result.report.errors.empty()) return doctor_error(result.report);
  return result;
}

Result<doctor::TorchRuntime> torch_runtime_from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error("torch facts: not a JSON object");
  doctor::TorchRuntime t;
  t.version = json_string(j, "version");
  t.cuda = json_string(j, "cuda");
  t.device_name = json_string(j, "device_name");
  if (auto it = j.find("device"); it != j.end() && it->is_number_integer())
    t.device = it->get<int>();
  t.arch_list = json_string_list(j, "arch_list");
  if (auto it = j.find("capability"); it != j.end() && it->is_array() && it->size() == 2 &&
                                      (*it)[0].is_number_integer() && (*it)[1].is_number_integer())
    t.capability = ComputeCapability{(*it)[0].get<int>(), (*it)[1].get<int>()};
  return t;
}

}  // namespace smcompat::api
