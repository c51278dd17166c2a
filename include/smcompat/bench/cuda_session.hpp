// The CUDA driver as the benchmarks use it: CudaSession dlopens libcuda.so.1 (no link-time CUDA
// dependency), resolves every entry point with an explicit ABI version through the probe's
// DriverLookup (cuGetProcAddress_v2, dlsym fallback), retains one primary context per device,
// and wraps memory, copies, memset, streams, events, module loading, launches, CUDA graphs and
// peer access. Every failure is an Error naming the call and its CUresult (cuGetErrorName); no
// call crashes or throws on a failing driver. NvmlReader reads the DeviceState of results.hpp
// (clocks, temperature, power, throttle reasons) from libnvidia-ml.so.1 when it is there.
// Calls act on the calling thread's current context (use_device()), as the driver API does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "smcompat/bench/results.hpp"
#include "smcompat/probe/nvml.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::bench {

using DevicePtr = std::uint64_t;  ///< CUdeviceptr
using Stream = void*;             ///< CUstream (nullptr: the legacy default stream)
using Event = void*;              ///< CUevent
using Module = void*;             ///< CUmodule
using Function = void*;           ///< CUfunction
using Graph = void*;              ///< CUgraph
using GraphExec = void*;          ///< CUgraphExec

/// A handle released by a function when it goes out of scope (errors on release are ignored:
/// nothing useful can be done with them at that point).
template <class Handle>
class Owned {
 public:
  Owned() = default;
  Owned(Handle handle, std::function<void(Handle)> release)
      : handle_(handle), release_(std::move(release)) {}
  Owned(Owned&& other) noexcept { *this = std::move(other); }
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
      release_ = std::exchange(other.release_, nullptr);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  void reset() {
    if (release_) release_(handle_);
    release_ = nullptr;
    handle_ = Handle{};
  }
  Handle get() const { return handle_; }
  explicit operator bool() const { return static_cast<bool>(release_); }

 private:
  Handle handle_{};
  std::function<void(Handle)> release_;
};

struct SessionOptions {
  /// Passed to dlopen as is (a bare name uses the normal search), like ProbeOptions::libcuda.
  std::string libcuda = "libcuda.so.1";
};

/// Grid and block of a launch.
struct LaunchDims {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1, block_y = 1, block_z = 1;
  unsigned shared_bytes = 0;
};

class CudaSession {
 public:
  /// Loads the driver and calls cuInit. Errors: the library cannot be loaded, lacks cuInit, or
  /// cuInit fails (the message names the CUresult, e.g. CUDA_ERROR_NO_DEVICE).
  static Result<std::unique_ptr<CudaSession>> open(const SessionOptions& options = {});
  ~CudaSession();
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  int device_count() const { return device_count_; }
  /// The CUDA version of the driver (cuDriverGetVersion), e.g. 13000.
  int driver_version() const { return driver_version_; }
  /// The library is smcompat's own fake driver (tests/fakedriver: it exports
  /// smcompat_fake_driver): its times come from a timing model, not from a GPU.
  bool is_fake_driver() const { return fake_driver_; }
  /// "CUDA_ERROR_OUT_OF_MEMORY" for 2, from the driver when it can name it.
  std::string error_name(int cuda_result) const;

  /// Retains `ordinal`'s primary context (once per session) and makes it current to the calling
  /// thread.
  Result<void> use_device(int ordinal);

  // Memory. Device allocations and pinned host memory belong to the current context.
  Result<DevicePtr> alloc_device(std::size_t bytes);
  Result<void> free_device(DevicePtr p);
  /// Page-locked host memory (cuMemHostAlloc); `mapped`: also mapped into the device's address
  /// space (mapped_device_pointer), as a flag a kernel polls needs.
  Result<void*> alloc_pinned(std::size_t bytes, bool mapped = false);
  Result<void> free_pinned(void* p);
  Result<DevicePtr> mapped_device_pointer(void* pinned);
  /// Owning forms of the allocations above.
  Result<Owned<DevicePtr>> device_buffer(std::size_t bytes);
  Result<Owned<void*>> pinned_buffer(std::size_t bytes, bool mapped = false);

  // Copies and memset, queued on `stream`.
  Result<void> copy_htod(DevicePtr dst, const void* src, std::size_t bytes, Stream stream);
  Result<void> copy_dtoh(void* dst, DevicePtr src, std::size_t bytes, Stream stream);
  Result<void> copy_dtod(DevicePtr dst, DevicePtr src, std::size_t bytes, Stream stream);
  /// cuMemcpyPeerAsync between the primary contexts of two devices (retained by use_device).
  Result<void> copy_peer(DevicePtr dst, int dst_device, DevicePtr src, int src_device,
                         std::size_t bytes, Stream stream);
  Result<void> memset(DevicePtr dst, unsigned char value, std::size_t bytes, Stream stream);

  // Streams and events.
  Result<Owned<Stream>> create_stream();
  Result<void> synchronize(Stream stream);
  Result<void> wait_event(Stream stream, Event event);
  Result<Owned<Event>> create_event();
  Result<void> record(Event event, Stream stream);
  Result<void> synchronize_event(Event event);
  /// cuEventElapsedTime between two completed events, in milliseconds.
  Result<float> elapsed_ms(Event start, Event stop);

  // Modules and launches.
  /// cuModuleLoadData: a cubin, fatbin or NUL-terminated PTX image in memory.
  Result<Owned<Module>> load_module(std::span<const std::uint8_t> image);
  Result<Function> function(Module module, const std::string& name);
  /// cuLaunchKernel with `params` as the kernel parameter array.
  Result<void> launch(Function fn, const LaunchDims& dims, Stream stream, void** params);

  // CUDA graphs (stream capture). has_graphs(): the driver exports the graph API.
  bool has_graphs() const;
  Result<void> begin_capture(Stream stream);
  Result<Owned<Graph>> end_capture(Stream stream);
  Result<Owned<GraphExec>> instantiate(Graph graph);
  Result<void> launch_graph(GraphExec exec, Stream stream);

  /// Lets the current context (`from`'s, made current here) access `to`'s memory. Already
  /// enabled is success. An Error (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED...) when it cannot be.
  Result<void> enable_peer_access(int from, int to);

  struct Api;  // the resolved entry points (cuda_session.cpp)

 private:
  CudaSession() = default;
  Result<void> check(int cuda_result, const std::string& call) const;
  std::unique_ptr<Api> api_;
  int device_count_ = 0;
  int driver_version_ = 0;
  bool fake_driver_ = false;
  std::vector<void*> contexts_;  // retained primary contexts by ordinal (nullptr: not yet)
};

/// NVML device state by PCI bus id ("0000:01:00.0" as the probe reports it).
class NvmlReader {
 public:
  /// nullptr when NVML cannot be loaded or initialised; `why` then says so.
  static std::unique_ptr<NvmlReader> open(const std::string& libnvml, std::string* why = nullptr);
  ~NvmlReader();
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  /// Clocks, temperature, power and active throttle reasons; nullopt when the device is unknown
  /// to NVML. Fields NVML cannot answer stay empty.
  std::optional<DeviceState> read(const std::string& pci_bus_id) const;
  /// Only the active throttle reason names (the per-sample check); nullopt if unknown.
  std::optional<std::vector<std::string>> throttle_reasons(const std::string& pci_bus_id) const;

 private:
  NvmlReader() = default;
  std::unique_ptr<driver::NvmlLibrary> nvml_;  // the probe's loader (probe/nvml.hpp)
};

/// The names of the throttle bits set in `mask` (idle, application-clock and display-clock bits
/// left out: they do not slow a benchmark down).
std::vector<std::string> throttle_reason_names(unsigned long long mask);

}  // namespace smcompat::bench
