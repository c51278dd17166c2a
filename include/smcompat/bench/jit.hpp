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
#include "smcompat/bench/results.hpp"
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

/// The recorded skip of a variant: suite "jit", name "jit <label>", params image/role/fit,
/// skip_reason = the variant's, device `ordinal`.
BenchResult jit_skip_result(const JitVariant& variant, int ordinal);

}  // namespace smcompat::bench
