// Loading the recorded-run fixtures of the bench printer tests (tests/fixtures/bench/*.json, all
// made up and marked origin "synthetic": no figure in them is a measurement).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/bench/results.hpp"

namespace smcompat::testing {

inline std::string bench_fixture_text(const std::string& name) {
  std::ifstream in(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/fixtures/bench/" + name,
                   std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bench::BenchRun bench_fixture(const std::string& name) {
  auto run = bench::read_bench_run(bench_fixture_text(name));
  if (!run) ADD_FAILURE() << name << ": " << run.error().to_string();
  return run ? *run : bench::BenchRun{};
}

// EXPECT_THAT(text, HasSubstr(part)) for each part, in order.
inline void expect_substrings(const std::string& text,
                              std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts) EXPECT_THAT(text, ::testing::HasSubstr(std::string(part)));
}

// EXPECT_THAT(lines, Contains(line)) for each line wanted, in order.
inline void expect_lines(const std::vector<std::string>& lines,
                         std::initializer_list<std::string_view> wanted) {
  for (std::string_view line : wanted) EXPECT_THAT(lines, ::testing::Contains(std::string(line)));
}

}  // namespace smcompat::testing
