// explain's bounded reading (explain/input.hpp): long lines are read whole in overlapping pieces
// (an error after byte 4,096 of a line is found), the size limit is an error with the offset,
// and standard input is read the same way.
#include "smcompat/explain/input.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "probe/run_child.hpp"
#include "smcompat/explain/explain.hpp"

namespace smcompat::explain {
namespace {

std::string write_log(const smcompat::test::TempDir& dir, const std::string& text) {
  std::string path = dir.path() + "/log.txt";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(ExplainInput, AnErrorDeepInALongLineIsFound) {
  smcompat::test::TempDir dir;
  // A minified JSON line: the error sits after 5,000 bytes, beyond the old 4,096-byte cut.
  std::string line = "{\"log\": \"" + std::string(5000, 'x') +
                     " CUDA error: no kernel image is available for execution on the device\"}";
  TextScan scan(KnowledgeBase::builtin());
  ASSERT_TRUE(scan_input(write_log(dir, line + "\n"), scan).ok());
  auto e = scan.finish(nullptr);
  ASSERT_FALSE(e.matches.empty());
  EXPECT_EQ(e.matches.front().mode->id, "no-kernel-image");
}

TEST(ExplainInput, APhraseAcrossAPieceBoundaryIsFound) {
  smcompat::test::TempDir dir;
  // The phrase straddles the first 1 MiB piece: the next piece overlaps it by 4 KiB.
  std::string phrase = "no kernel image is available for execution on the device";
  std::string line =
      std::string(kMaxLineBytes - 20, 'y') + " " + phrase + " " + std::string(100, 'z');
  TextScan scan(KnowledgeBase::builtin());
  ASSERT_TRUE(scan_input(write_log(dir, line), scan).ok());  // no final newline either
  auto e = scan.finish(nullptr);
  ASSERT_FALSE(e.matches.empty());
  EXPECT_EQ(e.matches.front().mode->id, "no-kernel-image");
}

TEST(ExplainInput, MoreThanTheLimitIsAnErrorWithTheOffset) {
  smcompat::test::TempDir dir;
  std::string path = write_log(dir, std::string(3000, 'a') + "\n");
  TextScan scan(KnowledgeBase::builtin());
  auto r = scan_input(path, scan, /*max_bytes=*/1024);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, path);
  EXPECT_EQ(r.error().offset, 1024u);
  EXPECT_NE(r.error().what.find("tail -c"), std::string::npos) << r.error().what;
}

TEST(ExplainInput, TextInMemoryIsSplitTheSameWay) {
  TextScan scan(KnowledgeBase::builtin());
  scan_text("line one\r\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
            scan);
  auto e = scan.finish(nullptr);
  ASSERT_EQ(e.matches.size(), 1u);
  EXPECT_EQ(e.matches.front().line, 2u);
}

}  // namespace
}  // namespace smcompat::explain
