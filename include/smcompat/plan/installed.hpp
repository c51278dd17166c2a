// Which plans the kernels installed in a Python environment cannot run: the doctor's package scan
// (doctor/doctor.hpp, the same verdicts as `smcompat doctor --python PY --gpu NAME`) narrowed to
// the packages a serving engine loads, and its verdicts applied to PlanEstimates (plan.hpp).
//
// A package's fit in the doctor is the roll-up of verdict/package.hpp: the libraries that load on
// the GPU decide (vLLM 0.33.0's _deepselect_C and _qutlass_C hold sm_100f code only, FA3 is
// sm_90a and FA2 its alternative elsewhere; sgl-kernel picks sm90/ or sm100/common_ops by the
// GPU). What decides whether the engine starts is the library it loads at import, judged alone
// here (`runs`); the others with no code for the GPU become a note.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat::plan {

/// One serving-relevant distribution found in the environment, judged for one GPU.
struct InstalledPackage {
  std::string name;  ///< normalised as PEP 503 ("sgl-kernel", "deep-ep")
  std::string version;
  /// The doctor's verdict for the package (judge_package over its libraries with device code)
  /// (kNative when it has none: nothing can fail to load).
  Fit fit = Fit::kNative;
  /// The fit of what the package loads when imported: its core library where one is known
  /// (core_library_patterns) and installed, else the best fit over its libraries.
  Fit runs = Fit::kNative;
  /// What `runs` was judged from, for people: "vllm/_C_stable_libtorch.abi3.so, loaded at import:
  /// native, best image sm_90", "triton/_C/libtriton.so, the best of its 8 libraries: native".
  std::string detail;
  /// The device code of what `runs` was judged from: "sm_75, sm_80, compute_90" ("" if none).
  std::string carries;
  bool has_device_code = false;
  /// Libraries (paths below site-packages) with no code for the GPU, which `runs` did not judge.
  std::vector<std::string> without_code;
};

/// The serving-relevant packages of one environment, judged for one GPU.
struct EngineKernels {
  std::string python;  ///< as given (--python)
  std::string gpu;     ///< the catalog's name ("H100 SXM")
  ComputeCapability cc;
  std::vector<InstalledPackage> packages;  ///< in the environment's order
  std::vector<std::string> errors;         ///< the doctor's usage errors (unreadable --python)

  /// The package by normalised name, or nullptr if it is not installed.
  const InstalledPackage* find(std::string_view name) const;
};

/// The distributions kept (normalised names): vllm, sglang, sgl-kernel, tensorrt-llm,
/// flashinfer-python, flashinfer-cubin, flashinfer-jit-cache, deep-ep, deep-gemm, torch, triton,
/// nvidia-nvshmem-cu12, nvidia-nvshmem-cu13.
const std::vector<std::string>& serving_packages();

/// The engine's own distribution ("vllm", "sglang", "tensorrt-llm") and the one that carries its
/// compiled kernels ("vllm", "sgl-kernel", "tensorrt-llm").
std::string_view engine_package(Engine engine);
std::string_view engine_kernel_package(Engine engine);

/// The library a package loads when it is imported, as path patterns below site-packages
/// ('*' matches within one path component), for a GPU of compute capability `cc`; empty when
/// none is known (then the best of its libraries decides). Sources in installed.cpp.
std::vector<std::string> core_library_patterns(std::string_view package, ComputeCapability cc);

/// Runs the doctor's package scan of `python` for `gpu` (no driver needed: the GPU is a what-if
/// target, the active environments are not looked at) and keeps serving_packages(). Errors: the
/// doctor found no environment at `python` (the message says why).
Result<EngineKernels> engine_kernels(const std::string& python, const GpuSpec& gpu);

/// Adds why_not (clearing runnable and fits) to the plans the installed kernels cannot run: all
/// of them when the engine's kernel package does not run on the GPU; the DeepEP plans when
/// deep-ep is not installed (vLLM, SGLang) or does not run on the GPU. Adds notes where the
/// engine or its kernel package is not installed (nothing checked), where a package runs only by
/// PTX JIT, and where some of the engine's libraries have no code for the GPU.
void apply_engine_kernels(const EngineKernels& kernels, Engine engine,
                          std::vector<PlanEstimate>& plans);

}  // namespace smcompat::plan
