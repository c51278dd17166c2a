// Bounded reading of explain's input (include/smcompat/explain/input.hpp).
#include "smcompat/explain/input.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace smcompat::explain {

namespace {

// Splits a stream into lines for `scan`, cutting lines longer than kMaxLineBytes into pieces.
class LineFeeder {
 public:
  explicit LineFeeder(TextScan& scan) : scan_(scan) {}
  void add(std::string_view bytes) {
    size_t start = 0;
    while (start < bytes.size()) {
      size_t nl = bytes.find('\n', start);
      std::string_view part =
          bytes.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      append(part);
      if (nl == std::string_view::npos) break;
      flush();
      start = nl + 1;
    }
  }
  void finish() {
    if (!line_.empty() || pieces_) flush();
  }

 private:
  void append(std::string_view part) {
    while (!part.empty()) {
      size_t room = kMaxLineBytes - line_.size();
      line_.append(part.substr(0, room));
      part.remove_prefix(std::min(room, part.size()));
      if (line_.size() == kMaxLineBytes) {
        scan_.add_line(line_);
        ++pieces_;
        line_.erase(0, line_.size() - kLineOverlap);  // the next piece overlaps this one
      }
    }
  }
  void flush() {
    if (!(pieces_ && line_.size() <= kLineOverlap)) scan_.add_line(line_);
    line_.clear();
    pieces_ = 0;
  }
  TextScan& scan_;
  std::string line_;
  size_t pieces_ = 0;
};

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return nullptr;
}

}  // namespace

void scan_text(std::string_view text, TextScan& scan) {
  LineFeeder feeder(scan);
  feeder.add(text);
  feeder.finish();
}

Result<void> scan_input(const std::string& path, TextScan& scan, uint64_t max_bytes) {
  const bool from_stdin = path == "-";
  const std::string name = from_stdin ? "standard input" : path;
  int fd = 0;
  if (!from_stdin) {
    // O_NONBLOCK: opening a FIFO with no writer must not hang before it can be refused.
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
      return make_error(fmt::format("cannot read: {}", std::strerror(errno))).in_file(path);
    struct stat st {};
    const bool stat_ok = ::fstat(fd, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode)) {
      const char* kind = stat_ok ? kind_of(st.st_mode) : nullptr;
      ::close(fd);
      return make_error(fmt::format("is {}, not a log file{}", kind ? kind : "not a regular file",
                                    kind && std::string_view(kind) == "a FIFO"
                                        ? " (pipe its output in: smcompat explain - < FIFO)"
                                        : ""))
          .in_file(path);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  }
  LineFeeder feeder(scan);
  std::vector<char> buf(1u << 20);
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      if (!from_stdin) ::close(fd);
      return make_error(fmt::format("read failed: {}", why), total).in_file(name);
    }
    if (n == 0) break;
    if (total + uint64_t(n) > max_bytes) {
      if (!from_stdin) ::close(fd);
      return make_error(fmt::format("more than {} MiB of text; give the end of the log "
                                    "(tail -c {}M LOG | smcompat explain -)",
                                    max_bytes >> 20, max_bytes >> 20),
                        max_bytes)
          .in_file(name);
    }
    total += uint64_t(n);
    feeder.add(std::string_view(buf.data(), size_t(n)));
  }
  if (!from_stdin) ::close(fd);
  feeder.finish();
  return {};
}

}  // namespace smcompat::explain
