// One verdict for a package: its libraries' file verdicts (judge_file) rolled up by what the
// package really loads on the GPU. scan, index/advise and the doctor all call judge_package(), so
// one wheel gets one answer wherever it is asked about.
//
// A library is one of:
//  - core: loaded whenever the package is used; each must run;
//  - alternative: one of a set the package chooses from by GPU or CUDA runtime (bitsandbytes'
//    libbitsandbytes_cudaXYZ.so, sgl-kernel's sm90/ and sm100/ builds, vLLM's FA2 and FA3): the
//    best member of the set decides, or the member the caller knows is loaded;
//  - optional: loaded only for an extra feature (data/package_libraries.json); never decides.
// A library whose code is only for other GPUs (a/f targets of other architectures, or bare
// cubins the library picks by architecture) is an arch-gated specialisation: it does not decide
// either. Whatever does not decide and cannot run is named beside the verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/verdict/fit.hpp"
#include "smcompat/verdict/targets.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat {

enum class LibraryRole : uint8_t { kCore, kAlternative, kOptional };
const char* to_string(LibraryRole role);  // "core", "alternative", "optional"

/// One library of a package with its file verdict.
struct PackageLibrary {
  /// Where it is in the package: a wheel member ("vllm/_C.abi3.so") or a path on disk; role
  /// patterns match its end.
  std::string path;
  FileVerdict verdict;
};

/// The CUDA runtime a package needs, and what says so.
struct RuntimeNeed {
  Version cuda;          ///< "13.0"; only the major is checked against the driver
  std::string evidence;  ///< "requires nvidia-cuda-runtime==13.0.96", "bundles libcudart.so.13"
};

struct PackageQuery {
  std::string package;                 ///< distribution name (any spelling), for the data rows
  std::optional<RuntimeNeed> runtime;  ///< checked when the target's driver is known
  /// A library the caller knows the package loads (the doctor's runtime-variant choice): it
  /// decides for its alternative set instead of the best member.
  std::string loaded;
};

struct JudgedLibrary {
  std::string path;
  Fit fit = Fit::kNoImage;
  Fit code_fit = Fit::kNoImage;  ///< `fit` before the driver is asked (FileVerdict::code_verdict)
  LibraryRole role = LibraryRole::kCore;
  std::string group;  ///< the alternative set ("dir/libx_cuda*.so"); "" for core and optional
  std::string why;    ///< why this role, for people
  bool runtime_variant = false;  ///< the set is one build per CUDA runtime (bitsandbytes)
  bool other_gpus = false;       ///< code only for other GPUs' a/f targets or per-arch bare cubins
  /// Only relocatable (-rdc) pre-link code and no device-linked image: an input of nvcc's device
  /// link (libcudadevrt.a, libnvshmem_device.a), never loaded at run time. Never decides.
  bool link_input = false;
  bool decides = false;  ///< its fit is part of the package verdict
  size_t jit_units = 0;  ///< units that run only through PTX JIT
  std::string summary;   ///< the file verdict's summary
};

struct PackageFit {
  Fit fit = Fit::kNoImage;
  /// The verdict of the code alone (the PTX ISA check included), before the driver's support of
  /// the GPU and of the package's CUDA runtime is asked.
  Fit code_fit = Fit::kNoImage;
  bool has_device_code = false;
  std::vector<JudgedLibrary> libraries;    ///< those with device code, in the order given
  size_t jit_units = 0;                    ///< over the deciding libraries
  std::vector<std::string> jit_libraries;  ///< deciding libraries with units that only JIT
  /// "native", "native; 27 units in 2 libraries JIT", "JIT only", "driver-too-old (by its code:
  /// native)", or the fit's name.
  std::string route;
  std::string driver_reason;  ///< set with kDriverTooOld: what the driver lacks, what to install
  /// Libraries that do not decide and cannot run here: "vllm/_qutlass_C.abi3.so (code only for
  /// other GPUs: sm_100f)", "te/libnccl_ep.so (optional: ...): no-image".
  std::vector<std::string> not_running;
  std::string summary;  ///< one line for people
};

/// Rolls the libraries' verdicts up into the package's. Libraries without device code (or with
/// only kernel-less cubins) are left out; link inputs are listed but never decide, and a package
/// of nothing else has no device code to judge. The verdict is no-image if a deciding library has
/// no image; driver-too-old if the driver lacks the GPU's architecture or the package's CUDA
/// runtime major; unsupported-ptx if a deciding library needs a newer driver's JIT; ptx-jit ("JIT
/// only") if every deciding library runs only through PTX JIT; else the worst of the native and
/// compatible ones, with the units that JIT counted in `route`. Never better than what loads.
PackageFit judge_package(const std::vector<PackageLibrary>& libraries, const PackageQuery& query,
                         const Target& target, const Catalog& catalog = Catalog::builtin());

/// The alternative-set key of a path that names one of several runtime variants
/// ("bitsandbytes/libbitsandbytes_cuda126.so" -> "bitsandbytes/libbitsandbytes_cuda*.so") or
/// per-architecture builds ("sgl_kernel/sm100/common_ops.abi3.so" -> "sgl_kernel/sm*/..."), or
/// "" when it names neither.
std::string alternative_key(const std::string& path);

/// Whether a library's code is only for other GPUs (see JudgedLibrary::other_gpus).
bool only_for_other_gpus(const FileVerdict& verdict);

}  // namespace smcompat
