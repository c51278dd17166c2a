// The embedded bench kernel images (kernels.hpp): the generated registry
// (bench_kernel_registry.hpp, written by src/bench/CMakeLists.txt) turned into KernelImages, and
// the driver's choice among them by fit_image().
#include "smcompat/bench/kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "bench_kernel_registry.hpp"
#include "smcompat/binary/ptx_header.hpp"

namespace smcompat::bench {

namespace {

const std::vector<EmbeddedImage>& images() {
  static const std::vector<EmbeddedImage> all = [] {
    std::vector<EmbeddedImage> v;
    for (std::size_t i = 0; i < detail::kEmbeddedImageCount; ++i) {
      const auto& row = detail::kEmbeddedImageRows[i];
      EmbeddedImage image;
      image.target = {row.ptx ? ImageKind::kPtx : ImageKind::kSass, row.arch, ArchVariant::kBase};
      image.bytes = {row.data, *row.size};
      if (row.ptx) {
        // The .version decides whether a driver can JIT it at all (fit_image's PTX ISA check).
        auto header = parse_ptx_header(
            std::string_view(reinterpret_cast<const char*>(row.data), *row.size), false);
        if (header) image.ptx_isa = header->version;
      }
      v.push_back(image);
    }
    std::sort(v.begin(), v.end(), [](const EmbeddedImage& a, const EmbeddedImage& b) {
      return std::pair(a.ptx(), a.target.arch) < std::pair(b.ptx(), b.target.arch);
    });
    return v;
  }();
  return all;
}

}  // namespace

std::string EmbeddedImage::label() const {
  return fmt::format("{} {}", target.to_string(), ptx() ? "PTX" : "SASS");
}

std::span<const EmbeddedImage> kernel_images() { return images(); }

std::string_view kernel_images_absent_reason() {
  return detail::kEmbeddedImageCount == 0 ? detail::kEmbeddedImagesAbsentReason : "";
}

std::string_view kernel_images_toolkit() { return detail::kEmbeddedImagesToolkit; }

const EmbeddedImage* find_kernel_image(const SmTarget& target) {
  for (const auto& image : images()) {
    if (image.target == target) return &image;
  }
  return nullptr;
}

Result<ChosenImage> choose_kernel_image(ComputeCapability device,
                                        std::optional<Version> driver_cuda) {
  if (images().empty()) {
    return make_error(fmt::format("no bench kernels embedded: {}", kernel_images_absent_reason()));
  }
  ChosenImage best;
  for (const auto& image : images()) {
    FitResult fit = fit_image(image.target, device, image.ptx_isa, driver_cuda);
    // Images are in ascending arch order within SASS and within PTX, so on a tie of fit the
    // later (higher) one wins: the driver prefers the newest compatible cubin, then PTX.
    // (A fit is only ever reached by one kind: native and compatible by SASS, JIT by PTX.)
    if (best.image == nullptr || rank(fit.fit) <= rank(best.fit.fit)) best = {&image, fit};
  }
  if (rank(best.fit.fit) > rank(Fit::kPtxJit)) {
    return make_error(fmt::format("no embedded bench kernel image runs on {}: {}",
                                  device.to_string(), best.fit.reason));
  }
  return best;
}

double mma_flops(std::uint32_t blocks, std::uint32_t threads_per_block, std::uint32_t iters) {
  const double warps = static_cast<double>(blocks) * ((threads_per_block + 31) / 32);
  return warps * static_cast<double>(iters) * kMmaChains * kMmaFlopsPerStep;
}

}  // namespace smcompat::bench
