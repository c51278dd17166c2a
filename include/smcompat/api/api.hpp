// The library's front door for programs that are not the CLI (the Python binding, python/):
// one request in, the same JSON document out that the CLI prints with `--json`. The CLI and the
// binding share the request handling that used to live in the CLI (resolving a scan's target,
// choosing catalog entries), so that `smcompat.scan(...).to_dict()` and `smcompat scan ... --json`
// cannot drift apart. Each document's `argv` is the equivalent command line ("smcompat", ...), so
// a result says how to reproduce it from a shell.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/doctor/process_check.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/report/prometheus_report.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::api {

/// `smcompat scan PATH... [--gpu NAME | --target SM] [--driver VER] [--deep] [-v] [--no-probe]`.
struct ScanRequest {
  std::vector<std::string> paths;
  std::string gpu, target, driver;  ///< "" = not given
  bool deep = false;
  bool verbose = false;
  bool probe = true;  ///< without gpu/target, judge for this machine's first GPU
  unsigned jobs = 0;
  /// Errors inside files (truncated, corrupt) become a failure instead of report entries.
  bool strict = false;
};

/// The scan options a request means: the target resolved (named, or this machine's first GPU
/// as the driver reports it when `probe` is set), usage errors as "--gpu ...: ..." messages.
/// Validates only what the CLI's parser does not (gpu and target together, --driver alone).
Result<ScanOptions> scan_options(const ScanRequest& request,
                                 const Catalog& catalog = Catalog::builtin());
/// The command line that prints the same document: {"smcompat", "scan", ..., "--json"}.
std::vector<std::string> scan_argv(const ScanRequest& request);
/// Scans and returns the `smcompat.scan/2` document. Fails, as the CLI exits 2, when a path of
/// the request cannot be read at all (the error names it); with `strict`, also on the first
/// error inside a file (file, member and byte offset).
Result<nlohmann::json> scan(const ScanRequest& request);

/// `smcompat doctor [--gpu NAME]... [--python PATH]... [--no-active] [--no-scan]`.
struct DoctorRequest {
  std::vector<std::string> gpus, pythons;
  bool discover_active = true;
  bool scan_code = true;
};
std::vector<std::string> doctor_argv(const DoctorRequest& request);
/// The `smcompat.doctor/1` document; fails on the doctor's usage errors (unknown GPU name,
/// unreadable --python), as the CLI exits 2 on them.
Result<nlohmann::json> doctor(const DoctorRequest& request);

/// `smcompat explain [--no-doctor] [--gpu NAME]... [--python PATH]... [--no-active] -- TEXT`.
struct ExplainRequest {
  std::string text;
  bool run_doctor = false;  ///< the CLI's default is on; a library caller asks for it
  std::vector<std::string> gpus, pythons;
  bool discover_active = true;
};
std::vector<std::string> explain_argv(const ExplainRequest& request);
Result<nlohmann::json> explain(const ExplainRequest& request);

/// The GPUs `smcompat gpus [QUERY]` lists: all, the one QUERY names, or the suggestions for it;
/// fails when nothing matches.
Result<std::vector<const GpuSpec*>> select_gpus(const std::string& query,
                                                const Catalog& catalog = Catalog::builtin());
/// The `smcompat.gpus/1` document.
Result<nlohmann::json> gpus(const std::string& query);

/// `smcompat probe [--no-nvml]`: the `smcompat.probe/1` document (the probe's own failure, e.g.
/// an unreadable option file, fails; a missing driver is a status inside the document).
Result<nlohmann::json> probe(bool use_nvml = true);

/// `smcompat check --pid PID [--gpu NAME]...`, and the same for the calling process itself (pid
/// 0), where what torch says at run time can be added (the CLI cannot see another process's torch).
struct CheckRequest {
  int pid = 0;  ///< 0 = this process, with this process's environment
  std::vector<std::string> gpus;
  std::optional<doctor::TorchRuntime> torch;
};
std::vector<std::string> check_argv(const CheckRequest& request);
/// Checks the process; fails when its maps cannot be read or on an unknown --gpu.
Result<doctor::ProcessCheck> check(const CheckRequest& request);
/// TorchRuntime from the JSON object the Python package sends: {version, cuda, arch_list,
/// capability: [major, minor] | null, device, device_name}; fields missing or null are left empty.
Result<doctor::TorchRuntime> torch_runtime_from_json(std::string_view text);

/// `smcompat export prometheus [--scan PATH]... [--python PY]... [--gpu NAME]... [-j N]`.
struct PrometheusRequest {
  std::vector<std::string> scans, pythons, gpus;
  ProbeOptions probe;  ///< where the probe looks (defaults: this machine)
  unsigned jobs = 0;
};
/// Probes this machine, scans each path once per GPU model (each model present once, then the
/// --gpu models not present), and runs the doctor on each environment alone with the probe's
/// driver facts: what render_prometheus() (report/prometheus_report.hpp) prints, timed. Fails,
/// as the CLI exits 2, on an unknown --gpu, a --scan path that does not exist or cannot be read,
/// and a --python the doctor cannot read. A missing or unusable driver is not a failure.
Result<PrometheusExport> collect_prometheus(const PrometheusRequest& request);
/// The exposition text (Prometheus text format 0.0.4) of collect_prometheus().
Result<std::string> prometheus(const PrometheusRequest& request);

}  // namespace smcompat::api
