// Read-only mmap of regular files (include/smcompat/util/mapped_file.hpp).
#include "smcompat/util/mapped_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace smcompat {

Result<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    Error e = make_error(fmt::format("cannot open: {}", std::strerror(errno)));
    return e.in_file(path);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return make_error(fmt::format("cannot stat: {}", std::strerror(err))).in_file(path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error("not a regular file").in_file(path);
  }
  MappedFile mf;
  mf.path_ = path;
  mf.size_ = static_cast<uint64_t>(st.st_size);
  if (mf.size_ > 0) {
    void* p = mmap(nullptr, mf.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return make_error(fmt::format("cannot mmap: {}", std::strerror(err))).in_file(path);
    }
    mf.data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return mf;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(other.data_), size_(other.size_), path_(std::move(other.path_)) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
    data_ = other.data_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace smcompat
