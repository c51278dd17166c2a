// The device kernels of `smcompat bench`, embedded in the library: one image per variant (a cubin
// per SASS arch the build's nvcc makes, PTX at a few older compute levels), built from
// src/bench/kernels/bench_kernels.cu at build time. Built without nvcc there are none and
// kernel_images_absent_reason() says why. Which image a GPU would load is decided by
// verdict/fit.hpp's fit_image(), never here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat::bench {

/// One embedded image: a cubin (target sm_XY) or PTX text (target compute_XY).
struct EmbeddedImage {
  SmTarget target;
  /// The cubin, or the PTX text without its terminating NUL (which follows it in memory, so
  /// `bytes.data()` can be passed to cuModuleLoadData as is).
  std::span<const std::uint8_t> bytes;
  /// PTX: the ISA version its .version directive names (9.0 from nvcc 13.0).
  std::optional<Version> ptx_isa;

  bool ptx() const { return target.kind == ImageKind::kPtx; }
  /// "sm_90 SASS" or "compute_80 PTX".
  std::string label() const;
};

/// Every embedded image, SASS by ascending arch, then PTX by ascending arch. Empty when the
/// library was built without nvcc.
std::span<const EmbeddedImage> kernel_images();
/// Why kernel_images() is empty ("built without nvcc ..."); empty when it is not.
std::string_view kernel_images_absent_reason();
/// The CUDA release of the nvcc that built the images ("13.0"); empty if unknown or none.
std::string_view kernel_images_toolkit();
/// The embedded image for exactly `target`, or nullptr.
const EmbeddedImage* find_kernel_image(const SmTarget& target);

/// The image a GPU would run from the embedded set, as the driver chooses (compatibility-rules.md
/// §7): the best fit_image() verdict; among compatible SASS the highest arch; among PTX the
/// highest compute level. For the suites that only need the kernels to run (memory, launch).
struct ChosenImage {
  const EmbeddedImage* image = nullptr;
  FitResult fit;
};
/// Error when nothing embedded can run on `device` (or nothing is embedded), saying why.
Result<ChosenImage> choose_kernel_image(ComputeCapability device,
                                        std::optional<Version> driver_cuda = std::nullopt);

// Entry points of bench_kernels.cu (extern "C", for cuModuleGetFunction) and their parameters,
// in order, as the launch's kernelParams array must give them. spin, empty, copy and triad follow
// measure.hpp's DeviceKernels contract.
/// (const volatile int* flag, unsigned long long timeout_ns): one thread spins until *flag
/// (host-mapped) is non-zero, or for timeout_ns of GPU time.
inline constexpr char kSpinKernel[] = "smc_spin";
/// (): nothing; launch latency.
inline constexpr char kEmptyKernel[] = "smc_empty";
/// (const void* src, void* dst, unsigned long long bytes): 16-byte vectors, bytes a multiple of
/// 16, grid-stride.
inline constexpr char kCopyKernel[] = "smc_copy";
/// (float* a, const float* b, const float* c, float s, unsigned long long n): a = b + s·c over n
/// floats (float4 vectors and a scalar tail), grid-stride; 12 bytes moved per float.
inline constexpr char kTriadKernel[] = "smc_triad";
/// (float* out, int iters): mma.sync f16×f16→f32; out needs one float per thread launched.
inline constexpr char kMmaF16Kernel[] = "smc_mma_f16";
/// (float* out, int iters): mma.sync bf16×bf16→f32; absent from sm_75 / compute_75 images.
inline constexpr char kMmaBf16Kernel[] = "smc_mma_bf16";

/// Independent mma chains per warp and FLOPs per chain step (m16n8k16: 2·16·8·16).
inline constexpr int kMmaChains = 8;
inline constexpr double kMmaFlopsPerStep = 4096;
/// FLOPs one launch of a mma kernel does: blocks × warps per block × iters × chains × 4096.
/// `threads_per_block` should be a multiple of 32 (a partial warp still runs whole mmas).
double mma_flops(std::uint32_t blocks, std::uint32_t threads_per_block, std::uint32_t iters);
/// Bytes one launch moves: copy reads and writes `bytes`; triad moves 3 × 4 bytes per float.
inline double copy_bytes(std::uint64_t bytes) { return 2.0 * static_cast<double>(bytes); }
inline double triad_bytes(std::uint64_t floats) { return 12.0 * static_cast<double>(floats); }

}  // namespace smcompat::bench
