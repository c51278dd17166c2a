// PTX header reader for the inventory (.version/.target/.address_size and .entry names).
// Inside fatbins nvcc replaces the leading // comments with blank lines (fatbin-format.md 5).
#include "smcompat/binary/ptx_header.hpp"

#include <fmt/format.h>
#include <string.h>  // memmem (POSIX 2024, glibc)

#include <cctype>

#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// Skips whitespace and comments from `pos`; returns the new position.
size_t skip_space(std::string_view t, size_t pos) {
  while (pos < t.size()) {
    char c = t[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
      ++pos;
    } else if (t.compare(pos, 2, "//") == 0) {
      size_t nl = t.find('\n', pos);
      pos = nl == std::string_view::npos ? t.size() : nl + 1;
    } else if (t.compare(pos, 2, "/*") == 0) {
      size_t end = t.find("*/", pos + 2);
      pos = end == std::string_view::npos ? t.size() : end + 2;
    } else {
      break;
    }
  }
  return pos;
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

size_t line_of(std::string_view t, size_t pos) {
  size_t line = 1;
  for (size_t i = 0; i < pos && i < t.size(); ++i) line += t[i] == '\n';
  return line;
}

}  // namespace

bool ptx_sniff(std::string_view text) {
  size_t pos = skip_space(text.substr(0, 1 << 16), 0);
  return text.compare(pos, 8, ".version") == 0;
}

Result<PtxHeader> parse_ptx_header(std::string_view text, bool with_entries) {
  PtxHeader h;
  size_t pos = skip_space(text, 0);
  bool have_version = false, have_target = false;
  // Header directives come first; stop at the first other token.
  while (pos < text.size() && text[pos] == '.') {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (size_t c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
    line = trim(line);
    if (line.starts_with(".version")) {
      auto v = Version::parse(trim(line.substr(8)));
      if (!v)
        return make_error(fmt::format("PTX line {}: bad .version '{}'", line_of(text, pos), line));
      h.version = *v;
      have_version = true;
    } else if (line.starts_with(".target")) {
      h.target_text = std::string(trim(line.substr(7)));
      auto parts = split(h.target_text, ',');
      auto t = SmTarget::parse(trim(parts[0]));
      if (!t || t->kind != ImageKind::kSass)
        return make_error(fmt::format("PTX line {}: bad .target '{}'", line_of(text, pos), line));
      h.target = *t;
      h.target.kind = ImageKind::kPtx;
      for (size_t i = 1; i < parts.size(); ++i)
        if (trim(parts[i]) == "debug") h.debug = true;
      have_target = true;
    } else if (line.starts_with(".address_size")) {
      auto n = parse_uint(trim(line.substr(13)));
      if (n) h.address_size = static_cast<int>(*n);
    } else {
      break;
    }
    pos = skip_space(text, eol);
  }
  if (!have_version) return make_error("PTX has no .version directive before its first statement");
  if (!have_target) return make_error("PTX has no .target directive after .version");
  if (with_entries) {
    // memmem, not string_view::find: find stops at every '.', and PTX has one in most words.
    auto find_entry = [&](size_t from) -> size_t {
      if (from >= text.size()) return std::string_view::npos;
      const void* hit = memmem(text.data() + from, text.size() - from, ".entry", 6);
      return hit ? static_cast<size_t>(static_cast<const char*>(hit) - text.data())
                 : std::string_view::npos;
    };
    for (size_t p = find_entry(pos); p != std::string_view::npos; p = find_entry(p + 6)) {
      if (p > 0 && is_ident(text[p - 1])) continue;
      size_t q = p + 6;
      if (q >= text.size() || !(text[q] == ' ' || text[q] == '\t')) continue;
      while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
      size_t e = q;
      while (e < text.size() && is_ident(text[e])) ++e;
      if (e > q) h.entries.emplace_back(text.substr(q, e - q));
    }
  }
  return h;
}

}  // namespace smcompat
