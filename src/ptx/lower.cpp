// wgmma → mma.sync lowering (include/smcompat/ptx/lower.hpp). Each wgmma.mma_async statement is
// replaced, in the original text, by a nested PTX block that decodes the descriptors, loads this
// thread's A/B fragments from shared memory and runs one mma.sync per 8 columns of N.
#include "smcompat/ptx/lower.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "text_edits.hpp"

namespace smcompat::ptx {
namespace {

// The element types wgmma takes that mma.sync also takes on sm_80+ (fp8 from sm_89).
enum class InputType { kF16, kBF16, kTF32, kE4M3, kE5M2 };

struct WgmmaShape {
  uint32_t n = 0;
  uint32_t k = 0;
  std::string dtype;  // "f32" or "f16"
  std::string atype, btype;
  InputType in = InputType::kF16;
  bool sixteen_bit() const { return in == InputType::kF16 || in == InputType::kBF16; }
};

std::optional<InputType> input_type(std::string_view t) {
  if (t == "f16") return InputType::kF16;
  if (t == "bf16") return InputType::kBF16;
  if (t == "tf32") return InputType::kTF32;
  if (t == "e4m3") return InputType::kE4M3;
  if (t == "e5m2") return InputType::kE5M2;
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t b = 0;
  while (true) {
    size_t e = s.find(sep, b);
    out.push_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// "{%f1, %f2}" → {"%f1", "%f2"}; nullopt if not a brace list.
std::optional<std::vector<std::string_view>> vector_operand(std::string_view op) {
  op = trim(op);
  if (op.size() < 2 || op.front() != '{' || op.back() != '}') return std::nullopt;
  std::vector<std::string_view> regs;
  for (auto r : split(op.substr(1, op.size() - 2), ',')) {
    r = trim(r);
    if (r.empty()) return std::nullopt;
    regs.push_back(r);
  }
  return regs;
}

std::optional<int64_t> integer(std::string_view s) {
  s = trim(s);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// Parses "wgmma.mma_async.sync.aligned.m64nNkK.D.A.B"; a reason when it is not lowered.
Result<WgmmaShape> parse_wgmma_name(std::string_view name) {
  auto parts = split(name, '.');
  WgmmaShape s;
  size_t shape_at = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "sp") return make_error("sparse wgmma (.sp) is not lowered");
    if (parts[i].size() > 4 && parts[i].substr(0, 4) == "m64n") shape_at = i;
  }
  if (shape_at == 0 || parts.size() != shape_at + 4)
    return make_error("no m64nNkK shape followed by three types");
  std::string_view shape = parts[shape_at];
  size_t kpos = shape.find('k');
  if (kpos == std::string_view::npos) return make_error("no k in the shape");
  auto n = integer(shape.substr(4, kpos - 4));
  auto k = integer(shape.substr(kpos + 1));
  if (!n || !k || *n < 8 || *n > 256 || *n % 8 != 0)
    return make_error(fmt::format("shape '{}' is not m64nNkK with N a multiple of 8", shape));
  s.n = static_cast<uint32_t>(*n);
  s.k = static_cast<uint32_t>(*k);
  s.dtype = std::string(parts[shape_at + 1]);
  s.atype = std::string(parts[shape_at + 2]);
  s.btype = std::string(parts[shape_at + 3]);
  auto a = input_type(s.atype), b = input_type(s.btype);
  if (!a || !b)
    return make_error(
        fmt::format("input types .{}.{} have no mma.sync lowering (integer and "
                    "b1 wgmma are not lowered)",
                    s.atype, s.btype));
  s.in = *a;
  const bool fp8 = s.in == InputType::kE4M3 || s.in == InputType::kE5M2;
  const bool fp8_b = *b == InputType::kE4M3 || *b == InputType::kE5M2;
  if ((s.sixteen_bit() && *b != *a) || (s.in == InputType::kTF32 && *b != *a) || (fp8 != fp8_b))
    return make_error(fmt::format("input types .{}.{} do not pair", s.atype, s.btype));
  const uint32_t want_k = s.sixteen_bit() ? 16 : s.in == InputType::kTF32 ? 8 : 32;
  if (s.k != want_k)
    return make_error(fmt::format("k{} does not match input type .{}", s.k, s.atype));
  if (s.dtype != "f32" && !(s.dtype == "f16" && (s.in == InputType::kF16 || fp8)))
    return make_error(
        fmt::format("accumulator .{} with inputs .{} is not lowered", s.dtype, s.atype));
  return s;
}

/// The sign bits of every element in one 32-bit fragment register (to negate by XOR).
const char* sign_mask(InputType t) {
  switch (t) {
    case InputType::kF16:
    case InputType::kBF16:
      return "0x80008000";
    case InputType::kTF32:
      return "0x80000000";
    default:
      return "0x80808080";
  }
}

std::string mma_name(const WgmmaShape& s) {
  const uint32_t k = s.sixteen_bit() ? 16 : s.in == InputType::kTF32 ? 8 : 32;
  return fmt::format("mma.sync.aligned.m16n8k{}.row.col.{}.{}.{}.{}", k, s.dtype, s.atype, s.btype,
                     s.dtype);
}

/// Emits the replacement block for one wgmma.mma_async.
class WgmmaEmitter {
 public:
  explicit WgmmaEmitter(std::string indent) : ind_(std::move(indent)) {}

  void line(std::string_view l) {
    out_ += ind_;
    out_ += l;
    out_ += '\n';
  }
  template <class... Args>
  void linef(fmt::format_string<Args...> f, Args&&... args) {
    line(fmt::format(f, std::forward<Args>(args)...));
  }

  /// Decodes descriptor `op` into %lw_<p>s (start), l (LBO), b (SBO), g (log2 of the row
  /// width), w (row width), m (swizzle mask), k and 8 (strides, by majorness).
  void decode_descriptor(char p, std::string_view op, bool mn_major) {
    linef("mov.b64 %lw_d64, {};", op);
    line("cvt.u32.u64 %lw_x, %lw_d64;");
    line("shr.u64 %lw_e64, %lw_d64, 32;");
    line("cvt.u32.u64 %lw_y, %lw_e64;");
    linef("and.b32 %lw_{0}s, %lw_x, 16383;", p);
    linef("shl.b32 %lw_{0}s, %lw_{0}s, 4;", p);
    linef("shr.u32 %lw_{0}l, %lw_x, 16;", p);
    linef("and.b32 %lw_{0}l, %lw_{0}l, 16383;", p);
    linef("shl.b32 %lw_{0}l, %lw_{0}l, 4;", p);
    linef("and.b32 %lw_{0}b, %lw_y, 16383;", p);
    linef("shl.b32 %lw_{0}b, %lw_{0}b, 4;", p);
    line("shr.u32 %lw_z, %lw_y, 30;");  // bits 62-63: 0 none, 1 128 B, 2 64 B, 3 32 B
    line("setp.eq.u32 %lw_pz, %lw_z, 0;");
    linef("mov.u32 %lw_{0}g, 8;", p);
    linef("sub.u32 %lw_{0}g, %lw_{0}g, %lw_z;", p);
    linef("selp.u32 %lw_{0}g, 4, %lw_{0}g, %lw_pz;", p);
    linef("mov.u32 %lw_{0}w, 1;", p);
    linef("shl.b32 %lw_{0}w, %lw_{0}w, %lw_{0}g;", p);
    linef("sub.u32 %lw_{0}m, %lw_{0}w, 16;", p);
    if (!mn_major) {
      // K-major: the second 16-byte chunk of a row is LBO away without swizzling, else adjacent.
      linef("selp.u32 %lw_{0}k, %lw_{0}l, 16, %lw_pz;", p);
    } else {
      // MN-major: W-byte groups along MN are SBO apart without swizzling, LBO apart with it;
      // groups of 8 rows along K the other way round.
      linef("selp.u32 %lw_{0}k, %lw_{0}b, %lw_{0}l, %lw_pz;", p);
      linef("selp.u32 %lw_{0}8, %lw_{0}l, %lw_{0}b, %lw_pz;", p);
    }
  }

  /// Swizzles the address in %lw_x with operand p's mask.
  void swizzle(char p) {
    line("shr.u32 %lw_y, %lw_x, 3;");
    linef("and.b32 %lw_y, %lw_y, %lw_{}m;", p);
    line("xor.b32 %lw_x, %lw_x, %lw_y;");
  }

  /// MN-major: into `mb`, the address of MN index `idx` (a multiple of 8) at K row 0.
  void mn_base(char p, std::string_view idx, std::string_view mb) {
    linef("shl.b32 %lw_y, {}, 1;", idx);
    linef("sub.u32 %lw_z, %lw_{}w, 1;", p);
    line("and.b32 %lw_z, %lw_y, %lw_z;");
    linef("shr.u32 %lw_y, %lw_y, %lw_{}g;", p);
    linef("mad.lo.u32 {}, %lw_y, %lw_{}k, %lw_{}s;", mb, p, p);
    linef("add.u32 {0}, {0}, %lw_z;", mb);
  }

  /// Swizzles the row address in %lw_x and loads the matrices with ldmatrix (`count` 8x8
  /// matrices, transposed for MN-major operands) into `dests`.
  void ldmatrix(char p, bool trans, const std::vector<std::string>& dests) {
    swizzle(p);
    std::string list;
    for (size_t i = 0; i < dests.size(); ++i) list += (i ? ", " : "") + dests[i];
    linef("ldmatrix.sync.aligned.m8n8.x{}{}.shared.b16 {{{}}}, [%lw_x];", dests.size(),
          trans ? ".trans" : "", list);
  }

  std::string take() { return std::move(out_); }

 private:
  std::string ind_;
  std::string out_;
};

struct Lowered {
  std::string text;
  uint32_t mma_count = 0;
};

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

  WgmmaEmitter e(std::string(indent) + "\t");
  std::string out = "{\n";
  out += fmt::format("{}\t// smcompat ptx lower: {} as {} x {} per warp\n", indent, st.name, tiles,
                     mma_name(s));
  e.line(".reg .b32 %lw_lane, %lw_t, %lw_w, %lw_x, %lw_y, %lw_z, %lw_r0, %lw_r1, %lw_lm, %lw_mi;");
  e.line(".reg .b64 %lw_d64, %lw_e64;");
  e.line(".reg .pred %lw_pz;");
  e.line(".reg .b32 %lw_fa<4>;");
  e.linef(".reg .b32 %lw_fb<{}>;", 2 * tiles);
  for (char p : {'a', 'b'})
    e.linef(
        ".reg .b32 %lw_{0}s, %lw_{0}l, %lw_{0}b, %lw_{0}g, %lw_{0}w, %lw_{0}m, %lw_{0}k, "
        "%lw_{0}8, %lw_{0}e;",
        p);
  // The lane and the warp's 16 rows in the warpgroup (warps are numbered along the linear
  // thread index).
  e.line("mov.u32 %lw_lane, %laneid;");
  // For ldmatrix: this thread gives the address of row lane%8 of matrix lane/8.
  e.line("and.b32 %lw_lm, %lw_lane, 7;");
  e.line("shr.u32 %lw_mi, %lw_lane, 3;");
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
    // One ldmatrix.x4: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15),
    // (rows 8-15, k 8-15) of the warp's 16 rows are A fragment registers 0..3.
    e.line("and.b32 %lw_x, %lw_mi, 1;");
    e.line("shr.u32 %lw_r1, %lw_mi, 1;");
    if (!trans_a) {
      // Row 16w + 8*(mi&1) + lane%8, 16-byte chunk mi>>1 of the k-slice.
      e.line("shl.b32 %lw_y, %lw_w, 1;");
      e.line("add.u32 %lw_y, %lw_y, %lw_x;");
      e.line("mad.lo.u32 %lw_r0, %lw_y, %lw_ab, %lw_as;");
      e.line("mad.lo.u32 %lw_r0, %lw_lm, %lw_aw, %lw_r0;");
      e.line("mad.lo.u32 %lw_x, %lw_r1, %lw_ak, %lw_r0;");
      e.ldmatrix('a', false, {"%lw_fa0", "%lw_fa1", "%lw_fa2", "%lw_fa3"});
    } else {
      // M-major: 8 rows along M from 16w + 8*(mi&1), K row lane%8 + 8*(mi>>1), transposed.
      e.line("shl.b32 %lw_y, %lw_w, 4;");
      e.line("shl.b32 %lw_x, %lw_x, 3;");
      e.line("add.u32 %lw_y, %lw_y, %lw_x;");
      e.mn_base('a', "%lw_y", "%lw_r0");
      e.line("mad.lo.u32 %lw_r0, %lw_lm, %lw_aw, %lw_r0;");
      e.line("mad.lo.u32 %lw_x, %lw_r1, %lw_a8, %lw_r0;");
      e.ldmatrix('a', true, {"%lw_fa0", "%lw_fa1", "%lw_fa2", "%lw_fa3"});
    }
    for (int i = 0; i < 4; ++i) {
      if (*scale_a == -1) e.linef("xor.b32 %lw_fa{0}, %lw_fa{0}, {1};", i, sign_mask(s.in));
      a_frag[i] = fmt::format("%lw_fa{}", i);
    }
  }

  // B: column n = 8j + g of every 8-column tile j.
  e.decode_descriptor('b', trim(ops[2]), trans_b);
  // One ldmatrix.x4 per two 8-column tiles j, j+1: matrices (tile j, k 0-7), (tile j, k 8-15),
  // (tile j+1, k 0-7), (tile j+1, k 8-15) are B registers 2j..2j+3 (.x2 for a last odd tile).
  auto b_regs = [&](uint32_t j, uint32_t count) {
    std::vector<std::string> r;
    for (uint32_t i = 0; i < count; ++i) r.push_back(fmt::format("%lw_fb{}", 2 * j + i));
    return r;
  };
  e.line("shr.u32 %lw_r1, %lw_mi, 1;");
  e.line("and.b32 %lw_t, %lw_mi, 1;");
  if (!trans_b) {
    // Row 8*(j + (mi>>1)) + lane%8 (its group is SBO away per tile), chunk mi&1.
    e.line("mad.lo.u32 %lw_r0, %lw_r1, %lw_bb, %lw_bs;");
    e.line("mad.lo.u32 %lw_r0, %lw_lm, %lw_bw, %lw_r0;");
    e.line("mad.lo.u32 %lw_r0, %lw_t, %lw_bk, %lw_r0;");
    e.line("shl.b32 %lw_z, %lw_bb, 1;");
    e.line("mov.u32 %lw_r1, %lw_z;");
    for (uint32_t j = 0; j < tiles; j += 2) {
      if (j) e.line("add.u32 %lw_r0, %lw_r0, %lw_r1;");
      e.line("mov.u32 %lw_x, %lw_r0;");
      e.ldmatrix('b', false, b_regs(j, j + 1 < tiles ? 4 : 2));
    }
  } else {
    // N-major: 8 columns from 8*(j + (mi>>1)), K row lane%8 + 8*(mi&1), transposed.
    e.line("shl.b32 %lw_r1, %lw_r1, 3;");
    e.line("mul.lo.u32 %lw_t, %lw_t, %lw_b8;");
    e.line("mad.lo.u32 %lw_t, %lw_lm, %lw_bw, %lw_t;");
    for (uint32_t j = 0; j < tiles; j += 2) {
      if (j) e.line("add.u32 %lw_r1, %lw_r1, 16;");
      e.mn_base('b', "%lw_r1", "%lw_r0");
      e.line("add.u32 %lw_x, %lw_r0, %lw_t;");
      e.ldmatrix('b', true, b_regs(j, j + 1 < tiles ? 4 : 2));
    }
  }
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

/// The whitespace before the statement on its line (to indent the block like the original).
std::string_view indent_of(std::string_view text, uint32_t begin) {
  uint32_t b = begin;
  while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
  return text.substr(b, begin - b);
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
    for (uint32_t si = f.first_statement; si < f.first_statement + f.statement_count; ++si) {
      const Statement& st = m.statements[si];
      if (st.kind != StatementKind::kInstruction || st.opcode() != "wgmma") continue;
      const std::string before(text.substr(st.span.begin, st.span.end - st.span.begin));
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
