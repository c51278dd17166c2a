// The explain corpus (tests/explain/corpus, README there): each file's JSON lines.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace smcompat::explain::testing {

/// The entries of `name` (relative to tests/explain/corpus), one JSON object per line.
inline std::vector<nlohmann::json> read_corpus_file(const std::string& name) {
  std::ifstream in(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/explain/corpus/" + name);
  EXPECT_TRUE(in) << name;
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

/// Every corpus file: the two collected before issue 28, then every mined/*.jsonl (each round of
/// mining adds a file), in name order.
inline const std::vector<std::string> kCorpusFiles = [] {
  std::vector<std::string> mined;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SMCOMPAT_SOURCE_DIR) +
                                                           "/tests/explain/corpus/mined"))
    if (e.path().extension() == ".jsonl") mined.push_back("mined/" + e.path().filename().string());
  std::sort(mined.begin(), mined.end());
  std::vector<std::string> all = {"real_errors.jsonl", "fresh_errors.jsonl"};
  all.insert(all.end(), mined.begin(), mined.end());
  return all;
}();

}  // namespace smcompat::explain::testing
