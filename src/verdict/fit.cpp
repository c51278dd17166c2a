// The fit vocabulary (include/smcompat/verdict/fit.hpp) and the per-image compatibility rule
// (../shared/reference/compatibility-rules.md sections 1-3).
#include "smcompat/verdict/fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace smcompat {

namespace {

struct FitName {
  Fit fit;
  const char* name;
  int rank;
};
constexpr std::array<FitName, kFitCount> kFits{{
    {Fit::kNative, "native", 0},
    {Fit::kCompatibleSass, "compatible-sass", 1},
    {Fit::kPtxJit, "ptx-jit", 2},
    {Fit::kUnsupportedPtx, "unsupported-ptx", 3},
    {Fit::kDriverTooOld, "driver-too-old", 4},
    {Fit::kNoImage, "no-image", 5},
    {Fit::kNotLoadable, "not-loadable", 5},
    {Fit::kFailed, "failed", 6},
    {Fit::kUnknown, "unknown", 7},
}};

}  // namespace

const char* to_string(Fit fit) {
  auto i = static_cast<size_t>(fit);
  return i < kFits.size() ? kFits[i].name : "?";
}

std::optional<Fit> parse_fit(std::string_view text) {
  for (const auto& f : kFits)
    if (text == f.name) return f.fit;
  return std::nullopt;
}

int rank(Fit fit) {
  auto i = static_cast<size_t>(fit);
  return i < kFits.size() ? kFits[i].rank : 99;
}

Fit as_verdict(Fit image_fit) { return image_fit == Fit::kNotLoadable ? Fit::kNoImage : image_fit; }

FitResult fit_image(const SmTarget& image, ComputeCapability device, std::optional<Version> ptx_isa,
                    std::optional<Version> driver_cuda, const Catalog& catalog) {
  const ComputeCapability img = image.cc();
  const std::string name = image.to_string();
  const std::string dev = device.to_string();
  if (image.kind == ImageKind::kLto) {
    return {Fit::kNotLoadable,
            fmt::format("{} is LTO-IR, input to nvJitLink; the driver never loads it", name)};
  }
  // Does the image's architecture admit this device at all?
  bool admitted = false;
  std::string why;
  switch (image.variant) {
    case ArchVariant::kArchSpecific:
      admitted = img == device;
      why = admitted ? fmt::format("{} is architecture-specific and matches {} exactly", name, dev)
                     : fmt::format(
                           "{} is architecture-specific: it runs only on exactly {}, "
                           "not on {}",
                           name, img.to_string(), dev);
      break;
    case ArchVariant::kFamily: {
      const auto& members = catalog.family_members(image.arch);
      admitted = std::find(members.begin(), members.end(), device.arch()) != members.end();
      why = admitted
                ? fmt::format("{} is family-specific and {} is in its family", name, dev)
                : fmt::format("{} is family-specific: {} is not a member of its family", name, dev);
      break;
    }
    case ArchVariant::kBase:
      if (image.kind == ImageKind::kSass) {
        admitted = img.major == device.major && device.minor >= img.minor;
        why = admitted ? fmt::format("{} SASS runs on {} (same major, minor >= {})", name, dev,
                                     img.minor)
              : img.major != device.major
                  ? fmt::format(
                        "{} SASS cannot run on {}: SASS never crosses major "
                        "versions",
                        name, dev)
                  : fmt::format(
                        "{} SASS cannot run on {}: the device's minor version "
                        "is lower",
                        name, dev);
      } else {
        admitted = device >= img;
        why = admitted
                  ? fmt::format("{} PTX can be JIT-compiled for {} (forward compatible)", name, dev)
                  : fmt::format("{} PTX needs compute capability {} or newer; {} is older", name,
                                img.to_string(), dev);
      }
      break;
  }
  if (!admitted) return {Fit::kNoImage, why};
  if (image.kind == ImageKind::kSass) {
    return {img == device ? Fit::kNative : Fit::kCompatibleSass, why};
  }
  if (ptx_isa && driver_cuda) {
    auto need = catalog.min_cuda_for_ptx(*ptx_isa);
    if (need && *need > *driver_cuda) {
      return {Fit::kUnsupportedPtx,
              fmt::format("{} is PTX ISA {}, which needs a driver for CUDA {} or newer; the "
                          "driver supports CUDA {} (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)",
                          name, ptx_isa->to_string(), need->to_string(), driver_cuda->to_string())};
    }
  }
  return {Fit::kPtxJit, why + "; JIT costs time at first load"};
}

}  // namespace smcompat
