// Bounded reads of small files, atomic writes (include/smcompat/util/files.hpp).
#include "smcompat/util/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

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

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  // O_EXCL: never write through a file (or a planted symlink) that is already there.
  ::unlink(tmp_.c_str());
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error_ = make_error(std::string("cannot create: ") + std::strerror(errno));
    error_->file = tmp_;
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFileWriter::fail(const char* step, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  buffer_.clear();
  if (error_) return;
  error_ = make_error(std::string(step) + ": " + std::strerror(err));
  error_->file = std::string(step) == "rename" ? path_ : tmp_;
}

bool AtomicFileWriter::flush() {
  if (fd_ < 0) return false;
  if (!buffer_.empty() && !write_fully(fd_, buffer_.data(), buffer_.size())) {
    fail("write", errno);
    return false;
  }
  buffer_.clear();
  return true;
}

void AtomicFileWriter::write(std::string_view text) {
  if (fd_ < 0) return;  // failed before: the error is kept for commit()
  constexpr size_t kBuffer = 1 << 20;
  // A large piece (a JsonTextWriter's 256 KiB block) goes straight to the file: copying it into
  // this buffer first would only buffer it twice.
  constexpr size_t kDirect = 64 << 10;
  if (text.size() >= kDirect) {
    if (flush() && !write_fully(fd_, text.data(), text.size())) fail("write", errno);
    return;
  }
  if (buffer_.size() + text.size() > kBuffer && !flush()) return;
  buffer_.append(text);
}

std::optional<Error> AtomicFileWriter::commit() {
  if (error_ || !flush()) return error_;
  if (::fsync(fd_) != 0) {
    fail("fsync", errno);
    return error_;
  }
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    fail("close", errno);
    return error_;
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    fail("rename", errno);
    return error_;
  }
  // The rename itself reaches the disk when the directory is synced (best effort: a directory
  // that cannot be opened for reading still has the new file).
  std::string dir =
      path_.substr(0, path_.find_last_of('/') == std::string::npos ? 0 : path_.find_last_of('/'));
  if (path_.find('/') == std::string::npos) dir = ".";
  if (dir.empty()) dir = "/";
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return std::nullopt;
}

std::optional<Error> write_file_atomically(const std::string& path, std::string_view text) {
  AtomicFileWriter out(path);
  out.write(text);
  return out.commit();
}

}  // namespace smcompat
