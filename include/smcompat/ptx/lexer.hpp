// PTX lexer: splits PTX text into zero-copy tokens (string_views into the caller's text) with
// line/column. Token classes follow the PTX ISA "Syntax" chapter (identifiers may start with
// `_ $ %`, directives start with `.`, `::` joins sub-qualifiers such as `.shared::cluster`,
// `0f`/`0d` prefix hexadecimal floats). Comments and whitespace are skipped; a token remembers
// whether whitespace preceded it so the printer can reproduce the original spacing.
#pragma once

#include <cstdint>
#include <string_view>

namespace smcompat::ptx {

/// A position in PTX text (1-based line and column; byte offset from the start).
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t offset = 0;
};

enum class TokenKind : uint8_t {
  kEnd,         ///< end of input
  kIdentifier,  ///< `mov`, `%r1`, `$L__BB0_1`, `_Z3fooPf`
  kDirective,   ///< `.entry`, `.u32`, `.shared::cluster`
  kNumber,      ///< `42`, `0x1F`, `0f3F800000`, `1.5`, `9.0`
  kString,      ///< `"text"` (with quotes)
  kPunct,       ///< one of `, ; : { } ( ) [ ] < > + - * / ! @ | = & ~ ^ ? %`
  kError,       ///< unterminated string or comment, or a byte PTX never uses
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  bool space_before = false;    ///< whitespace or a comment precedes it
  bool newline_before = false;  ///< a line break precedes it (or it is the first token)
  SourceLoc loc;
  std::string_view text;

  bool is(char c) const { return kind == TokenKind::kPunct && text.size() == 1 && text[0] == c; }
  bool is_directive(std::string_view d) const { return kind == TokenKind::kDirective && text == d; }
};

/// Streaming lexer over a text that must outlive the tokens.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}
  /// The next token; kEnd at the end (and forever after).
  Token next();
  /// Why the last kError token was produced.
  std::string_view error_reason() const { return error_reason_; }

  /// Fast path for the parser: from `at` (the first operand of an instruction), splits the
  /// comma-separated operands at bracket depth 0 up to the terminating ';', appends them (trimmed)
  /// to `out` and leaves the lexer just after the ';'. Returns false, changing nothing, for
  /// anything unusual (comments, strings, unbalanced brackets, an empty operand, the end of the
  /// input, a directive at the start of a line): the caller then takes the token-level path,
  /// which produces the located error.
  template <class Vec>
  bool scan_operands(const SourceLoc& at, Vec& out);
  /// Byte offset of the next unread character.
  uint32_t position() const { return pos_; }

 private:
  std::string_view text_;
  uint32_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t line_start_ = 0;
  bool first_ = true;
  std::string_view error_reason_;
};

}  // namespace smcompat::ptx
