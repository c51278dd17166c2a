// `smcompat probe [--json]`: what the NVIDIA driver on this machine observes (probe_system in
// include/smcompat/probe/probe.hpp), for people (text) and programs (schema smcompat.probe/1,
// docs/probe.md). Exit codes: 0 a usable GPU and no masquerade; 1 a finding (no driver, stub,
// no GPU, no permission, hidden GPUs, driver error, or a compute-capability masquerade); 2 usage.
#include "smcompat/probe/probe.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "smcompat/report/probe_report.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

struct ProbeArgs {
  bool json = false;
  bool no_nvml = false;
  ProbeOptions options;
};

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
  cmd->add_option("--sysfs-root", args.options.sysfs_root,
                  "Where sysfs is mounted, for each GPU's NUMA node (default /sys)");
  cmd->callback([&ctx] {
    args.options.use_nvml = !args.no_nvml;
    auto result = probe_system(args.options);
    if (!result) {
      ctx.fail("probe", result.error().to_string());
      return;
    }
    const ProbeReport& r = *result;
    if (args.json) {
      fmt::print("{}\n", json_text(probe_to_json(r, ctx.argv)));
    } else {
      fmt::print("{}", render_probe_text(r, ctx.out_style()));
    }
    bool masquerade = false;
    for (const auto& d : r.devices) masquerade = masquerade || d.masquerade;
    ctx.exit_code = (r.status == ProbeStatus::kOk && !masquerade) ? kExitOk : kExitFindings;
  });
}

}  // namespace smcompat::cli
