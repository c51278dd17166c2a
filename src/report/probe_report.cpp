// Printing probe reports (include/smcompat/report/probe_report.hpp): the JSON report, schema
// "smcompat.probe/1" (docs/probe.md documents every field), and the text report. Everything is
// observed from the driver except `bandwidth_gbs` (derived, marked so) and the `arch` block (from
// the catalog, data/catalog.json).
#include "smcompat/report/probe_report.hpp"

#include <fmt/format.h>

#include <span>
#include <utility>

#include "smcompat/report/json_document.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

template <class T>
nlohmann::json matrix(const std::vector<std::vector<std::optional<T>>>& m) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& cell : row) r.push_back(opt(cell));
    out.push_back(r);
  }
  return out;
}

// The plain integer facts of a device, by JSON key: per SM, memory, clocks.
using IntFact = std::pair<const char*, int ProbeDevice::*>;
constexpr IntFact kSmFacts[] = {{"sms", &ProbeDevice::sms},
                                {"threads_per_sm", &ProbeDevice::threads_per_sm},
                                {"regs_per_sm", &ProbeDevice::regs_per_sm},
                                {"blocks_per_sm", &ProbeDevice::blocks_per_sm}};
constexpr IntFact kMemoryFacts[] = {
    {"smem_per_block", &ProbeDevice::smem_per_block},
    {"smem_per_block_optin", &ProbeDevice::smem_per_block_optin},
    {"smem_per_sm", &ProbeDevice::smem_per_sm},
    {"reserved_smem_per_block", &ProbeDevice::reserved_smem_per_block},
    {"l2_bytes", &ProbeDevice::l2_bytes}};
constexpr IntFact kClockFacts[] = {{"clock_khz", &ProbeDevice::clock_khz},
                                   {"memory_clock_khz", &ProbeDevice::memory_clock_khz},
                                   {"bus_width_bits", &ProbeDevice::bus_width_bits}};

// A string that is empty when unknown: null in JSON.
nlohmann::json nonempty(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

nlohmann::json device_json(const ProbeDevice& d) {
  nlohmann::json j = {
      {"ordinal", d.ordinal},
      {"name", d.name},
      {"uuid", d.uuid},
      {"pci_bus_id", d.pci_bus_id},
      {"cc", d.cc.to_string()},
      {"nvml_cc", d.nvml_cc ? nlohmann::json(d.nvml_cc->to_string()) : nlohmann::json(nullptr)},
      {"nvml_index", opt(d.nvml_index)},
      {"masquerade", d.masquerade},
      {"memory_bytes", d.total_memory},
      {"cluster_launch", d.cluster_launch},
      {"catalog_gpu", opt(d.catalog_gpu)},
      {"warnings", d.warnings},
  };
  for (std::span<const IntFact> facts :
       {std::span<const IntFact>(kSmFacts), std::span<const IntFact>(kMemoryFacts),
        std::span<const IntFact>(kClockFacts)})
    for (const auto& [key, member] : facts) j[key] = d.*member;
  j["bandwidth_gbs"] = nullptr;
  if (d.bandwidth_gbs)
    j["bandwidth_gbs"] = {{"value", *d.bandwidth_gbs},
                          {"derived", true},
                          {"formula", "2 * memory_clock_khz * 1000 * bus_width_bits / 8 / 1e9"}};
  j["arch"] = {{"sm", "sm_" + std::to_string(d.true_cc().arch())},
               {"name", d.arch_name},
               {"features", d.features},
               {"a_features", d.a_features},
               {"f_features", d.f_features},
               {"source", "catalog"}};
  j["nvlink"] = {{"active_links", d.nvlink_links}, {"links_to_other", d.nvlink_links_to_other}};
  j["pcie"] = {{"gen_current", opt(d.pcie_gen_current)},
               {"gen_max", opt(d.pcie_gen_max)},
               {"width_current", opt(d.pcie_width_current)},
               {"width_max", opt(d.pcie_width_max)}};
  j["numa_node"] = opt(d.numa_node);
  return j;
}

std::string bytes_human(uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", b / 1073741824.0);
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", b / 1048576.0);
  if (b >= 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

// "Gen5 x16", "Gen5" or "x16" (what is known), empty when neither is.
std::string pcie_link(const std::optional<int>& gen, const std::optional<int>& width) {
  std::string s = gen ? fmt::format("Gen{}", *gen) : std::string();
  if (width) s += fmt::format("{}x{}", s.empty() ? "" : " ", *width);
  return s;
}

// The link line of a device: "PCIe           Gen5 x16 (max Gen5 x16), NUMA node 0", or
// "NUMA node      0" when only the node is known, or nothing. A link below its maximum is called
// out: a narrower link is a seating or riser fault; a lower generation alone is often power saving
// on an idle GPU.
std::string pcie_line(const ProbeDevice& d) {
  std::string cur = pcie_link(d.pcie_gen_current, d.pcie_width_current);
  std::string max = pcie_link(d.pcie_gen_max, d.pcie_width_max);
  if (cur.empty() && max.empty())
    return d.numa_node ? fmt::format("  NUMA node      {}\n", *d.numa_node) : std::string();
  std::string s = cur.empty() ? std::string("link unknown") : cur;
  if (!max.empty()) {
    auto below = [](const std::optional<int>& c, const std::optional<int>& m) {
      return c && m && *c < *m;
    };
    s += " (max " + max;
    if (below(d.pcie_width_current, d.pcie_width_max))
      s += ": running below its maximum";
    else if (below(d.pcie_gen_current, d.pcie_gen_max))
      s += ": running below its maximum generation, as an idle GPU does to save power";
    s += ")";
  }
  if (d.numa_node) s += fmt::format(", NUMA node {}", *d.numa_node);
  return fmt::format("  PCIe           {}\n", s);
}

const char* short_level(const std::string& level) {
  if (level == "internal") return "-";
  if (level == "single") return "PIX";
  if (level == "multiple") return "PXB";
  if (level == "hostbridge") return "PHB";
  if (level == "node") return "NODE";
  if (level == "system") return "SYS";
  return "?";
}

}  // namespace

std::string render_probe_text(const ProbeReport& r, const Style& st) {
  std::string out;
  bool ok = r.status == ProbeStatus::kOk;
  out +=
      fmt::format("{} {}\n", st.bold("smcompat probe"), st.dim("(observed from the driver now)"));
  std::string status = to_string(r.status);
  out += fmt::format("  status         {}: {}\n", ok ? st.green(status) : st.red(status),
                     r.explanation);
  if (r.driver_version)
    out += fmt::format("  driver         {} {}\n", *r.driver_version,
                       st.dim("(from " + r.driver_version_source + ")"));
  if (r.cuda_driver_version)
    out += fmt::format("  CUDA (driver)  {} {}\n",
                       Version::from_cuda_int(*r.cuda_driver_version).to_string(),
                       st.dim(fmt::format("(cuDriverGetVersion = {})", *r.cuda_driver_version)));
  if (r.kernel_module != KernelModule::kUnknown)
    out += fmt::format("  kernel module  {} {}\n", to_string(r.kernel_module),
                       st.dim(r.kernel_module_line));
  if (!r.libcuda_path.empty())
    out += fmt::format(
        "  libcuda        {} {}\n", r.libcuda_path,
        st.dim(r.resolved_via.empty() ? "" : "(entry points via " + r.resolved_via + ")"));
  out += fmt::format("  NVML           {}\n",
                     r.nvml_loaded ? r.nvml_path : st.dim("unavailable: " + r.nvml_error));
  if (r.cuda_visible_devices)
    out += fmt::format("  CUDA_VISIBLE_DEVICES = \"{}\"\n", *r.cuda_visible_devices);

  for (const auto& d : r.devices) {
    ComputeCapability truth = d.true_cc();
    std::string cc = d.masquerade ? fmt::format("CC {} per CUDA, {} per NVML (sm_{})",
                                                d.cc.to_string(), truth.to_string(), truth.arch())
                                  : fmt::format("CC {} (sm_{})", d.cc.to_string(), truth.arch());
    out += fmt::format("\n{}  {}  {}\n", st.bold(fmt::format("GPU {}", d.ordinal)), d.name, cc);
    out += fmt::format("  id             {}  PCI {}{}\n", d.uuid, d.pci_bus_id,
                       d.nvml_index ? fmt::format("  NVML index {}", *d.nvml_index) : "");
    if (d.masquerade)
      out += fmt::format(
          "  {}  CUDA says {}, NVML says {}: something is masquerading; the driver loads "
          "code for sm_{}\n",
          st.red("MASQUERADE"), d.cc.to_string(), d.nvml_cc->to_string(), truth.arch());
    out += fmt::format("  SMs            {}   memory {}   L2 {}   clock {} MHz\n", d.sms,
                       bytes_human(d.total_memory), bytes_human(static_cast<uint64_t>(d.l2_bytes)),
                       d.clock_khz / 1000);
    out += fmt::format(
        "  shared memory  {} B/block, {} B/block opt-in, {} B/SM, {} B reserved/block\n",
        d.smem_per_block, d.smem_per_block_optin, d.smem_per_sm, d.reserved_smem_per_block);
    out += fmt::format(
        "  memory bus     {}-bit at {} MHz{}\n", d.bus_width_bits, d.memory_clock_khz / 1000,
        d.bandwidth_gbs ? fmt::format(" -> {:.1f} GB/s theoretical {}", *d.bandwidth_gbs,
                                      st.dim("(derived: 2 x clock x width / 8)"))
                        : std::string());
    out += fmt::format("  per SM         {} threads, {} blocks, {} registers; clusters {}\n",
                       d.threads_per_sm, d.blocks_per_sm, d.regs_per_sm,
                       d.cluster_launch ? "yes" : "no");
    if (!d.arch_name.empty()) {
      out += fmt::format("  architecture   {} {}\n", d.arch_name, st.dim("(catalog)"));
      out += fmt::format("  features       {}\n", join(d.features, ", ", "–"));
      if (!d.f_features.empty())
        out += fmt::format("  {:<15}{}\n", fmt::format("with sm_{}f", truth.arch()),
                           join(d.f_features, ", ", "–"));
      if (!d.a_features.empty())
        out += fmt::format("  {:<15}{}\n", fmt::format("with sm_{}a", truth.arch()),
                           join(d.a_features, ", ", "–"));
    }
    out += pcie_line(d);
    if (d.nvlink_links > 0)
      out += fmt::format("  NVLink         {} active links{}\n", d.nvlink_links,
                         d.nvlink_links_to_other ? fmt::format(" ({} to a switch or hidden GPU)",
                                                               d.nvlink_links_to_other)
                                                 : "");
    for (const auto& w : d.warnings) out += fmt::format("  {} {}\n", st.yellow("warning"), w);
  }

  size_t n = r.devices.size();
  if (n > 1) {
    std::vector<std::string> head{""};
    std::vector<Table::Align> align{Table::Align::kLeft};
    for (size_t j = 0; j < n; ++j) {
      head.push_back(fmt::format("GPU{}", j));
      align.push_back(Table::Align::kLeft);
    }
    Table t(head, align);
    const auto& topo = r.topology;
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::string> row{fmt::format("GPU{}", i)};
      for (size_t j = 0; j < n; ++j) {
        if (i == j) {
          row.push_back("X");
          continue;
        }
        std::string link;
        if (topo.nvlink_links[i][j].value_or(0) > 0)
          link = fmt::format("NV{}", *topo.nvlink_links[i][j]);
        else if (topo.pcie_common_ancestor[i][j])
          link = short_level(*topo.pcie_common_ancestor[i][j]);
        else
          link = "?";
        std::string p2p =
            !topo.p2p_access[i][j] ? "p2p?" : (*topo.p2p_access[i][j] ? "p2p" : "no-p2p");
        if (topo.native_atomics[i][j].value_or(false)) p2p += "+atomics";
        row.push_back(link + " " + p2p);
      }
      t.add_row(row);
    }
    out += fmt::format("\n{}\n{}", st.bold("Topology"), t.render(st));
    out += fmt::format("{}\n",
                       st.dim("NV# = NVLink links; PIX/PXB/PHB/NODE/SYS = PCIe common ancestor "
                              "(as nvidia-smi topo -m); p2p = cuDeviceCanAccessPeer; +atomics = "
                              "native P2P atomics."));
  }
  for (const auto& w : r.warnings) out += fmt::format("{} {}\n", st.yellow("warning:"), w);
  return out;
}

nlohmann::json probe_to_json(const ProbeReport& r, const std::vector<std::string>& argv) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : r.devices) devices.push_back(device_json(d));
  return node_json_document(
      kProbeSchema, argv,
      {
          {"observed", true},
          {"status", to_string(r.status)},
          {"explanation", r.explanation},
          {"cuda_error", opt(r.cuda_error)},
          {"libcuda",
           {{"requested", r.libcuda_requested},
            {"path", nonempty(r.libcuda_path)},
            {"resolved_via", nonempty(r.resolved_via)}}},
          {"nvml",
           {{"loaded", r.nvml_loaded},
            {"path", nonempty(r.nvml_path)},
            {"error", nonempty(r.nvml_error)},
            {"device_count", opt(r.nvml_device_count)}}},
          {"driver_version", opt(r.driver_version)},
          {"driver_version_source",
           r.driver_version ? nlohmann::json(r.driver_version_source) : nlohmann::json(nullptr)},
          {"cuda_driver_version", opt(r.cuda_driver_version)},
          {"nvml_cuda_driver_version", opt(r.nvml_cuda_driver_version)},
          {"kernel_module", to_string(r.kernel_module)},
          {"kernel_module_line", nonempty(r.kernel_module_line)},
          {"cuda_visible_devices", opt(r.cuda_visible_devices)},
          {"devices", devices},
          {"topology",
           {{"p2p_access", matrix(r.topology.p2p_access)},
            {"native_atomics", matrix(r.topology.native_atomics)},
            {"nvlink_links", matrix(r.topology.nvlink_links)},
            {"pcie_common_ancestor", matrix(r.topology.pcie_common_ancestor)}}},
          {"warnings", r.warnings},
      });
}

}  // namespace smcompat
