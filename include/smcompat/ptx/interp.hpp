// A reference interpreter for a subset of PTX (PTX ISA 9.0 semantics), so that a kernel and a
// rewritten version of it (e.g. `smcompat ptx lower`) can be run on the same inputs without a GPU
// and their outputs compared bit for bit.
//
// Execution model: the blocks of the grid run one after another. Within a block every thread has
// its own program counter and registers; a thread runs alone until it reaches a collective
// instruction (warp: mma.sync, ldmatrix, stmatrix, shfl.sync, vote.sync, bar.warp.sync;
// warpgroup of 4 consecutive warps: wgmma.*; block: bar.sync / barrier.sync), which executes
// once every non-exited thread of its group waits at that same instruction. Memory is therefore
// sequentially consistent per block, and asynchronous operations (cp.async, wgmma) complete at
// once. Anything the interpreter does not implement is a located error, never a guess.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "smcompat/ptx/module.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

struct InterpLaunch {
  std::array<uint32_t, 3> block{128, 1, 1};
  std::array<uint32_t, 3> grid{1, 1, 1};
  uint32_t dynamic_shared_bytes = 0;        ///< size of `.extern .shared` arrays
  uint64_t max_instructions = 100'000'000;  ///< per launch, summed over threads
};

/// Global memory of the interpreted device: separate buffers at distinct fake addresses (never 0).
class InterpMemory {
 public:
  /// A zero-filled buffer at a 256-byte aligned address; buffers are separated by unmapped gaps
  /// so that running off the end of one is caught instead of landing in the next.
  uint64_t allocate(size_t bytes);
  /// The whole buffer that starts at `address` (empty if none starts there).
  std::span<uint8_t> buffer(uint64_t address);

  /// The bytes [address, address + size) if they lie inside one buffer, else nullptr.
  uint8_t* find(uint64_t address, uint64_t size);

 private:
  std::map<uint64_t, std::vector<uint8_t>> buffers_;
  uint64_t next_ = 0x10000000;
};

struct InterpStats {
  uint64_t instructions = 0;  ///< executed instructions summed over all threads
};

/// Runs the kernel (.entry) `kernel` of `module` over the whole grid. `params` holds one value per
/// .param of the kernel, in order (scalars and pointers, given as 64-bit values truncated to the
/// param's size). Errors say "line L, column C: ..." for the instruction involved.
Result<InterpStats> interpret_kernel(const Module& module, std::string_view kernel,
                                     const InterpLaunch& launch, std::span<const uint64_t> params,
                                     InterpMemory& memory);

}  // namespace smcompat::ptx
