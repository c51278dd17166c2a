// The probe's GPUs as plan GPU sets (include/smcompat/plan/probe_gpus.hpp).
#include "smcompat/plan/probe_gpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace smcompat::plan {
namespace {

struct Group {
  const GpuSpec* gpu = nullptr;
  std::vector<size_t> devices;  // indices into ProbeReport::devices
};

// "nvlink", "p2p" or "nop2p" for the devices of one group, and what the probe saw.
std::pair<std::string, std::string> link_kind(const ProbeReport& probe, const Group& g) {
  const auto& topo = probe.topology;
  bool all_nvlink = true, all_p2p = true;
  std::string missing_p2p;
  for (size_t a : g.devices)
    for (size_t b : g.devices) {
      if (a == b) continue;
      int i = probe.devices[a].ordinal, j = probe.devices[b].ordinal;
      auto at = [&](const auto& m) -> decltype(&m[0][0]) {
        if (i < 0 || j < 0 || size_t(i) >= m.size() || size_t(j) >= m[size_t(i)].size())
          return nullptr;
        return &m[size_t(i)][size_t(j)];
      };
      auto nv = at(topo.nvlink_links);
      if (!nv || !*nv || **nv <= 0) all_nvlink = false;
      auto p2p = at(topo.p2p_access);
      if (!p2p || !*p2p || !**p2p) {
        all_p2p = false;
        if (missing_p2p.empty()) missing_p2p = fmt::format("GPU {} cannot reach GPU {}", i, j);
      }
    }
  size_t n = g.devices.size();
  if (all_nvlink) return {"nvlink", fmt::format("probe: NVLink between all {} GPUs", n)};
  if (all_p2p)
    return {
        "p2p",
        fmt::format("probe: peer-to-peer access between all {} GPUs, NVLink not between every pair",
                    n)};
  return {"nop2p", fmt::format("probe: no peer-to-peer access ({})", missing_p2p)};
}

}  // namespace

Result<std::vector<GpuSet>> gpu_sets_from_probe(const ProbeReport& probe, const Catalog& catalog) {
  if (probe.devices.empty())
    return make_error(fmt::format("the probe found no GPU on this machine ({}: {})",
                                  to_string(probe.status), probe.explanation));
  std::vector<Group> groups;
  for (size_t i = 0; i < probe.devices.size(); ++i) {
    const ProbeDevice& d = probe.devices[i];
    const GpuSpec* spec = d.catalog_gpu ? catalog.find_gpu(*d.catalog_gpu) : nullptr;
    if (!spec)
      return make_error(fmt::format("GPU {} ('{}') is not in the catalog", d.ordinal, d.name));
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.gpu == spec; });
    if (it == groups.end()) {
      groups.push_back({spec, {}});
      it = groups.end() - 1;
    }
    it->devices.push_back(i);
  }
  std::vector<GpuSet> sets;
  for (const Group& g : groups) {
    // The link's figures come from the plan module's own defaults for that kind of link.
    std::string kind, seen;
    if (g.devices.size() > 1) std::tie(kind, seen) = link_kind(probe, g);
    if (kind == "nvlink" && !g.gpu->nvlink_gbs) {
      kind = "p2p";
      seen += " (the catalog has no NVLink figure for this GPU: taken as PCIe P2P)";
    }
    std::string spec =
        fmt::format("{}x\"{}\"{}", g.devices.size(), g.gpu->name, kind.empty() ? "" : ":" + kind);
    SMCOMPAT_TRY(auto parsed, parse_gpu_sets(spec, catalog));
    if (parsed.size() != 1) return make_error("probe: could not describe " + g.gpu->name);
    GpuSet set = parsed.front();
    uint64_t mem = probe.devices[g.devices.front()].total_memory;
    for (size_t i : g.devices)
      if (probe.devices[i].total_memory)
        mem = std::min(mem ? mem : UINT64_MAX, probe.devices[i].total_memory);
    if (mem) set.memory_bytes = mem;
    // The PCIe link as NVML reports it: the generation it can train to (an idle GPU drops to a
    // lower one to save power) and the lanes it has; the slowest GPU of the set sets the pace.
    int gen = 0, width = 0;
    bool link_known = true;
    std::vector<int> numa;
    for (size_t i : g.devices) {
      const ProbeDevice& d = probe.devices[i];
      if (!d.pcie_gen_max || !d.pcie_width_current) {
        link_known = false;
      } else {
        gen = gen ? std::min(gen, *d.pcie_gen_max) : *d.pcie_gen_max;
        width = width ? std::min(width, *d.pcie_width_current) : *d.pcie_width_current;
      }
      if (d.numa_node && std::find(numa.begin(), numa.end(), *d.numa_node) == numa.end())
        numa.push_back(*d.numa_node);
    }
    if (link_known && gen > 0 && width > 0) {
      set.pcie_gen = gen;
      set.pcie_width = width;
      if (set.link.kind != LinkKind::kNvlink) {
        double gbs = pcie_gbs_per_direction(gen, width);
        set.link.gbs_per_direction = set.link.kind == LinkKind::kPcieHost ? gbs / 2 : gbs;
        set.link.source =
            fmt::format("PCIe Gen{} x{} (probe: NVML){}: {:g} GB/s per direction", gen, width,
                        set.link.kind == LinkKind::kPcieHost
                            ? " without peer-to-peer access (staged through host memory)"
                            : " with peer-to-peer access",
                        set.link.gbs_per_direction);
      }
    }
    if (numa.size() > 1) {
      std::sort(numa.begin(), numa.end());
      std::string nodes;
      for (int n : numa) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
      seen += fmt::format(
          "; the GPUs sit on NUMA nodes {}: traffic between them crosses the CPUs' interconnect, "
          "which the link figures do not model",
          nodes);
    }
    if (!seen.empty()) set.link.source = seen + "; " + set.link.source;
    set.origin = "probe";
    sets.push_back(std::move(set));
  }
  return sets;
}

}  // namespace smcompat::plan
