// Catalog data: parsing, lookups and resources.
#include "smcompat/catalog/catalog.hpp"

#include <gtest/gtest.h>

namespace smcompat {
namespace {

TEST(SmTarget, ParseAndPrint) {
  for (const char* s : {"sm_120", "sm_120a", "sm_120f", "compute_90", "compute_90a", "lto_75",
                        "sm_75", "compute_103f"}) {
    auto t = SmTarget::parse(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(t->to_string(), s);
  }
  EXPECT_EQ(SmTarget::parse("sm120a")->to_string(), "sm_120a");
  EXPECT_EQ(SmTarget::parse("SM_90")->to_string(), "sm_90");
  EXPECT_EQ(SmTarget::parse("sm_120a")->variant, ArchVariant::kArchSpecific);
  EXPECT_EQ(SmTarget::parse("compute_120")->kind, ImageKind::kPtx);
  for (const char* bad : {"", "sm_", "sm_1", "sm_12345", "gfx90a", "sm_90x", "compute_"})
    EXPECT_FALSE(SmTarget::parse(bad)) << bad;
}

TEST(ComputeCapability, ForgivingParse) {
  EXPECT_EQ(ComputeCapability::parse("12.0"), (ComputeCapability{12, 0}));
  EXPECT_EQ(ComputeCapability::parse("12"), (ComputeCapability{12, 0}));
  EXPECT_EQ(ComputeCapability::parse("9"), (ComputeCapability{9, 0}));
  EXPECT_EQ(ComputeCapability::parse("120"), (ComputeCapability{12, 0}));
  EXPECT_EQ(ComputeCapability::parse("75"), (ComputeCapability{7, 5}));
  EXPECT_EQ(ComputeCapability::parse("sm_121"), (ComputeCapability{12, 1}));
  EXPECT_EQ(ComputeCapability::parse("sm_120a"), (ComputeCapability{12, 0}));
  EXPECT_EQ(ComputeCapability::parse("compute_90"), (ComputeCapability{9, 0}));
  EXPECT_EQ(ComputeCapability::parse("10.3"), (ComputeCapability{10, 3}));
  EXPECT_FALSE(ComputeCapability::parse("rtx 5090"));
  EXPECT_FALSE(ComputeCapability::parse("12.x"));
  EXPECT_LT((ComputeCapability{10, 3}), (ComputeCapability{12, 0}));
}

TEST(Version, Parse) {
  EXPECT_EQ(Version::parse("13.0"), (Version{13, 0}));
  EXPECT_EQ(Version::parse("13000"), (Version{13, 0}));
  EXPECT_EQ(Version::parse("12080"), (Version{12, 8}));
  EXPECT_EQ(Version::parse("12.8.1"), (Version{12, 8}));
  EXPECT_EQ(Version::from_cuda_int(12090), (Version{12, 9}));
  EXPECT_EQ(DriverVersion::parse("580.65.06")->to_string(), "580.65.06");
  EXPECT_LT(*DriverVersion::parse("570.26"), *DriverVersion::parse("570.124.06"));
  EXPECT_FALSE(DriverVersion::parse("abc"));
}

TEST(Catalog, BuiltinParsesWithEveryArchAndGpu) {
  const Catalog& c = Catalog::builtin();
  ASSERT_EQ(c.archs().size(), 22u);
  EXPECT_EQ(c.gpus().size(), 22u);
  for (int sm : {50, 52, 53, 60, 61,  62,  70,  72,  75,  80,  86,
                 87, 88, 89, 90, 100, 101, 103, 107, 110, 120, 121}) {
    const ArchInfo* a = c.arch(sm);
    ASSERT_NE(a, nullptr) << sm;
    EXPECT_FALSE(a->source.empty()) << sm;
  }
  for (const auto& g : c.gpus()) EXPECT_FALSE(g.source.empty()) << g.name;
}

TEST(Catalog, Resources) {
  const Catalog& c = Catalog::builtin();
  EXPECT_EQ(*c.arch(120)->smem_per_block_optin, 101376u);  // 99 KiB, field-reports.md
  EXPECT_EQ(*c.arch(90)->smem_per_block_optin, 232448u);   // 227 KiB
  EXPECT_EQ(*c.arch(80)->smem_per_block_optin, 166912u);   // 163 KiB
  EXPECT_EQ(*c.arch(75)->threads_per_sm, 1024u);
  EXPECT_EQ(*c.arch(121)->blocks_per_sm, 24u);
  EXPECT_TRUE(c.arch(120)->has_a && c.arch(120)->has_f);
  EXPECT_TRUE(c.arch(90)->has_a && !c.arch(90)->has_f);
}

TEST(Catalog, Features) {
  const Catalog& c = Catalog::builtin();
  EXPECT_TRUE(c.arch(90)->has_feature("wgmma", ArchVariant::kArchSpecific));
  EXPECT_FALSE(c.arch(90)->has_feature("wgmma", ArchVariant::kBase));
  EXPECT_TRUE(c.arch(100)->has_feature("tcgen05", ArchVariant::kFamily));
  EXPECT_TRUE(c.arch(100)->has_feature("tcgen05", ArchVariant::kArchSpecific));
  EXPECT_FALSE(c.arch(100)->has_feature("tcgen05", ArchVariant::kBase));
  for (auto v : {ArchVariant::kBase, ArchVariant::kArchSpecific, ArchVariant::kFamily}) {
    EXPECT_FALSE(c.arch(120)->has_feature("tcgen05", v));
    EXPECT_FALSE(c.arch(121)->has_feature("wgmma", v));
  }
  EXPECT_TRUE(c.arch(120)->has_feature("clusters"));
  EXPECT_TRUE(c.arch(89)->has_feature("fp8"));
  EXPECT_FALSE(c.arch(86)->has_feature("fp8"));
}

TEST(Catalog, ForgivingGpuLookup) {
  const Catalog& c = Catalog::builtin();
  auto name = [&](const char* q) {
    const GpuSpec* g = c.find_gpu(q);
    return g ? g->name : std::string("<none>");
  };
  EXPECT_EQ(name("RTX 5090"), "GeForce RTX 5090");
  EXPECT_EQ(name("5090"), "GeForce RTX 5090");
  EXPECT_EQ(name("rtx-5090"), "GeForce RTX 5090");
  EXPECT_EQ(name("NVIDIA GeForce RTX 5090"), "GeForce RTX 5090");
  EXPECT_EQ(name("rtx5090"), "GeForce RTX 5090");
  EXPECT_EQ(name("B200"), "B200");
  EXPECT_EQ(name("GB10"), "DGX Spark GB10");
  EXPECT_EQ(name("dgx spark"), "DGX Spark GB10");
  EXPECT_EQ(name("H100 SXM"), "H100 SXM");
  EXPECT_EQ(name("H100"), "H100 SXM");
  EXPECT_EQ(name("h100 pcie"), "H100 PCIe");
  EXPECT_EQ(name("RTX PRO 6000"), "RTX PRO 6000 Blackwell");
  EXPECT_EQ(name("4090"), "GeForce RTX 4090");
  EXPECT_EQ(name("NVIDIA H100 80GB HBM3"), "H100 SXM");  // nvidia-smi's name
  EXPECT_EQ(name("RTX 9999"), "<none>");
  EXPECT_EQ(name(""), "<none>");
  EXPECT_EQ(c.find_gpu("5090")->cc, (ComputeCapability{12, 0}));
  EXPECT_EQ(c.find_gpu("GB10")->cc, (ComputeCapability{12, 1}));
}

}  // namespace
}  // namespace smcompat
