// PTX parser (include/smcompat/ptx/module.hpp; the model's accessors and printer are module.cpp).
// Statement-level recursive descent following PTX ISA 9.0 "Syntax" (statements end with ';',
// labels end with ':', `.version`, `.target`, `.address_size`, `.file`, `.loc` end at the line
// end, `.section` bodies are braced) and "Directives" (performance-tuning and cluster directives
// between a kernel's parameter list and its body). Errors carry line, column and byte offset;
// nothing input can reach aborts.
#include <fmt/format.h>

#include <charconv>
#include <string>
#include <utility>

#include "lexer_impl.inc"  // Lexer::next(), inlined into the parser
#include "smcompat/ptx/module.hpp"

namespace smcompat::ptx {

namespace {

bool is_state_space(std::string_view d) {
  return d == ".reg" || d == ".shared" || d == ".local" || d == ".param" || d == ".const" ||
         d == ".global" || d == ".sreg" || d == ".tex";
}
bool is_linkage(std::string_view d) {
  return d == ".visible" || d == ".extern" || d == ".weak" || d == ".common";
}
bool is_perf_directive(std::string_view d) {
  return d == ".maxntid" || d == ".reqntid" || d == ".minnctapersm" || d == ".maxnreg" ||
         d == ".reqnctapercluster" || d == ".explicitcluster" || d == ".maxclusterrank" ||
         d == ".noreturn" || d == ".blocksareclusters" || d == ".maxnctapersm" || d == ".pragma" ||
         d == ".attribute" || d == ".abi_preserve" || d == ".abi_preserve_control";
}

// Bytes of one element of a fundamental type: .b8 .u16 .s32 .f64 .b128 .f16x2 .bf16 .e4m3 ...
uint64_t type_size(std::string_view t) {
  if (t.size() < 2 || t[0] != '.') return 0;
  if (t == ".pred") return 0;
  if (t == ".f16x2" || t == ".bf16x2") return 4;
  if (t == ".bf16") return 2;
  if (t == ".e4m3" || t == ".e5m2" || t == ".e2m1" || t == ".e2m3" || t == ".e3m2" ||
      t == ".ue8m0" || t == ".ue4m3")
    return 1;
  char c = t[1];
  if (c != 'b' && c != 'u' && c != 's' && c != 'f') return 0;
  unsigned bits = 0;
  auto r = std::from_chars(t.data() + 2, t.data() + t.size(), bits);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 128) return 0;
  return bits / 8;
}
bool is_type(std::string_view t) {
  return type_size(t) != 0 || t == ".pred" || t == ".texref" || t == ".samplerref" ||
         t == ".surfref";
}

// Performance-tuning and cluster directives (PTX ISA 9.0 "Directives"), by what they take.
template <class Field>
using DirectiveField = std::pair<std::string_view, Field PerfDirectives::*>;
constexpr DirectiveField<std::optional<std::array<uint32_t, 3>>> kDimsDirectives[] = {
    {".maxntid", &PerfDirectives::maxntid},
    {".reqntid", &PerfDirectives::reqntid},
    {".reqnctapercluster", &PerfDirectives::reqnctapercluster}};
constexpr DirectiveField<std::optional<uint32_t>> kNumberDirectives[] = {
    {".minnctapersm", &PerfDirectives::minnctapersm},
    {".maxnreg", &PerfDirectives::maxnreg},
    {".maxclusterrank", &PerfDirectives::maxclusterrank}};
constexpr DirectiveField<bool> kFlagDirectives[] = {
    {".explicitcluster", &PerfDirectives::explicitcluster},
    {".noreturn", &PerfDirectives::noreturn}};

template <class T>
bool parse_uint(std::string_view s, T& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), lexer_(text) {
    cur_ = lexer_.next();
    next_ = lexer_.next();
    m_.source = text;
    // libcublasLt's PTX has one statement per 31 bytes and one operand per 13.5 bytes; reserving
    // with headroom avoids regrowth copies (untouched reserved pages cost nothing).
    m_.statements.reserve(text.size() / 20 + 16);
    m_.operands.reserve(text.size() / 8 + 16);
  }

  Result<Module> run() {
    while (cur_.kind != TokenKind::kEnd) {
      if (!top_level()) return std::move(*error_);
    }
    return std::move(m_);
  }

 private:
  // --- token stream ---
  void advance() {
    prev_end_ = cur_.loc.offset + static_cast<uint32_t>(cur_.text.size());
    cur_ = next_;
    if (next_.kind != TokenKind::kEnd) next_ = lexer_.next();
  }
  bool fail(const Token& at, std::string what) {
    if (at.kind == TokenKind::kError) what = fmt::format("{} ({})", lexer_.error_reason(), what);
    Error e = make_error(fmt::format("line {}, column {}: {}", at.loc.line, at.loc.col, what),
                         at.loc.offset);
    error_ = std::move(e);
    return false;
  }
  bool expect_not_end(const char* what) {
    if (cur_.kind == TokenKind::kEnd)
      return fail(cur_, fmt::format("unexpected end of input, {}", what));
    if (cur_.kind == TokenKind::kError) return fail(cur_, what);
    return true;
  }
  static std::string quote(const Token& t) {
    if (t.kind == TokenKind::kEnd) return "end of input";
    return fmt::format("'{}'", t.text.substr(0, 40));
  }
  uint32_t push_token() {
    m_.tokens.push_back(cur_);
    advance();
    return static_cast<uint32_t>(m_.tokens.size() - 1);
  }
  // Keeps tokens until the end of the current line (for .file/.loc/.version/.target).
  bool take_line(uint32_t& first, uint32_t& count) {
    first = static_cast<uint32_t>(m_.tokens.size());
    push_token();
    while (cur_.kind != TokenKind::kEnd && !cur_.newline_before) {
      if (cur_.kind == TokenKind::kError) return fail(cur_, "in directive");
      push_token();
    }
    count = static_cast<uint32_t>(m_.tokens.size()) - first;
    return true;
  }
  // Keeps tokens up to and including the ';' at nesting depth 0.
  bool take_statement(uint32_t& first, uint32_t& count, const char* what) {
    first = static_cast<uint32_t>(m_.tokens.size());
    int depth = 0;
    const Token start = cur_;
    while (true) {
      if (cur_.kind == TokenKind::kEnd)
        return fail(start, fmt::format("{} has no terminating ';'", what));
      if (cur_.kind == TokenKind::kError) return fail(cur_, what);
      if (cur_.is('{') || cur_.is('(') || cur_.is('[')) ++depth;
      if (cur_.is('}') || cur_.is(')') || cur_.is(']')) {
        if (depth == 0) return fail(cur_, fmt::format("unbalanced {} in {}", quote(cur_), what));
        --depth;
      }
      bool end = depth == 0 && cur_.is(';');
      push_token();
      if (end) break;
    }
    count = static_cast<uint32_t>(m_.tokens.size()) - first;
    return true;
  }

  // --- declarations ---
  // Parses a declaration held in tokens [first, first+count) into variables.
  bool parse_decl(uint32_t first, uint32_t count, std::vector<Variable>& out) {
    Variable proto;
    uint32_t i = first, end = first + count;
    auto tok = [&](uint32_t k) -> const Token& { return m_.tokens[k]; };
    for (; i < end && tok(i).kind == TokenKind::kDirective; ++i) {
      std::string_view d = tok(i).text;
      if (d == ".extern") {
        proto.is_extern = true;
      } else if (is_linkage(d)) {
      } else if (is_state_space(d) && proto.space.empty()) {
        proto.space = d;
      } else if (d == ".align") {
        if (i + 1 >= end || !parse_uint(tok(i + 1).text, proto.align))
          return fail(i + 1 < end ? tok(i + 1) : tok(i), "expected a number after .align");
        ++i;
      } else if (d == ".v2" || d == ".v4" || d == ".v8") {
        proto.vector = static_cast<uint32_t>(d[2] - '0');
      } else if (proto.type.empty() && is_type(d)) {
        proto.type = d;
        proto.element_size = type_size(d);
      }
      // other qualifiers (.ptr, .global after .ptr, .attribute) do not change the size
    }
    // names
    while (i < end) {
      const Token& t = tok(i);
      if (t.is(';')) break;
      if (t.kind != TokenKind::kIdentifier)
        return fail(t, fmt::format("expected a variable name, found {}", quote(t)));
      Variable v = proto;
      v.name = t.text;
      v.loc = t.loc;
      v.array_count = 1;
      ++i;
      if (i < end && tok(i).is('<')) {
        if (i + 2 >= end || !parse_uint(tok(i + 1).text, v.param_count) || !tok(i + 2).is('>'))
          return fail(tok(i), "expected <N> after a parameterised register name");
        i += 3;
      }
      while (i < end && tok(i).is('[')) {
        if (i + 1 < end && tok(i + 1).is(']')) {
          v.array_count.reset();
          i += 2;
          continue;
        }
        uint64_t dim = 0;
        if (i + 2 >= end || !parse_uint(tok(i + 1).text, dim) || !tok(i + 2).is(']'))
          return fail(tok(i), "expected [N] with a constant N");
        if (v.array_count) {
          unsigned __int128 p = static_cast<unsigned __int128>(*v.array_count) * dim;
          if (p > UINT64_MAX) return fail(tok(i + 1), "array size overflows 64 bits");
          v.array_count = static_cast<uint64_t>(p);
        }
        i += 3;
      }
      if (i < end && tok(i).is('=')) {
        v.has_initializer = true;
        int depth = 0;
        for (++i; i < end; ++i) {
          const Token& u = tok(i);
          if (u.is('{') || u.is('(')) ++depth;
          if (u.is('}') || u.is(')')) --depth;
          if (depth == 0 && (u.is(',') || u.is(';'))) break;
        }
      }
      out.push_back(v);
      if (i < end && tok(i).is(',')) {
        ++i;
        continue;
      }
      if (i < end && !tok(i).is(';'))
        return fail(tok(i), fmt::format("unexpected {} in declaration", quote(tok(i))));
      break;
    }
    return true;
  }

  // --- top level ---
  bool top_level() {
    if (cur_.kind == TokenKind::kError) return fail(cur_, "at top level");
    if (cur_.is(';')) {  // stray empty statement
      advance();
      return true;
    }
    if (cur_.kind != TokenKind::kDirective)
      return fail(cur_, fmt::format("expected a directive at top level, found {}", quote(cur_)));
    const std::string_view d = cur_.text;
    const Token start = cur_;
    TopDirective dir;
    dir.name = d;
    dir.loc = start.loc;
    if (d == ".version" || d == ".target" || d == ".address_size" || d == ".file" || d == ".loc") {
      if (!take_line(dir.first_token, dir.token_count)) return false;
      dir.span = {start.loc.offset, prev_end_};
      const Token* ops = &m_.tokens[dir.first_token + 1];
      uint32_t nops = dir.token_count - 1;
      if (d == ".version") {
        if (nops != 1 || ops[0].kind != TokenKind::kNumber)
          return fail(start, ".version needs one operand such as 9.0");
        auto v = Version::parse(ops[0].text);
        if (!v) return fail(ops[0], fmt::format("bad .version {}", ops[0].text));
        m_.version = *v;
        m_.version_loc = start.loc;
        m_.version_span = dir.span;
      } else if (d == ".target") {
        if (nops == 0) return fail(start, ".target needs an operand such as sm_90");
        m_.target_text = text_.substr(ops[0].loc.offset, prev_end_ - ops[0].loc.offset);
        m_.target = SmTarget::parse(ops[0].text);
        if (m_.target) m_.target->kind = ImageKind::kPtx;
        m_.target_loc = start.loc;
        m_.target_span = dir.span;
      } else if (d == ".address_size") {
        if (nops != 1 || !parse_uint(ops[0].text, m_.address_size))
          return fail(start, ".address_size needs 32 or 64");
      }
    } else if (d == ".section") {
      dir.first_token = static_cast<uint32_t>(m_.tokens.size());
      push_token();
      while (cur_.kind != TokenKind::kEnd && !cur_.is('{')) {
        if (cur_.kind == TokenKind::kError) return fail(cur_, "in .section");
        push_token();
      }
      int depth = 0;
      while (true) {
        if (cur_.kind == TokenKind::kEnd) return fail(start, ".section has no closing '}'");
        if (cur_.kind == TokenKind::kError) return fail(cur_, "in .section");
        if (cur_.is('{')) ++depth;
        bool close = cur_.is('}') && --depth == 0;
        push_token();
        if (close) break;
      }
      dir.token_count = static_cast<uint32_t>(m_.tokens.size()) - dir.first_token;
      dir.span = {start.loc.offset, prev_end_};
    } else if (d == ".pragma" || d == ".alias" || d == ".extern_sym") {
      if (!take_statement(dir.first_token, dir.token_count,
                          d == ".pragma" ? ".pragma" : "directive"))
        return false;
      dir.span = {start.loc.offset, prev_end_};
    } else {
      return declaration_or_function();
    }
    m_.items.push_back({TopItem::Kind::kDirective, static_cast<uint32_t>(m_.directives.size())});
    m_.directives.push_back(dir);
    return true;
  }

  bool declaration_or_function() {
    const Token start = cur_;
    const uint32_t first = static_cast<uint32_t>(m_.tokens.size());
    std::string_view linkage;
    while (cur_.kind == TokenKind::kDirective && is_linkage(cur_.text)) {
      linkage = cur_.text;
      push_token();
    }
    if (cur_.is_directive(".entry") || cur_.is_directive(".func"))
      return function(start, first, linkage);
    // A variable declaration: tokens up to ';'.
    uint32_t f2 = 0, c2 = 0;
    if (!take_statement(f2, c2, "declaration")) return false;
    TopVariables tv;
    tv.first_token = first;
    tv.token_count = static_cast<uint32_t>(m_.tokens.size()) - first;
    tv.span = {start.loc.offset, prev_end_};
    std::vector<Variable> vars;
    if (!parse_decl(first, tv.token_count, vars)) return false;
    if (vars.empty()) return fail(start, "declaration without a name");
    tv.first_variable = static_cast<uint32_t>(m_.variables.size());
    tv.variable_count = static_cast<uint32_t>(vars.size());
    m_.variables.insert(m_.variables.end(), vars.begin(), vars.end());
    m_.items.push_back({TopItem::Kind::kVariable, static_cast<uint32_t>(m_.variable_decls.size())});
    m_.variable_decls.push_back(tv);
    return true;
  }

  // Parses "( decl, decl, ... )" into vars.
  bool param_list(std::vector<Variable>& vars) {
    const Token open = cur_;
    push_token();  // (
    if (cur_.is(')')) {
      push_token();
      return true;
    }
    while (true) {
      uint32_t first = static_cast<uint32_t>(m_.tokens.size());
      int depth = 0;
      while (true) {
        if (cur_.kind == TokenKind::kEnd) return fail(open, "parameter list has no closing ')'");
        if (cur_.kind == TokenKind::kError) return fail(cur_, "in parameter list");
        if (cur_.is('{') || cur_.is('}') || cur_.is(';'))
          return fail(cur_, fmt::format("unexpected {} in parameter list", quote(cur_)));
        if (cur_.is('[') || cur_.is('(')) ++depth;
        if (cur_.is(']')) --depth;
        if (depth == 0 && (cur_.is(',') || cur_.is(')'))) break;
        if (cur_.is(')')) --depth;
        push_token();
      }
      uint32_t count = static_cast<uint32_t>(m_.tokens.size()) - first;
      if (count == 0) return fail(cur_, "empty parameter");
      if (!parse_decl(first, count, vars)) return false;
      bool close = cur_.is(')');
      push_token();
      if (close) return true;
    }
  }

  bool function(const Token& start, uint32_t first, std::string_view linkage) {
    Function fn;
    fn.is_entry = cur_.text == ".entry";
    fn.linkage = linkage;
    push_token();
    if (!fn.is_entry && cur_.is('(')) {
      if (!param_list(fn.returns)) return false;
    }
    if (cur_.kind != TokenKind::kIdentifier)
      return fail(cur_, fmt::format("expected a function name, found {}", quote(cur_)));
    fn.name = cur_.text;
    fn.loc = cur_.loc;
    push_token();
    if (cur_.is('(')) {
      if (!param_list(fn.params)) return false;
    }
    // Performance-tuning / cluster directives.
    while (cur_.kind == TokenKind::kDirective && is_perf_directive(cur_.text)) {
      PerfDirectives::Item item{cur_.text, {cur_.loc.offset, 0}, cur_.loc};
      const Token dtok = cur_;
      push_token();
      std::vector<uint32_t> nums;
      if (item.directive == ".pragma") {
        while (cur_.kind == TokenKind::kString || cur_.is(',')) push_token();
        if (!cur_.is(';')) return fail(cur_, "expected ';' after .pragma");
        push_token();
      } else if (item.directive == ".attribute") {
        int depth = 0;
        do {
          if (!expect_not_end("in .attribute")) return false;
          if (cur_.is('(')) ++depth;
          if (cur_.is(')')) --depth;
          push_token();
        } while (depth > 0);
      } else {
        while (cur_.kind == TokenKind::kNumber) {
          uint32_t v = 0;
          if (!parse_uint(cur_.text, v))
            return fail(cur_, fmt::format("bad number {} in {}", quote(cur_), item.directive));
          nums.push_back(v);
          push_token();
          if (cur_.is(',') && next_.kind == TokenKind::kNumber)
            push_token();
          else
            break;
        }
      }
      item.span.end = prev_end_;
      auto dims = [&](std::optional<std::array<uint32_t, 3>>& out) {
        if (nums.empty() || nums.size() > 3)
          return fail(dtok, fmt::format("{} needs 1 to 3 numbers", item.directive));
        std::array<uint32_t, 3> a{1, 1, 1};
        for (size_t k = 0; k < nums.size(); ++k) a[k] = nums[k];
        out = a;
        return true;
      };
      auto one = [&](std::optional<uint32_t>& out) {
        if (nums.size() != 1) return fail(dtok, fmt::format("{} needs one number", item.directive));
        out = nums[0];
        return true;
      };
      const auto& d = item.directive;
      bool ok = true;
      for (const auto& [name, field] : kDimsDirectives)
        if (d == name) ok = dims(fn.perf.*field);
      for (const auto& [name, field] : kNumberDirectives)
        if (d == name) ok = one(fn.perf.*field);
      for (const auto& [name, field] : kFlagDirectives)
        if (d == name) fn.perf.*field = true;
      if (!ok) return false;
      fn.perf.items.push_back(item);
    }
    fn.first_token = first;
    fn.token_count = static_cast<uint32_t>(m_.tokens.size()) - first;
    if (cur_.is(';')) {
      advance();
      fn.span = {start.loc.offset, prev_end_};
    } else if (cur_.is('{')) {
      fn.has_body = true;
      const Token open = cur_;
      advance();
      fn.first_statement = static_cast<uint32_t>(m_.statements.size());
      if (!body(open)) return false;
      fn.statement_count = static_cast<uint32_t>(m_.statements.size()) - fn.first_statement;
      fn.span = {start.loc.offset, prev_end_};
    } else {
      return fail(cur_, fmt::format("expected '{{' or ';' after the header of {}, found {}",
                                    fn.name, quote(cur_)));
    }
    m_.items.push_back({TopItem::Kind::kFunction, static_cast<uint32_t>(m_.functions.size())});
    m_.functions.push_back(std::move(fn));
    return true;
  }

  bool body(const Token& open) {
    int depth = 1;
    while (true) {
      // Built in place; popped again for empty statements and for the closing brace.
      Statement& st = m_.statements.emplace_back();
      st.loc = cur_.loc;
      st.span.begin = cur_.loc.offset;
      if (cur_.kind == TokenKind::kEnd) return fail(open, "function body has no closing '}'");
      if (cur_.kind == TokenKind::kError) return fail(cur_, "in function body");
      if (cur_.is(';')) {
        m_.statements.pop_back();
        advance();
        continue;
      }
      if (cur_.is('{')) {
        ++depth;
        advance();
        st.kind = StatementKind::kBlockBegin;
      } else if (cur_.is('}')) {
        advance();
        if (--depth == 0) {
          m_.statements.pop_back();
          return true;
        }
        st.kind = StatementKind::kBlockEnd;
      } else if (cur_.kind == TokenKind::kIdentifier && next_.is(':')) {
        st.kind = StatementKind::kLabel;
        st.name = cur_.text;
        advance();
        advance();
      } else if (cur_.kind == TokenKind::kDirective) {
        std::string_view d = cur_.text;
        st.name = d;
        if (d == ".loc" || d == ".file") {
          st.kind = StatementKind::kDirective;
          if (!take_line(st.first_token, st.token_count)) return false;
        } else if (is_state_space(d) || is_linkage(d) || d == ".align") {
          st.kind = StatementKind::kDeclaration;
          if (!take_statement(st.first_token, st.token_count, "declaration")) return false;
          std::vector<Variable> vars;
          if (!parse_decl(st.first_token, st.token_count, vars)) return false;
          st.first_variable = static_cast<uint32_t>(m_.variables.size());
          st.variable_count = static_cast<uint32_t>(vars.size());
          m_.variables.insert(m_.variables.end(), vars.begin(), vars.end());
        } else {
          st.kind = StatementKind::kDirective;
          if (!take_statement(st.first_token, st.token_count, "directive")) return false;
        }
      } else if (cur_.is('@') || cur_.kind == TokenKind::kIdentifier) {
        if (!instruction(st)) return false;
      } else {
        return fail(cur_, fmt::format("expected an instruction, label or directive, found {}",
                                      quote(cur_)));
      }
      st.span.end = prev_end_;
    }
  }

  bool instruction(Statement& st) {
    st.kind = StatementKind::kInstruction;
    if (cur_.is('@')) {
      uint32_t b = cur_.loc.offset;
      advance();
      if (cur_.is('!')) advance();
      if (cur_.kind != TokenKind::kIdentifier)
        return fail(cur_, fmt::format("expected a predicate after '@', found {}", quote(cur_)));
      advance();
      st.guard = text_.substr(b, prev_end_ - b);
      if (cur_.kind != TokenKind::kIdentifier)
        return fail(
            cur_, fmt::format("expected an instruction after {}, found {}", st.guard, quote(cur_)));
    }
    const uint32_t nb = cur_.loc.offset;
    advance();
    while (cur_.kind == TokenKind::kDirective && !cur_.space_before) advance();
    st.name = text_.substr(nb, prev_end_ - nb);
    st.first_operand = static_cast<uint32_t>(m_.operands.size());
    if (cur_.is(';')) {
      advance();
      return true;
    }
    if (lexer_.scan_operands(cur_.loc, m_.operands)) {
      // The lexer now stands after the ';': refill the two-token window.
      prev_end_ = lexer_.position();
      cur_ = lexer_.next();
      next_ = lexer_.next();
      st.operand_count = static_cast<uint32_t>(m_.operands.size()) - st.first_operand;
      return true;
    }
    int depth = 0;
    uint32_t op_begin = cur_.loc.offset;
    uint32_t op_end = op_begin;
    bool empty = true;
    while (true) {
      switch (cur_.kind) {
        case TokenKind::kEnd:
          return fail(st.loc, fmt::format("instruction '{}' has no terminating ';'", st.name));
        case TokenKind::kError:
          return fail(cur_, "in operands");
        case TokenKind::kPunct:
          if (cur_.text.size() == 1) {
            const char c = cur_.text[0];
            if (depth == 0 && (c == ',' || c == ';')) {
              if (empty) return fail(cur_, fmt::format("empty operand in '{}'", st.name));
              m_.operands.push_back(text_.substr(op_begin, op_end - op_begin));
              advance();
              if (c == ';') {
                st.operand_count = static_cast<uint32_t>(m_.operands.size()) - st.first_operand;
                return true;
              }
              op_begin = cur_.loc.offset;
              empty = true;
              continue;
            }
            if (c == '[' || c == '{' || c == '(') {
              ++depth;
            } else if (c == ']' || c == '}' || c == ')') {
              if (depth == 0 && c == '}')
                return fail(st.loc,
                            fmt::format("instruction '{}' has no terminating ';'", st.name));
              if (depth == 0)
                return fail(cur_, fmt::format("unbalanced {} in '{}'", quote(cur_), st.name));
              --depth;
            }
          }
          break;
        case TokenKind::kDirective:
          if (cur_.newline_before && depth == 0 && is_state_space(cur_.text))
            return fail(st.loc, fmt::format("instruction '{}' has no terminating ';'", st.name));
          break;
        default:
          break;
      }
      empty = false;
      op_end = cur_.loc.offset + static_cast<uint32_t>(cur_.text.size());
      advance();
    }
  }

  bool fail(const SourceLoc& loc, std::string what) {
    Token t;
    t.loc = loc;
    t.kind = TokenKind::kIdentifier;
    return fail(t, std::move(what));
  }

  std::string_view text_;
  Lexer lexer_;
  Token cur_, next_;
  uint32_t prev_end_ = 0;
  Module m_;
  std::optional<Error> error_;
};

}  // namespace

Result<Module> parse_module(std::string_view text) {
  if (text.size() >= UINT32_MAX)
    return make_error(fmt::format("PTX text of {} bytes is larger than 4 GiB", text.size()));
  Parser p(text);
  return p.run();
}

}  // namespace smcompat::ptx
