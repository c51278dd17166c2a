// Read-only mmap of regular files, and streams spooled to them
// (include/smcompat/util/mapped_file.hpp).
#include "smcompat/util/mapped_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "smcompat/util/files.hpp"

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
  auto mapped = map_descriptor(fd, static_cast<uint64_t>(st.st_size), path);
  ::close(fd);
  return mapped;
}

Result<MappedFile> MappedFile::map_descriptor(int fd, uint64_t size, const std::string& name) {
  MappedFile mf;
  mf.path_ = name;
  mf.size_ = size;
  if (size > 0) {
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
      return make_error(fmt::format("cannot mmap: {}", std::strerror(errno))).in_file(name);
    mf.data_ = static_cast<const uint8_t*>(p);
  }
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

void release_mapped_pages(ByteView view) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto begin = reinterpret_cast<uintptr_t>(view.data());
  uintptr_t first = (begin + page - 1) & ~(page - 1);
  uintptr_t last = (begin + view.size()) & ~(page - 1);
  if (view.data() && last > first)
    madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

namespace {

// An unlinked file in $TMPDIR (or /tmp): O_TMPFILE where the file system has it, else mkstemp.
int open_unlinked_temporary() {
  const char* env = std::getenv("TMPDIR");
  std::string dir = env && *env ? env : "/tmp";
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = dir + "/smcompat-spool-XXXXXX";
  fd = mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

}  // namespace

SpooledBytes SpooledBytes::read(const Pull& pull, uint64_t size, uint64_t reserve,
                                uint64_t memory_limit) {
  SpooledBytes out;
  constexpr uint64_t kChunk = 16ull << 20;
  int fd = size > memory_limit ? open_unlinked_temporary() : -1;
  if (fd < 0) {
    // Grown in chunks so memory follows the bytes that really arrive, not the declared size;
    // one reservation up front so the buffer is never copied while it grows (that doubled the
    // peak), its pages touched only as bytes arrive.
    out.memory_.reserve(std::min(reserve, size));
    uint64_t got = 0;
    while (got < size) {
      uint64_t chunk = std::min(size - got, kChunk);
      out.memory_.resize(got + chunk);
      int64_t r = pull(out.memory_.data() + got, chunk);
      if (r < 0) out.failed_ = true;
      if (r <= 0) break;
      got += static_cast<uint64_t>(r);
    }
    out.memory_.resize(got);
    return out;
  }
  std::vector<uint8_t> buffer(std::min<uint64_t>(size, 1ull << 20));
  uint64_t got = 0;
  while (got < size) {
    int64_t r = pull(buffer.data(), std::min<uint64_t>(size - got, buffer.size()));
    if (r < 0) out.failed_ = true;
    if (r <= 0) break;
    if (!write_fully(fd, buffer.data(), static_cast<size_t>(r))) {
      out.spool_error_ = fmt::format("cannot write a temporary file: {}", std::strerror(errno));
      break;
    }
    got += static_cast<uint64_t>(r);
  }
  if (out.spool_error_.empty()) {
    if (auto mapped = MappedFile::map_descriptor(fd, got, "temporary file"))
      out.file_ = std::move(*mapped);
    else
      out.spool_error_ = mapped.error().what;
  }
  ::close(fd);
  return out;
}

ByteView SpooledBytes::view() const {
  if (file_.size() > 0) return file_.view();
  return ByteView(memory_.data(), memory_.size(), 0);
}

}  // namespace smcompat
