// The probe's pure parts (include/smcompat/probe/probe.hpp): the names of its statuses, the
// kernel-module line of /proc/driver/nvidia/version, a GPU's NUMA node from sysfs, and the derived
// bandwidth formula. Nothing here touches the driver.
#include <array>
#include <charconv>
#include <cstdio>
#include <regex>
#include <string>
#include <utility>

#include "smcompat/probe/probe.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat {

namespace {

// Indexed by the enum's value; the order of the enum declarations.
constexpr std::array<const char*, 7> kStatusNames = {
    "ok", "no_driver", "stub_library", "no_device", "permission_denied", "devices_hidden", "error"};
constexpr std::array<const char*, 3> kModuleNames = {"unknown", "open", "proprietary"};

}  // namespace

const char* to_string(ProbeStatus status) {
  auto i = static_cast<size_t>(status);
  return i < kStatusNames.size() ? kStatusNames[i] : "error";
}

const char* to_string(KernelModule module) {
  auto i = static_cast<size_t>(module);
  return i < kModuleNames.size() ? kModuleNames[i] : "unknown";
}

ProcDriverInfo parse_proc_driver_version(std::string_view text) {
  ProcDriverInfo info;
  std::string_view line = text.substr(0, text.find('\n'));
  info.first_line = std::string(line);
  // Open modules: "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release
  // Build ..."; proprietary: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ...".
  if (line.find("NVRM version:") == std::string_view::npos) return info;
  if (line.find("Open Kernel Module") != std::string_view::npos) {
    info.module = KernelModule::kOpen;
  } else if (line.find("Kernel Module") != std::string_view::npos) {
    info.module = KernelModule::kProprietary;
  }
  static const std::regex kVersion(R"((^|\s)(\d{2,4}\.\d{1,3}(\.\d{1,3})?)(\s|$))");
  std::string s(line);
  std::smatch m;
  if (std::regex_search(s, m, kVersion)) info.version = m[2].str();
  return info;
}

NumaNodeReading read_pci_numa_node(const std::string& sysfs_root, std::string_view pci_bus_id) {
  NumaNodeReading out;
  // sysfs names PCI functions "%04x:%02x:%02x.%x" (lowercase hex, drivers/pci/probe.c); CUDA may
  // print the same address in upper case.
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  std::string id(pci_bus_id);
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) != 4)
    return out;
  char name[48];
  std::snprintf(name, sizeof name, "%04x:%02x:%02x.%x", domain, bus, device, function);
  std::string path = sysfs_root + "/bus/pci/devices/" + name + "/numa_node";
  auto text = read_file_prefix(path, 64);
  if (!text) return out;  // no such device here, or a kernel without NUMA support
  std::string_view v = *text;
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ' || v.back() == '\t'))
    v.remove_suffix(1);
  int node = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), node);
  if (ec == std::errc() && end == v.data() + v.size() && node >= -1) {
    if (node >= 0) out.node = node;  // -1: the kernel knows no affinity (one node, or a VM)
    return out;
  }
  std::string shown;
  for (char c : v.substr(0, 32)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
  out.warning = "NUMA node unknown: " + path + " holds \"" + shown + (v.size() > 32 ? "..." : "") +
                "\", not a node number";
  return out;
}

std::optional<double> theoretical_bandwidth_gbs(int memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return std::nullopt;
  return 2.0 * memory_clock_khz * 1000.0 * bus_width_bits / 8.0 / 1e9;
}

}  // namespace smcompat
