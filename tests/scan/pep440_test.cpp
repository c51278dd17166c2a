// The one PEP 440 comparator (scan/pep440.hpp). The cases the doctor's former dotted-number
// comparator got wrong (issue 27) and the ordering example of PEP 440 itself.
#include "smcompat/scan/pep440.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace smcompat {
namespace {

// Each case is "A < B", "A == B" or "A > B": how compare_versions(A, B) must order the two.
void expect_orders(std::initializer_list<std::string_view> cases) {
  for (std::string_view c : cases) {
    SCOPED_TRACE(std::string(c));
    size_t op = c.find(' '), b = c.rfind(' ');
    ASSERT_NE(op, b) << "a case is \"A OP B\"";
    std::string_view rel = c.substr(op + 1, b - op - 1);
    ASSERT_TRUE(rel == "<" || rel == "==" || rel == ">") << rel;
    int got = compare_versions(std::string(c.substr(0, op)), std::string(c.substr(b + 1)));
    EXPECT_EQ((got > 0) - (got < 0), rel == "<" ? -1 : (rel == ">" ? 1 : 0));
  }
}

TEST(Pep440, WhereTheTwoComparatorsDisagreed) {
  // The doctor's comparator read both as 2.8.0 / 1.0 (0); PEP 440 orders them.
  expect_orders({"2.8.0rc1 < 2.8.0", "1.0.post1 > 1.0", "1.0rc1.dev1 < 1.0rc1", "1.0rc1 < 1.0rc2",
                 "1.0.post1.dev1 < 1.0.post1", "1.0.post1.dev1 > 1.0"});
}

// PEP 440, "Summary of permitted suffixes and relative ordering": each sorts before the next.
TEST(Pep440, ThePepsOwnOrderingExample) {
  const std::vector<std::string> ordered = {
      "1.0.dev456",    "1.0a1",         "1.0a2.dev456", "1.0a12.dev456",
      "1.0a12",        "1.0b1.dev456",  "1.0b2",        "1.0b2.post345.dev456",
      "1.0b2.post345", "1.0rc1.dev456", "1.0rc1",       "1.0",
      "1.0+abc.5",     "1.0+abc.7",     "1.0+5",        "1.0.post456.dev34",
      "1.0.post456",   "1.0.15",        "1.1.dev1"};
  for (size_t i = 0; i < ordered.size(); ++i)
    for (size_t j = 0; j < ordered.size(); ++j) {
      int expected = i < j ? -1 : (i > j ? 1 : 0);
      int got = compare_versions(ordered[i], ordered[j]);
      EXPECT_EQ((got > 0) - (got < 0), expected) << ordered[i] << " vs " << ordered[j];
    }
}

// The releases PyPI's GPU packages really use (moved here from the index tests).
TEST(Pep440, ReleasesOfGpuPackages) {
  expect_orders({"2.9.0 < 2.10.0", "0.0.31.post1 > 0.0.31", "2.9.0rc1 < 2.9.0", "2.9.0a1 < 2.9.0b1",
                 "2.9.0b1 < 2.9.0rc1", "1.0.dev1 < 1.0a1", "2.9 == 2.9.0", "2.9.0+cu128 > 2.9.0",
                 "1!0.1 > 2.0", "0.45.2 < 0.45.10", "12.8.4.1 == 12.8.4.1", "0.3.17.post1 > 0.3.17",
                 "0.3.17.post1 < 0.3.18"});
}

TEST(Pep440, NormalisedSpellings) {
  // "1.0+10 > 1.0+9": numbers as numbers.
  expect_orders({"1.0RC1 == 1.0rc1", "1.0-rc.1 == 1.0rc1", "v2.9 == 2.9.0",
                 "1.0+ubuntu-1 == 1.0+ubuntu.1", "1.0+CU128 == 1.0+cu128", "1.0+10 > 1.0+9"});
  EXPECT_TRUE(same_public_version("2.9.0+cu128", "2.9"));
  EXPECT_FALSE(same_public_version("2.9.0rc1+cu128", "2.9.0"));
  EXPECT_EQ(without_local("2.8.0+cu128"), "2.8.0");
}

}  // namespace
}  // namespace smcompat
