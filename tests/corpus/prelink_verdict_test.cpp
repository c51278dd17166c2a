// Verdicts on real libraries with relocatable (-rdc) pre-link code in `__nv_relfatbin` (installed
// in the corpus venv by pip from the pinned wheels): those containers are listed with
// loadable=false and never counted; only the device-linked `.nv_fatbin` units are. cuobjdump
// agrees on which fatbin is the executable one (cuobjdump_oracle_test.cpp, default listing).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

fs::path site_packages() {
  const char* e = std::getenv("SMCOMPAT_CORPUS");
  const char* home = std::getenv("HOME");
  fs::path dir = e && *e ? fs::path(e) : fs::path(home ? home : "/root") / ".cache/smcompat-corpus";
  return dir / "venvs/torch/lib/python3.11/site-packages";
}

std::string run_cli(const std::string& args) {
  std::string cmd = "NO_COLOR=1 " + std::string(SMCOMPAT_CLI) + " " + args;
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[65536];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (p) ::pclose(p);
  return out;
}

nlohmann::json scan(const fs::path& file, const std::string& target) {
  auto j = nlohmann::json::parse(
      run_cli("scan --json --target " + target + " '" + file.string() + "' 2>/dev/null"), nullptr,
      false);
  if (j.is_discarded() || j["files"].size() != 1) return nlohmann::json();
  return j["files"][0];
}

std::string scan_text(const fs::path& file, const std::string& args) {
  return run_cli("scan " + args + " '" + file.string() + "' 2>&1");
}

size_t count(const std::string& text, const std::string& what) {
  size_t c = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++c;
  return c;
}

// One library's scan for one GPU: its verdict, its loadable units by fit (and no others), and
// `prelink` pre-link units marked as such.
void expect_scan(const nlohmann::json& f, const char* verdict,
                 const std::map<std::string, size_t>& units, size_t prelink) {
  ASSERT_FALSE(f.is_null());
  EXPECT_EQ(f["verdict"], verdict);
  size_t loadable = 0, total = 0;
  for (const auto& [fit, n] : units) {
    EXPECT_EQ(f.at("unit_counts").at(fit), n) << fit;
    loadable += n;
  }
  for (const auto& [k, v] : f["unit_counts"].items()) total += v.get<size_t>();
  EXPECT_EQ(total, loadable);
  // The pre-link units are exactly the __nv_relfatbin containers holding entries.
  std::set<uint64_t> containers;
  for (const auto& e : f["entries"])
    if (e["section"] == "__nv_relfatbin") containers.insert(e["container_offset"].get<uint64_t>());
  EXPECT_EQ(containers.size(), prelink);
  EXPECT_EQ(f["prelink_units"], prelink);
  size_t marked = 0;
  for (const auto& u : f["units"]) {
    EXPECT_EQ(u["loadable"].get<bool>(), u["section"] != "__nv_relfatbin") << u.dump();
    if (!u["loadable"].get<bool>()) {
      ++marked;
      EXPECT_TRUE(u["chosen"].is_null());
      EXPECT_NE(u["reason"].get<std::string>().find("never loaded as a module"), std::string::npos);
    }
  }
  EXPECT_EQ(marked, prelink);
}

#define REQUIRE(path)    \
  if (!fs::exists(path)) \
  GTEST_SKIP() << "corpus cache missing: " << path << " (run scripts/fetch-corpus.sh)"

TEST(CorpusPrelink, TorchNvshmemCountsOnlyTheDeviceLinkedImage) {
  fs::path lib = site_packages() / "torch/lib/libtorch_nvshmem.so";
  REQUIRE(lib);
  nlohmann::json h100 = scan(lib, "9.0");
  // 6 units before: the 5 pre-link containers counted as units.
  expect_scan(h100, "native", {{"native", 1}}, 5);
  // Each pre-link container has sm_90 SASS: a JIT link would be possible, but the linked image
  // fits.
  EXPECT_EQ(h100["jit_link"]["verdict"], "ptx-jit");
  EXPECT_EQ(h100["jit_link"]["used"], false);

  // The summary says what is not counted; -v lists each pre-link container and why.
  EXPECT_EQ(h100["summary"],
            "1 of 1 units run (1 native); 5 relocatable (-rdc) pre-link containers not counted");
  std::string verbose = scan_text(lib, "--target 9.0 -v");
  EXPECT_EQ(count(verbose, "5 relocatable (-rdc) pre-link containers not counted"), 1u) << verbose;
  EXPECT_EQ(count(verbose, "pre-link container __nv_relfatbin at 0x"), 5u) << verbose;
  EXPECT_EQ(count(scan_text(lib, "--target 9.0"), "pre-link container"), 0u);

  nlohmann::json v100 = scan(lib, "7.0");
  ASSERT_FALSE(v100.is_null());
  EXPECT_EQ(v100["verdict"], "no-image");
  EXPECT_TRUE(v100["jit_link"]["verdict"].is_null());
}

TEST(CorpusPrelink, NcclPrelinkPtxIsNotAUnit) {
  fs::path lib = site_packages() / "nvidia/nccl/lib/libnccl.so.2";
  REQUIRE(lib);
  nlohmann::json gb10 = scan(lib, "12.1");
  // The 128 compute_120 pre-link PTX are not units (no ptx-jit).
  expect_scan(gb10, "compatible-sass", {{"compatible-sass", 28}, {"ptx-jit", 0}, {"no-image", 10}},
              128);
  EXPECT_EQ(gb10["specialized_elsewhere"], 10);  // sm_100f-only containers
  EXPECT_EQ(gb10["jit_link"]["verdict"], "ptx-jit");
  EXPECT_EQ(gb10["jit_link"]["used"], false);
}

}  // namespace
