// PTX lexer (see include/smcompat/ptx/lexer.hpp). A single pass over the bytes with a character
// class table; tokens are views into the input, so lexing allocates nothing.
#include "smcompat/ptx/lexer.hpp"

#include <array>

namespace smcompat::ptx {
namespace {

enum : uint8_t { kIdStart = 1, kIdChar = 2, kDigit = 4, kSpace = 8, kPunctChar = 16 };

constexpr std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> c{};
  for (int i = 'a'; i <= 'z'; ++i) c[i] = kIdStart | kIdChar;
  for (int i = 'A'; i <= 'Z'; ++i) c[i] = kIdStart | kIdChar;
  for (int i = '0'; i <= '9'; ++i) c[i] = kIdChar | kDigit;
  c['_'] = kIdStart | kIdChar;
  c['$'] = kIdStart | kIdChar;
  c['%'] = kIdStart | kPunctChar;  // %r1 is an identifier; a lone % is punctuation
  c[' '] = c['\t'] = c['\r'] = c['\n'] = c['\v'] = c['\f'] = kSpace;
  for (char p : std::string_view(",;:{}()[]<>+-*/!@|=&~^?"))
    c[static_cast<unsigned char>(p)] = kPunctChar;
  return c;
}
constexpr auto kClasses = make_classes();

inline bool is_id_char(char ch) { return kClasses[static_cast<unsigned char>(ch)] & kIdChar; }

}  // namespace

Token Lexer::next() {
  Token tok;
  const char* s = text_.data();
  const uint32_t n = static_cast<uint32_t>(text_.size());
  bool space = false;
  bool newline = first_;
  first_ = false;
  // Skip whitespace and comments.
  while (pos_ < n) {
    char ch = s[pos_];
    if (ch == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
      space = newline = true;
    } else if (kClasses[static_cast<unsigned char>(ch)] & kSpace) {
      ++pos_;
      space = true;
    } else if (ch == '/' && pos_ + 1 < n && s[pos_ + 1] == '/') {
      while (pos_ < n && s[pos_] != '\n') ++pos_;
      space = true;
    } else if (ch == '/' && pos_ + 1 < n && s[pos_ + 1] == '*') {
      uint32_t start = pos_, start_line = line_, start_col = pos_ - line_start_ + 1;
      pos_ += 2;
      bool closed = false;
      while (pos_ + 1 < n) {
        if (s[pos_] == '*' && s[pos_ + 1] == '/') {
          pos_ += 2;
          closed = true;
          break;
        }
        if (s[pos_] == '\n') {
          ++line_;
          line_start_ = pos_ + 1;
          newline = true;
        }
        ++pos_;
      }
      if (!closed) {
        pos_ = n;
        tok.kind = TokenKind::kError;
        tok.loc = {start_line, start_col, start};
        tok.text = text_.substr(start, 2);
        error_reason_ = "unterminated /* comment";
        return tok;
      }
      space = true;
    } else {
      break;
    }
  }
  tok.space_before = space;
  tok.newline_before = newline;
  tok.loc = {line_, pos_ - line_start_ + 1, pos_};
  if (pos_ >= n) {
    tok.kind = TokenKind::kEnd;
    return tok;
  }
  const uint32_t start = pos_;
  const char ch = s[pos_];
  const uint8_t cls = kClasses[static_cast<unsigned char>(ch)];
  if (ch == '.') {
    // Directive or dotted modifier: .u32, .shared::cluster, .kind::mxf8f6f4, .1d, .x4
    ++pos_;
    while (pos_ < n) {
      if (is_id_char(s[pos_])) {
        ++pos_;
      } else if (s[pos_] == ':' && pos_ + 2 < n && s[pos_ + 1] == ':' && is_id_char(s[pos_ + 2])) {
        pos_ += 2;
      } else {
        break;
      }
    }
    tok.kind = TokenKind::kDirective;
    if (pos_ == start + 1) tok.kind = TokenKind::kPunct;  // a lone '.'
  } else if (cls & kDigit) {
    // Numbers: hex (0x..), hex floats (0f../0d..), decimal and floating forms, U suffix.
    ++pos_;
    if (ch == '0' && pos_ < n &&
        (s[pos_] == 'x' || s[pos_] == 'X' || s[pos_] == 'f' || s[pos_] == 'F' || s[pos_] == 'd' ||
         s[pos_] == 'D')) {
      ++pos_;
      while (pos_ < n && is_id_char(s[pos_])) ++pos_;
    } else {
      while (pos_ < n) {
        char c = s[pos_];
        if (is_id_char(c)) {
          ++pos_;
        } else if (c == '.' && pos_ + 1 < n && (kClasses[static_cast<unsigned char>(s[pos_ + 1])] & kDigit)) {
          ++pos_;
        } else if ((c == '+' || c == '-') && (s[pos_ - 1] == 'e' || s[pos_ - 1] == 'E')) {
          ++pos_;
        } else {
          break;
        }
      }
    }
    tok.kind = TokenKind::kNumber;
  } else if (cls & kIdStart) {
    ++pos_;
    while (pos_ < n && is_id_char(s[pos_])) ++pos_;
    tok.kind = (pos_ == start + 1 && ch == '%') ? TokenKind::kPunct : TokenKind::kIdentifier;
  } else if (ch == '"') {
    ++pos_;
    bool closed = false;
    while (pos_ < n) {
      char c = s[pos_];
      if (c == '\\' && pos_ + 1 < n && s[pos_ + 1] != '\n') {
        pos_ += 2;
      } else if (c == '"') {
        ++pos_;
        closed = true;
        break;
      } else if (c == '\n') {
        break;
      } else {
        ++pos_;
      }
    }
    if (!closed) {
      tok.kind = TokenKind::kError;
      tok.text = text_.substr(start, pos_ - start);
      error_reason_ = "unterminated string";
      return tok;
    }
    tok.kind = TokenKind::kString;
  } else if (cls & kPunctChar) {
    ++pos_;
    tok.kind = TokenKind::kPunct;
  } else {
    ++pos_;
    tok.kind = TokenKind::kError;
    error_reason_ = "unexpected character";
  }
  tok.text = text_.substr(start, pos_ - start);
  return tok;
}

}  // namespace smcompat::ptx
