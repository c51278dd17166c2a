// The jit suite's experiment plan: for one GPU, which embedded kernel images to load side by side
// (exact SASS, compatible older SASS, older-generation PTX the driver JIT-compiles) and which
// images are recorded as skips with the rule that forbids them (no older SASS on x.0, sm_89 SASS
// on anything newer than 8.x: the "sm_89 fallback" claim). Every decision is fit_image()'s
// (verdict/fit.hpp); this file only picks the questions to ask.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "smcompat/bench/kernels.hpp"
#include "smcompat/bench/measure.hpp"
#include "smcompat/bench/results.hpp"
#include "smcompat/bench/suites.hpp"
#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat::bench {

/// The role a variant plays in the experiment.
enum class JitRole {
  kExactSass,  ///< sm_XY SASS for exactly this GPU
  kOlderSass,  ///< SASS of a lower minor of the same major (the rules allow it)
  kPtxJit,     ///< PTX of an older (or the same) compute level, JIT-compiled at load
  kNeverRuns,  ///< an image the rules forbid, recorded to say so (sm_89 SASS on 9.0 and later)
};
const char* to_string(JitRole role);  // "exact-sass", "older-sass", "ptx-jit", "never-runs"

struct JitVariant {
  JitRole role = JitRole::kExactSass;
  std::optional<SmTarget> target;        ///< the image's target; nullopt for "no older SASS exists"
  const EmbeddedImage* image = nullptr;  ///< what to load; nullptr when the variant is a skip
  FitResult fit;                         ///< fit_image()'s verdict for the device (when target)
  /// Names the image as the results do: "sm_90 SASS", "sm_86 SASS (older minor)",
  /// "compute_80 PTX → JIT", "sm_89 SASS (never runs)", "older SASS".
  std::string label;
  std::string skip_reason;  ///< non-empty: record a skip with this reason, load nothing

  bool skipped() const { return !skip_reason.empty(); }
};

/// The variants for a GPU of capability `device` (its true_cc()), in the order to run them:
/// exact SASS, older SASS (each compatible embedded cubin, ascending), PTX (each embedded PTX
/// that can JIT for the device, ascending), then the never-runs note. A PTX image newer than
/// the device is left out (it is not an older-generation fallback). `driver_cuda` enables the
/// PTX ISA check (a PTX too new for the driver becomes a skip naming
/// CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
std::vector<JitVariant> jit_variants(ComputeCapability device,
                                     std::optional<Version> driver_cuda = std::nullopt,
                                     std::span<const EmbeddedImage> images = kernel_images());

/// The recorded skip of a variant: suite "jit", name "jit <label> gpu<ordinal>", params
/// image/role/fit, skip_reason = the variant's, device `ordinal`.
BenchResult jit_skip_result(const JitVariant& variant, int ordinal);

// --- On a GPU (the runner's session and measurement loop) ------------------------------------

/// The kernels for the memory, launch and p2p suites (NativeOptions::kernels): the one embedded
/// image that every GPU of `devices` loads with the best worst-case fit. Error when none runs
/// on all of them (or none is embedded), saying why.
Result<DeviceKernels> embedded_device_kernels(std::span<const ComputeCapability> devices,
                                              std::optional<Version> driver_cuda = std::nullopt);

/// One variant on one device: its recorded skip, or rows for smc_mma_f16, smc_mma_bf16 (TFLOPS,
/// % of the catalog's fp16_bf16 peak) and smc_triad (GB/s), each with extra["load_ms"] (first
/// cuModuleLoadData wall time: the JIT cost for PTX) and extra["reload_ms"]. A load the driver
/// refuses (CUDA_ERROR_NO_BINARY_FOR_GPU...) is one skip naming the CUresult.
std::vector<BenchResult> run_jit_variant(SuiteContext& context, DeviceContext& device,
                                         const JitVariant& variant);
/// The jit suite: jit_variants(true_cc, driver CUDA) on every selected device
/// (NativeOptions::extra_suites["jit"]).
std::vector<BenchResult> run_jit_suite(SuiteContext& context);

// CUDA_FORCE_PTX_JIT for a library: the driver reads it at cuInit, so it applies to a whole
// process. To time a library's own kernels JIT-compiled from its PTX, run the program in a child
// with CUDA_FORCE_PTX_JIT=1 (and CUDA_CACHE_DISABLE=1 to time the compilation, not the cache)
// under `smcompat trace`, which records which image each load took; compare with a run without
// it. Not automated here.

}  // namespace smcompat::bench
