// What the redaction passes share (src/explain/redact.cpp, redact_tokens.cpp): character classes,
// the masker that copies a text with spans replaced, runs, quoted values and closers. Private to
// explain/.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

namespace smcompat::explain::redaction {

constexpr std::string_view kMask = "[REDACTED]";

inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
inline bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool is_word(char c) { return is_alnum(c) || c == '_'; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_quote(char c) { return c == '"' || c == '\'' || c == '`'; }
inline char ascii_lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

inline bool contains_any(std::string_view s, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (s.find(w) != std::string_view::npos) return true;
  return false;
}

// Copies the input, replacing the spans given (in increasing order) by the mask. A span that
// starts inside the previous mask extends it instead of adding a second mask.
class Masker {
 public:
  explicit Masker(std::string_view in) : in_(in) { out_.reserve(in.size()); }
  void mask(size_t b, size_t e) {
    e = std::min(e, in_.size());
    if (b < copied_) {
      copied_ = std::max(copied_, e);
      return;
    }
    if (e <= b) return;
    out_.append(in_.substr(copied_, b - copied_));
    out_ += kMask;
    copied_ = e;
  }
  std::string finish() {
    out_.append(in_.substr(std::min(copied_, in_.size())));
    return std::move(out_);
  }

 private:
  std::string_view in_;
  std::string out_;
  size_t copied_ = 0;
};

// Calls `f(begin, end)` for each maximal run of characters that `in_run` accepts; `f` returns
// where the scan goes on (at least `end`).
template <class Pred, class F>
void for_each_run(std::string_view t, Pred in_run, F f) {
  size_t i = 0;
  while (i < t.size()) {
    if (!in_run(t[i])) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < t.size() && in_run(t[e])) ++e;
    i = f(i, e);
  }
}

// End of a value that opened with quote `q` at `b`: the matching quote or the end of the line.
inline size_t quoted_end(std::string_view t, size_t b, char q) {
  size_t e = b;
  while (e < t.size() && t[e] != q && t[e] != '\n') ++e;
  return e;
}

// The end of an unquoted value, without the quotes, backticks and brackets at its end that close
// something opened before it: "`TOKEN=x`" and "(TOKEN=x)" keep their "`" and ")". A value that
// holds the opening bracket itself (`pw=a(b)`) or an odd number of that quote keeps it.
inline size_t trim_closers(std::string_view t, size_t b, size_t e) {
  int paren = 0, square = 0, curly = 0, angle = 0;  // openers minus closers in the value
  int dquote = 0, squote = 0, backtick = 0;
  for (size_t k = b; k < e; ++k) {
    switch (t[k]) {
      case '(':
        ++paren;
        break;
      case ')':
        --paren;
        break;
      case '[':
        ++square;
        break;
      case ']':
        --square;
        break;
      case '{':
        ++curly;
        break;
      case '}':
        --curly;
        break;
      case '<':
        ++angle;
        break;
      case '>':
        --angle;
        break;
      case '"':
        ++dquote;
        break;
      case '\'':
        ++squote;
        break;
      case '`':
        ++backtick;
        break;
      default:
        break;
    }
  }
  auto unmatched = [](int& balance) {
    if (balance >= 0) return false;
    ++balance;
    return true;
  };
  auto odd = [](int& count) {
    if (count % 2 == 0) return false;
    --count;
    return true;
  };
  while (e > b) {
    char c = t[e - 1];
    bool closes = (c == ')' && unmatched(paren)) || (c == ']' && unmatched(square)) ||
                  (c == '}' && unmatched(curly)) || (c == '>' && unmatched(angle)) ||
                  (c == '"' && odd(dquote)) || (c == '\'' && odd(squote)) ||
                  (c == '`' && odd(backtick));
    if (!closes) break;
    --e;
  }
  return e;
}

// A character a URL may hold unescaped in free text (passes 3 and 8).
inline bool is_url_char(char c) {
  return c > ' ' && c != '"' && c != '\'' && c != '`' && c != '<' && c != '>' && c != '{' &&
         c != '}' && c != '|' && c != '\\' && c != '^' && c != 0x7f;
}

// The passes, in the order redact() runs them (docs/explain.md numbers them the same way).
std::string mask_pem_private_keys(std::string_view t);    // 1
std::string mask_authorization(std::string_view t);       // 2
std::string mask_urls(std::string_view t);                // 3
std::string mask_secret_assignments(std::string_view t);  // 4
std::string mask_flags(std::string_view t);               // 5
std::string mask_prefixed_tokens(std::string_view t);     // 6
std::string mask_hex_keys(std::string_view t);            // 7
std::string mask_high_entropy(std::string_view t);        // 8
/// A token of the documented high-entropy shape (pass 8; pass 3 uses it for URL parts).
bool high_entropy(std::string_view tok);

}  // namespace smcompat::explain::redaction
