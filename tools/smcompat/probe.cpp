// `smcompat probe [--json]`: what the NVIDIA driver on this machine observes (probe_system in
// include/smcompat/probe/probe.hpp), for people (text) and programs (schema smcompat.probe/1,
// docs/probe.md). Exit codes: 0 a usable GPU and no masquerade; 1 a finding (no driver, stub,
// no GPU, no permission, hidden GPUs, driver error, or a compute-capability masquerade); 2 usage.
#include "smcompat/probe/probe.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace smcompat::cli {

namespace {

struct ProbeArgs {
  bool json = false;
  bool no_nvml = false;
  ProbeOptions options;
};

std::string bytes_human(uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", b / 1073741824.0);
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", b / 1048576.0);
  if (b >= 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? std::string("–") : s;
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

void print_text(const ProbeReport& r, const Style& st) {
  bool ok = r.status == ProbeStatus::kOk;
  fmt::print("{} {}\n", st.bold("smcompat probe"), st.dim("(observed from the driver now)"));
  std::string status = to_string(r.status);
  fmt::print("  status         {}: {}\n", ok ? st.green(status) : st.red(status), r.explanation);
  if (r.driver_version)
    fmt::print("  driver         {} {}\n", *r.driver_version,
               st.dim("(from " + r.driver_version_source + ")"));
  if (r.cuda_driver_version)
    fmt::print("  CUDA (driver)  {} {}\n",
               Version::from_cuda_int(*r.cuda_driver_version).to_string(),
               st.dim(fmt::format("(cuDriverGetVersion = {})", *r.cuda_driver_version)));
  if (r.kernel_module != KernelModule::kUnknown)
    fmt::print("  kernel module  {} {}\n", to_string(r.kernel_module),
               st.dim(r.kernel_module_line));
  if (!r.libcuda_path.empty())
    fmt::print("  libcuda        {} {}\n", r.libcuda_path,
               st.dim(r.resolved_via.empty() ? "" : "(entry points via " + r.resolved_via + ")"));
  fmt::print("  NVML           {}\n",
             r.nvml_loaded ? r.nvml_path : st.dim("unavailable: " + r.nvml_error));
  if (r.cuda_visible_devices)
    fmt::print("  CUDA_VISIBLE_DEVICES = \"{}\"\n", *r.cuda_visible_devices);

  for (const auto& d : r.devices) {
    ComputeCapability truth = d.nvml_cc.value_or(d.cc);
    std::string cc = d.masquerade ? fmt::format("CC {} per CUDA, {} per NVML (sm_{})",
                                                d.cc.to_string(), truth.to_string(), truth.arch())
                                  : fmt::format("CC {} (sm_{})", d.cc.to_string(), truth.arch());
    fmt::print("\n{}  {}  {}\n", st.bold(fmt::format("GPU {}", d.ordinal)), d.name, cc);
    fmt::print("  id             {}  PCI {}{}\n", d.uuid, d.pci_bus_id,
               d.nvml_index ? fmt::format("  NVML index {}", *d.nvml_index) : "");
    if (d.masquerade)
      fmt::print(
          "  {}  CUDA says {}, NVML says {}: something is masquerading; the driver loads "
          "code for sm_{}\n",
          st.red("MASQUERADE"), d.cc.to_string(), d.nvml_cc->to_string(), truth.arch());
    fmt::print("  SMs            {}   memory {}   L2 {}   clock {} MHz\n", d.sms,
               bytes_human(d.total_memory), bytes_human(static_cast<uint64_t>(d.l2_bytes)),
               d.clock_khz / 1000);
    fmt::print("  shared memory  {} B/block, {} B/block opt-in, {} B/SM, {} B reserved/block\n",
               d.smem_per_block, d.smem_per_block_optin, d.smem_per_sm, d.reserved_smem_per_block);
    fmt::print("  memory bus     {}-bit at {} MHz{}\n", d.bus_width_bits, d.memory_clock_khz / 1000,
               d.bandwidth_gbs ? fmt::format(" -> {:.1f} GB/s theoretical {}", *d.bandwidth_gbs,
                                             st.dim("(derived: 2 x clock x width / 8)"))
                               : std::string());
    fmt::print("  per SM         {} threads, {} blocks, {} registers; clusters {}\n",
               d.threads_per_sm, d.blocks_per_sm, d.regs_per_sm, d.cluster_launch ? "yes" : "no");
    if (!d.arch_name.empty()) {
      fmt::print("  architecture   {} {}\n", d.arch_name, st.dim("(catalog)"));
      fmt::print("  features       {}\n", join(d.features));
      if (!d.f_features.empty())
        fmt::print("  {:<15}{}\n", fmt::format("with sm_{}f", truth.arch()), join(d.f_features));
      if (!d.a_features.empty())
        fmt::print("  {:<15}{}\n", fmt::format("with sm_{}a", truth.arch()), join(d.a_features));
    }
    if (d.nvlink_links > 0)
      fmt::print("  NVLink         {} active links{}\n", d.nvlink_links,
                 d.nvlink_links_to_other
                     ? fmt::format(" ({} to a switch or hidden GPU)", d.nvlink_links_to_other)
                     : "");
    for (const auto& w : d.warnings) fmt::print("  {} {}\n", st.yellow("warning"), w);
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
    fmt::print("\n{}\n{}", st.bold("Topology"), t.render(st));
    fmt::print("{}\n", st.dim("NV# = NVLink links; PIX/PXB/PHB/NODE/SYS = PCIe common ancestor "
                              "(as nvidia-smi topo -m); p2p = cuDeviceCanAccessPeer; +atomics = "
                              "native P2P atomics."));
  }
  for (const auto& w : r.warnings) fmt::print("{} {}\n", st.yellow("warning:"), w);
}

}  // namespace

void register_probe(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "probe", "Ask the installed NVIDIA driver about this machine's GPUs (no GPU needed to run)");
  static ProbeArgs args;
  cmd->add_flag("--json", args.json, "Machine-readable output (schema smcompat.probe/1)");
  cmd->add_option("--libcuda", args.options.libcuda,
                  "Driver library to load (default: libcuda.so.1 via the normal search)");
  cmd->add_option("--libnvml", args.options.libnvml,
                  "NVML library to load (default: libnvidia-ml.so.1 via the normal search)");
  cmd->add_flag("--no-nvml", args.no_nvml, "Do not load NVML");
  cmd->add_option("--proc-version", args.options.proc_version_path,
                  "File naming the kernel module (default /proc/driver/nvidia/version)");
  cmd->add_option("--dev-dir", args.options.dev_dir,
                  "Directory of the nvidia* device nodes (default /dev)");
  cmd->callback([&ctx] {
    args.options.use_nvml = !args.no_nvml;
    auto result = probe_system(args.options);
    if (!result) {
      fmt::print(stderr, "smcompat probe: {}\n", result.error().to_string());
      ctx.exit_code = kExitError;
      return;
    }
    const ProbeReport& r = *result;
    if (args.json) {
      nlohmann::json j = to_json(r);
      j["argv"] = ctx.argv;
      j["tool_version"] = SMCOMPAT_VERSION;
      fmt::print("{}\n", j.dump(2));
    } else {
      print_text(r, ctx.out_style());
    }
    bool masquerade = false;
    for (const auto& d : r.devices) masquerade = masquerade || d.masquerade;
    ctx.exit_code = (r.status == ProbeStatus::kOk && !masquerade) ? kExitOk : kExitFindings;
  });
}

}  // namespace smcompat::cli
