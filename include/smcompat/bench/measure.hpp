// The measurement loop of the native suites, after NVIDIA/nvbench: check (one untimed run whose
// failure becomes the caller's skip), warm-up, then samples until the Sampler (stats.hpp) stops.
// Each sample: optionally flush L2 (memset of a buffer of 2 x L2 allocated once per device, so
// that no sample reads what the previous one left in cache: nvbench #100); optionally hold the
// stream with a spin kernel polling a host-mapped flag (nvbandwidth's blocking kernel) so that
// the time to queue the work is not timed; start event, the work, stop event; release the
// flag; synchronize; elapsed time. NVML throttle reasons are read after every sample and a
// throttled sample is flagged to the Sampler. Device kernels come from the kernels part of the
// build (DeviceKernels); without a spin kernel the loop runs unblocked and says so.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "smcompat/bench/cuda_session.hpp"
#include "smcompat/bench/results.hpp"
#include "smcompat/bench/stats.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::bench {

/// One device kernel in an image embedded by the build (cubin, fatbin or NUL-terminated PTX).
/// The image must outlive the run.
struct KernelImage {
  std::span<const std::uint8_t> image;
  std::string function;  ///< the entry point (extern "C" name)
  unsigned block = 256;  ///< threads per block for the grid-stride kernels
  unsigned blocks_per_sm = 4;
};

/// The kernels the native suites can use, each optional. Parameter contracts (what the kernels
/// part must compile; all pointers are device addresses):
///  - spin:  (const volatile int* release_flag, unsigned long long timeout_ns), one thread;
///           returns when *release_flag != 0 or after timeout_ns (so a lost release cannot hang
///           the GPU).
///  - empty: () — does nothing (launch latency).
///  - copy:  (const void* src, void* dst, unsigned long long bytes), grid-stride; bytes is a
///           multiple of 16.
///  - triad: (float* a, const float* b, const float* c, float scalar, unsigned long long n),
///           a[i] = b[i] + scalar * c[i], grid-stride.
struct DeviceKernels {
  std::optional<KernelImage> spin;
  std::optional<KernelImage> empty;
  std::optional<KernelImage> copy;
  std::optional<KernelImage> triad;
};

/// Per-device resources the loop and the suites share: streams, events, the L2 flush buffer
/// (allocated on first use, once), the blocking kernel and its flag, and loaded kernels.
class DeviceContext {
 public:
  /// Makes the device current and creates its streams and events.
  static Result<std::unique_ptr<DeviceContext>> create(CudaSession& session, int ordinal,
                                                       std::string pci_bus_id, int l2_bytes,
                                                       const DeviceKernels& kernels);

  CudaSession& session() { return *session_; }
  int ordinal() const { return ordinal_; }
  const std::string& pci_bus_id() const { return pci_bus_id_; }
  int l2_bytes() const { return l2_bytes_; }
  const DeviceKernels& kernels() const { return kernels_; }
  /// Makes this device's primary context current to the calling thread.
  Result<void> activate() { return session_->use_device(ordinal_); }

  Stream stream() const { return stream_.get(); }
  /// A second stream, for work that runs concurrently (bidirectional copies).
  Stream aux_stream() const { return aux_stream_.get(); }
  /// Events for forking work to aux_stream() and joining it back (see fork_join()).
  Event fork_event() const { return fork_.get(); }
  Event join_event() const { return join_.get(); }

  /// The buffer memset before each cold sample: max(2 x L2, 32 MiB) bytes, allocated once.
  Result<std::pair<DevicePtr, std::size_t>> flush_buffer();
  /// A kernel of an embedded image, its module loaded once per image.
  Result<Function> kernel(const KernelImage& k);
  /// Whether the blocking kernel is usable here (image given and loaded); the reason if not.
  bool can_block(std::string* why = nullptr);
  /// Queues the spin kernel with the flag cleared; release_block() lets it finish.
  Result<void> hold_stream();
  void release_block();

 private:
  DeviceContext() = default;
  CudaSession* session_ = nullptr;
  int ordinal_ = 0;
  std::string pci_bus_id_;
  int l2_bytes_ = 0;
  DeviceKernels kernels_;
  Owned<Stream> stream_, aux_stream_;
  Owned<Event> fork_, join_;
  Owned<DevicePtr> flush_;
  std::size_t flush_bytes_ = 0;
  std::map<const std::uint8_t*, Owned<Module>> modules_;
  std::optional<bool> block_ok_;
  std::string block_why_;
  Function spin_ = nullptr;
  Owned<void*> flag_host_;
  DevicePtr flag_device_ = 0;
};

/// Runs `work` on `aux_stream()` concurrently with what follows on `stream()`: stream() records
/// the fork event, aux waits for it, `work(aux)`, aux records the join event, stream() waits.
/// Call inside an operation to time two streams as one.
Result<void> fork_join(DeviceContext& device, const std::function<Result<void>(Stream)>& work,
                       const std::function<Result<void>(Stream)>& main_work);

/// How to measure one configuration.
struct MeasureSpec {
  StopRule stop;
  bool flush_l2 = true;
  /// False for work that may block the host until the stream reaches it (pageable copies,
  /// copies staged through the host): holding the stream would then deadlock.
  bool allow_blocking = true;
  /// Operations the work queues per sample; the summary is per operation.
  unsigned iterations = 1;
  /// Called once as measure() starts (progress for people; may be empty).
  std::function<void()> on_start;
};

/// The work of one sample, queued on the given stream (the device's main stream).
using EnqueueFn = std::function<Result<void>(Stream)>;

struct Measurement {
  SampleSummary time;                        ///< seconds per operation
  bool blocked = false;                      ///< the spin kernel held the stream
  bool flushed = false;                      ///< L2 was flushed before each sample
  std::optional<DeviceState> before, after;  ///< NVML around the samples
  std::vector<std::string> notes;
};

/// Measures `work` on `device`. An Error when the check run or any sample fails (the message
/// names the call and its CUresult): the caller records it as a skip and goes on.
/// `nvml` may be null (NVML absent: no state, no throttle flags).
Result<Measurement> measure(DeviceContext& device, const MeasureSpec& spec, const EnqueueFn& work,
                            const NvmlReader* nvml);

}  // namespace smcompat::bench
