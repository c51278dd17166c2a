// The jit suite's plan (jit.hpp): which embedded images to load on a GPU and which to record as
// skips, every verdict taken from fit_image().
#include "smcompat/bench/jit.hpp"

#include <fmt/format.h>

#include "smcompat/util/enum_names.hpp"

namespace smcompat::bench {

namespace {

std::string toolkit_phrase() {
  const auto tk = kernel_images_toolkit();
  return tk.empty() ? std::string("the nvcc that built smcompat") : fmt::format("nvcc {}", tk);
}

}  // namespace

constexpr std::array<const char*, 4> kJitRoleNames = {"exact-sass", "older-sass", "ptx-jit",
                                                      "never-runs"};
const char* to_string(JitRole role) { return enum_name(role, kJitRoleNames, "?"); }

std::vector<JitVariant> jit_variants(ComputeCapability device, std::optional<Version> driver_cuda,
                                     std::span<const EmbeddedImage> images) {
  std::vector<JitVariant> out;
  const auto find = [&](const SmTarget& t) -> const EmbeddedImage* {
    for (const auto& image : images) {
      if (image.target == t) return &image;
    }
    return nullptr;
  };
  const auto fit_of = [&](const SmTarget& t, const EmbeddedImage* image) {
    return fit_image(t, device, image ? image->ptx_isa : std::nullopt, driver_cuda);
  };

  // Exact SASS.
  {
    const SmTarget t{ImageKind::kSass, device.arch(), ArchVariant::kBase};
    JitVariant v{JitRole::kExactSass, t, find(t), fit_of(t, find(t)), "", ""};
    v.label = fmt::format("{} SASS", t.to_string());
    if (images.empty()) {
      v.skip_reason = fmt::format("no bench kernels embedded: {}", kernel_images_absent_reason());
    } else if (!v.image) {
      v.skip_reason = fmt::format("no {} SASS embedded: {} does not build {}", t.to_string(),
                                  toolkit_phrase(), t.to_string());
    }
    if (v.skipped()) v.image = nullptr;
    out.push_back(std::move(v));
  }

  // Older SASS of the same major: every embedded cubin fit_image() calls compatible.
  bool any_older = false;
  for (const auto& image : images) {
    if (image.ptx()) continue;
    FitResult fit = fit_of(image.target, &image);
    if (fit.fit != Fit::kCompatibleSass) continue;
    any_older = true;
    out.push_back({JitRole::kOlderSass, image.target, &image, std::move(fit),
                   fmt::format("{} SASS (older minor)", image.target.to_string()), ""});
  }
  if (!any_older && !images.empty()) {
    JitVariant v;
    v.role = JitRole::kOlderSass;
    v.label = "older SASS";
    v.skip_reason =
        device.minor == 0
            ? fmt::format(
                  "no older SASS can run on {}: SASS runs only on its own major version with an "
                  "equal or higher minor, and {} is the first minor of {}.x",
                  device.to_string(), device.to_string(), device.major)
            : fmt::format(
                  "no older SASS for {}: no embedded cubin has major {} and a lower minor ({} "
                  "does not build one)",
                  device.to_string(), device.major, toolkit_phrase());
    out.push_back(std::move(v));
  }

  // Older-generation (and same-level) PTX that the driver JIT-compiles.
  for (const auto& image : images) {
    if (!image.ptx()) continue;
    FitResult fit = fit_of(image.target, &image);
    if (fit.fit == Fit::kNoImage) continue;  // newer than the device: not a fallback
    JitVariant v{JitRole::kPtxJit,
                 image.target,
                 &image,
                 fit,
                 fmt::format("{} PTX → JIT", image.target.to_string()),
                 ""};
    if (fit.fit != Fit::kPtxJit) {
      v.skip_reason = fit.reason;
      v.image = nullptr;
    }
    out.push_back(std::move(v));
  }

  // The "sm_89 fallback" claim: sm_89 SASS on a newer major never runs (the rule, recorded).
  const SmTarget sm89{ImageKind::kSass, 89, ArchVariant::kBase};
  if (device.major > 8) {
    FitResult fit = fit_of(sm89, nullptr);
    if (fit.fit == Fit::kNoImage) {
      JitVariant v{JitRole::kNeverRuns, sm89, nullptr, fit, "sm_89 SASS (never runs)", ""};
      v.skip_reason = fmt::format(
          "{}; a driver cannot fall back to sm_89 code on {}: only PTX is JIT-compiled forward",
          fit.reason, device.to_string());
      out.push_back(std::move(v));
    }
  }
  return out;
}

BenchResult jit_skip_result(const JitVariant& variant, int ordinal) {
  BenchResult r;
  r.suite = "jit";
  r.name = fmt::format("jit {} gpu{}", variant.label, ordinal);
  r.devices = {ordinal};
  r.params["image"] = variant.label;
  r.params["role"] = to_string(variant.role);
  if (variant.target) {
    r.params["target"] = variant.target->to_string();
    r.params["fit"] = to_string(variant.fit.fit);
  }
  r.skip_reason = variant.skip_reason;
  return r;
}

}  // namespace smcompat::bench
