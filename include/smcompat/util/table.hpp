// Terminal output for people: aligned tables and colour that respects NO_COLOR and TTYs. In util/
// so that every layer may use them; the printers themselves live in report/.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace smcompat {

/// Colour and styling decisions, made once per output stream.
class Style {
 public:
  enum class Mode { kAuto, kAlways, kNever };
  /// kAuto: colour only if `stream` is a TTY, NO_COLOR is unset or empty, and TERM != "dumb".
  static Style for_stream(FILE* stream, Mode mode = Mode::kAuto);
  static Style plain() { return Style(false); }

  bool enabled() const { return enabled_; }
  std::string bold(const std::string& s) const { return wrap("1", s); }
  std::string dim(const std::string& s) const { return wrap("2", s); }
  std::string red(const std::string& s) const { return wrap("31", s); }
  std::string green(const std::string& s) const { return wrap("32", s); }
  std::string yellow(const std::string& s) const { return wrap("33", s); }
  std::string cyan(const std::string& s) const { return wrap("36", s); }

 private:
  explicit Style(bool enabled) : enabled_(enabled) {}
  std::string wrap(const char* code, const std::string& s) const;
  bool enabled_ = false;
};

/// Display width of a string, ignoring ANSI escape sequences and counting UTF-8 code points.
size_t display_width(const std::string& s);

/// A table of text cells printed with aligned columns. Cells may contain colour escapes.
class Table {
 public:
  enum class Align { kLeft, kRight };
  explicit Table(std::vector<std::string> headers, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  /// Renders with two spaces between columns; the header is styled bold.
  std::string render(const Style& style, const std::string& indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace smcompat
