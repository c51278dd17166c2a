#include "smcompat/scan/wheel.hpp"

#include <fmt/format.h>
#include <zip.h>

#include <memory>
#include <sstream>

#include "smcompat/util/strings.hpp"

namespace smcompat {

std::optional<WheelName> parse_wheel_name(std::string_view filename) {
  if (!ends_with(filename, ".whl")) return std::nullopt;
  auto parts = split(filename.substr(0, filename.size() - 4), '-');
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;
  for (auto p : parts)
    if (p.empty()) return std::nullopt;
  size_t n = parts.size();
  return WheelName{std::string(parts[0]), std::string(parts[1]), std::string(parts[n - 3]),
                   std::string(parts[n - 2]), std::string(parts[n - 1])};
}

std::string machine_of(std::string_view platform) {
  if (platform == "any") return "any";
  for (std::string_view m :
       {"x86_64", "aarch64", "ppc64le", "s390x", "armv7l", "i686", "amd64", "arm64", "win32"})
    if (platform.find(m) != std::string_view::npos) return std::string(m);
  return std::string(platform);
}

WheelFacts read_wheel_facts(ByteView bytes) {
  WheelFacts facts;
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  zip_t* z = src ? zip_open_from_source(src, ZIP_RDONLY, &err) : nullptr;
  if (!z) {
    facts.error = make_error(fmt::format("zip: {}", zip_error_strerror(&err)));
    if (src) zip_source_free(src);
    zip_error_fini(&err);
    return facts;
  }
  zip_error_fini(&err);
  std::unique_ptr<zip_t, void (*)(zip_t*)> zip(z, zip_discard);
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(z, i, 0);
    if (!raw) continue;
    std::string name = raw;
    if (name.empty() || name.back() == '/') continue;
    ++facts.members;
    facts.member_paths.push_back(name);
    // The top-level NAME-VER.dist-info/METADATA (PEP 427), bounded: metadata is small.
    auto slash = name.rfind('/');
    if (slash == std::string::npos || name.substr(slash + 1) != "METADATA") continue;
    std::string dir = name.substr(0, slash);
    if (dir.find('/') != std::string::npos || !ends_with(dir, ".dist-info")) continue;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, i, 0, &st) != 0 || st.size > (16u << 20)) continue;
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> f(zip_fopen_index(z, i, 0), zip_fclose);
    if (!f) continue;
    std::string text(st.size, '\0');
    zip_int64_t got = zip_fread(f.get(), text.data(), st.size);
    if (got < 0) continue;
    text.resize(static_cast<size_t>(got));
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) break;  // the headers end at the first empty line; the body follows
      if (starts_with(line, "Requires-Dist:"))
        facts.requires_dist.emplace_back(trim(std::string_view(line).substr(14)));
    }
  }
  return facts;
}

}  // namespace smcompat
