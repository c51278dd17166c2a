// Retargeting, proven with ptxas: every rewritten text is assembled for its target. Fixtures are
// CUDA C++ built with nvcc -ptx at test time (tests/ptx/data/setmaxnreg.cu, cluster.cu).
#include "smcompat/ptx/retarget.hpp"

#include <gtest/gtest.h>

#include "ptx_test_util.hpp"

namespace smcompat::ptx {
namespace {

using testing::ptxas_accepts;

std::string with_target(std::string text, const std::string& target) {
  auto m = parse_module(text);
  if (!m.ok() || m->target_span.end == 0) return text;
  text.replace(m->target_span.begin, m->target_span.end - m->target_span.begin,
               ".target " + target);
  return text;
}

size_t count_kind(const RetargetResult& r, const std::string& kind) {
  size_t n = 0;
  for (const auto& w : r.rewrites) n += w.kind == kind;
  return n;
}

class RetargetTest : public ::testing::Test {
 protected:
  static std::string build(const char* cu, const char* arch) {
    std::string log;
    std::string text = testing::nvcc_ptx(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/ptx/data/" + cu,
                                         arch, std::string(cu) + "." + arch + ".ptx", &log);
    EXPECT_FALSE(text.empty()) << log;
    return text;
  }
};

TEST_F(RetargetTest, SetmaxnregFromSm90aToSm120IsDroppedAndSm120aKeepsIt) {
  SMCOMPAT_REQUIRE_CUDA();
  const std::string src = build("setmaxnreg.cu", "sm_90a");
  ASSERT_FALSE(src.empty());
  std::string log;
  // The ground truth for the premise: as it is, sm_120 rejects it and sm_120a takes it.
  ASSERT_FALSE(ptxas_accepts(with_target(src, "sm_120"), "sm_120", &log));
  EXPECT_NE(log.find("setmaxnreg"), std::string::npos) << log;
  ASSERT_TRUE(ptxas_accepts(with_target(src, "sm_120a"), "sm_120a", &log)) << log;

  auto r = retarget(src, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason);
  EXPECT_EQ(count_kind(*r, "drop-setmaxnreg"), 2u);
  EXPECT_EQ(count_kind(*r, "target"), 1u);
  EXPECT_EQ(count_kind(*r, "version"), 0u);  // nvcc 13 writes .version 9.0 >= 8.7
  EXPECT_EQ(r->rewrites.size(), 3u);
  ASSERT_TRUE(r->intact_alternative);
  EXPECT_EQ(r->intact_alternative->to_string(), "sm_120f");
  EXPECT_EQ(r->text.find("\tsetmaxnreg"), std::string::npos);
  EXPECT_TRUE(ptxas_accepts(r->text, "sm_120", &log)) << log;
  // The alternative named by the tool keeps the code intact and assembles.
  EXPECT_TRUE(ptxas_accepts(with_target(src, "sm_120f"), "sm_120f", &log)) << log;

  // Asked for sm_120a, nothing but .target changes.
  auto ra = retarget(src, *SmTarget::parse("sm_120a"));
  ASSERT_TRUE(ra.ok() && ra->ok);
  EXPECT_EQ(ra->rewrites.size(), 1u);
  EXPECT_EQ(ra->rewrites[0].kind, "target");
  EXPECT_FALSE(ra->intact_alternative);
  EXPECT_NE(ra->text.find("setmaxnreg.inc.sync.aligned.u32 232;"), std::string::npos);
  EXPECT_TRUE(ptxas_accepts(ra->text, "sm_120a", &log)) << log;
}

TEST_F(RetargetTest, ClustersCollapseForSm89AndSm86) {
  SMCOMPAT_REQUIRE_CUDA();
  std::string src = build("cluster.cu", "sm_90");
  ASSERT_FALSE(src.empty());
  // Keep only the kernel that stays within its own block's shared memory.
  auto m = parse_module(src);
  ASSERT_TRUE(m.ok());
  const Function* dsmem = m->find_function("dsmem");
  ASSERT_NE(dsmem, nullptr);
  std::string clustered_only = src;
  clustered_only.erase(dsmem->span.begin, dsmem->span.end - dsmem->span.begin);

  std::string log;
  ASSERT_TRUE(ptxas_accepts(with_target(clustered_only, "sm_120"), "sm_120", &log)) << log;
  for (const char* t : {"sm_89", "sm_86"}) {
    SCOPED_TRACE(t);
    ASSERT_FALSE(ptxas_accepts(with_target(clustered_only, t), t, &log));
    auto r = retarget(clustered_only, *SmTarget::parse(t));
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason);
    // .explicitcluster, .reqnctapercluster, arrive, wait, rank, size, ctaid.x/y/z = 9
    EXPECT_EQ(count_kind(*r, "cluster-collapse"), 9u);
    EXPECT_NE(r->text.find("barrier.sync 0;"), std::string::npos);
    EXPECT_EQ(r->text.find("%cluster_"), std::string::npos);
    EXPECT_TRUE(ptxas_accepts(r->text, t, &log)) << log << "\n" << r->text;
  }
  // sm_120 has clusters: nothing to collapse.
  auto r120 = retarget(clustered_only, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r120.ok() && r120->ok);
  EXPECT_EQ(count_kind(*r120, "cluster-collapse"), 0u);
  EXPECT_TRUE(ptxas_accepts(r120->text, "sm_120", &log)) << log;
}

TEST_F(RetargetTest, FixturesRoundTripThroughThePrinter) {
  SMCOMPAT_REQUIRE_CUDA();
  for (auto [cu, arch] : {std::pair{"setmaxnreg.cu", "sm_90a"}, std::pair{"cluster.cu", "sm_90"}}) {
    std::string src = build(cu, arch);
    auto m = parse_module(src);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    std::string log;
    EXPECT_TRUE(ptxas_accepts(print_module(*m), arch, &log)) << cu << "\n" << log;
  }
}

TEST_F(RetargetTest, EveryPrefixOfTheFixturesParsesOrFailsWithALocation) {
  SMCOMPAT_REQUIRE_CUDA();
  for (auto [cu, arch] : {std::pair{"setmaxnreg.cu", "sm_90a"}, std::pair{"cluster.cu", "sm_90"}}) {
    const std::string src = build(cu, arch);
    size_t ok = 0;
    for (size_t n = 0; n <= src.size(); ++n) {
      const std::string prefix = src.substr(0, n);
      auto m = parse_module(prefix);
      if (!m.ok()) {
        ASSERT_TRUE(m.error().offset) << cu << " prefix " << n;
        ASSERT_LE(*m.error().offset, n);
        continue;
      }
      ++ok;
      auto r = retarget(prefix, *SmTarget::parse("sm_89"));
      ASSERT_TRUE(r.ok());
    }
    EXPECT_GT(ok, 0u) << cu;
  }
}

TEST_F(RetargetTest, DistributedSharedMemoryIsRefusedWithTheReason) {
  SMCOMPAT_REQUIRE_CUDA();
  std::string src = build("cluster.cu", "sm_90");
  ASSERT_FALSE(src.empty());
  auto r = retarget(src, *SmTarget::parse("sm_89"));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->text.empty());
  ASSERT_EQ(r->blockers.size(), 1u);
  EXPECT_EQ(r->blockers[0].kernel, "dsmem");
  EXPECT_EQ(r->blockers[0].feature, "mapa");
  EXPECT_NE(r->blockers[0].reason.find("another block's shared memory"), std::string::npos)
      << r->blockers[0].reason;
  EXPECT_NE(r->blockers[0].strategy.find("global memory"), std::string::npos);
  EXPECT_EQ(
      r->blockers[0].loc.line,
      static_cast<uint32_t>(std::count(src.begin(), src.begin() + src.find("mapa.u64"), '\n') + 1));
}

TEST(Retarget, WgmmaIsRefusedWithStrategy) {
  constexpr std::string_view kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{
	wgmma.fence.sync.aligned;
	ret;
}
)";
  auto r = retarget(kPtx, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  ASSERT_EQ(r->blockers.size(), 1u);
  EXPECT_EQ(r->blockers[0].feature, "wgmma");
  EXPECT_EQ(r->blockers[0].loc.line, 6u);
  EXPECT_NE(r->blockers[0].strategy.find("mma.sync"), std::string::npos);
  EXPECT_FALSE(r->intact_alternative);  // no sm_120 target has wgmma
}

TEST(Retarget, VersionIsRaisedWhereTheTargetNeedsANewerIsa) {
  constexpr std::string_view kPtx = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry k()
{
	ret;
}
)";
  auto r = retarget(kPtx, *SmTarget::parse("sm_120"));
  ASSERT_TRUE(r.ok() && r->ok);
  EXPECT_EQ(count_kind(*r, "version"), 1u);
  EXPECT_NE(r->text.find(".version 8.7"), std::string::npos);
  EXPECT_NE(r->text.find(".target sm_120\n"), std::string::npos);
  if (!testing::cuda_bin("ptxas").empty()) {
    std::string log;
    EXPECT_TRUE(ptxas_accepts(r->text, "sm_120", &log)) << log;
  }
}

TEST(Analysis, SharedMemoryAgainstTheTargetLimits) {
  constexpr std::string_view kPtx = R"(.version 8.7
.target sm_90
.address_size 64
.shared .align 16 .b8 global_tile[8192];
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
.reqntid 256, 1, 1
{
	.reg .b32 %r<3>;
	.shared .align 16 .b8 a_tile[16384];
	.shared .align 8 .v2 .f32 b_tile[1024];
	mov.u32 %r1, global_tile;
	mov.u32 %r2, dyn;
	ret;
}
.visible .entry unrelated()
{
	ret;
}
)";
  auto m = parse_module(kPtx);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  AnalyzeOptions opt;
  opt.dynamic_smem = 131072;  // triton#8182: "Required: 131072, Hardware limit: 101376"
  auto on120 = analyze(*m, *SmTarget::parse("sm_120"), opt);
  ASSERT_EQ(on120.kernels.size(), 2u);
  const KernelReport& k = on120.kernels[0];
  EXPECT_EQ(k.static_smem, 16384u + 8192u + 8192u);
  EXPECT_TRUE(k.dynamic_smem);
  ASSERT_EQ(k.shared.size(), 4u);
  EXPECT_EQ(k.smem_optin_limit.value_or(0), 101376u);
  EXPECT_EQ(k.dynamic_smem_room.value_or(0), 101376u - 32768u);
  EXPECT_EQ(k.outcome, KernelCheck::kExceedsResources);
  EXPECT_EQ(on120.kernels[1].static_smem, 0u);  // names nothing
  auto on90 = analyze(*m, *SmTarget::parse("sm_90"), opt);
  EXPECT_EQ(on90.kernels[0].outcome, KernelCheck::kRuns);  // 227 KiB opt-in
  EXPECT_EQ(on90.kernels[0].smem_optin_limit.value_or(0), 232448u);
}

// A static array sized past 64 bits (2^62 eight-byte elements; 2^62 four-byte ones is exactly
// 2^64) read as "dynamic, 0 bytes" and passed the check: it must exceed the resources.
TEST(Analysis, StaticSharedArrayPast64BitsExceedsResources) {
  for (const char* decl : {".shared .align 8 .b64 s[4611686018427387904];",
                           ".shared .align 4 .b32 s[4611686018427387904];"}) {
    std::string ptx = std::string(".version 8.7\n.target sm_90\n.address_size 64\n") +
                      ".visible .entry k()\n{\n\t" + decl + "\n\tret;\n}\n";
    auto m = parse_module(ptx);
    ASSERT_TRUE(m.ok()) << decl << ": " << m.error().to_string();
    auto r = analyze(*m, *SmTarget::parse("sm_90"), {});
    ASSERT_EQ(r.kernels.size(), 1u);
    const KernelReport& k = r.kernels[0];
    EXPECT_FALSE(k.dynamic_smem) << decl;
    EXPECT_EQ(k.static_smem, UINT64_MAX) << decl;
    EXPECT_EQ(k.outcome, KernelCheck::kExceedsResources) << decl;
  }
  // Dimensions whose product passes 64 bits are refused while parsing, at the dimension.
  auto m = parse_module(
      ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.shared .b32 "
      "s[1073741824][17179869184];\n\tret;\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().what, "line 6, column 29: array size overflows 64 bits");
}

}  // namespace
}  // namespace smcompat::ptx
