// Bounded reads of small files (include/smcompat/util/files.hpp).
#include "smcompat/util/files.hpp"

#include <algorithm>
#include <fstream>

namespace smcompat {

std::optional<std::string> read_file_prefix(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string s;
  char buf[65536];
  // Stop at `max`: a file longer than that must not keep the loop going (gcount() keeps the
  // last read's count when no read is made).
  while (s.size() < max && (in.read(buf, sizeof buf), in.gcount() > 0))
    s.append(buf, std::min<size_t>(static_cast<size_t>(in.gcount()), max - s.size()));
  return s;
}

}  // namespace smcompat
