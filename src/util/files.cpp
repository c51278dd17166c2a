// Bounded reads of small files, atomic writes (include/smcompat/util/files.hpp).
#include "smcompat/util/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

bool write_fully(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::optional<Error> write_file_atomically(const std::string& path, std::string_view text) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* step, int err) {
    ::unlink(tmp.c_str());
    Error e = make_error(std::string(step) + ": " + std::strerror(err));
    e.file = step == std::string("rename") ? path : tmp;
    return e;
  };
  // O_EXCL: never write through a file (or a planted symlink) that is already there.
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    Error e = make_error(std::string("cannot create: ") + std::strerror(errno));
    e.file = tmp;
    return e;
  }
  if (!write_fully(fd, text.data(), text.size())) {
    int err = errno;
    ::close(fd);
    return fail("write", err);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return fail("fsync", err);
  }
  if (::close(fd) != 0) return fail("close", errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename", errno);
  // The rename itself reaches the disk when the directory is synced (best effort: a directory
  // that cannot be opened for reading still has the new file).
  std::string dir =
      path.substr(0, path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/'));
  if (path.find('/') == std::string::npos) dir = ".";
  if (dir.empty()) dir = "/";
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return std::nullopt;
}

}  // namespace smcompat
