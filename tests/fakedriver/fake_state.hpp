// Contract between the parts of the fake CUDA driver used by the tests (fake libcuda.so.1 and
// libnvidia-ml.so.1): the GPU set it serves and the current context. The device/context/NVML part
// (fake_cuda.cpp, fake_nvml.cpp, fake_state.cpp) implements these; the module-loading part
// (fake_modules.cpp) uses them. The fake's cuGetProcAddress resolves any exported `cu*` function of
// the fake library by name (trying the versioned names a real driver would map to), so adding an
// exported function in any file makes it reachable through every lookup path.
// Configuration by environment variables: see tests/fakedriver/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace smcompat::fake {

struct FakeGpu {
  std::string name;  ///< "NVIDIA GeForce RTX 5090"
  int cc_major = 0;  ///< the real architecture (what the driver loads code for)
  int cc_minor = 0;
  std::string pci_bus_id;  ///< "00000000:01:00.0" (NVML form; CUDA reports "0000:01:00.0")
  std::string uuid;        ///< "GPU-..."

  // Resources, derived from the catalog (data/catalog.json) entry the name resolved to. A value
  // the catalog lacks is 0.
  int physical_index = 0;  ///< NVML index (position in SMCOMPAT_FAKE_GPUS)
  int sms = 0;
  std::uint64_t total_mem = 0;  ///< memory_gib * 2^30
  int smem_per_block = 49152;
  int smem_per_block_optin = 0;
  int smem_per_sm = 0;
  int reserved_smem_per_block = 0;
  int l2_bytes = 0;          ///< l2_mb * 2^20
  int clock_khz = 0;         ///< boost_mhz * 1000
  int memory_clock_khz = 0;  ///< bandwidth / (2 * bus width / 8), so the DDR formula holds
  int bus_width_bits = 0;
  int threads_per_sm = 0;
  int blocks_per_sm = 0;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  bool cluster_launch = false;  ///< CC >= 9.0
  double bandwidth_gbs = 0;     ///< catalog DRAM bandwidth (the timing model's copies, memset)
  double nvlink_gbs = 0;        ///< catalog NVLink total, both directions (P2P over NVLink)
  int reported_cc_major = 0;    ///< what CUDA reports (differs under SMCOMPAT_FAKE_MASQUERADE)
  int reported_cc_minor = 0;
  /// PCIe link the NVML queries report (SMCOMPAT_FAKE_PCIE). While `pcie_error` is not 0 the four
  /// queries return it instead: NVML_ERROR_NOT_SUPPORTED (3) unless configured.
  int pcie_error = 3;
  unsigned pcie_gen_current = 0;
  unsigned pcie_width_current = 0;
  unsigned pcie_gen_max = 0;
  unsigned pcie_width_max = 0;
};

struct FakeState {
  int driver_cuda_version = 13000;  ///< what cuDriverGetVersion reports
  std::string driver_version;       ///< "580.95.05"
  std::vector<FakeGpu> gpus;        ///< the devices CUDA shows, in CUDA ordinal order
                                    ///< (after CUDA_VISIBLE_DEVICES)
  std::vector<FakeGpu>
      all_gpus;             ///< every device, in NVML order (NVML ignores CUDA_VISIBLE_DEVICES)
  bool p2p = true;          ///< SMCOMPAT_FAKE_P2P
  int nvlink_per_pair = 0;  ///< SMCOMPAT_FAKE_NVLINK
  int init_error = 0;       ///< SMCOMPAT_FAKE_INIT_ERROR: cuInit returns this if non-zero
  int nvml_init_error = 0;  ///< SMCOMPAT_FAKE_NVML_INIT_ERROR: nvmlInit_v2 returns this
  std::vector<int> failing_attributes;  ///< SMCOMPAT_FAKE_FAIL_ATTRIBUTES: answer NOT_SUPPORTED
  std::vector<std::string> errors;      ///< configuration problems (unknown GPU names...)

  // Timing model and fault injection of memory, streams, events and launches (fake_timing.cpp).
  double pcie_gbs = 25.0;      ///< SMCOMPAT_FAKE_PCIE_GBS: pinned host<->device, P2P over PCIe
  double pageable_gbs = 10.0;  ///< SMCOMPAT_FAKE_PAGEABLE_GBS: pageable host<->device
  double kernel_us = 2.0;      ///< SMCOMPAT_FAKE_KERNEL_US: every kernel launch / graph node
  std::uint64_t max_alloc =
      0;  ///< SMCOMPAT_FAKE_MAX_ALLOC: larger device allocations fail (0: none)
  /// SMCOMPAT_FAKE_FAIL_CALLS: entry point name -> the CUresult it returns instead of working.
  std::vector<std::pair<std::string, int>> failing_calls;
  // NVML device state (fake_nvml.cpp).
  unsigned long long throttle_reasons = 0;  ///< SMCOMPAT_FAKE_THROTTLE (bit mask)
  unsigned temperature_c = 45;              ///< SMCOMPAT_FAKE_TEMP_C
  unsigned power_mw = 300000;               ///< SMCOMPAT_FAKE_POWER_W x 1000
};

/// The configuration, read once from the environment (see tests/fakedriver/README.md).
const FakeState& state();
/// Ordinal of the device of the calling thread's current context, or -1 if none.
int current_device();

/// The device of a live context handle (CUcontext), or -1 (fake_cuda.cpp).
int context_device(const void* ctx);
/// The CUresult an entry point must return under SMCOMPAT_FAKE_FAIL_CALLS, or 0.
int injected_failure(const char* entry_point);
/// Puts one kernel launch on `stream` (the timing model of fake_timing.cpp); used by
/// cuLaunchKernel in fake_modules.cpp.
int launch_on_stream(void* stream);

/// NVLink links from physical GPU `a` to physical GPU `b` (0 when a == b or NVLink is off).
int nvlink_links(const FakeState& s, int a, int b);
/// Number of NVLink links of a physical GPU, and the peer (physical index) of link `link`, or -1.
int nvlink_count(const FakeState& s, int a);
int nvlink_peer(const FakeState& s, int a, int link);

}  // namespace smcompat::fake
