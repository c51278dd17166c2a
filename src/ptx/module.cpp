// The PTX module model's accessors and its printer (include/smcompat/ptx/module.hpp): source
// locations, variable sizes, statement modifiers, function lookup, and print_module, which
// reprints a parsed module from its tokens (the round trip tested in tests/ptx/parser_test.cpp).
// The parser itself (the hot path, built -O3) is parser.cpp.
#include "smcompat/ptx/module.hpp"

#include <string>

namespace smcompat::ptx {

SourceLoc locate(std::string_view text, uint64_t offset) {
  SourceLoc loc{1, 1, static_cast<uint32_t>(offset)};
  if (offset > text.size()) offset = text.size();
  for (uint64_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

std::optional<uint64_t> Variable::size_bytes() const {
  if (!array_count || element_size == 0) return std::nullopt;
  // A size past 64 bits is still a static size (saturated), never "unknown": unknown reads as a
  // dynamic buffer, which would let `.b64 s[2^62]` pass a budget check.
  unsigned __int128 v = static_cast<unsigned __int128>(element_size) * vector * *array_count;
  return v > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(v);
}

bool Statement::has_modifier(std::string_view m) const {
  size_t pos = name.find('.');
  while (pos != std::string_view::npos) {
    size_t next = name.find('.', pos + 1);
    std::string_view part =
        name.substr(pos, next == std::string_view::npos ? name.size() - pos : next - pos);
    if (part == m) return true;
    pos = next;
  }
  return false;
}

std::vector<const Variable*> Module::module_variables() const {
  std::vector<const Variable*> out;
  for (const auto& d : variable_decls)
    for (uint32_t i = 0; i < d.variable_count; ++i) out.push_back(&variables[d.first_variable + i]);
  return out;
}

const Function* Module::find_function(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name && f.has_body) return &f;
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

void print_tokens(const Module& m, uint32_t first, uint32_t count, std::string& out) {
  for (uint32_t i = 0; i < count; ++i) {
    const Token& t = m.tokens[first + i];
    if (i > 0) {
      if (t.newline_before)
        out += "\n\t";
      else if (t.space_before)
        out += ' ';
    }
    out += t.text;
  }
}

}  // namespace

std::string print_module(const Module& m) {
  std::string out;
  out.reserve(m.source.size());
  for (const auto& item : m.items) {
    switch (item.kind) {
      case TopItem::Kind::kDirective: {
        const auto& d = m.directives[item.index];
        print_tokens(m, d.first_token, d.token_count, out);
        out += '\n';
        break;
      }
      case TopItem::Kind::kVariable: {
        const auto& d = m.variable_decls[item.index];
        print_tokens(m, d.first_token, d.token_count, out);
        out += '\n';
        break;
      }
      case TopItem::Kind::kFunction: {
        const auto& f = m.functions[item.index];
        out += '\n';
        print_tokens(m, f.first_token, f.token_count, out);
        if (!f.has_body) {
          out += ";\n";
          break;
        }
        out += "\n{\n";
        for (uint32_t i = 0; i < f.statement_count; ++i) {
          const Statement& s = m.statements[f.first_statement + i];
          switch (s.kind) {
            case StatementKind::kInstruction: {
              out += '\t';
              if (!s.guard.empty()) {
                out += s.guard;
                out += ' ';
              }
              out += s.name;
              for (uint32_t k = 0; k < s.operand_count; ++k) {
                out += k == 0 ? " " : ", ";
                out += m.operands[s.first_operand + k];
              }
              out += ";\n";
              break;
            }
            case StatementKind::kLabel:
              out += s.name;
              out += ":\n";
              break;
            case StatementKind::kDeclaration:
            case StatementKind::kDirective:
              out += '\t';
              print_tokens(m, s.first_token, s.token_count, out);
              out += '\n';
              break;
            case StatementKind::kBlockBegin:
              out += "\t{\n";
              break;
            case StatementKind::kBlockEnd:
              out += "\t}\n";
              break;
          }
        }
        out += "}\n";
        break;
      }
    }
  }
  return out;
}

}  // namespace smcompat::ptx
