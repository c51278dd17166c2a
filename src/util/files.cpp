// Bounded reads of small files and atomic replacement (include/smcompat/util/files.hpp).
#include "smcompat/util/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
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

namespace {

std::string system_reason(int err) { return std::strerror(err); }

}  // namespace

Result<void> write_file_atomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    Error e = make_error("directory " + dir.string() + " does not exist");
    e.file = path;
    return e;
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const std::string& what, int err, bool remove) -> Error {
    if (remove) ::unlink(tmp.c_str());
    Error e = make_error(what + ": " + system_reason(err));
    e.file = path;
    return e;
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot create " + tmp, errno, false);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      ::close(fd);
      return fail("writing " + tmp + " failed", err, true);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return fail("fsync of " + tmp + " failed", err, true);
  }
  if (::close(fd) != 0) return fail("closing " + tmp + " failed", errno, true);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("cannot rename " + tmp + " to " + path, errno, true);
  // The rename itself is durable once the directory is synced; a failure here does not undo it.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

}  // namespace smcompat
