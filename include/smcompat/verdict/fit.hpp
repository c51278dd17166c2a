// The one fit vocabulary: how device code fits a GPU. scan, doctor, trace and ptx all speak it
// (predicted from files by the compatibility rules, or observed by trace). One enum, one rank,
// one string table; adding a value is one edit here and one in fit.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "smcompat/catalog/catalog.hpp"

namespace smcompat {

/// Ordered from best to worst for the first six values, which are what a loading unit, a file,
/// a package or an observed load can come to; the rest say why nothing is known to run.
enum class Fit : uint8_t {
  kNative,          ///< SASS for exactly this architecture
  kCompatibleSass,  ///< SASS for a lower minor of the same major, or a family member
  kPtxJit,          ///< only PTX fits: the driver JIT-compiles it at first load
  kUnsupportedPtx,  ///< PTX the GPU could run, but its ISA is newer than the driver
  /// The code fits, but the driver cannot run it: the driver predates the GPU's architecture
  /// (RTX 5090 before CUDA 12.8) or the CUDA runtime the package links (a CUDA 13 runtime on a
  /// driver for 12.x). Files and packages only; the fix is a newer driver.
  kDriverTooOld,
  kNoImage,      ///< nothing fits: "no kernel image is available for execution on the device"
  kNotLoadable,  ///< an LTO-IR image: input to nvJitLink, never loaded by the driver
  kFailed,       ///< observed (trace): the load call failed
  kUnknown,      ///< observed (trace): loaded, but the driver reported nothing that tells
};
inline constexpr size_t kFitCount = 9;
/// The values a unit, file or package verdict takes (kNative .. kNoImage); arrays of counts use
/// this size.
inline constexpr size_t kVerdictFitCount = 6;

/// "native", "compatible-sass", "ptx-jit", "unsupported-ptx", "driver-too-old", "no-image",
/// "not-loadable", "failed", "unknown".
const char* to_string(Fit fit);
std::optional<Fit> parse_fit(std::string_view text);
/// 0 is best. Image-level kNotLoadable ranks with kNoImage (it cannot run); the observed-only
/// values rank after them.
int rank(Fit fit);
inline bool better(Fit a, Fit b) { return rank(a) < rank(b); }
inline Fit worse(Fit a, Fit b) { return rank(a) >= rank(b) ? a : b; }
inline Fit best(Fit a, Fit b) { return rank(a) <= rank(b) ? a : b; }
/// SASS that runs as it is (native or compatible): no JIT, nothing missing.
inline bool runs_natively(Fit fit) { return fit == Fit::kNative || fit == Fit::kCompatibleSass; }
/// What a single image's fit means for the unit holding it (kNotLoadable -> kNoImage).
Fit as_verdict(Fit image_fit);

struct FitResult {
  Fit fit = Fit::kNoImage;
  std::string reason;  ///< one sentence, naming the rule
};

/// Where can `image` run? The compatibility rules of compatibility-rules.md 1 (SASS within a
/// major, `a` exact, `f` family, PTX forward) and the PTX ISA check against the driver:
/// `ptx_isa` is the image's .version (PTX only); `driver_cuda` is the CUDA version the driver
/// supports (cuDriverGetVersion), if known. Never returns the observed-only values.
FitResult fit_image(const SmTarget& image, ComputeCapability device,
                    std::optional<Version> ptx_isa = std::nullopt,
                    std::optional<Version> driver_cuda = std::nullopt,
                    const Catalog& catalog = Catalog::builtin());

}  // namespace smcompat
