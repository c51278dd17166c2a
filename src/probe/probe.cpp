// probe_system(): dlopen the CUDA driver and NVML, resolve entry points with explicit ABI versions
// (cuGetProcAddress_v2 first, dlsym of the versioned name as fallback: driver-api.md §7), check
// every call, classify failures (no driver / stub / no GPU / permission / CUDA_VISIBLE_DEVICES),
// gather per-device facts (with the PCIe link from NVML and the NUMA node from sysfs) and topology,
// and join CUDA and NVML devices by PCI bus id.
#include "smcompat/probe/probe.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/probe/driver_abi.hpp"
#include "smcompat/probe/driver_lookup.hpp"
#include "smcompat/probe/nvml.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat {

using namespace driver;

namespace {

// More GPUs than any machine has (the topology walk is quadratic): counts above it are clamped.
constexpr int kMaxDevices = 256;

// ---- small helpers ------------------------------------------------------------------------------

std::string loaded_path(void* handle) { return loaded_library_path(handle); }

struct PciAddress {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  bool operator==(const PciAddress&) const = default;
};
std::optional<PciAddress> parse_pci(const char* s) {
  PciAddress a;
  char tail = 0;
  if (!s || std::sscanf(s, "%x:%x:%x.%x%c", &a.domain, &a.bus, &a.device, &a.function, &tail) != 4)
    return std::nullopt;
  return a;
}

std::string uuid_string(const CUuuid& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

const char* topology_name(int level) {
  switch (level) {
    case kNvmlTopologyInternal:
      return "internal";
    case kNvmlTopologySingle:
      return "single";
    case kNvmlTopologyMultiple:
      return "multiple";
    case kNvmlTopologyHostbridge:
      return "hostbridge";
    case kNvmlTopologyNode:
      return "node";
    case kNvmlTopologySystem:
      return "system";
    default:
      return nullptr;
  }
}

// Device nodes (nvidiactl, nvidia0, nvidia-uvm ...) in `dir` that exist but cannot be opened for
// reading and writing by this process; `any` tells whether any node exists at all.
std::vector<std::string> inaccessible_nodes(const std::string& dir, bool& any) {
  any = false;
  std::vector<std::string> bad;
  DIR* d = opendir(dir.c_str());
  if (!d) return bad;
  static const std::regex kNode(R"(nvidia(ctl|\d+|-uvm))");
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (!std::regex_match(name, kNode)) continue;
    any = true;
    std::string path = dir + "/" + name;
    if (access(path.c_str(), R_OK | W_OK) != 0)
      bad.push_back(fmt::format("{} ({})", path, std::strerror(errno)));
  }
  closedir(d);
  std::sort(bad.begin(), bad.end());
  return bad;
}

bool has_gpu_node(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  static const std::regex kGpu(R"(nvidia\d+)");
  bool found = false;
  while (dirent* e = readdir(d))
    if (std::regex_match(std::string(e->d_name), kGpu)) found = true;
  closedir(d);
  return found;
}

// ---- the driver API, resolved -------------------------------------------------------------------

struct CudaApi : DriverCore {
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetName_v2000 device_get_name = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
  PFN_cuDeviceTotalMem_v3020 device_total_mem = nullptr;
  PFN_cuDeviceGetPCIBusId_v4010 device_get_pci_bus_id = nullptr;
  PFN_cuDeviceGetUuid_v11040 device_get_uuid = nullptr;
  PFN_cuDeviceCanAccessPeer_v4000 can_access_peer = nullptr;
  PFN_cuDeviceGetP2PAttribute_v8000 get_p2p_attribute = nullptr;

  void load_all() {
    load_core();
    device_get = get<PFN_cuDeviceGet_v2000>("cuDeviceGet", 2000, "cuDeviceGet");
    device_get_name = get<PFN_cuDeviceGetName_v2000>("cuDeviceGetName", 2000, "cuDeviceGetName");
    device_get_attribute =
        get<PFN_cuDeviceGetAttribute_v2000>("cuDeviceGetAttribute", 2000, "cuDeviceGetAttribute");
    device_total_mem =
        get<PFN_cuDeviceTotalMem_v3020>("cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2");
    device_get_pci_bus_id =
        get<PFN_cuDeviceGetPCIBusId_v4010>("cuDeviceGetPCIBusId", 4010, "cuDeviceGetPCIBusId");
    device_get_uuid =
        get<PFN_cuDeviceGetUuid_v11040>("cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2");
    if (!device_get_uuid)  // drivers before 11.4: the first ABI has the same signature
      device_get_uuid = get<PFN_cuDeviceGetUuid_v11040>("cuDeviceGetUuid", 9020, "cuDeviceGetUuid");
    can_access_peer = get<PFN_cuDeviceCanAccessPeer_v4000>("cuDeviceCanAccessPeer", 4000,
                                                           "cuDeviceCanAccessPeer");
    get_p2p_attribute = get<PFN_cuDeviceGetP2PAttribute_v8000>("cuDeviceGetP2PAttribute", 8000,
                                                               "cuDeviceGetP2PAttribute");
  }
};

// ---- NVML (probe/nvml.hpp) ----------------------------------------------------------------------

// NVML's facts for the report; nullptr (and `rep.nvml_error`) when it is unavailable.
std::unique_ptr<NvmlLibrary> load_nvml(const ProbeOptions& opt, ProbeReport& rep) {
  if (!opt.use_nvml) {
    rep.nvml_error = "not requested";
    return nullptr;
  }
  auto nvml = NvmlLibrary::open(opt.libnvml, &rep.nvml_error, &rep.nvml_path);
  if (!nvml) return nullptr;
  rep.nvml_loaded = true;
  const NvmlFunctions& nv = nvml->fn();
  if (nv.driver_version) {
    char buf[kNvmlDriverVersionBufferSize] = {};
    if (nv.driver_version(buf, sizeof buf) == kNvmlSuccess && buf[0]) {
      buf[sizeof buf - 1] = '\0';
      rep.driver_version = std::string(buf);
      rep.driver_version_source = "nvml";
    }
  }
  int v = 0;
  if (nv.cuda_driver_version && nv.cuda_driver_version(&v) == kNvmlSuccess)
    rep.nvml_cuda_driver_version = v;
  unsigned count = 0;
  if (nv.get_count) {
    nvmlReturn_t rc = nv.get_count(&count);
    if (rc == kNvmlSuccess)
      rep.nvml_device_count = static_cast<int>(count);
    else
      rep.warnings.push_back(fmt::format("nvmlDeviceGetCount_v2 failed: {}", nv.error(rc)));
  }
  return nvml;
}

// Fills in the status and explanation when the driver loaded but initialisation or device
// enumeration failed (r = the CUresult, CUDA_ERROR_NO_DEVICE when the count was 0).
void classify_failure(const ProbeOptions& opt, const CudaApi& cu, CUresult r, ProbeReport& rep) {
  rep.cuda_error = r;
  std::string what = fmt::format("{} ({})", cu.error_name(r), r);
  std::string where = rep.libcuda_path.empty() ? opt.libcuda : rep.libcuda_path;
  bool any_node = false;
  auto bad = inaccessible_nodes(opt.dev_dir, any_node);
  if (!bad.empty()) {
    rep.status = ProbeStatus::kPermissionDenied;
    std::string list;
    for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
    rep.explanation = fmt::format(
        "the NVIDIA driver is installed but this user cannot open its device nodes: {}. "
        "cuInit returned {}. Add the user to the group that owns them (often `video` or "
        "`render`), or in a container pass the devices in (docker --gpus all).",
        list, what);
    return;
  }
  if (rep.cuda_visible_devices && (r == kCudaErrorNoDevice || r == kCudaErrorInvalidDevice)) {
    rep.status = ProbeStatus::kDevicesHidden;
    std::string nvml_part =
        rep.nvml_device_count
            ? fmt::format("NVML sees {} GPU(s), but ", *rep.nvml_device_count)
            : std::string("(NVML unavailable, so the GPUs behind it cannot be counted) ");
    rep.explanation = fmt::format(
        "{}CUDA_VISIBLE_DEVICES=\"{}\" hides every GPU from CUDA (cuInit: {}). Unset it, or "
        "list valid indices or UUIDs (e.g. CUDA_VISIBLE_DEVICES=0); an empty value or -1 hides "
        "all GPUs, and the list ends at the first invalid entry.",
        nvml_part, *rep.cuda_visible_devices, what);
    return;
  }
  if (r == kCudaErrorNoDevice) {
    rep.status = ProbeStatus::kNoDevice;
    std::string why;
    if (rep.nvml_device_count && *rep.nvml_device_count > 0) {
      why = fmt::format(
          " NVML sees {} GPU(s) that CUDA cannot use; check `nvidia-smi` (MIG mode, "
          "a fallen-off-the-bus GPU) and dmesg.",
          *rep.nvml_device_count);
    } else if (!has_gpu_node(opt.dev_dir)) {
      why = fmt::format(
          " There is no {}/nvidia0 device node: no NVIDIA GPU is present, or (in a "
          "container) none was passed in (docker --gpus all, Kubernetes "
          "nvidia.com/gpu).",
          opt.dev_dir);
    } else {
      why = " Check `nvidia-smi` and dmesg for the state of the GPU.";
    }
    rep.explanation = fmt::format("the NVIDIA driver ({}) loaded but reports no CUDA GPU ({}).{}",
                                  where, what, why);
    return;
  }
  rep.status = ProbeStatus::kError;
  std::string hint;
  if (r == kCudaErrorInsufficientDriver || r == 803 || r == 804)
    hint =
        " The user-space driver library and the kernel module do not match, or a CUDA "
        "forward-compatibility package is in use on an unsupported GPU: reinstall the driver "
        "or remove the compat libraries from the library path.";
  rep.explanation = fmt::format(
      "the NVIDIA driver ({}) failed to initialise: cuInit returned {}.{}", where, what, hint);
}

void query_device(CudaApi& cu, int ordinal, ProbeDevice& d) {
  auto warn = [&](const char* call, CUresult r) {
    d.warnings.push_back(fmt::format("{} failed: {} ({})", call, cu.error_name(r), r));
  };
  CUdevice dev = 0;
  if (CUresult r = cu.device_get ? cu.device_get(&dev, ordinal) : kCudaErrorNotSupported) {
    warn("cuDeviceGet", r);
    dev = ordinal;
  }
  d.ordinal = ordinal;
  char buf[256] = {};
  if (cu.device_get_name) {
    if (CUresult r = cu.device_get_name(buf, sizeof buf - 1, dev))
      warn("cuDeviceGetName", r);
    else
      d.name = buf;
  }
  if (cu.device_get_pci_bus_id) {
    std::memset(buf, 0, sizeof buf);
    if (CUresult r = cu.device_get_pci_bus_id(buf, 64, dev))
      warn("cuDeviceGetPCIBusId", r);
    else
      d.pci_bus_id = buf;
  }
  if (cu.device_get_uuid) {
    CUuuid u{};
    if (CUresult r = cu.device_get_uuid(&u, dev))
      warn("cuDeviceGetUuid", r);
    else
      d.uuid = uuid_string(u);
  }
  if (cu.device_total_mem) {
    size_t bytes = 0;
    if (CUresult r = cu.device_total_mem(&bytes, dev))
      warn("cuDeviceTotalMem_v2", r);
    else
      d.total_memory = bytes;
  }
  auto attr = [&](int a, const char* name, int& out) {
    if (!cu.device_get_attribute) return;
    int v = 0;
    if (CUresult r = cu.device_get_attribute(&v, a, dev)) {
      d.warnings.push_back(
          fmt::format("cuDeviceGetAttribute({}) failed: {} ({})", name, cu.error_name(r), r));
      return;
    }
    out = v;
  };
  attr(kAttrComputeCapabilityMajor, "COMPUTE_CAPABILITY_MAJOR", d.cc.major);
  attr(kAttrComputeCapabilityMinor, "COMPUTE_CAPABILITY_MINOR", d.cc.minor);
  attr(kAttrMultiprocessorCount, "MULTIPROCESSOR_COUNT", d.sms);
  attr(kAttrMaxSharedMemoryPerBlock, "MAX_SHARED_MEMORY_PER_BLOCK", d.smem_per_block);
  attr(kAttrMaxSharedMemoryPerBlockOptin, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
       d.smem_per_block_optin);
  attr(kAttrMaxSharedMemoryPerMultiprocessor, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
       d.smem_per_sm);
  attr(kAttrReservedSharedMemoryPerBlock, "RESERVED_SHARED_MEMORY_PER_BLOCK",
       d.reserved_smem_per_block);
  attr(kAttrL2CacheSize, "L2_CACHE_SIZE", d.l2_bytes);
  attr(kAttrClockRate, "CLOCK_RATE", d.clock_khz);
  attr(kAttrMemoryClockRate, "MEMORY_CLOCK_RATE", d.memory_clock_khz);
  attr(kAttrGlobalMemoryBusWidth, "GLOBAL_MEMORY_BUS_WIDTH", d.bus_width_bits);
  attr(kAttrMaxThreadsPerMultiprocessor, "MAX_THREADS_PER_MULTIPROCESSOR", d.threads_per_sm);
  attr(kAttrMaxRegistersPerMultiprocessor, "MAX_REGISTERS_PER_MULTIPROCESSOR", d.regs_per_sm);
  attr(kAttrMaxBlocksPerMultiprocessor, "MAX_BLOCKS_PER_MULTIPROCESSOR", d.blocks_per_sm);
  int cluster = 0;
  attr(kAttrClusterLaunch, "CLUSTER_LAUNCH", cluster);
  d.cluster_launch = cluster != 0;
  d.bandwidth_gbs = theoretical_bandwidth_gbs(d.memory_clock_khz, d.bus_width_bits);
}

// The PCIe link of an NVML device. A missing entry point or NOT_SUPPORTED (no PCIe link: an
// integrated GPU such as GB10) leaves a field unknown silently; any other error also warns.
void query_pcie(const NvmlFunctions& nv, nvmlDevice_t h, ProbeDevice& d) {
  struct Query {
    NvmlFn<nvmlDevice_t, unsigned*> fn;
    const char* name;
    std::optional<int>* out;
    unsigned most;
  };
  // Plausible answers: PCIe generations 1 to 7 (Gen7 is the newest specification, 2025) and
  // link widths of 1 to 32 lanes (the widest the PCIe specification defines).
  const Query queries[] = {
      {nv.pcie_gen_current, "nvmlDeviceGetCurrPcieLinkGeneration", &d.pcie_gen_current, 7},
      {nv.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", &d.pcie_gen_max, 7},
      {nv.pcie_width_current, "nvmlDeviceGetCurrPcieLinkWidth", &d.pcie_width_current, 32},
      {nv.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", &d.pcie_width_max, 32},
  };
  for (const auto& [fn, name, out, most] : queries) {
    if (!fn) continue;
    unsigned v = 0;
    nvmlReturn_t r = fn(h, &v);
    if (r == kNvmlSuccess && v > 0 && v <= most)
      *out = static_cast<int>(v);
    else if (r == kNvmlSuccess)
      d.warnings.push_back(fmt::format("{} returned an implausible {}", name, v));
    else if (r != kNvmlErrorNotSupported)
      d.warnings.push_back(fmt::format("{} failed: {}", name, nv.error(r)));
  }
}

void add_catalog_facts(ProbeDevice& d) {
  const Catalog& cat = Catalog::builtin();
  ComputeCapability truth = d.true_cc();
  if (const ArchInfo* a = cat.arch(truth.arch())) {
    d.arch_name = a->name;
    d.features = a->features;
    d.a_features = a->a_features;
    d.f_features = a->f_features;
  }
  std::string_view name = d.name;
  if (name.rfind("NVIDIA ", 0) == 0) name.remove_prefix(7);
  if (const GpuSpec* g = cat.find_gpu(name)) d.catalog_gpu = g->name;
}

}  // namespace

Result<ProbeReport> probe_system(const ProbeOptions& opt) {
  if (opt.libcuda.empty()) return make_error("probe: the libcuda name to load is empty");
  ProbeReport rep;
  rep.libcuda_requested = opt.libcuda;
  if (const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES")) rep.cuda_visible_devices = cvd;

  // The kernel module, if its proc file is readable (absent in most containers).
  std::optional<ProcDriverInfo> proc;
  if (auto text = read_file_prefix(opt.proc_version_path, 4096)) {
    proc = parse_proc_driver_version(*text);
    rep.kernel_module = proc->module;
    rep.kernel_module_line = proc->first_line;
  }

  std::unique_ptr<NvmlLibrary> nvml = load_nvml(opt, rep);
  static const NvmlFunctions kNoNvml;
  const NvmlFunctions& nv = nvml ? nvml->fn() : kNoNvml;
  if (!rep.driver_version && proc && proc->version) {
    rep.driver_version = proc->version;
    rep.driver_version_source = opt.proc_version_path;
  }

  CudaApi cu;
  dlerror();
  cu.handle = dlopen(opt.libcuda.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!cu.handle) {
    const char* e = dlerror();
    rep.status = ProbeStatus::kNoDriver;
    std::string hint =
        proc ? fmt::format(
                   " The NVIDIA kernel module is loaded ({}), so the driver's user-space "
                   "libraries are missing from the library path; in a container, start it "
                   "with the NVIDIA Container Toolkit (docker --gpus all).",
                   proc->version.value_or("version unknown"))
             : std::string(
                   " Install the NVIDIA driver (or, in a container, use the NVIDIA "
                   "Container Toolkit); on a machine without an NVIDIA GPU this is "
                   "expected.");
    rep.explanation = fmt::format("no NVIDIA driver found: {} could not be loaded ({}).{}",
                                  opt.libcuda, e ? e : "unknown dlopen error", hint);
    return rep;
  }
  rep.libcuda_path = loaded_path(cu.handle);
  if (!rep.driver_version) {  // last resort: libcuda.so.580.95.05 behind the symlink
    char real[PATH_MAX];
    if (!rep.libcuda_path.empty() && realpath(rep.libcuda_path.c_str(), real)) {
      static const std::regex kFile(R"(libcuda\.so\.(\d+\.\d+(\.\d+)?)$)");
      std::smatch m;
      std::string s(real);
      if (std::regex_search(s, m, kFile)) {
        rep.driver_version = m[1].str();
        rep.driver_version_source = "libcuda file name";
      }
    }
  }
  cu.load_all();
  rep.resolved_via = cu.init_via;

  auto stub = [&](CUresult r) {
    rep.status = ProbeStatus::kStubLibrary;
    rep.cuda_error = r;
    rep.explanation = fmt::format(
        "{} is the CUDA toolkit's stub library (CUDA_ERROR_STUB_LIBRARY, 34): it exists only so "
        "that programs can be linked without a driver and cannot run anything. The real driver's "
        "libcuda.so.1 is missing or shadowed: remove the toolkit's lib64/stubs directory from "
        "LD_LIBRARY_PATH (or the ld.so configuration), or install the NVIDIA driver.",
        rep.libcuda_path.empty() ? opt.libcuda : rep.libcuda_path);
  };
  if (!cu.init) {
    rep.status = ProbeStatus::kError;
    rep.explanation = fmt::format("{} does not provide cuInit: it is not a CUDA driver library",
                                  rep.libcuda_path);
    return rep;
  }
  if (cu.driver_get_version) {
    int v = 0;
    CUresult r = cu.driver_get_version(&v);
    if (r == kCudaErrorStubLibrary) {
      stub(r);
      return rep;
    }
    if (r == kCudaSuccess) rep.cuda_driver_version = v;
  }
  CUresult r = cu.init(0);
  if (r == kCudaErrorStubLibrary || (r != kCudaSuccess && cu.stub_seen)) {
    stub(r);
    return rep;
  }
  if (r != kCudaSuccess) {
    classify_failure(opt, cu, r, rep);
    return rep;
  }
  int count = 0;
  if (!cu.device_get_count) {
    rep.status = ProbeStatus::kError;
    rep.explanation = "the driver provides no cuDeviceGetCount";
    return rep;
  }
  if (CUresult rc = cu.device_get_count(&count)) {
    classify_failure(opt, cu, rc, rep);
    return rep;
  }
  if (count <= 0) {
    classify_failure(opt, cu, kCudaErrorNoDevice, rep);
    return rep;
  }
  if (count > kMaxDevices) {  // a broken or hostile library must not make the probe hang
    rep.warnings.push_back(
        fmt::format("cuDeviceGetCount reported {} GPUs; only the first {} are "
                    "probed",
                    count, kMaxDevices));
    count = kMaxDevices;
  }

  // Devices, joined with NVML by PCI bus id.
  std::vector<nvmlDevice_t> nvml_by_ordinal(static_cast<size_t>(count), nullptr);
  std::vector<nvmlDevice_t> nvml_by_index;
  if (nvml && nv.by_index && rep.nvml_device_count) {
    for (int i = 0; i < std::min(*rep.nvml_device_count, kMaxDevices); ++i) {
      nvmlDevice_t h = nullptr;
      nvml_by_index.push_back(nv.by_index(static_cast<unsigned>(i), &h) == kNvmlSuccess ? h
                                                                                        : nullptr);
    }
  }
  for (int i = 0; i < count; ++i) {
    ProbeDevice d;
    query_device(cu, i, d);
    if (nvml && nv.by_pci && !d.pci_bus_id.empty()) {
      nvmlDevice_t h = nullptr;
      nvmlReturn_t nr = nv.by_pci(d.pci_bus_id.c_str(), &h);
      if (nr == kNvmlSuccess && h) {
        nvml_by_ordinal[i] = h;
        for (size_t k = 0; k < nvml_by_index.size(); ++k)
          if (nvml_by_index[k] == h) d.nvml_index = static_cast<int>(k);
        int major = 0, minor = 0;
        if (nv.cc && nv.cc(h, &major, &minor) == kNvmlSuccess)
          d.nvml_cc = ComputeCapability{major, minor};
        query_pcie(nv, h, d);
      } else {
        d.warnings.push_back(
            fmt::format("NVML has no device at PCI bus id {}: {}", d.pci_bus_id, nv.error(nr)));
      }
    }
    if (!d.pci_bus_id.empty()) {  // from sysfs: no NVML needed
      NumaNodeReading numa = read_pci_numa_node(opt.sysfs_root, d.pci_bus_id);
      d.numa_node = numa.node;
      if (!numa.warning.empty()) d.warnings.push_back(std::move(numa.warning));
    }
    if (d.nvml_cc && *d.nvml_cc != d.cc) {
      d.masquerade = true;
      rep.warnings.push_back(fmt::format(
          "GPU {} ({}): CUDA reports compute capability {} but NVML reports {}: something (an "
          "LD_PRELOAD shim, a patched library or a wrapper) is masquerading the compute "
          "capability. The driver still loads code for the real architecture sm_{}.",
          i, d.name, d.cc.to_string(), d.nvml_cc->to_string(), d.nvml_cc->arch()));
    }
    add_catalog_facts(d);
    rep.devices.push_back(std::move(d));
  }

  // Topology.
  auto& t = rep.topology;
  size_t n = static_cast<size_t>(count);
  t.p2p_access.assign(n, std::vector<std::optional<bool>>(n));
  t.native_atomics.assign(n, std::vector<std::optional<bool>>(n));
  t.nvlink_links.assign(n, std::vector<std::optional<int>>(n));
  t.pcie_common_ancestor.assign(n, std::vector<std::optional<std::string>>(n));
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      if (i == j) continue;
      int v = 0;
      if (cu.can_access_peer && cu.can_access_peer(&v, i, j) == kCudaSuccess)
        t.p2p_access[i][j] = v != 0;
      if (cu.get_p2p_attribute &&
          cu.get_p2p_attribute(&v, kP2PNativeAtomicSupported, i, j) == kCudaSuccess)
        t.native_atomics[i][j] = v != 0;
      nvmlDevice_t a = nvml_by_ordinal[i], b = nvml_by_ordinal[j];
      int level = 0;
      if (a && b && nv.common_ancestor && nv.common_ancestor(a, b, &level) == kNvmlSuccess)
        if (const char* s = topology_name(level)) t.pcie_common_ancestor[i][j] = s;
    }
    // NVLink: walk every link of this GPU; a remote that is no probed GPU is a switch (or a GPU
    // hidden from CUDA).
    nvmlDevice_t h = nvml_by_ordinal[i];
    if (!h || !nv.nvlink_state) continue;
    for (unsigned link = 0; link < kNvmlNvLinkMaxLinks; ++link) {
      int active = 0;
      nvmlReturn_t nr = nv.nvlink_state(h, link, &active);
      if (nr != kNvmlSuccess) continue;  // INVALID_ARGUMENT / NOT_SUPPORTED: no such link
      if (!active) continue;
      ++rep.devices[i].nvlink_links;
      NvmlPciInfo remote{};
      bool matched = false;
      if (nv.nvlink_remote && nv.nvlink_remote(h, link, &remote) == kNvmlSuccess) {
        remote.busId[sizeof remote.busId - 1] = '\0';
        auto addr = parse_pci(remote.busId);
        for (int j = 0; addr && j < count; ++j) {
          if (j == i) continue;
          auto other = parse_pci(rep.devices[j].pci_bus_id.c_str());
          if (other && *other == *addr) {
            t.nvlink_links[i][j] = t.nvlink_links[i][j].value_or(0) + 1;
            matched = true;
          }
        }
      }
      if (!matched) ++rep.devices[i].nvlink_links_to_other;
    }
    for (int j = 0; j < count; ++j)  // NVML answered for this GPU: no link means 0, not unknown
      if (j != i && !t.nvlink_links[i][j]) t.nvlink_links[i][j] = 0;
  }

  if (rep.cuda_visible_devices && rep.nvml_device_count && *rep.nvml_device_count > count)
    rep.warnings.push_back(fmt::format(
        "CUDA_VISIBLE_DEVICES=\"{}\" hides {} of the {} GPUs NVML sees", *rep.cuda_visible_devices,
        *rep.nvml_device_count - count, *rep.nvml_device_count));
  rep.status = ProbeStatus::kOk;
  rep.explanation = fmt::format("{} GPU(s) visible to CUDA through {} (driver {}, CUDA {}).", count,
                                rep.libcuda_path, rep.driver_version.value_or("version unknown"),
                                rep.cuda_driver_version
                                    ? Version::from_cuda_int(*rep.cuda_driver_version).to_string()
                                    : std::string("unknown"));
  if (!nvml)
    rep.warnings.push_back(
        fmt::format("NVML unavailable ({}): no masquerade check, NVLink, PCIe link or "
                    "PCIe topology",
                    rep.nvml_error));
  return rep;
}

}  // namespace smcompat
