// PTX interpreter: the per-thread (non-collective) instructions. Semantics from PTX ISA 9.0,
// sections "Integer Arithmetic", "Floating-Point", "Comparison and Selection", "Logic and Shift",
// "Data Movement and Conversion" and "Control Flow".
#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

#include "interp_internal.hpp"

namespace smcompat::ptx::interp_detail {
namespace {

double to_double(uint64_t v, Type t) {
  if (t.kind == 'f' && t.bits == 32) return as_float(static_cast<uint32_t>(v));
  if (t.kind == 'f' && t.bits == 64) return as_double(v);
  if (t.kind == 'f' && t.bits == 16) return as_float(f16_to_f32(static_cast<uint16_t>(v)));
  if (t.kind == 'h') return as_float(bf16_to_f32(static_cast<uint16_t>(v)));
  if (t.kind == 's') return static_cast<double>(sext(v, t.bits));
  return static_cast<double>(v & mask_of(t.bits));
}

float ftz32(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

int rounding_of(const Inst& in, int fallback) {
  for (auto m : in.mods) {
    if (m == "rn" || m == "rni") return FE_TONEAREST;
    if (m == "rz" || m == "rzi") return FE_TOWARDZERO;
    if (m == "rm" || m == "rmi") return FE_DOWNWARD;
    if (m == "rp" || m == "rpi") return FE_UPWARD;
  }
  return fallback;
}

struct RoundingScope {
  int saved;
  explicit RoundingScope(int mode) : saved(std::fegetround()) { std::fesetround(mode); }
  ~RoundingScope() { std::fesetround(saved); }
};

// Modifiers that only matter for caching, memory ordering or scope (the model is sequentially
// consistent), or that restate what the opcode already implies: accepted and ignored.
bool is_ignored_mod(std::string_view m) {
  static const std::string_view kIgnored[] = {
      "nc",       "ca",      "cg",      "cs",      "lu",      "cv",  "wb",          "wt",
      "volatile", "relaxed", "acquire", "release", "weak",    "cta", "gpu",         "sys",
      "cluster",  "uni",     "sync",    "aligned", "acq_rel", "sc",  "shared::cta", "shared",
      "global",   "local",   "param",   "const",   "v2",      "v4",  "v8",          "to"};
  for (auto x : kIgnored)
    if (m == x) return true;
  return m.substr(0, 4) == "L1::" || m.substr(0, 4) == "L2::" || m.substr(0, 7) == "level::";
}

/// True if every modifier is a type, an ignored one, or in `allowed`.
bool mods_ok(const Inst& in, std::initializer_list<std::string_view> allowed) {
  for (auto m : in.mods) {
    if (parse_type(m).valid() || is_ignored_mod(m)) continue;
    bool ok = false;
    for (auto a : allowed) ok |= m == a;
    if (!ok) return false;
  }
  return true;
}

struct Exec {
  Block& b;
  uint32_t t;
  uint64_t* r;
  const Inst& in;
  const Operand* ops;

  uint64_t get(uint32_t i, Type ty) const { return read_value(b, t, ops[i], ty); }
  uint64_t get(uint32_t i) const { return get(i, in.type); }
  void set(uint32_t i, uint64_t v) const {
    if (ops[i].kind == Operand::kReg) r[ops[i].reg] = v;
  }
  bool is_dst(uint32_t i) const {
    return i < in.count && (ops[i].kind == Operand::kReg || ops[i].kind == Operand::kSink);
  }
  bool is_src(uint32_t i) const {
    return i < in.count && (ops[i].kind == Operand::kReg || ops[i].kind == Operand::kImm ||
                            ops[i].kind == Operand::kSpecial || ops[i].kind == Operand::kSymbol);
  }

  Result<uint64_t> address(const Operand& a, Space space) const {
    if (a.kind != Operand::kAddress) return unsupported(in, "operand is not an address");
    uint64_t base = 0;
    if (a.has_base_reg) base = r[a.reg];
    if (a.has_symbol) {
      base = a.imm;
      if (space == Space::kGeneric) {
        if (a.symbol_space == Space::kShared) base += kSharedWindow;
        if (a.symbol_space == Space::kLocal) base += kLocalWindow;
        if (a.symbol_space == Space::kParam) return unsupported(in, "generic param address");
      } else if (space != a.symbol_space) {
        return unsupported(in, "variable of another state space");
      }
    }
    uint64_t addr = base + static_cast<uint64_t>(a.offset);
    if (space == Space::kShared || space == Space::kLocal || space == Space::kParam)
      addr &= 0xffffffffull;  // 32-bit space addresses may come from 64-bit registers
    return addr;
  }
};

uint64_t int_binary(Op op, uint64_t a, uint64_t b, Type t) {
  uint64_t m = mask_of(t.bits);
  bool s = t.kind == 's';
  switch (op) {
    case Op::kAdd:
      return (a + b) & m;
    case Op::kSub:
      return (a - b) & m;
    case Op::kMin:
      return (s ? sext(a, t.bits) < sext(b, t.bits) : (a & m) < (b & m)) ? a & m : b & m;
    case Op::kMax:
      return (s ? sext(a, t.bits) > sext(b, t.bits) : (a & m) > (b & m)) ? a & m : b & m;
    case Op::kAnd:
      return a & b & m;
    case Op::kOr:
      return (a | b) & m;
    case Op::kXor:
      return (a ^ b) & m;
    case Op::kDiv:
    case Op::kRem: {
      if ((b & m) == 0) return op == Op::kDiv ? m : a & m;  // no trap on the GPU either
      if (s) {
        int64_t x = sext(a, t.bits), y = sext(b, t.bits);
        if (y == -1)
          return op == Op::kDiv ? static_cast<uint64_t>(0 - static_cast<uint64_t>(x)) & m : 0;
        return static_cast<uint64_t>(op == Op::kDiv ? x / y : x % y) & m;
      }
      return op == Op::kDiv ? (a & m) / (b & m) : (a & m) % (b & m);
    }
    default:
      return 0;
  }
}

// The product of two `bits`-wide integers, as 128 bits.
__int128 wide_product(uint64_t a, uint64_t b, Type t) {
  if (t.kind == 's') return static_cast<__int128>(sext(a, t.bits)) * sext(b, t.bits);
  return static_cast<__int128>(static_cast<unsigned __int128>(a & mask_of(t.bits)) *
                               (b & mask_of(t.bits)));
}

// One f32 or f64 arithmetic operation, evaluated at run time under the current rounding mode.
template <class F>
F float_op(Op op, F a, F b, F c) {
  volatile F x = a, y = b, z = c;  // volatile: not folded at compile time
  switch (op) {
    case Op::kAdd:
      return x + y;
    case Op::kSub:
      return x - y;
    case Op::kMul:
      return x * y;
    case Op::kDiv:
      return x / y;
    case Op::kFma:
    case Op::kMad:
      return std::fma(static_cast<F>(x), static_cast<F>(y), static_cast<F>(z));
    default:
      return 0;
  }
}

bool compare(std::string_view cmp, double x, double y, bool* known) {
  bool unordered = std::isnan(x) || std::isnan(y);
  *known = true;
  if (cmp == "eq") return !unordered && x == y;
  if (cmp == "ne") return !unordered && x != y;
  if (cmp == "lt") return !unordered && x < y;
  if (cmp == "le") return !unordered && x <= y;
  if (cmp == "gt") return !unordered && x > y;
  if (cmp == "ge") return !unordered && x >= y;
  if (cmp == "equ") return unordered || x == y;
  if (cmp == "neu") return unordered || x != y;
  if (cmp == "ltu") return unordered || x < y;
  if (cmp == "leu") return unordered || x <= y;
  if (cmp == "gtu") return unordered || x > y;
  if (cmp == "geu") return unordered || x >= y;
  if (cmp == "num") return !unordered;
  if (cmp == "nan") return unordered;
  *known = false;
  return false;
}

bool compare_int(std::string_view cmp, uint64_t a, uint64_t b, Type t, bool* known) {
  *known = true;
  int64_t sa = sext(a, t.bits), sb = sext(b, t.bits);
  uint64_t ua = a & mask_of(t.bits), ub = b & mask_of(t.bits);
  bool s = t.kind == 's';
  if (cmp == "eq") return ua == ub;
  if (cmp == "ne") return ua != ub;
  if (cmp == "lt") return s ? sa < sb : ua < ub;
  if (cmp == "le") return s ? sa <= sb : ua <= ub;
  if (cmp == "gt") return s ? sa > sb : ua > ub;
  if (cmp == "ge") return s ? sa >= sb : ua >= ub;
  if (cmp == "lo") return ua < ub;
  if (cmp == "ls") return ua <= ub;
  if (cmp == "hi") return ua > ub;
  if (cmp == "hs") return ua >= ub;
  *known = false;
  return false;
}

/// f32 -> fp8 (e4m3 or e5m2), round to nearest even; .satfinite clamps to the largest finite
/// value (NaN stays NaN).
uint8_t f32_to_fp8(float f, bool e4m3, bool satfinite) {
  double d = f;
  uint8_t sign = std::signbit(d) ? 0x80 : 0;
  int man_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  double max_finite = e4m3 ? 448.0 : 57344.0;
  if (std::isnan(d)) return 0x7f;
  double a = std::fabs(d);
  if (std::isinf(d) || a > max_finite) {
    // Beyond the largest finite value: rounding decides (for e4m3 everything past 464 is NaN).
    double limit = e4m3 ? 464.0 : 61440.0;
    if (satfinite) return sign | (e4m3 ? 0x7e : 0x7b);
    if (a >= limit) return e4m3 ? 0x7f : static_cast<uint8_t>(sign | 0x7c);
    return sign | (e4m3 ? 0x7e : 0x7b);
  }
  int e;
  std::frexp(a, &e);
  int exp = std::max(e - 1, 1 - bias);
  double q = std::nearbyint(std::ldexp(a, man_bits - exp));
  auto n = static_cast<uint32_t>(q);
  if (n == 0) return sign;
  if (n >= (2u << man_bits)) {
    n >>= 1;
    ++exp;
  }
  if (n < (1u << man_bits)) return static_cast<uint8_t>(sign | n);
  uint32_t bits = (static_cast<uint32_t>(exp + bias) << man_bits) | (n - (1u << man_bits));
  if (e4m3 && bits > 0x7e) bits = satfinite ? 0x7e : 0x7f;
  return static_cast<uint8_t>(sign | bits);
}

uint64_t float_result(double v, Type t) {
  if (t.kind == 'f' && t.bits == 32) return float_bits(static_cast<float>(v));
  if (t.kind == 'f' && t.bits == 64) return double_bits(v);
  if (t.kind == 'f' && t.bits == 16) return f64_to_f16(v);
  return 0;
}

Result<bool> exec_cvt(const Exec& x) {
  const Inst& in = x.in;
  Type d = in.type, s = in.type2;
  if (!mods_ok(in, {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "rna",
                    "satfinite"}) ||
      !d.valid() || !s.valid() || in.count < 2 || !x.is_dst(0))
    return unsupported(in);
  bool sat = in.has("sat");
  // Two f32 sources packed into one register: d = {hi from a, lo from b} (ISA "cvt": "the
  // converted value of a is stored in the upper half of d and that of b in the lower half").
  if (d.kind == 'H' || d.kind == 'C' || d.kind == 'E' || d.kind == 'M') {
    if (in.count != 3 || !(s.kind == 'f' && s.bits == 32) || !in.has("rn") || sat)
      return unsupported(in);
    auto hi = static_cast<uint32_t>(x.get(1, s)), lo = static_cast<uint32_t>(x.get(2, s));
    if (in.has("ftz")) return unsupported(in);
    uint64_t v;
    if (d.kind == 'H')
      v = (uint64_t{f32_to_f16(hi)} << 16) | f32_to_f16(lo);
    else if (d.kind == 'C')
      v = (uint64_t{f32_to_bf16(hi)} << 16) | f32_to_bf16(lo);
    else {
      bool e4 = d.kind == 'E', satf = in.has("satfinite");
      if (!satf) return unsupported(in, "fp8 conversions need .satfinite");
      v = (uint64_t{f32_to_fp8(as_float(hi), e4, satf)} << 8) | f32_to_fp8(as_float(lo), e4, satf);
    }
    x.set(0, v);
    return false;
  }
  if (in.count != 2 || !x.is_src(1)) return unsupported(in);
  // fp8 pairs widened to f16x2 (exact).
  if (d.kind == 'H' || s.kind == 'E' || s.kind == 'M') {
    if (d.kind != 'H' || (s.kind != 'E' && s.kind != 'M')) return unsupported(in);
    uint64_t v = x.get(1, s);
    uint64_t out = 0;
    for (int i = 0; i < 2; ++i) {
      auto byte = static_cast<uint8_t>(v >> (8 * i));
      double e = s.kind == 'E' ? e4m3_to_double(byte) : e5m2_to_double(byte);
      out |= uint64_t{f32_to_f16(float_bits(static_cast<float>(e)))} << (16 * i);
    }
    x.set(0, out);
    return false;
  }
  uint64_t a = x.get(1, s);
  bool d_int = d.is_int(), s_int = s.is_int();
  bool d_flt = d.kind == 'f' || d.kind == 'h' || d.kind == 't';
  bool s_flt = s.kind == 'f' || s.kind == 'h';
  if (d_int && s_int) {
    if (in.mods.size() > 2 + (sat ? 1 : 0)) return unsupported(in);
    __int128 v = s.kind == 's' ? static_cast<__int128>(sext(a, s.bits))
                               : static_cast<__int128>(a & mask_of(s.bits));
    if (sat) {
      __int128 lo = d.kind == 's' ? -(static_cast<__int128>(1) << (d.bits - 1)) : 0;
      __int128 hi = d.kind == 's' ? (static_cast<__int128>(1) << (d.bits - 1)) - 1
                                  : (static_cast<__int128>(1) << d.bits) - 1;
      v = std::clamp(v, lo, hi);
    }
    uint64_t out = static_cast<uint64_t>(v) & mask_of(d.bits);
    x.set(0, d.kind == 's' ? static_cast<uint64_t>(sext(out, d.bits)) : out);
    return false;
  }
  if (s_int && d_flt) {
    if (!(d.kind == 'f' && (d.bits == 32 || d.bits == 64))) return unsupported(in);
    int mode = rounding_of(in, -1);
    if (mode < 0) return unsupported(in, "int to float needs a rounding modifier");
    RoundingScope scope(mode);
    uint64_t out;
    if (s.kind == 's') {
      volatile int64_t v = sext(a, s.bits);
      out = d.bits == 32 ? float_bits(static_cast<float>(v)) : double_bits(static_cast<double>(v));
    } else {
      volatile uint64_t v = a & mask_of(s.bits);
      out = d.bits == 32 ? float_bits(static_cast<float>(v)) : double_bits(static_cast<double>(v));
    }
    if (sat && d.bits == 32)
      out = float_bits(std::clamp(as_float(static_cast<uint32_t>(out)), 0.0f, 1.0f));
    x.set(0, out);
    return false;
  }
  if (s_flt && d_int) {
    int mode = -1;
    for (auto m : in.mods) {
      if (m == "rni") mode = FE_TONEAREST;
      if (m == "rzi") mode = FE_TOWARDZERO;
      if (m == "rmi") mode = FE_DOWNWARD;
      if (m == "rpi") mode = FE_UPWARD;
    }
    if (mode < 0) return unsupported(in, "float to int needs .rni/.rzi/.rmi/.rpi");
    double v = to_double(a, s);
    if (in.has("ftz") && s.kind == 'f' && s.bits == 32) v = ftz32(static_cast<float>(v));
    uint64_t out = 0;
    if (!std::isnan(v)) {  // NaN converts to 0; everything else saturates (ISA "cvt")
      double rounded;
      {
        RoundingScope scope(mode);
        volatile double vv = v;
        rounded = std::nearbyint(vv);
      }
      if (d.kind == 's') {
        double lo = -std::ldexp(1.0, d.bits - 1), hi = std::ldexp(1.0, d.bits - 1);
        int64_t iv = rounded <= lo   ? static_cast<int64_t>(lo)
                     : rounded >= hi ? (d.bits == 64 ? std::numeric_limits<int64_t>::max()
                                                     : static_cast<int64_t>(hi) - 1)
                                     : static_cast<int64_t>(rounded);
        out = static_cast<uint64_t>(iv) & mask_of(d.bits);
      } else {
        double hi = std::ldexp(1.0, d.bits);
        out = rounded <= 0 ? 0 : rounded >= hi ? mask_of(d.bits) : static_cast<uint64_t>(rounded);
      }
    }
    x.set(0, out);
    return false;
  }
  if (s_flt && d_flt) {
    bool ftz = in.has("ftz");
    if (d.kind == 'f' && d.bits == 16) {  // f32/f64 -> f16: .rn only
      if (!in.has("rn") || sat || in.has("satfinite")) return unsupported(in);
      double v = to_double(a, s);
      if (ftz && s.bits == 32) v = ftz32(static_cast<float>(v));
      x.set(0, s.bits == 32 ? f32_to_f16(static_cast<uint32_t>(a)) : f64_to_f16(v));
      return false;
    }
    if (d.kind == 'h') {
      if (!in.has("rn") || sat || !(s.kind == 'f' && s.bits == 32)) return unsupported(in);
      x.set(0, f32_to_bf16(static_cast<uint32_t>(a)));
      return false;
    }
    if (d.kind == 't') {  // cvt.rna.tf32.f32: nearest, ties away from zero, low 13 bits cleared
      if (!in.has("rna") || !(s.kind == 'f' && s.bits == 32) || in.mods.size() != 3)
        return unsupported(in);
      auto bits = static_cast<uint32_t>(a);
      if ((bits & 0x7f800000) != 0x7f800000) bits = (bits + 0x1000) & 0xffffe000u;
      x.set(0, bits);
      return false;
    }
    // d is f32 or f64
    double v = to_double(a, s);
    if (ftz && s.kind == 'f' && s.bits == 32) v = ftz32(static_cast<float>(v));
    int mode = rounding_of(in, FE_TONEAREST);
    bool to_integer = in.has("rni") || in.has("rzi") || in.has("rmi") || in.has("rpi");
    if (to_integer) {
      RoundingScope scope(mode);
      volatile double vv = v;
      v = std::nearbyint(vv);
    }
    uint64_t out;
    if (d.bits == 32) {
      float f;
      {
        RoundingScope scope(mode);
        volatile double vv = v;
        f = static_cast<float>(vv);
      }
      if (sat) f = std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f);
      if (ftz) f = ftz32(f);
      out = float_bits(f);
    } else {
      if (sat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
      out = double_bits(v);
    }
    x.set(0, out);
    return false;
  }
  return unsupported(in);
}

Result<bool> exec_float(const Exec& x) {
  const Inst& in = x.in;
  Type t = in.type;
  bool ftz = in.has("ftz"), sat = in.has("sat");
  if (!mods_ok(in, {"rn", "rz", "rm", "rp", "ftz", "sat", "approx", "full"}))
    return unsupported(in);
  uint32_t nsrc = in.op == Op::kFma || in.op == Op::kMad ? 3 : 2;
  if (in.op == Op::kNeg || in.op == Op::kAbs || in.op == Op::kEx2 || in.op == Op::kLg2 ||
      in.op == Op::kRcp || in.op == Op::kSqrt || in.op == Op::kRsqrt || in.op == Op::kSin ||
      in.op == Op::kCos || in.op == Op::kTanh)
    nsrc = 1;
  // sm_100's three-input min/max.f32.
  if ((in.op == Op::kMin || in.op == Op::kMax) && t.kind == 'f' && t.bits == 32 && in.count == 4)
    nsrc = 3;
  if (in.count != nsrc + 1 || !x.is_dst(0)) return unsupported(in);
  for (uint32_t i = 1; i <= nsrc; ++i)
    if (!x.is_src(i)) return unsupported(in);
  if (t.kind == 'X') {
    // sm_100's packed .f32x2: the f32 operation on the low and on the high halves.
    if (in.op != Op::kAdd && in.op != Op::kSub && in.op != Op::kMul && in.op != Op::kFma)
      return unsupported(in);
    RoundingScope scope(rounding_of(in, FE_TONEAREST));
    uint64_t out = 0;
    for (unsigned h = 0; h < 2; ++h) {
      auto half = [&](uint32_t i) {
        float f = as_float(static_cast<uint32_t>(x.get(i) >> (32 * h)));
        return ftz ? ftz32(f) : f;
      };
      float r = float_op<float>(in.op, half(1), half(2), nsrc > 2 ? half(3) : 0.0f);
      out |= uint64_t{float_bits(r)} << (32 * h);
    }
    x.set(0, out);
    return false;
  }
  if (t.bits == 16 || t.kind == 'H' || t.kind == 'C' || t.kind == 'h') {
    // Half-precision: only the sign-bit operations, which are exact bit manipulations.
    if ((in.op != Op::kNeg && in.op != Op::kAbs) || in.mods.size() != 1) return unsupported(in);
    uint64_t signs = t.bits == 32 ? 0x80008000u : 0x8000u;
    uint64_t a = x.get(1);
    x.set(0, in.op == Op::kNeg ? a ^ signs : a & ~signs);
    return false;
  }
  int mode = rounding_of(in, FE_TONEAREST);
  if (t.bits == 32) {
    auto arg = [&](uint32_t i) {
      float f = as_float(static_cast<uint32_t>(x.get(i)));
      return ftz ? ftz32(f) : f;
    };
    float a = arg(1), b = nsrc > 1 ? arg(2) : 0, c = nsrc > 2 ? arg(3) : 0, out = 0;
    switch (in.op) {
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kFma:
      case Op::kMad:
      case Op::kDiv: {
        if ((in.op == Op::kFma || in.op == Op::kMad) && rounding_of(in, -1) < 0 &&
            in.op == Op::kFma)
          return unsupported(in);
        RoundingScope scope(mode);
        out = float_op<float>(in.op, a, b, c);
        break;
      }
      case Op::kMin:
      case Op::kMax: {
        // NaN inputs are ignored; -0 is below +0. Three inputs: pairwise, which is the same.
        auto pick = [&](float p, float q) {
          float r = std::isnan(p)       ? q
                    : std::isnan(q)     ? p
                    : in.op == Op::kMin ? std::min(p, q)
                                        : std::max(p, q);
          if (p == 0 && q == 0) r = (std::signbit(p) == (in.op == Op::kMin)) ? p : q;
          return r;
        };
        out = pick(a, b);
        if (nsrc == 3) out = pick(out, c);
        break;
      }
      case Op::kNeg:
        x.set(0, float_bits(a) ^ 0x80000000u);
        return false;
      case Op::kAbs:
        x.set(0, float_bits(a) & 0x7fffffffu);
        return false;
      case Op::kEx2:
        out = std::exp2(a);
        break;
      case Op::kLg2:
        out = std::log2(a);
        break;
      case Op::kRcp: {
        RoundingScope scope(mode);
        volatile float one = 1.0f;
        out = one / a;
        break;
      }
      case Op::kSqrt: {
        RoundingScope scope(mode);
        out = std::sqrt(a);
        break;
      }
      case Op::kRsqrt:
        out = 1.0f / std::sqrt(a);
        break;
      case Op::kSin:
        out = std::sin(a);
        break;
      case Op::kCos:
        out = std::cos(a);
        break;
      case Op::kTanh:
        out = std::tanh(a);
        break;
      default:
        return unsupported(in);
    }
    if (sat) out = std::isnan(out) ? 0.0f : std::clamp(out, 0.0f, 1.0f);
    if (ftz) out = ftz32(out);
    x.set(0, float_bits(out));
    return false;
  }
  if (t.bits == 64 && t.kind == 'f') {
    if (ftz || sat) return unsupported(in);
    auto arg = [&](uint32_t i) { return as_double(x.get(i)); };
    double a = arg(1), b = nsrc > 1 ? arg(2) : 0, c = nsrc > 2 ? arg(3) : 0, out = 0;
    switch (in.op) {
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kFma:
      case Op::kMad:
      case Op::kDiv: {
        RoundingScope scope(mode);
        out = float_op<double>(in.op, a, b, c);
        break;
      }
      case Op::kMin:
        out = std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b);
        break;
      case Op::kMax:
        out = std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
        break;
      case Op::kNeg:
        out = -a;
        break;
      case Op::kAbs:
        out = std::fabs(a);
        break;
      case Op::kRcp: {
        RoundingScope scope(mode);
        volatile double one = 1.0;
        out = one / a;
        break;
      }
      case Op::kSqrt: {
        RoundingScope scope(mode);
        out = std::sqrt(a);
        break;
      }
      default:
        return unsupported(in);
    }
    x.set(0, double_bits(out));
    return false;
  }
  return unsupported(in);
}

Result<bool> exec_int(const Exec& x) {
  const Inst& in = x.in;
  Type t = in.type;
  if (!mods_ok(in, {"lo", "hi", "wide", "sat"})) return unsupported(in);
  bool sat = in.has("sat");
  uint32_t nsrc =
      in.op == Op::kMad ? 3
      : (in.op == Op::kNeg || in.op == Op::kAbs || in.op == Op::kNot || in.op == Op::kCnot ||
         in.op == Op::kPopc || in.op == Op::kClz || in.op == Op::kBrev)
          ? 1
          : 2;
  if (in.count != nsrc + 1 || !x.is_dst(0)) return unsupported(in);
  for (uint32_t i = 1; i <= nsrc; ++i)
    if (!x.is_src(i)) return unsupported(in);
  uint64_t a = x.get(1), b = nsrc > 1 ? x.get(2) : 0;
  uint64_t m = mask_of(t.bits);
  if (t.kind == 'p') {  // predicate logic
    bool pa = a != 0, pb = b != 0, out;
    switch (in.op) {
      case Op::kAnd:
        out = pa && pb;
        break;
      case Op::kOr:
        out = pa || pb;
        break;
      case Op::kXor:
        out = pa != pb;
        break;
      case Op::kNot:
        out = !pa;
        break;
      default:
        return unsupported(in);
    }
    x.set(0, out);
    return false;
  }
  if (!t.is_int()) return unsupported(in);
  if (sat && !(t.kind == 's' && t.bits == 32 && (in.op == Op::kAdd || in.op == Op::kSub)))
    return unsupported(in);
  switch (in.op) {
    case Op::kAdd:
    case Op::kSub:
      if (sat) {
        int64_t v = in.op == Op::kAdd ? sext(a, 32) + sext(b, 32) : sext(a, 32) - sext(b, 32);
        v = std::clamp<int64_t>(v, INT32_MIN, INT32_MAX);
        x.set(0, static_cast<uint64_t>(v) & m);
        return false;
      }
      [[fallthrough]];
    case Op::kMin:
    case Op::kMax:
    case Op::kAnd:
    case Op::kOr:
    case Op::kXor:
    case Op::kDiv:
    case Op::kRem:
      if (in.mods.size() != 1) return unsupported(in);
      x.set(0, int_binary(in.op, a, b, t));
      return false;
    case Op::kMul:
    case Op::kMad: {
      __int128 p = wide_product(a, b, t);
      uint64_t c =
          in.op == Op::kMad
              ? x.get(3, in.has("wide") ? Type{t.kind, static_cast<uint8_t>(t.bits * 2)} : t)
              : 0;
      if (in.has("wide")) {
        if (t.bits > 32) return unsupported(in);
        x.set(0, (static_cast<uint64_t>(p) + c) & mask_of(t.bits * 2));
      } else if (in.has("hi")) {
        x.set(0, (static_cast<uint64_t>(p >> t.bits) + c) & m);
      } else if (in.has("lo")) {
        x.set(0, (static_cast<uint64_t>(p) + c) & m);
      } else {
        return unsupported(in);
      }
      return false;
    }
    case Op::kNeg:
      x.set(0, (0 - a) & m);
      return false;
    case Op::kAbs: {
      if (t.kind != 's') return unsupported(in);
      int64_t v = sext(a, t.bits);
      x.set(0, static_cast<uint64_t>(v < 0 ? 0 - static_cast<uint64_t>(v) : v) & m);
      return false;
    }
    case Op::kNot:
      x.set(0, ~a & m);
      return false;
    case Op::kCnot:
      x.set(0, (a & m) == 0 ? 1 : 0);
      return false;
    case Op::kPopc:
      x.set(0, static_cast<uint64_t>(std::popcount(a & m)));
      return false;
    case Op::kClz:
      x.set(0, static_cast<uint64_t>(std::countl_zero(a & m) - (64 - t.bits)));
      return false;
    case Op::kBrev: {
      uint64_t v = 0;
      for (unsigned i = 0; i < t.bits; ++i)
        if (a >> i & 1) v |= uint64_t{1} << (t.bits - 1 - i);
      x.set(0, v);
      return false;
    }
    case Op::kShl:
    case Op::kShr: {
      uint64_t n = b & 0xffffffffu;  // the shift amount is a u32, clamped to the width
      uint64_t v;
      if (in.op == Op::kShl)
        v = n >= t.bits ? 0 : (a << n) & m;
      else if (t.kind == 's')
        v = static_cast<uint64_t>(sext(a, t.bits) >> std::min<uint64_t>(n, t.bits - 1)) & m;
      else
        v = n >= t.bits ? 0 : (a & m) >> n;
      x.set(0, v);
      return false;
    }
    default:
      return unsupported(in);
  }
}

Result<bool> exec_memory(const Exec& x) {
  const Inst& in = x.in;
  Type t = in.type;
  if (!mods_ok(in, {}) || !t.valid() || t.kind == 'p' || in.count != 2) return unsupported(in);
  uint32_t esize = t.bits / 8;
  if (esize == 0) return unsupported(in);
  bool load = in.op == Op::kLd;
  const Operand& val = x.ops[load ? 0 : 1];
  const Operand& addr = x.ops[load ? 1 : 0];
  uint32_t n = in.vec;
  // A scalar access may name its register in braces (`ld.global.b16 { %rs1 }, [%rd1];`).
  bool braced = val.kind == Operand::kVector;
  if (braced ? val.count != n : n > 1) return unsupported(in, "vector size");
  SMCOMPAT_TRY(uint64_t a, x.address(addr, in.space));
  uint8_t buf[64];
  auto item = [&](uint32_t i) -> const Operand& {
    return braced ? x.b.kernel->vector_items[val.first + i] : val;
  };
  if (load) {
    SMCOMPAT_CHECK(access(x.b, in, x.t, in.space, a, buf, uint64_t{esize} * n, false));
    for (uint32_t i = 0; i < n; ++i) {
      const Operand& d = item(i);
      if (d.kind == Operand::kSink) continue;
      if (d.kind != Operand::kReg) return unsupported(in);
      uint64_t v = 0;
      std::memcpy(&v, buf + i * esize, esize);
      if (t.kind == 's') v = static_cast<uint64_t>(sext(v, t.bits));
      x.r[d.reg] = v;
    }
  } else {
    for (uint32_t i = 0; i < n; ++i) {
      const Operand& s = item(i);
      if (s.kind != Operand::kReg && s.kind != Operand::kImm) return unsupported(in);
      uint64_t v = read_value(x.b, x.t, s, t);
      std::memcpy(buf + i * esize, &v, esize);
    }
    SMCOMPAT_CHECK(access(x.b, in, x.t, in.space, a, buf, uint64_t{esize} * n, true));
  }
  return false;
}

Result<bool> exec_atom(const Exec& x) {
  const Inst& in = x.in;
  Type t = in.type;
  bool atom = in.op == Op::kAtom;
  std::string_view opname;
  for (auto m : in.mods)
    if (m == "add" || m == "min" || m == "max" || m == "exch" || m == "cas" || m == "and" ||
        m == "or" || m == "xor" || m == "inc" || m == "dec")
      opname = m;
  if (opname.empty() || !t.valid() || (t.bits != 32 && t.bits != 64) ||
      !(t.is_int() || t.kind == 'f'))
    return unsupported(in);
  for (auto m : in.mods)
    if (m != opname && !parse_type(m).valid() && !is_ignored_mod(m)) return unsupported(in);
  uint32_t first = atom ? 1 : 0;
  uint32_t nsrc = opname == "cas" ? 2 : 1;
  if (in.count != first + 1 + nsrc || (atom && !x.is_dst(0))) return unsupported(in);
  SMCOMPAT_TRY(uint64_t a, x.address(x.ops[first], in.space));
  uint32_t esize = t.bits / 8;
  uint64_t old = 0;
  SMCOMPAT_CHECK(access(x.b, in, x.t, in.space, a, &old, esize, false));
  uint64_t b = x.get(first + 1), m = mask_of(t.bits), v = 0;
  if (t.kind == 'f') {
    if (opname != "add" && opname != "exch" && opname != "min" && opname != "max")
      return unsupported(in);
    double o = to_double(old, t), y = to_double(b, t);
    double res = opname == "add"    ? o + y
                 : opname == "exch" ? y
                 : opname == "min"  ? std::min(o, y)
                                    : std::max(o, y);
    v = opname == "exch" ? b : float_result(res, t);
    if (t.bits == 32 && opname == "add")
      v = float_bits(as_float(static_cast<uint32_t>(old)) + as_float(static_cast<uint32_t>(b)));
  } else if (opname == "add" || opname == "min" || opname == "max" || opname == "and" ||
             opname == "or" || opname == "xor") {
    Op op = opname == "add"   ? Op::kAdd
            : opname == "min" ? Op::kMin
            : opname == "max" ? Op::kMax
            : opname == "and" ? Op::kAnd
            : opname == "or"  ? Op::kOr
                              : Op::kXor;
    v = int_binary(op, old, b, t);
  } else if (opname == "exch") {
    v = b & m;
  } else if (opname == "cas") {
    v = (old & m) == (b & m) ? x.get(first + 2) & m : old;
  } else if (opname == "inc") {
    v = (old & m) >= (b & m) ? 0 : (old + 1) & m;
  } else {  // dec
    v = ((old & m) == 0 || (old & m) > (b & m)) ? b & m : (old - 1) & m;
  }
  SMCOMPAT_CHECK(access(x.b, in, x.t, in.space, a, &v, esize, true));
  if (atom) x.set(0, old);
  return false;
}

}  // namespace

/// Round-to-nearest-even f64 -> f16 in one step (no double rounding through f32).
uint16_t f64_to_f16(double d) {
  if (std::isnan(d)) return 0x7fff;
  uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  double a = std::fabs(d);
  if (a >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  int e;
  std::frexp(a, &e);                        // a = m * 2^e, m in [0.5, 1)
  int exp = std::max(e - 1, -14);           // unbiased exponent, subnormals share -14
  double scaled = std::ldexp(a, 10 - exp);  // integer significand with 10 fraction bits
  double q = std::nearbyint(scaled);        // default mode: ties to even
  auto n = static_cast<uint32_t>(q);
  if (n == 0) return sign;
  if (n >= 2048) {  // carried into the next binade
    n >>= 1;
    ++exp;
  }
  if (n < 1024) return static_cast<uint16_t>(sign | n);  // subnormal
  return static_cast<uint16_t>(sign | ((exp + 15) << 10) | (n - 1024));
}

Result<bool> exec_scalar(Block& b, uint32_t t, const Inst& in, uint32_t& pc) {
  Exec x{b, t, b.reg_base(t), in, b.kernel->operands.data() + in.first};
  Type ty = in.type;
  ++pc;
  switch (in.op) {
    case Op::kBra:
      pc = in.target;
      return false;
    case Op::kRet:
    case Op::kExit:
      return true;
    case Op::kNop:
      return false;
    case Op::kMov: {
      if (in.count != 2 || !ty.valid() || in.mods.size() != 1) return unsupported(in);
      const Operand& d = x.ops[0];
      const Operand& s = x.ops[1];
      const auto& items = b.kernel->vector_items;
      if (s.kind == Operand::kVector) {  // pack: element 0 in the low bits
        if (d.kind != Operand::kReg || s.count == 0 || ty.bits % s.count) return unsupported(in);
        unsigned w = ty.bits / s.count;
        uint64_t v = 0;
        for (uint32_t i = 0; i < s.count; ++i) {
          const Operand& e = items[s.first + i];
          if (e.kind != Operand::kReg && e.kind != Operand::kImm) return unsupported(in);
          v |= (read_value(b, t, e, Type{'b', static_cast<uint8_t>(w)}) & mask_of(w)) << (w * i);
        }
        x.r[d.reg] = v;
        return false;
      }
      if (d.kind == Operand::kVector) {  // unpack
        if (!x.is_src(1) || d.count == 0 || ty.bits % d.count) return unsupported(in);
        unsigned w = ty.bits / d.count;
        uint64_t v = x.get(1);
        for (uint32_t i = 0; i < d.count; ++i) {
          const Operand& e = items[d.first + i];
          if (e.kind == Operand::kSink) continue;
          if (e.kind != Operand::kReg) return unsupported(in);
          x.r[e.reg] = (v >> (w * i)) & mask_of(w);
        }
        return false;
      }
      if (!x.is_dst(0) || !x.is_src(1)) return unsupported(in);
      uint64_t v = x.get(1);
      x.set(0, ty.kind == 'p' ? (v != 0) : v & mask_of(ty.bits));
      return false;
    }
    case Op::kLd:
    case Op::kSt:
      return exec_memory(x);
    case Op::kCvta: {
      if (in.count != 2 || !x.is_dst(0) || !x.is_src(1) || !ty.valid()) return unsupported(in);
      bool to = in.has("to");
      uint64_t window = in.space == Space::kShared   ? kSharedWindow
                        : in.space == Space::kLocal  ? kLocalWindow
                        : in.space == Space::kGlobal ? 0
                                                     : UINT64_MAX;
      if (window == UINT64_MAX) return unsupported(in);
      uint64_t v = x.get(1);
      x.set(0, (to ? v - window : v + window) & mask_of(ty.bits));
      return false;
    }
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kMad:
    case Op::kDiv:
    case Op::kRem:
    case Op::kMin:
    case Op::kMax:
    case Op::kNeg:
    case Op::kAbs:
    case Op::kFma:
    case Op::kEx2:
    case Op::kLg2:
    case Op::kRcp:
    case Op::kSqrt:
    case Op::kRsqrt:
    case Op::kSin:
    case Op::kCos:
    case Op::kTanh:
      if (ty.kind == 'f' || ty.kind == 'X' || ty.kind == 'H' || ty.kind == 'C' || ty.kind == 'h') {
        if (in.op == Op::kRem) return unsupported(in);
        return exec_float(x);
      }
      if (in.op == Op::kFma || in.op >= Op::kEx2) return unsupported(in);
      return exec_int(x);
    case Op::kAnd:
    case Op::kOr:
    case Op::kXor:
    case Op::kNot:
    case Op::kCnot:
    case Op::kShl:
    case Op::kShr:
    case Op::kPopc:
    case Op::kClz:
    case Op::kBrev:
      return exec_int(x);
    case Op::kCopysign: {
      if (in.count != 3 || !(ty.kind == 'f' && ty.bits == 32) || in.mods.size() != 1)
        return unsupported(in);
      auto a = static_cast<uint32_t>(x.get(1)), c = static_cast<uint32_t>(x.get(2));
      x.set(0, (c & 0x7fffffffu) | (a & 0x80000000u));
      return false;
    }
    case Op::kBfe: {
      if (in.count != 4 || !ty.is_int() || ty.kind == 'b' || in.mods.size() != 1)
        return unsupported(in);
      uint64_t a = x.get(1);
      unsigned pos = x.get(2, Type{'u', 32}) & 0xff, len = x.get(3, Type{'u', 32}) & 0xff;
      unsigned msb = ty.bits - 1;
      uint64_t sbit = (ty.kind == 's' && len != 0) ? (a >> std::min(pos + len - 1, msb)) & 1 : 0;
      uint64_t v = 0;
      for (unsigned i = 0; i < ty.bits; ++i) {
        uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
        v |= bit << i;
      }
      x.set(0, v);
      return false;
    }
    case Op::kBfi: {
      if (in.count != 5 || ty.kind != 'b' || in.mods.size() != 1) return unsupported(in);
      uint64_t f = x.get(1), v = x.get(2) & mask_of(ty.bits);
      unsigned pos = x.get(3, Type{'u', 32}) & 0xff, len = x.get(4, Type{'u', 32}) & 0xff;
      for (unsigned i = 0; i < len && pos + i < ty.bits; ++i)
        v = (v & ~(uint64_t{1} << (pos + i))) | (((f >> i) & 1) << (pos + i));
      x.set(0, v);
      return false;
    }
    case Op::kPrmt: {
      if (in.count != 4 || in.mods.size() != 1 || !(ty.kind == 'b' && ty.bits == 32))
        return unsupported(in);  // only the default (generic byte select) mode
      uint64_t bytes = (x.get(1) & 0xffffffffu) | ((x.get(2) & 0xffffffffu) << 32);
      uint64_t c = x.get(3);
      uint64_t v = 0;
      for (int i = 0; i < 4; ++i) {
        unsigned sel = (c >> (4 * i)) & 0xf;
        uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        v |= byte << (8 * i);
      }
      x.set(0, v);
      return false;
    }
    case Op::kSetp: {
      std::string_view cmp, combine;
      Type st;
      for (auto m : in.mods) {
        if (parse_type(m).valid())
          st = parse_type(m);
        else if (m == "and" || m == "or" || m == "xor")
          combine = m;
        else if (m == "ftz")
          continue;
        else if (cmp.empty())
          cmp = m;
        else
          return unsupported(in);
      }
      uint32_t need = combine.empty() ? 3 : 4;
      if (in.count != need || !st.valid() || x.ops[0].kind != Operand::kReg) return unsupported(in);
      uint64_t a = x.get(1, st), c = x.get(2, st);
      bool known = false, v;
      if (st.kind == 'f' || st.kind == 'h') {
        double x = to_double(a, st), y = to_double(c, st);
        if (in.has("ftz") && st.bits == 32) {  // subnormal inputs compare as signed zeros
          x = ftz32(static_cast<float>(x));
          y = ftz32(static_cast<float>(y));
        }
        v = compare(cmp, x, y, &known);
      } else if (st.is_int())
        v = compare_int(cmp, a, c, st, &known);
      else
        return unsupported(in);
      if (!known) return unsupported(in);
      bool q = !v;
      if (!combine.empty()) {
        bool p = x.get(3, Type{'p', 1}) != 0;
        auto f = [&](bool z) {
          return combine == "and" ? z && p : combine == "or" ? z || p : z != p;
        };
        v = f(v);
        q = f(q);
      }
      x.r[x.ops[0].reg] = v;
      if (x.ops[0].reg2 != UINT32_MAX) x.r[x.ops[0].reg2] = q;
      return false;
    }
    case Op::kSelp: {
      if (in.count != 4 || !x.is_dst(0) || in.mods.size() != 1 || !ty.valid())
        return unsupported(in);
      bool c = x.get(3, Type{'p', 1}) != 0;
      x.set(0, (c ? x.get(1) : x.get(2)) & mask_of(ty.bits));
      return false;
    }
    case Op::kSlct: {
      if (in.count != 4 || !x.is_dst(0) || !in.type2.valid()) return unsupported(in);
      uint64_t c = x.get(3, in.type2);
      bool pick_a =
          in.type2.kind == 'f' ? !(as_float(static_cast<uint32_t>(c)) < 0.0f) : sext(c, 32) >= 0;
      x.set(0, (pick_a ? x.get(1) : x.get(2)) & mask_of(ty.bits));
      return false;
    }
    case Op::kCvt:
      return exec_cvt(x);
    case Op::kAtom:
    case Op::kRed:
      return exec_atom(x);
    case Op::kCpAsync: {
      // cp.async completes at once; commit_group/wait_group/wait_all order nothing more.
      if (in.has("commit_group") || in.has("wait_group") || in.has("wait_all")) return false;
      if (!(in.has("ca") || in.has("cg")) || in.space != Space::kShared || in.count < 3 ||
          in.count > 4)
        return unsupported(in);
      for (auto m : in.mods)
        if (m != "async" && !is_ignored_mod(m)) return unsupported(in);
      SMCOMPAT_TRY(uint64_t dst, x.address(x.ops[0], Space::kShared));
      SMCOMPAT_TRY(uint64_t src, x.address(x.ops[1], Space::kGlobal));
      if (x.ops[2].kind != Operand::kImm) return unsupported(in);
      uint64_t size = x.ops[2].imm;
      if (size != 4 && size != 8 && size != 16) return unsupported(in, "copy size");
      uint64_t src_size = in.count == 4 ? x.get(3, Type{'u', 32}) : size;
      uint8_t buf[16] = {};
      if (src_size > 0)
        SMCOMPAT_CHECK(access(b, in, t, Space::kGlobal, src, buf, std::min(src_size, size), false));
      SMCOMPAT_CHECK(access(b, in, t, Space::kShared, dst, buf, size, true));
      return false;
    }
    case Op::kTrap:
      return make_error(fmt::format("{}: the kernel executed trap (thread {})", where(in), t),
                        in.st->loc.offset);
    case Op::kMbarrier:
    case Op::kTcgen05:
      SMCOMPAT_CHECK(exec_thread_tcgen05(b, t, in));
      return false;
    default:
      return unsupported(in);
  }
}

}  // namespace smcompat::ptx::interp_detail
