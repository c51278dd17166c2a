// The probe's devices as plan GPU sets (plan/probe_gpus.hpp), from hand-built probe reports:
// grouping by catalog GPU, memory from the probe, the link from the topology among each group.
#include "smcompat/plan/probe_gpus.hpp"

#include <gtest/gtest.h>

#include <string>

namespace smcompat::plan {
namespace {

// `names` (catalog names) as probed devices, every pair with `nvlink` links and `p2p` access.
ProbeReport report(const std::vector<std::string>& names, int nvlink, bool p2p) {
  ProbeReport r;
  r.status = ProbeStatus::kOk;
  size_t n = names.size();
  r.topology.nvlink_links.assign(n, std::vector<std::optional<int>>(n));
  r.topology.p2p_access.assign(n, std::vector<std::optional<bool>>(n));
  for (size_t i = 0; i < n; ++i) {
    ProbeDevice d;
    d.ordinal = int(i);
    d.name = "NVIDIA " + names[i];
    d.catalog_gpu = names[i];
    d.total_memory = (70ull << 30) + i;  // less than the catalog says, as real GPUs report
    r.devices.push_back(d);
    for (size_t j = 0; j < n; ++j)
      if (i != j) {
        r.topology.nvlink_links[i][j] = nvlink;
        r.topology.p2p_access[i][j] = p2p;
      }
  }
  return r;
}

TEST(GpuSetsFromProbe, GroupsByCatalogGpuWithTheSmallestProbedMemory) {
  auto sets =
      gpu_sets_from_probe(report({"H100 SXM", "B200", "H100 SXM"}, 0, true), Catalog::builtin());
  ASSERT_TRUE(sets) << sets.error().to_string();
  ASSERT_EQ(sets->size(), 2u);
  EXPECT_EQ((*sets)[0].gpu->name, "H100 SXM");
  EXPECT_EQ((*sets)[0].count, 2);
  EXPECT_EQ((*sets)[0].memory_bytes, 70ull << 30);
  EXPECT_EQ((*sets)[0].origin, "probe");
  EXPECT_EQ((*sets)[0].link.kind, LinkKind::kPcieP2p);
  EXPECT_EQ((*sets)[1].gpu->name, "B200");
  EXPECT_EQ((*sets)[1].count, 1);
  EXPECT_EQ((*sets)[1].memory_bytes, (70ull << 30) + 1);
}

TEST(GpuSetsFromProbe, LinkFromTheTopology) {
  const Catalog& c = Catalog::builtin();
  auto nv = gpu_sets_from_probe(report({"H100 SXM", "H100 SXM"}, 18, true), c);
  ASSERT_TRUE(nv);
  EXPECT_EQ(nv->front().link.kind, LinkKind::kNvlink);
  // The figure is the plan module's for an NVLink set of this GPU; the source says what was seen.
  auto named = parse_gpu_sets("2xH100:nvlink", c);
  ASSERT_TRUE(named);
  EXPECT_EQ(nv->front().link.gbs_per_direction, named->front().link.gbs_per_direction);
  EXPECT_EQ(nv->front().link.latency_us, named->front().link.latency_us);
  EXPECT_NE(nv->front().link.source.find("probe: NVLink between all 2 GPUs"), std::string::npos);

  auto host = gpu_sets_from_probe(report({"H100 SXM", "H100 SXM"}, 0, false), c);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->front().link.kind, LinkKind::kPcieHost);
  EXPECT_NE(host->front().link.source.find("no peer-to-peer access (GPU 0 cannot reach GPU 1)"),
            std::string::npos);

  // NVLink seen, but the catalog has no NVLink figure for the GPU: PCIe P2P, said so.
  auto rtx =
      gpu_sets_from_probe(report({"RTX PRO 6000 Blackwell", "RTX PRO 6000 Blackwell"}, 4, true), c);
  ASSERT_TRUE(rtx);
  EXPECT_EQ(rtx->front().link.kind, LinkKind::kPcieP2p);
  EXPECT_NE(rtx->front().link.source.find("no NVLink figure"), std::string::npos);
}

// The PCIe link NVML reports (the generation it can reach, the lanes it has) sets the PCIe figure;
// the slowest GPU of the set sets the pace; GPUs on several NUMA nodes are said to be.
TEST(GpuSetsFromProbe, PcieLinkAndNumaFromTheProbe) {
  const Catalog& c = Catalog::builtin();
  ProbeReport r = report({"RTX PRO 6000 Blackwell", "RTX PRO 6000 Blackwell"}, 0, true);
  for (auto& d : r.devices) {
    d.pcie_gen_current = 1;  // idle: trained down to save power
    d.pcie_gen_max = 5;
    d.pcie_width_current = 16;
    d.pcie_width_max = 16;
  }
  r.devices[1].pcie_width_current = 8;  // a GPU in an x8 slot
  r.devices[0].numa_node = 0;
  r.devices[1].numa_node = 1;
  auto sets = gpu_sets_from_probe(r, c);
  ASSERT_TRUE(sets) << sets.error().to_string();
  const GpuSet& s = sets->front();
  EXPECT_EQ(s.pcie_gen, 5);
  EXPECT_EQ(s.pcie_width, 8);
  EXPECT_DOUBLE_EQ(s.link.gbs_per_direction, 31.5);  // Gen5 x8
  EXPECT_NE(s.link.source.find("PCIe Gen5 x8 (probe: NVML) with peer-to-peer access: 31.5 GB/s"),
            std::string::npos)
      << s.link.source;
  EXPECT_NE(s.link.source.find("NUMA nodes 0, 1"), std::string::npos) << s.link.source;

  // Without P2P the same link carries half (through host memory).
  for (auto& row : r.topology.p2p_access)
    for (auto& v : row) v = v ? std::optional<bool>(false) : v;
  auto host = gpu_sets_from_probe(r, c);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->front().link.kind, LinkKind::kPcieHost);
  EXPECT_DOUBLE_EQ(host->front().link.gbs_per_direction, 15.75);

  // One GPU without a reading: the catalog's x16 figure stays.
  r = report({"RTX PRO 6000 Blackwell", "RTX PRO 6000 Blackwell"}, 0, true);
  r.devices[0].pcie_gen_max = 5;
  r.devices[0].pcie_width_current = 16;
  auto partial = gpu_sets_from_probe(r, c);
  ASSERT_TRUE(partial);
  EXPECT_DOUBLE_EQ(partial->front().link.gbs_per_direction, 63);
  EXPECT_EQ(partial->front().pcie_width, 16);
}

TEST(GpuSetsFromProbe, Errors) {
  const Catalog& c = Catalog::builtin();
  ProbeReport none;
  none.status = ProbeStatus::kNoDevice;
  none.explanation = "no GPU";
  auto e = gpu_sets_from_probe(none, c);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().to_string().find("no GPU"), std::string::npos);

  ProbeReport unknown = report({"H100 SXM"}, 0, true);
  unknown.devices[0].catalog_gpu.reset();
  unknown.devices[0].name = "NVIDIA Mystery";
  e = gpu_sets_from_probe(unknown, c);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().to_string().find("GPU 0 ('NVIDIA Mystery') is not in the catalog"),
            std::string::npos);
}

}  // namespace
}  // namespace smcompat::plan
