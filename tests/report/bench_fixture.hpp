// Loading the recorded-run fixtures of the bench printer tests (tests/fixtures/bench/*.json, all
// made up and marked origin "synthetic": no figure in them is a measurement).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace smcompat::testing
