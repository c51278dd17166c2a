// The shell splitter of the engine command lines (engine_internal.hpp: tokenize, join) and
// engine.hpp's split_shell_words.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine_internal.hpp"
#include "smcompat/plan/engine.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::plan::detail {

// ---------------------------------------------------------------------------------------------
// Shell words.
//
// A small POSIX splitter rather than wordexp(3): wordexp expands $VARIABLES, globs and ~, so a
// command written with `$MODEL` or `~/ckpt` would come back changed, and a rewrite must keep every
// word it does not touch exactly as written. This one removes quotes (POSIX 2.2), keeps `$...`,
// `$(...)`, `${...}` and backquotes as text, and remembers each word's source text.

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

namespace {

bool is_operator_char(char c) {
  return c == '|' || c == '&' || c == ';' || c == '<' || c == '>' || c == '(' || c == ')';
}

// Skips a `$(...)`, `${...}` or backquoted span starting at text[i]; returns the index after it.
Result<size_t> skip_substitution(std::string_view text, size_t i) {
  size_t start = i;
  if (text[i] == '`') {
    for (size_t j = i + 1; j < text.size(); ++j) {
      if (text[j] == '\\') {
        ++j;
      } else if (text[j] == '`') {
        return j + 1;
      }
    }
    return make_error("unbalanced backquote (opened at offset " + std::to_string(start) + ")",
                      start);
  }
  char open = text[i + 1];  // '(' or '{'
  char close = open == '(' ? ')' : '}';
  int depth = 0;
  for (size_t j = i + 1; j < text.size(); ++j) {
    char c = text[j];
    if (c == '\\') {
      ++j;
    } else if (c == '\'') {
      size_t end = text.find('\'', j + 1);
      if (end == std::string_view::npos) break;
      j = end;
    } else if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      return j + 1;
    }
  }
  return make_error(fmt::format("unbalanced \"${}\" (opened at offset {})", open, start), start);
}

}  // namespace

Result<std::vector<Token>> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  Token word;
  bool in_word = false;
  auto finish = [&] {
    if (in_word) tokens.push_back(std::move(word));
    word = Token{};
    in_word = false;
  };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // line continuation
      i += 2;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      finish();
      ++i;
      continue;
    }
    if (c == '\n') {
      finish();
      tokens.push_back(Token{true, "\n", "\n"});
      ++i;
      continue;
    }
    if (c == '#' && !in_word) {  // a comment runs to the end of the line
      size_t end = text.find('\n', i);
      i = end == std::string_view::npos ? text.size() : end;
      continue;
    }
    if (is_operator_char(c)) {
      Token op{true, "", ""};
      // "2>&1": digits right before a redirection belong to it (POSIX 2.10.1, IO_NUMBER).
      if (in_word && (c == '<' || c == '>') && word.raw == word.value && all_digits(word.value)) {
        op.value = word.value;
        word = Token{};
        in_word = false;
      }
      finish();
      while (i < text.size() && is_operator_char(text[i])) op.value += text[i++];
      op.raw = op.value;
      tokens.push_back(std::move(op));
      continue;
    }
    in_word = true;
    if (c == '\'') {
      size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos)
        return make_error("unbalanced single quote (opened at offset " + std::to_string(i) + ")",
                          i);
      word.value.append(text.substr(i + 1, end - i - 1));
      word.raw.append(text.substr(i, end - i + 1));
      i = end + 1;
      continue;
    }
    if (c == '"') {
      size_t start = i;
      word.raw += '"';
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char d = text[i];
        if (d == '"') {
          word.raw += '"';
          ++i;
          closed = true;
          break;
        }
        if (d == '\\' && i + 1 < text.size()) {
          char e = text[i + 1];
          if (e == '\n') {  // continuation inside double quotes
            i += 2;
            continue;
          }
          // Inside double quotes a backslash escapes only $ ` " \ (POSIX 2.2.3).
          if (e == '$' || e == '`' || e == '"' || e == '\\') {
            word.value += e;
          } else {
            word.value += '\\';
            word.value += e;
          }
          word.raw.append(text.substr(i, 2));
          i += 2;
          continue;
        }
        if ((d == '$' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '{')) ||
            d == '`') {
          SMCOMPAT_TRY(size_t end, skip_substitution(text, i));
          word.value.append(text.substr(i, end - i));
          word.raw.append(text.substr(i, end - i));
          i = end;
          continue;
        }
        word.value += d;
        word.raw += d;
        ++i;
      }
      if (!closed)
        return make_error(
            "unbalanced double quote (opened at offset " + std::to_string(start) + ")", start);
      continue;
    }
    if (c == '\\') {
      if (i + 1 < text.size()) {
        word.value += text[i + 1];
        word.raw.append(text.substr(i, 2));
        i += 2;
      } else {  // a backslash ending the text stands for itself; escaped, so words after it
                // in a rewrite are not joined to it
        word.value += c;
        word.raw += "\\\\";
        ++i;
      }
      continue;
    }
    if ((c == '$' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '{')) ||
        c == '`') {
      SMCOMPAT_TRY(size_t end, skip_substitution(text, i));
      word.value.append(text.substr(i, end - i));
      word.raw.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    word.value += c;
    word.raw += c;
    ++i;
  }
  finish();
  return tokens;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

}  // namespace smcompat::plan::detail

namespace smcompat::plan {

Result<std::vector<std::string>> split_shell_words(std::string_view text) {
  SMCOMPAT_TRY(auto tokens, detail::tokenize(text));
  std::vector<std::string> words;
  for (auto& t : tokens) words.push_back(std::move(t.value));
  return words;
}

}  // namespace smcompat::plan
