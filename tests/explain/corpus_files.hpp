// The explain corpus (tests/explain/corpus, README there): each file's JSON lines.
#pragma once

#include <gtest/gtest.h>

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

/// Every corpus file: the two collected before issue 28, then the mined ones.
inline const std::vector<std::string> kCorpusFiles = {
    "real_errors.jsonl", "fresh_errors.jsonl",           "mined/arch.jsonl",
    "mined/build.jsonl", "mined/container_driver.jsonl", "mined/cudnn_tf_jax.jsonl"};

}  // namespace smcompat::explain::testing
