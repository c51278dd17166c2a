// The fleet's findings (src/fleet/fleet_findings.hpp): doctor-style findings with their hosts.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "fleet_findings.hpp"

namespace smcompat::fleet {

using doctor::Finding;
using doctor::Severity;

namespace {

std::string host_list(const std::vector<std::string>& hosts, size_t named) {
  std::string s;
  for (size_t i = 0; i < hosts.size() && i < named; ++i) s += (i ? ", " : "") + hosts[i];
  if (hosts.size() > named) s += fmt::format(" and {} more", hosts.size() - named);
  return s;
}

/// Per-node evidence lines beyond `named` become one "... and N more" line (the finding's
/// `hosts` still lists every node).
std::vector<std::string> capped(std::vector<std::string> lines, size_t named) {
  if (lines.size() > named + 1) {
    size_t more = lines.size() - named;
    lines.resize(named);
    lines.push_back(fmt::format("... and {} more", more));
  }
  return lines;
}

std::string nodes_word(size_t n) { return fmt::format("{} node{}", n, n == 1 ? "" : "s"); }

std::string cuda_text(const std::optional<Version>& v) {
  return v ? "CUDA " + v->to_string() : "CUDA unknown";
}

}  // namespace

void add_finding(std::vector<FleetFinding>& out, Severity sev, std::string id, std::string title,
                 std::vector<std::string> evidence, std::string fix, std::vector<std::string> hosts,
                 std::string image) {
  FleetFinding f;
  f.finding.severity = sev;
  f.finding.id = std::move(id);
  f.finding.title = std::move(title);
  f.finding.evidence = std::move(evidence);
  f.finding.fix = std::move(fix);
  f.finding.subject = image.empty() ? "fleet" : image;
  f.hosts = std::move(hosts);
  f.image = std::move(image);
  out.push_back(std::move(f));
}

void node_findings(const FleetReport& r, const MergeOptions& o, std::vector<FleetFinding>& out) {
  // Reports that could not be read.
  std::vector<std::string> ev, hosts;
  for (const auto& n : r.nodes)
    for (const auto& e : n.errors) {
      ev.push_back(fmt::format("{}: {}", n.host, e.to_string()));
      if (hosts.empty() || hosts.back() != n.host) hosts.push_back(n.host);
    }
  if (!ev.empty())
    add_finding(
        out, Severity::kError, "report-unreadable",
        fmt::format("{} report{} could not be read ({})", ev.size(), ev.size() == 1 ? "" : "s",
                    nodes_word(hosts.size())),
        capped(ev, o.hosts_named),
        "Write the report again on these nodes (a truncated file usually means the job writing "
        "it was killed); the rest of the fleet is merged without them.",
        hosts);

  // Nodes whose driver did not answer.
  ev.clear();
  hosts.clear();
  for (const auto& n : r.nodes)
    if (!n.driver_state.empty() && n.driver_state != "ok") {
      ev.push_back(fmt::format("{}: {}{}", n.host, n.driver_state,
                               n.driver_detail.empty() ? "" : " — " + n.driver_detail));
      hosts.push_back(n.host);
    }
  if (!ev.empty())
    add_finding(
        out, Severity::kError, "driver-unavailable",
        fmt::format("the CUDA driver is not usable on {}", nodes_word(hosts.size())),
        capped(ev, o.hosts_named),
        "Run `smcompat doctor` on these nodes: it names the cause (driver not loaded, no device "
        "visible, kernel module mismatch) and the fix.",
        hosts);

  // One GPU model, several drivers.
  for (const auto& m : r.models) {
    if (m.drivers.size() < 2) continue;
    std::vector<std::string> evm, hm;
    for (const auto& [ver, count] : m.drivers) {
      std::vector<std::string> these;
      for (const auto& n : r.nodes) {
        if (n.driver_version != ver) continue;
        for (const auto& g : n.gpus)
          if (g.model == m.model && g.cc == m.cc) {
            these.push_back(n.host);
            break;
          }
      }
      evm.push_back(fmt::format("driver {}: {}: {}", ver.empty() ? "unknown" : ver,
                                nodes_word(count), host_list(these, o.hosts_named)));
      hm.insert(hm.end(), these.begin(), these.end());
    }
    add_finding(
        out, Severity::kWarning, "mixed-drivers",
        fmt::format("{} nodes run {} different drivers", m.model, m.drivers.size()), evm,
        fmt::format("Pin one driver per GPU model (e.g. the newest here, {}): nodes on different "
                    "drivers support different CUDA versions and JIT PTX differently, so a job "
                    "that runs on one node can fail on the next.",
                    m.drivers.back().first),
        hm);
  }

  // Multi-GPU nodes without peer access between some pair.
  ev.clear();
  hosts.clear();
  for (const auto& n : r.nodes)
    if (n.topology_known && n.gpu_pairs > 0 && n.p2p_pairs < n.gpu_pairs) {
      ev.push_back(fmt::format("{}: {} GPUs, {} of {} pairs without peer access", n.host,
                               n.gpus.size(), n.gpu_pairs - n.p2p_pairs, n.gpu_pairs));
      hosts.push_back(n.host);
    }
  if (!ev.empty())
    add_finding(
        out, Severity::kWarning, "p2p-missing",
        fmt::format("{} with GPU pairs lacking peer-to-peer access", nodes_word(hosts.size())),
        capped(ev, o.hosts_named),
        "Multi-GPU jobs there copy between GPUs through host memory (NCCL falls back to shared "
        "memory): keep tensor-parallel jobs on nodes with full P2P, or check the node's PCIe "
        "topology, ACS and IOMMU settings (`smcompat probe` shows the matrix).",
        hosts);

  // The doctors' findings, by id.
  std::map<std::string, std::pair<Finding, std::vector<std::string>>> by_id;
  for (const auto& n : r.nodes)
    for (const auto& f : n.doctor_findings) {
      auto& slot = by_id[f.id];
      if (slot.second.empty()) slot.first = f;
      if (slot.second.empty() || slot.second.back() != n.host) slot.second.push_back(n.host);
    }
  for (auto& [id, slot] : by_id) {
    auto& [f, hs] = slot;
    if (f.severity == Severity::kInfo) continue;  // informational notes stay in the node reports
    add_finding(
        out, f.severity, "doctor:" + id,
        fmt::format("{} ({} on {})", f.title, id, nodes_word(hs.size())),
        {fmt::format("{}", host_list(hs, o.hosts_named))},
        fmt::format("`smcompat doctor` on one of these nodes gives the evidence and the exact fix "
                    "for `{}`.",
                    id),
        hs);
  }
}

void image_findings(const FleetReport& r, const MergeOptions& o, std::vector<FleetFinding>& out) {
  const Catalog& catalog = Catalog::builtin();
  for (const auto& im : r.images) {
    std::vector<std::string> ev_old, hosts_old, ev_fail, hosts_fail, ev_jit, hosts_jit;
    std::optional<int> too_new;
    for (const auto& c : im.classes) {
      std::string cls = fmt::format("{} ({}), driver {}", c.model, c.cc, cuda_text(c.driver_cuda));
      if (c.runtime_too_new) {
        too_new = c.runtime_too_new;
        ev_old.push_back(fmt::format("{}: {}: {}", cls, nodes_word(c.hosts.size()),
                                     host_list(c.hosts, o.hosts_named)));
        hosts_old.insert(hosts_old.end(), c.hosts.begin(), c.hosts.end());
      }
      size_t failing = c.files[static_cast<size_t>(Fit::kNoImage)] +
                       c.files[static_cast<size_t>(Fit::kUnsupportedPtx)];
      if (failing > 0) {
        ev_fail.push_back(fmt::format(
            "{}: {}: {} of {} files with device code cannot run ({}{}): {}", cls,
            nodes_word(c.hosts.size()), failing, im.files_with_code,
            c.files[static_cast<size_t>(Fit::kUnsupportedPtx)] ? "PTX newer than the driver, " : "",
            c.files[static_cast<size_t>(Fit::kNoImage)] ? "no kernel image" : "no usable image",
            host_list(c.failing_files, kNamedFiles)));
        hosts_fail.insert(hosts_fail.end(), c.hosts.begin(), c.hosts.end());
      }
      size_t jit = c.files[static_cast<size_t>(Fit::kPtxJit)];
      if (jit > 0) {
        ev_jit.push_back(fmt::format("{}: {}: {} file{} only as PTX: {}", cls,
                                     nodes_word(c.hosts.size()), jit, jit == 1 ? "" : "s",
                                     host_list(c.jit_files, kNamedFiles)));
        hosts_jit.insert(hosts_jit.end(), c.hosts.begin(), c.hosts.end());
      }
    }
    auto unique = [](std::vector<std::string>& v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    unique(hosts_old);
    unique(hosts_fail);
    unique(hosts_jit);
    if (too_new) {
      const CudaRelease* rel = catalog.cuda_release(Version{*too_new, 0});
      std::string min = rel && rel->min_driver_linux ? rel->min_driver_linux->to_string() : "";
      add_finding(
          out, Severity::kError, "image-driver-too-old",
          fmt::format("{} carries the CUDA {} runtime; the driver of {} is older", im.name,
                      *too_new, nodes_word(hosts_old.size())),
          ev_old,
          min.empty()
              ? fmt::format("Upgrade the driver on these nodes to one supporting CUDA {}.0, or "
                            "run a build of the image for their CUDA version.",
                            *too_new)
              : fmt::format("Upgrade the driver on these nodes to {} or newer (CUDA {}.0's "
                            "minimum on Linux), or run a build of the image for their CUDA "
                            "version.",
                            min, *too_new),
          hosts_old, im.name);
    }
    if (!ev_fail.empty())
      add_finding(
          out, Severity::kError, "image-no-code",
          fmt::format("{} has code that cannot run on {}", im.name, nodes_word(hosts_fail.size())),
          ev_fail,
          "Use builds of these libraries that carry SASS or PTX for these GPUs' architectures "
          "(`smcompat advise` names released wheels that do), or keep the image off these nodes "
          "(a nodeSelector or Slurm constraint on the GPU model).",
          hosts_fail, im.name);
    if (!ev_jit.empty())
      add_finding(
          out, Severity::kWarning, "image-ptx-jit",
          fmt::format("{} runs only through PTX JIT on {}", im.name, nodes_word(hosts_jit.size())),
          ev_jit,
          "The first load JIT-compiles PTX on these nodes (minutes for large libraries, then "
          "cached in ~/.nv/ComputeCache, per user and per node): ship SASS for these "
          "architectures, or persist and pre-warm the JIT cache.",
          hosts_jit, im.name);
  }
}

}  // namespace smcompat::fleet
