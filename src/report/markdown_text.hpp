// Text inside GitHub-flavoured Markdown tables and lists (report-internal): line breaks become
// spaces, control bytes are shown as \xNN, and Markdown's active characters are escaped, so a
// package or file name cannot break a table or inject markup.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace smcompat {

inline std::string markdown_text(const std::string& s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\r' || c == '\t')
      out += ' ';
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else if (std::string_view("\\`*_[]<>|#&!").find(ch) != std::string_view::npos)
      out += std::string("\\") + ch;
    else
      out += ch;
  }
  return out;
}

/// A path or command as a code span; text a code span cannot hold (a backtick, a line break, a
/// control byte) falls back to escaped text.
inline std::string markdown_code(const std::string& s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == '`' || c < 0x20 || c == 0x7f) return markdown_text(s);
  }
  return "`" + s + "`";
}

}  // namespace smcompat
