// Text inside HTML elements and quoted attribute values (report-internal; the bench and index
// pages): the five characters that can end an element, an attribute or an entity become
// references, and control bytes other than newline and tab are shown as \xNN, so an untrusted
// name can neither inject markup nor hide in the page.
#pragma once

#include <fmt/format.h>

#include <string>

namespace smcompat {

inline std::string html_text(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((c < 0x20 && ch != '\n' && ch != '\t') || c == 0x7f)
          out += fmt::format("\\x{:02x}", c);
        else
          out += ch;
    }
  }
  return out;
}

}  // namespace smcompat
