// Build settings for compiling PyTorch or a CUDA extension from source for chosen GPUs on this
// machine: TORCH_CUDA_ARCH_LIST (with +PTX on the newest entry for forward compatibility),
// CUDA_HOME, the minimum nvcc for each target (catalog first_cuda: 12.8 for sm_100/sm_120, 12.9
// for sm_103/sm_121), MAX_JOBS from memory (about 2 GiB per nvcc job) and cores, and a host
// compiler check. Every line carries its reason. The doctor's rebuild fixes reuse it.
// Rendering (the export block, text, JSON schema "smcompat.build-env/1" documented in
// docs/doctor.md): report/build_env_report.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/doctor/facts.hpp"

namespace smcompat::doctor {

enum class BuildFor { kExtension, kPytorch };

struct BuildEnvRequest {
  std::vector<ComputeCapability> gpus;  ///< GPUs the build must run on natively
  std::vector<ComputeCapability> keep;  ///< archs to keep (e.g. those a package already has)
  /// Arch- or family-specific targets to keep as TORCH_CUDA_ARCH_LIST spells them ("9.0a",
  /// "10.0f"): a package's own specialised kernels (FlashAttention-3's sm_90a).
  std::vector<std::string> keep_specific;
  BuildFor what = BuildFor::kExtension;
  std::vector<ToolkitFacts> toolkits;  ///< first = the one the build uses
  HostFacts host;
};

/// One line of the environment block.
struct BuildEnvLine {
  std::string name;   ///< TORCH_CUDA_ARCH_LIST
  std::string value;  ///< 8.0;9.0;12.0+PTX
  std::string reason;
};

struct BuildEnv {
  std::vector<BuildEnvLine> lines;
  std::vector<std::string> problems;  ///< e.g. "nvcc 12.6 cannot build sm_120 (needs 12.8)"
  std::optional<Version> min_nvcc;    ///< the newest toolkit any target needs
  std::string arch_list;              ///< the TORCH_CUDA_ARCH_LIST value
};

BuildEnv compute_build_env(const BuildEnvRequest& request,
                           const Catalog& catalog = Catalog::builtin());

}  // namespace smcompat::doctor
