// Output files (-o, --html) are written whole or not at all: an earlier file is never left
// truncated. A full disk is stood in for by RLIMIT_FSIZE (bash's `ulimit -f 1`: 1 KiB, with
// SIGXFSZ ignored so that the write fails with EFBIG instead of killing the process); the old
// writers truncated the file first and left 1 KiB of the new text.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "probe/run_child.hpp"

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs the CLI with `args` under a 1 KiB file-size limit; OUT in `args` is the output file.
smcompat::test::ChildResult run_limited(const std::string& args) {
  return smcompat::test::run_child(
      {"/bin/bash", "-c",
       std::string("trap '' XFSZ; ulimit -f 1; exec '") + SMCOMPAT_CLI + "' " + args},
      {{"PATH", "/usr/bin:/bin"}, {"NO_COLOR", "1"}});
}

TEST(OutputFiles, AFailedWriteLeavesTheEarlierFileWhole) {
  smcompat::test::TempDir tmp;
  const std::string src = SMCOMPAT_SOURCE_DIR;
  const std::string log = tmp.path() + "/err.log";
  {
    std::ofstream(log) << "RuntimeError: CUDA error: no kernel image is available for execution "
                          "on the device\n";
  }
  struct Case {
    std::string what, args;
  };
  const std::vector<Case> cases = {
      {"explain -o", "explain --no-doctor --json --file '" + log + "' -o OUT"},
      {"trace -o", "trace --from '" + src +
                       "/tests/trace/data/h200-driver-580.159.04/librt_rdc_ptx80-lazy.records.jsonl"
                       "' --json -o OUT"},
      {"bench report --html",
       "bench report '" + src +
           "/docs/gpu-checks/2026-11-27-h200-sxm/bench-bench-merged.json' --html OUT"},
      {"index report --html", "index report --gpu 'RTX 5090' --html OUT"},
  };
  const std::string earlier(5000, 'e');
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string out = tmp.path() + "/out";
    { std::ofstream(out, std::ios::binary) << earlier; }
    std::string args = c.args;
    args.replace(args.find("OUT"), 3, "'" + out + "'");
    auto limited = run_limited(args);
    EXPECT_EQ(limited.exit_code, 2) << limited.err;
    EXPECT_NE(limited.err.find(out), std::string::npos) << limited.err;  // names the file
    EXPECT_EQ(read_all(out), earlier);
    // Without the limit the same command replaces the file (the output is over 1 KiB).
    auto free = smcompat::test::run_child(
        {"/bin/bash", "-c", std::string("exec '") + SMCOMPAT_CLI + "' " + args},
        {{"PATH", "/usr/bin:/bin"}, {"NO_COLOR", "1"}});
    EXPECT_NE(free.exit_code, 2) << free.err;
    std::string now = read_all(out);
    EXPECT_GT(now.size(), 1024u);
    EXPECT_NE(now, earlier);
  }
}

}  // namespace
