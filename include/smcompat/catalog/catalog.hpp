// The catalog: facts about GPU architectures, GPUs and CUDA releases, and the compatibility rules
// that decide where an image can run. The facts live in data/catalog.json (compiled in), each row
// citing its source; the rules follow ../shared/reference/compatibility-rules.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

/// Per-architecture resources and features.
struct ArchInfo {
  int sm = 0;                           ///< arch number (120)
  std::string name;                     ///< "Blackwell (RTX 50 / RTX PRO 6000)"
  bool has_a = false;                   ///< an `a` target exists
  bool has_f = false;                   ///< an `f` target exists
  std::optional<int> renamed_to;        ///< sm_101 -> 110
  std::optional<uint32_t> smem_per_sm;  ///< bytes
  std::optional<uint32_t>
      smem_per_block_optin;              ///< bytes (cudaDevAttrMaxSharedMemoryPerBlockOptin)
  uint32_t reserved_smem_per_block = 0;  ///< bytes reserved by the system per block
  std::optional<uint32_t> threads_per_sm;
  std::optional<uint32_t> blocks_per_sm;
  uint32_t regs_per_sm = 65536;
  uint32_t regs_per_block = 65536;
  uint32_t max_regs_per_thread = 255;
  std::vector<std::string> features;    ///< available to every target of this arch
  std::vector<std::string> a_features;  ///< need the `a` target
  std::vector<std::string> f_features;  ///< need the `f` (or `a`) target
  std::optional<Version> first_cuda;    ///< first CUDA whose nvcc builds the base target
  std::optional<Version> first_cuda_f;  ///< first CUDA that builds the `f` target
  std::optional<Version> last_cuda;     ///< last CUDA that builds it (nullopt = still supported)
  std::optional<Version> min_ptx_isa;
  std::string tags;  ///< uncertainty tags (D, 3P, ?)
  std::string notes;
  std::string source;

  ComputeCapability cc() const { return ComputeCapability::from_arch(sm); }
  /// Whether `feature` is usable by code built for `variant` of this arch.
  bool has_feature(std::string_view feature, ArchVariant variant = ArchVariant::kBase) const;
};

/// Peak dense throughput per data type, TFLOPS (keys: fp16_bf16, fp16_acc16, tf32, fp8, fp4,
/// fp32, fp64, fp64_tensor).
using PeakTable = std::map<std::string, double>;

/// A concrete GPU product.
struct GpuSpec {
  std::string name;
  std::vector<std::string> aliases;
  ComputeCapability cc;
  int sms = 0;
  std::optional<int> boost_mhz;
  std::optional<int> tensor_mhz;
  std::string memory;
  std::optional<double> memory_gib;
  std::optional<int> bus_width_bits;
  std::optional<double> bandwidth_gbs;
  std::optional<double> l2_mb;
  std::optional<double> nvlink_gbs;  ///< NVLink, both directions together
  std::optional<int> pcie_gen;       ///< host link generation (x16); absent for integrated GPUs
  PeakTable peak_tflops;
  std::string tags;
  std::string source;
};

struct CudaRelease {
  Version cuda;
  std::optional<DriverVersion> min_driver_linux;
  std::optional<DriverVersion> min_driver_windows;
  std::string source;
};

struct FamilyInfo {
  int target = 0;            ///< the `f` target's arch (100 for sm_100f)
  std::vector<int> members;  ///< arch numbers of compatible devices
  std::string source;
};

class Catalog {
 public:
  /// The catalog compiled into the library (parsed once, immutable).
  static const Catalog& builtin();
  /// Parses a catalog from JSON text (same schema as data/catalog.json).
  static Result<Catalog> from_json(std::string_view json_text);

  const std::vector<ArchInfo>& archs() const { return archs_; }
  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const std::vector<CudaRelease>& cuda_releases() const { return cuda_releases_; }
  const std::vector<FamilyInfo>& families() const { return families_; }

  const ArchInfo* arch(int sm) const;
  /// Finds a GPU by forgiving name: "RTX 5090", "5090", "rtx-5090", "geforce rtx 5090", "B200",
  /// "GB10", "H100 SXM". Returns nullptr if nothing (or more than one product) matches.
  const GpuSpec* find_gpu(std::string_view query) const;
  /// All GPUs whose name or alias matches the query loosely (for "did you mean").
  std::vector<const GpuSpec*> suggest_gpus(std::string_view query) const;

  /// Minimum CUDA (driver API) version that understands PTX ISA `isa`; nullopt if unknown.
  std::optional<Version> min_cuda_for_ptx(Version isa) const;
  /// Highest PTX ISA a driver supporting CUDA `cuda` understands.
  std::optional<Version> max_ptx_for_cuda(Version cuda) const;
  /// PTX ISA version a CUDA release's nvcc writes by default (the highest it knows).
  std::optional<Version> ptx_isa_of_cuda(Version cuda) const { return max_ptx_for_cuda(cuda); }
  const CudaRelease* cuda_release(Version cuda) const;
  /// Lowest CUDA release whose minimum Linux driver is <= `driver` (i.e. the newest CUDA this
  /// driver supports fully, from the release table). nullopt if older than every row.
  std::optional<Version> max_cuda_for_driver(DriverVersion driver) const;
  /// Targets that CUDA release `cuda` can build (SASS arch numbers, ascending).
  std::vector<int> archs_built_by(Version cuda) const;

  /// Members of the family of `f` target `arch` (empty if `arch` has no family).
  const std::vector<int>& family_members(int arch) const;

  // Which images run where (the compatibility rules) is verdict/fit.hpp's fit_image().

 private:
  std::vector<ArchInfo> archs_;
  std::vector<GpuSpec> gpus_;
  std::vector<CudaRelease> cuda_releases_;
  std::vector<FamilyInfo> families_;
  std::vector<std::pair<Version, Version>> ptx_isa_min_cuda_;  // (isa, min cuda), ascending
};

}  // namespace smcompat
