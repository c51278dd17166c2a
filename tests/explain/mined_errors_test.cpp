// The mined corpus (tests/explain/corpus/mined, README "The mined set"): real error texts from
// public threads with the fix each thread found. Its split is by repository, fixed before any
// pattern was written for it; patterns were tuned on the tune part only. The held-out part was
// measured first with the explain of commit 19a51d9 (11 of 100) and with the new engine before
// any tuning on the mined texts (17 of 100); the floors below are the figures after tuning, so a
// regression fails. scripts/explain-score.py prints the same figures from the CLI.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "corpus_files.hpp"
#include "smcompat/explain/explain.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::explain {
namespace {

struct Mined {
  std::string url, project, tool, family, split, expect_fix, text;
};

std::vector<Mined> load_mined() {
  std::vector<Mined> out;
  for (const auto& name : testing::kCorpusFiles) {
    if (!name.starts_with("mined/")) continue;
    for (const auto& j : testing::read_corpus_file(name))
      out.push_back({j.at("url"), j.at("project"), j.at("tool"), j.at("family"), j.at("split"),
                     j.at("expect_fix"), j.at("text")});
  }
  return out;
}

// The README's split key: owner/repo (lower case) for github.com, else the host.
std::string repo_key(const std::string& url) {
  std::string rest = url.substr(url.find("://") + 3);
  std::string host = to_lower(rest.substr(0, rest.find('/')));
  if (host != "github.com") return host;
  std::string path = rest.substr(rest.find('/') + 1);
  return to_lower(path.substr(0, path.find('/', path.find('/') + 1)));
}

// Held out when sha256(key)'s first hex digit is 0-4.
std::string split_of(const std::string& url) {
  std::string key = repo_key(url);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest);
  return (digest[0] >> 4) <= 4 ? "heldout" : "tune";
}

struct Score {
  size_t total = 0, named = 0, other_tool = 0;
};

Score score(const std::vector<Mined>& corpus, const std::string& split) {
  const auto& kb = KnowledgeBase::builtin();
  Score s;
  for (auto& e : corpus) {
    if (e.split != split) continue;
    ++s.total;
    auto ms = kb.match(e.text);
    if (ms.empty()) continue;
    const auto& first = ms.front();
    s.named += to_lower(first.full_fix()).find(to_lower(e.expect_fix)) != std::string::npos;
    // A line nvcc or CMake wrote takes the fix of the project the text names (a llama.cpp
    // build's nvcc refusal gets ggml's CMake flags): that is not another tool's fix.
    const bool build_line = (e.tool == "cuda-toolkit" || e.tool == "cmake") && first.tool == e.tool;
    s.other_tool += first.context && !first.context->tool.empty() &&
                    first.context->tool != e.tool && !build_line;
  }
  return s;
}

TEST(MinedErrors, CorpusIsWellFormedAndSplitByRepository) {
  auto corpus = load_mined();
  ASSERT_GE(corpus.size(), 300u);
  std::set<std::string> urls, repos;
  for (auto* name : {"real_errors.jsonl", "fresh_errors.jsonl"})
    for (const auto& j : testing::read_corpus_file(name))
      urls.insert(j.at("url").get<std::string>());
  for (auto& e : corpus) {
    SCOPED_TRACE(e.url);
    EXPECT_TRUE(urls.insert(e.url).second) << "a thread already in the corpus";
    EXPECT_EQ(e.split, split_of(e.url));
    EXPECT_FALSE(e.text.empty());
    EXPECT_FALSE(e.expect_fix.empty());
    EXPECT_FALSE(e.tool.empty());
    repos.insert(repo_key(e.url));
  }
  EXPECT_GE(repos.size(), 200u);  // not a few threads copied many times
}

// Measured once on the held-out part before tuning (17 of 100 with the new engine; 11 with the
// explain of 19a51d9), then after tuning on the tune part: these are the figures after (31 and 135
// at the end of the first round, 38 and 174 after the second; round 3 added 94 texts, measured
// before tuning on them at 7/27 held out and 10/67 tune: 47/127 and 214/306 after; round 4 added
// 79 (40 + 39), measured before tuning at 3/16 + 2/9 held out and 5/24 + 8/30 tune: 55/152 and
// 248/360 after, docs/explain.md; then the facts round on the tune part — cuDNN/library versions
// as each framework states them, sonames to CUDA releases, JAX's library checks, torch releases
// older than the index — and one more tune text: 57/152 and 258/361; rounds 6-8 added 65, 58 and
// 50 texts, each round's held-out part measured before tuning on it (4/20, 3/10, 5/16), then
// tuning on their tune parts: 74/198 and 339/488; rounds 9-12 added 62, 59, 56 and 29 texts,
// first measured at 8/12, 7/18, 1/15 and 3/8 held out, then tuned on: 95/251 and 440/641;
// rounds 13-17 added 75, 63, 69, 61 and 64 texts, first measured at 5/20, 6/18, 0/15, 3/20 and
// 4/22 held out, then tuned on: 122/346 and 575/878).
constexpr size_t kMinedHeldoutNamedAtLeast = 122;
constexpr size_t kTuneNamedAtLeast = 575;
constexpr size_t kOtherToolAtMost = 2;

TEST(MinedErrors, NamedFixesAndOtherToolsFixes) {
  auto corpus = load_mined();
  Score tune = score(corpus, "tune"), held = score(corpus, "heldout");
  std::cout << "mined tune: " << tune.named << "/" << tune.total << " name the thread's fix, "
            << tune.other_tool << " another tool's; held-out: " << held.named << "/" << held.total
            << ", " << held.other_tool << " another tool's\n";
  EXPECT_GE(tune.named, kTuneNamedAtLeast);
  EXPECT_GE(held.named, kMinedHeldoutNamedAtLeast);
  EXPECT_LE(tune.other_tool + held.other_tool, kOtherToolAtMost);
}

}  // namespace
}  // namespace smcompat::explain
