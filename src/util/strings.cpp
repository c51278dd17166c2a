// String helpers (include/smcompat/util/strings.hpp).
#include "smcompat/util/strings.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace smcompat {

std::string normalize_package_name(std::string_view name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run && !out.empty()) out += '-';
      in_run = true;
      continue;
    }
    in_run = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }
bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::optional<uint64_t> parse_uint(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

std::string demangle(const std::string& name) {
  if (!name.starts_with("_Z")) return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !out) {
    std::free(out);
    return name;
  }
  std::string result(out);
  std::free(out);
  return result;
}

std::string human_bytes(uint64_t n) {
  if (n < 1000) return fmt::format("{} B", n);
  if (n < 1000 * 1000) return fmt::format("{:.1f} kB", n / 1e3);
  if (n < 1000ull * 1000 * 1000) return fmt::format("{:.1f} MB", n / 1e6);
  return fmt::format("{:.2f} GB", n / 1e9);
}

std::string join(const std::vector<std::string>& items, std::string_view sep,
                 std::string_view if_empty) {
  if (items.empty()) return std::string(if_empty);
  std::string out = items[0];
  for (size_t i = 1; i < items.size(); ++i) out.append(sep).append(items[i]);
  return out;
}

}  // namespace smcompat
