// CudaSession and NvmlReader (include/smcompat/bench/cuda_session.hpp): the driver API entry
// points resolved once through DriverLookup with the ABI versions of cudaTypedefs.h (CUDA 13.0),
// each call checked and turned into an Error that names the call and its CUresult.
#include "smcompat/bench/cuda_session.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>

#include "smcompat/probe/driver_abi.hpp"
#include "smcompat/probe/driver_lookup.hpp"

namespace smcompat::bench {

using namespace driver;

struct CudaSession::Api : DriverCore {
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_retain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_v11000 primary_release = nullptr;
  PFN_cuCtxSetCurrent_v4000 set_current = nullptr;
  PFN_cuCtxEnablePeerAccess_v4000 enable_peer = nullptr;
  PFN_cuMemAlloc_v3020 mem_alloc = nullptr;
  PFN_cuMemFree_v3020 mem_free = nullptr;
  PFN_cuMemHostAlloc_v2020 host_alloc = nullptr;
  PFN_cuMemFreeHost_v2000 host_free = nullptr;
  PFN_cuMemHostGetDevicePointer_v3020 host_device_pointer = nullptr;
  PFN_cuMemcpyHtoDAsync_v3020 htod = nullptr;
  PFN_cuMemcpyDtoHAsync_v3020 dtoh = nullptr;
  PFN_cuMemcpyDtoDAsync_v3020 dtod = nullptr;
  PFN_cuMemcpyPeerAsync_v4000 peer = nullptr;
  PFN_cuMemsetD8Async_v3020 memset8 = nullptr;
  PFN_cuStreamCreate_v2000 stream_create = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
  PFN_cuStreamSynchronize_v2000 stream_sync = nullptr;
  PFN_cuStreamWaitEvent_v3020 stream_wait = nullptr;
  PFN_cuEventCreate_v2000 event_create = nullptr;
  PFN_cuEventDestroy_v4000 event_destroy = nullptr;
  PFN_cuEventRecord_v2000 event_record = nullptr;
  PFN_cuEventSynchronize_v2000 event_sync = nullptr;
  PFN_cuEventElapsedTime_v12080 event_elapsed = nullptr;
  PFN_cuModuleLoadData_v2000 module_load = nullptr;
  PFN_cuModuleUnload_v2000 module_unload = nullptr;
  PFN_cuModuleGetFunction_v2000 module_function = nullptr;
  PFN_cuLaunchKernel_v4000 launch = nullptr;
  PFN_cuStreamBeginCapture_v10010 begin_capture = nullptr;
  PFN_cuStreamEndCapture_v10000 end_capture = nullptr;
  PFN_cuGraphInstantiateWithFlags_v11040 graph_instantiate = nullptr;
  PFN_cuGraphLaunch_v10000 graph_launch = nullptr;
  PFN_cuGraphExecDestroy_v10000 graph_exec_destroy = nullptr;
  PFN_cuGraphDestroy_v10000 graph_destroy = nullptr;

  void load_all() {
    load_core();
    primary_retain = get<PFN_cuDevicePrimaryCtxRetain_v7000>("cuDevicePrimaryCtxRetain", 7000,
                                                             "cuDevicePrimaryCtxRetain");
    primary_release = get<PFN_cuDevicePrimaryCtxRelease_v11000>("cuDevicePrimaryCtxRelease", 11000,
                                                                "cuDevicePrimaryCtxRelease_v2");
    set_current = get<PFN_cuCtxSetCurrent_v4000>("cuCtxSetCurrent", 4000, "cuCtxSetCurrent");
    enable_peer = get<PFN_cuCtxEnablePeerAccess_v4000>("cuCtxEnablePeerAccess", 4000,
                                                       "cuCtxEnablePeerAccess");
    mem_alloc = get<PFN_cuMemAlloc_v3020>("cuMemAlloc", 3020, "cuMemAlloc_v2");
    mem_free = get<PFN_cuMemFree_v3020>("cuMemFree", 3020, "cuMemFree_v2");
    host_alloc = get<PFN_cuMemHostAlloc_v2020>("cuMemHostAlloc", 2020, "cuMemHostAlloc");
    host_free = get<PFN_cuMemFreeHost_v2000>("cuMemFreeHost", 2000, "cuMemFreeHost");
    host_device_pointer = get<PFN_cuMemHostGetDevicePointer_v3020>(
        "cuMemHostGetDevicePointer", 3020, "cuMemHostGetDevicePointer_v2");
    htod = get<PFN_cuMemcpyHtoDAsync_v3020>("cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2");
    dtoh = get<PFN_cuMemcpyDtoHAsync_v3020>("cuMemcpyDtoHAsync", 3020, "cuMemcpyDtoHAsync_v2");
    dtod = get<PFN_cuMemcpyDtoDAsync_v3020>("cuMemcpyDtoDAsync", 3020, "cuMemcpyDtoDAsync_v2");
    peer = get<PFN_cuMemcpyPeerAsync_v4000>("cuMemcpyPeerAsync", 4000, "cuMemcpyPeerAsync");
    memset8 = get<PFN_cuMemsetD8Async_v3020>("cuMemsetD8Async", 3020, "cuMemsetD8Async");
    stream_create = get<PFN_cuStreamCreate_v2000>("cuStreamCreate", 2000, "cuStreamCreate");
    stream_destroy = get<PFN_cuStreamDestroy_v4000>("cuStreamDestroy", 4000, "cuStreamDestroy_v2");
    stream_sync =
        get<PFN_cuStreamSynchronize_v2000>("cuStreamSynchronize", 2000, "cuStreamSynchronize");
    stream_wait = get<PFN_cuStreamWaitEvent_v3020>("cuStreamWaitEvent", 3020, "cuStreamWaitEvent");
    event_create = get<PFN_cuEventCreate_v2000>("cuEventCreate", 2000, "cuEventCreate");
    event_destroy = get<PFN_cuEventDestroy_v4000>("cuEventDestroy", 4000, "cuEventDestroy_v2");
    event_record = get<PFN_cuEventRecord_v2000>("cuEventRecord", 2000, "cuEventRecord");
    event_sync =
        get<PFN_cuEventSynchronize_v2000>("cuEventSynchronize", 2000, "cuEventSynchronize");
    event_elapsed =
        get<PFN_cuEventElapsedTime_v12080>("cuEventElapsedTime", 12080, "cuEventElapsedTime_v2");
    if (!event_elapsed)  // drivers before 12.8: the first ABI has the same signature
      event_elapsed =
          get<PFN_cuEventElapsedTime_v12080>("cuEventElapsedTime", 2000, "cuEventElapsedTime");
    module_load = get<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000, "cuModuleLoadData");
    module_unload = get<PFN_cuModuleUnload_v2000>("cuModuleUnload", 2000, "cuModuleUnload");
    module_function =
        get<PFN_cuModuleGetFunction_v2000>("cuModuleGetFunction", 2000, "cuModuleGetFunction");
    launch = get<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000, "cuLaunchKernel");
    begin_capture = get<PFN_cuStreamBeginCapture_v10010>("cuStreamBeginCapture", 10010,
                                                         "cuStreamBeginCapture_v2");
    end_capture =
        get<PFN_cuStreamEndCapture_v10000>("cuStreamEndCapture", 10000, "cuStreamEndCapture");
    graph_instantiate = get<PFN_cuGraphInstantiateWithFlags_v11040>(
        "cuGraphInstantiateWithFlags", 11040, "cuGraphInstantiateWithFlags");
    graph_launch = get<PFN_cuGraphLaunch_v10000>("cuGraphLaunch", 10000, "cuGraphLaunch");
    graph_exec_destroy =
        get<PFN_cuGraphExecDestroy_v10000>("cuGraphExecDestroy", 10000, "cuGraphExecDestroy");
    graph_destroy = get<PFN_cuGraphDestroy_v10000>("cuGraphDestroy", 10000, "cuGraphDestroy");
  }
};

namespace {

Error missing(const std::string& name) {
  return make_error(fmt::format("{} is not exported by this driver", name));
}

}  // namespace

// Calls `fn` if the driver has it, else an Error naming the missing entry point.
#define SMCOMPAT_CALL(member, name, ...) \
  (api_->member ? check(api_->member(__VA_ARGS__), name) : Result<void>(missing(name)))

Result<std::unique_ptr<CudaSession>> CudaSession::open(const SessionOptions& options) {
  if (options.libcuda.empty()) return make_error("no CUDA driver library named");
  std::unique_ptr<CudaSession> s(new CudaSession());
  s->api_ = std::make_unique<Api>();
  dlerror();
  s->api_->handle = dlopen(options.libcuda.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!s->api_->handle) {
    const char* e = dlerror();
    return make_error(fmt::format("the CUDA driver ({}) could not be loaded: {}", options.libcuda,
                                  e ? e : "unknown reason"));
  }
  s->api_->load_all();
  s->fake_driver_ = dlsym(s->api_->handle, "smcompat_fake_driver") != nullptr;
  if (!s->api_->init) return make_error(fmt::format("{} has no cuInit", options.libcuda));
  if (auto r = s->check(s->api_->init(0), "cuInit"); !r) return std::move(r).error();
  if (s->api_->driver_get_version) s->api_->driver_get_version(&s->driver_version_);
  int count = 0;
  if (!s->api_->device_get_count) return missing("cuDeviceGetCount");
  if (auto r = s->check(s->api_->device_get_count(&count), "cuDeviceGetCount"); !r)
    return std::move(r).error();
  s->device_count_ = count;
  s->contexts_.assign(static_cast<std::size_t>(count > 0 ? count : 0), nullptr);
  return s;
}

CudaSession::~CudaSession() {
  // The handle stays open: code of the driver may still run (its own threads) after this.
  if (!api_ || !api_->primary_release) return;
  for (std::size_t d = 0; d < contexts_.size(); ++d)
    if (contexts_[d]) api_->primary_release(static_cast<CUdevice>(d));
}

std::string CudaSession::error_name(int r) const {
  return cuda_error_text(api_ ? api_->get_error_name : nullptr, r);
}

Result<void> CudaSession::check(int r, const std::string& call) const {
  if (r == kCudaSuccess) return {};
  return make_error(fmt::format("{} failed: {}", call, error_name(r)));
}

Result<void> CudaSession::use_device(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count_)
    return make_error(
        fmt::format("no CUDA device {} (the driver shows {})", ordinal, device_count_));
  auto& ctx = contexts_[static_cast<std::size_t>(ordinal)];
  if (!ctx) {
    CUcontext c = nullptr;
    if (auto r = SMCOMPAT_CALL(primary_retain, "cuDevicePrimaryCtxRetain", &c, ordinal); !r)
      return r;
    ctx = c;
  }
  return SMCOMPAT_CALL(set_current, "cuCtxSetCurrent", static_cast<CUcontext>(ctx));
}

Result<DevicePtr> CudaSession::alloc_device(std::size_t bytes) {
  CUdeviceptr p = 0;
  if (auto r = SMCOMPAT_CALL(mem_alloc, "cuMemAlloc_v2", &p, bytes); !r)
    return std::move(r).error();
  return DevicePtr{p};
}
Result<void> CudaSession::free_device(DevicePtr p) {
  return SMCOMPAT_CALL(mem_free, "cuMemFree_v2", p);
}
Result<void*> CudaSession::alloc_pinned(std::size_t bytes, bool mapped) {
  void* p = nullptr;
  unsigned flags = kMemHostAllocPortable | (mapped ? kMemHostAllocDeviceMap : 0u);
  if (auto r = SMCOMPAT_CALL(host_alloc, "cuMemHostAlloc", &p, bytes, flags); !r)
    return std::move(r).error();
  return p;
}
Result<void> CudaSession::free_pinned(void* p) {
  return SMCOMPAT_CALL(host_free, "cuMemFreeHost", p);
}
Result<DevicePtr> CudaSession::mapped_device_pointer(void* pinned) {
  CUdeviceptr p = 0;
  if (auto r = SMCOMPAT_CALL(host_device_pointer, "cuMemHostGetDevicePointer_v2", &p, pinned, 0u);
      !r)
    return std::move(r).error();
  return DevicePtr{p};
}
Result<Owned<DevicePtr>> CudaSession::device_buffer(std::size_t bytes) {
  auto p = alloc_device(bytes);
  if (!p) return std::move(p).error();
  return Owned<DevicePtr>(*p, [this](DevicePtr q) { (void)free_device(q); });
}
Result<Owned<void*>> CudaSession::pinned_buffer(std::size_t bytes, bool mapped) {
  auto p = alloc_pinned(bytes, mapped);
  if (!p) return std::move(p).error();
  return Owned<void*>(*p, [this](void* q) { (void)free_pinned(q); });
}

Result<void> CudaSession::copy_htod(DevicePtr dst, const void* src, std::size_t bytes,
                                    Stream stream) {
  return SMCOMPAT_CALL(htod, "cuMemcpyHtoDAsync_v2", dst, src, bytes, stream);
}
Result<void> CudaSession::copy_dtoh(void* dst, DevicePtr src, std::size_t bytes, Stream stream) {
  return SMCOMPAT_CALL(dtoh, "cuMemcpyDtoHAsync_v2", dst, src, bytes, stream);
}
Result<void> CudaSession::copy_dtod(DevicePtr dst, DevicePtr src, std::size_t bytes,
                                    Stream stream) {
  return SMCOMPAT_CALL(dtod, "cuMemcpyDtoDAsync_v2", dst, src, bytes, stream);
}
Result<void> CudaSession::copy_peer(DevicePtr dst, int dst_device, DevicePtr src, int src_device,
                                    std::size_t bytes, Stream stream) {
  auto ctx = [&](int d) -> CUcontext {
    return d >= 0 && d < device_count_ ? static_cast<CUcontext>(contexts_[d]) : nullptr;
  };
  if (!ctx(dst_device) || !ctx(src_device))
    return make_error("cuMemcpyPeerAsync: both devices need use_device() first");
  return SMCOMPAT_CALL(peer, "cuMemcpyPeerAsync", dst, ctx(dst_device), src, ctx(src_device), bytes,
                       stream);
}
Result<void> CudaSession::memset(DevicePtr dst, unsigned char value, std::size_t bytes,
                                 Stream stream) {
  return SMCOMPAT_CALL(memset8, "cuMemsetD8Async", dst, value, bytes, stream);
}

Result<Owned<Stream>> CudaSession::create_stream() {
  CUstream s = nullptr;
  if (auto r = SMCOMPAT_CALL(stream_create, "cuStreamCreate", &s, kStreamNonBlocking); !r)
    return std::move(r).error();
  auto destroy = api_->stream_destroy;
  return Owned<Stream>(s, [destroy](Stream h) {
    if (destroy) destroy(h);
  });
}
Result<void> CudaSession::synchronize(Stream stream) {
  return SMCOMPAT_CALL(stream_sync, "cuStreamSynchronize", stream);
}
Result<void> CudaSession::wait_event(Stream stream, Event event) {
  return SMCOMPAT_CALL(stream_wait, "cuStreamWaitEvent", stream, event, 0u);
}
Result<Owned<Event>> CudaSession::create_event() {
  CUevent e = nullptr;
  if (auto r = SMCOMPAT_CALL(event_create, "cuEventCreate", &e, kEventDefault); !r)
    return std::move(r).error();
  auto destroy = api_->event_destroy;
  return Owned<Event>(e, [destroy](Event h) {
    if (destroy) destroy(h);
  });
}
Result<void> CudaSession::record(Event event, Stream stream) {
  return SMCOMPAT_CALL(event_record, "cuEventRecord", event, stream);
}
Result<void> CudaSession::synchronize_event(Event event) {
  return SMCOMPAT_CALL(event_sync, "cuEventSynchronize", event);
}
Result<float> CudaSession::elapsed_ms(Event start, Event stop) {
  float ms = 0;
  if (auto r = SMCOMPAT_CALL(event_elapsed, "cuEventElapsedTime", &ms, start, stop); !r)
    return std::move(r).error();
  return ms;
}

Result<Owned<Module>> CudaSession::load_module(std::span<const std::uint8_t> image) {
  if (image.empty()) return make_error("cuModuleLoadData: empty image");
  CUmodule m = nullptr;
  if (auto r = SMCOMPAT_CALL(module_load, "cuModuleLoadData", &m, image.data()); !r)
    return std::move(r).error();
  auto unload = api_->module_unload;
  return Owned<Module>(m, [unload](Module h) {
    if (unload) unload(h);
  });
}
Result<Function> CudaSession::function(Module module, const std::string& name) {
  CUfunction f = nullptr;
  if (auto r = SMCOMPAT_CALL(module_function, "cuModuleGetFunction(" + name + ")", &f, module,
                             name.c_str());
      !r)
    return std::move(r).error();
  return Function{f};
}
Result<void> CudaSession::launch(Function fn, const LaunchDims& d, Stream stream, void** params) {
  return SMCOMPAT_CALL(launch, "cuLaunchKernel", fn, d.grid_x, d.grid_y, d.grid_z, d.block_x,
                       d.block_y, d.block_z, d.shared_bytes, stream, params, nullptr);
}

bool CudaSession::has_graphs() const {
  return api_->begin_capture && api_->end_capture && api_->graph_instantiate && api_->graph_launch;
}
Result<void> CudaSession::begin_capture(Stream stream) {
  return SMCOMPAT_CALL(begin_capture, "cuStreamBeginCapture_v2", stream,
                       kStreamCaptureModeThreadLocal);
}
Result<Owned<Graph>> CudaSession::end_capture(Stream stream) {
  CUgraph g = nullptr;
  if (auto r = SMCOMPAT_CALL(end_capture, "cuStreamEndCapture", stream, &g); !r)
    return std::move(r).error();
  auto destroy = api_->graph_destroy;
  return Owned<Graph>(g, [destroy](Graph h) {
    if (destroy) destroy(h);
  });
}
Result<Owned<GraphExec>> CudaSession::instantiate(Graph graph) {
  CUgraphExec e = nullptr;
  if (auto r = SMCOMPAT_CALL(graph_instantiate, "cuGraphInstantiateWithFlags", &e, graph, 0ull); !r)
    return std::move(r).error();
  auto destroy = api_->graph_exec_destroy;
  return Owned<GraphExec>(e, [destroy](GraphExec h) {
    if (destroy) destroy(h);
  });
}
Result<void> CudaSession::launch_graph(GraphExec exec, Stream stream) {
  return SMCOMPAT_CALL(graph_launch, "cuGraphLaunch", exec, stream);
}

Result<void> CudaSession::enable_peer_access(int from, int to) {
  if (auto r = use_device(to); !r) return r;
  if (auto r = use_device(from); !r) return r;
  if (!api_->enable_peer) return missing("cuCtxEnablePeerAccess");
  int r = api_->enable_peer(static_cast<CUcontext>(contexts_[to]), 0);
  if (r == kCudaErrorPeerAccessAlreadyEnabled) return {};
  return check(r, fmt::format("cuCtxEnablePeerAccess({} -> {})", from, to));
}

#undef SMCOMPAT_CALL

// ---- NVML ---------------------------------------------------------------------------------------

std::vector<std::string> throttle_reason_names(unsigned long long mask) {
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNvmlClockEventReasons) {
    if (!(mask & bit)) continue;
    if (bit == 0x1ull || bit == 0x2ull || bit == 0x100ull) continue;  // idle, app/display clocks
    out.push_back(name);
  }
  return out;
}

std::unique_ptr<NvmlReader> NvmlReader::open(const std::string& libnvml, std::string* why) {
  if (libnvml.empty()) {
    if (why) *why = "NVML not requested";
    return nullptr;
  }
  auto library = NvmlLibrary::open(libnvml, why);
  if (!library) return nullptr;
  if (!library->fn().by_pci) {
    if (why) *why = fmt::format("{} has no nvmlDeviceGetHandleByPciBusId_v2", libnvml);
    return nullptr;
  }
  std::unique_ptr<NvmlReader> reader(new NvmlReader());
  reader->nvml_ = std::move(library);
  return reader;
}

NvmlReader::~NvmlReader() = default;

std::optional<DeviceState> NvmlReader::read(const std::string& pci_bus_id) const {
  const NvmlFunctions& api = nvml_->fn();
  nvmlDevice_t dev = nullptr;
  if (api.by_pci(pci_bus_id.c_str(), &dev) != kNvmlSuccess) return std::nullopt;
  DeviceState s;
  unsigned v = 0;
  if (api.clock && api.clock(dev, kNvmlClockSm, &v) == kNvmlSuccess)
    s.sm_clock_mhz = static_cast<int>(v);
  if (api.clock && api.clock(dev, kNvmlClockMem, &v) == kNvmlSuccess)
    s.memory_clock_mhz = static_cast<int>(v);
  if (api.temperature && api.temperature(dev, kNvmlTemperatureGpu, &v) == kNvmlSuccess)
    s.temperature_c = static_cast<int>(v);
  if (api.power && api.power(dev, &v) == kNvmlSuccess) s.power_w = v / 1000.0;
  unsigned long long mask = 0;
  if (api.clock_event_reasons && api.clock_event_reasons(dev, &mask) == kNvmlSuccess)
    s.throttle_reasons = throttle_reason_names(mask);
  return s;
}

std::optional<std::vector<std::string>> NvmlReader::throttle_reasons(
    const std::string& pci_bus_id) const {
  const NvmlFunctions& api = nvml_->fn();
  nvmlDevice_t dev = nullptr;
  unsigned long long mask = 0;
  if (!api.clock_event_reasons || api.by_pci(pci_bus_id.c_str(), &dev) != kNvmlSuccess ||
      api.clock_event_reasons(dev, &mask) != kNvmlSuccess)
    return std::nullopt;
  return throttle_reason_names(mask);
}

}  // namespace smcompat::bench
