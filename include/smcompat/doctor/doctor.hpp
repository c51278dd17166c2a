// The doctor: collects facts about the driver, toolkits, Python environments and environment
// variables (facts.hpp), judges every package with GPU code for every GPU (present or asked
// about), and turns what it sees into findings with severity, evidence and an exact fix.
// Knowledge (PyTorch channels and arch lists, known GPU packages) is in data/python_packages.json;
// the rules follow ../shared/reference/compatibility-rules.md and field-reports.md.
// JSON schema "smcompat.doctor/1" is documented in docs/doctor.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/doctor/facts.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/scan/pep440.hpp"  // compare_versions
#include "smcompat/verdict/fit.hpp"
#include "smcompat/verdict/package.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat::doctor {

enum class Severity { kInfo, kWarning, kError };
const char* to_string(Severity s);  // "info", "warning", "error"
std::optional<Severity> parse_severity(std::string_view s);

/// One thing the doctor has to say, with what it saw and what to do.
struct Finding {
  Severity severity = Severity::kInfo;
  std::string id;                         ///< stable identifier: "torch-channel-no-image"
  std::string title;                      ///< one line
  std::vector<std::string> evidence;      ///< what was seen, with paths and versions
  std::string fix;                        ///< what to do, in words ("" if nothing to do)
  std::vector<std::string> fix_commands;  ///< exact shell lines (for --fix-script)
  std::string subject;                    ///< env prefix, package name or "driver"/"toolkit"/"env"
};

// A package's device code fits a GPU as smcompat::Fit says (verdict/fit.hpp), predicted from
// files, never observed: kNative .. kNoImage. The GPUs judged are smcompat::Target
// (verdict/targets.hpp): `observed` for this machine's GPUs, else asked with --gpu.

struct LibraryVerdict {
  std::string path;
  Fit fit = Fit::kNoImage;
  std::string best_image;  ///< the image that decides the fit ("sm_120", "compute_90")
  std::string reason;
};

/// How a package picks, at run time, one of several libraries it ships (bitsandbytes: one
/// libbitsandbytes_cuda<MAJOR><MINOR>.so per CUDA version). Rows of data/python_packages.json.
struct RuntimeVariantRule {
  std::string package;
  std::string from_version;    ///< applies to releases from this one until the next row's
  std::string library_prefix;  ///< "libbitsandbytes_cuda"
  std::string library_suffix;  ///< ".so"
  int major_digits = 2;        ///< "132" -> 13.2
  std::string chosen_by;       ///< the rule in words
  std::string override_env;    ///< "BNB_CUDA_VERSION"
  bool empty_override_is_error = false;
  bool same_major_nearest = false;  ///< else the exact library only
  std::string when_missing;         ///< what the package does then
  struct Other {
    std::string prefix, backend;
  };
  std::vector<Other> others;  ///< libraries for other backends (never loaded on NVIDIA)
  std::string source;
};
/// Which CUDA versions a release ships libraries for (read from its wheel).
struct RuntimeVariantRelease {
  std::string package, version;
  std::vector<Version> cuda;
  std::string source;
};

/// What a package with runtime variants would load in an environment.
struct VariantChoice {
  const RuntimeVariantRule* rule = nullptr;
  std::optional<Version> wanted;  ///< the CUDA version asked for
  std::string wanted_by;          ///< "torch/version.py cuda = '13.2'" or "BNB_CUDA_VERSION=126"
  std::string wanted_name;        ///< "libbitsandbytes_cuda132.so"
  std::string chosen;             ///< path of the library that loads ("" if none does)
  std::string how;                ///< "exact", "nearest of the same major (13.0)"
  std::vector<std::string> alternatives;  ///< "libbitsandbytes_cuda126.so (CUDA 12.6)", ...
  std::string problem;                    ///< set when nothing loads
};

/// A package judged for one GPU: the worst fit over its libraries, and each library's fit.
struct PackageVerdict {
  std::string env;      ///< env prefix
  std::string package;  ///< distribution name
  std::string version;
  std::string gpu;  ///< target GPU name
  ComputeCapability cc;
  Fit fit = Fit::kNoImage;
  std::vector<std::string> targets;  ///< all targets found ("sm_80", "compute_90")
  std::vector<LibraryVerdict> libraries;
  /// Packages with runtime variants (bitsandbytes): only the library that loads is judged.
  std::optional<VariantChoice> variant;
  PackageFit rollup;  ///< judge_package() over `libraries`: roles, JIT units, what is not loaded
};

struct DoctorOptions {
  std::vector<std::string> gpus;     ///< --gpu NAME (what-if targets)
  std::vector<std::string> pythons;  ///< --python PATH
  bool discover_active = true;       ///< look at $VIRTUAL_ENV, $CONDA_PREFIX, python3 on PATH
  bool scan_code = true;             ///< read the device code of every package's libraries
  Environment env;                   ///< the environment to judge (current_environment())
  std::string proc_root = "/proc";
  std::string usr_local = "/usr/local";
  std::string ld_so_conf = "/etc/ld.so.conf";
  /// Driver facts gathered by the caller; if unset, the doctor runs the probe (libcuda.so.1 and
  /// libnvidia-ml.so.1 by the normal library search, the kernel module from proc_root).
  std::optional<DriverFacts> driver;
  unsigned jobs = 0;
};

struct DoctorReport {
  DriverFacts driver;
  std::vector<ToolkitFacts> toolkits;
  std::vector<LibraryResolution> libraries;  ///< libcudart/libcublas/... a process would load
  std::vector<PythonEnv> envs;
  std::vector<std::pair<std::string, std::string>> env_vars;  ///< the CUDA-related ones set
  HostFacts host;
  std::vector<Target> targets;  ///< observed ones first, then --gpu (resolve_targets)
  std::vector<PackageVerdict> verdicts;
  std::vector<Finding> findings;    ///< sorted: errors first
  std::vector<std::string> errors;  ///< usage problems (unknown --gpu name, unreadable --python)

  size_t count(Severity s) const;
  const Finding* find(std::string_view id) const;
};

/// The CUDA-related environment variables the report lists (TORCH_CUDA_ARCH_LIST, CUDA_HOME,
/// the JIT and cache switches, LD_LIBRARY_PATH, the active environment, and the override
/// variables of packages with run-time variants such as BNB_CUDA_VERSION).
bool is_cuda_variable(std::string_view name);

/// Driver facts from a probe report (probe/probe.hpp).
DriverFacts driver_facts_from_probe(const ProbeReport& report);

/// Collects all facts and applies all rules.
DoctorReport run_doctor(const DoctorOptions& options, const Catalog& catalog = Catalog::builtin());

/// Applies the rules to facts already collected (report.findings/verdicts are replaced).
void judge(DoctorReport& report, const Catalog& catalog = Catalog::builtin());

// Renderers: report/doctor_report.hpp (text, JSON schema smcompat.doctor/1, Markdown, fix
// script).

// ---- PyTorch knowledge (data/python_packages.json) ----

struct TorchChannel {
  std::string torch;    ///< "2.7"
  std::string channel;  ///< "cu128"
  Version cuda;
  std::vector<std::string> archs;  ///< "7.5", ..., "12.0+PTX"
  std::string note;
  std::string source;
};
struct GpuPackageInfo {
  std::string name;
  std::string install;  ///< "channel", "pypi", "source", "with-torch"
  std::string pip;
  std::string min_version_blackwell;
  std::string note;
  std::string source;
};
struct PackageKnowledge {
  std::string pytorch_index;
  std::vector<TorchChannel> channels;
  struct Companion {
    std::string torch, torchvision, torchaudio;
  };
  std::vector<Companion> companions;
  std::vector<GpuPackageInfo> packages;
  std::vector<RuntimeVariantRule> variant_rules;
  std::vector<RuntimeVariantRelease> variant_releases;

  static const PackageKnowledge& builtin();
  /// Channels of a torch release ("2.7" from "2.7.1+cu128"); empty if the release is unknown.
  std::vector<const TorchChannel*> channels_of(std::string_view torch_version) const;
  /// The newest torch release in the table ("2.12").
  std::string latest_torch() const;
  const GpuPackageInfo* package(std::string_view name) const;
  const Companion* companion(std::string_view torch_version) const;
  /// The runtime-variant rule of a package release (the row with the highest from_version not
  /// above it; the first row for older releases); nullptr if the package has none.
  const RuntimeVariantRule* variant_rule(std::string_view package, std::string_view version) const;
};

/// Applies `rule` to the libraries `dist` ships, for torch's CUDA version and the environment's
/// override variable.
VariantChoice choose_variant(const RuntimeVariantRule& rule, const Distribution& dist,
                             const std::optional<Version>& torch_cuda, const Environment& env);

/// Whether an arch list entry ("12.0", "9.0+PTX", "10.0a") lets code run on `cc`.
bool arch_list_covers(const std::vector<std::string>& archs, ComputeCapability cc);

/// The channel to install for `gpus`: the lowest channel of `torch_version` (or of the latest
/// release if unknown / none fits) whose arch list covers every GPU. nullptr if none does.
const TorchChannel* pick_channel(const PackageKnowledge& k, std::string_view torch_version,
                                 const std::vector<ComputeCapability>& gpus,
                                 std::string* release_used = nullptr);

/// "pip install --force-reinstall torch torchvision torchaudio --index-url .../cu128"
std::string torch_pip_command(const PackageKnowledge& k, const TorchChannel& channel,
                              const std::string& python = "");

}  // namespace smcompat::doctor
