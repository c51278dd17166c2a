// PTX interpreter: loading a kernel (registers resolved to slots, operands decoded once), the
// block scheduler (threads run alone up to the next collective) and the scalar instructions.
// Semantics follow PTX ISA 9.0, chapter "Instruction Set"; see include/smcompat/ptx/interp.hpp.
#include <cfenv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "interp_internal.hpp"

namespace smcompat::ptx {

uint64_t InterpMemory::allocate(size_t bytes) {
  uint64_t address = next_;
  buffers_.emplace(address, std::vector<uint8_t>(bytes));
  // 256-byte aligned, with at least 4 KiB unmapped after each buffer.
  next_ = (address + bytes + 4096 + 255) & ~uint64_t{255};
  return address;
}

std::span<uint8_t> InterpMemory::buffer(uint64_t address) {
  auto it = buffers_.find(address);
  if (it == buffers_.end()) return {};
  return it->second;
}

uint8_t* InterpMemory::find(uint64_t address, uint64_t size) {
  auto it = buffers_.upper_bound(address);
  if (it == buffers_.begin()) return nullptr;
  --it;
  uint64_t off = address - it->first;
  if (off > it->second.size() || size > it->second.size() - off) return nullptr;
  return it->second.data() + off;
}

namespace interp_detail {

Type parse_type(std::string_view m) {
  if (m == "pred") return {'p', 1};
  if (m == "f16x2") return {'H', 32};
  if (m == "f32x2") return {'X', 64};
  if (m == "bf16x2") return {'C', 32};
  if (m == "bf16") return {'h', 16};
  if (m == "tf32") return {'t', 32};
  if (m == "e4m3") return {'e', 8};
  if (m == "e5m2") return {'m', 8};
  if (m == "e4m3x2") return {'E', 16};
  if (m == "e5m2x2") return {'M', 16};
  if (m.size() < 2 || m.size() > 3) return {};
  char k = m[0];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return {};
  std::string_view n = m.substr(1);
  uint8_t bits = n == "8" ? 8 : n == "16" ? 16 : n == "32" ? 32 : n == "64" ? 64 : 0;
  if (bits == 0 || (k == 'f' && bits == 8)) return {};
  return {k, bits};
}

std::string where(const Inst& inst) {
  return fmt::format("line {}, column {}", inst.st->loc.line, inst.st->loc.col);
}

Error unsupported(const Inst& inst, std::string_view why) {
  std::string what =
      fmt::format("{}: unsupported in the interpreter: {}", where(inst), inst.st->name);
  if (!why.empty()) what += fmt::format(" ({})", why);
  return make_error(std::move(what), inst.st->loc.offset);
}

// ---- number formats -------------------------------------------------------------------------

uint16_t f32_to_f16(uint32_t x) {  // round to nearest even, IEEE subnormals, inf, NaN
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t man = x & 0x7fffff;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    man |= 0x800000;
    int shift = 14 - e;
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // a carry may reach inf: correct
  return static_cast<uint16_t>(sign | half);
}

uint32_t f16_to_f32(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return sign | 0x7f800000 | (man << 13);
  if (exp == 0) {
    if (man == 0) return sign;
    float v = std::ldexp(static_cast<float>(man), -24);
    return sign | float_bits(v);
  }
  return sign | ((exp + 112) << 23) | (man << 13);
}

uint16_t f32_to_bf16(uint32_t x) {
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t rounded = x + 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(rounded >> 16);
}

double e4m3_to_double(uint8_t b) {  // no infinities; S.1111.111 is NaN
  double sign = (b & 0x80) ? -1.0 : 1.0;
  int exp = (b >> 3) & 0xf;
  int man = b & 7;
  if (exp == 15 && man == 7) return std::numeric_limits<double>::quiet_NaN();
  if (exp == 0) return sign * std::ldexp(man, -9);
  return sign * std::ldexp(8 + man, exp - 10);
}

double e5m2_to_double(uint8_t b) {
  double sign = (b & 0x80) ? -1.0 : 1.0;
  int exp = (b >> 2) & 0x1f;
  int man = b & 3;
  if (exp == 31)
    return man ? std::numeric_limits<double>::quiet_NaN()
               : sign * std::numeric_limits<double>::infinity();
  if (exp == 0) return sign * std::ldexp(man, -16);
  return sign * std::ldexp(4 + man, exp - 17);
}

namespace {

// ---- special registers ----------------------------------------------------------------------

enum Special : uint8_t {
  kTidX,
  kTidY,
  kTidZ,
  kNtidX,
  kNtidY,
  kNtidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kNctaidX,
  kNctaidY,
  kNctaidZ,
  kLaneid,
  kWarpid,
  kNwarpid,
  kLanemaskLt,
  kLanemaskLe,
  kLanemaskGt,
  kLanemaskGe,
  kLanemaskEq,
  kDynSmem,
};

std::optional<Special> parse_special(std::string_view s) {
  static const std::pair<std::string_view, Special> kTable[] = {
      {"%tid.x", kTidX},
      {"%tid.y", kTidY},
      {"%tid.z", kTidZ},
      {"%ntid.x", kNtidX},
      {"%ntid.y", kNtidY},
      {"%ntid.z", kNtidZ},
      {"%ctaid.x", kCtaidX},
      {"%ctaid.y", kCtaidY},
      {"%ctaid.z", kCtaidZ},
      {"%nctaid.x", kNctaidX},
      {"%nctaid.y", kNctaidY},
      {"%nctaid.z", kNctaidZ},
      {"%laneid", kLaneid},
      {"%warpid", kWarpid},
      {"%nwarpid", kNwarpid},
      {"%lanemask_lt", kLanemaskLt},
      {"%lanemask_le", kLanemaskLe},
      {"%lanemask_gt", kLanemaskGt},
      {"%lanemask_ge", kLanemaskGe},
      {"%lanemask_eq", kLanemaskEq},
      {"%dynamic_smem_size", kDynSmem},
  };
  for (auto& [n, v] : kTable)
    if (s == n) return v;
  return std::nullopt;
}

uint64_t special_value(Block& b, uint32_t t, uint8_t which) {
  const auto& bl = b.launch->block;
  const auto& gr = b.launch->grid;
  uint32_t lane = t % 32;
  switch (which) {
    case kTidX:
      return t % bl[0];
    case kTidY:
      return (t / bl[0]) % bl[1];
    case kTidZ:
      return t / (bl[0] * bl[1]);
    case kNtidX:
      return bl[0];
    case kNtidY:
      return bl[1];
    case kNtidZ:
      return bl[2];
    case kCtaidX:
      return b.ctaid[0];
    case kCtaidY:
      return b.ctaid[1];
    case kCtaidZ:
      return b.ctaid[2];
    case kNctaidX:
      return gr[0];
    case kNctaidY:
      return gr[1];
    case kNctaidZ:
      return gr[2];
    case kLaneid:
      return lane;
    case kWarpid:
      return t / 32;
    case kNwarpid:
      return (b.thread_count + 31) / 32;
    case kLanemaskLt:
      return (1ull << lane) - 1;
    case kLanemaskLe:
      return (2ull << lane) - 1;
    case kLanemaskGt:
      return 0xffffffffull & ~((2ull << lane) - 1);
    case kLanemaskGe:
      return 0xffffffffull & ~((1ull << lane) - 1);
    case kLanemaskEq:
      return 1ull << lane;
    case kDynSmem:
      return b.launch->dynamic_shared_bytes;
  }
  return 0;
}

// ---- loading --------------------------------------------------------------------------------

struct Symbol {
  Space space;
  uint64_t address;
};

struct Loader {
  const Module& m;
  const Function& f;
  Kernel& k;
  std::unordered_map<std::string, uint32_t> regs;
  std::unordered_map<std::string_view, Symbol> symbols;
  std::unordered_map<std::string_view, uint32_t> labels;

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  }

  static std::optional<uint64_t> parse_int(std::string_view s, bool* is_float = nullptr) {
    s = trim(s);
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
      neg = s[0] == '-';
      s.remove_prefix(1);
    }
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
    if (s.empty()) return std::nullopt;
    uint64_t v = 0;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
      base = 2;
      s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
      base = 8;
      s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    for (char c : s) {
      int d = isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'a' && c <= 'f')               ? c - 'a' + 10
              : (c >= 'A' && c <= 'F')               ? c - 'A' + 10
                                                     : 99;
      if (d >= base) {
        if (is_float) *is_float = true;
        return std::nullopt;
      }
      v = v * base + d;
    }
    return neg ? ~v + 1 : v;
  }

  std::optional<uint32_t> reg_slot(std::string_view name) const {
    auto it = regs.find(std::string(name));
    if (it == regs.end()) return std::nullopt;
    return it->second;
  }

  // Decodes one operand; returns false if its form is not understood.
  bool decode(std::string_view text, Operand& out) {
    text = trim(text);
    if (text.empty()) return false;
    if (text == "_") {
      out.kind = Operand::kSink;
      return true;
    }
    if (text.front() == '{') {
      if (text.back() != '}') return false;
      std::vector<Operand> items;
      std::string_view inner = text.substr(1, text.size() - 2);
      while (true) {
        size_t comma = inner.find(',');
        Operand item;
        if (!decode(inner.substr(0, comma), item)) return false;
        if (item.kind == Operand::kVector || item.kind == Operand::kAddress) return false;
        items.push_back(item);
        if (comma == std::string_view::npos) break;
        inner.remove_prefix(comma + 1);
      }
      out.kind = Operand::kVector;
      out.first = static_cast<uint32_t>(k.vector_items.size());
      out.count = static_cast<uint32_t>(items.size());
      k.vector_items.insert(k.vector_items.end(), items.begin(), items.end());
      return true;
    }
    if (text.front() == '[') {
      if (text.back() != ']') return false;
      std::string_view inner = trim(text.substr(1, text.size() - 2));
      out.kind = Operand::kAddress;
      // base [+|- offset]; "+-imm" is a negative displacement.
      size_t split = inner.find_first_of("+-", 1);
      std::string_view base = trim(inner.substr(0, split));
      if (split != std::string_view::npos) {
        std::string_view off = trim(inner.substr(split + 1));
        bool minus = inner[split] == '-';
        auto v = parse_int(off);
        if (!v) return false;
        out.offset = minus ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
      }
      if (base.empty()) return false;
      if (base[0] == '%' || reg_slot(base)) {
        auto slot = reg_slot(base);
        if (!slot) return false;
        out.has_base_reg = true;
        out.reg = *slot;
      } else if (auto v = parse_int(base)) {
        out.offset += static_cast<int64_t>(*v);
      } else {
        auto it = symbols.find(base);
        if (it == symbols.end()) return false;
        out.has_symbol = true;
        out.symbol_space = it->second.space;
        out.imm = it->second.address;
      }
      return true;
    }
    if (text.front() == '!') {
      if (!decode(text.substr(1), out) || out.kind != Operand::kReg) return false;
      out.negate = true;
      return true;
    }
    if (text.front() == '%') {
      size_t bar = text.find('|');
      if (bar != std::string_view::npos) {
        auto a = reg_slot(trim(text.substr(0, bar)));
        auto b = reg_slot(trim(text.substr(bar + 1)));
        if (!a || !b) return false;
        out.kind = Operand::kReg;
        out.reg = *a;
        out.reg2 = *b;
        return true;
      }
      if (auto slot = reg_slot(text)) {
        out.kind = Operand::kReg;
        out.reg = *slot;
        return true;
      }
      if (auto s = parse_special(text)) {
        out.kind = Operand::kSpecial;
        out.special = *s;
        return true;
      }
      return false;
    }
    if (text.size() == 10 && (text.substr(0, 2) == "0f" || text.substr(0, 2) == "0F")) {
      auto v = parse_int("0x" + std::string(text.substr(2)));
      if (!v) return false;
      out.kind = Operand::kImm;
      out.imm = *v;
      out.imm_f32 = true;
      return true;
    }
    if (text.size() == 18 && (text.substr(0, 2) == "0d" || text.substr(0, 2) == "0D")) {
      auto v = parse_int("0x" + std::string(text.substr(2)));
      if (!v) return false;
      out.kind = Operand::kImm;
      out.imm = *v;
      out.imm_f64 = true;
      return true;
    }
    if (isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-' ||
        text.front() == '+') {
      bool is_float = false;
      if (auto v = parse_int(text, &is_float)) {
        out.kind = Operand::kImm;
        out.imm = *v;
        return true;
      }
      std::string s(text);
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size()) return false;
      out.kind = Operand::kImm;
      out.imm = double_bits(d);
      out.imm_float = true;
      return true;
    }
    if (auto slot = reg_slot(text)) {  // registers declared without '%' (inline asm)
      out.kind = Operand::kReg;
      out.reg = *slot;
      return true;
    }
    // symbol, or symbol+offset (e.g. `mov.u64 %rd1, smem+128;`)
    size_t plus = text.find('+');
    std::string_view name = trim(text.substr(0, plus));
    auto it = symbols.find(name);
    if (it == symbols.end()) return false;
    out.kind = Operand::kSymbol;
    out.symbol_space = it->second.space;
    out.imm = it->second.address;
    if (plus != std::string_view::npos) {
      auto v = parse_int(text.substr(plus + 1));
      if (!v) return false;
      out.imm += *v;
    }
    return true;
  }

  static Space space_of(std::string_view s) {
    if (s == ".shared") return Space::kShared;
    if (s == ".global") return Space::kGlobal;
    if (s == ".local") return Space::kLocal;
    if (s == ".param") return Space::kParam;
    if (s == ".const") return Space::kConst;
    return Space::kGeneric;
  }

  Result<void> declare(const Variable& v, uint64_t& shared_top, uint64_t& local_top) {
    if (v.space == ".reg") {
      if (v.param_count > 0) {
        if (v.param_count > (1u << 16)) return make_error("too many registers", v.loc.offset);
        for (uint32_t i = 0; i < v.param_count; ++i)
          bind_register(std::string(v.name) + std::to_string(i));
      } else {
        bind_register(std::string(v.name));
      }
      if (k.register_count > (1u << 16)) return make_error("too many registers", v.loc.offset);
      return {};
    }
    Space sp = space_of(v.space);
    uint64_t align = std::max<uint64_t>(v.align ? v.align : 1, v.element_size ? v.element_size : 1);
    if (align > 4096 || (align & (align - 1))) align = 16;
    if (sp == Space::kShared || sp == Space::kLocal) {
      uint64_t& top = sp == Space::kShared ? shared_top : local_top;
      std::optional<uint64_t> size = v.size_bytes();
      if (!size) {
        if (!v.is_extern) return make_error("variable of unknown size", v.loc.offset);
        size = 0;  // placed after everything else, sized by the launch
        if (sp == Space::kShared) {
          extern_shared.push_back(v.name);
          return {};
        }
      }
      if (*size > (1ull << 24)) return make_error("variable too large", v.loc.offset);
      top = (top + align - 1) & ~(align - 1);
      symbols[v.name] = {sp, top};
      top += *size;
      return {};
    }
    return make_error(
        fmt::format("line {}, column {}: unsupported in the interpreter: {} variable {}",
                    v.loc.line, v.loc.col, v.space, v.name),
        v.loc.offset);
  }
  std::vector<std::string_view> extern_shared;
  // Registers are scoped by nested `{ }` blocks (inline asm declares its own, often with the same
  // names in every block): an undo log restores the outer binding at the block's end.
  std::vector<std::pair<std::string, std::optional<uint32_t>>> undo;
  std::vector<size_t> block_marks;
  void bind_register(std::string name) {
    auto it = regs.find(name);
    undo.emplace_back(name, it == regs.end() ? std::nullopt : std::optional<uint32_t>(it->second));
    regs[std::move(name)] = k.register_count++;
  }
  void end_block() {
    if (block_marks.empty()) return;
    size_t mark = block_marks.back();
    block_marks.pop_back();
    while (undo.size() > mark) {
      auto& [name, old] = undo.back();
      if (old)
        regs[name] = *old;
      else
        regs.erase(name);
      undo.pop_back();
    }
  }

  // Writes `= {1, 2, ...}` or `= 5` of a module-scope variable (numbers only; the rest stays zero).
  bool write_initializer(const TopVariables& tv, const Variable& v, std::span<uint8_t> out) {
    const Token* tokens = m.tokens.data() + tv.first_token;
    uint32_t i = 0, n = tv.token_count;
    while (i < n && !(tokens[i].kind == TokenKind::kIdentifier && tokens[i].text == v.name)) ++i;
    while (i < n && !tokens[i].is('=')) ++i;
    if (i == n) return false;
    uint64_t esize = v.element_size;
    if (esize == 0 || esize > 8) return false;
    uint64_t at = 0;
    int depth = 0;
    bool negative = false;
    for (++i; i < n; ++i) {
      const Token& t = tokens[i];
      if (t.is('{'))
        ++depth;
      else if (t.is('}')) {
        if (--depth <= 0) break;
      } else if (t.is('-'))
        negative = true;
      else if (t.is(',')) {
        if (depth == 0) break;
      } else if (t.is(';'))
        break;
      else if (t.kind == TokenKind::kNumber) {
        Operand o;
        if (!decode(t.text, o) || o.kind != Operand::kImm) return false;
        uint64_t value = o.imm;
        if (o.imm_float) {  // decimal float literal: stored as the element's float type
          if (esize == 4)
            value = float_bits(static_cast<float>(as_double(value)));
          else if (esize != 8)
            return false;
        }
        if (negative)
          value = (o.imm_float || o.imm_f32 || o.imm_f64) ? value ^ (uint64_t{1} << (esize * 8 - 1))
                                                          : ~value + 1;
        negative = false;
        if (at + esize > out.size()) return false;
        std::memcpy(out.data() + at, &value, esize);
        at += esize;
      } else {
        return false;
      }
    }
    return true;
  }

  Result<void> load(const InterpLaunch& launch, std::span<const uint64_t> params,
                    InterpMemory& memory) {
    k.module = &m;
    k.function = &f;
    uint64_t shared_top = 0, local_top = 0;
    // Module-scope variables: shared ones are laid out per block like function-scope ones; global
    // ones get a buffer (initialisers are not supported).
    for (const auto& tv : m.variable_decls) {
      for (uint32_t i = 0; i < tv.variable_count; ++i) {
        const Variable& v = m.variables[tv.first_variable + i];
        if (v.space == ".global" || v.space == ".const") {
          auto refuse = [&](std::string_view why) {
            return make_error(fmt::format("line {}, column {}: unsupported in the interpreter: "
                                          "{} variable {} ({})",
                                          v.loc.line, v.loc.col, v.space, v.name, why),
                              v.loc.offset);
          };
          if (!v.size_bytes()) return refuse("unsized");
          uint64_t size = *v.size_bytes();
          if (size > (1ull << 26)) return make_error("variable too large", v.loc.offset);
          uint64_t address = memory.allocate(size);
          symbols[v.name] = {Space::kGlobal, address};
          if (v.has_initializer && !write_initializer(tv, v, memory.buffer(address)))
            return refuse("initialiser other than a list of numbers");
        } else if (v.space == ".shared") {
          SMCOMPAT_CHECK(declare(v, shared_top, local_top));
        }
      }
    }
    // Kernel parameters: laid out with their alignment in the param image.
    uint64_t ptop = 0;
    if (params.size() != f.params.size())
      return make_error(fmt::format("kernel {} has {} parameters, {} given", f.name,
                                    f.params.size(), params.size()));
    for (size_t i = 0; i < f.params.size(); ++i) {
      const Variable& p = f.params[i];
      uint64_t size = p.size_bytes().value_or(8);
      if (size == 0 || size > 4096) return make_error("bad parameter size", p.loc.offset);
      uint64_t align =
          std::max<uint64_t>(p.align ? p.align : 1, p.element_size ? p.element_size : 1);
      if (align > 256 || (align & (align - 1))) align = 8;
      ptop = (ptop + align - 1) & ~(align - 1);
      symbols[p.name] = {Space::kParam, ptop};
      k.param_image.resize(ptop + size);
      uint64_t value = params[i];
      std::memcpy(k.param_image.data() + ptop, &value, std::min<uint64_t>(size, 8));
      ptop += size;
    }
    // Memory variables and labels first (both may be named before their declaration); registers
    // are bound in order, with their block scopes, while the instructions are decoded.
    uint32_t count = 0;
    for (uint32_t i = 0; i < f.statement_count; ++i) {
      const Statement& s = m.statements[f.first_statement + i];
      if (s.kind == StatementKind::kDeclaration) {
        for (uint32_t j = 0; j < s.variable_count; ++j)
          if (m.variables[s.first_variable + j].space != ".reg")
            SMCOMPAT_CHECK(declare(m.variables[s.first_variable + j], shared_top, local_top));
      } else if (s.kind == StatementKind::kLabel) {
        labels[s.name] = count;
      } else if (s.kind == StatementKind::kInstruction) {
        ++count;
      }
    }
    shared_top = (shared_top + 1023) & ~uint64_t{1023};
    for (auto name : extern_shared) symbols[name] = {Space::kShared, shared_top};
    shared_top += launch.dynamic_shared_bytes;
    k.shared_bytes = shared_top;
    k.local_bytes = (local_top + 15) & ~uint64_t{15};
    // Far above any GPU's limits, low enough that bad PTX cannot exhaust the host's memory.
    uint64_t threads = uint64_t{launch.block[0]} * launch.block[1] * launch.block[2];
    if (k.shared_bytes > (1ull << 24) || k.local_bytes * threads > (1ull << 28))
      return make_error("shared or local memory too large");

    for (uint32_t i = 0; i < f.statement_count; ++i) {
      const Statement& s = m.statements[f.first_statement + i];
      if (s.kind == StatementKind::kDeclaration) {
        for (uint32_t j = 0; j < s.variable_count; ++j)
          if (m.variables[s.first_variable + j].space == ".reg")
            SMCOMPAT_CHECK(declare(m.variables[s.first_variable + j], shared_top, local_top));
      } else if (s.kind == StatementKind::kBlockBegin) {
        block_marks.push_back(undo.size());
      } else if (s.kind == StatementKind::kBlockEnd) {
        end_block();
      } else if (s.kind == StatementKind::kInstruction) {
        k.insts.push_back(decode_inst(s));
      }
    }
    if (uint64_t{k.register_count} * threads > (1ull << 26))
      return make_error("too many registers for the block size");
    return {};
  }

  Inst decode_inst(const Statement& s) {
    Inst in;
    in.st = &s;
    std::string_view name = s.name;
    std::string_view opcode = name.substr(0, name.find('.'));
    size_t pos = opcode.size();
    while (pos < name.size()) {
      size_t next = name.find('.', pos + 1);
      // "::" qualifiers (shared::cta, L2::128B) stay inside one modifier.
      std::string_view mod = name.substr(
          pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
      in.mods.push_back(mod);
      pos = next == std::string_view::npos ? name.size() : next;
    }
    Type* types[] = {&in.type, &in.type2, &in.type3, &in.type4};
    int ntypes = 0;
    for (auto mod : in.mods) {
      Type t = parse_type(mod);
      if (t.valid() && ntypes < 4) *types[ntypes++] = t;
      if (mod == "v2") in.vec = 2;
      if (mod == "v4") in.vec = 4;
      if (mod == "v8") in.vec = 8;
      Space sp = space_of(fmt::format(".{}", mod.substr(0, mod.find(':'))));
      if (sp != Space::kGeneric && in.space == Space::kGeneric) in.space = sp;
    }
    if (!s.guard.empty()) {
      std::string_view g = s.guard.substr(1);
      if (!g.empty() && g[0] == '!') {
        in.guard_negated = true;
        g.remove_prefix(1);
      }
      auto slot = reg_slot(g);
      if (!slot) return in;  // kUnsupported
      in.guard = *slot;
    }
    in.first = static_cast<uint32_t>(k.operands.size());
    in.count = s.operand_count;
    const std::string_view* ops = m.operands_of(s);
    if (opcode == "bra") {
      if (s.operand_count != 1) return in;
      auto it = labels.find(trim(ops[0]));
      if (it == labels.end()) return in;
      in.target = it->second;
      in.op = Op::kBra;
      return in;
    }
    for (uint32_t i = 0; i < s.operand_count; ++i) {
      Operand o;
      if (!decode(ops[i], o)) {
        in.count = 0;
        return in;  // kUnsupported: an operand form we do not know
      }
      k.operands.push_back(o);
    }
    static const std::pair<std::string_view, Op> kOps[] = {
        {"mov", Op::kMov},
        {"ld", Op::kLd},
        {"st", Op::kSt},
        {"cvta", Op::kCvta},
        {"add", Op::kAdd},
        {"sub", Op::kSub},
        {"mul", Op::kMul},
        {"mad", Op::kMad},
        {"fma", Op::kFma},
        {"div", Op::kDiv},
        {"rem", Op::kRem},
        {"min", Op::kMin},
        {"max", Op::kMax},
        {"neg", Op::kNeg},
        {"abs", Op::kAbs},
        {"and", Op::kAnd},
        {"or", Op::kOr},
        {"xor", Op::kXor},
        {"not", Op::kNot},
        {"cnot", Op::kCnot},
        {"shl", Op::kShl},
        {"shr", Op::kShr},
        {"popc", Op::kPopc},
        {"clz", Op::kClz},
        {"brev", Op::kBrev},
        {"bfe", Op::kBfe},
        {"bfi", Op::kBfi},
        {"prmt", Op::kPrmt},
        {"setp", Op::kSetp},
        {"selp", Op::kSelp},
        {"slct", Op::kSlct},
        {"cvt", Op::kCvt},
        {"ex2", Op::kEx2},
        {"lg2", Op::kLg2},
        {"rcp", Op::kRcp},
        {"sqrt", Op::kSqrt},
        {"rsqrt", Op::kRsqrt},
        {"sin", Op::kSin},
        {"cos", Op::kCos},
        {"tanh", Op::kTanh},
        {"ret", Op::kRet},
        {"exit", Op::kExit},
        {"membar", Op::kNop},
        {"fence", Op::kNop},
        {"bar", Op::kBar},
        {"barrier", Op::kBar},
        {"shfl", Op::kShfl},
        {"vote", Op::kVote},
        {"mma", Op::kMma},
        {"ldmatrix", Op::kLdmatrix},
        {"stmatrix", Op::kStmatrix},
        {"cp", Op::kCpAsync},
        {"atom", Op::kAtom},
        {"red", Op::kRed},
        {"copysign", Op::kCopysign},
        {"wgmma", Op::kWgmma},
        {"elect", Op::kElect},
        {"mbarrier", Op::kMbarrier},
        {"tcgen05", Op::kTcgen05},
        {"trap", Op::kTrap},
    };
    for (auto& [n, op] : kOps)
      if (opcode == n) in.op = op;
    switch (in.op) {
      case Op::kBar:
        if (in.has("warp")) {
          in.op = Op::kBarWarp;
          in.collective = Collective::kWarp;
        } else {
          in.collective = Collective::kBlock;
        }
        break;
      case Op::kShfl:
      case Op::kVote:
      case Op::kMma:
      case Op::kLdmatrix:
      case Op::kStmatrix:
        in.collective = Collective::kWarp;
        break;
      case Op::kWgmma:
        in.collective = Collective::kWarpgroup;
        if (!in.has("mma_async")) in.op = Op::kWgmmaNop;
        break;
      case Op::kCpAsync:
        if (!in.has("async")) in.op = Op::kUnsupported;
        break;
      case Op::kElect:
        in.collective = Collective::kWarp;
        break;
      case Op::kTcgen05:
        // Allocation and the tensor memory loads/stores are warp-wide (.sync.aligned); mma and
        // commit are issued by one thread; wait and fence order only this thread.
        if (!in.mods.empty() &&
            (in.mods[0] == "alloc" || in.mods[0] == "dealloc" ||
             in.mods[0] == "relinquish_alloc_permit" || in.mods[0] == "ld" || in.mods[0] == "st"))
          in.collective = Collective::kWarp;
        break;
      default:
        break;
    }
    return in;
  }
};

// ---- operand access -------------------------------------------------------------------------

}  // namespace

uint64_t read_value(Block& b, uint32_t t, const Operand& op, Type type) {
  switch (op.kind) {
    case Operand::kReg: {
      uint64_t v = b.reg_base(t)[op.reg];
      if (op.negate) v = v ? 0 : 1;
      return v;
    }
    case Operand::kImm:
      if (type.kind == 'f' && type.bits == 32) {
        if (op.imm_f32) return op.imm;
        if (op.imm_f64 || op.imm_float) return float_bits(static_cast<float>(as_double(op.imm)));
        return float_bits(static_cast<float>(sext(op.imm, 64)));
      }
      if (type.kind == 'f' && type.bits == 64) {
        if (op.imm_f64 || op.imm_float) return op.imm;
        if (op.imm_f32) return double_bits(as_float(static_cast<uint32_t>(op.imm)));
        return double_bits(static_cast<double>(sext(op.imm, 64)));
      }
      return op.imm;
    case Operand::kSpecial:
      return special_value(b, t, op.special);
    case Operand::kSymbol:
      return op.imm;
    default:
      return 0;
  }
}

Result<void> access(Block& b, const Inst& inst, uint32_t t, Space space, uint64_t addr, void* data,
                    uint64_t size, bool write) {
  if (space == Space::kGeneric) {
    if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
      space = Space::kShared;
      addr -= kSharedWindow;
    } else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) {
      space = Space::kLocal;
      addr -= kLocalWindow;
    } else {
      space = Space::kGlobal;
    }
  }
  uint8_t* p = nullptr;
  const char* name = "global";
  switch (space) {
    case Space::kGlobal:
    case Space::kConst:
      p = b.memory->find(addr, size);
      break;
    case Space::kShared:
      name = "shared";
      if (addr <= b.shared.size() && size <= b.shared.size() - addr) p = b.shared.data() + addr;
      break;
    case Space::kLocal:
      name = "local";
      if (addr <= b.kernel->local_bytes && size <= b.kernel->local_bytes - addr)
        p = b.local.data() + t * b.kernel->local_bytes + addr;
      break;
    case Space::kParam:
      name = "param";
      if (!write && addr <= b.kernel->param_image.size() &&
          size <= b.kernel->param_image.size() - addr)
        p = const_cast<uint8_t*>(b.kernel->param_image.data()) + addr;
      break;
    default:
      break;
  }
  if (!p)
    return make_error(
        fmt::format("{}: {} of {} bytes at unmapped or out-of-bounds {} address "
                    "0x{:x} by thread {} ({})",
                    where(inst), write ? "store" : "load", size, name, addr, t, inst.st->name),
        inst.st->loc.offset);
  if (write)
    std::memcpy(p, data, size);
  else
    std::memcpy(data, p, size);
  return {};
}

// ---- scheduling -----------------------------------------------------------------------------

namespace {

// kBlocked: at an mbarrier wait whose phase has not completed.
enum class ThreadState : uint8_t { kRunning, kWaiting, kBlocked, kExited };

struct Scheduler {
  Block& b;
  uint64_t& executed;
  uint64_t limit;
  std::vector<uint32_t> pc;
  std::vector<ThreadState> state;

  bool guard_passes(uint32_t t, const Inst& in) {
    if (in.guard == UINT32_MAX) return true;
    bool v = b.reg_base(t)[in.guard] != 0;
    return v != in.guard_negated;
  }

  Result<void> run_thread(uint32_t t) {
    const auto& insts = b.kernel->insts;
    uint32_t& p = pc[t];
    while (true) {
      if (p >= insts.size()) {
        state[t] = ThreadState::kExited;
        return {};
      }
      const Inst& in = insts[p];
      if (++executed > limit)
        return make_error(fmt::format("{}: more than {} instructions executed (runaway loop?) "
                                      "at {}",
                                      where(in), limit, in.st->name),
                          in.st->loc.offset);
      if (in.op == Op::kUnsupported) return unsupported(in);
      if (in.guard != UINT32_MAX && !guard_passes(t, in)) {
        ++p;
        continue;
      }
      if (in.collective != Collective::kNone) {
        state[t] = ThreadState::kWaiting;
        --executed;  // counted when the collective executes
        return {};
      }
      if (in.op == Op::kMbarrier) {
        SMCOMPAT_TRY(bool blocked, mbarrier_blocks(b, t, in));
        if (blocked) {
          state[t] = ThreadState::kBlocked;
          --executed;  // counted when the wait succeeds
          return {};
        }
      }
      SMCOMPAT_TRY(bool exited, exec_scalar(b, t, in, p));
      if (exited) {
        state[t] = ThreadState::kExited;
        return {};
      }
    }
  }

  Result<void> run() {
    uint32_t n = b.thread_count;
    pc.assign(n, 0);
    state.assign(n, ThreadState::kRunning);
    std::vector<uint32_t> group;
    while (true) {
      for (uint32_t t = 0; t < n; ++t)
        if (state[t] == ThreadState::kRunning) SMCOMPAT_CHECK(run_thread(t));
      bool progress = false;
      for (uint32_t t = 0; t < n; ++t) {
        if (state[t] != ThreadState::kBlocked) continue;
        SMCOMPAT_TRY(bool blocked, mbarrier_blocks(b, t, b.kernel->insts[pc[t]]));
        if (!blocked) {
          state[t] = ThreadState::kRunning;
          progress = true;
        }
      }
      bool any_waiting = false;
      for (uint32_t t = 0; t < n;) {
        if (state[t] != ThreadState::kWaiting) {
          ++t;
          continue;
        }
        any_waiting = true;
        const Inst& in = b.kernel->insts[pc[t]];
        uint32_t size = in.collective == Collective::kWarp        ? 32
                        : in.collective == Collective::kWarpgroup ? 128
                                                                  : n;
        uint32_t g0 = t / size * size, g1 = std::min(n, g0 + size);
        group.clear();
        bool complete = true;
        for (uint32_t u = g0; u < g1; ++u) {
          if (state[u] == ThreadState::kExited) continue;
          if (state[u] != ThreadState::kWaiting || pc[u] != pc[t]) {
            complete = false;
            break;
          }
          group.push_back(u);
        }
        if (complete) {
          executed += group.size();
          if (executed > limit)
            return make_error(
                fmt::format("{}: more than {} instructions executed", where(in), limit),
                in.st->loc.offset);
          SMCOMPAT_CHECK(execute_collective(b, in, group));
          for (uint32_t u : group) {
            ++pc[u];
            state[u] = ThreadState::kRunning;
          }
          progress = true;
        }
        t = std::max(t + 1, complete ? g1 : t + 1);
      }
      if (progress) continue;
      bool any_blocked = false;
      for (auto st : state) any_blocked |= st == ThreadState::kBlocked;
      if (!any_waiting && !any_blocked) {
        bool all_exited = true;
        for (auto st : state) all_exited &= st == ThreadState::kExited;
        if (all_exited) return {};
        continue;
      }
      {
        // Every live thread waits at a collective that cannot complete or at an mbarrier phase
        // that nobody will complete.
        uint32_t first = UINT32_MAX, other = UINT32_MAX;
        for (uint32_t t = 0; t < n; ++t) {
          if (state[t] != ThreadState::kWaiting && state[t] != ThreadState::kBlocked) continue;
          if (first == UINT32_MAX)
            first = t;
          else if (pc[t] != pc[first]) {
            other = t;
            break;
          }
        }
        const Inst& a = b.kernel->insts[pc[first]];
        std::string what =
            fmt::format("{}: deadlock: thread {} waits at {}", where(a), first, a.st->name);
        if (other != UINT32_MAX) {
          const Inst& o = b.kernel->insts[pc[other]];
          what += fmt::format(" while thread {} waits at line {}, column {}: {}", other,
                              o.st->loc.line, o.st->loc.col, o.st->name);
        } else {
          what += state[first] == ThreadState::kBlocked
                      ? " (an mbarrier phase that no thread completes)"
                      : " while the rest of its group has exited";
        }
        return make_error(std::move(what), a.st->loc.offset);
      }
    }
  }
};

}  // namespace
}  // namespace interp_detail

Result<InterpStats> interpret_kernel(const Module& module, std::string_view kernel,
                                     const InterpLaunch& launch, std::span<const uint64_t> params,
                                     InterpMemory& memory) {
  using namespace interp_detail;
  const Function* f = module.find_function(kernel);
  if (!f || !f->is_entry || !f->has_body)
    return make_error(fmt::format("no kernel (.entry with a body) named {}", kernel));
  uint64_t threads = uint64_t{launch.block[0]} * launch.block[1] * launch.block[2];
  if (threads == 0 || threads > 1024) return make_error("block size must be 1..1024 threads");
  uint64_t blocks = uint64_t{launch.grid[0]} * launch.grid[1] * launch.grid[2];
  if (blocks == 0 || blocks > (1u << 24)) return make_error("bad grid size");
  Kernel k;
  Loader loader{module, *f, k, {}, {}, {}, {}, {}, {}};
  SMCOMPAT_CHECK(loader.load(launch, params, memory));
  InterpStats stats;
  Block b;
  b.kernel = &k;
  b.launch = &launch;
  b.memory = &memory;
  b.thread_count = static_cast<uint32_t>(threads);
  for (uint32_t z = 0; z < launch.grid[2]; ++z)
    for (uint32_t y = 0; y < launch.grid[1]; ++y)
      for (uint32_t x = 0; x < launch.grid[0]; ++x) {
        b.ctaid = {x, y, z};
        b.regs.assign(threads * k.register_count, 0);
        b.shared.assign(k.shared_bytes, 0);
        b.local.assign(threads * k.local_bytes, 0);
        Scheduler s{b, stats.instructions, launch.max_instructions, {}, {}};
        SMCOMPAT_CHECK(s.run());
      }
  return stats;
}

}  // namespace smcompat::ptx
