// Aligned tables and colour (include/smcompat/util/table.hpp).
#include "smcompat/util/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace smcompat {

Style Style::for_stream(FILE* stream, Mode mode) {
  if (mode == Mode::kAlways) return Style(true);
  if (mode == Mode::kNever) return Style(false);
  const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org
  if (no_color && *no_color) return Style(false);
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0) return Style(false);
  return Style(isatty(fileno(stream)) == 1);
}

std::string Style::wrap(const char* code, const std::string& s) const {
  if (!enabled_ || s.empty()) return s;
  return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
}

size_t display_width(const std::string& s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {  // skip a CSI sequence "ESC [ params letter"
      ++i;
      if (i < s.size() && s[i] == '[') ++i;
      while (i < s.size() && !std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) ++w;  // count UTF-8 lead bytes only
  }
  return w;
}

Table::Table(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  align_.resize(headers_.size(), Align::kLeft);
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render(const Style& style, const std::string& indent) const {
  std::vector<size_t> width(headers_.size(), 0);
  for (size_t c = 0; c < headers_.size(); ++c) width[c] = display_width(headers_[c]);
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out = indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      size_t pad = width[c] - display_width(cells[c]);
      bool last = c + 1 == cells.size();
      std::string cell = header ? style.bold(cells[c]) : cells[c];
      if (align_[c] == Align::kRight)
        out += std::string(pad, ' ') + cell;
      else
        out += cell + (last ? "" : std::string(pad, ' '));
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_, true);
  for (const auto& row : rows_) out += line(row, false);
  return out;
}

}  // namespace smcompat
