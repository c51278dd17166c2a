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

// Kernel-less images against the listing's count per file (`kernelless_images`: cubins without a
// kernel and PTX without an .entry, counted by hand). The header-level count never calls an image
// with kernels kernel-less and finds every raw one (cuda-cccl's reach 9.6 KB); the deep decode
// finds them all.
TEST(HeldOut, KernellessImagesEqualTheListings) {
  size_t hand_total = 0, header_total = 0;
  for (const auto& w : expected()["wheels"]) {
    REQUIRE_WHEEL(path, w);
    SCOPED_TRACE(w["pin"].get<std::string>());
    std::map<std::string, size_t> header, deep;
    std::map<std::string, size_t> raw_kernelless_unknown;
    for (const auto& inv : inspect_file(path.string(), {}))
      for (const auto& img : inv.images) {
        if (img.kernelless()) ++header[inv.member];
        if (!img.kernels && img.compression == Compression::kNone &&
            img.target.kind != ImageKind::kLto)
          ++raw_kernelless_unknown[inv.member];
      }
    InspectOptions deep_opt;
    deep_opt.deep = true;
    for (const auto& inv : inspect_file(path.string(), deep_opt))
      for (const auto& img : inv.images)
        if (img.kernelless()) ++deep[inv.member];
    for (const auto& f : w["files"]) {
      if (!f.contains("kernelless_images")) continue;
      std::string member = f["path"];
      size_t hand = f["kernelless_images"];
      EXPECT_EQ(deep[member], hand) << member << " (deep decode)";
      EXPECT_LE(header[member], hand) << member << " (header level)";
      EXPECT_EQ(raw_kernelless_unknown[member], 0u) << member << ": raw images left uncounted";
      hand_total += hand;
      header_total += header[member];
    }
  }
  std::cout << "kernel-less images: " << header_total << " of " << hand_total
            << " found at header level, all by the deep decode\n";
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
      bool reviewed = w.contains("reviewed") && w["reviewed"].contains(name);
      if (observed == hand) {
        // A review of a disagreement that is gone would keep a wrong figure in docs/testing.md.
        EXPECT_FALSE(reviewed) << name << ": agrees now; the review in expected.json is stale";
        ++agree;
        continue;
      }
      // A disagreement must be reviewed: the tool's answer pinned, with the reason.
      ASSERT_TRUE(reviewed) << name << ": hand " << hand << ", observed " << observed
                            << " (not reviewed)";
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
