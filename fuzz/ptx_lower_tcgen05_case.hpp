// One random tcgen05.mma lowering case, shared by the fuzz target (fuzz/ptx_lower_fuzz.cpp) and
// the unit tests (tests/ptx/lower_tcgen05_test.cpp): bytes choose the form (kind and types, M, N,
// the allocation, f16/f32 D, A from a descriptor or from tensor memory, K/MN-major, negations,
// enable-input-d, both descriptors' swizzle, LBO and SBO, layout F from lane 0 or 16). The kernel
// copies 32 KiB of made-up operands into shared memory, fills all of its tensor memory from
// global memory, runs two MMAs (the second accumulating) and dumps the tensor memory; it is
// lowered for sm_120 and the original and the lowered kernel run in the reference interpreter on
// the same inputs. Any difference, or an error from the lowering or the interpreter, is a bug.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx::tcgen05_case {

/// Bytes one form reads.
inline constexpr size_t kBytes = 19;

struct Form {
  std::string kind;  // "f16", "tf32", "f8f6f4"
  unsigned atype = 0, btype = 0, m = 64, n = 8, columns = 32, lane = 0, swizzle_a = 0,
           swizzle_b = 0;
  bool d_f32 = true, a_tmem = false, mn_a = false, mn_b = false, neg_a = false, neg_b = false,
       enable = true;
  uint64_t lbo_a = 16, sbo_a = 256, lbo_b = 16, sbo_b = 256;
};

inline std::string kernel_ptx(const Form& f) {
  const uint32_t idesc = (f.d_f32 ? 1u << 4 : 0u) | (f.atype << 7) | (f.btype << 10) |
                         (f.neg_a ? 1u << 13 : 0u) | (f.neg_b ? 1u << 14 : 0u) |
                         (f.mn_a ? 1u << 15 : 0u) | (f.mn_b ? 1u << 16 : 0u) | ((f.n >> 3) << 17) |
                         ((f.m >> 4) << 24);
  // Swizzle codes at bits 61-63: 0 none, 6 32 B, 4 64 B, 2 128 B. B's operands start at 16 KiB.
  auto desc = [](uint64_t start, uint64_t lbo, uint64_t sbo, unsigned swz) {
    return (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (uint64_t{1} << 46) |
           (uint64_t{swz} << 61);
  };
  const uint64_t da = desc(0, f.lbo_a, f.sbo_a, f.swizzle_a);
  const uint64_t db = desc(16384, f.lbo_b, f.sbo_b, f.swizzle_b);
  const unsigned a_col = f.columns - 16;  // two MMAs' A: 8 columns each
  std::string fill, dump;
  for (unsigned c = 0; c < f.columns; c += 8) {
    fill += fmt::format(
        "\tld.global.v4.b32 {{%v0, %v1, %v2, %v3}}, [%rd9+{0}];\n"
        "\tld.global.v4.b32 {{%v4, %v5, %v6, %v7}}, [%rd9+{1}];\n"
        "\ttcgen05.st.sync.aligned.32x32b.x8.b32 [%r9+{2}], {{%v0, %v1, %v2, %v3, %v4, %v5, %v6, "
        "%v7}};\n",
        4 * c, 4 * c + 16, c);
    dump += fmt::format(
        "\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {{%v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7}}, "
        "[%r9+{2}];\n"
        "\ttcgen05.wait::ld.sync.aligned;\n"
        "\tst.global.v4.b32 [%rd10+{0}], {{%v0, %v1, %v2, %v3}};\n"
        "\tst.global.v4.b32 [%rd10+{1}], {{%v4, %v5, %v6, %v7}};\n",
        4 * c, 4 * c + 16, c);
  }
  const std::string a_first = f.a_tmem ? "[%r13]" : "%rd7";
  const std::string a_second = f.a_tmem ? "[%r13+8]" : "%rd11";
  return fmt::format(R"(.version 8.7
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 dyn[];
.visible .entry k(.param .u64 in, .param .u64 dinit, .param .u64 out)
.reqntid 128
{{
	.reg .pred %p<8>;
	.reg .b32 %r<20>;
	.reg .b32 %v<8>;
	.reg .b64 %rd<16>;
	.shared .align 16 .b8 slots[16];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [dinit];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, dyn;
	mov.u32 %r3, %r1;
COPY:
	mul.wide.u32 %rd4, %r3, 16;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.v4.b32 {{%v0, %v1, %v2, %v3}}, [%rd5];
	shl.b32 %r4, %r3, 4;
	add.u32 %r5, %r2, %r4;
	st.shared.v4.b32 [%r5], {{%v0, %v1, %v2, %v3}};
	add.u32 %r3, %r3, 128;
	setp.lt.u32 %p1, %r3, 2048;
	@%p1 bra COPY;
	mov.u32 %r6, slots;
	setp.lt.u32 %p2, %r1, 32;
	@%p2 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r6], {columns};
	setp.eq.u32 %p3, %r1, 0;
	@%p3 mbarrier.init.shared::cta.b64 [%r6+8], 1;
	bar.sync 0;
	ld.shared.b32 %r7, [%r6];
	and.b32 %r8, %r1, 96;
	shl.b32 %r8, %r8, 16;
	add.u32 %r9, %r7, %r8;
	mul.wide.u32 %rd4, %r1, {row_bytes};
	add.s64 %rd9, %rd2, %rd4;
	add.s64 %rd10, %rd3, %rd4;
{fill}	tcgen05.wait::st.sync.aligned;
	bar.sync 0;
	shr.u32 %r10, %r2, 4;
	cvt.u64.u32 %rd6, %r10;
	mov.b64 %rd7, {da};
	add.s64 %rd7, %rd7, %rd6;
	mov.b64 %rd8, {db};
	add.s64 %rd8, %rd8, %rd6;
	add.s64 %rd11, %rd7, 2;
	add.s64 %rd12, %rd8, 2;
	mov.b32 %r11, {idesc};
	mov.pred %p4, {enable};
	mov.pred %p5, -1;
	add.u32 %r12, %r7, {d_lane};
	add.u32 %r13, %r7, {a_addr};
	shr.u32 %r14, %r1, 5;
	setp.ne.u32 %p6, %r14, 0;
	@%p6 bra AFTER;
	elect.sync %r15|%p7, -1;
	@%p7 tcgen05.mma.cta_group::1.kind::{kind} [%r12], {a_first}, %rd8, %r11, %p4;
	@%p7 tcgen05.mma.cta_group::1.kind::{kind} [%r12], {a_second}, %rd12, %r11, %p5;
	@%p7 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r6+8];
AFTER:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r6+8], 0;
	@!%p3 bra AFTER;
{dump}	bar.sync 0;
	@%p2 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, {columns};
	ret;
}}
)",
                     fmt::arg("columns", f.columns), fmt::arg("row_bytes", 4 * f.columns),
                     fmt::arg("fill", fill), fmt::arg("dump", dump), fmt::arg("da", da),
                     fmt::arg("db", db), fmt::arg("idesc", idesc),
                     fmt::arg("enable", f.enable ? -1 : 0), fmt::arg("d_lane", f.lane << 16),
                     fmt::arg("a_addr", (f.lane << 16) + a_col), fmt::arg("kind", f.kind),
                     fmt::arg("a_first", a_first), fmt::arg("a_second", a_second));
}

inline std::optional<Form> decode(const uint8_t* data, size_t size) {
  if (size < kBytes) return std::nullopt;
  size_t at = 0;
  auto pick = [&](unsigned n) { return static_cast<unsigned>(data[at++] % n); };
  Form f;
  const unsigned kind = pick(4);
  f.kind = kind < 2 ? "f16" : kind == 2 ? "tf32" : "f8f6f4";
  if (f.kind == "f16") {
    f.atype = f.btype = pick(2);
    f.d_f32 = f.atype == 1 || pick(2);
    f.mn_a = pick(3) == 0;
    f.mn_b = pick(3) == 0;
  } else if (f.kind == "tf32") {
    f.atype = f.btype = 2;
  } else {
    f.atype = pick(2);
    f.btype = pick(2);
    f.d_f32 = pick(2);
  }
  f.columns = 32u << pick(3);
  f.m = pick(2) ? 128 : 64;
  f.lane = f.m == 64 && pick(2) ? 16 : 0;
  f.a_tmem = !f.mn_a && pick(3) == 0;
  const unsigned room = f.columns - (f.a_tmem ? 16 : 0);
  const unsigned step = f.m == 128 ? 16 : 8;
  f.n = step * (1 + pick(std::min(room, 256u) / step));
  f.neg_a = pick(4) == 0;
  f.neg_b = pick(4) == 0;
  f.enable = pick(3) != 0;
  const unsigned codes[] = {0, 6, 4, 2};
  f.swizzle_a = codes[pick(4)];
  f.swizzle_b = codes[pick(4)];
  f.lbo_a = 16 * (1 + pick(32));
  f.sbo_a = 16 * (1 + pick(32));
  f.lbo_b = 16 * (1 + pick(32));
  f.sbo_b = 16 * (1 + pick(32));
  return f;
}

inline std::string describe(const Form& f) {
  return fmt::format(
      "kind::{} a{} b{} M={} N={} cols={} lane={} d_f32={} a_tmem={} mn={}{} "
      "neg={}{} swz={},{} lbo/sbo={}/{},{}/{} enable={}",
      f.kind, f.atype, f.btype, f.m, f.n, f.columns, f.lane, f.d_f32, f.a_tmem, f.mn_a, f.mn_b,
      f.neg_a, f.neg_b, f.swizzle_a, f.swizzle_b, f.lbo_a, f.sbo_a, f.lbo_b, f.sbo_b, f.enable);
}

/// The options that run a form's kernel (and its lowering) in the interpreter.
inline LowerVerifyOptions verify_options(const LowerResult& r) {
  LowerVerifyOptions o;
  o.buffer_bytes = 128 * 1024;
  o.dynamic_shared_bytes = 32 * 1024;  // the operands
  for (const auto& a : r.shared_added)
    if (a.dynamic) o.dynamic_shared_bytes += static_cast<uint32_t>(a.bytes);
  return o;
}

struct Outcome {
  std::string error;  ///< the lowering refused or failed, or the interpreter did not run it
  uint64_t compared = 0, differ = 0, written = 0;
};

inline Outcome run(const Form& f) {
  Outcome out;
  const std::string text = kernel_ptx(f);
  auto r = lower(text, *SmTarget::parse("sm_120"));
  if (!r.ok()) return {r.error().what};
  if (!r->ok) return {r->blockers.empty() ? "not lowered" : r->blockers[0].reason};
  const auto v = verify_lowering(text, r->text, verify_options(*r));
  if (v.size() != 1 || v[0].status == "not-run") return {v.empty() ? "no kernel" : v[0].reason};
  out.compared = v[0].bytes_compared;
  out.differ = v[0].differing_bytes;
  out.written = v[0].bytes_written;
  return out;
}

}  // namespace smcompat::ptx::tcgen05_case
