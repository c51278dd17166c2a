// Memory, copies, streams, events, launches, graphs and peer access for the fake libcuda.so.1,
// with a deterministic timing model so that benchmark tests can assert exact figures (README.md,
// "Timing model"). Every stream has a clock (microseconds on one timeline shared by all devices);
// work starts at max(the stream's clock, the host's "now") and moves the clock by its modelled
// duration; an event takes the clock of the stream it is recorded on; synchronizing moves the
// host's "now" forward. Device memory is address space only (nothing is allocated), tracked so
// that bad pointers, double frees and out-of-range copies fail as a driver would; pinned host
// memory is real (mmap without reservation). Relies on fake_state.hpp for the GPU set, the
// current context and the configuration. Thread-safe: one mutex guards the registry.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fake_state.hpp"
#include "smcompat/probe/driver_abi.hpp"

using namespace smcompat::driver;
using smcompat::fake::state;

namespace {

struct FakeStream {
  int device = 0;
  double ready_us = 0;  // when the last queued work finishes
  bool capturing = false;
  int captured_kernels = 0;
};
struct FakeEvent {
  bool recorded = false;
  double at_us = 0;
};
struct FakeGraph {
  int device = 0;
  int kernels = 0;
};
struct DeviceAllocation {
  int device = 0;
  std::size_t size = 0;
};

constexpr std::uint64_t kDeviceBase = 1ull << 48;  // never dereferenced: outside user space
constexpr std::uint64_t kDeviceSpan = 1ull << 40;  // address space per device
constexpr std::size_t kAlignment = 512;

struct Registry {
  std::mutex mu;
  double host_now_us = 0;
  std::set<FakeStream*> streams;
  std::map<int, std::unique_ptr<FakeStream>> null_streams;  // the legacy stream, per device
  std::set<FakeEvent*> events;
  std::set<FakeGraph*> graphs, execs;
  std::map<CUdeviceptr, DeviceAllocation> device_memory;
  std::map<int, std::uint64_t> next_address, used_bytes;
  std::map<std::uintptr_t, std::size_t> host_memory;  // pinned (cuMemHostAlloc)
  std::set<std::pair<int, int>> peer_access;          // (from, to) enabled
};
Registry& registry() {
  static Registry r;
  return r;
}

CUresult check_ready() {
  if (state().gpus.empty()) return kCudaErrorNotInitialized;
  return smcompat::fake::current_device() < 0 ? kCudaErrorInvalidContext : kCudaSuccess;
}

// The stream behind a handle (NULL: the current device's legacy stream), or nullptr. Lock held.
FakeStream* stream_of(Registry& r, CUstream h) {
  if (!h) {
    int d = smcompat::fake::current_device();
    if (d < 0) return nullptr;
    auto& s = r.null_streams[d];
    if (!s) {
      s = std::make_unique<FakeStream>();
      s->device = d;
    }
    return s.get();
  }
  auto* s = static_cast<FakeStream*>(h);
  return r.streams.count(s) ? s : nullptr;
}

// Queues `duration_us` of work on a stream. Lock held.
void enqueue(Registry& r, FakeStream& s, double duration_us) {
  s.ready_us = std::max(s.ready_us, r.host_now_us) + duration_us;
}

// The allocation holding [p, p + bytes), or nullptr. Lock held.
const DeviceAllocation* device_range(Registry& r, CUdeviceptr p, std::size_t bytes) {
  auto it = r.device_memory.upper_bound(p);
  if (it == r.device_memory.begin()) return nullptr;
  --it;
  if (p - it->first > it->second.size || bytes > it->second.size - (p - it->first)) return nullptr;
  return &it->second;
}

bool is_pinned(Registry& r, const void* host, std::size_t bytes) {
  auto p = reinterpret_cast<std::uintptr_t>(host);
  auto it = r.host_memory.upper_bound(p);
  if (it == r.host_memory.begin()) return false;
  --it;
  return p - it->first <= it->second && bytes <= it->second - (p - it->first);
}

// Microseconds to move `bytes` at `gbs` GB/s (10^9 bytes per second).
double transfer_us(double bytes, double gbs) { return gbs > 0 ? bytes / (gbs * 1e3) : 0; }

const smcompat::fake::FakeGpu* gpu_of(int device) {
  const auto& gpus = state().gpus;
  return device >= 0 && device < static_cast<int>(gpus.size()) ? &gpus[device] : nullptr;
}

// Runs `body` on the registry, under its lock, once the entry point `name` has passed its
// injected failure (none when nullptr) and the driver is ready: the way every entry point starts.
template <class Body>
CUresult locked(const char* name, Body&& body) {
  if (name)
    if (int f = smcompat::fake::injected_failure(name)) return f;
  if (CUresult r = check_ready()) return r;
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return body(r);
}

// The stream behind `h` for work that cannot be captured (copies, memsets, event records), in
// `s`, or the error to return. Lock held.
CUresult work_stream(Registry& r, CUstream h, FakeStream*& s) {
  s = stream_of(r, h);
  if (!s) return kCudaErrorInvalidHandle;
  return s->capturing ? kCudaErrorStreamCaptureUnsupported : kCudaSuccess;
}

// Tracks the new handle `p` in `set` and hands it out through `out`. Lock held.
template <class T>
CUresult hand_out(std::set<T*>& set, T* p, void** out) {
  set.insert(p);
  *out = p;
  return kCudaSuccess;
}

// Forgets and frees the handle `h` of the registry's `set`; an unknown or null one is invalid.
template <class T>
CUresult destroy_handle(std::set<T*> Registry::*set, void* h) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    auto* p = static_cast<T*>(h);
    if (!h || !(r.*set).erase(p)) return kCudaErrorInvalidHandle;
    delete p;
    return kCudaSuccess;
  });
}

// A host<->device copy of `bytes`, pinned or pageable, onto `stream`.
CUresult host_copy(CUdeviceptr dev, const void* host, std::size_t bytes, CUstream stream,
                   const char* name) {
  return locked(name, [&](Registry& r) -> CUresult {
    if (!host || bytes == 0) return bytes == 0 ? kCudaSuccess : kCudaErrorInvalidValue;
    FakeStream* s = nullptr;
    if (CUresult e = work_stream(r, stream, s)) return e;
    if (!device_range(r, dev, bytes)) return kCudaErrorInvalidValue;
    const auto& st = state();
    enqueue(r, *s,
            transfer_us(static_cast<double>(bytes),
                        is_pinned(r, host, bytes) ? st.pcie_gbs : st.pageable_gbs));
    return kCudaSuccess;
  });
}

}  // namespace

namespace smcompat::fake {

int injected_failure(const char* entry_point) {
  for (const auto& [name, code] : state().failing_calls)
    if (name == entry_point) return code;
  return 0;
}

int launch_on_stream(void* stream) {
  return locked("cuLaunchKernel", [&](Registry& r) -> CUresult {
    FakeStream* s = stream_of(r, stream);
    if (!s) return kCudaErrorInvalidHandle;
    if (s->capturing)
      ++s->captured_kernels;
    else
      enqueue(r, *s, state().kernel_us);
    return kCudaSuccess;
  });
}

}  // namespace smcompat::fake

extern "C" {

// ---- memory ----
CUresult cuMemAlloc_v2(CUdeviceptr* out, std::size_t bytes) {
  if (int f = smcompat::fake::injected_failure("cuMemAlloc_v2")) return f;
  if (CUresult r = check_ready()) return r;
  if (!out || bytes == 0) return kCudaErrorInvalidValue;
  int d = smcompat::fake::current_device();
  const auto& st = state();
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if ((st.max_alloc && bytes > st.max_alloc) || rounded > gpu_of(d)->total_mem - r.used_bytes[d])
    return kCudaErrorOutOfMemory;
  std::uint64_t& next = r.next_address[d];
  if (next == 0) next = kDeviceBase + kDeviceSpan * static_cast<std::uint64_t>(d);
  if (next + rounded > kDeviceBase + kDeviceSpan * (static_cast<std::uint64_t>(d) + 1))
    return kCudaErrorOutOfMemory;  // address space used up (addresses are never reused)
  *out = next;
  r.device_memory[next] = DeviceAllocation{d, rounded};
  r.used_bytes[d] += rounded;
  next += rounded;
  return kCudaSuccess;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  return locked("cuMemFree_v2", [&](Registry& r) -> CUresult {
    auto it = r.device_memory.find(p);
    if (it == r.device_memory.end()) return kCudaErrorInvalidValue;  // unknown or freed twice
    r.used_bytes[it->second.device] -= it->second.size;
    r.device_memory.erase(it);
    return kCudaSuccess;
  });
}

CUresult cuMemHostAlloc(void** out, std::size_t bytes, unsigned flags) {
  if (int f = smcompat::fake::injected_failure("cuMemHostAlloc")) return f;
  if (CUresult r = check_ready()) return r;
  if (!out || bytes == 0 || (flags & ~0x7u)) return kCudaErrorInvalidValue;
  // Real memory (a flag the host writes lives here), reserved lazily so GiBs cost nothing.
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return kCudaErrorOutOfMemory;
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.host_memory[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  *out = p;
  return kCudaSuccess;
}

CUresult cuMemFreeHost(void* p) {
  if (CUresult r = check_ready()) return r;
  auto& r = registry();
  std::size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.host_memory.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == r.host_memory.end()) return kCudaErrorInvalidValue;
    bytes = it->second;
    r.host_memory.erase(it);
  }
  munmap(p, bytes);
  return kCudaSuccess;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* out, void* host, unsigned flags) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    if (!out || flags != 0 || !is_pinned(r, host, 1)) return kCudaErrorInvalidValue;
    *out = reinterpret_cast<CUdeviceptr>(host);  // unified addressing: the same address
    return kCudaSuccess;
  });
}

// ---- copies and memset ----
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream s) {
  return host_copy(dst, src, bytes, s, "cuMemcpyHtoDAsync_v2");
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, std::size_t bytes, CUstream s) {
  return host_copy(src, dst, bytes, s, "cuMemcpyDtoHAsync_v2");
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                              CUstream stream) {
  return locked("cuMemcpyDtoDAsync_v2", [&](Registry& r) -> CUresult {
    FakeStream* s = nullptr;
    if (CUresult e = work_stream(r, stream, s)) return e;
    const DeviceAllocation* a = device_range(r, src, bytes);
    const DeviceAllocation* b = device_range(r, dst, bytes);
    if (!a || !b) return kCudaErrorInvalidValue;
    // Read once and written once: 2 x bytes through DRAM.
    enqueue(r, *s, transfer_us(2.0 * static_cast<double>(bytes), gpu_of(b->device)->bandwidth_gbs));
    return kCudaSuccess;
  });
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                           std::size_t bytes, CUstream stream) {
  if (int f = smcompat::fake::injected_failure("cuMemcpyPeerAsync")) return f;
  if (CUresult r = check_ready()) return r;
  int dd = smcompat::fake::context_device(dst_ctx), sd = smcompat::fake::context_device(src_ctx);
  if (dd < 0 || sd < 0) return kCudaErrorInvalidContext;
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  FakeStream* s = nullptr;
  if (CUresult e = work_stream(r, stream, s)) return e;
  const DeviceAllocation* a = device_range(r, src, bytes);
  const DeviceAllocation* b = device_range(r, dst, bytes);
  if (!a || !b || a->device != sd || b->device != dd) return kCudaErrorInvalidValue;
  const auto& st = state();
  double b_ = static_cast<double>(bytes), us = 0;
  if (sd == dd) {
    us = transfer_us(2.0 * b_, gpu_of(sd)->bandwidth_gbs);
  } else if (r.peer_access.count({sd, dd}) || r.peer_access.count({dd, sd})) {
    // Direct: NVLink at the catalog's per-direction figure, else PCIe. Links are full duplex,
    // so copies in opposite directions on two streams do not slow each other.
    bool nvlink = smcompat::fake::nvlink_links(st, gpu_of(sd)->physical_index,
                                               gpu_of(dd)->physical_index) > 0;
    double nv = std::min(gpu_of(sd)->nvlink_gbs, gpu_of(dd)->nvlink_gbs) / 2;
    us = transfer_us(b_, nvlink && nv > 0 ? nv : st.pcie_gbs);
  } else {
    us = 2 * transfer_us(b_, st.pcie_gbs);  // staged through host memory: down, then up
  }
  enqueue(r, *s, us);
  return kCudaSuccess;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t bytes, CUstream stream) {
  return locked("cuMemsetD8Async", [&](Registry& r) -> CUresult {
    FakeStream* s = nullptr;
    if (CUresult e = work_stream(r, stream, s)) return e;
    const DeviceAllocation* a = device_range(r, dst, bytes);
    if (!a) return kCudaErrorInvalidValue;
    enqueue(r, *s, transfer_us(static_cast<double>(bytes), gpu_of(a->device)->bandwidth_gbs));
    return kCudaSuccess;
  });
}

// ---- peers ----
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags) {
  if (int f = smcompat::fake::injected_failure("cuCtxEnablePeerAccess")) return f;
  if (CUresult r = check_ready()) return r;
  if (flags != 0) return kCudaErrorInvalidValue;
  int from = smcompat::fake::current_device(), to = smcompat::fake::context_device(peer);
  if (to < 0) return kCudaErrorInvalidContext;
  if (!state().p2p || from == to) return kCudaErrorPeerAccessUnsupported;
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.peer_access.insert({from, to}).second) return kCudaErrorPeerAccessAlreadyEnabled;
  return kCudaSuccess;
}

// ---- streams ----
CUresult cuStreamCreate(CUstream* out, unsigned flags) {
  return locked("cuStreamCreate", [&](Registry& r) -> CUresult {
    if (!out || (flags & ~kStreamNonBlocking)) return kCudaErrorInvalidValue;
    auto* s = new FakeStream();
    s->device = smcompat::fake::current_device();
    s->ready_us = r.host_now_us;
    return hand_out(r.streams, s, out);
  });
}

CUresult cuStreamDestroy_v2(CUstream h) { return destroy_handle(&Registry::streams, h); }

CUresult cuStreamSynchronize(CUstream h) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    FakeStream* s = stream_of(r, h);
    if (!s) return kCudaErrorInvalidHandle;
    r.host_now_us = std::max(r.host_now_us, s->ready_us);
    return kCudaSuccess;
  });
}

CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned flags) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    FakeStream* s = stream_of(r, h);
    auto* ev = static_cast<FakeEvent*>(e);
    if (!s || !r.events.count(ev)) return kCudaErrorInvalidHandle;
    if (ev->recorded) s->ready_us = std::max(s->ready_us, ev->at_us);
    return kCudaSuccess;
  });
}

// ---- events ----
CUresult cuEventCreate(CUevent* out, unsigned flags) {
  return locked("cuEventCreate", [&](Registry& r) -> CUresult {
    if (!out) return kCudaErrorInvalidValue;
    return hand_out(r.events, new FakeEvent(), out);
  });
}

CUresult cuEventDestroy_v2(CUevent e) { return destroy_handle(&Registry::events, e); }

CUresult cuEventRecord(CUevent e, CUstream h) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    FakeStream* s = stream_of(r, h);
    auto* ev = static_cast<FakeEvent*>(e);
    if (!s || !r.events.count(ev)) return kCudaErrorInvalidHandle;
    if (s->capturing) return kCudaErrorStreamCaptureUnsupported;
    ev->recorded = true;
    ev->at_us = std::max(s->ready_us, r.host_now_us);
    return kCudaSuccess;
  });
}

CUresult cuEventSynchronize(CUevent e) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    auto* ev = static_cast<FakeEvent*>(e);
    if (!r.events.count(ev)) return kCudaErrorInvalidHandle;
    if (ev->recorded) r.host_now_us = std::max(r.host_now_us, ev->at_us);
    return kCudaSuccess;
  });
}

CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent stop) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    if (!ms) return kCudaErrorInvalidValue;
    auto* a = static_cast<FakeEvent*>(start);
    auto* b = static_cast<FakeEvent*>(stop);
    if (!r.events.count(a) || !r.events.count(b)) return kCudaErrorInvalidHandle;
    if (!a->recorded || !b->recorded) return kCudaErrorInvalidHandle;
    if (a->at_us > r.host_now_us || b->at_us > r.host_now_us) return kCudaErrorNotReady;
    *ms = static_cast<float>((b->at_us - a->at_us) / 1000.0);
    return kCudaSuccess;
  });
}
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent stop) {
  return cuEventElapsedTime_v2(ms, start, stop);  // same ABI; internal call, not via lookup
}

// ---- graphs: capture counts kernel launches; a launch costs one kernel time per node ----
CUresult cuStreamBeginCapture_v2(CUstream h, int mode) {
  return locked("cuStreamBeginCapture_v2", [&](Registry& r) -> CUresult {
    if (mode < 0 || mode > 2) return kCudaErrorInvalidValue;
    if (!h) return kCudaErrorStreamCaptureUnsupported;  // the legacy stream cannot be captured
    FakeStream* s = stream_of(r, h);
    if (!s) return kCudaErrorInvalidHandle;
    if (s->capturing) return kCudaErrorInvalidValue;
    s->capturing = true;
    s->captured_kernels = 0;
    return kCudaSuccess;
  });
}

CUresult cuStreamEndCapture(CUstream h, CUgraph* out) {
  return locked(nullptr, [&](Registry& r) -> CUresult {
    if (!out) return kCudaErrorInvalidValue;
    FakeStream* s = stream_of(r, h);
    if (!s) return kCudaErrorInvalidHandle;
    if (!s->capturing) return kCudaErrorInvalidValue;
    s->capturing = false;
    return hand_out(r.graphs, new FakeGraph{s->device, s->captured_kernels}, out);
  });
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* out, CUgraph graph, unsigned long long flags) {
  return locked("cuGraphInstantiateWithFlags", [&](Registry& r) -> CUresult {
    if (!out) return kCudaErrorInvalidValue;
    auto* g = static_cast<FakeGraph*>(graph);
    if (!r.graphs.count(g)) return kCudaErrorInvalidHandle;
    return hand_out(r.execs, new FakeGraph(*g), out);
  });
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream h) {
  return locked("cuGraphLaunch", [&](Registry& r) -> CUresult {
    auto* e = static_cast<FakeGraph*>(exec);
    FakeStream* s = stream_of(r, h);
    if (!s || !r.execs.count(e)) return kCudaErrorInvalidHandle;
    enqueue(r, *s, state().kernel_us * e->kernels);
    return kCudaSuccess;
  });
}

CUresult cuGraphExecDestroy(CUgraphExec exec) { return destroy_handle(&Registry::execs, exec); }

CUresult cuGraphDestroy(CUgraph graph) { return destroy_handle(&Registry::graphs, graph); }

}  // extern "C"
