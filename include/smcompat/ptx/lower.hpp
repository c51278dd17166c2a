// Lowering Hopper and datacenter-Blackwell tensor-core PTX for GPUs without it: `wgmma.mma_async`
// (sm_90a) becomes a chain of warp-level `mma.sync.aligned.m16n8k{8,16,32}` per warp, which sm_80
// and newer run, including sm_120/sm_121 (RTX 50, RTX PRO 6000, GB10), which have no wgmma.
//
// Why it works (PTX ISA 9.0, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate", figures
// "WGMMA .m64nNk16 register fragment layout for matrix A" and "... for accumulator matrix D", and
// "Warp-level matrix fragment mma.m16n8k16"): warp w of the warpgroup owns rows 16w..16w+15 of the
// 64xN tile; its part of D is the m16n8 C/D fragment of mma.sync repeated N/8 times along N
// (register 4j+i of wgmma is register i of the j-th m16n8 tile for an f32 accumulator, 2j+i for
// f16), and its part of A held in registers is mma.sync's m16n8k{16,8,32} A fragment. So the
// accumulator registers keep their names; only operands read from shared memory need loading.
// Every element pair that one 32-bit fragment register holds lies in 4 consecutive bytes of a
// K-major row, for every input type (16-bit, tf32, fp8), so K-major operands are loaded with
// `ldmatrix` whatever the type; MN-major (transposed, 16-bit only) ones with `ldmatrix.trans`.
// The 64-bit matrix descriptors are built at run time, so the emitted code decodes them at run
// time: start address, LBO, SBO and the swizzle mode, with the canonical layouts of the ISA's
// "Shared Memory Matrix Layout" section (swizzles are XORs of address bits [4,7) with [7,10)).
// wgmma.fence / commit_group / wait_group are removed: mma.sync is synchronous, so its results are
// in the registers before the next instruction, and its shared-memory reads are ordinary loads.
//
// Datacenter Blackwell's `tcgen05` (sm_100a; src/ptx/lower_tcgen05.cpp has the rules): tensor
// memory becomes a shared-memory array (128 lanes x the allocated columns, plus one column of
// padding); tcgen05.ld/st become shared loads/stores with the ISA's thread-to-lane mapping; a
// tcgen05.mma, issued by one elect.sync-chosen thread, is run by that thread's warp as one
// mma.sync per 16 rows x 8 columns, its accumulator read from and written back to the array in the
// MMA's data-path layout (D for M = 128, F for M = 64); tcgen05.commit becomes an mbarrier arrive.
// Then `retarget` sets .target/.version and applies its safe rewrites (setmaxnreg, clusters).
//
// Refused, with the instruction and the reason: sparse wgmma (.sp), integer and b1 types, a guard
// predicate on wgmma; for tcgen05: cta_group::2, .ws, sparse or block-scaled kinds (mxf4, mxf8f6f4,
// i8), fp6/fp4 inputs, tcgen05.cp/shift, ld/st shapes other than .32x32b and .16x32bx2, an MMA or
// commit not under an elect.sync predicate, an instruction descriptor that is not a constant, more
// than one tcgen05.alloc per kernel, tensor memory larger than sm_120's shared memory. A nonzero
// descriptor base offset cannot be seen before run time (assumed 0, as in canonical layouts).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/ptx/retarget.hpp"

namespace smcompat::ptx {

/// One instruction that was lowered or removed.
struct Lowering {
  SourceLoc loc;            ///< in the input
  std::string function;     ///< function holding it
  std::string instruction;  ///< the original statement
  /// "wgmma-mma" / "tcgen05-mma" (replaced by mma.sync), "wgmma-sync" (removed),
  /// "tcgen05-memory" (alloc/ld/st on the shared-memory tensor memory), "tcgen05-commit" (an
  /// mbarrier arrive) or "tcgen05-sync" (wait, fence, dealloc, relinquish: removed)
  std::string kind;
  uint32_t mma_count = 0;  ///< mma.sync instructions each thread runs in its place
};

struct LowerResult {
  bool ok = false;
  std::string text;  ///< the lowered PTX (when ok)
  SmTarget to;
  std::vector<Lowering> lowered;
  /// Why it cannot be lowered: instructions the lowering refuses, or what retargeting the
  /// lowered text refuses. Locations are in the input.
  std::vector<Blocker> blockers;
  /// Shared memory added to a kernel for its tensor memory (tcgen05), by kernel: static (the
  /// lowered kernel launches as the original did), or, when that would pass the 48 KiB of static
  /// shared memory, at the start of the dynamic shared memory, which the launch must then give
  /// `bytes` more of.
  struct SharedAddition {
    std::string function;
    uint64_t bytes = 0;
    bool dynamic = false;
    /// The target's shared memory per block (opt-in maximum, from the catalog), if known.
    std::optional<uint64_t> block_limit;
  };
  std::vector<SharedAddition> shared_added;
  /// retarget's rewrites of the lowered text (target, version, setmaxnreg, clusters), located in
  /// the input.
  std::vector<Rewrite> rewrites;
};

/// Lowers every wgmma and tcgen05 instruction of `text` to mma.sync (and shared memory) and
/// retargets the result to `to`. With
/// `kernel`, only that kernel is kept and lowered (the other .entry definitions are left out,
/// .func helpers stay). Fails only if the text does not parse or has no such kernel.
Result<LowerResult> lower(std::string_view text, const SmTarget& to, std::string_view kernel = {},
                          const FeatureTable& table = FeatureTable::builtin());

/// How `verify_lowering` makes up a launch and its inputs.
struct LowerVerifyOptions {
  std::string kernel;            ///< only this kernel ("" for every kernel)
  uint32_t block_threads = 128;  ///< when the kernel has no .reqntid/.maxntid
  uint32_t grid_blocks = 1;
  /// for `.extern .shared` arrays (Triton's kernels keep all their shared memory there)
  uint32_t dynamic_shared_bytes = 96 * 1024;
  uint64_t buffer_bytes = 1u << 20;        ///< one buffer per 64-bit parameter
  std::map<std::string, uint64_t> values;  ///< other parameters by name
  uint64_t default_value = 1;
  uint32_t seed = 1;
  uint64_t max_instructions = 200'000'000;
};

/// One kernel run in the reference interpreter as given and as lowered.
struct KernelVerification {
  std::string kernel;
  std::string status;  ///< "equal", "differs" or "not-run"
  uint64_t bytes_compared = 0;
  uint64_t differing_bytes = 0;
  uint64_t bytes_written = 0;  ///< bytes the original kernel changed (0: the comparison is empty)
  std::string reason;          ///< why it was not run
};

/// Runs every kernel of `original` and of `lowered` in the interpreter on the same made-up inputs
/// and compares every buffer byte for byte.
std::vector<KernelVerification> verify_lowering(std::string_view original, std::string_view lowered,
                                                const LowerVerifyOptions& options = {});

}  // namespace smcompat::ptx
