// The GB10 answers of the shipped wheel index against the real aarch64 wheels of the corpus
// (label corpus: its own binary, index_corpus_tests, by the *_corpus_test.cpp rule of
// tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "smcompat/index/advise.hpp"
#include "support/corpus.hpp"

namespace smcompat {
namespace {

Target gpu(const char* name) {
  auto t = resolve_target(name, "");
  EXPECT_TRUE(t.ok()) << name;
  return t.ok() ? *t : Target{};
}

// The GB10 answers from the shipped index against a fresh scan of the same wheels
// (scripts/corpus/foreign.txt: aarch64 wheels fetched, never installed, by fetch-corpus.sh).
// Skipped without the corpus cache ($SMCOMPAT_CORPUS or ~/.cache/smcompat-corpus).
TEST(AdviseCorpus, Gb10AnswersMatchAFreshScan) {
  namespace fs = std::filesystem;
  const fs::path dir = testcorpus::corpus_dir() / "wheels-foreign";
  std::vector<fs::path> wheels;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".whl") wheels.push_back(entry.path());
  if (wheels.empty())
    GTEST_SKIP() << "no foreign wheels in " << dir << " (scripts/fetch-corpus.sh)";
  const Target gb10 = gpu("GB10");
  for (const auto& path : wheels) {
    SCOPED_TRACE(path.filename().string());
    auto fresh = index_wheel(path.string());
    ASSERT_TRUE(fresh) << fresh.error().to_string();
    ASSERT_TRUE(fresh->errors.empty());
    EXPECT_EQ(fresh->machine, "aarch64");
    auto a = advise(builtin_wheel_index(), {fresh->package}, gb10, {}).at(0);
    ASSERT_TRUE(a.indexed) << "the shipped index lacks " << fresh->package;
    const ReleaseFit* release = nullptr;
    for (const auto& r : a.releases)
      if (r.version == fresh->version) release = &r;
    ASSERT_NE(release, nullptr) << "the shipped index lacks " << fresh->version;
    EXPECT_EQ(release->filename, fresh->filename);
    EXPECT_EQ(release->cuda, fresh->cuda);
    WheelVerdict verdict = judge_wheel(*fresh, gb10);
    EXPECT_EQ(release->verdict.fit, verdict.fit);
    EXPECT_EQ(release->verdict.variant, verdict.variant);
    const auto& shipped = builtin_wheel_index().wheels;
    auto record = std::find_if(shipped.begin(), shipped.end(),
                               [&](const WheelRecord& w) { return w.filename == fresh->filename; });
    ASSERT_NE(record, shipped.end());
    auto diff = diff_records({*fresh}, {*record});
    ASSERT_EQ(diff.size(), 1u);
    EXPECT_TRUE(diff[0].added_sass.empty() && diff[0].dropped_sass.empty());
    EXPECT_TRUE(diff[0].added_ptx.empty() && diff[0].dropped_ptx.empty());
    EXPECT_TRUE(diff[0].added_files.empty() && diff[0].dropped_files.empty());
  }
}

}  // namespace
}  // namespace smcompat
