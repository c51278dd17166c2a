// Contract between the parts of the fake CUDA driver used by the tests (fake libcuda.so.1 and
// libnvidia-ml.so.1): the GPU set it serves and the current context. The device/context/NVML part
// (fake_cuda.cpp, fake_nvml.cpp) implements these; the module-loading part (fake_modules.cpp) uses
// them. The fake's cuGetProcAddress resolves any exported `cu*` function of the fake library by
// name (trying the versioned names a real driver would map to), so adding an exported function in
// any file makes it reachable through every lookup path.
#pragma once

#include <string>
#include <vector>

namespace smcompat::fake {

struct FakeGpu {
  std::string name;        ///< "NVIDIA GeForce RTX 5090"
  int cc_major = 0;
  int cc_minor = 0;
  std::string pci_bus_id;  ///< "00000000:01:00.0"
  std::string uuid;        ///< "GPU-..."
};

struct FakeState {
  int driver_cuda_version = 13000;  ///< what cuDriverGetVersion reports
  std::string driver_version;       ///< "580.95.05"
  std::vector<FakeGpu> gpus;
};

/// The configuration, read once from the environment (see tests/fakedriver/README.md).
const FakeState& state();
/// Ordinal of the device of the calling thread's current context, or -1 if none.
int current_device();

}  // namespace smcompat::fake
