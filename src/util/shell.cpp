// Shell words and program lookup (include/smcompat/util/shell.hpp).
#include "smcompat/util/shell.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace smcompat {

std::string shell_quote(std::string_view word) {
  if (word.empty()) return "''";
  bool plain = std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("_@%+=:,./-").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<std::string> find_executable(const std::string& name, std::string_view path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos)
    return fs::is_regular_file(name, ec) ? std::optional<std::string>(name) : std::nullopt;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view dir = path.substr(start, end - start);
    if (!dir.empty()) {
      fs::path candidate = fs::path(std::string(dir)) / name;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
        return candidate.string();
    }
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace smcompat
