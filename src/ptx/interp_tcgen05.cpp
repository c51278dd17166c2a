// PTX interpreter: elect.sync, mbarrier and the tcgen05 subset that compilers emit for
// `cta_group::1` dense MMAs (Triton's sm_100a matmul and attention kernels).
//
// From PTX ISA 9.1, section "TensorCore 5th Generation Family Instructions":
//  - Tensor memory: 128 lanes x 512 columns of 32 bits per CTA; an address is lane << 16 | column
//    ("Tensor Memory Addressing"); tcgen05.alloc writes the first allocated column's address to
//    shared memory.
//  - tcgen05.ld/st ("Access restrictions", "Matrix fragments for shape .32x32b / .16x32bx2"):
//    warp w of a warpgroup reaches lanes 32*(w%4)..+31. .32x32b: thread i reads lane base+i;
//    .16x32bx2: thread i reads lane base+i%16, threads 16..31 at immHalfSplitoff columns further;
//    register j is column +j. .pack::16b packs the low halves of columns 2j and 2j+1 into register
//    j; .unpack::16b stores them back ("Packing and Unpacking").
//  - tcgen05.mma: the instruction descriptor of Table 42 (types, negation, transposes, N >> 3,
//    M >> 4), the shared memory descriptor of Table 40 (start, LBO, SBO, the fixed 0b001 at bits
//    46-48, swizzle mode at bits 61-63: 0 none, 2 128 B, 4 64 B, 6 32 B) with the same canonical
//    layouts as wgmma ("Canonical Layouts"); D (and A from tensor memory) in data-path layout D
//    (M = 128: row r in lane r) or F (M = 64: row r in lane 32*(r/16) + r%16, from lane 0 or 16);
//    a 16-bit D element sits alone in the low half of its column ("Packing format for matrix D").
//    The MMA completes at once; tcgen05.commit then arrives on its mbarrier.
//  - mbarrier: a phase bit, a pending and an expected arrival count; try_wait.parity P succeeds
//    once the phase with parity P has completed, i.e. the current phase bit differs from P.
// A thread whose mbarrier wait cannot succeed yet waits (interp.cpp's scheduler runs the others).
#include "interp_internal.hpp"
#include "tcgen05_descriptor.hpp"

namespace smcompat::ptx::interp_detail {
namespace {

constexpr uint32_t kTmemLanes = 128;
constexpr uint32_t kTmemColumns = 512;

Error fail(const Inst& in, std::string what) {
  return make_error(fmt::format("{}: {}", where(in), what), in.st->loc.offset);
}

// ---- mbarrier -------------------------------------------------------------------------------

struct Mbarrier {
  uint32_t pending = 0;
  uint32_t expected = 0;
  bool phase = false;
  uint64_t pack() const {
    return pending | (uint64_t{expected & 0x7fffffffu} << 32) | (uint64_t{phase} << 63);
  }
  static Mbarrier unpack(uint64_t v) {
    return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32) & 0x7fffffffu, (v >> 63) != 0};
  }
};

// The space an mbarrier instruction addresses: shared, or generic when it names none. A
// shared::cluster address of this CTA is its shared::cta address (no clusters are modelled).
Space mbarrier_space(const Inst& in) {
  return in.space == Space::kGeneric ? Space::kGeneric : Space::kShared;
}

Result<uint64_t> mbarrier_address(Block& b, const Inst& in, uint32_t t, const Operand& op) {
  return address_of(b, in, t, op, mbarrier_space(in));
}

Result<Mbarrier> load_mbarrier(Block& b, const Inst& in, uint32_t t, uint64_t addr) {
  uint64_t v = 0;
  SMCOMPAT_CHECK(access(b, in, t, mbarrier_space(in), addr, &v, 8, false));
  return Mbarrier::unpack(v);
}

Result<void> store_mbarrier(Block& b, const Inst& in, uint32_t t, uint64_t addr, Mbarrier m) {
  uint64_t v = m.pack();
  return access(b, in, t, mbarrier_space(in), addr, &v, 8, true);
}

/// `count` arrivals; returns the phase the arrivals belong to.
Result<bool> arrive(Block& b, const Inst& in, uint32_t t, uint64_t addr, uint32_t count) {
  SMCOMPAT_TRY(Mbarrier m, load_mbarrier(b, in, t, addr));
  if (m.expected == 0) return fail(in, "arrive on an mbarrier that was not initialised");
  if (count == 0 || count > m.pending)
    return fail(in, fmt::format("{} arrivals on an mbarrier with {} pending", count, m.pending));
  const bool phase = m.phase;
  m.pending -= count;
  if (m.pending == 0) {
    m.phase = !m.phase;
    m.pending = m.expected;
  }
  SMCOMPAT_CHECK(store_mbarrier(b, in, t, addr, m));
  return phase;
}

bool is_wait(const Inst& in) { return in.has("try_wait") || in.has("test_wait"); }

/// Whether the phase that try_wait/test_wait waits for has completed.
Result<bool> wait_complete(Block& b, uint32_t t, const Inst& in) {
  const Operand* ops = operands_of(b, in);
  if (in.count < 3 || in.count > 4 || ops[1].kind != Operand::kAddress) return unsupported(in);
  SMCOMPAT_TRY(uint64_t addr, mbarrier_address(b, in, t, ops[1]));
  SMCOMPAT_TRY(Mbarrier m, load_mbarrier(b, in, t, addr));
  if (m.expected == 0) return fail(in, "wait on an mbarrier that was not initialised");
  uint64_t v = read_value(b, t, ops[2], Type{'b', 64});
  // .parity: operand 2 is the parity of the awaited phase; else the state an arrive returned.
  const bool awaited = in.has("parity") ? (v & 1) != 0 : (v >> 63) != 0;
  return m.phase != awaited;
}

Result<void> exec_mbarrier(Block& b, uint32_t t, const Inst& in) {
  const Operand* ops = operands_of(b, in);
  for (auto m : in.mods)
    if (m == "expect_tx" || m == "complete_tx" || m == "multicast::cluster")
      return unsupported(in, "mbarrier transaction counts (TMA) are not modelled");
  if (in.has("init")) {
    if (in.count != 2 || ops[0].kind != Operand::kAddress) return unsupported(in);
    SMCOMPAT_TRY(uint64_t addr, mbarrier_address(b, in, t, ops[0]));
    auto count = static_cast<uint32_t>(read_value(b, t, ops[1], Type{'b', 32}));
    if (count == 0 || count >= (1u << 20))
      return fail(in, fmt::format("mbarrier count {} outside 1..2^20-1", count));
    return store_mbarrier(b, in, t, addr, {count, count, false});
  }
  if (in.has("inval")) {
    if (in.count != 1 || ops[0].kind != Operand::kAddress) return unsupported(in);
    SMCOMPAT_TRY(uint64_t addr, mbarrier_address(b, in, t, ops[0]));
    return store_mbarrier(b, in, t, addr, {});
  }
  if (in.has("arrive")) {
    if (in.count < 2 || in.count > 3 || ops[1].kind != Operand::kAddress) return unsupported(in);
    SMCOMPAT_TRY(uint64_t addr, mbarrier_address(b, in, t, ops[1]));
    uint32_t count =
        in.count == 3 ? static_cast<uint32_t>(read_value(b, t, ops[2], Type{'b', 32})) : 1;
    SMCOMPAT_TRY(bool phase, arrive(b, in, t, addr, count));
    if (ops[0].kind == Operand::kReg) b.reg_base(t)[ops[0].reg] = uint64_t{phase} << 63;
    return {};
  }
  if (is_wait(in)) {
    // Reached only once the wait succeeds (mbarrier_blocks held the thread until then).
    if (ops[0].kind != Operand::kReg) return unsupported(in);
    b.reg_base(t)[ops[0].reg] = 1;
    return {};
  }
  return unsupported(in);
}

// ---- tensor memory --------------------------------------------------------------------------

Result<uint32_t*> tmem_word(Block& b, const Inst& in, uint32_t lane, uint32_t column) {
  if (b.tmem.empty()) return fail(in, "tensor memory used before tcgen05.alloc");
  if (lane >= kTmemLanes || column >= b.tmem_allocated)
    return fail(in, fmt::format("tensor memory lane {} column {} is outside the {} allocated "
                                "columns",
                                lane, column, b.tmem_allocated));
  return &b.tmem[size_t{lane} * kTmemColumns + column];
}

/// The 32-bit tensor memory address of an `[%r + off]` operand, the same in every thread.
Result<uint32_t> uniform_tmem_address(Block& b, const Inst& in, std::span<const uint32_t> threads,
                                      const Operand& op) {
  if (op.kind != Operand::kAddress || op.has_symbol) return unsupported(in);
  uint32_t first = 0;
  for (size_t i = 0; i < threads.size(); ++i) {
    SMCOMPAT_TRY(uint64_t a, address_of(b, in, threads[i], op, Space::kGeneric));
    auto v = static_cast<uint32_t>(a);
    if (i == 0)
      first = v;
    else if (v != first)
      return fail(in, "the tensor memory address differs between the threads of the warp");
  }
  return first;
}

Result<void> exec_alloc(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  const Operand* ops = operands_of(b, in);
  const bool alloc = in.has("alloc");
  if (in.count != 2 || !in.has("cta_group::1")) return unsupported(in);
  auto ncols = static_cast<uint32_t>(read_value(b, threads[0], ops[1], Type{'b', 32}));
  if (ncols < 32 || ncols > kTmemColumns || (ncols & (ncols - 1)))
    return fail(in, fmt::format("{} columns: must be a power of 2 in 32..512", ncols));
  if (alloc) {
    if (ops[0].kind != Operand::kAddress) return unsupported(in);
    if (b.tmem.empty()) b.tmem.assign(size_t{kTmemLanes} * kTmemColumns, 0);
    // Allocations are aligned to their size, one after another.
    uint32_t column = (b.tmem_allocated + ncols - 1) / ncols * ncols;
    if (column + ncols > kTmemColumns)
      return fail(in, fmt::format("tensor memory exhausted ({} columns allocated, {} more asked)",
                                  b.tmem_allocated, ncols));
    b.tmem_allocated = column + ncols;
    SMCOMPAT_TRY(uint64_t dst, address_of(b, in, threads[0], ops[0], in.space));
    uint32_t v = column;  // lane 0
    return access(b, in, threads[0], in.space, dst, &v, 4, true);
  }
  // dealloc: the last allocation returns its columns.
  auto addr = static_cast<uint32_t>(read_value(b, threads[0], ops[0], Type{'b', 32}));
  uint32_t column = addr & 0xffff;
  if (b.tmem.empty() || (addr >> 16) != 0 || column + ncols > b.tmem_allocated)
    return fail(
        in, fmt::format("dealloc of {} columns at 0x{:x}, which were not allocated", ncols, addr));
  if (column + ncols == b.tmem_allocated) b.tmem_allocated = column;
  return {};
}

Result<void> exec_ld_st(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  const bool load = in.has("ld");
  bool half_split = false, shape = false, pack = false;
  uint32_t num = 0;
  for (auto m : in.mods) {
    if (m == "ld" || m == "st" || m == "sync" || m == "aligned" || m == "b32") continue;
    if (m == "32x32b" || m == "16x32bx2") {
      shape = true;
      half_split = m == "16x32bx2";
    } else if (m == (load ? "pack::16b" : "unpack::16b")) {
      pack = true;
    } else if (m.size() > 1 && m[0] == 'x' &&
               m.substr(1).find_first_not_of("0123456789") == std::string_view::npos) {
      num = static_cast<uint32_t>(std::stoul(std::string(m.substr(1))));
    } else {
      return unsupported(in, "only the .32x32b and .16x32bx2 shapes are modelled");
    }
  }
  if (!shape || num == 0 || num > 128 || (num & (num - 1))) return unsupported(in);
  const Operand* ops = operands_of(b, in);
  const uint32_t want = half_split ? 3 : 2;
  if (in.count != want) return unsupported(in, "operand count");
  const Operand& addr_op = load ? ops[1] : ops[0];
  const Operand& regs_op = load ? ops[0] : ops[in.count - 1];
  std::vector<uint32_t> regs;
  if (!vector_regs(b, regs_op, regs) || regs.size() != num)
    return unsupported(in, fmt::format("the register list must have {} registers", num));
  uint32_t split = 0;
  if (half_split) {
    const Operand& imm = load ? ops[2] : ops[1];
    if (imm.kind != Operand::kImm) return unsupported(in, "immHalfSplitoff must be an immediate");
    split = static_cast<uint32_t>(imm.imm);
  }
  SMCOMPAT_TRY(uint32_t taddr, uniform_tmem_address(b, in, threads, addr_op));
  const uint32_t base_lane = taddr >> 16, base_col = taddr & 0xffff;
  const uint32_t warp = threads[0] / 32 % 4;
  for (uint32_t t : threads) {
    const uint32_t i = t % 32;
    const uint32_t lane = base_lane + (half_split ? i % 16 : i);
    const uint32_t col = base_col + (half_split && i >= 16 ? split : 0);
    if (lane / 32 != warp)
      return fail(in, fmt::format("warp {} of its warpgroup reaches tensor memory lanes {}..{}, "
                                  "not lane {}",
                                  warp, 32 * warp, 32 * warp + 31, lane));
    uint64_t* r = b.reg_base(t);
    for (uint32_t j = 0; j < num; ++j) {
      if (!pack) {
        SMCOMPAT_TRY(uint32_t * w, tmem_word(b, in, lane, col + j));
        if (load)
          r[regs[j]] = *w;
        else
          *w = static_cast<uint32_t>(r[regs[j]]);
        continue;
      }
      SMCOMPAT_TRY(uint32_t * lo, tmem_word(b, in, lane, col + 2 * j));
      SMCOMPAT_TRY(uint32_t * hi, tmem_word(b, in, lane, col + 2 * j + 1));
      if (load) {
        r[regs[j]] = (*lo & 0xffffu) | ((*hi & 0xffffu) << 16);
      } else {
        auto v = static_cast<uint32_t>(r[regs[j]]);
        *lo = v & 0xffffu;
        *hi = v >> 16;
      }
    }
  }
  return {};
}

Result<void> exec_elect(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  const Operand* ops = operands_of(b, in);
  if (in.count != 2 || !in.has("sync")) return unsupported(in);
  auto mask = static_cast<uint32_t>(read_value(b, threads[0], ops[1], Type{'b', 32}));
  uint32_t leader = UINT32_MAX;
  for (uint32_t t : threads)
    if (mask & (1u << (t % 32))) {
      leader = t;
      break;
    }
  if (leader == UINT32_MAX) return fail(in, "no thread of the member mask takes part");
  for (uint32_t t : threads) {
    uint64_t* r = b.reg_base(t);
    if (ops[0].kind == Operand::kReg) r[ops[0].reg] = leader % 32;
    if (ops[0].reg2 != UINT32_MAX) r[ops[0].reg2] = t == leader;
  }
  return {};
}

// ---- tcgen05.mma ----------------------------------------------------------------------------

/// The wgmma-style descriptor (swizzle in bits 62-63) for a tcgen05 shared memory descriptor.
Result<uint64_t> wgmma_style(uint64_t d) {
  if (((d >> 46) & 7) != 1) return make_error("bits 46-48 of the descriptor are not 0b001");
  if ((d >> 49) & 7) return make_error("a nonzero matrix base offset is not modelled");
  if ((d >> 52) & 1) return make_error("absolute leading-dimension addresses are not modelled");
  const unsigned mode = static_cast<unsigned>(d >> 61);
  if (mode & 1) return make_error(fmt::format("swizzle mode {} is not modelled", mode));
  return (d & ((uint64_t{1} << 46) - 1)) | (uint64_t{mode >> 1} << 62);
}

/// The tensor memory lane of row `row` of an M-row operand in data-path layout D or F.
Result<uint32_t> row_lane(const Inst& in, unsigned m, uint32_t base_lane, unsigned row) {
  if (m == 128) {
    if (base_lane != 0) return fail(in, "an M=128 operand must start at lane 0 (layout D)");
    return row;
  }
  if (base_lane != 0 && base_lane != 16)
    return fail(in, "an M=64 operand must start at lane 0 or 16 (layout F)");
  return base_lane + 32 * (row / 16) + row % 16;
}

Result<void> exec_mma(Block& b, uint32_t t, const Inst& in) {
  std::string_view kind;
  for (auto m : in.mods) {
    if (m == "mma" || m == "cta_group::1") continue;
    if (m.starts_with("kind::"))
      kind = m;
    else
      return unsupported(in, fmt::format(".{} is not modelled", m));
  }
  if (!in.has("cta_group::1") || kind.empty() || in.count != 5) return unsupported(in);
  const Operand* ops = operands_of(b, in);
  auto desc = decode_tcgen05_descriptor(
      static_cast<uint32_t>(read_value(b, t, ops[3], Type{'b', 32})), kind);
  if (!desc.ok()) return unsupported(in, desc.error().what);
  const Tcgen05MmaShape& md = *desc;
  auto kind_of = [](std::string_view ty) {
    return ty == "f16" ? 'f' : ty == "bf16" ? 'h' : ty == "tf32" ? 't' : ty == "e4m3" ? 'e' : 'm';
  };
  const char ak = kind_of(md.a), bk = kind_of(md.b);
  const bool enable_d = read_value(b, t, ops[4], Type{'p', 1}) != 0;
  std::array<uint32_t, 1> self{t};
  SMCOMPAT_TRY(uint32_t d_addr, uniform_tmem_address(b, in, self, ops[0]));
  const unsigned M = md.m, N = md.n, K = md.k;
  std::vector<double> A(size_t{M} * K), B(size_t{K} * N);
  const unsigned abits = element_bits(ak);
  if (ops[1].kind == Operand::kAddress) {
    if (md.mn_major_a) return fail(in, "A in tensor memory cannot be transposed");
    SMCOMPAT_TRY(uint32_t a_addr, uniform_tmem_address(b, in, self, ops[1]));
    const unsigned per_column = 32 / abits;
    for (unsigned m = 0; m < M; ++m) {
      SMCOMPAT_TRY(uint32_t lane, row_lane(in, M, a_addr >> 16, m));
      for (unsigned k = 0; k < K; ++k) {
        SMCOMPAT_TRY(uint32_t * w, tmem_word(b, in, lane, (a_addr & 0xffff) + k / per_column));
        A[m * K + k] = decode_element(static_cast<uint32_t>(*w >> (k % per_column * abits)) &
                                          static_cast<uint32_t>(mask_of(abits)),
                                      ak);
      }
    }
  } else {
    auto da = wgmma_style(read_value(b, t, ops[1], Type{'b', 64}));
    if (!da.ok()) return unsupported(in, "A: " + da.error().what);
    for (unsigned m = 0; m < M; ++m)
      for (unsigned k = 0; k < K; ++k) {
        SMCOMPAT_TRY(A[m * K + k], descriptor_element(b, in, t, *da, m, k, ak, md.mn_major_a));
      }
  }
  auto db = wgmma_style(read_value(b, t, ops[2], Type{'b', 64}));
  if (!db.ok()) return unsupported(in, "B: " + db.error().what);
  for (unsigned n = 0; n < N; ++n)
    for (unsigned k = 0; k < K; ++k) {
      SMCOMPAT_TRY(B[k * N + n], descriptor_element(b, in, t, *db, n, k, bk, md.mn_major_b));
    }
  const double sa = md.negate_a ? -1 : 1, sb = md.negate_b ? -1 : 1;
  for (unsigned m = 0; m < M; ++m) {
    SMCOMPAT_TRY(uint32_t lane, row_lane(in, M, d_addr >> 16, m));
    for (unsigned n = 0; n < N; ++n) {
      SMCOMPAT_TRY(uint32_t * w, tmem_word(b, in, lane, (d_addr & 0xffff) + n));
      double sum = 0;
      if (enable_d) sum = md.d_f32 ? as_float(*w) : decode_element(*w & 0xffffu, 'f');
      for (unsigned k = 0; k < K; ++k) sum += sa * A[m * K + k] * sb * B[k * N + n];
      *w = md.d_f32 ? float_bits(static_cast<float>(sum)) : f64_to_f16(sum);
    }
  }
  return {};
}

}  // namespace

Result<void> exec_warp_tcgen05(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  if (in.op == Op::kElect) return exec_elect(b, in, threads);
  if (threads.size() != 32) return unsupported(in, "the warp is not complete");
  if (in.has("alloc") || in.has("dealloc")) return exec_alloc(b, in, threads);
  if (in.has("relinquish_alloc_permit")) return {};
  if (in.has("ld") || in.has("st")) return exec_ld_st(b, in, threads);
  return unsupported(in);
}

Result<void> exec_thread_tcgen05(Block& b, uint32_t t, const Inst& in) {
  if (in.op == Op::kMbarrier) return exec_mbarrier(b, t, in);
  if (in.has("mma")) return exec_mma(b, t, in);
  if (in.has("commit")) {
    // The MMAs this thread issued have completed already: arrive once on the mbarrier.
    const Operand* ops = operands_of(b, in);
    if (!in.has("cta_group::1") || !in.has("mbarrier::arrive::one") || in.count != 1)
      return unsupported(in, "only the cta_group::1 mbarrier::arrive::one form is modelled");
    SMCOMPAT_TRY(uint64_t addr, mbarrier_address(b, in, t, ops[0]));
    SMCOMPAT_CHECK(arrive(b, in, t, addr, 1));
    return {};
  }
  // wait::ld / wait::st / fence::*: every tcgen05 operation completes at once here.
  for (auto m : in.mods)
    if (m == "wait::ld" || m == "wait::st" || m == "fence::before_thread_sync" ||
        m == "fence::after_thread_sync")
      return {};
  return unsupported(in);
}

Result<bool> mbarrier_blocks(Block& b, uint32_t t, const Inst& in) {
  if (in.op != Op::kMbarrier || !is_wait(in)) return false;
  SMCOMPAT_TRY(bool complete, wait_complete(b, t, in));
  return !complete;
}

}  // namespace smcompat::ptx::interp_detail
