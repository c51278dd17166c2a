// The host name reports are tagged with, and the atomic write that -o / --textfile use.
#include "smcompat/util/files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "smcompat/util/host.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

TEST(HostName, EnvironmentOverridesGethostname) {
  char buf[256] = {};
  ASSERT_EQ(gethostname(buf, sizeof buf - 1), 0);
  ::unsetenv("SMCOMPAT_HOSTNAME");
  EXPECT_EQ(host_name(), buf);
  ::setenv("SMCOMPAT_HOSTNAME", "gpu-node-17", 1);
  EXPECT_EQ(host_name(), "gpu-node-17");
  ::setenv("SMCOMPAT_HOSTNAME", "", 1);  // empty: as if unset
  EXPECT_EQ(host_name(), buf);
  ::unsetenv("SMCOMPAT_HOSTNAME");
}

struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("smcompat-files-" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() { fs::remove_all(path); }
  size_t entries() const {
    return static_cast<size_t>(
        std::distance(fs::directory_iterator(path), fs::directory_iterator()));
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WriteFileAtomically, ReplacesTheFileAndLeavesNoTemporary) {
  ScratchDir d;
  std::string target = (d.path / "metrics.prom").string();
  ASSERT_FALSE(write_file_atomically(target, "first\n"));
  EXPECT_EQ(slurp(target), "first\n");
  std::string big(3 << 20, 'x');
  ASSERT_FALSE(write_file_atomically(target, big));
  EXPECT_EQ(slurp(target), big);
  EXPECT_EQ(d.entries(), 1u);
}

TEST(WriteFileAtomically, MissingDirectoryIsALocatedErrorAndWritesNothing) {
  ScratchDir d;
  std::string target = (d.path / "no" / "such" / "f.json").string();
  auto err = write_file_atomically(target, "x");
  ASSERT_TRUE(err);
  EXPECT_EQ(err->file, target + ".tmp." + std::to_string(::getpid()));
  EXPECT_NE(err->what.find("cannot create"), std::string::npos) << err->what;
  EXPECT_EQ(d.entries(), 0u);
}

TEST(WriteFileAtomically, RenameOntoADirectoryFailsAndCleansUp) {
  ScratchDir d;
  fs::create_directories(d.path / "taken" / "inside");  // rename(2) cannot replace a non-empty dir
  auto err = write_file_atomically((d.path / "taken").string(), "x");
  ASSERT_TRUE(err);
  EXPECT_EQ(err->file, (d.path / "taken").string());
  EXPECT_EQ(err->what.rfind("rename: ", 0), 0u) << err->what;
  EXPECT_EQ(d.entries(), 1u);  // only the directory: the temporary is gone
}

TEST(AtomicFileWriter, PiecesOverTheBufferComeOutWholeAndInOrder) {
  ScratchDir d;
  std::string target = (d.path / "index.json").string();
  std::string expect;
  {
    AtomicFileWriter out(target);
    for (int i = 0; i < 3000; ++i) {  // small pieces across several 1 MiB flushes
      std::string piece(700 + i % 13, static_cast<char>('a' + i % 26));
      out.write(piece);
      expect += piece;
    }
    std::string big(3 << 20, 'z');  // one piece bigger than the buffer
    out.write(big);
    expect += big;
    EXPECT_FALSE(fs::exists(target));  // nothing at the path before the commit
    ASSERT_FALSE(out.commit());
  }
  EXPECT_EQ(slurp(target), expect);
  EXPECT_EQ(d.entries(), 1u);
}

TEST(AtomicFileWriter, DroppedWithoutCommitLeavesNothing) {
  ScratchDir d;
  std::string target = (d.path / "fleet.json").string();
  {
    AtomicFileWriter out(target);
    out.write(std::string(2 << 20, 'x'));
    EXPECT_EQ(d.entries(), 1u);  // the temporary
  }
  EXPECT_EQ(d.entries(), 0u);
}

TEST(AtomicFileWriter, ACreateErrorIsKeptForTheCommit) {
  ScratchDir d;
  std::string target = (d.path / "no" / "dir" / "scan.json").string();
  AtomicFileWriter out(target);
  out.write("{}");  // ignored: the file could not be made
  auto err = out.commit();
  ASSERT_TRUE(err);
  EXPECT_EQ(err->file, target + ".tmp." + std::to_string(::getpid()));
  EXPECT_NE(err->what.find("cannot create"), std::string::npos) << err->what;
  EXPECT_EQ(d.entries(), 0u);
}

}  // namespace
}  // namespace smcompat
