// The measurement loop (include/smcompat/bench/measure.hpp): per-device resources and the
// nvbench-style sampling of one configuration. Relies on CudaSession for every driver call and
// on Sampler (stats.hpp) for when to stop.
#include "smcompat/bench/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>

namespace smcompat::bench {

namespace {

constexpr std::size_t kMinFlushBytes = 32u << 20;
// How long the spin kernel may hold a stream if the host never releases it (a lost release must
// not hang the GPU; a real sample takes far less).
constexpr unsigned long long kSpinTimeoutNs = 10'000'000'000ull;

}  // namespace

Result<std::unique_ptr<DeviceContext>> DeviceContext::create(CudaSession& session, int ordinal,
                                                             std::string pci_bus_id, int l2_bytes,
                                                             const DeviceKernels& kernels) {
  std::unique_ptr<DeviceContext> d(new DeviceContext());
  d->session_ = &session;
  d->ordinal_ = ordinal;
  d->pci_bus_id_ = std::move(pci_bus_id);
  d->l2_bytes_ = l2_bytes;
  d->kernels_ = kernels;
  SMCOMPAT_CHECK(session.use_device(ordinal));
  SMCOMPAT_TRY(d->stream_, session.create_stream());
  SMCOMPAT_TRY(d->aux_stream_, session.create_stream());
  SMCOMPAT_TRY(d->fork_, session.create_event());
  SMCOMPAT_TRY(d->join_, session.create_event());
  return d;
}

Result<std::pair<DevicePtr, std::size_t>> DeviceContext::flush_buffer() {
  if (!flush_) {
    std::size_t bytes =
        std::max<std::size_t>(2 * static_cast<std::size_t>(std::max(l2_bytes_, 0)), kMinFlushBytes);
    SMCOMPAT_CHECK(activate());
    SMCOMPAT_TRY(flush_, session_->device_buffer(bytes));
    flush_bytes_ = bytes;
  }
  return std::pair{flush_.get(), flush_bytes_};
}

Result<Function> DeviceContext::kernel(const KernelImage& k) {
  SMCOMPAT_CHECK(activate());
  auto it = modules_.find(k.image.data());
  if (it == modules_.end()) {
    SMCOMPAT_TRY(auto module, session_->load_module(k.image));
    it = modules_.emplace(k.image.data(), std::move(module)).first;
  }
  return session_->function(it->second.get(), k.function);
}

bool DeviceContext::can_block(std::string* why) {
  if (!block_ok_) {
    block_ok_ = false;
    if (!kernels_.spin) {
      block_why_ = "built without device kernels: no blocking kernel";
    } else if (auto fn = kernel(*kernels_.spin); !fn) {
      block_why_ = "blocking kernel unusable: " + fn.error().what;
    } else if (auto flag = session_->pinned_buffer(sizeof(int), /*mapped=*/true); !flag) {
      block_why_ = "blocking kernel flag: " + flag.error().what;
    } else if (auto dev = session_->mapped_device_pointer(flag->get()); !dev) {
      block_why_ = "blocking kernel flag: " + dev.error().what;
    } else {
      spin_ = *fn;
      flag_host_ = std::move(*flag);
      flag_device_ = *dev;
      block_ok_ = true;
    }
  }
  if (why) *why = block_why_;
  return *block_ok_;
}

Result<void> DeviceContext::hold_stream() {
  auto* flag = static_cast<std::atomic<int>*>(flag_host_.get());
  flag->store(0, std::memory_order_release);
  DevicePtr flag_arg = flag_device_;
  unsigned long long timeout = kSpinTimeoutNs;
  void* params[] = {&flag_arg, &timeout};
  return session_->launch(spin_, LaunchDims{}, stream(), params);
}

void DeviceContext::release_block() {
  if (flag_host_)
    static_cast<std::atomic<int>*>(flag_host_.get())->store(1, std::memory_order_release);
}

Result<void> fork_join(DeviceContext& device, const std::function<Result<void>(Stream)>& work,
                       const std::function<Result<void>(Stream)>& main_work) {
  CudaSession& s = device.session();
  SMCOMPAT_CHECK(s.record(device.fork_event(), device.stream()));
  SMCOMPAT_CHECK(s.wait_event(device.aux_stream(), device.fork_event()));
  SMCOMPAT_CHECK(work(device.aux_stream()));
  SMCOMPAT_CHECK(main_work(device.stream()));
  SMCOMPAT_CHECK(s.record(device.join_event(), device.aux_stream()));
  return s.wait_event(device.stream(), device.join_event());
}

Result<Measurement> measure(DeviceContext& device, const MeasureSpec& spec, const EnqueueFn& work,
                            const NvmlReader* nvml) {
  if (spec.on_start) spec.on_start();
  CudaSession& s = device.session();
  SMCOMPAT_CHECK(device.activate());
  Measurement m;
  if (nvml) m.before = nvml->read(device.pci_bus_id());

  // Check (and warm-up): one untimed run; its failure is the configuration's skip reason.
  SMCOMPAT_CHECK(work(device.stream()));
  SMCOMPAT_CHECK(s.synchronize(device.stream()));

  std::optional<std::pair<DevicePtr, std::size_t>> flush;
  if (spec.flush_l2) {
    SMCOMPAT_TRY(flush, device.flush_buffer());
    m.flushed = true;
  }
  std::string why_unblocked;
  m.blocked = spec.allow_blocking && device.can_block(&why_unblocked);
  if (!spec.allow_blocking)
    m.notes.push_back("not held by the blocking kernel: the operation may block the host");
  else if (!m.blocked)
    m.notes.push_back(why_unblocked);

  SMCOMPAT_TRY(auto start, s.create_event());
  SMCOMPAT_TRY(auto stop, s.create_event());
  const unsigned iterations = std::max(spec.iterations, 1u);
  // Samples are recorded per operation; the minimum measured time is of whole samples.
  StopRule rule = spec.stop;
  rule.min_time_s /= iterations;
  Sampler sampler(rule);
  const auto began = std::chrono::steady_clock::now();
  auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };
  for (unsigned long sample = 0;; ++sample) {
    if (flush)
      SMCOMPAT_CHECK(s.memset(flush->first, static_cast<unsigned char>(sample), flush->second,
                              device.stream()));
    if (m.blocked) SMCOMPAT_CHECK(device.hold_stream());
    // Whatever fails below, the spin kernel must be let go.
    Result<void> queued = s.record(start.get(), device.stream());
    if (queued) queued = work(device.stream());
    if (queued) queued = s.record(stop.get(), device.stream());
    device.release_block();
    SMCOMPAT_CHECK(queued);
    SMCOMPAT_CHECK(s.synchronize_event(stop.get()));
    SMCOMPAT_TRY(float ms, s.elapsed_ms(start.get(), stop.get()));
    bool throttled = false;
    if (nvml) {
      auto reasons = nvml->throttle_reasons(device.pci_bus_id());
      throttled = reasons && !reasons->empty();
    }
    sampler.add(static_cast<double>(ms) / 1e3 / iterations, throttled);
    if (sampler.done(wall())) break;
  }
  m.time = sampler.summary();
  m.time.stop = sampler.reason();
  if (nvml) m.after = nvml->read(device.pci_bus_id());
  if (m.before && m.after && m.before->sm_clock_mhz && m.after->sm_clock_mhz &&
      *m.before->sm_clock_mhz != *m.after->sm_clock_mhz)
    m.notes.push_back(fmt::format("SM clock moved from {} to {} MHz while sampling",
                                  *m.before->sm_clock_mhz, *m.after->sm_clock_mhz));
  if (m.time.throttled > 0)
    m.notes.push_back(fmt::format("{} of {} samples taken while the GPU reported throttling",
                                  m.time.throttled, sampler.count()));
  if (!m.time.converged())
    m.notes.push_back(fmt::format("stopped by {} before the noise target (rel. stddev {:.2f} %)",
                                  to_string(m.time.stop), 100 * m.time.rel_stddev));
  return m;
}

}  // namespace smcompat::bench
