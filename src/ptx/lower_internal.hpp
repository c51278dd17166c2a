// Internals of `ptx lower` shared by the wgmma (lower.cpp) and tcgen05 (lower_tcgen05.cpp)
// lowerings: operand helpers and the emitter of fragment loads from shared-memory descriptors.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx::lower_detail {

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

inline std::optional<InputType> input_type(std::string_view t) {
  if (t == "f16") return InputType::kF16;
  if (t == "bf16") return InputType::kBF16;
  if (t == "tf32") return InputType::kTF32;
  if (t == "e4m3") return InputType::kE4M3;
  if (t == "e5m2") return InputType::kE5M2;
  return std::nullopt;
}

inline std::vector<std::string_view> split(std::string_view s, char sep) {
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

inline std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// "{%f1, %f2}" → {"%f1", "%f2"}; nullopt if not a brace list.
inline std::optional<std::vector<std::string_view>> vector_operand(std::string_view op) {
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

inline std::optional<int64_t> integer(std::string_view s) {
  s = trim(s);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// Parses "wgmma.mma_async.sync.aligned.m64nNkK.D.A.B"; a reason when it is not lowered.
inline Result<WgmmaShape> parse_wgmma_name(std::string_view name) {
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
inline const char* sign_mask(InputType t) {
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

inline std::string mma_name(const WgmmaShape& s) {
  const uint32_t k = s.sixteen_bit() ? 16 : s.in == InputType::kTF32 ? 8 : 32;
  return fmt::format("mma.sync.aligned.m16n8k{}.row.col.{}.{}.{}.{}", k, s.dtype, s.atype, s.btype,
                     s.dtype);
}

/// Emits the PTX that replaces one wgmma.mma_async or tcgen05.mma: descriptor decoding and
/// fragment loads with ldmatrix.
class FragmentEmitter {
 public:
  explicit FragmentEmitter(std::string indent) : ind_(std::move(indent)) {}

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

  /// The registers every lowered block uses (`tiles` 8-column tiles of B).
  void declare(uint32_t tiles) {
    line(".reg .b32 %lw_lane, %lw_t, %lw_w, %lw_x, %lw_y, %lw_z, %lw_r0, %lw_r1, %lw_lm, %lw_mi;");
    line(".reg .b64 %lw_d64, %lw_e64;");
    line(".reg .pred %lw_pz;");
    line(".reg .b32 %lw_fa<4>;");
    linef(".reg .b32 %lw_fb<{}>;", 2 * tiles);
    for (char p : {'a', 'b'})
      linef(
          ".reg .b32 %lw_{0}s, %lw_{0}l, %lw_{0}b, %lw_{0}g, %lw_{0}w, %lw_{0}m, %lw_{0}k, "
          "%lw_{0}8, %lw_{0}e;",
          p);
  }

  /// %lw_lane, and for ldmatrix %lw_lm (the row this thread addresses) and %lw_mi (its matrix).
  void lane_setup() {
    line("mov.u32 %lw_lane, %laneid;");
    // For ldmatrix: this thread gives the address of row lane%8 of matrix lane/8.
    line("and.b32 %lw_lm, %lw_lane, 7;");
    line("shr.u32 %lw_mi, %lw_lane, 3;");
  }

  /// A's fragment registers %lw_fa0..3 for rows 16*%lw_w .. +15 from the decoded descriptor 'a'.
  void load_a(bool trans_a) {
    // One ldmatrix.x4: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15),
    // (rows 8-15, k 8-15) of the warp's 16 rows are A fragment registers 0..3.
    line("and.b32 %lw_x, %lw_mi, 1;");
    line("shr.u32 %lw_r1, %lw_mi, 1;");
    if (!trans_a) {
      // Row 16w + 8*(mi&1) + lane%8, 16-byte chunk mi>>1 of the k-slice.
      line("shl.b32 %lw_y, %lw_w, 1;");
      line("add.u32 %lw_y, %lw_y, %lw_x;");
      line("mad.lo.u32 %lw_r0, %lw_y, %lw_ab, %lw_as;");
      line("mad.lo.u32 %lw_r0, %lw_lm, %lw_aw, %lw_r0;");
      line("mad.lo.u32 %lw_x, %lw_r1, %lw_ak, %lw_r0;");
      ldmatrix('a', false, {"%lw_fa0", "%lw_fa1", "%lw_fa2", "%lw_fa3"});
    } else {
      // M-major: 8 rows along M from 16w + 8*(mi&1), K row lane%8 + 8*(mi>>1), transposed.
      line("shl.b32 %lw_y, %lw_w, 4;");
      line("shl.b32 %lw_x, %lw_x, 3;");
      line("add.u32 %lw_y, %lw_y, %lw_x;");
      mn_base('a', "%lw_y", "%lw_r0");
      line("mad.lo.u32 %lw_r0, %lw_lm, %lw_aw, %lw_r0;");
      line("mad.lo.u32 %lw_x, %lw_r1, %lw_a8, %lw_r0;");
      ldmatrix('a', true, {"%lw_fa0", "%lw_fa1", "%lw_fa2", "%lw_fa3"});
    }
  }

  /// B's fragment registers %lw_fb0..2*tiles-1 from the decoded descriptor 'b'.
  void load_b(bool trans_b, uint32_t tiles) {
    // One ldmatrix.x4 per two 8-column tiles j, j+1: matrices (tile j, k 0-7), (tile j, k 8-15),
    // (tile j+1, k 0-7), (tile j+1, k 8-15) are B registers 2j..2j+3 (.x2 for a last odd tile).
    auto b_regs = [&](uint32_t j, uint32_t count) {
      std::vector<std::string> r;
      for (uint32_t i = 0; i < count; ++i) r.push_back(fmt::format("%lw_fb{}", 2 * j + i));
      return r;
    };
    line("shr.u32 %lw_r1, %lw_mi, 1;");
    line("and.b32 %lw_t, %lw_mi, 1;");
    if (!trans_b) {
      // Row 8*(j + (mi>>1)) + lane%8 (its group is SBO away per tile), chunk mi&1.
      line("mad.lo.u32 %lw_r0, %lw_r1, %lw_bb, %lw_bs;");
      line("mad.lo.u32 %lw_r0, %lw_lm, %lw_bw, %lw_r0;");
      line("mad.lo.u32 %lw_r0, %lw_t, %lw_bk, %lw_r0;");
      line("shl.b32 %lw_z, %lw_bb, 1;");
      line("mov.u32 %lw_r1, %lw_z;");
      for (uint32_t j = 0; j < tiles; j += 2) {
        if (j) line("add.u32 %lw_r0, %lw_r0, %lw_r1;");
        line("mov.u32 %lw_x, %lw_r0;");
        ldmatrix('b', false, b_regs(j, j + 1 < tiles ? 4 : 2));
      }
    } else {
      // N-major: 8 columns from 8*(j + (mi>>1)), K row lane%8 + 8*(mi&1), transposed.
      line("shl.b32 %lw_r1, %lw_r1, 3;");
      line("mul.lo.u32 %lw_t, %lw_t, %lw_b8;");
      line("mad.lo.u32 %lw_t, %lw_lm, %lw_bw, %lw_t;");
      for (uint32_t j = 0; j < tiles; j += 2) {
        if (j) line("add.u32 %lw_r1, %lw_r1, 16;");
        mn_base('b', "%lw_r1", "%lw_r0");
        line("add.u32 %lw_x, %lw_r0, %lw_t;");
        ldmatrix('b', true, b_regs(j, j + 1 < tiles ? 4 : 2));
      }
    }
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

/// The whitespace before the statement on its line (to indent the block like the original).
inline std::string_view indent_of(std::string_view text, uint32_t begin) {
  uint32_t b = begin;
  while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
  return text.substr(b, begin - b);
}

/// The shared-memory array that stands for tensor memory in a lowered kernel.
inline constexpr std::string_view kTmemSymbol = "smcompat_tmem";

/// What the tcgen05 lowering needs to know about one function.
struct Tcgen05Context {
  uint32_t columns = 0;  ///< of its one tcgen05.alloc
  /// The array's symbol: smcompat_tmem (static), or the kernel's `.extern .shared` array when the
  /// tensor memory does not fit in static shared memory and goes first in the dynamic one.
  std::string symbol{kTmemSymbol};
  bool dynamic = false;
  std::string refusal;  ///< why none of its tcgen05 instructions can be lowered
  std::map<std::string, uint32_t> constants;  ///< registers whose only definition is a mov imm
  std::set<std::string> elected;  ///< predicates true in one elect.sync-chosen thread at most
  uint32_t labels = 0;
  /// 32-bit words per tensor-memory lane in smcompat_tmem (one of padding against bank conflicts).
  uint32_t pitch() const { return columns + 1; }
  /// Bytes of smcompat_tmem: 128 lanes, rounded up to 1 KiB so that the dynamic shared memory
  /// after it keeps the 1024-byte alignment that 128-byte swizzles assume.
  uint64_t shared_bytes() const;
};

Tcgen05Context analyze_tcgen05(const Module& m, const Function& f);

/// What one tcgen05 statement becomes (empty text: removed), or why it is refused.
Result<Lowered> lower_tcgen05(const Statement& st, const std::string_view* ops,
                              std::string_view indent, const SmTarget& to, Tcgen05Context& cx);

}  // namespace smcompat::ptx::lower_detail
