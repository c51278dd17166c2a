// The probe: what the NVIDIA driver on this machine observes right now. It dlopens libcuda.so.1
// and libnvidia-ml.so.1 at run time (no link-time CUDA dependency), resolves entry points through
// cuGetProcAddress_v2 with explicit ABI versions (falling back to dlsym of versioned names), and
// reports the driver, each GPU's facts, the catalog's view of its architecture, and the topology.
// It tells apart: no driver, the toolkit's stub library, driver without GPU, no permission on
// /dev/nvidia*, CUDA_VISIBLE_DEVICES hiding every GPU. Reference:
// ../shared/reference/driver-api.md §7 (APIs, enum values) and §8 (stub library). Printed by
// report/probe_report.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

/// What the probe could establish about the driver, in the order it is checked.
enum class ProbeStatus {
  kOk,                ///< the driver initialised and shows at least one GPU
  kNoDriver,          ///< libcuda.so.1 could not be loaded (no NVIDIA driver installed/visible)
  kStubLibrary,       ///< libcuda.so.1 is the CUDA toolkit's stub (CUDA_ERROR_STUB_LIBRARY, 34)
  kNoDevice,          ///< the driver loaded but reports no GPU (CUDA_ERROR_NO_DEVICE)
  kPermissionDenied,  ///< /dev/nvidia* exist but this user cannot open them
  kDevicesHidden,     ///< CUDA_VISIBLE_DEVICES hides every GPU from CUDA
  kError,             ///< any other failure; the explanation names the CUresult
};
/// "ok", "no_driver", "stub_library", "no_device", "permission_denied", "devices_hidden", "error".
const char* to_string(ProbeStatus status);

/// Which kernel module flavour /proc/driver/nvidia/version names.
enum class KernelModule { kUnknown, kOpen, kProprietary };
const char* to_string(KernelModule module);  // "unknown", "open", "proprietary"

/// Where to look. Defaults are what a user's machine needs; tests point them elsewhere.
struct ProbeOptions {
  /// Passed to dlopen as is: a bare name uses the normal search (LD_LIBRARY_PATH, ld.so.cache).
  std::string libcuda = "libcuda.so.1";
  std::string libnvml = "libnvidia-ml.so.1";
  bool use_nvml = true;
  /// Text file naming the loaded kernel module ("NVRM version: ...").
  std::string proc_version_path = "/proc/driver/nvidia/version";
  /// Directory holding the device nodes nvidiactl, nvidia0, ... (checked for access).
  std::string dev_dir = "/dev";
  /// Where sysfs is mounted: a GPU's NUMA node is read from
  /// <sysfs_root>/bus/pci/devices/<domain:bus:device.function>/numa_node.
  std::string sysfs_root = "/sys";
};

/// One GPU as CUDA sees it, joined with NVML by PCI bus id.
struct ProbeDevice {
  int ordinal = 0;                           ///< CUDA ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;                          ///< cuDeviceGetName
  std::string uuid;                          ///< "GPU-xxxxxxxx-..." from cuDeviceGetUuid
  std::string pci_bus_id;                    ///< cuDeviceGetPCIBusId, e.g. "0000:01:00.0"
  ComputeCapability cc;                      ///< from CUDA (attributes 75/76)
  std::optional<ComputeCapability> nvml_cc;  ///< from nvmlDeviceGetCudaComputeCapability
  std::optional<int> nvml_index;             ///< NVML's index of the same GPU, if NVML found it
  /// CUDA and NVML disagree on the compute capability: something (an LD_PRELOAD shim, a patched
  /// library) is masquerading. The driver still loads code for the NVML (true) architecture.
  bool masquerade = false;
  /// The architecture the driver loads code for: NVML's capability when the two disagree. The
  /// one rule for "the real compute capability" (scan, doctor and trace use it).
  ComputeCapability true_cc() const { return masquerade && nvml_cc ? *nvml_cc : cc; }
  int sms = 0;
  uint64_t total_memory = 0;        ///< bytes (cuDeviceTotalMem_v2)
  int smem_per_block = 0;           ///< bytes without opt-in (attribute 8)
  int smem_per_block_optin = 0;     ///< bytes with opt-in (attribute 97)
  int smem_per_sm = 0;              ///< attribute 81
  int reserved_smem_per_block = 0;  ///< attribute 111
  int l2_bytes = 0;                 ///< attribute 38
  int clock_khz = 0;                ///< attribute 13
  int memory_clock_khz = 0;         ///< attribute 36
  int bus_width_bits = 0;           ///< attribute 37
  int threads_per_sm = 0;           ///< attribute 39
  int regs_per_sm = 0;              ///< attribute 82
  int blocks_per_sm = 0;            ///< attribute 106
  bool cluster_launch = false;      ///< attribute 120
  /// Theoretical DRAM bandwidth in GB/s (10^9 bytes/s), DERIVED as
  /// 2 (DDR) × memory clock (kHz × 1000) × bus width (bits) / 8; nullopt if an input is 0.
  std::optional<double> bandwidth_gbs;
  /// The catalog's architecture (looked up by the true CC: NVML's when known).
  std::string arch_name;                ///< "Blackwell (RTX 50 / RTX PRO 6000)"; empty if unknown
  std::vector<std::string> features;    ///< usable by any target of this arch
  std::vector<std::string> a_features;  ///< need the sm_XXa target
  std::vector<std::string> f_features;  ///< need the sm_XXf (or a) target
  /// Catalog GPU whose name matches (nullopt if none): its spec for comparison.
  std::optional<std::string> catalog_gpu;
  int nvlink_links = 0;           ///< active NVLink links (NVML)
  int nvlink_links_to_other = 0;  ///< of those, links whose remote is not a probed GPU (switch)
  /// PCIe link (NVML): generation (1 to 6) and width in lanes, current and maximum ("possible with
  /// this device and system"); nullopt when NVML is unavailable or the device has no PCIe link
  /// (NVML_ERROR_NOT_SUPPORTED, e.g. GB10). The current generation may drop while the GPU idles.
  std::optional<int> pcie_gen_current;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_current;
  std::optional<int> pcie_width_max;
  /// NUMA node of the GPU's PCI function (sysfs numa_node); nullopt when the kernel reports none
  /// (-1, a machine without NUMA) or the file is missing or unreadable.
  std::optional<int> numa_node;
  std::vector<std::string> warnings;  ///< per-device query failures
};

/// Pairwise facts; indices are CUDA ordinals; the diagonal is empty (nullopt).
struct ProbeTopology {
  /// cuDeviceCanAccessPeer.
  std::vector<std::vector<std::optional<bool>>> p2p_access;
  /// cuDeviceGetP2PAttribute(NATIVE_ATOMIC_SUPPORTED).
  std::vector<std::vector<std::optional<bool>>> native_atomics;
  /// NVLink links from row GPU to column GPU (NVML remote PCI info), 0 when none.
  std::vector<std::vector<std::optional<int>>> nvlink_links;
  /// nvmlDeviceGetTopologyCommonAncestor: "internal", "single", "multiple", "hostbridge", "node",
  /// "system" (nvidia-smi topo: -, PIX, PXB, PHB, NODE, SYS).
  std::vector<std::vector<std::optional<std::string>>> pcie_common_ancestor;
};

struct ProbeReport {
  ProbeStatus status = ProbeStatus::kError;
  std::string explanation;        ///< a sentence or two for people: what, why, what to do
  std::optional<int> cuda_error;  ///< the CUresult behind a non-ok status, if any
  std::string libcuda_requested;  ///< ProbeOptions::libcuda
  std::string libcuda_path;       ///< the file the dynamic loader opened (empty if none)
  std::string resolved_via;       ///< "cuGetProcAddress_v2", "cuGetProcAddress" or "dlsym"
  bool nvml_loaded = false;
  std::string nvml_path;
  std::string nvml_error;                     ///< why NVML is unavailable (empty if loaded)
  std::optional<std::string> driver_version;  ///< "580.95.05"
  std::string
      driver_version_source;  ///< "nvml", "/proc/driver/nvidia/version", "libcuda file name"
  std::optional<int> cuda_driver_version;       ///< cuDriverGetVersion, e.g. 13000
  std::optional<int> nvml_cuda_driver_version;  ///< nvmlSystemGetCudaDriverVersion_v2
  KernelModule kernel_module = KernelModule::kUnknown;
  std::string kernel_module_line;  ///< the first line of the proc file, if readable
  std::optional<std::string> cuda_visible_devices;  ///< the variable's value, if set
  std::optional<int> nvml_device_count;
  std::vector<ProbeDevice> devices;
  ProbeTopology topology;
  std::vector<std::string> warnings;
};

/// Probes the driver. Never throws and never crashes on a missing or failing library: every
/// outcome about the machine is a ProbeReport with a status. An Error is returned only for
/// unusable options (an empty libcuda name).
Result<ProbeReport> probe_system(const ProbeOptions& options = {});

/// Reads the kernel module flavour from the text of /proc/driver/nvidia/version ("... Open
/// Kernel Module ..." = open; "... Kernel Module ..." = proprietary). Also returns the driver
/// version named there, if any.
struct ProcDriverInfo {
  KernelModule module = KernelModule::kUnknown;
  std::optional<std::string> version;
  std::string first_line;
};
ProcDriverInfo parse_proc_driver_version(std::string_view text);

/// The NUMA node of the PCI function `pci_bus_id` ("0000:01:00.0", any case, as
/// cuDeviceGetPCIBusId gives it) from <sysfs_root>/bus/pci/devices/<lowercase id>/numa_node.
/// `node` is nullopt when the file says -1 (no NUMA affinity), is missing or the id is not a PCI
/// address; `warning` is set (naming the file) only when the file holds something other than a
/// node number.
struct NumaNodeReading {
  std::optional<int> node;
  std::string warning;
};
NumaNodeReading read_pci_numa_node(const std::string& sysfs_root, std::string_view pci_bus_id);

/// Theoretical bandwidth in GB/s: 2 × memory_clock_khz × 1000 × bus_width_bits / 8 / 1e9.
std::optional<double> theoretical_bandwidth_gbs(int memory_clock_khz, int bus_width_bits);

}  // namespace smcompat
