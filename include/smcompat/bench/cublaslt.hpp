// cuBLASLt, dlopened (smcompat never links it): the minimal ABI the gemm suite calls, declared
// here from the CUDA 13 headers (/usr/local/cuda/include/cublasLt.h, cublas_api.h,
// library_types.h; enum values are ABI facts, stable across 12.x and 13.x), and a loader that
// searches a user-given path, the Python environment's nvidia-cublas wheel, torch/lib, the CUDA
// toolkit, then the normal dlopen search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/util/result.hpp"

namespace smcompat::bench::cublaslt {

// --- ABI -----------------------------------------------------------------------------------
using Status = int;  // cublasStatus_t (cublas_api.h)
inline constexpr Status kSuccess = 0;
/// "CUBLAS_STATUS_NOT_SUPPORTED" for the values of cublas_api.h; "CUBLAS_STATUS_<n>" otherwise.
/// (The library's own cublasLtGetStatusName is used when loaded; this covers the rest.)
std::string status_name(Status status);

// cudaDataType_t (library_types.h).
enum DataType : int {
  kR32F = 0,
  kR64F = 1,
  kR16F = 2,
  kR16BF = 14,
  kR8F_E4M3 = 28,
  kR8F_E5M2 = 29,
  kR8F_UE8M0 = 30,
  kR4F_E2M1 = 33,
};
// cublasComputeType_t (cublas_api.h).
enum ComputeType : int {
  kCompute16F = 64,
  kCompute32F = 68,
  kCompute64F = 70,
  kCompute32FFastTf32 = 77,
};
// cublasOperation_t.
enum Operation : int { kOpN = 0, kOpT = 1 };
// cublasLtMatmulDescAttributes_t.
enum MatmulDescAttribute : int {
  kDescComputeType = 0,
  kDescScaleType = 1,
  kDescTransA = 3,
  kDescTransB = 4,
  kDescAScalePointer = 17,
  kDescBScalePointer = 18,
  kDescDScalePointer = 20,
  kDescFastAccum = 25,
  kDescAScaleMode = 31,
  kDescBScaleMode = 32,
};
// cublasLtMatmulMatrixScale_t (block scaling modes).
enum MatrixScale : int {
  kScaleScalar32F = 0,
  kScaleVec16UE4M3 = 1,
  kScaleVec32UE8M0 = 2,
};
// cublasLtMatrixLayoutAttribute_t.
enum LayoutAttribute : int { kLayoutBatchCount = 5, kLayoutStridedBatchOffset = 6 };
// cublasLtMatmulPreferenceAttributes_t.
enum PreferenceAttribute : int { kPrefMaxWorkspaceBytes = 1 };

// Opaque handles; the semi-opaque structs by their declared sizes.
using Handle = struct HandleOpaque*;
using MatmulDesc = struct MatmulDescOpaque*;
using MatrixLayout = struct MatrixLayoutOpaque*;
using MatmulPreference = struct MatmulPreferenceOpaque*;
using Stream = struct StreamOpaque*;  // cudaStream_t == CUstream
struct MatmulAlgo {
  std::uint64_t data[8];
};
struct HeuristicResult {
  MatmulAlgo algo;
  std::size_t workspace_size;
  Status state;
  float waves_count;
  int reserved[4];
};
static_assert(sizeof(HeuristicResult) == 96, "cublasLtMatmulHeuristicResult_t is 96 bytes");

/// The entry points, resolved by dlsym.
struct Functions {
  Status (*create)(Handle*) = nullptr;
  Status (*destroy)(Handle) = nullptr;
  std::size_t (*get_version)() = nullptr;
  const char* (*get_status_name)(Status) = nullptr;  // may be absent in old releases
  Status (*matmul_desc_create)(MatmulDesc*, int compute, int scale) = nullptr;
  Status (*matmul_desc_destroy)(MatmulDesc) = nullptr;
  Status (*matmul_desc_set_attribute)(MatmulDesc, int attr, const void* buf,
                                      std::size_t size) = nullptr;
  Status (*matrix_layout_create)(MatrixLayout*, int type, std::uint64_t rows, std::uint64_t cols,
                                 std::int64_t ld) = nullptr;
  Status (*matrix_layout_destroy)(MatrixLayout) = nullptr;
  Status (*matrix_layout_set_attribute)(MatrixLayout, int attr, const void* buf,
                                        std::size_t size) = nullptr;
  Status (*preference_create)(MatmulPreference*) = nullptr;
  Status (*preference_destroy)(MatmulPreference) = nullptr;
  Status (*preference_set_attribute)(MatmulPreference, int attr, const void* buf,
                                     std::size_t size) = nullptr;
  Status (*algo_get_heuristic)(Handle, MatmulDesc, MatrixLayout a, MatrixLayout b, MatrixLayout c,
                               MatrixLayout d, MatmulPreference, int requested,
                               HeuristicResult* results, int* returned) = nullptr;
  Status (*matmul)(Handle, MatmulDesc, const void* alpha, const void* a, MatrixLayout,
                   const void* b, MatrixLayout, const void* beta, const void* c, MatrixLayout,
                   void* d, MatrixLayout, const MatmulAlgo* algo, void* workspace,
                   std::size_t workspace_bytes, Stream stream) = nullptr;
};

// --- Loader --------------------------------------------------------------------------------

/// Where to look, in order. Directories are searched for libcublasLt.so.* (highest major first);
/// a file is opened as given.
struct SearchPaths {
  std::optional<std::filesystem::path> user;         ///< --cublaslt PATH (file or directory)
  std::vector<std::filesystem::path> site_packages;  ///< Python environments to look into
  std::vector<std::filesystem::path> cuda_homes;     ///< toolkits (lib64, targets/*/lib)
  bool system = true;  ///< finally dlopen("libcublasLt.so.13") etc. by the normal search
};
/// The default search: site-packages of $VIRTUAL_ENV and $CONDA_PREFIX (lib/python3*/), toolkits
/// from $SMCOMPAT_CUDA_HOME, $CUDA_HOME, $CUDA_PATH and /usr/local/cuda, and the system search.
SearchPaths default_search_paths();
/// The candidate files (or bare sonames, for the system search) in search order, with where each
/// came from ("user", "nvidia-cublas wheel", "nvidia cu13 wheel", "torch/lib", "toolkit",
/// "system"). Directories that do not exist contribute nothing.
struct Candidate {
  std::string path;
  std::string origin;
};
std::vector<Candidate> candidates(const SearchPaths& paths);

/// A loaded cuBLASLt. Move-only; dlclose()s nothing (a loaded cuBLASLt may have started threads
/// and registered atexit handlers, so unloading it is not safe).
class Library {
 public:
  /// Opens the first candidate that dlopens and exports every required entry point. The error
  /// lists every candidate tried and why it failed.
  static Result<Library> load(const SearchPaths& paths = default_search_paths());
  /// Opens exactly `path` (a file or a soname).
  static Result<Library> open(const std::string& path, const std::string& origin = "user");

  const Functions& fn() const { return fn_; }
  const std::string& path() const { return path_; }
  const std::string& origin() const { return origin_; }
  /// cublasLtGetVersion(): major·10000 + minor·100 + patch (130100).
  std::size_t version() const { return version_; }
  /// "13.1.0".
  std::string version_string() const;
  /// The library's name for a status, falling back to status_name().
  std::string name(Status status) const;

 private:
  Functions fn_;
  std::string path_;
  std::string origin_;
  std::size_t version_ = 0;
};

}  // namespace smcompat::bench::cublaslt
