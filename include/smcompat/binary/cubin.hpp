// Cubin (EM_CUDA ELF) details: architecture, a/f variant, kernels and their resources from
// .nv.info, static shared memory from .nv.shared.<k>. Facts: ../shared/reference/fatbin-format.md
// section 4.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

struct CubinKernel {
  std::string name;       ///< mangled symbol name
  std::string demangled;  ///< demangled (same as name for extern "C")
  uint64_t sass_bytes = 0;
  std::optional<uint32_t> registers;        ///< EIATTR_REGCOUNT
  uint64_t shared_bytes = 0;                ///< static shared memory as ptxas -v reports it
  uint64_t shared_section_bytes = 0;        ///< raw .nv.shared.<k> size (1 KiB more on sm_90+)
  std::optional<uint32_t> stack_bytes;      ///< EIATTR_FRAME_SIZE (local memory frame)
  std::optional<uint32_t> min_stack_bytes;  ///< EIATTR_MIN_STACK_SIZE
  std::optional<uint32_t> max_stack_bytes;  ///< EIATTR_MAX_STACK_SIZE
  std::optional<std::array<uint32_t, 3>> max_threads;   ///< EIATTR_MAX_THREADS (__launch_bounds__)
  std::optional<std::array<uint32_t, 3>> reqntid;       ///< EIATTR_REQNTID
  std::optional<std::array<uint32_t, 3>> cluster_dims;  ///< EIATTR_CTA_PER_CLUSTER
  bool explicit_cluster = false;                        ///< EIATTR_EXPLICIT_CLUSTER
  std::optional<uint32_t> max_cluster_rank;             ///< EIATTR_MAX_CLUSTER_RANK
  std::optional<uint32_t> param_bytes;                  ///< EIATTR_CBANK_PARAM_SIZE
  std::optional<uint32_t> barriers;                     ///< EIATTR_NUM_BARRIERS
  bool uses_tcgen05 = false;       ///< EIATTR_TCGEN05_1CTA_USED / 2CTA_USED (meaning from names)
  bool uses_reg_reconfig = false;  ///< EIATTR_REG_RECONFIG (setmaxnreg; meaning from names)
};

struct CubinInfo {
  int sm = 0;                ///< SASS arch number, from e_flags by ABI version
  int virtual_sm = 0;        ///< PTX arch it came from (.note.nv.cuinfo / V1 e_flags), 0 if unknown
  uint8_t abi_version = 0;   ///< 7 (V1) or 8 (V2)
  bool relocatable = false;  ///< ET_REL (-rdc)
  bool debug = false;        ///< -G (has .debug_info / e_flags debug bits)
  std::optional<ArchVariant> variant;  ///< from .nv.compat attr 0x09 / .note.nv.tkinfo -arch
  std::string tkinfo_arch;             ///< "-arch sm_120f" value from .note.nv.tkinfo
  std::string toolkit;                 ///< toolkit version string from .note.nv.tkinfo
  std::vector<CubinKernel> kernels;    ///< filled when asked for
};

/// True if the bytes are an ELF with e_machine EM_CUDA (never fails).
bool cubin_sniff(ByteView bytes);
/// Parses a cubin; with `with_kernels` also the kernels and their resources.
Result<CubinInfo> parse_cubin(ByteView bytes, bool with_kernels);

}  // namespace smcompat
