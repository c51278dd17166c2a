// The gemm suite's plan and its reference check, apart from any GPU: which precisions and shapes
// to run on a GPU (gated by the catalog's architecture features: tf32, bf16, fp8, fp4), the
// cuBLASLt types of each, and the small exact case every configuration is verified on (small
// integers, exact in every input type and in every output type, compared with a CPU reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "smcompat/bench/cublaslt.hpp"
#include "smcompat/bench/peaks.hpp"
#include "smcompat/bench/suites.hpp"
#include "smcompat/catalog/catalog.hpp"

namespace smcompat::bench {

/// How one precision maps onto cuBLASLt (types from cublaslt.hpp).
struct GemmTypes {
  int a = 0, b = 0, c = 0, d = 0;  ///< cudaDataType of A, B, C, D
  int compute = 0;                 ///< cublasComputeType_t
  int scale = 0;                   ///< cudaDataType of alpha/beta
  /// FP8 needs per-tensor scale pointers (set to 1.0); block-scaled types need scale tensors.
  bool scale_pointers = false;
  std::optional<int> block_scale_mode;  ///< cublasLtMatmulMatrixScale_t, block-scaled only
  int block_size = 0;                   ///< elements per scale (16 or 32), block-scaled only
  std::size_t a_bits = 0, b_bits = 0, d_bits = 0;  ///< element sizes
};

/// One configuration. All matrices column-major, A transposed (the "TN" layout that FP8
/// requires, used for every type so that they compare): A is k×m (lda k), B k×n (ldb k),
/// C = D m×n (ldc m); batched ones are strided.
struct GemmConfig {
  Precision precision = Precision::kBf16;
  std::string variant;  ///< "" or "mxfp8" / "nvfp4" (block-scaled)
  std::uint64_t m = 0, n = 0, k = 0, batch = 1;
  GemmTypes types;
  /// "bf16 8192x8192x8192", "fp16 batched 32x1024x1024x1024", "mxfp8 4096x4096x4096".
  std::string name() const;
  double flops() const { return gemm_flops(m, n, k, batch); }
  /// Device bytes of A, B and D (C aliases D; beta = 0).
  std::uint64_t bytes() const;
};

struct GemmPlanEntry {
  GemmConfig config;
  std::string skip_reason;  ///< non-empty: record a skip, run nothing
};

struct GemmPlanOptions {
  bool quick = false;  ///< 4096 and 8192 only; batched kept
  /// Device memory (bytes); configurations needing more than 80 % of it become skips.
  std::optional<std::uint64_t> device_memory;
  std::vector<Precision> precisions;  ///< empty: all
};

/// The plan for a GPU of architecture `arch` (its true compute capability's catalog row; a
/// nullptr arch means unknown: only types every tensor-core GPU has run). Square sizes 1024,
/// 2048, 4096, 8192, 16384 (quick: 4096, 8192) for fp64, fp32, tf32, fp16, bf16, fp8_e4m3,
/// fp8_e5m2 (A e5m2 × B e4m3: cuBLASLt has no e5m2 × e5m2), then batched 32×1024³ for each,
/// then block-scaled mxfp8 / nvfp4 at the largest quick size. Types the arch lacks are one skip
/// per precision, naming the missing feature.
std::vector<GemmPlanEntry> gemm_plan(const ArchInfo* arch, const GemmPlanOptions& options = {});

/// The cuBLASLt types of a precision (block-scaled: variant "mxfp8" or "nvfp4").
std::optional<GemmTypes> gemm_types(Precision p, std::string_view variant = {});

// --- The small exact case -------------------------------------------------------------------

/// Element (i, l) of the verification A (m×k, row i, column l) and (l, j) of B (k×n): small
/// integers in [-2, 2], exact in fp4 e2m1, fp8, fp16, bf16, tf32; with k ≤ 64 every dot product
/// is at most 256 in magnitude, exact in bf16 and fp16 outputs.
int verify_a(std::uint64_t i, std::uint64_t l);
int verify_b(std::uint64_t l, std::uint64_t j);
/// The size of the verification case: m = n = 128 (a whole tile, which block-scaled kernels may
/// need), k = 64 (so every value stays exact in bf16).
inline constexpr std::uint64_t kVerifySize = 128;
inline constexpr std::uint64_t kVerifyK = 64;

/// The CPU reference D = A·B (m×n, column-major) of the verification inputs.
std::vector<double> reference_gemm(std::uint64_t m, std::uint64_t n, std::uint64_t k);

/// Encodes an integer in [-2, 2] (exactly) as an element of `type` (cudaDataType), little-endian
/// into `out` at element index `index` (fp4: two per byte, the lower nibble first). Returns false
/// for a type or value it cannot encode exactly.
bool encode_small_int(int value, int type, std::span<std::uint8_t> out, std::size_t index);
/// Decodes element `index` of a buffer of `type` (f64, f32, f16, bf16) to a double.
std::optional<double> decode_element(int type, std::span<const std::uint8_t> data,
                                     std::size_t index);
/// Bits per element of a cudaDataType the suite uses (0 if not one of them).
std::size_t type_bits(int type);

/// Fills `out` with pseudo-random elements of `type` (deterministic in `seed`): finite values of
/// magnitude about 0.25 to 2 with random signs and significands, so the timed GEMMs run on
/// data like torch.randn's rather than on zeros (which draw less power and clock higher).
/// Block-scale types get 1.0 everywhere (ue8m0 0x7F, ue4m3 0x38). False for an unknown type.
bool fill_random(int type, std::span<std::uint8_t> out, std::uint64_t seed);
/// The byte that encodes a block scale of 1.0 in `type` (CUDA_R_8F_UE8M0 or the unsigned e4m3).
std::uint8_t unit_scale_byte(int type);

/// Host buffers of the verification case for `types`: A stored k×m (A transposed, lda k), B k×n.
struct VerifyInputs {
  std::vector<std::uint8_t> a, b;
};
std::optional<VerifyInputs> verify_inputs(const GemmTypes& types, std::uint64_t m, std::uint64_t n,
                                          std::uint64_t k);

/// Compares a D buffer (m×n column-major of type `d_type`) with the reference: exact equality is
/// expected (every value is an integer the type represents). Error names the first mismatch.
Result<void> check_against_reference(int d_type, std::span<const std::uint8_t> d, std::uint64_t m,
                                     std::uint64_t n, std::uint64_t k);

// --- On a GPU (the runner's session and measurement loop) ------------------------------------

struct GemmSuiteOptions {
  cublaslt::SearchPaths paths = cublaslt::default_search_paths();
  std::vector<Precision> precisions;  ///< empty: all
};

/// The gemm suite on every selected device: gemm_plan() for its true architecture (quick from
/// NativeOptions::quick, the device's memory), each precision verified once on the exact
/// 128×128×64 case (BenchResult::verified, with the mismatch in notes), then each configuration
/// timed with the heuristic's first algorithm (32 MiB workspace): TFLOPS and % of peak_tflops().
/// Rows carry params dtype/m/n/k/batch/layout/cublaslt_version. cuBLASLt not loadable,
/// cublasLtCreate failing, a heuristic with no algorithm, an allocation failing: recorded skips
/// naming the status (CUBLAS_STATUS_...) or CUresult.
std::vector<BenchResult> run_gemm_suite(SuiteContext& context, const GemmSuiteOptions& options);
/// The suite as NativeOptions::extra_suites["gemm"] takes it.
SuiteFn gemm_suite(GemmSuiteOptions options = {});

}  // namespace smcompat::bench
