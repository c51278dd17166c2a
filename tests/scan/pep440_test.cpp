// The one PEP 440 comparator (scan/pep440.hpp). The cases the doctor's former dotted-number
// comparator got wrong (issue 27) and the ordering example of PEP 440 itself.
#include "smcompat/scan/pep440.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace smcompat {
namespace {

TEST(Pep440, WhereTheTwoComparatorsDisagreed) {
  // The doctor's comparator read both as 2.8.0 / 1.0 (0); PEP 440 orders them.
  EXPECT_LT(compare_versions("2.8.0rc1", "2.8.0"), 0);
  EXPECT_GT(compare_versions("1.0.post1", "1.0"), 0);
  EXPECT_LT(compare_versions("1.0rc1.dev1", "1.0rc1"), 0);
  EXPECT_LT(compare_versions("1.0rc1", "1.0rc2"), 0);
  EXPECT_LT(compare_versions("1.0.post1.dev1", "1.0.post1"), 0);
  EXPECT_GT(compare_versions("1.0.post1.dev1", "1.0"), 0);
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
  EXPECT_LT(compare_versions("2.9.0", "2.10.0"), 0);
  EXPECT_GT(compare_versions("0.0.31.post1", "0.0.31"), 0);
  EXPECT_LT(compare_versions("2.9.0rc1", "2.9.0"), 0);
  EXPECT_LT(compare_versions("2.9.0a1", "2.9.0b1"), 0);
  EXPECT_LT(compare_versions("2.9.0b1", "2.9.0rc1"), 0);
  EXPECT_LT(compare_versions("1.0.dev1", "1.0a1"), 0);
  EXPECT_EQ(compare_versions("2.9", "2.9.0"), 0);
  EXPECT_GT(compare_versions("2.9.0+cu128", "2.9.0"), 0);
  EXPECT_GT(compare_versions("1!0.1", "2.0"), 0);
  EXPECT_LT(compare_versions("0.45.2", "0.45.10"), 0);
  EXPECT_EQ(compare_versions("12.8.4.1", "12.8.4.1"), 0);
  EXPECT_GT(compare_versions("0.3.17.post1", "0.3.17"), 0);
  EXPECT_LT(compare_versions("0.3.17.post1", "0.3.18"), 0);
}

TEST(Pep440, NormalisedSpellings) {
  EXPECT_EQ(compare_versions("1.0RC1", "1.0rc1"), 0);
  EXPECT_EQ(compare_versions("1.0-rc.1", "1.0rc1"), 0);
  EXPECT_EQ(compare_versions("v2.9", "2.9.0"), 0);
  EXPECT_EQ(compare_versions("1.0+ubuntu-1", "1.0+ubuntu.1"), 0);
  EXPECT_EQ(compare_versions("1.0+CU128", "1.0+cu128"), 0);
  EXPECT_GT(compare_versions("1.0+10", "1.0+9"), 0);  // numbers as numbers
  EXPECT_TRUE(same_public_version("2.9.0+cu128", "2.9"));
  EXPECT_FALSE(same_public_version("2.9.0rc1+cu128", "2.9.0"));
  EXPECT_EQ(without_local("2.8.0+cu128"), "2.8.0");
}

}  // namespace
}  // namespace smcompat
