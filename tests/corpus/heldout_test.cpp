// The held-out wheels of issue 26 (scripts/corpus/heldout.txt, fetched by scripts/fetch-corpus.sh
// into $SMCOMPAT_CORPUS/heldout): 14 real PyPI wheels nobody here tuned on, with every package
// verdict for eight GPUs written down by hand from cuobjdump listings before smcompat judged them
// (tests/heldout/expected.json, `expected`). Checked here:
//  1. the inventory: each member's SASS and PTX targets equal the listing's (cuobjdump, or the
//     fatbin headers where cuobjdump fails: auto-gptq);
//  2. the package verdicts: `smcompat scan` of each wheel for each GPU equals the hand-written
//     verdict, or the disagreement is recorded with its reason in `reviewed` (where the hand rule
//     and the tool's rule differ, or the hand reading was wrong); `observed` pins the tool's
//     answers so that a change shows up. docs/testing.md has the table and the figure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fixtures/support.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/scan/scan.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

fs::path heldout_dir() { return testing::corpus_dir() / "heldout"; }

const nlohmann::json& expected() {
  static const nlohmann::json j = [] {
    std::ifstream in(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/heldout/expected.json");
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::string fit_word(const nlohmann::json& v) {
  return v.is_null() ? "no device code" : v.get<std::string>();
}

#define REQUIRE_WHEEL(path, w)                                        \
  fs::path path = heldout_dir() / (w)["filename"].get<std::string>(); \
  if (!fs::exists(path))                                              \
  GTEST_SKIP() << "held-out wheel " << path                           \
               << " missing (run scripts/fetch-corpus.sh or set "     \
                  "SMCOMPAT_CORPUS)"

TEST(HeldOut, InventoryEqualsTheListings) {
  size_t members = 0;
  for (const auto& w : expected()["wheels"]) {
    REQUIRE_WHEEL(path, w);
    SCOPED_TRACE(w["pin"].get<std::string>());
    std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> found;
    for (const auto& inv : inspect_file(path.string(), {})) {
      if (inv.member.empty()) continue;
      for (const auto& img : inv.images)
        (img.target.kind == ImageKind::kPtx ? found[inv.member].second : found[inv.member].first)
            .insert(img.target.to_string());
    }
    for (const auto& f : w["files"]) {
      std::string member = f["path"];
      auto sass = f["sass"].get<std::set<std::string>>();
      auto ptx = f["ptx"].get<std::set<std::string>>();
      EXPECT_EQ(found[member].first, sass) << member;
      EXPECT_EQ(found[member].second, ptx) << member;
      found.erase(member);
      ++members;
    }
    for (const auto& [member, targets] : found)
      if (!targets.first.empty() || !targets.second.empty())
        ADD_FAILURE() << member << " has device code the listing does not name";
  }
  EXPECT_GE(members, 12u);
}

TEST(HeldOut, PackageVerdictsAgreeOrAreReviewed) {
  size_t agree = 0, total = 0;
  for (const auto& w : expected()["wheels"]) {
    REQUIRE_WHEEL(path, w);
    SCOPED_TRACE(w["pin"].get<std::string>());
    for (const auto& gpu : expected()["gpus"]) {
      std::string name = gpu["name"];
      ScanOptions o;
      o.target = *resolve_target(name);
      auto report = scan_paths({path.string()}, o);
      std::string observed = "no device code";
      for (const auto& p : report.packages)
        if (p.verdict) observed = to_string(*p.verdict);
      std::string hand = fit_word(w["expected"][name]["fit"]);
      ++total;
      if (observed == hand) {
        ++agree;
        continue;
      }
      // A disagreement must be reviewed: the tool's answer pinned, with the reason.
      ASSERT_TRUE(w.contains("reviewed") && w["reviewed"].contains(name))
          << name << ": hand " << hand << ", observed " << observed << " (not reviewed)";
      const auto& r = w["reviewed"][name];
      EXPECT_EQ(observed, fit_word(r["observed"])) << name;
      EXPECT_FALSE(r["reason"].get<std::string>().empty()) << name;
    }
  }
  std::cout << "held-out package verdicts: " << agree << " of " << total
            << " equal to the hand-written ones\n";
  EXPECT_EQ(total, 14u * 8);
}

}  // namespace
}  // namespace smcompat
