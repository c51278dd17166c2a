// Internals of the PTX interpreter (interp.cpp: loading, scheduling, scalar instructions;
// interp_tensor.cpp: the warp and warpgroup collectives).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/ptx/interp.hpp"

namespace smcompat::ptx::interp_detail {

enum class Space : uint8_t { kGeneric, kGlobal, kShared, kLocal, kParam, kConst };

// Generic addresses of shared and local memory: the space offset inside a window far above any
// global buffer, so that generic loads and stores work for every space.
inline constexpr uint64_t kSharedWindow = 0x5000'0000'0000ull;
inline constexpr uint64_t kLocalWindow = 0x6000'0000'0000ull;
inline constexpr uint64_t kWindowSize = 0x1000'0000'0000ull;

/// A PTX type: kind letter and width in bits. Kinds: 'b' 'u' 's' 'f' (f16/f32/f64), 'h' bf16,
/// 'H' f16x2, 'C' bf16x2, 'X' f32x2, 't' tf32, 'e' e4m3, 'm' e5m2, 'E' e4m3x2, 'M' e5m2x2, 'p'
/// pred.
struct Type {
  char kind = 0;
  uint8_t bits = 0;
  bool valid() const { return kind != 0; }
  bool is_int() const { return kind == 'b' || kind == 'u' || kind == 's'; }
  bool is_float() const { return kind == 'f'; }
};
Type parse_type(std::string_view mod);

struct Operand {
  enum Kind : uint8_t { kNone, kReg, kImm, kVector, kAddress, kSpecial, kSymbol, kSink };
  Kind kind = kNone;
  bool negate = false;         ///< `!%p`
  bool imm_float = false;      ///< imm holds double bits of a decimal float literal
  bool imm_f32 = false;        ///< imm holds f32 bits (0f...)
  bool imm_f64 = false;        ///< imm holds f64 bits (0d...)
  uint32_t reg = 0;            ///< kReg; kAddress base register when has_base_reg
  uint32_t reg2 = UINT32_MAX;  ///< second predicate of `%p|%q`
  uint64_t imm = 0;            ///< kImm; kSymbol/kAddress: symbol address
  int64_t offset = 0;          ///< kAddress displacement
  Space symbol_space = Space::kGeneric;
  bool has_base_reg = false;
  bool has_symbol = false;
  uint8_t special = 0;  ///< kSpecial: which
  uint32_t first = 0;   ///< kVector: children in Kernel::vector_items
  uint32_t count = 0;
};

enum class Op : uint8_t {
  kUnsupported,
  kMov,
  kLd,
  kSt,
  kCvta,
  kAdd,
  kSub,
  kMul,
  kMad,
  kFma,
  kDiv,
  kRem,
  kMin,
  kMax,
  kNeg,
  kAbs,
  kAnd,
  kOr,
  kXor,
  kNot,
  kCnot,
  kShl,
  kShr,
  kPopc,
  kClz,
  kBrev,
  kBfe,
  kBfi,
  kPrmt,
  kSetp,
  kSelp,
  kSlct,
  kCvt,
  kEx2,
  kLg2,
  kRcp,
  kSqrt,
  kRsqrt,
  kSin,
  kCos,
  kTanh,
  kBra,
  kRet,
  kExit,
  kNop,
  kBar,
  kBarWarp,
  kShfl,
  kVote,
  kMma,
  kLdmatrix,
  kStmatrix,
  kWgmmaNop,
  kWgmma,
  kCpAsync,
  kAtom,
  kRed,
  kCopysign,
  kElect,
  kMbarrier,
  kTcgen05,
  kTrap,
};

enum class Collective : uint8_t { kNone, kWarp, kWarpgroup, kBlock };

struct Inst {
  Op op = Op::kUnsupported;
  Collective collective = Collective::kNone;
  const Statement* st = nullptr;
  uint32_t guard = UINT32_MAX;  ///< predicate register slot, or none
  bool guard_negated = false;
  Type type, type2, type3, type4;  ///< the type modifiers in order of appearance
  Space space = Space::kGeneric;
  uint8_t vec = 1;
  uint32_t first = 0;  ///< operands in Kernel::operands
  uint32_t count = 0;
  uint32_t target = 0;                 ///< bra: instruction index
  std::vector<std::string_view> mods;  ///< every modifier after the opcode, without dots
  bool has(std::string_view m) const {
    for (auto x : mods)
      if (x == m) return true;
    return false;
  }
};

struct Kernel {
  const Module* module = nullptr;
  const Function* function = nullptr;
  std::vector<Inst> insts;
  std::vector<Operand> operands;
  std::vector<Operand> vector_items;
  uint32_t register_count = 0;
  uint64_t shared_bytes = 0;
  uint64_t local_bytes = 0;
  std::vector<uint8_t> param_image;
};

/// One block's state during execution.
struct Block {
  const Kernel* kernel = nullptr;
  const InterpLaunch* launch = nullptr;
  InterpMemory* memory = nullptr;
  std::array<uint32_t, 3> ctaid{};
  uint32_t thread_count = 0;
  std::vector<uint64_t> regs;  ///< thread_count * register_count
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;  ///< thread_count * local_bytes
  /// Tensor memory (sm_100): 128 lanes x 512 32-bit columns, made on the first tcgen05.alloc;
  /// columns [0, tmem_allocated) are allocated.
  std::vector<uint32_t> tmem;
  uint32_t tmem_allocated = 0;
  uint64_t* reg_base(uint32_t thread) {
    return regs.data() + static_cast<size_t>(thread) * kernel->register_count;
  }
};

std::string where(const Inst& inst);
Error unsupported(const Inst& inst, std::string_view why = {});

/// Reads or writes `size` bytes at `address` in `space` for `thread`; errors name the instruction.
Result<void> access(Block& block, const Inst& inst, uint32_t thread, Space space, uint64_t address,
                    void* data, uint64_t size, bool write);

/// Value of an operand for one thread as `bits` wide raw bits (immediates converted per `type`).
uint64_t read_value(Block& block, uint32_t thread, const Operand& op, Type type);

Result<void> execute_collective(Block& block, const Inst& inst, std::span<const uint32_t> threads);

// Shared by the collectives (interp_tensor.cpp) and tcgen05/mbarrier (interp_tcgen05.cpp).
const Operand* operands_of(const Block& b, const Inst& in);
/// Register slots of a `{...}` operand (all must be registers).
bool vector_regs(const Block& b, const Operand& op, std::vector<uint32_t>& out);
Result<uint64_t> address_of(Block& b, const Inst& in, uint32_t t, const Operand& a, Space space);
/// The value of one matrix element of `kind` ('f' f16, 'h' bf16, 't' tf32, 'e'/'m' fp8).
double decode_element(uint32_t bits, char kind);
unsigned element_bits(char kind);
/// Shared-memory byte address of element (mn, k) of an operand described by a wgmma-style matrix
/// descriptor (swizzle mode in bits 62-63).
uint64_t descriptor_address(uint64_t desc, unsigned mn, unsigned k, unsigned ebytes, bool mn_major);
Result<double> descriptor_element(Block& b, const Inst& in, uint32_t t, uint64_t desc, unsigned mn,
                                  unsigned k, char kind, bool mn_major);

// interp_tcgen05.cpp: elect.sync, mbarrier and the tcgen05 subset.
/// Warp collectives: elect.sync; tcgen05.alloc/dealloc/relinquish_alloc_permit/ld/st.
Result<void> exec_warp_tcgen05(Block& block, const Inst& inst, std::span<const uint32_t> threads);
/// One thread's mbarrier.* or tcgen05.mma/commit/wait/fence.
Result<void> exec_thread_tcgen05(Block& block, uint32_t thread, const Inst& inst);
/// True when `inst` is an mbarrier wait (try_wait/test_wait) whose phase has not completed yet:
/// the thread must wait (a spin loop would never end while the other threads stand still).
Result<bool> mbarrier_blocks(Block& block, uint32_t thread, const Inst& inst);

// Number formats.
uint16_t f32_to_f16(uint32_t bits);
uint32_t f16_to_f32(uint16_t bits);
uint16_t f32_to_bf16(uint32_t bits);
inline uint32_t bf16_to_f32(uint16_t bits) { return static_cast<uint32_t>(bits) << 16; }
uint16_t f64_to_f16(double value);  ///< round to nearest even, one step
double e4m3_to_double(uint8_t bits);
double e5m2_to_double(uint8_t bits);
inline float as_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

inline uint64_t mask_of(unsigned bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (bits - 1);
  v &= mask_of(bits);
  return static_cast<int64_t>((v ^ m) - m);
}
inline double as_double(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t double_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

/// Executes one non-collective instruction for `thread`; advances `pc`; true when it exits.
Result<bool> exec_scalar(Block& block, uint32_t thread, const Inst& inst, uint32_t& pc);

}  // namespace smcompat::ptx::interp_detail
