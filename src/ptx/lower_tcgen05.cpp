// tcgen05 → mma.sync lowering (include/smcompat/ptx/lower.hpp). Tensor memory becomes a
// shared-memory array, `smcompat_tmem`: lane L, column C is the 32-bit word L * (columns + 1) + C
// (one column of padding so that the 32 lanes a warp reads at one column fall in 32 different
// banks). Each tcgen05 instruction becomes what it does to that array:
//  - tcgen05.alloc writes the address of column 0 (one allocation per kernel is lowered);
//    dealloc, relinquish_alloc_permit, wait::ld/st and fence::* are removed (shared-memory loads
//    and stores complete in order for their thread; bar.sync still orders the threads);
//  - tcgen05.ld/st (.32x32b, .16x32bx2, .pack::16b/.unpack::16b) become ld/st.shared of the
//    same words, with the thread-to-lane mapping of the ISA's matrix-fragment figures;
//  - tcgen05.mma, issued by one elect.sync-chosen thread, is run by that thread's whole warp:
//    for each 16-row block of M and 8-column tile of N one mma.sync, its C fragment read from and
//    written back to the array at the rows' lanes (data-path layout D for M = 128, F for M = 64),
//    A and B loaded with ldmatrix from the shared-memory descriptors (decoded at run time as for
//    wgmma: tcgen05's swizzle codes 2/4/6 at bits 61-63 are wgmma's 1/2/3 at bits 62-63) or A read
//    from the array;
//  - tcgen05.commit becomes bar.warp.sync (the warp's stores are done) and mbarrier.arrive by the
//    committing thread: the MMAs it tracks have completed.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lower_internal.hpp"
#include "tcgen05_descriptor.hpp"

namespace smcompat::ptx::lower_detail {
namespace {

/// "[ %r48 + 8 ]" → {"%r48", 8}.
std::optional<std::pair<std::string, int64_t>> register_plus_offset(std::string_view op) {
  op = trim(op);
  if (op.size() < 3 || op.front() != '[' || op.back() != ']') return std::nullopt;
  op = trim(op.substr(1, op.size() - 2));
  size_t plus = op.find('+');
  std::string_view reg = trim(op.substr(0, plus));
  if (reg.empty() || reg[0] != '%') return std::nullopt;
  int64_t off = 0;
  if (plus != std::string_view::npos) {
    auto v = integer(op.substr(plus + 1));
    if (!v) return std::nullopt;
    off = *v;
  }
  return std::pair{std::string(reg), off};
}

/// "%p" → "!%p", "!%p" → "%p": the complement of a predicate operand.
std::string negated(std::string_view pred) {
  if (!pred.empty() && pred[0] == '!') return std::string(pred.substr(1));
  return "!" + std::string(pred);
}

/// Decodes a tcgen05 shared-memory descriptor with the wgmma decoder (tcgen05's swizzle codes
/// 2/4/6 at bits 61-63 read as wgmma's 1/2/3 at bits 62-63). The forms wgmma lacks, 128 B swizzle
/// with 32 B atoms (bit 61) and absolute leading-dimension addresses (bit 52), would be misread:
/// they trap instead.
void decode_smem_descriptor(FragmentEmitter& e, char p, std::string_view op, bool mn_major) {
  e.decode_descriptor(p, op, mn_major);
  e.line("and.b32 %lt_v, %lw_y, 538968064;");  // bits 29 and 20 of the high word
  e.line("setp.ne.u32 %lt_p, %lt_v, 0;");
  e.line("@%lt_p trap;");
}

/// Whether `st`'s guard is a predicate that holds in one elect.sync-chosen thread at most.
bool issued_by_elected_thread(const Statement& st, const Tcgen05Context& cx) {
  return !st.guard.empty() && cx.elected.contains(std::string(trim(st.guard.substr(1))));
}

/// Into `dst`, the byte address in smcompat_tmem of tensor-memory address `reg + off` moved by
/// `lane_reg` lanes and `col_reg` columns (registers, or empty for none).
void tmem_to_shared(FragmentEmitter& e, const Tcgen05Context& cx, const std::string& reg,
                    int64_t off, std::string_view lane_reg, std::string_view col_reg,
                    std::string_view dst) {
  e.linef("add.u32 %lt_a, {}, {};", reg, off);
  e.line("shr.u32 %lt_l, %lt_a, 16;");
  e.line("and.b32 %lt_a, %lt_a, 65535;");
  if (!lane_reg.empty()) e.linef("add.u32 %lt_l, %lt_l, {};", lane_reg);
  if (!col_reg.empty()) e.linef("add.u32 %lt_a, %lt_a, {};", col_reg);
  e.linef("mad.lo.u32 %lt_a, %lt_l, {}, %lt_a;", cx.pitch());
  e.linef("mov.u32 %lt_l, {};", cx.symbol);
  e.linef("mad.lo.u32 {}, %lt_a, 4, %lt_l;", dst);
}

std::string open_block(std::string_view indent, std::string_view what) {
  return fmt::format("{{\n{}\t// smcompat ptx lower: {}\n", indent, what);
}

Result<Lowered> lower_ld_st(const Statement& st, const std::string_view* ops,
                            std::string_view indent, const Tcgen05Context& cx) {
  const bool load = st.name.starts_with("tcgen05.ld");
  bool half_split = false, shape = false, pack = false;
  uint32_t num = 0;
  for (auto m : split(st.name, '.')) {
    if (m == "tcgen05" || m == "ld" || m == "st" || m == "sync" || m == "aligned" || m == "b32")
      continue;
    if (m == "32x32b" || m == "16x32bx2") {
      shape = true;
      half_split = m == "16x32bx2";
    } else if (m == (load ? "pack::16b" : "unpack::16b")) {
      pack = true;
    } else if (m.size() > 1 && m[0] == 'x' && integer(m.substr(1))) {
      num = static_cast<uint32_t>(*integer(m.substr(1)));
    } else {
      return make_error(fmt::format(".{} is not lowered (shapes .32x32b and .16x32bx2 are)", m));
    }
  }
  if (!shape || num == 0 || num > 128) return make_error("no shape or .num");
  const uint32_t want = half_split ? 3 : 2;
  if (st.operand_count != want)
    return make_error(fmt::format("{} operands where the ISA form has {}", st.operand_count, want));
  auto addr = register_plus_offset(load ? ops[1] : ops[0]);
  auto regs = vector_operand(load ? ops[0] : ops[want - 1]);
  if (!addr) return make_error("the tensor memory address is not [register + offset]");
  if (!regs || regs->size() != num)
    return make_error(fmt::format("the register list must have {} registers", num));
  int64_t split_cols = 0;
  if (half_split) {
    auto v = integer(load ? ops[2] : ops[1]);
    if (!v) return make_error("immHalfSplitoff is not an immediate");
    split_cols = *v;
  }
  FragmentEmitter e(std::string(indent) + "\t");
  e.line(".reg .b32 %lt_a, %lt_l, %lt_x, %lt_v, %lt_i, %lt_dl, %lt_dc;");
  e.line(".reg .pred %lt_p;");
  if (pack) e.line(".reg .b16 %lt_h0, %lt_h1;");
  e.line("mov.u32 %lt_i, %laneid;");
  if (half_split) {
    // Threads 0-15 reach lanes +0..15 at the address's column, threads 16-31 the same lanes
    // immHalfSplitoff columns further.
    e.line("and.b32 %lt_dl, %lt_i, 15;");
    e.line("setp.ge.u32 %lt_p, %lt_i, 16;");
    e.linef("selp.u32 %lt_dc, {}, 0, %lt_p;", split_cols);
  } else {
    e.line("mov.u32 %lt_dl, %lt_i;");
    e.line("mov.u32 %lt_dc, 0;");
  }
  tmem_to_shared(e, cx, addr->first, addr->second, "%lt_dl", "%lt_dc", "%lt_x");
  const std::string g = st.guard.empty() ? "" : std::string(st.guard) + " ";
  for (uint32_t j = 0; j < num; ++j) {
    const std::string_view r = (*regs)[j];
    if (!pack) {
      if (load)
        e.linef("{}ld.shared.b32 {}, [%lt_x+{}];", g, r, 4 * j);
      else
        e.linef("{}st.shared.b32 [%lt_x+{}], {};", g, 4 * j, r);
      continue;
    }
    // Register j holds the low halves of columns 2j (low) and 2j+1 (high).
    if (load) {
      e.linef("{}ld.shared.b16 %lt_h0, [%lt_x+{}];", g, 8 * j);
      e.linef("{}ld.shared.b16 %lt_h1, [%lt_x+{}];", g, 8 * j + 4);
      e.linef("{}mov.b32 {}, {{%lt_h0, %lt_h1}};", g, r);
    } else {
      e.linef("and.b32 %lt_v, {}, 65535;", r);
      e.linef("{}st.shared.b32 [%lt_x+{}], %lt_v;", g, 8 * j);
      e.linef("shr.u32 %lt_v, {}, 16;", r);
      e.linef("{}st.shared.b32 [%lt_x+{}], %lt_v;", g, 8 * j + 4);
    }
  }
  std::string out = open_block(indent, fmt::format("{} on smcompat_tmem", st.name));
  out += e.take();
  out += indent;
  out += "}";
  return Lowered{std::move(out), 0};
}

/// The value of the instruction descriptor register: its one definition must be a `mov` of an
/// immediate (compilers build it as a constant).
Result<uint32_t> constant_descriptor(std::string_view op, const Tcgen05Context& cx) {
  op = trim(op);
  if (auto v = integer(op)) return static_cast<uint32_t>(*v);
  auto it = cx.constants.find(std::string(op));
  if (it == cx.constants.end())
    return make_error(
        fmt::format("the instruction descriptor {} is not a constant (one mov of an "
                    "immediate in the function)",
                    op));
  return it->second;
}

Result<Lowered> lower_mma(const Statement& st, const std::string_view* ops, std::string_view indent,
                          const SmTarget& to, Tcgen05Context& cx) {
  std::string_view kind;
  for (auto m : split(st.name, '.')) {
    if (m == "tcgen05" || m == "mma" || m == "cta_group::1") continue;
    if (m.starts_with("kind::") && kind.empty())
      kind = m;
    else
      return make_error(
          fmt::format(".{} is not lowered (only dense cta_group::1 MMAs of "
                      "kind::f16, kind::tf32 and kind::f8f6f4 are)",
                      m));
  }
  if (kind.empty()) return make_error("no .kind");
  if (st.operand_count != 5)
    return make_error(
        fmt::format("{} operands: only [d], a, b-desc, idesc, enable-input-d "
                    "(no disable-output-lane or scale-input-d) is lowered",
                    st.operand_count));
  SMCOMPAT_TRY(uint32_t idesc, constant_descriptor(ops[3], cx));
  auto shape = decode_tcgen05_descriptor(idesc, kind);
  if (!shape.ok()) return make_error("instruction descriptor: " + shape.error().what);
  const Tcgen05MmaShape& s = *shape;
  if (!issued_by_elected_thread(st, cx))
    return make_error(
        "not issued under an elect.sync predicate: which warp would run it is unknown");
  const bool fp8 = s.a == "e4m3" || s.a == "e5m2";
  if (to.arch < (fp8 ? 89 : 80))
    return make_error(fmt::format("{} has no mma.sync for .{} inputs", to.to_string(), s.a));
  const bool sixteen = s.a == "f16" || s.a == "bf16";
  if ((s.mn_major_a || s.mn_major_b) && !sixteen)
    return make_error("MN-major (transposed) operands are lowered for 16-bit types only");
  auto d_addr = register_plus_offset(ops[0]);
  if (!d_addr) return make_error("the D address is not [register + offset]");
  const bool a_tmem = trim(ops[1]).starts_with("[");
  std::optional<std::pair<std::string, int64_t>> a_addr;
  if (a_tmem) {
    a_addr = register_plus_offset(ops[1]);
    if (!a_addr) return make_error("the A tensor memory address is not [register + offset]");
    if (s.mn_major_a) return make_error("A in tensor memory with the transpose bit");
  }
  std::string_view enable = trim(ops[4]);

  WgmmaShape ws;
  ws.n = s.n;
  ws.k = s.k;
  ws.dtype = s.d_f32 ? "f32" : "f16";
  ws.atype = std::string(s.a);
  ws.btype = std::string(s.b);
  ws.in = *input_type(s.a);
  const uint32_t tiles = s.n / 8, blocks = s.m / 16;
  // Lanes between 16-row blocks: 32 in layout F (M = 64: 16 of each 32 lanes), 16 in D.
  const uint32_t block_lanes = s.m == 64 ? 32 : 16;
  const uint32_t pitch_bytes = 4 * cx.pitch();

  FragmentEmitter e(std::string(indent) + "\t");
  e.declare(tiles);
  e.line(".reg .b32 %lt_a, %lt_l, %lt_x, %lt_v, %lt_d, %lt_ab, %lt_c<4>;");
  e.line(".reg .b16 %lt_h0, %lt_h1;");
  e.line(".reg .pred %lt_go, %lt_p;");
  const std::string skip = fmt::format("$smcompat_tc{}", cx.labels++);
  // The warp of the elected thread runs the MMA; every other warp skips it.
  e.linef("vote.sync.any.pred %lt_go, {}, -1;", trim(st.guard.substr(1)));
  e.linef("@!%lt_go bra {};", skip);
  e.lane_setup();
  // This thread's C fragment: rows g and g+8, columns 2q and 2q+1 of each 16x8 tile.
  e.line("shr.u32 %lt_v, %lw_lane, 2;");
  e.line("and.b32 %lw_t, %lw_lane, 3;");
  e.line("shl.b32 %lt_x, %lw_t, 1;");
  tmem_to_shared(e, cx, d_addr->first, d_addr->second, "%lt_v", "%lt_x", "%lt_d");
  if (a_tmem) {
    // A fragment register r: row g + 8*(r&1), column q + 4*(r>>1) of the 16-row block (every
    // type packs the 4 bytes a register holds into one column).
    e.line("shr.u32 %lt_v, %lw_lane, 2;");
    tmem_to_shared(e, cx, a_addr->first, a_addr->second, "%lt_v", "%lw_t", "%lt_ab");
  } else {
    decode_smem_descriptor(e, 'a', trim(ops[1]), s.mn_major_a);
  }
  decode_smem_descriptor(e, 'b', trim(ops[2]), s.mn_major_b);
  e.load_b(s.mn_major_b, tiles);
  if (s.negate_b)
    for (uint32_t i = 0; i < 2 * tiles; ++i)
      e.linef("xor.b32 %lw_fb{0}, %lw_fb{0}, {1};", i, sign_mask(ws.in));
  const auto enable_imm = integer(enable);
  const std::string mma = mma_name(ws);
  for (uint32_t t = 0; t < blocks; ++t) {
    const uint32_t row0 = t * block_lanes * pitch_bytes;
    if (a_tmem) {
      for (uint32_t r = 0; r < 4; ++r)
        e.linef("ld.shared.b32 %lw_fa{}, [%lt_ab+{}];", r,
                row0 + (r & 1) * 8 * pitch_bytes + (r >> 1) * 16);
    } else {
      e.linef("mov.u32 %lw_w, {};", t);
      e.load_a(s.mn_major_a);
    }
    if (s.negate_a)
      for (int i = 0; i < 4; ++i)
        e.linef("xor.b32 %lw_fa{0}, %lw_fa{0}, {1};", i, sign_mask(ws.in));
    for (uint32_t j = 0; j < tiles; ++j) {
      const uint32_t at = row0 + 32 * j;  // column 8j
      const uint32_t below = at + 8 * pitch_bytes;
      const bool zero = enable_imm && *enable_imm == 0;
      if (s.d_f32) {
        if (!zero) {
          e.linef("ld.shared.b32 %lt_c0, [%lt_d+{}];", at);
          e.linef("ld.shared.b32 %lt_c1, [%lt_d+{}];", at + 4);
          e.linef("ld.shared.b32 %lt_c2, [%lt_d+{}];", below);
          e.linef("ld.shared.b32 %lt_c3, [%lt_d+{}];", below + 4);
        }
      } else if (!zero) {
        // f16 D: one element in the low half of each word (ISA "Packing format for matrix D").
        for (uint32_t h = 0; h < 2; ++h) {
          const uint32_t base = h ? below : at;
          e.linef("ld.shared.b16 %lt_h0, [%lt_d+{}];", base);
          e.linef("ld.shared.b16 %lt_h1, [%lt_d+{}];", base + 4);
          e.linef("mov.b32 %lt_c{}, {{%lt_h0, %lt_h1}};", h);
        }
      }
      const uint32_t nc = s.d_f32 ? 4 : 2;
      for (uint32_t i = 0; i < nc; ++i) {
        if (zero)
          e.linef("mov.b32 %lt_c{}, 0;", i);
        else if (!enable_imm)
          e.linef("@{} mov.b32 %lt_c{}, 0;", negated(enable), i);
      }
      const std::string c =
          s.d_f32 ? "{%lt_c0, %lt_c1, %lt_c2, %lt_c3}" : std::string("{%lt_c0, %lt_c1}");
      e.linef("{} {}, {{%lw_fa0, %lw_fa1, %lw_fa2, %lw_fa3}}, {{%lw_fb{}, %lw_fb{}}}, {};", mma, c,
              2 * j, 2 * j + 1, c);
      if (s.d_f32) {
        e.linef("st.shared.b32 [%lt_d+{}], %lt_c0;", at);
        e.linef("st.shared.b32 [%lt_d+{}], %lt_c1;", at + 4);
        e.linef("st.shared.b32 [%lt_d+{}], %lt_c2;", below);
        e.linef("st.shared.b32 [%lt_d+{}], %lt_c3;", below + 4);
      } else {
        for (uint32_t h = 0; h < 2; ++h) {
          const uint32_t base = h ? below : at;
          e.linef("mov.b32 {{%lt_h0, %lt_h1}}, %lt_c{};", h);
          e.line("cvt.u32.u16 %lt_v, %lt_h0;");
          e.linef("st.shared.b32 [%lt_d+{}], %lt_v;", base);
          e.line("cvt.u32.u16 %lt_v, %lt_h1;");
          e.linef("st.shared.b32 [%lt_d+{}], %lt_v;", base + 4);
        }
      }
    }
  }
  std::string out =
      open_block(indent, fmt::format("{} (M={} N={} K={}) as {} x {} by the issuing warp", st.name,
                                     s.m, s.n, s.k, blocks * tiles, mma));
  out += e.take();
  out += fmt::format("{}{}:\n{}}}", indent, skip, indent);
  return Lowered{std::move(out), blocks * tiles};
}

Result<Lowered> lower_commit(const Statement& st, const std::string_view* ops,
                             std::string_view indent, const Tcgen05Context& cx) {
  if (st.name != "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64" &&
      st.name != "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64")
    return make_error("only the cta_group::1 mbarrier::arrive::one form (no multicast) is lowered");
  if (st.operand_count != 1) return make_error("one mbarrier operand expected");
  if (!issued_by_elected_thread(st, cx))
    return make_error("not issued under an elect.sync predicate");
  std::string out = open_block(indent, fmt::format("{}: the MMAs it tracks are done", st.name));
  out += fmt::format("{0}\t.reg .b64 %lt_state;\n{0}\tbar.warp.sync -1;\n", indent);
  out += fmt::format("{}\t{} mbarrier.arrive.shared::cta.b64 %lt_state, {};\n", indent, st.guard,
                     trim(ops[0]));
  out += indent;
  out += "}";
  return Lowered{std::move(out), 0};
}

}  // namespace

uint64_t Tcgen05Context::shared_bytes() const {
  const uint64_t bytes = uint64_t{128} * pitch() * 4;
  return (bytes + 1023) / 1024 * 1024;
}

Tcgen05Context analyze_tcgen05(const Module& m, const Function& f) {
  Tcgen05Context cx;
  std::map<std::string, uint32_t> definitions;
  std::set<std::string> elect_defined;
  uint32_t allocs = 0;
  for (uint32_t si = f.first_statement; si < f.first_statement + f.statement_count; ++si) {
    const Statement& st = m.statements[si];
    if (st.kind != StatementKind::kInstruction || st.operand_count == 0) continue;
    const std::string_view* ops = m.operands_of(st);
    const std::string first(trim(ops[0]));
    if (st.name.starts_with("tcgen05.alloc")) {
      ++allocs;
      auto cols = st.operand_count == 2 ? integer(ops[1]) : std::nullopt;
      if (!cols) {
        cx.refusal = "tcgen05.alloc with a column count that is not an immediate";
      } else {
        cx.columns = static_cast<uint32_t>(*cols);
      }
      continue;
    }
    if (st.opcode() == "elect") {
      // "%r|%p": the predicate holds in the elected thread only.
      size_t bar = first.find('|');
      if (bar != std::string::npos) elect_defined.insert(first.substr(bar + 1));
      continue;
    }
    if (first.empty() || first[0] != '%' || first.find_first_of("{[|") != std::string::npos)
      continue;
    ++definitions[first];
    if (st.opcode() == "mov" && st.operand_count == 2 && st.guard.empty())
      if (auto v = integer(ops[1])) cx.constants[first] = static_cast<uint32_t>(*v);
    if (st.name == "and.pred" && st.operand_count == 3) {
      // and.pred with an elected predicate is true in at most that one thread.
      for (int i = 1; i <= 2; ++i)
        if (elect_defined.contains(std::string(trim(ops[i])))) cx.elected.insert(first);
    }
  }
  for (const auto& p : elect_defined) cx.elected.insert(p);
  // A register is a constant only if that mov is its only definition.
  for (auto it = cx.constants.begin(); it != cx.constants.end();)
    it = definitions[it->first] == 1 ? std::next(it) : cx.constants.erase(it);
  // A predicate redefined by anything else than elect.sync/and.pred is not trusted.
  for (auto it = cx.elected.begin(); it != cx.elected.end();)
    it = definitions[*it] > (elect_defined.contains(*it) ? 0u : 1u) ? cx.elected.erase(it)
                                                                    : std::next(it);
  if (allocs > 1)
    cx.refusal =
        fmt::format("{} tcgen05.alloc instructions; one allocation per kernel is lowered", allocs);
  else if (allocs == 0)
    cx.refusal = "tensor memory is used without a tcgen05.alloc in this kernel";
  else if (cx.refusal.empty() &&
           (cx.columns < 32 || cx.columns > 512 || (cx.columns & (cx.columns - 1))))
    cx.refusal = fmt::format("tcgen05.alloc of {} columns", cx.columns);
  return cx;
}

Result<Lowered> lower_tcgen05(const Statement& st, const std::string_view* ops,
                              std::string_view indent, const SmTarget& to, Tcgen05Context& cx) {
  if (!cx.refusal.empty()) return make_error(cx.refusal);
  const std::string_view n = st.name;
  const std::string before(n);
  if (n.starts_with("tcgen05.alloc.cta_group::1")) {
    // The one allocation starts at column 0 of smcompat_tmem.
    auto dst = trim(ops[0]);
    return Lowered{
        fmt::format("{}{}st.shared.b32 {}, 0;", st.guard, st.guard.empty() ? "" : " ", dst), 0};
  }
  if (n.starts_with("tcgen05.dealloc.cta_group::1") ||
      n.starts_with("tcgen05.relinquish_alloc_permit.cta_group::1") ||
      n.starts_with("tcgen05.wait::") || n.starts_with("tcgen05.fence::"))
    return Lowered{{}, 0};  // removed
  if (n.starts_with("tcgen05.ld.") || n.starts_with("tcgen05.st."))
    return lower_ld_st(st, ops, indent, cx);
  if (n.starts_with("tcgen05.mma.")) return lower_mma(st, ops, indent, to, cx);
  if (n.starts_with("tcgen05.commit.")) return lower_commit(st, ops, indent, cx);
  if (n.find("cta_group::2") != std::string_view::npos)
    return make_error("cta_group::2 (a CTA pair) is not lowered");
  return make_error("this tcgen05 instruction (cp, shift or another form) is not lowered");
}

}  // namespace smcompat::ptx::lower_detail
