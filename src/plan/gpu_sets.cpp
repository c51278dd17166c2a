// The GPU sets a plan is for (include/smcompat/plan/plan.hpp): `--gpus` read against the catalog,
// the link between a set's GPUs (its kind, bandwidth and the share of it NCCL reaches), and PCIe
// bandwidth by generation.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::plan {
namespace {

constexpr std::array<const char*, 3> kLinkNames = {"nvlink", "pcie-p2p", "pcie-host"};

double pcie_x16_gbs(int gen) { return pcie_gbs_per_direction(gen, 16); }

// Per-link constants (docs/plan.md, "Links"): the share of the spec bandwidth NCCL reaches and
// the latency per ring step.
// - NVLink: 370 of 450 GB/s per direction with ring all-reduce on 8xH100 (NCCL maintainer,
//   NVIDIA/nccl-tests#212); the custom all-reduce of vLLM takes 10.1 us for 512 B at TP8
//   (sgl-project/sglang#2904): 14 ring steps of 0.72 us.
// - PCIe: all-reduce bus bandwidth 35 GB/s on 4xRTX 5090 at Gen5 (NVIDIA/nccl#1639), 0.56 of
//   63 GB/s; an 8-byte all-reduce on 8xRTX 4090 takes ~37 us (NVIDIA/nccl#1530): 2.6 us a step.
// - Without P2P: a 1 GB copy between two RTX 5090 ran at 22.8 GB/s (bench-anchors.md, seed),
//   0.72 of half the Gen5 link.
constexpr double kNvlinkEfficiency = 370.0 / 450.0;
constexpr double kNvlinkStepUs = 10.1 / 14;
constexpr double kPcieP2pEfficiency = 35.0 / 63.0;
constexpr double kPcieHostEfficiency = 22.8 / 31.5;
constexpr double kPcieStepUs = 37.0 / 14;

bool is_geforce(const GpuSpec& g) { return to_lower(g.name).find("geforce") != std::string::npos; }

Link default_link(const GpuSpec& g, std::string_view override_kind) {
  int gen = g.pcie_gen.value_or(0);
  Link link;
  std::string kind(override_kind);
  if (kind.empty()) kind = g.nvlink_gbs ? "nvlink" : (is_geforce(g) ? "nop2p" : "p2p");
  if (kind == "nvlink") {
    double total = g.nvlink_gbs.value_or(0);
    link = {LinkKind::kNvlink, total / 2, kNvlinkEfficiency, kNvlinkStepUs,
            fmt::format("catalog: NVLink {:g} GB/s both directions, {:g} per direction", total,
                        total / 2)};
  } else if (kind == "p2p") {
    link = {LinkKind::kPcieP2p, pcie_x16_gbs(gen), kPcieP2pEfficiency, kPcieStepUs,
            fmt::format("PCIe {} x16 with peer-to-peer access: {:g} GB/s per direction",
                        gen ? fmt::format("Gen{}", gen) : std::string("(generation unknown)"),
                        pcie_x16_gbs(gen))};
  } else {
    // Without P2P every byte is copied into host memory and out again: half the link.
    link = {LinkKind::kPcieHost, pcie_x16_gbs(gen) / 2, kPcieHostEfficiency, kPcieStepUs,
            fmt::format("PCIe {} x16 without peer-to-peer access (staged through host memory): "
                        "{:g} GB/s per direction",
                        gen ? fmt::format("Gen{}", gen) : std::string("(generation unknown)"),
                        pcie_x16_gbs(gen) / 2)};
  }
  return link;
}

std::string_view strip_quotes(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return trim(s);
}

}  // namespace

std::string_view to_string(LinkKind k) { return enum_name(k, kLinkNames); }

// PCI-SIG base specifications 3.0-6.0; 6.0's FLIT mode is taken at the same efficiency.
double pcie_gbs_per_direction(int gen, int lanes) {
  double x16 = 15.75;  // Gen3, and unknown: the oldest a server GPU of this catalog uses
  if (gen == 4) x16 = 31.5;
  if (gen == 5) x16 = 63.0;
  if (gen == 6) x16 = 126.0;
  return x16 * std::clamp(lanes, 1, 16) / 16.0;
}

std::string GpuSet::label() const {
  return fmt::format("{}x {}", count, gpu ? gpu->name : std::string("?"));
}

Result<std::vector<GpuSet>> parse_gpu_sets(std::string_view spec, const Catalog& catalog) {
  std::vector<GpuSet> sets;
  if (trim(spec).empty()) return make_error("--gpus: empty (expected COUNTxNAME, e.g. 8xH100)");
  for (std::string_view part : split(spec, ',')) {
    std::string_view item = trim(part);
    size_t x = item.find_first_of("xX*");
    auto count = x == std::string_view::npos ? std::nullopt : parse_uint(trim(item.substr(0, x)));
    if (!count || *count == 0 || *count > 1024)
      return make_error(
          fmt::format("--gpus: '{}' is not COUNTxNAME (a count of 1 to 1024, 'x', a GPU name; "
                      "e.g. 8xH100, 4x\"RTX PRO 6000\", 2xRTX 5090:nop2p)",
                      item));
    std::string_view name = item.substr(x + 1);
    std::string_view link_kind;
    if (size_t colon = name.rfind(':'); colon != std::string_view::npos) {
      link_kind = trim(name.substr(colon + 1));
      name = name.substr(0, colon);
      if (link_kind != "nvlink" && link_kind != "p2p" && link_kind != "nop2p")
        return make_error(fmt::format(
            "--gpus: '{}': unknown link '{}' (use :nvlink, :p2p or :nop2p)", item, link_kind));
    }
    name = strip_quotes(name);
    const GpuSpec* gpu = catalog.find_gpu(name);
    if (!gpu) {
      std::string hint;
      for (const GpuSpec* g : catalog.suggest_gpus(name))
        hint += (hint.empty() ? "" : ", ") + g->name;
      return make_error(
          fmt::format("--gpus: unknown GPU '{}'{} (`smcompat gpus` lists the catalog)", name,
                      hint.empty() ? std::string() : " — did you mean: " + hint + "?"));
    }
    if (link_kind == "nvlink" && !gpu->nvlink_gbs)
      return make_error(
          fmt::format("--gpus: '{}': the catalog lists no NVLink for {}", item, gpu->name));
    if (!gpu->memory_gib)
      return make_error(fmt::format("--gpus: the catalog has no memory size for {}", gpu->name));
    GpuSet set;
    set.count = int(*count);
    set.gpu = gpu;
    set.memory_bytes = uint64_t(*gpu->memory_gib * double(1ull << 30));
    set.link = default_link(*gpu, link_kind);
    set.pcie_gen = gpu->pcie_gen.value_or(0);
    set.origin = fmt::format("--gpus {}", item);
    sets.push_back(set);
  }
  return sets;
}

}  // namespace smcompat::plan
