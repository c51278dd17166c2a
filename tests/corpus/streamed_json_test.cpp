// `scan --json` is written file by file and entry by entry as it is produced (issue 32,
// util/json_stream.hpp). On real corpus wheels, deep-scanned (every kernel of every cubin in the
// document), the streamed text must be byte for byte the dump of the whole tree that `scan`
// printed before, and the CLI's stdout must be that text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>

#include "smcompat/report/scan_report.hpp"
#include "smcompat/util/json_stream.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/verdict/targets.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;

namespace smcompat {
namespace {

const char* const kWheels[] = {
    "bitsandbytes-0.45.2-py3-none-manylinux_2_24_x86_64.whl",  // 16 MB of deep JSON
    "xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl",
    "cupy_cuda12x-14.2.0-cp311-cp311-manylinux2014_x86_64.whl",  // PTX-heavy
};

class StreamedScanJson : public ::testing::TestWithParam<const char*> {};

TEST_P(StreamedScanJson, DeepScanTextIsTheTreesDumpAndTheCliPrintsIt) {
  const fs::path wheel = testcorpus::corpus_dir() / "wheels" / GetParam();
  if (!fs::exists(wheel))
    GTEST_SKIP() << "corpus cache missing: " << wheel << " (run scripts/fetch-corpus.sh)";
  ScanOptions opt;
  opt.target = *resolve_target("RTX 5090", "");
  opt.inspect.deep = true;
  ScanReport report = scan_paths({wheel.string()}, opt);
  ASSERT_FALSE(report.files.empty());
  const std::vector<std::string> argv = {"smcompat", "scan",     "--deep",      "--json",
                                         "--gpu",    "RTX 5090", wheel.string()};
  ScanRenderOptions render{true, false, argv};

  std::string streamed;
  StringSink sink(streamed);
  JsonTextWriter writer(sink, 2);
  write_scan_json(writer, report, opt, render);
  ASSERT_TRUE(writer.complete());
  const std::string tree = json_text(scan_to_json(report, opt, render));
  ASSERT_EQ(streamed.size(), tree.size());
  ASSERT_TRUE(streamed == tree)
      << "first difference at byte "
      << std::mismatch(streamed.begin(), streamed.end(), tree.begin()).first - streamed.begin();

  // The CLI, with the same argv[0], writes the same document (and a newline) to stdout.
  std::string cmd = "exec -a smcompat " + std::string(SMCOMPAT_CLI) +
                    " scan --deep --json --gpu 'RTX 5090' '" + wheel.string() + "' 2>/dev/null";
  std::string out;
  FILE* p = ::popen(("bash -c \"" + cmd + "\"").c_str(), "r");
  ASSERT_TRUE(p);
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ASSERT_EQ(::pclose(p), 0);
  EXPECT_TRUE(out == tree + "\n") << "CLI output: " << out.size() << " bytes, tree "
                                  << tree.size() + 1;
}

INSTANTIATE_TEST_SUITE_P(Wheels, StreamedScanJson, ::testing::ValuesIn(kWheels),
                         [](const auto& info) {
                           std::string n = std::string(info.param).substr(0, 12);
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace smcompat
