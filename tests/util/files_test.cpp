// write_file_atomically() (util/files.hpp): the file is replaced whole, no temporary file is left
// behind, and a missing directory is an error that writes nothing.
#include "smcompat/util/files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace smcompat {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "smcompat-files-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

TEST_F(AtomicWrite, ReplacesTheFileWholeAndLeavesNoTemporary) {
  std::string path = (dir_ / "smcompat.prom").string();
  ASSERT_TRUE(write_file_atomically(path, "first\n"));
  EXPECT_EQ(read_file_prefix(path, 1 << 20), "first\n");
  std::string big(1 << 20, 'x');
  ASSERT_TRUE(write_file_atomically(path, big));
  EXPECT_EQ(read_file_prefix(path, 2 << 20), big);
  EXPECT_EQ(names(), std::vector<std::string>{"smcompat.prom"});
  // 0644 less the umask: node_exporter, usually another user, reads it.
  mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(static_cast<unsigned>(fs::status(path).permissions() & fs::perms::all),
            0644u & ~static_cast<unsigned>(mask));
}

TEST_F(AtomicWrite, MissingDirectoryIsAnErrorAndWritesNothing) {
  std::string path = (dir_ / "no-such-dir" / "smcompat.prom").string();
  auto r = write_file_atomically(path, "x\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what.find("does not exist"), std::string::npos) << r.error().what;
  EXPECT_EQ(r.error().file, path);
  EXPECT_TRUE(names().empty());
}

TEST_F(AtomicWrite, UnwritableTargetLeavesNoTemporary) {
  // A directory in the way: rename(2) of a file over a directory fails (EISDIR).
  fs::create_directory(dir_ / "smcompat.prom");
  auto r = write_file_atomically((dir_ / "smcompat.prom").string(), "x\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(names(), std::vector<std::string>{"smcompat.prom"});
  EXPECT_TRUE(fs::is_directory(dir_ / "smcompat.prom"));
}

}  // namespace
}  // namespace smcompat
