// The CUDA runtime a package needs, from what the package says of itself: its requirements
// (METADATA Requires-Dist), the libcudart it bundles, its per-runtime libraries and its name.
// One rule for the wheel index (records), scan (wheels and installed distributions) and the
// doctor, so that judge_package() gets the same RuntimeNeed wherever a package is judged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/verdict/package.hpp"

namespace smcompat {

/// What a package says of the CUDA runtime it needs.
struct RuntimeClues {
  std::string package;  ///< distribution name (any spelling)
  std::string machine;  ///< "x86_64", "aarch64", or "any"/"" (no marker filtering)
  std::vector<std::string> requires_dist;  ///< METADATA Requires-Dist lines, markers kept
  std::vector<std::string>
      runtime_libraries;  ///< bundled CUDA runtime base names (bundled_cuda_runtimes)
  std::vector<std::string> library_paths;  ///< its device-code libraries (for _cudaXYZ sets)
};

/// "12.8" (a pinned runtime), "13" (a major only), "11.8;12.1;…" (one library per runtime, of
/// which the loader picks one), or "" (nothing says); `evidence` says what said so.
struct RuntimeGuess {
  std::string cuda;
  std::string evidence;
};

/// Requirements first (a pinned nvidia-cuda-runtime or cuda-toolkit, then an
/// nvidia-cuda-runtime-cuNN), a bundled libcudart, an NVIDIA -cuNN requirement, per-runtime
/// libraries, then a -cuNN / -cudaNNx package name.
RuntimeGuess infer_cuda_runtime(const RuntimeClues& clues);

/// The need judge_package() checks: one runtime version; a list of per-runtime libraries is no
/// single need (the loader picks the one matching the runtime in use).
std::optional<RuntimeNeed> runtime_need(const RuntimeGuess& guess);

/// A CUDA runtime file name: libcudart.so.N, libcudart.so.N.M[.P], and auditwheel's renamed
/// libcudart-<hash>.so.N / libcudart.<hash>.so.N. major and (when the name has it) version.
struct CudartName {
  int major = 0;
  std::optional<std::string> version;
};
std::optional<CudartName> parse_cudart_file_name(std::string_view file_name);

/// The CUDA runtime file names among a package's file paths ("libcudart.so.12",
/// "libcudart.3eda8113.so.13"), base names, sorted, each once.
std::vector<std::string> bundled_cuda_runtimes(const std::vector<std::string>& paths);

/// Whether a Requires-Dist line's marker can hold on `machine` (only platform_machine is read;
/// everything else is assumed to hold on a Linux GPU machine).
bool marker_applies(std::string_view requirement, std::string_view machine);

}  // namespace smcompat
