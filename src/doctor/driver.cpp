// The doctor's driver facts: the kernel module (/proc/driver/nvidia/version, driver-api.md
// section 7). When the probe module is available it supplies the observed driver state instead.
#include "smcompat/doctor/doctor.hpp"

namespace smcompat::doctor {

DriverFacts collect_driver(const DoctorOptions& options) {
  return read_kernel_module(options.proc_root);
}

}  // namespace smcompat::doctor
