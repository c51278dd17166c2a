// The doctor's driver facts come from the probe (probe/probe.hpp): it dlopens libcuda.so.1 and
// libnvidia-ml.so.1, tells apart no driver / stub / no device / permission / hidden, and reads
// the kernel module flavour from /proc/driver/nvidia/version (driver-api.md sections 7-8).
#include <fmt/format.h>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/probe/probe.hpp"

namespace smcompat::doctor {

DriverFacts driver_facts_from_probe(const ProbeReport& p) {
  DriverFacts d;
  d.detail = p.explanation;
  switch (p.status) {
    case ProbeStatus::kOk:
      d.state = DriverFacts::State::kOk;
      break;
    case ProbeStatus::kNoDriver:
      d.state = DriverFacts::State::kNoDriver;
      break;
    case ProbeStatus::kStubLibrary:
      d.state = DriverFacts::State::kStub;
      break;
    case ProbeStatus::kNoDevice:
    case ProbeStatus::kDevicesHidden:
      d.state = DriverFacts::State::kNoDevice;
      break;
    case ProbeStatus::kPermissionDenied:
    case ProbeStatus::kError:
      d.state = DriverFacts::State::kError;
      break;
  }
  d.observed = p.status == ProbeStatus::kOk || p.status == ProbeStatus::kNoDevice ||
               p.status == ProbeStatus::kDevicesHidden || p.status == ProbeStatus::kStubLibrary;
  if (p.driver_version) d.version = DriverVersion::parse(*p.driver_version);
  if (p.cuda_driver_version) d.cuda = Version::from_cuda_int(*p.cuda_driver_version);
  if (p.kernel_module != KernelModule::kUnknown)
    d.kernel_module_flavour = to_string(p.kernel_module);
  d.kernel_module_line = p.kernel_module_line;
  for (auto& dev : p.devices) {
    ComputeCapability cc = dev.true_cc();
    std::string name = dev.name;
    if (name.rfind("NVIDIA ", 0) == 0) name = name.substr(7);
    d.gpus.push_back({name, cc, dev.pci_bus_id});
  }
  auto& p2p = p.topology.p2p_access;
  for (size_t i = 0; i < p2p.size(); ++i) {
    for (size_t j = i + 1; j < p2p[i].size(); ++j) {
      if (p2p[i][j].has_value() && !*p2p[i][j])
        d.pairs_without_p2p.emplace_back(static_cast<int>(i), static_cast<int>(j));
    }
  }
  for (auto& row : p.topology.nvlink_links)
    for (auto& links : row)
      if (links) d.nvlink_links += *links;
  d.nvlink_links /= 2;  // each pair is counted from both ends
  return d;
}

DriverFacts collect_driver(const DoctorOptions& options) {
  ProbeOptions po;
  po.proc_version_path = options.proc_root + "/driver/nvidia/version";
  auto p = probe_system(po);
  if (!p) {
    DriverFacts d;
    d.state = DriverFacts::State::kError;
    d.detail = p.error().to_string();
    return d;
  }
  return driver_facts_from_probe(*p);
}

}  // namespace smcompat::doctor
