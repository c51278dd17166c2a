// PTX interpreter: the collective instructions (barriers, shfl.sync, vote.sync, mma.sync,
// ldmatrix/stmatrix, wgmma). Each runs once for its whole group, when every live thread of the
// group waits at it.
//
// Fragment layouts are implemented from PTX ISA 9.0:
//  - mma.sync: section "Matrix Fragments for mma.m16n8k16 with floating point type",
//    "... mma.m16n8k8" (f16 and .tf32) and "... mma.m16n8k32" (.e4m3/.e5m2), where for lane L
//    groupID = L >> 2 and threadID_in_group = L % 4.
//  - ldmatrix/stmatrix: section "Warp-level matrix load instruction: ldmatrix" (threads 8i..8i+7
//    give the row addresses of matrix i; each thread receives row groupID, columns
//    2*threadID_in_group and +1, or the transpose with .trans).
//  - wgmma: sections "Register Fragments" (matrix A in registers and accumulator D of
//    .m64nNk16/.m64nNk8/.m64nNk32: warp w of the warpgroup owns rows 16w..16w+15, laid out like the
//    mma.m16n8 fragments repeated every 8 columns) and "Shared Memory Matrix Layout" / "Matrix
//    Descriptor" (canonical K-major and MN-major layouts, LBO, SBO, swizzle modes).
// Products are summed in double from the exact inputs and rounded once to the accumulator type.
#include <cmath>

#include "interp_internal.hpp"

namespace smcompat::ptx::interp_detail {

const Operand* operands_of(const Block& b, const Inst& in) {
  return b.kernel->operands.data() + in.first;
}

/// Register slots of a `{...}` operand (all must be registers).
bool vector_regs(const Block& b, const Operand& op, std::vector<uint32_t>& out) {
  out.clear();
  if (op.kind == Operand::kReg) {
    out.push_back(op.reg);
    return true;
  }
  if (op.kind != Operand::kVector) return false;
  for (uint32_t i = 0; i < op.count; ++i) {
    const Operand& e = b.kernel->vector_items[op.first + i];
    if (e.kind != Operand::kReg) return false;
    out.push_back(e.reg);
  }
  return true;
}

Result<uint64_t> address_of(Block& b, const Inst& in, uint32_t t, const Operand& a, Space space) {
  if (a.kind != Operand::kAddress) return unsupported(in, "operand is not an address");
  uint64_t base = a.has_base_reg ? b.reg_base(t)[a.reg] : 0;
  if (a.has_symbol) {
    base = a.imm;
    if (space == Space::kGeneric && a.symbol_space == Space::kShared)
      base += kSharedWindow;
    else if (space != a.symbol_space)
      return unsupported(in, "variable of another state space");
  }
  uint64_t addr = base + static_cast<uint64_t>(a.offset);
  if (space == Space::kShared) addr &= 0xffffffffull;
  return addr;
}

double decode_element(uint32_t bits, char kind) {
  switch (kind) {
    case 'f':
      return as_float(f16_to_f32(static_cast<uint16_t>(bits)));
    case 'h':
      return as_float(bf16_to_f32(static_cast<uint16_t>(bits)));
    // .tf32 operands: the f32 bit pattern with its low 13 mantissa bits ignored.
    case 't':
      return as_float(bits & 0xffffe000u);
    case 'e':
      return e4m3_to_double(static_cast<uint8_t>(bits));
    case 'm':
      return e5m2_to_double(static_cast<uint8_t>(bits));
    default:
      return 0;
  }
}

unsigned element_bits(char kind) {
  return kind == 't' ? 32 : (kind == 'e' || kind == 'm') ? 8 : 16;
}

namespace {

// A-fragment coordinates (row within the 16-row slice, column k) of element i of a thread's A
// registers, for the 16-row mma/wgmma fragments. k = 16 bytes-per-row-pair shapes:
//   16-bit, K=16: row = g + 8*((i/2)%2), col = 2t + i%2 + 8*(i/4)       (a0..a7)
//   16-bit, K=8:  row = g + 8*(i/2),     col = 2t + i%2                  (a0..a3)
//   tf32,  K=8:   row = g + 8*(i%2),     col = t + 4*(i/2)               (a0..a3)
//   fp8,   K=32:  row = g + 8*((i/4)%2), col = 4t + i%4 + 16*(i/8)       (a0..a15)
void a_coord(char kind, unsigned k, unsigned lane, unsigned i, unsigned& row, unsigned& col) {
  unsigned g = lane >> 2, t = lane & 3;
  if (kind == 't') {
    row = g + 8 * (i % 2);
    col = t + 4 * (i / 2);
  } else if (kind == 'e' || kind == 'm') {
    row = g + 8 * ((i / 4) % 2);
    col = 4 * t + i % 4 + 16 * (i / 8);
  } else if (k == 16) {
    row = g + 8 * ((i / 2) % 2);
    col = 2 * t + i % 2 + 8 * (i / 4);
  } else {
    row = g + 8 * (i / 2);
    col = 2 * t + i % 2;
  }
}

// B-fragment coordinates (k, n) of element i of a thread's B registers (mma.m16n8):
//   16-bit, K=16: k = 2t + i%2 + 8*(i/2); K=8: k = 2t + i;  tf32: k = t + 4i;
//   fp8: k = 4t + i%4 + 16*(i/4);  n = g always.
void b_coord(char kind, unsigned k, unsigned lane, unsigned i, unsigned& kk, unsigned& n) {
  unsigned g = lane >> 2, t = lane & 3;
  n = g;
  if (kind == 't')
    kk = t + 4 * i;
  else if (kind == 'e' || kind == 'm')
    kk = 4 * t + i % 4 + 16 * (i / 4);
  else if (k == 16)
    kk = 2 * t + i % 2 + 8 * (i / 2);
  else
    kk = 2 * t + i;
}

// Accumulator coordinates of element i: row = g + 8*((i/2)%2), col = 8*(i/4) + 2t + i%2 (the
// mma.m16n8 C/D fragment for i < 4; wgmma repeats it for every 8 columns).
void d_coord(unsigned lane, unsigned i, unsigned& row, unsigned& col) {
  unsigned g = lane >> 2, t = lane & 3;
  row = g + 8 * ((i / 2) % 2);
  col = 8 * (i / 4) + 2 * t + i % 2;
}

struct Shape {
  unsigned m = 0, n = 0, k = 0;
};
bool parse_shape(std::string_view s, Shape& out) {
  if (s.size() < 6 || s[0] != 'm') return false;
  size_t np = s.find('n'), kp = s.find('k');
  if (np == std::string_view::npos || kp == std::string_view::npos || kp < np) return false;
  auto num = [](std::string_view v, unsigned& x) {
    if (v.empty() || v.size() > 4) return false;
    x = 0;
    for (char c : v) {
      if (c < '0' || c > '9') return false;
      x = x * 10 + (c - '0');
    }
    return true;
  };
  return num(s.substr(1, np - 1), out.m) && num(s.substr(np + 1, kp - np - 1), out.n) &&
         num(s.substr(kp + 1), out.k);
}

/// Element `i` (of `ebits` bits) packed into a thread's registers, low bits first.
uint32_t packed_element(const uint64_t* regs, const std::vector<uint32_t>& slots, unsigned i,
                        unsigned ebits) {
  unsigned per = 32 / ebits;
  auto word = static_cast<uint32_t>(regs[slots[i / per]]);
  return ebits == 32 ? word : (word >> (ebits * (i % per))) & ((1u << ebits) - 1);
}

// ---- mma.sync -------------------------------------------------------------------------------

Result<void> exec_mma(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  Shape sh;
  bool row = false, col = false;
  for (auto m : in.mods) {
    if (m == "row")
      row = true;
    else if (m == "col")
      col = true;
    else if (m == "sync" || m == "aligned" || parse_type(m).valid())
      continue;
    else if (!parse_shape(m, sh))
      return unsupported(in);
  }
  Type d = in.type, a = in.type2, bt = in.type3, c = in.type4;
  if (!row || !col || threads.size() != 32 || in.count != 4 || sh.m != 16 || sh.n != 8)
    return unsupported(in);
  bool half_in = (a.kind == 'f' && a.bits == 16) || a.kind == 'h';
  bool ok_types =
      ((half_in && (sh.k == 16 || sh.k == 8) && a.kind == bt.kind && a.bits == bt.bits) ||
       (a.kind == 't' && bt.kind == 't' && sh.k == 8) ||
       ((a.kind == 'e' || a.kind == 'm') && (bt.kind == 'e' || bt.kind == 'm') && sh.k == 32)) &&
      d.kind == 'f' && c.kind == 'f' && (d.bits == 32 || d.bits == 16) &&
      (c.bits == 32 || c.bits == 16) &&
      !(a.kind != 'f' && a.kind != 'e' && a.kind != 'm' && d.bits == 16);
  if (!ok_types) return unsupported(in);
  char ak = a.bits == 16 && a.kind == 'f' ? 'f' : a.kind;
  char bk = bt.bits == 16 && bt.kind == 'f' ? 'f' : bt.kind;
  unsigned ebits = element_bits(ak);
  unsigned a_elems = 16 * sh.k / 32, b_elems = 8 * sh.k / 32;
  unsigned a_regs = a_elems * ebits / 32, b_regs = b_elems * ebits / 32;
  unsigned d_regs = d.bits == 32 ? 4 : 2, c_regs = c.bits == 32 ? 4 : 2;
  const Operand* ops = operands_of(b, in);
  std::vector<uint32_t> dv, av, bv, cv;
  if (!vector_regs(b, ops[0], dv) || !vector_regs(b, ops[1], av) || !vector_regs(b, ops[2], bv) ||
      !vector_regs(b, ops[3], cv) || dv.size() != d_regs || av.size() != a_regs ||
      bv.size() != b_regs || cv.size() != c_regs)
    return unsupported(in, "fragment register count");
  double A[16][32], B[32][8], C[16][8];
  for (unsigned lane = 0; lane < 32; ++lane) {
    const uint64_t* r = b.reg_base(threads[lane]);
    for (unsigned i = 0; i < a_elems; ++i) {
      unsigned rr, cc;
      a_coord(ak, sh.k, lane, i, rr, cc);
      A[rr][cc] = decode_element(packed_element(r, av, i, ebits), ak);
    }
    for (unsigned i = 0; i < b_elems; ++i) {
      unsigned kk, n;
      b_coord(bk, sh.k, lane, i, kk, n);
      B[kk][n] = decode_element(packed_element(r, bv, i, ebits), bk);
    }
    for (unsigned i = 0; i < 4; ++i) {
      unsigned rr, cc;
      d_coord(lane, i, rr, cc);
      C[rr][cc] = c.bits == 32 ? as_float(packed_element(r, cv, i, 32))
                               : decode_element(packed_element(r, cv, i, 16), 'f');
    }
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    uint64_t* r = b.reg_base(threads[lane]);
    uint32_t out[4] = {};
    for (unsigned i = 0; i < 4; ++i) {
      unsigned rr, cc;
      d_coord(lane, i, rr, cc);
      double sum = C[rr][cc];
      for (unsigned kk = 0; kk < sh.k; ++kk) sum += A[rr][kk] * B[kk][cc];
      out[i] = d.bits == 32 ? float_bits(static_cast<float>(sum)) : f64_to_f16(sum);
    }
    if (d.bits == 32)
      for (unsigned i = 0; i < 4; ++i) r[dv[i]] = out[i];
    else
      for (unsigned i = 0; i < 2; ++i) r[dv[i]] = out[2 * i] | (out[2 * i + 1] << 16);
  }
  return {};
}

// ---- ldmatrix / stmatrix --------------------------------------------------------------------

Result<void> exec_ldst_matrix(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  bool load = in.op == Op::kLdmatrix;
  unsigned count = 0;
  bool trans = false, shape = false, b16 = false;
  for (auto m : in.mods) {
    if (m == "x1")
      count = 1;
    else if (m == "x2")
      count = 2;
    else if (m == "x4")
      count = 4;
    else if (m == "trans")
      trans = true;
    else if (m == "m8n8")
      shape = true;
    else if (m == "b16")
      b16 = true;
    else if (m == "sync" || m == "aligned" || m == "shared" || m == "shared::cta")
      continue;
    else
      return unsupported(in);
  }
  if (!count || !shape || !b16 || threads.size() != 32 || in.count != 2) return unsupported(in);
  const Operand* ops = operands_of(b, in);
  const Operand& regs_op = ops[load ? 0 : 1];
  const Operand& addr_op = ops[load ? 1 : 0];
  std::vector<uint32_t> regs;
  if (!vector_regs(b, regs_op, regs) || regs.size() != count) return unsupported(in);
  Space space = in.space == Space::kShared ? Space::kShared : Space::kGeneric;
  uint64_t rows[32];
  for (unsigned u = 0; u < 8 * count; ++u) {
    SMCOMPAT_TRY(rows[u], address_of(b, in, threads[u], addr_op, space));
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane & 3;
    uint64_t* r = b.reg_base(threads[lane]);
    for (unsigned i = 0; i < count; ++i) {
      // Without .trans lane L holds row g, columns 2t, 2t+1; with .trans it holds column g of
      // rows 2t and 2t+1 (ISA figures for ldmatrix .m8n8 with and without .trans).
      uint64_t at[2];
      if (!trans) {
        at[0] = rows[8 * i + g] + 4 * t;
        at[1] = at[0] + 2;
      } else {
        at[0] = rows[8 * i + 2 * t] + 2 * g;
        at[1] = rows[8 * i + 2 * t + 1] + 2 * g;
      }
      for (unsigned h = 0; h < 2; ++h) {
        uint16_t v = 0;
        if (load) {
          SMCOMPAT_CHECK(
              access(b, in, threads[8 * i + (trans ? 2 * t + h : g)], space, at[h], &v, 2, false));
          r[regs[i]] = (r[regs[i]] & (h ? 0xffffull : 0xffff0000ull)) | (uint64_t{v} << (16 * h));
        } else {
          v = static_cast<uint16_t>(r[regs[i]] >> (16 * h));
          SMCOMPAT_CHECK(
              access(b, in, threads[8 * i + (trans ? 2 * t + h : g)], space, at[h], &v, 2, true));
        }
      }
      if (load) r[regs[i]] &= 0xffffffffull;
    }
  }
  return {};
}

// ---- wgmma ----------------------------------------------------------------------------------

}  // namespace

/// Shared-memory byte address of element (mn, k) of a wgmma operand described by `desc`.
/// Canonical layouts (ISA "Shared Memory Matrix Layout"; restated in CUTLASS's
/// cute/arch/mma_sm90_desc.hpp comments), with T = 16 bytes and W the swizzle width:
///  K-major, no swizzle: 8x16-byte core matrices; rows 16 B apart, 8-row groups SBO apart, the two
///    16-byte K halves LBO apart.
///  K-major, W = 32/64/128: rows W bytes apart inside an 8-row swizzle atom, K bytes contiguous,
///    8-row groups SBO apart (LBO unused: one instruction's 32 bytes of K lie in one row).
///  MN-major, no swizzle: 16 bytes of MN contiguous per k row, k rows 16 B apart, 16-byte MN chunks
///    SBO apart, groups of 8 k LBO apart.
///  MN-major, W: W bytes of MN contiguous per k row, k rows W bytes apart, W-byte MN atoms LBO
///    apart, groups of 8 k SBO apart.
/// The swizzle XORs address bits [4, 4+s) with bits [7, 7+s), s = 1/2/3 for 32/64/128 B, on the
/// absolute shared address.
uint64_t descriptor_address(uint64_t desc, unsigned mn, unsigned k, unsigned ebytes,
                            bool mn_major) {
  uint64_t start = (desc & 0x3fff) << 4;
  uint64_t lbo = ((desc >> 16) & 0x3fff) << 4;
  uint64_t sbo = ((desc >> 32) & 0x3fff) << 4;
  unsigned mode = static_cast<unsigned>(desc >> 62);
  unsigned width = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
  unsigned sbits = mode == 1 ? 3 : mode == 2 ? 2 : mode == 3 ? 1 : 0;
  uint64_t addr;
  if (!mn_major) {
    uint64_t kb = uint64_t{k} * ebytes;
    if (width == 0)
      addr = start + (mn / 8) * sbo + (mn % 8) * 16 + (kb / 16) * lbo + kb % 16;
    else
      addr = start + (mn / 8) * sbo + (mn % 8) * width + kb;
  } else {
    uint64_t mb = uint64_t{mn} * ebytes;
    if (width == 0)
      addr = start + (mb / 16) * sbo + (k % 8) * 16 + (k / 8) * lbo + mb % 16;
    else
      addr = start + (mb / width) * lbo + mb % width + (k % 8) * width + (k / 8) * sbo;
  }
  if (sbits) addr ^= ((addr >> 7) & ((1u << sbits) - 1)) << 4;
  return addr;
}

Result<double> descriptor_element(Block& b, const Inst& in, uint32_t t, uint64_t desc, unsigned mn,
                                  unsigned k, char kind, bool mn_major) {
  unsigned ebytes = element_bits(kind) / 8;
  uint64_t addr = descriptor_address(desc, mn, k, ebytes, mn_major);
  uint32_t v = 0;
  SMCOMPAT_CHECK(access(b, in, t, Space::kShared, addr, &v, ebytes, false));
  return decode_element(v, kind);
}

namespace {

Result<void> exec_wgmma(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  Shape sh;
  for (auto m : in.mods) {
    if (m == "mma_async" || m == "sync" || m == "aligned" || parse_type(m).valid()) continue;
    if (!parse_shape(m, sh)) return unsupported(in);
  }
  Type d = in.type, a = in.type2, bt = in.type3;
  char ak = a.kind, bk = bt.kind;
  bool half = (ak == 'f' && a.bits == 16) || ak == 'h';
  bool fp8 = ak == 'e' || ak == 'm';
  bool types_ok =
      d.kind == 'f' && (d.bits == 32 || (d.bits == 16 && !(ak == 't'))) &&
      ((half && bk == ak && bt.bits == a.bits && sh.k == 16) ||
       (ak == 't' && bk == 't' && sh.k == 8) || (fp8 && (bk == 'e' || bk == 'm') && sh.k == 32));
  if (sh.m != 64 || sh.n < 8 || sh.n > 256 || sh.n % 8 || !types_ok) return unsupported(in);
  if (threads.size() != 128) return unsupported(in, "the warpgroup is not complete");
  if (in.count < 6) return unsupported(in, "operand count");
  const Operand* ops = operands_of(b, in);
  bool a_regs = ops[1].kind == Operand::kVector;
  unsigned expected = half ? (a_regs ? 7 : 8) : 6;
  if (in.count != expected) return unsupported(in, "operand count");
  auto imm = [&](uint32_t i, int64_t& v) {
    if (ops[i].kind != Operand::kImm) return false;
    v = sext(ops[i].imm, 64);
    return true;
  };
  int64_t scale_a = 1, scale_b = 1, trans_a = 0, trans_b = 0;
  if (!imm(4, scale_a) || !imm(5, scale_b) || (scale_a != 1 && scale_a != -1) ||
      (scale_b != 1 && scale_b != -1))
    return unsupported(in, "imm-scale-a/b must be 1 or -1");
  if (half) {
    if (!a_regs && !imm(6, trans_a)) return unsupported(in);
    if (!imm(a_regs ? 6 : 7, trans_b)) return unsupported(in);
    if ((trans_a != 0 && trans_a != 1) || (trans_b != 0 && trans_b != 1)) return unsupported(in);
  }
  unsigned d_regs = d.bits == 32 ? sh.n / 2 : sh.n / 4;
  std::vector<uint32_t> dv, av;
  if (!vector_regs(b, ops[0], dv) || dv.size() != d_regs)
    return unsupported(in, "accumulator register count");
  unsigned ebits = element_bits(ak);
  if (a_regs && (!vector_regs(b, ops[1], av) || av.size() != 4))
    return unsupported(in, "A register count");
  auto uniform = [&](const Operand& op, Type ty, uint64_t& out) -> Result<void> {
    if (op.kind != Operand::kReg && op.kind != Operand::kImm) return unsupported(in);
    out = read_value(b, threads[0], op, ty);
    for (uint32_t u : threads)
      if (read_value(b, u, op, ty) != out)
        return make_error(fmt::format("{}: {} operand differs between the threads of the warpgroup",
                                      where(in), in.st->name),
                          in.st->loc.offset);
    return {};
  };
  uint64_t desc_a = 0, desc_b = 0, scale_d = 0;
  SMCOMPAT_CHECK(uniform(ops[2], Type{'b', 64}, desc_b));
  if (!a_regs) SMCOMPAT_CHECK(uniform(ops[1], Type{'b', 64}, desc_a));
  SMCOMPAT_CHECK(uniform(ops[3], Type{'p', 1}, scale_d));
  for (uint64_t desc : {desc_a, desc_b})
    if ((desc >> 49) & 7) return unsupported(in, "matrix descriptor with a nonzero base offset");
  const unsigned M = 64, N = sh.n, K = sh.k;
  std::vector<double> A(M * K), B(K * N);
  for (unsigned w = 0; w < 4; ++w)
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint32_t t = threads[32 * w + lane];
      if (a_regs) {
        const uint64_t* r = b.reg_base(t);
        for (unsigned i = 0; i < 16 * K / 32; ++i) {
          unsigned rr, cc;
          a_coord(ak, K, lane, i, rr, cc);
          A[(16 * w + rr) * K + cc] = decode_element(packed_element(r, av, i, ebits), ak);
        }
      }
    }
  if (!a_regs)
    for (unsigned m = 0; m < M; ++m)
      for (unsigned k = 0; k < K; ++k) {
        SMCOMPAT_TRY(A[m * K + k],
                     descriptor_element(b, in, threads[0], desc_a, m, k, ak, trans_a != 0));
      }
  for (unsigned n = 0; n < N; ++n)
    for (unsigned k = 0; k < K; ++k) {
      SMCOMPAT_TRY(B[k * N + n],
                   descriptor_element(b, in, threads[0], desc_b, n, k, bk, trans_b != 0));
    }
  for (unsigned w = 0; w < 4; ++w)
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint64_t* r = b.reg_base(threads[32 * w + lane]);
      for (unsigned i = 0; i < N / 2; ++i) {
        unsigned rr, cc;
        d_coord(lane, i, rr, cc);
        unsigned m = 16 * w + rr;
        double sum = 0;
        if (scale_d)
          sum = d.bits == 32 ? as_float(static_cast<uint32_t>(r[dv[i]]))
                             : decode_element(packed_element(r, dv, i, 16), 'f');
        for (unsigned k = 0; k < K; ++k)
          sum += static_cast<double>(scale_a) * A[m * K + k] * static_cast<double>(scale_b) *
                 B[k * N + cc];
        if (d.bits == 32) {
          r[dv[i]] = float_bits(static_cast<float>(sum));
        } else {
          uint64_t h = f64_to_f16(sum);
          uint64_t& reg = r[dv[i / 2]];
          reg = i % 2 ? (reg & 0xffffull) | (h << 16) : (reg & 0xffff0000ull) | h;
        }
      }
    }
  return {};
}

// ---- shfl / vote / barriers -----------------------------------------------------------------

Result<void> exec_shfl(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  std::string_view mode;
  for (auto m : in.mods) {
    if (m == "up" || m == "down" || m == "bfly" || m == "idx")
      mode = m;
    else if (m != "sync" && m != "b32")
      return unsupported(in);
  }
  if (mode.empty() || in.count != 5 || !(in.type.kind == 'b' && in.type.bits == 32))
    return unsupported(in);
  const Operand* ops = operands_of(b, in);
  if (ops[0].kind != Operand::kReg) return unsupported(in);
  Type u32{'b', 32};
  uint32_t warp_base = threads[0] / 32 * 32;
  struct Out {
    uint32_t t;
    uint64_t v;
    bool p;
  };
  std::vector<Out> outs;
  for (uint32_t t : threads) {
    int lane = static_cast<int>(t % 32);
    auto bval = static_cast<int>(read_value(b, t, ops[2], u32) & 0x1f);
    auto c = static_cast<uint32_t>(read_value(b, t, ops[3], u32));
    int cval = static_cast<int>(c & 0x1f), segmask = static_cast<int>((c >> 8) & 0x1f);
    int max_lane = (lane & segmask) | (cval & ~segmask);
    int min_lane = lane & segmask;
    int j;
    bool pval;
    if (mode == "up") {
      j = lane - bval;
      pval = j >= max_lane;
    } else if (mode == "down") {
      j = lane + bval;
      pval = j <= max_lane;
    } else if (mode == "bfly") {
      j = lane ^ bval;
      pval = j <= max_lane;
    } else {
      j = min_lane | (bval & ~segmask);
      pval = j <= max_lane;
    }
    if (!pval) j = lane;
    uint32_t src = warp_base + static_cast<uint32_t>(j);
    if (src >= b.thread_count) src = t;
    outs.push_back({t, read_value(b, src, ops[1], u32) & 0xffffffffu, pval});
  }
  for (auto& o : outs) {
    b.reg_base(o.t)[ops[0].reg] = o.v;
    if (ops[0].reg2 != UINT32_MAX) b.reg_base(o.t)[ops[0].reg2] = o.p;
  }
  return {};
}

Result<void> exec_vote(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  std::string_view mode;
  for (auto m : in.mods) {
    if (m == "any" || m == "all" || m == "ballot" || m == "uni")
      mode = m;
    else if (m != "sync" && m != "pred" && m != "b32")
      return unsupported(in);
  }
  const Operand* ops = operands_of(b, in);
  if (mode.empty() || in.count != 3 || ops[0].kind != Operand::kReg) return unsupported(in);
  uint32_t ballot = 0;
  bool any = false, all = true;
  for (uint32_t t : threads) {
    uint32_t mask = static_cast<uint32_t>(read_value(b, t, ops[2], Type{'b', 32}));
    (void)mask;  // all live lanes take part; the lock-step model needs no membership test
    bool p = read_value(b, t, ops[1], Type{'p', 1}) != 0;
    if (p) ballot |= 1u << (t % 32);
    any |= p;
    all &= p;
  }
  for (uint32_t t : threads)
    b.reg_base(t)[ops[0].reg] = mode == "ballot" ? ballot
                                : mode == "any"  ? any
                                : mode == "all"  ? all
                                                 : (all || !any);
  return {};
}

}  // namespace

Result<void> execute_collective(Block& b, const Inst& in, std::span<const uint32_t> threads) {
  const Operand* ops = operands_of(b, in);
  switch (in.op) {
    case Op::kBar: {
      // Only the simple forms: `bar.sync 0`, `barrier.sync 0`, `barrier.sync.aligned 0`.
      for (auto m : in.mods)
        if (m != "sync" && m != "aligned" && m != "cta") return unsupported(in);
      if (!in.has("sync") || in.count != 1 || ops[0].kind != Operand::kImm)
        return unsupported(in, "only `bar.sync <id>` without a thread count");
      return {};
    }
    case Op::kBarWarp:
      if (in.count != 1) return unsupported(in);
      return {};
    case Op::kWgmmaNop:  // fence, commit_group, wait_group: wgmma completes at once
      if (in.has("fence") || in.has("commit_group") || in.has("wait_group")) return {};
      return unsupported(in);
    case Op::kShfl:
      return exec_shfl(b, in, threads);
    case Op::kVote:
      return exec_vote(b, in, threads);
    case Op::kMma:
      return exec_mma(b, in, threads);
    case Op::kLdmatrix:
    case Op::kStmatrix:
      return exec_ldst_matrix(b, in, threads);
    case Op::kWgmma:
      return exec_wgmma(b, in, threads);
    case Op::kElect:
    case Op::kTcgen05:
      return exec_warp_tcgen05(b, in, threads);
    default:
      return unsupported(in);
  }
}

}  // namespace smcompat::ptx::interp_detail
