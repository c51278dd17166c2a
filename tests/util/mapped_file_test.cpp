// SpooledBytes: small streams in memory, large ones in an unlinked temporary file mapped
// read-only; release_mapped_pages() leaves a mapping's bytes as they were.
#include "smcompat/util/mapped_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace smcompat {
namespace {

namespace fs = std::filesystem;

// A pull function over `text`, `step` bytes at a time at most; fails (-1) at `fail_at` if set.
SpooledBytes::Pull pull_from(const std::string& text, uint64_t step, uint64_t& pos,
                             uint64_t fail_at = ~0ull) {
  return [&text, step, &pos, fail_at](uint8_t* buffer, uint64_t capacity) -> int64_t {
    if (pos >= fail_at) return -1;
    uint64_t n = std::min({capacity, step, text.size() - pos});
    std::copy_n(text.data() + pos, n, buffer);
    pos += n;
    return static_cast<int64_t>(n);
  };
}

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131) >> 7);
  return s;
}

TEST(SpooledBytes, SmallStreamsStayInMemory) {
  const std::string text = pattern(100000);
  uint64_t pos = 0;
  auto b = SpooledBytes::read(pull_from(text, 4096, pos), text.size(), text.size(), 1 << 20);
  EXPECT_FALSE(b.file_backed());
  EXPECT_FALSE(b.failed());
  EXPECT_TRUE(b.spool_error().empty());
  EXPECT_EQ(b.view().as_string_view(), text);
}

TEST(SpooledBytes, LargeStreamsGoToAFileWithTheSameBytes) {
  const std::string text = pattern(3 << 20);
  uint64_t pos = 0;
  auto b = SpooledBytes::read(pull_from(text, 70000, pos), text.size(), 0, 1 << 20);
  EXPECT_TRUE(b.file_backed());
  EXPECT_FALSE(b.failed());
  EXPECT_EQ(b.size(), text.size());
  EXPECT_TRUE(b.view().as_string_view() == text);
  // Dropping the pages from the resident set changes nothing that is read afterwards.
  release_mapped_pages(b.view());
  EXPECT_TRUE(b.view().as_string_view() == text);
}

TEST(SpooledBytes, AShortStreamIsShortAndAFailingOneFails) {
  const std::string text = pattern(2 << 20);
  uint64_t pos = 0;
  // The stream ends early: the bytes that came, no failure (the caller compares the size).
  auto shortened = SpooledBytes::read(pull_from(text, 1 << 16, pos), text.size() + 5, 0, 1 << 20);
  EXPECT_FALSE(shortened.failed());
  EXPECT_EQ(shortened.size(), text.size());
  pos = 0;
  auto failing =
      SpooledBytes::read(pull_from(text, 1 << 16, pos, 1 << 20), text.size(), 0, 1 << 20);
  EXPECT_TRUE(failing.failed());
  EXPECT_EQ(failing.size(), 1u << 20);
  pos = 0;
  auto failing_small =
      SpooledBytes::read(pull_from(text, 1 << 16, pos, 1 << 16), text.size(), text.size(), 4 << 20);
  EXPECT_TRUE(failing_small.failed());
  EXPECT_FALSE(failing_small.file_backed());
}

TEST(SpooledBytes, WithoutAWritableTemporaryDirectoryTheBytesStayInMemory) {
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent-smcompat-dir", 1);
  const std::string text = pattern(2 << 20);
  uint64_t pos = 0;
  auto b = SpooledBytes::read(pull_from(text, 1 << 16, pos), text.size(), 0, 1 << 20);
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_FALSE(b.file_backed());
  EXPECT_FALSE(b.failed());
  EXPECT_TRUE(b.view().as_string_view() == text);
}

TEST(MappedFile, ReleasedPagesReadBackTheSame) {
  fs::path p = fs::temp_directory_path() / ("smcompat-mapped-" + std::to_string(::getpid()));
  const std::string text = pattern(1 << 20);
  std::ofstream(p, std::ios::binary) << text;
  auto mf = MappedFile::open(p.string());
  ASSERT_TRUE(mf);
  EXPECT_TRUE(mf->view().as_string_view() == text);
  release_mapped_pages(mf->view().clamp(100, 500000));
  EXPECT_TRUE(mf->view().as_string_view() == text);
  fs::remove(p);
}

}  // namespace
}  // namespace smcompat
