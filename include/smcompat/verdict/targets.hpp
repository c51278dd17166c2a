// The one target resolver: every way a user names a GPU ("RTX 5090" with "did you mean", "12.0",
// "120", "sm_120a", this machine's probed GPUs) and a driver ("570.124.06", "12.8", "12080")
// becomes a Target here, for scan, doctor, build-env, trace and ptx alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

/// The GPU a verdict is for.
struct Target {
  ComputeCapability cc;
  const GpuSpec* gpu = nullptr;         ///< set when given by name (or probed and in the catalog)
  std::optional<Version> driver_cuda;   ///< CUDA version the driver supports (PTX ISA check)
  std::optional<DriverVersion> driver;  ///< driver build, if given as one
  std::string label;                    ///< "GeForce RTX 5090 (12.0)" or "sm_120 (12.0)"
  std::string name;            ///< the GPU's name ("GeForce RTX 5090", "compute capability 12.0")
  bool observed = false;       ///< one of this machine's GPUs as the driver reported it
  std::optional<int> ordinal;  ///< its index on this machine when observed
};

/// One GPU this machine's driver reported (probe/'s ProbeDevice, as the resolver needs it).
struct MachineGpu {
  std::string name;      ///< as the driver says it ("NVIDIA GeForce RTX 5090")
  ComputeCapability cc;  ///< the architecture the driver loads code for (ProbeDevice::true_cc())
  int ordinal = 0;
};

/// Parses one GPU named by a user and an optional driver given either as a CUDA version ("12.8",
/// "12080") or as a driver build ("570.124.06"). An arch spelled as such ("sm_120a", "12.0") wins;
/// anything else is looked up as a GPU name ("5090" included), then as a bare arch number ("120").
/// `flag` names the option in errors ("--gpu"): "--gpu RTX 9999: no such GPU in the catalog
/// (unknown GPU or architecture); did you mean: ...".
Result<Target> resolve_target(std::string_view gpu_or_arch, std::string_view driver = {},
                              const Catalog& catalog = Catalog::builtin(),
                              std::string_view flag = {});

/// The targets of one command. Several machine GPUs of one model (name and capability) are one
/// target, the first of them; a name that resolves to a target already named is dropped; a named
/// GPU that is also on this machine stays, as a what-if beside the observed one.
struct TargetQuery {
  std::vector<std::string> names;   ///< as typed, in order
  std::string driver;               ///< as typed, or "" (then `machine_cuda` if known)
  std::vector<MachineGpu> machine;  ///< this machine's GPUs (observed); judged before `names`
  std::optional<int> machine_cuda;  ///< cuDriverGetVersion of this machine (12080)
  std::string flag = "--gpu";       ///< the option the names came from, for errors
};
struct ResolvedTargets {
  std::vector<Target> targets;
  std::vector<Error> errors;  ///< one per name that could not be resolved; the others still resolve
};
ResolvedTargets resolve_targets(const TargetQuery& query,
                                const Catalog& catalog = Catalog::builtin());

}  // namespace smcompat
