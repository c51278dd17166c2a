// wgmma → mma.sync lowering (include/smcompat/ptx/lower.hpp). Each wgmma.mma_async statement is
// replaced, in the original text, by a nested PTX block that decodes the descriptors, loads this
// thread's A/B fragments from shared memory and runs one mma.sync per 8 columns of N.
#include "smcompat/ptx/lower.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "lower_internal.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "text_edits.hpp"

namespace smcompat::ptx {
namespace {

using namespace lower_detail;

/// The replacement for one wgmma.mma_async, or why it is refused.
Result<Lowered> lower_wgmma(const Statement& st, const std::string_view* ops,
                            std::string_view indent, const SmTarget& to) {
  if (!st.guard.empty())
    return make_error(fmt::format("a guarded wgmma ('{}') is not lowered", st.guard));
  SMCOMPAT_TRY(WgmmaShape s, parse_wgmma_name(st.name));
  // mma.sync m16n8k16 f16/bf16 and m16n8k8 tf32 exist from sm_80, m16n8k32 e4m3/e5m2 from sm_89
  // (PTX ISA "Warp-level MMA instructions", target ISA notes).
  const int need = (s.in == InputType::kE4M3 || s.in == InputType::kE5M2) ? 89 : 80;
  if (to.arch < need)
    return make_error(fmt::format("{} has no mma.sync for .{} inputs (needs sm_{} or newer)",
                                  to.to_string(), s.atype, need));
  const uint32_t nops = st.operand_count;
  if (nops < 2) return make_error("too few operands");
  const bool a_regs = trim(ops[1]).starts_with("{");
  const uint32_t want = s.sixteen_bit() ? (a_regs ? 7u : 8u) : 6u;
  if (nops != want)
    return make_error(fmt::format("{} operands where the ISA form has {}", nops, want));
  auto d = vector_operand(ops[0]);
  const uint32_t d_regs = s.dtype == "f32" ? s.n / 2 : s.n / 4;
  if (!d || d->size() != d_regs) return make_error(fmt::format("D must list {} registers", d_regs));
  std::optional<std::vector<std::string_view>> a;
  if (a_regs) {
    a = vector_operand(ops[1]);
    if (!a || a->size() != 4) return make_error("A in registers must list 4 registers");
  }
  std::string_view scale_d = trim(ops[3]);
  auto imm = [&](uint32_t i) { return integer(ops[i]); };
  auto scale_a = imm(4), scale_b = imm(5);
  if (!scale_a || !scale_b || (*scale_a != 1 && *scale_a != -1) ||
      (*scale_b != 1 && *scale_b != -1))
    return make_error("imm-scale-a/imm-scale-b must be 1 or -1");
  bool trans_a = false, trans_b = false;
  if (s.sixteen_bit()) {
    auto tb = imm(nops - 1);
    auto ta = a_regs ? std::optional<int64_t>(0) : imm(nops - 2);
    if (!ta || !tb || *ta < 0 || *ta > 1 || *tb < 0 || *tb > 1)
      return make_error("imm-trans-a/imm-trans-b must be 0 or 1");
    trans_a = *ta == 1;
    trans_b = *tb == 1;
  }
  const uint32_t tiles = s.n / 8;

  FragmentEmitter e(std::string(indent) + "\t");
  std::string out = "{\n";
  out += fmt::format("{}\t// smcompat ptx lower: {} as {} x {} per warp\n", indent, st.name, tiles,
                     mma_name(s));
  e.declare(tiles);
  e.lane_setup();
  // The lane and the warp's 16 rows in the warpgroup (warps are numbered along the linear
  // thread index).
  e.line("mov.u32 %lw_x, %tid.x;");
  e.line("mov.u32 %lw_y, %tid.y;");
  e.line("mov.u32 %lw_z, %tid.z;");
  e.line("mov.u32 %lw_w, %ntid.y;");
  e.line("mad.lo.u32 %lw_y, %lw_z, %lw_w, %lw_y;");
  e.line("mov.u32 %lw_w, %ntid.x;");
  e.line("mad.lo.u32 %lw_x, %lw_y, %lw_w, %lw_x;");
  e.line("shr.u32 %lw_w, %lw_x, 5;");
  e.line("and.b32 %lw_w, %lw_w, 3;");

  // A: this warp's rows 16w+g and 16w+g+8.
  std::vector<std::string> a_frag(4);
  if (a_regs) {
    for (int i = 0; i < 4; ++i) {
      if (*scale_a == -1) {
        e.linef("xor.b32 %lw_fa{}, {}, {};", i, (*a)[i], sign_mask(s.in));
        a_frag[i] = fmt::format("%lw_fa{}", i);
      } else {
        a_frag[i] = std::string((*a)[i]);
      }
    }
  } else {
    e.decode_descriptor('a', trim(ops[1]), trans_a);
    e.load_a(trans_a);
    for (int i = 0; i < 4; ++i) {
      if (*scale_a == -1) e.linef("xor.b32 %lw_fa{0}, %lw_fa{0}, {1};", i, sign_mask(s.in));
      a_frag[i] = fmt::format("%lw_fa{}", i);
    }
  }

  // B: column n = 8j + g of every 8-column tile j.
  e.decode_descriptor('b', trim(ops[2]), trans_b);
  e.load_b(trans_b, tiles);
  if (*scale_b == -1)
    for (uint32_t i = 0; i < 2 * tiles; ++i)
      e.linef("xor.b32 %lw_fb{0}, %lw_fb{0}, {1};", i, sign_mask(s.in));

  // scale-d false: D = A*B (the accumulator starts from zero).
  auto scale_d_imm = integer(scale_d);
  if (scale_d_imm && *scale_d_imm == 0) {
    for (auto r : *d) e.linef("mov.b32 {}, 0;", r);
  } else if (!scale_d_imm) {
    for (auto r : *d) e.linef("@!{} mov.b32 {}, 0;", scale_d, r);
  }

  const std::string mma = mma_name(s);
  const uint32_t per_tile = s.dtype == "f32" ? 4 : 2;
  const std::string afr =
      fmt::format("{{{}, {}, {}, {}}}", a_frag[0], a_frag[1], a_frag[2], a_frag[3]);
  for (uint32_t j = 0; j < tiles; ++j) {
    std::string dl;
    for (uint32_t i = 0; i < per_tile; ++i) {
      if (i) dl += ", ";
      dl += (*d)[per_tile * j + i];
    }
    e.linef("{} {{{}}}, {}, {{%lw_fb{}, %lw_fb{}}}, {{{}}};", mma, dl, afr, 2 * j, 2 * j + 1, dl);
  }
  out += e.take();
  out += indent;
  out += "}";
  return Lowered{std::move(out), tiles};
}

/// Where a function's tensor memory goes: a static array first in the body when it fits in the
/// 48 KiB of static shared memory (kMaxStaticSharedBytes); else first in the dynamic shared memory,
/// the kernel's own
/// `.extern .shared` array moved up by as many bytes (its `mov` and `[sym+imm]` uses rewritten).
void place_tensor_memory(std::string_view text, const Module& m, const Function& f,
                         Tcgen05Context& tc, std::vector<TextEdit>& edits, LowerResult& res) {
  const uint64_t bytes = tc.shared_bytes();
  // The target's opt-in maximum per block, from the catalog (as `ptx check` uses it).
  const ArchInfo* arch = Catalog::builtin().arch(res.to.arch);
  const std::optional<uint64_t> block_limit = arch ? arch->smem_per_block_optin : std::nullopt;
  if (bytes <= kMaxStaticSharedBytes) {
    const size_t brace = text.find('{', f.span.begin);
    if (brace == std::string_view::npos || brace >= f.span.end) {
      tc.refusal = "the function has no body";
      return;
    }
    edits.push_back({static_cast<uint32_t>(brace + 1), static_cast<uint32_t>(brace + 1),
                     fmt::format("\n\t// smcompat ptx lower: tensor memory ({} columns x 128 "
                                 "lanes) in shared memory\n\t.shared .align 1024 .b8 {}[{}];",
                                 tc.columns, kTmemSymbol, bytes)});
    res.shared_added.push_back({std::string(f.name), bytes, false, block_limit});
    return;
  }
  std::vector<std::string_view> externs;
  for (const auto& v : m.variables)
    if (v.is_extern && v.space == ".shared") externs.push_back(v.name);
  const std::string too_big = fmt::format(
      "tensor memory of {} columns x 128 lanes needs {} bytes of shared memory, more than the {} "
      "bytes of static shared memory a kernel may declare",
      tc.columns, bytes, kMaxStaticSharedBytes);
  if (block_limit && bytes > *block_limit) {
    tc.refusal = fmt::format("{}, or than the {} bytes a block can have at all on {}", too_big,
                             *block_limit, res.to.to_string());
    return;
  }
  if (externs.size() != 1) {
    tc.refusal = too_big + ", and the kernel has no single `.extern .shared` array to put it in";
    return;
  }
  const std::string_view sym = externs[0];
  std::vector<TextEdit> uses;
  for (uint32_t si = f.first_statement; si < f.first_statement + f.statement_count; ++si) {
    const Statement& st = m.statements[si];
    if (st.kind != StatementKind::kInstruction) continue;
    const std::string_view* ops = m.operands_of(st);
    for (uint32_t i = 0; i < st.operand_count; ++i) {
      std::string_view op = trim(ops[i]);
      if (op.find(sym) == std::string_view::npos) continue;
      const std::string before(text.substr(st.span.begin, st.span.end - st.span.begin));
      if (i == 1 && op == sym && st.opcode() == "mov" && st.operand_count == 2) {
        const char* width = st.name.ends_with("64") ? "u64" : "u32";
        uses.push_back(
            {st.span.begin, st.span.end,
             fmt::format("{} {}{}add.{} {}, {}, {};", before, st.guard, st.guard.empty() ? "" : " ",
                         width, trim(ops[0]), trim(ops[0]), bytes)});
        continue;
      }
      auto at = op.size() > 2 && op.front() == '[' && op.back() == ']'
                    ? std::optional(trim(op.substr(1, op.size() - 2)))
                    : std::nullopt;
      std::optional<int64_t> offset;
      if (at && *at == sym) offset = 0;
      if (at && at->starts_with(sym) && at->size() > sym.size() &&
          trim(at->substr(sym.size())).starts_with("+"))
        offset = integer(trim(at->substr(sym.size())).substr(1));
      const bool second_use = !uses.empty() && uses.back().begin == st.span.begin;
      if (!offset || st.opcode() == "tcgen05" || second_use) {
        tc.refusal = fmt::format(
            "{}; it would go first in {}, but '{}' uses {} otherwise than "
            "`mov` or `[{}+offset]`",
            too_big, sym, before, sym, sym);
        return;
      }
      // The statement text with this operand's symbol moved up.
      const uint32_t op_begin = static_cast<uint32_t>(ops[i].data() - text.data()) - st.span.begin;
      std::string after = before;
      after.replace(op_begin, ops[i].size(),
                    fmt::format("[{}+{}]", sym, *offset + static_cast<int64_t>(bytes)));
      uses.push_back({st.span.begin, st.span.end, std::move(after)});
    }
  }
  tc.symbol = std::string(sym);
  tc.dynamic = true;
  for (auto& u : uses) edits.push_back(std::move(u));
  res.shared_added.push_back({std::string(f.name), bytes, true, block_limit});
}

}  // namespace

Result<LowerResult> lower(std::string_view text, const SmTarget& to_in, std::string_view kernel,
                          const FeatureTable& table) {
  SMCOMPAT_TRY(Module m, parse_module(text));
  LowerResult res;
  res.to = to_in;
  res.to.kind = ImageKind::kSass;
  std::vector<TextEdit> edits;
  if (!kernel.empty()) {
    const Function* k = m.find_function(kernel);
    if (!k || !k->is_entry || !k->has_body)
      return make_error(fmt::format("no kernel (.entry) named '{}'", kernel));
    // The other kernels are left out; .func helpers stay (the kernel may call them).
    for (const auto& f : m.functions)
      if (f.is_entry && f.has_body && f.name != kernel)
        edits.push_back(
            {f.span.begin, f.span.end,
             fmt::format("/* smcompat: kernel {} left out (--kernel {}) */", f.name, kernel)});
  }
  for (const auto& f : m.functions) {
    if (!kernel.empty() && f.is_entry && f.name != kernel) continue;
    std::optional<Tcgen05Context> tc;  // made at the function's first tcgen05 instruction
    for (uint32_t si = f.first_statement; si < f.first_statement + f.statement_count; ++si) {
      const Statement& st = m.statements[si];
      if (st.kind != StatementKind::kInstruction) continue;
      const std::string before(text.substr(st.span.begin, st.span.end - st.span.begin));
      if (st.opcode() == "tcgen05") {
        if (!tc) {
          tc = analyze_tcgen05(m, f);
          if (tc->refusal.empty()) place_tensor_memory(text, m, f, *tc, edits, res);
        }
        auto low =
            lower_tcgen05(st, m.operands_of(st), indent_of(text, st.span.begin), res.to, *tc);
        if (!low.ok()) {
          res.blockers.push_back({std::string(f.name), "tcgen05", st.loc,
                                  fmt::format("'{}' is not lowered: {}", before, low.error().what),
                                  "keep the sm_100a build for datacenter Blackwell; write or "
                                  "generate an mma.sync version of this kernel"});
          continue;
        }
        const bool removed = low->text.empty();
        const char* kind = st.name.starts_with("tcgen05.mma")      ? "tcgen05-mma"
                           : st.name.starts_with("tcgen05.commit") ? "tcgen05-commit"
                           : removed                               ? "tcgen05-sync"
                                                                   : "tcgen05-memory";
        edits.push_back(
            {st.span.begin, st.span.end, removed ? removed_comment(before) : std::move(low->text)});
        res.lowered.push_back({st.loc, std::string(f.name), before, kind, low->mma_count});
        continue;
      }
      if (st.opcode() != "wgmma") continue;
      if (st.name.starts_with("wgmma.mma_async")) {
        auto low = lower_wgmma(st, m.operands_of(st), indent_of(text, st.span.begin), res.to);
        if (!low.ok()) {
          res.blockers.push_back({std::string(f.name), "wgmma", st.loc,
                                  fmt::format("'{}' is not lowered: {}", before, low.error().what),
                                  "keep the sm_90a build for Hopper; write or generate an "
                                  "mma.sync version of this kernel"});
          continue;
        }
        edits.push_back({st.span.begin, st.span.end, std::move(low->text)});
        res.lowered.push_back({st.loc, std::string(f.name), before, "wgmma-mma", low->mma_count});
      } else if (st.name.starts_with("wgmma.fence") || st.name.starts_with("wgmma.commit_group") ||
                 st.name.starts_with("wgmma.wait_group")) {
        edits.push_back({st.span.begin, st.span.end, removed_comment(before)});
        res.lowered.push_back({st.loc, std::string(f.name), before, "wgmma-sync", 0});
      } else {
        res.blockers.push_back({std::string(f.name), "wgmma", st.loc,
                                fmt::format("'{}' has no lowering", before), ""});
      }
    }
  }
  if (!res.blockers.empty()) return res;
  const std::string lowered = apply_text_edits(text, edits);
  SMCOMPAT_TRY(RetargetResult rt, retarget(lowered, res.to, table));
  // Report retarget's findings where they are in the input: an offset in the lowered text maps
  // back through the edits (one inside an emitted block maps to the wgmma it replaced).
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  auto to_input = [&](SourceLoc loc) {
    if (loc.line == 0) return loc;
    int64_t delta = 0;
    uint64_t off = loc.offset;
    for (const auto& e : edits) {
      const int64_t new_begin = static_cast<int64_t>(e.begin) + delta;
      const int64_t new_end = new_begin + static_cast<int64_t>(e.replacement.size());
      if (static_cast<int64_t>(off) < new_begin) break;
      if (static_cast<int64_t>(off) < new_end) return locate(text, e.begin);
      delta += static_cast<int64_t>(e.replacement.size()) - (e.end - e.begin);
    }
    return locate(text, static_cast<uint64_t>(static_cast<int64_t>(off) - delta));
  };
  res.rewrites = std::move(rt.rewrites);
  res.blockers = std::move(rt.blockers);
  for (auto& w : res.rewrites) w.loc = to_input(w.loc);
  for (auto& b : res.blockers) b.loc = to_input(b.loc);
  if (!rt.ok) return res;
  res.ok = true;
  res.text = std::move(rt.text);
  return res;
}

}  // namespace smcompat::ptx
