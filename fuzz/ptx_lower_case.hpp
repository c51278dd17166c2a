// One random wgmma lowering case, shared by the fuzz target (fuzz/ptx_lower_fuzz.cpp) and the
// unit tests (tests/ptx/lower_interp_test.cpp): bytes choose the wgmma form (input type, N,
// accumulator, A from registers or a descriptor, transposes, negations, scale-d) and both
// descriptors' layouts (start offset, LBO, SBO, swizzle); a PTX kernel with that one wgmma is
// written, lowered for sm_120, and the original and the lowered kernel run in the reference
// interpreter on the same small-integer inputs. Any difference in the outputs, or an error from
// the lowering or the interpreter on a valid case, is a bug.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "smcompat/ptx/interp.hpp"
#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx::lower_case {

enum class Elem : uint8_t { kF16, kBF16, kTF32, kE4M3, kE5M2 };

// Bit patterns of small integers |v| < 16 (exact in every type here).
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline int exponent_of(int a) {
  int e = 0;
  while ((a >> (e + 1)) != 0) ++e;
  return e;
}
inline uint16_t f16_bits(int v) {
  if (v == 0) return 0;
  const int a = v < 0 ? -v : v, e = exponent_of(a);
  return static_cast<uint16_t>((v < 0 ? 0x8000 : 0) | ((e + 15) << 10) |
                               ((a - (1 << e)) << (10 - e)));
}
inline uint16_t bf16_bits(int v) {
  return static_cast<uint16_t>(f32_bits(static_cast<float>(v)) >> 16);
}
inline uint8_t fp8_bits(int v, Elem t) {
  if (v == 0) return 0;
  const int a = v < 0 ? -v : v, e = exponent_of(a);
  const int mant_bits = t == Elem::kE4M3 ? 3 : 2, bias = t == Elem::kE4M3 ? 7 : 15;
  return static_cast<uint8_t>((v < 0 ? 0x80 : 0) | ((e + bias) << mant_bits) |
                              ((a - (1 << e)) << (mant_bits - e)));
}

/// Fills `bytes` with random small integers (-3..3) of type `t`.
inline void fill(std::vector<uint8_t>& bytes, Elem t, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-3, 3);
  switch (t) {
    case Elem::kF16:
    case Elem::kBF16:
      for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
        const uint16_t b = t == Elem::kF16 ? f16_bits(dist(rng)) : bf16_bits(dist(rng));
        std::memcpy(&bytes[i], &b, 2);
      }
      break;
    case Elem::kTF32:
      for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
        const uint32_t b = f32_bits(static_cast<float>(dist(rng)));
        std::memcpy(&bytes[i], &b, 4);
      }
      break;
    default:
      for (auto& b : bytes) b = fp8_bits(dist(rng), t);
  }
}

/// A descriptor's layout: start offset in the 8 KiB buffer, LBO, SBO, swizzle mode.
struct Layout {
  uint32_t off = 0, lbo = 16, sbo = 16, mode = 0;
};

struct Case {
  Elem type = Elem::kF16;
  uint32_t n = 8;
  bool f16_accumulator = false;
  bool a_regs = false, trans_a = false, trans_b = false;
  bool negate_a = false, negate_b = false;
  int scale_d = 2;  // 0 or 1: immediate; 2: a predicate from the accumulate parameter
  int accumulate = 1;
  Layout a, b;
  uint32_t seed = 0;
};

inline const char* type_name(Elem t) {
  switch (t) {
    case Elem::kF16:
      return "f16";
    case Elem::kBF16:
      return "bf16";
    case Elem::kTF32:
      return "tf32";
    case Elem::kE4M3:
      return "e4m3";
    default:
      return "e5m2";
  }
}
inline bool sixteen_bit(Elem t) { return t == Elem::kF16 || t == Elem::kBF16; }
inline uint32_t k_of(Elem t) { return sixteen_bit(t) ? 16 : t == Elem::kTF32 ? 8 : 32; }
inline uint32_t d_regs(const Case& c) { return c.f16_accumulator ? c.n / 4 : c.n / 2; }

/// The highest byte an operand of `rows` rows (64 for A, N for B) can touch, plus one.
inline uint64_t extent(const Layout& l, uint32_t rows, bool mn_major) {
  const uint64_t w = l.mode == 0 ? 16 : 256u >> l.mode;  // bytes of one swizzle row
  if (!mn_major) {
    const uint64_t kst = l.mode == 0 ? l.lbo : 16;
    return l.off + uint64_t(rows / 8 - 1) * l.sbo + 7 * w + kst + 16;
  }
  const uint64_t mn_stride = l.mode == 0 ? l.sbo : l.lbo, k8_stride = l.mode == 0 ? l.lbo : l.sbo;
  return l.off + ((2 * uint64_t(rows) - 1) / w) * mn_stride + w + 7 * w + k8_stride;
}

/// A valid case from fuzz bytes, or nullopt (too few bytes, or a layout outside the buffers).
inline std::optional<Case> decode(const uint8_t* data, size_t size) {
  if (size < 12) return std::nullopt;
  Case c;
  c.type = static_cast<Elem>(data[0] % 5);
  c.n = 8 * (1 + data[1] % 32);
  const bool fp8 = c.type == Elem::kE4M3 || c.type == Elem::kE5M2;
  c.f16_accumulator = (data[2] & 1) && (c.type == Elem::kF16 || fp8);
  c.a_regs = data[2] & 2;
  c.trans_a = sixteen_bit(c.type) && !c.a_regs && (data[2] & 4);
  c.trans_b = sixteen_bit(c.type) && (data[2] & 8);
  c.negate_a = data[2] & 16;
  c.negate_b = data[2] & 32;
  c.scale_d = data[3] % 3;
  c.accumulate = (data[3] >> 2) & 1;
  auto layout = [&](const uint8_t* p) {
    Layout l;
    l.mode = p[0] % 4;
    l.off = 16 * (p[0] >> 2 & 7);
    l.lbo = 16 * (1 + p[1] % 128);
    l.sbo = 16 * (1 + p[2] % 128);
    return l;
  };
  c.a = layout(data + 4);
  c.b = layout(data + 7);
  c.seed = data[10] | (data[11] << 8);
  if ((!c.a_regs && extent(c.a, 64, c.trans_a) > 8192) || extent(c.b, c.n, c.trans_b) > 8192)
    return std::nullopt;
  return c;
}

/// The kernel: stage 8 KiB of A and of B into shared memory, build the descriptors from the
/// layout parameters and the buffers' addresses, load D (and A registers), one wgmma, store D.
inline std::string kernel_ptx(const Case& c) {
  const uint32_t nd = d_regs(c);
  const bool f32 = !c.f16_accumulator;
  std::string s;
  auto put = std::back_inserter(s);
  fmt::format_to(put,
                 ".version 8.0\n.target sm_90a\n.address_size 64\n"
                 ".visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, "
                 ".param .u64 p_ar, .param .u64 p_da, .param .u64 p_db, .param .u32 p_acc)\n{{\n"
                 "\t.reg .pred %p<3>;\n\t.reg .b32 %r<32>;\n\t.reg .b32 %ra<4>;\n"
                 "\t.reg .b64 %rd<32>;\n\t.reg .{} %d<{}>;\n"
                 "\t.shared .align 1024 .b8 sa[8192];\n\t.shared .align 1024 .b8 sb[8192];\n"
                 "\tld.param.u64 %rd1, [p_out];\n\tld.param.u64 %rd2, [p_a];\n"
                 "\tld.param.u64 %rd3, [p_b];\n\tld.param.u64 %rd4, [p_ar];\n"
                 "\tld.param.u32 %r20, [p_acc];\n\tsetp.ne.u32 %p2, %r20, 0;\n"
                 "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 0;\n"
                 "$stage:\n"
                 "\tmad.lo.u32 %r3, %r2, 128, %r1;\n\tshl.b32 %r4, %r3, 2;\n"
                 "\tcvt.u64.u32 %rd5, %r4;\n"
                 "\tadd.u64 %rd6, %rd2, %rd5;\n\tld.global.u32 %r5, [%rd6];\n"
                 "\tmov.u32 %r6, sa;\n\tadd.u32 %r7, %r6, %r4;\n\tst.shared.u32 [%r7], %r5;\n"
                 "\tadd.u64 %rd6, %rd3, %rd5;\n\tld.global.u32 %r5, [%rd6];\n"
                 "\tmov.u32 %r6, sb;\n\tadd.u32 %r7, %r6, %r4;\n\tst.shared.u32 [%r7], %r5;\n"
                 "\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 16;\n\t@%p1 bra $stage;\n"
                 "\tbar.sync 0;\n"
                 "\tld.param.u64 %rd10, [p_da];\n\tmov.u32 %r8, sa;\n\tshr.u32 %r8, %r8, 4;\n"
                 "\tcvt.u64.u32 %rd11, %r8;\n\tadd.u64 %rd10, %rd10, %rd11;\n"
                 "\tld.param.u64 %rd12, [p_db];\n\tmov.u32 %r8, sb;\n\tshr.u32 %r8, %r8, 4;\n"
                 "\tcvt.u64.u32 %rd13, %r8;\n\tadd.u64 %rd12, %rd12, %rd13;\n"
                 "\tmul.wide.u32 %rd14, %r1, {};\n\tadd.u64 %rd15, %rd1, %rd14;\n"
                 "\tmul.wide.u32 %rd16, %r1, 16;\n\tadd.u64 %rd17, %rd4, %rd16;\n",
                 f32 ? "f32" : "b32", nd, nd * 4);
  for (uint32_t i = 0; i < nd; ++i)
    fmt::format_to(put, "\tld.global.{} %d{}, [%rd15+{}];\n", f32 ? "f32" : "b32", i, 4 * i);
  for (uint32_t i = 0; i < 4; ++i)
    fmt::format_to(put, "\tld.global.b32 %ra{}, [%rd17+{}];\n", i, 4 * i);
  std::string d = "{";
  for (uint32_t i = 0; i < nd; ++i) d += fmt::format("{}%d{}", i ? ", " : "", i);
  d += "}";
  const char* t = type_name(c.type);
  std::string ops = fmt::format(
      "{}, {}, %rd12, {}, {}, {}", d, c.a_regs ? "{%ra0, %ra1, %ra2, %ra3}" : "%rd10",
      c.scale_d == 2 ? "%p2" : std::to_string(c.scale_d), c.negate_a ? -1 : 1, c.negate_b ? -1 : 1);
  if (sixteen_bit(c.type)) {
    if (!c.a_regs) ops += fmt::format(", {}", c.trans_a ? 1 : 0);
    ops += fmt::format(", {}", c.trans_b ? 1 : 0);
  }
  fmt::format_to(put,
                 "\twgmma.fence.sync.aligned;\n"
                 "\twgmma.mma_async.sync.aligned.m64n{}k{}.{}.{}.{} {};\n"
                 "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n",
                 c.n, k_of(c.type), c.f16_accumulator ? "f16" : "f32", t, t, ops);
  for (uint32_t i = 0; i < nd; ++i)
    fmt::format_to(put, "\tst.global.{} [%rd15+{}], %d{};\n", f32 ? "f32" : "b32", 4 * i, i);
  s += "\tret;\n}\n";
  return s;
}

inline uint64_t descriptor_bits(const Layout& l) {
  // The start address is added in the kernel; here the offset, LBO, SBO and swizzle.
  return uint64_t((l.off >> 4) & 0x3FFF) | (uint64_t((l.lbo >> 4) & 0x3FFF) << 16) |
         (uint64_t((l.sbo >> 4) & 0x3FFF) << 32) | (uint64_t(l.mode) << 62);
}

/// Runs `kernel` of `m` with one block of 128 threads: each of `inputs` copied into its own
/// buffer, whose addresses come first among the parameters, then `scalars`. Returns the first
/// buffer after the run (D), or the interpreter's error.
inline Result<std::vector<uint8_t>> run_on_buffers(
    const Module& m, std::string_view kernel,
    std::initializer_list<const std::vector<uint8_t>*> inputs,
    std::initializer_list<uint64_t> scalars) {
  InterpMemory mem;
  std::vector<uint64_t> params;
  for (const auto* in : inputs) {
    const uint64_t addr = mem.allocate(in->size());
    std::memcpy(mem.buffer(addr).data(), in->data(), in->size());
    params.push_back(addr);
  }
  params.insert(params.end(), scalars.begin(), scalars.end());
  InterpLaunch launch;
  launch.block = {128, 1, 1};
  SMCOMPAT_TRY(InterpStats stats, interpret_kernel(m, kernel, launch, params, mem));
  (void)stats;
  auto d = mem.buffer(params[0]);
  return std::vector<uint8_t>(d.begin(), d.end());
}

struct Outcome {
  std::string error;     ///< the lowering or the interpreter failed ("" if not)
  size_t words = 0;      ///< 32-bit outputs compared
  size_t differ = 0;     ///< of which differ
  size_t nonzero = 0;    ///< of the original's
  std::string original;  ///< the kernel (for reports)
};

/// Runs the case: original and lowered kernel on the same inputs.
inline Outcome run(const Case& c) {
  Outcome o;
  o.original = kernel_ptx(c);
  auto lowered = lower(o.original, *SmTarget::parse("sm_120"));
  if (!lowered.ok()) {
    o.error = "lower: " + lowered.error().to_string();
    return o;
  }
  if (!lowered->ok) {
    o.error = "lower refused: " +
              (lowered->blockers.empty() ? std::string("?") : lowered->blockers[0].reason);
    return o;
  }
  std::mt19937 rng(c.seed);
  std::vector<uint8_t> a(8192), b(8192), ar(128 * 16), d0(128 * 4 * d_regs(c));
  fill(a, c.type, rng);
  fill(b, c.type, rng);
  fill(ar, c.type, rng);
  fill(d0, c.f16_accumulator ? Elem::kF16 : Elem::kTF32, rng);
  std::vector<uint8_t> outs[2];
  const std::string* texts[2] = {&o.original, &lowered->text};
  for (int v = 0; v < 2; ++v) {
    auto m = parse_module(*texts[v]);
    if (!m.ok()) {
      o.error = "parse: " + m.error().to_string();
      return o;
    }
    auto r = run_on_buffers(
        *m, "k", {&d0, &a, &b, &ar},
        {descriptor_bits(c.a), descriptor_bits(c.b), static_cast<uint64_t>(c.accumulate)});
    if (!r.ok()) {
      o.error =
          (v ? "interpreter (lowered): " : "interpreter (original): ") + r.error().to_string();
      return o;
    }
    outs[v] = std::move(*r);
  }
  for (size_t j = 0; j + 3 < d0.size(); j += 4) {
    uint32_t w, g;
    std::memcpy(&w, &outs[0][j], 4);
    std::memcpy(&g, &outs[1][j], 4);
    ++o.words;
    o.differ += w != g;
    o.nonzero += w != 0;
  }
  return o;
}

}  // namespace smcompat::ptx::lower_case
