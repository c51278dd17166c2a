// How many bytes from `p` onwards are mapped readable in this process, from /proc/self/maps
// (contiguous readable mappings are joined). Images handed to cuModuleLoadData and friends carry
// no size, and their headers are untrusted: reading them is bounded by this so that a corrupt
// header makes an error record, never a crash. Returns 0 if `p` is not in a readable mapping.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace smcompat::trace_shim {

inline uint64_t readable_extent(const void* p) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::string maps;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    maps.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  uintptr_t region_end = 0;  // end of the readable run containing addr, once found
  size_t pos = 0;
  while (pos < maps.size()) {
    size_t eol = maps.find('\n', pos);
    if (eol == std::string::npos) eol = maps.size();
    const char* line = maps.c_str() + pos;
    char* rest = nullptr;
    uintptr_t start = std::strtoull(line, &rest, 16);
    uintptr_t end = (rest && *rest == '-') ? std::strtoull(rest + 1, &rest, 16) : 0;
    bool readable = rest && rest[0] == ' ' && rest[1] == 'r';
    pos = eol + 1;
    if (region_end == 0) {
      if (readable && start <= addr && addr < end) region_end = end;
    } else if (readable && start == region_end) {
      region_end = end;
    } else {
      break;
    }
  }
  return region_end > addr ? region_end - addr : 0;
}

/// If `image` is a __fatBinC_Wrapper_t (magic 0x466243B1, fatbin-format.md 1.1), the container it
/// points to; otherwise `image`. Either way `extent` becomes the readable extent of the result, so
/// the bound applies to the bytes that are actually parsed.
inline const void* unwrap_fatbin_wrapper(const void* image, uint64_t& extent) {
  extent = readable_extent(image);
  if (extent < 16) return image;
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  if (magic != 0x466243B1u) return image;
  uint64_t data = 0;
  std::memcpy(&data, static_cast<const char*>(image) + 8, sizeof data);
  const void* container = reinterpret_cast<const void*>(static_cast<uintptr_t>(data));
  uint64_t container_extent = container ? readable_extent(container) : 0;
  if (container_extent == 0) return image;  // let the inventory report the bad pointer
  extent = container_extent;
  return container;
}

}  // namespace smcompat::trace_shim
