// The probe printers (src/report/probe_report.cpp) on constructed reports: the exact text for a
// machine with two GPUs (one masquerading) and for one without a driver, and the exact JSON
// (schema smcompat.probe/1, docs/probe.md).
#include "smcompat/report/probe_report.hpp"

#include <gtest/gtest.h>

#include "smcompat/util/host.hpp"

namespace smcompat {
namespace {

using nlohmann::json;

ProbeDevice device(int ordinal, ComputeCapability cc) {
  ProbeDevice d;
  d.ordinal = ordinal;
  d.name = "NVIDIA RTX PRO 6000";
  d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(ordinal);
  d.pci_bus_id = "0000:0" + std::to_string(ordinal + 1) + ":00.0";
  d.cc = cc;
  d.nvml_cc = ComputeCapability{12, 0};
  d.nvml_index = ordinal;
  d.masquerade = cc != *d.nvml_cc;
  d.sms = 188;
  d.total_memory = 102ull << 30;
  d.smem_per_block = 49152;
  d.smem_per_block_optin = 101376;
  d.smem_per_sm = 102400;
  d.reserved_smem_per_block = 1024;
  d.l2_bytes = 128 << 20;
  d.clock_khz = 2617000;
  d.memory_clock_khz = 14001000;
  d.bus_width_bits = 512;
  d.threads_per_sm = 1536;
  d.regs_per_sm = 65536;
  d.blocks_per_sm = 24;
  d.cluster_launch = true;
  d.bandwidth_gbs = theoretical_bandwidth_gbs(d.memory_clock_khz, d.bus_width_bits);
  d.arch_name = "Blackwell (RTX 50 / RTX PRO 6000)";
  d.features = {"fp4"};
  d.a_features = {"tcgen05"};
  d.catalog_gpu = "RTX PRO 6000";
  d.nvlink_links = 2;
  d.nvlink_links_to_other = 1;
  d.pcie_gen_current = d.pcie_gen_max = 5;  // the link at its best: PCIe 5.0 x16
  d.pcie_width_current = d.pcie_width_max = 16;
  d.numa_node = 0;
  return d;
}

// A report of `status` as probe_system() starts it for the default options.
ProbeReport report(ProbeStatus status, const char* explanation) {
  ProbeReport r;
  r.status = status;
  r.explanation = explanation;
  r.libcuda_requested = "libcuda.so.1";
  return r;
}

ProbeReport two_gpus() {
  ProbeReport r = report(ProbeStatus::kOk, "2 GPU(s) visible to CUDA.");
  r.libcuda_path = "/usr/lib/libcuda.so.1";
  r.resolved_via = "cuGetProcAddress_v2";
  r.nvml_loaded = true;
  r.nvml_path = "/usr/lib/libnvidia-ml.so.1";
  r.driver_version = "580.95.05";
  r.driver_version_source = "nvml";
  r.cuda_driver_version = 13000;
  r.nvml_cuda_driver_version = 13000;
  r.kernel_module = KernelModule::kOpen;
  r.kernel_module_line = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05";
  r.cuda_visible_devices = "0,1";
  r.nvml_device_count = 2;
  r.devices = {device(0, {12, 0}), device(1, {9, 0})};
  // The second is a smaller part of the same architecture.
  ProbeDevice& second = r.devices[1];
  second.name = "NVIDIA GeForce RTX 5090";
  second.catalog_gpu = "GeForce RTX 5090";
  second.sms = 170;
  second.total_memory = 32ull << 30;
  second.l2_bytes = 96 << 20;
  second.clock_khz = 2407000;
  second.smem_per_sm = 100352;
  second.blocks_per_sm = 32;
  second.features = {"fp4", "fp6"};
  second.nvlink_links = 0;
  second.nvlink_links_to_other = 0;
  second.pcie_gen_current = 4;  // downtrained
  second.pcie_width_current = 8;
  second.numa_node = 1;
  second.warnings = {"cuDeviceGetUuid failed"};
  r.topology.p2p_access = {{std::nullopt, true}, {false, std::nullopt}};
  r.topology.native_atomics = {{std::nullopt, true}, {std::nullopt, std::nullopt}};
  r.topology.nvlink_links = {{std::nullopt, 1}, {0, std::nullopt}};
  r.topology.pcie_common_ancestor = {{std::nullopt, "node"}, {"system", std::nullopt}};
  r.warnings = {"GPU 1 masquerades"};
  return r;
}

ProbeReport no_driver() {
  ProbeReport r = report(ProbeStatus::kNoDriver, "no NVIDIA driver found.");
  r.nvml_error = "not requested";
  return r;
}

TEST(ProbeReportText, TwoGpusOneMasquerading) {
  EXPECT_EQ(
      render_probe_text(two_gpus(), Style::plain()),
      "smcompat probe (observed from the driver now)\n"
      "  status         ok: 2 GPU(s) visible to CUDA.\n"
      "  driver         580.95.05 (from nvml)\n"
      "  CUDA (driver)  13.0 (cuDriverGetVersion = 13000)\n"
      "  kernel module  open NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05\n"
      "  libcuda        /usr/lib/libcuda.so.1 (entry points via cuGetProcAddress_v2)\n"
      "  NVML           /usr/lib/libnvidia-ml.so.1\n"
      "  CUDA_VISIBLE_DEVICES = \"0,1\"\n"
      "\n"
      "GPU 0  NVIDIA RTX PRO 6000  CC 12.0 (sm_120)\n"
      "  id             GPU-00000000-0000-0000-0000-000000000000  PCI 0000:01:00.0  NVML index 0\n"
      "  SMs            188   memory 102.0 GiB   L2 128.0 MiB   clock 2617 MHz\n"
      "  shared memory  49152 B/block, 101376 B/block opt-in, 102400 B/SM, 1024 B reserved/block\n"
      "  memory bus     512-bit at 14001 MHz -> 1792.1 GB/s theoretical (derived: 2 x clock x "
      "width / 8)\n"
      "  per SM         1536 threads, 24 blocks, 65536 registers; clusters yes\n"
      "  architecture   Blackwell (RTX 50 / RTX PRO 6000) (catalog)\n"
      "  features       fp4\n"
      "  with sm_120a   tcgen05\n"
      "  PCIe           Gen5 x16 (max Gen5 x16), NUMA node 0\n"
      "  NVLink         2 active links (1 to a switch or hidden GPU)\n"
      "\n"
      "GPU 1  NVIDIA GeForce RTX 5090  CC 9.0 per CUDA, 12.0 per NVML (sm_120)\n"
      "  id             GPU-00000000-0000-0000-0000-000000000001  PCI 0000:02:00.0  NVML index 1\n"
      "  MASQUERADE  CUDA says 9.0, NVML says 12.0: something is masquerading; the driver loads "
      "code for sm_120\n"
      "  SMs            170   memory 32.0 GiB   L2 96.0 MiB   clock 2407 MHz\n"
      "  shared memory  49152 B/block, 101376 B/block opt-in, 100352 B/SM, 1024 B reserved/block\n"
      "  memory bus     512-bit at 14001 MHz -> 1792.1 GB/s theoretical (derived: 2 x clock x "
      "width / 8)\n"
      "  per SM         1536 threads, 32 blocks, 65536 registers; clusters yes\n"
      "  architecture   Blackwell (RTX 50 / RTX PRO 6000) (catalog)\n"
      "  features       fp4, fp6\n"
      "  with sm_120a   tcgen05\n"
      "  PCIe           Gen4 x8 (max Gen5 x16: running below its maximum), NUMA node 1\n"
      "  warning cuDeviceGetUuid failed\n"
      "\n"
      "Topology\n"
      "      GPU0        GPU1\n"
      "GPU0  X           NV1 p2p+atomics\n"
      "GPU1  SYS no-p2p  X\n"
      "NV# = NVLink links; PIX/PXB/PHB/NODE/SYS = PCIe common ancestor (as nvidia-smi topo -m); "
      "p2p = cuDeviceCanAccessPeer; +atomics = native P2P atomics.\n"
      "warning: GPU 1 masquerades\n");
}

TEST(ProbeReportText, PcieLinkLines) {
  ProbeReport r = two_gpus();
  auto line_of = [&](ProbeDevice d) {
    r.devices = {d};
    std::string text = render_probe_text(r, Style::plain());
    for (const char* label : {"  PCIe ", "  NUMA "}) {
      auto at = text.find(label);
      if (at != std::string::npos) return text.substr(at, text.find('\n', at) - at);
    }
    return std::string();
  };
  ProbeDevice d = device(0, {12, 0});
  d.pcie_gen_current = 1;  // an idle GPU drops to Gen1 at full width
  EXPECT_EQ(line_of(d),
            "  PCIe           Gen1 x16 (max Gen5 x16: running below its maximum generation, as an "
            "idle GPU does to save power), NUMA node 0");
  d.pcie_gen_max.reset();  // only some queries answered
  d.pcie_width_max.reset();
  d.pcie_width_current.reset();
  EXPECT_EQ(line_of(d), "  PCIe           Gen1, NUMA node 0");
  d.pcie_gen_current.reset();
  EXPECT_EQ(line_of(d), "  NUMA node      0");
  d.numa_node.reset();
  EXPECT_EQ(line_of(d), "");
}

TEST(ProbeReportText, NoDriver) {
  EXPECT_EQ(render_probe_text(no_driver(), Style::plain()),
            "smcompat probe (observed from the driver now)\n"
            "  status         no_driver: no NVIDIA driver found.\n"
            "  NVML           unavailable: not requested\n");
}

TEST(ProbeReportJson, TwoGpusOneMasquerading) {
  json j = probe_to_json(two_gpus(), {"smcompat", "probe", "--json"});
  EXPECT_EQ(j["tool_version"], SMCOMPAT_VERSION);
  j.erase("tool_version");
  EXPECT_EQ(j["hostname"], host_name());  // fleet merge tags the node with it
  j.erase("hostname");
  // The second GPU: a smaller part of the same architecture, for which CUDA reports 9.0 (a
  // masquerade), with a warning.
  json second = j["devices"][0];
  second.update(json::parse(R"json({"cc": "9.0", "masquerade": true, "nvml_index": 1,
      "ordinal": 1, "pci_bus_id": "0000:02:00.0", "uuid": "GPU-00000000-0000-0000-0000-000000000001",
      "name": "NVIDIA GeForce RTX 5090", "catalog_gpu": "GeForce RTX 5090", "sms": 170,
      "memory_bytes": 34359738368, "l2_bytes": 100663296, "clock_khz": 2407000,
      "smem_per_sm": 100352, "blocks_per_sm": 32, "arch": {"features": ["fp4", "fp6"]},
      "nvlink": {"active_links": 0, "links_to_other": 0},
      "pcie": {"gen_current": 4, "gen_max": 5, "width_current": 8, "width_max": 16},
      "numa_node": 1,
      "warnings": ["cuDeviceGetUuid failed"]})json"),
                true);
  EXPECT_EQ(j["devices"][1], second) << j["devices"][1].dump(2);
  j["devices"].erase(1);
  EXPECT_EQ(j, json::parse(R"json({
  "argv": [
    "smcompat",
    "probe",
    "--json"
  ],
  "cuda_driver_version": 13000,
  "cuda_error": null,
  "cuda_visible_devices": "0,1",
  "devices": [
    {
      "arch": {
        "a_features": [
          "tcgen05"
        ],
        "f_features": [],
        "features": [
          "fp4"
        ],
        "name": "Blackwell (RTX 50 / RTX PRO 6000)",
        "sm": "sm_120",
        "source": "catalog"
      },
      "bandwidth_gbs": {
        "derived": true,
        "formula": "2 * memory_clock_khz * 1000 * bus_width_bits / 8 / 1e9",
        "value": 1792.128
      },
      "blocks_per_sm": 24,
      "bus_width_bits": 512,
      "catalog_gpu": "RTX PRO 6000",
      "cc": "12.0",
      "clock_khz": 2617000,
      "cluster_launch": true,
      "l2_bytes": 134217728,
      "masquerade": false,
      "memory_bytes": 109521666048,
      "memory_clock_khz": 14001000,
      "name": "NVIDIA RTX PRO 6000",
      "nvlink": {
        "active_links": 2,
        "links_to_other": 1
      },
      "numa_node": 0,
      "nvml_cc": "12.0",
      "nvml_index": 0,
      "ordinal": 0,
      "pci_bus_id": "0000:01:00.0",
      "pcie": {
        "gen_current": 5,
        "gen_max": 5,
        "width_current": 16,
        "width_max": 16
      },
      "regs_per_sm": 65536,
      "reserved_smem_per_block": 1024,
      "smem_per_block": 49152,
      "smem_per_block_optin": 101376,
      "smem_per_sm": 102400,
      "sms": 188,
      "threads_per_sm": 1536,
      "uuid": "GPU-00000000-0000-0000-0000-000000000000",
      "warnings": []
    }
  ],
  "driver_version": "580.95.05",
  "driver_version_source": "nvml",
  "explanation": "2 GPU(s) visible to CUDA.",
  "kernel_module": "open",
  "kernel_module_line": "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05",
  "libcuda": {
    "path": "/usr/lib/libcuda.so.1",
    "requested": "libcuda.so.1",
    "resolved_via": "cuGetProcAddress_v2"
  },
  "nvml": {
    "device_count": 2,
    "error": null,
    "loaded": true,
    "path": "/usr/lib/libnvidia-ml.so.1"
  },
  "nvml_cuda_driver_version": 13000,
  "observed": true,
  "schema": "smcompat.probe/1",
  "status": "ok",
  "topology": {
    "native_atomics": [
      [
        null,
        true
      ],
      [
        null,
        null
      ]
    ],
    "nvlink_links": [
      [
        null,
        1
      ],
      [
        0,
        null
      ]
    ],
    "p2p_access": [
      [
        null,
        true
      ],
      [
        false,
        null
      ]
    ],
    "pcie_common_ancestor": [
      [
        null,
        "node"
      ],
      [
        "system",
        null
      ]
    ]
  },
  "warnings": [
    "GPU 1 masquerades"
  ]
})json"))
      << j.dump(2);
}

TEST(ProbeReportJson, NoDriver) {
  json j = probe_to_json(no_driver(), {});
  j.erase("tool_version");
  j.erase("hostname");
  EXPECT_EQ(j, json::parse(R"json({
  "argv": [],
  "cuda_driver_version": null,
  "cuda_error": null,
  "cuda_visible_devices": null,
  "devices": [],
  "driver_version": null,
  "driver_version_source": null,
  "explanation": "no NVIDIA driver found.",
  "kernel_module": "unknown",
  "kernel_module_line": null,
  "libcuda": {
    "path": null,
    "requested": "libcuda.so.1",
    "resolved_via": null
  },
  "nvml": {
    "device_count": null,
    "error": "not requested",
    "loaded": false,
    "path": null
  },
  "nvml_cuda_driver_version": null,
  "observed": true,
  "schema": "smcompat.probe/1",
  "status": "no_driver",
  "topology": {
    "native_atomics": [],
    "nvlink_links": [],
    "p2p_access": [],
    "pcie_common_ancestor": []
  },
  "warnings": []
})json"))
      << j.dump(2);
}

}  // namespace
}  // namespace smcompat
