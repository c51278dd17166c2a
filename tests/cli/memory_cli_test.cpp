// Memory follows the pages read, not the sizes declared (issue 27): a 1 MB wheel whose one
// member inflates to 1 GiB used to cost 1 GiB of RSS in `scan` and `index add` (the member was
// inflated into memory); the member now goes to a temporary file whose pages the inventory drops
// as it reads. The bound is the one the corpus wheels are held to (docs/scan.md: 200 MiB).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "probe/run_child.hpp"

namespace {

struct Usage {
  int exit_code = -1;
  double max_rss_mib = 0;
};

// Runs the CLI with `args` (stdout and stderr to /dev/null) and reads its peak RSS with wait4.
Usage run_measured(const std::vector<std::string>& args) {
  std::vector<std::string> argv{SMCOMPAT_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  Usage u;
  int status = 0;
  struct rusage ru {};
  if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status)) {
    u.exit_code = WEXITSTATUS(status);
    u.max_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  }
  return u;
}

// A wheel holding METADATA and `pkg/libbig.so`: `size` zero bytes (deflated: about 1 MB).
void write_inflating_wheel(const std::string& path, uint64_t size) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  static const char kMetadata[] = "Metadata-Version: 2.1\nName: big\nVersion: 1.0\n\n";
  zip_source_t* meta = zip_source_buffer(z, kMetadata, sizeof kMetadata - 1, 0);
  ASSERT_GE(zip_file_add(z, "big-1.0.dist-info/METADATA", meta, 0), 0);
  // calloc: the zeros cost no memory until read, and libzip reads them once to deflate.
  void* zeros = std::calloc(1, size);
  ASSERT_NE(zeros, nullptr);
  zip_source_t* src = zip_source_buffer(z, zeros, size, 0);
  zip_int64_t index = zip_file_add(z, "pkg/libbig.so", src, 0);
  ASSERT_GE(index, 0);
  ASSERT_EQ(zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 1), 0);
  ASSERT_EQ(zip_close(z), 0);
  std::free(zeros);
}

TEST(MemoryBound, AMemberThatInflatesToOneGibibyteIsReadInBoundedMemory) {
  smcompat::test::TempDir tmp;
  const std::string wheel = tmp.path() + "/big-1.0-py3-none-manylinux_2_28_x86_64.whl";
  write_inflating_wheel(wheel, 1ull << 30);
  if (HasFatalFailure()) return;
  auto scan = run_measured({"scan", wheel});
  EXPECT_EQ(scan.exit_code, 0);
  EXPECT_GT(scan.max_rss_mib, 0.0);
  EXPECT_LT(scan.max_rss_mib, 200.0) << "scan peaked at " << scan.max_rss_mib << " MiB";
  auto index = run_measured({"index", "add", wheel, "-o", tmp.path() + "/index.json"});
  EXPECT_EQ(index.exit_code, 0);
  EXPECT_LT(index.max_rss_mib, 200.0) << "index add peaked at " << index.max_rss_mib << " MiB";
}

}  // namespace
