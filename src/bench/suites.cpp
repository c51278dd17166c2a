// The native suites and run_native_suites() (include/smcompat/bench/suites.hpp). Relies on the
// probe for devices and topology, CudaSession for the driver, measure() for the method and
// peaks.hpp for the catalog figures results are compared with.
#include "smcompat/bench/suites.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <new>

#include "smcompat/bench/peaks.hpp"

namespace smcompat::bench {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;
// Work per sample for small copies: enough iterations that one sample moves about this much, so
// that event resolution and launch overhead stay small against what is timed.
constexpr std::uint64_t kBytesPerSample = 64 * kMiB;
constexpr unsigned kMaxIterations = 256;
constexpr unsigned kLaunchesPerSample = 100;
constexpr std::uint64_t kP2PSize = 256 * kMiB;
constexpr std::uint64_t kP2PQuickSize = 64 * kMiB;

unsigned iterations_for(std::uint64_t bytes) {
  if (bytes == 0) return 1;
  return static_cast<unsigned>(
      std::clamp<std::uint64_t>(kBytesPerSample / bytes, 1, kMaxIterations));
}

std::string gpu_tag(int ordinal) { return fmt::format("gpu{}", ordinal); }

BenchResult base_result(const char* suite, std::string name, std::vector<int> devices) {
  BenchResult r;
  r.suite = suite;
  r.name = std::move(name);
  r.origin = Origin::kNative;
  r.devices = std::move(devices);
  return r;
}

BenchResult skipped(BenchResult r, std::string reason) {
  r.skip_reason = std::move(reason);
  return r;
}

// Fills time, state, method params and notes from a measurement (not the value).
void fill_measured(BenchResult& r, const Measurement& m) {
  r.time = m.time;
  r.state = m.after ? m.after : m.before;
  r.params["blocking_kernel"] = m.blocked ? "true" : "false";
  r.params["l2_flush"] = m.flushed ? "true" : "false";
  for (const auto& n : m.notes) r.notes.push_back(n);
}

void set_bandwidth(BenchResult& r, const Measurement& m, double bytes_per_op) {
  fill_measured(r, m);
  r.value = gbps(bytes_per_op, m.time.median_s);
  r.unit = "GB/s";
  r.extra["bytes_per_op"] = bytes_per_op;
}

void set_peak(BenchResult& r, const std::optional<Peak>& peak) {
  if (!peak) return;
  r.peak = peak->value;
  r.peak_source = peak->source;
}

// Runs one configuration: measure `work`, or record why it could not be.
BenchResult measured_or_skipped(BenchResult r, DeviceContext& device, const MeasureSpec& spec,
                                const EnqueueFn& work, const NvmlReader* nvml,
                                double bytes_per_op) {
  auto m = measure(device, spec, work, nvml);
  if (!m) return skipped(std::move(r), m.error().what);
  set_bandwidth(r, *m, bytes_per_op);
  return r;
}

LaunchDims grid_for(const KernelImage& k, const ProbeDevice* pd) {
  LaunchDims d;
  int sms = pd && pd->sms > 0 ? pd->sms : 1;
  d.grid_x = static_cast<unsigned>(sms) * std::max(k.blocks_per_sm, 1u);
  d.block_x = std::max(k.block, 1u);
  return d;
}

constexpr const char* kNoKernels = "built without device kernels";

// ---- memory -------------------------------------------------------------------------------------

void memory_for_device(SuiteContext& ctx, DeviceContext& dev, std::vector<BenchResult>& out) {
  const int d = dev.ordinal();
  const ProbeDevice* pd = ctx.probe_device(d);
  const GpuSpec* gpu = ctx.catalog_gpu(d);
  std::optional<Peak> dram = gpu ? peak_bandwidth(*gpu) : std::nullopt;
  std::vector<std::uint64_t> sizes = ctx.options.sizes.empty()
                                         ? memory_sizes(dev.l2_bytes(), ctx.options.quick)
                                         : ctx.options.sizes;
  CudaSession& s = ctx.session;
  for (std::uint64_t size : sizes) {
    const std::string label = size_label(size);
    auto make = [&](const char* op, const char* engine) {
      BenchResult r = base_result("memory", fmt::format("{} {} {}", op, label, gpu_tag(d)), {d});
      r.params["op"] = op;
      r.params["engine"] = engine;
      r.params["bytes"] = std::to_string(size);
      r.extra["bytes"] = static_cast<double>(size);
      return r;
    };
    std::vector<BenchResult> rows;
    rows.push_back(make("dtod", "copy_engine"));
    rows.push_back(make("htod_pinned", "copy_engine"));
    rows.push_back(make("dtoh_pinned", "copy_engine"));
    rows.push_back(make("htod_pageable", "copy_engine"));
    rows.push_back(make("dtoh_pageable", "copy_engine"));
    rows.push_back(make("sm_copy", "sm"));
    rows.push_back(make("sm_triad", "sm"));

    // Source and destination on the device; a failure here skips every row of this size.
    if (pd && pd->total_memory &&
        2 * size + 2 * static_cast<std::uint64_t>(dev.l2_bytes()) > pd->total_memory) {
      for (auto& r : rows)
        out.push_back(skipped(std::move(r), fmt::format("needs 2 x {} on a GPU with {}", label,
                                                        size_label(pd->total_memory))));
      continue;
    }
    Result<void> active = dev.activate();
    auto src = active ? s.device_buffer(size) : Result<Owned<DevicePtr>>(active.error());
    auto dst = src ? s.device_buffer(size) : Result<Owned<DevicePtr>>(src.error());
    if (!dst) {
      for (auto& r : rows) out.push_back(skipped(std::move(r), dst.error().what));
      continue;
    }
    const DevicePtr a = src->get(), b = dst->get();
    MeasureSpec spec = ctx.spec();
    spec.iterations = iterations_for(size);
    spec.flush_l2 = ctx.options.l2_flush;
    auto repeat = [n = spec.iterations](auto one) {
      return [n, one](Stream st) -> Result<void> {
        for (unsigned i = 0; i < n; ++i) SMCOMPAT_CHECK(one(st));
        return {};
      };
    };

    // Copy engine, device to device: bytes read + written.
    {
      BenchResult& r = rows[0];
      r = measured_or_skipped(std::move(r), dev, spec,
                              repeat([&](Stream st) { return s.copy_dtod(b, a, size, st); }),
                              ctx.nvml, 2.0 * static_cast<double>(size));
      set_peak(r, dram);
      r.notes.push_back(
          "GB/s counts bytes read plus bytes written (2 x size), the convention of nvbandwidth "
          "and STREAM copy");
    }
    // Host <-> device, pinned.
    {
      auto host = s.pinned_buffer(size);
      for (int i : {1, 2}) {
        BenchResult& r = rows[i];
        if (!host) {
          r = skipped(std::move(r), host.error().what);
          continue;
        }
        void* h = host->get();
        EnqueueFn one = i == 1
                            ? EnqueueFn([&, h](Stream st) { return s.copy_htod(a, h, size, st); })
                            : EnqueueFn([&, h](Stream st) { return s.copy_dtoh(h, a, size, st); });
        r = measured_or_skipped(std::move(r), dev, spec, repeat(one), ctx.nvml,
                                static_cast<double>(size));
        r.notes.push_back("the catalog has no PCIe figure: no % of peak");
      }
    }
    // Host <-> device, pageable: the driver stages through its own pinned buffer and may block
    // the host, so the stream is not held.
    {
      std::unique_ptr<std::uint8_t[]> pageable(new (std::nothrow) std::uint8_t[size]);
      MeasureSpec unblocked = spec;
      unblocked.allow_blocking = false;
      for (int i : {3, 4}) {
        BenchResult& r = rows[i];
        if (!pageable) {
          r = skipped(std::move(r), fmt::format("cannot allocate {} of host memory", label));
          continue;
        }
        void* h = pageable.get();
        EnqueueFn one = i == 3
                            ? EnqueueFn([&, h](Stream st) { return s.copy_htod(a, h, size, st); })
                            : EnqueueFn([&, h](Stream st) { return s.copy_dtoh(h, a, size, st); });
        r = measured_or_skipped(std::move(r), dev, unblocked, repeat(one), ctx.nvml,
                                static_cast<double>(size));
        r.notes.push_back("the catalog has no PCIe figure: no % of peak");
      }
    }
    // SM kernels.
    {
      BenchResult& r = rows[5];
      const auto& k = dev.kernels().copy;
      if (!k) {
        r = skipped(std::move(r), kNoKernels);
      } else if (auto fn = dev.kernel(*k); !fn) {
        r = skipped(std::move(r), fn.error().what);
      } else {
        LaunchDims dims = grid_for(*k, pd);
        Function f = *fn;
        std::uint64_t bytes = size / 16 * 16;
        r = measured_or_skipped(std::move(r), dev, spec, repeat([&, f, dims, bytes](Stream st) {
                                  DevicePtr in = a, outp = b;
                                  unsigned long long n = bytes;
                                  void* params[] = {&in, &outp, &n};
                                  return s.launch(f, dims, st, params);
                                }),
                                ctx.nvml, 2.0 * static_cast<double>(bytes));
        set_peak(r, dram);
        r.notes.push_back("GB/s counts bytes read plus bytes written (2 x size)");
      }
    }
    {
      BenchResult& r = rows[6];
      const auto& k = dev.kernels().triad;
      if (!k) {
        r = skipped(std::move(r), kNoKernels);
      } else if (auto fn = dev.kernel(*k); !fn) {
        r = skipped(std::move(r), fn.error().what);
      } else if (auto c = s.device_buffer(size); !c) {
        r = skipped(std::move(r), c.error().what);
      } else {
        LaunchDims dims = grid_for(*k, pd);
        Function f = *fn;
        DevicePtr cp = c->get();
        unsigned long long n = size / sizeof(float);
        r = measured_or_skipped(std::move(r), dev, spec, repeat([&, f, dims, cp, n](Stream st) {
                                  DevicePtr pa = b, pb = a, pc = cp;
                                  float scalar = 3.0f;
                                  unsigned long long count = n;
                                  void* params[] = {&pa, &pb, &pc, &scalar, &count};
                                  return s.launch(f, dims, st, params);
                                }),
                                ctx.nvml, 3.0 * static_cast<double>(n * sizeof(float)));
        set_peak(r, dram);
        r.notes.push_back("a = b + s * c over floats: GB/s counts 3 arrays of size bytes");
      }
    }
    for (auto& r : rows) out.push_back(std::move(r));
  }
}

// ---- launch -------------------------------------------------------------------------------------

void launch_for_device(SuiteContext& ctx, DeviceContext& dev, std::vector<BenchResult>& out) {
  const int d = dev.ordinal();
  CudaSession& s = ctx.session;
  BenchResult kernel_row = base_result("launch", fmt::format("kernel launch {}", gpu_tag(d)), {d});
  kernel_row.params["kind"] = "kernel";
  BenchResult graph_row = base_result("launch", fmt::format("graph launch {}", gpu_tag(d)), {d});
  graph_row.params["kind"] = "graph";
  const auto& k = dev.kernels().empty;
  if (!k) {
    out.push_back(skipped(std::move(kernel_row), kNoKernels));
    out.push_back(skipped(std::move(graph_row), kNoKernels));
    return;
  }
  auto fn = dev.kernel(*k);
  if (!fn) {
    out.push_back(skipped(std::move(kernel_row), fn.error().what));
    out.push_back(skipped(std::move(graph_row), fn.error().what));
    return;
  }
  Function f = *fn;
  LaunchDims one_thread;
  MeasureSpec spec = ctx.spec();
  spec.flush_l2 = false;
  spec.iterations = kLaunchesPerSample;
  auto as_latency = [](BenchResult& r, const Measurement& m) {
    fill_measured(r, m);
    r.value = m.time.median_s * 1e6;
    r.unit = "us";
  };

  auto km = measure(
      dev, spec,
      [&](Stream st) -> Result<void> {
        for (unsigned i = 0; i < kLaunchesPerSample; ++i)
          SMCOMPAT_CHECK(s.launch(f, one_thread, st, nullptr));
        return {};
      },
      ctx.nvml);
  if (km) {
    as_latency(kernel_row, *km);
    kernel_row.notes.push_back(
        fmt::format("GPU time per launch of an empty kernel, {} launches back to back per sample",
                    kLaunchesPerSample));
    out.push_back(std::move(kernel_row));
  } else {
    out.push_back(skipped(std::move(kernel_row), km.error().what));
  }

  if (!s.has_graphs()) {
    out.push_back(skipped(std::move(graph_row), "the driver has no CUDA graph API"));
    return;
  }
  // A graph of one empty kernel, captured on the device's stream.
  auto exec = [&]() -> Result<Owned<GraphExec>> {
    SMCOMPAT_CHECK(dev.activate());
    SMCOMPAT_CHECK(s.begin_capture(dev.stream()));
    Result<void> launched = s.launch(f, one_thread, dev.stream(), nullptr);
    auto graph = s.end_capture(dev.stream());  // always end the capture
    SMCOMPAT_CHECK(launched);
    if (!graph) return std::move(graph).error();
    return s.instantiate(graph->get());
  }();
  if (!exec) {
    out.push_back(skipped(std::move(graph_row), exec.error().what));
    return;
  }
  GraphExec e = exec->get();
  auto gm = measure(
      dev, spec,
      [&](Stream st) -> Result<void> {
        for (unsigned i = 0; i < kLaunchesPerSample; ++i) SMCOMPAT_CHECK(s.launch_graph(e, st));
        return {};
      },
      ctx.nvml);
  if (gm) {
    as_latency(graph_row, *gm);
    graph_row.notes.push_back(fmt::format(
        "GPU time per launch of a one-kernel CUDA graph, {} launches back to back per sample",
        kLaunchesPerSample));
    out.push_back(std::move(graph_row));
  } else {
    out.push_back(skipped(std::move(graph_row), gm.error().what));
  }
}

// ---- p2p ----------------------------------------------------------------------------------------

template <class T>
std::optional<T> cell(const std::vector<std::vector<std::optional<T>>>& m, int a, int b) {
  if (a < 0 || b < 0 || a >= static_cast<int>(m.size()) || b >= static_cast<int>(m[a].size()))
    return std::nullopt;
  return m[a][b];
}

void p2p_pair(SuiteContext& ctx, DeviceContext& src, DeviceContext& dst, std::uint64_t size,
              std::vector<BenchResult>& out) {
  CudaSession& s = ctx.session;
  const int a = src.ordinal(), b = dst.ordinal();
  const auto& topo = ctx.probe.topology;
  const bool access = cell(topo.p2p_access, a, b).value_or(false);
  const int links = cell(topo.nvlink_links, a, b).value_or(0);
  const std::string label = size_label(size);

  // Direct access both ways (the bidirectional copy needs the reverse too).
  std::string path = "staged through host";
  std::string why_staged = access ? "" : "the driver reports no peer access for this pair";
  if (access) {
    auto there = s.enable_peer_access(a, b);
    auto back = there ? s.enable_peer_access(b, a) : there;
    if (there && back)
      path = links > 0 ? "nvlink" : "pcie";
    else
      why_staged = "peer access could not be enabled: " + (there ? back : there).error().what;
  }
  const bool direct = path != "staged through host";
  std::optional<Peak> peak;
  if (path == "nvlink") {
    const GpuSpec* ga = ctx.catalog_gpu(a);
    const GpuSpec* gb = ctx.catalog_gpu(b);
    auto pa = ga ? peak_nvlink_unidirectional(*ga) : std::nullopt;
    auto pb = gb ? peak_nvlink_unidirectional(*gb) : std::nullopt;
    peak = pa && pb ? (pa->value <= pb->value ? pa : pb) : std::nullopt;
  }

  auto make = [&](const char* direction, const char* engine) {
    BenchResult r = base_result(
        "p2p", fmt::format("{} {} {} gpu{}->gpu{}", engine, direction, label, a, b), {a, b});
    r.params["src"] = std::to_string(a);
    r.params["dst"] = std::to_string(b);
    r.params["direction"] = direction;
    r.params["engine"] = engine;
    r.params["bytes"] = std::to_string(size);
    r.params["p2p_access"] = access ? "true" : "false";
    r.params["nvlink_links"] = std::to_string(links);
    r.params["path"] = path;
    r.extra["bytes"] = static_cast<double>(size);
    if (!why_staged.empty()) r.notes.push_back(why_staged);
    return r;
  };

  // Buffers: forward a -> b, and reverse b -> a for the bidirectional copy.
  auto alloc_on = [&](DeviceContext& dev) -> Result<Owned<DevicePtr>> {
    SMCOMPAT_CHECK(dev.activate());
    return s.device_buffer(size);
  };
  auto fa = alloc_on(src);
  auto fb = fa ? alloc_on(dst) : Result<Owned<DevicePtr>>(fa.error());
  auto rb = fb ? alloc_on(dst) : Result<Owned<DevicePtr>>(fb.error());
  auto ra = rb ? alloc_on(src) : Result<Owned<DevicePtr>>(rb.error());
  std::vector<BenchResult> rows;
  rows.push_back(make("unidirectional", "copy_engine"));
  rows.push_back(make("bidirectional", "copy_engine"));
  if (!ra) {
    for (auto& r : rows) out.push_back(skipped(std::move(r), ra.error().what));
    return;
  }
  const DevicePtr src_a = fa->get(), dst_b = fb->get(), src_b = rb->get(), dst_a = ra->get();
  MeasureSpec spec = ctx.spec();
  spec.flush_l2 = false;  // as nvbandwidth: copies between GPUs are not cache-bound
  spec.allow_blocking = direct;
  spec.iterations = iterations_for(size);
  const unsigned n = spec.iterations;
  auto forward = [&, n](Stream st) -> Result<void> {
    for (unsigned i = 0; i < n; ++i) SMCOMPAT_CHECK(s.copy_peer(dst_b, b, src_a, a, size, st));
    return {};
  };
  auto reverse = [&, n](Stream st) -> Result<void> {
    for (unsigned i = 0; i < n; ++i) SMCOMPAT_CHECK(s.copy_peer(dst_a, a, src_b, b, size, st));
    return {};
  };
  rows[0] = measured_or_skipped(std::move(rows[0]), src, spec, forward, ctx.nvml,
                                static_cast<double>(size));
  set_peak(rows[0], peak);
  rows[1] = measured_or_skipped(
      std::move(rows[1]), src, spec, [&](Stream) { return fork_join(src, reverse, forward); },
      ctx.nvml, 2.0 * static_cast<double>(size));
  if (peak) set_peak(rows[1], Peak{2 * peak->value, peak->key, peak->source + ", both directions"});
  rows[1].notes.push_back("two streams copying in opposite directions; GB/s counts both");

  // SM copy: a kernel on the source GPU writing into the peer's memory (needs direct access).
  if (const auto& k = src.kernels().copy) {
    BenchResult r = make("unidirectional", "sm");
    if (!direct) {
      r = skipped(std::move(r), "an SM copy needs peer access: " + why_staged);
    } else if (auto fn = src.kernel(*k); !fn) {
      r = skipped(std::move(r), fn.error().what);
    } else {
      Function f = *fn;
      LaunchDims dims = grid_for(*k, ctx.probe_device(a));
      std::uint64_t bytes = size / 16 * 16;
      r = measured_or_skipped(
          std::move(r), src, spec,
          [&, f, dims, bytes, n](Stream st) -> Result<void> {
            for (unsigned i = 0; i < n; ++i) {
              DevicePtr in = src_a, outp = dst_b;
              unsigned long long count = bytes;
              void* params[] = {&in, &outp, &count};
              SMCOMPAT_CHECK(s.launch(f, dims, st, params));
            }
            return {};
          },
          ctx.nvml, static_cast<double>(bytes));
      set_peak(r, peak);
    }
    rows.push_back(std::move(r));
  }
  for (auto& r : rows) out.push_back(std::move(r));
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", tm);
}

}  // namespace

// ---- public -------------------------------------------------------------------------------------

const ProbeDevice* SuiteContext::probe_device(int ordinal) const {
  for (const auto& d : probe.devices)
    if (d.ordinal == ordinal) return &d;
  return nullptr;
}

const GpuSpec* SuiteContext::catalog_gpu(int ordinal) const {
  const ProbeDevice* d = probe_device(ordinal);
  if (!d || !d->catalog_gpu) return nullptr;
  return Catalog::builtin().find_gpu(*d->catalog_gpu);
}

MeasureSpec SuiteContext::spec() const {
  MeasureSpec m;
  m.stop = stop;
  m.flush_l2 = options.l2_flush;
  if (options.progress) m.on_start = [this] { options.progress(suite, ++started); };
  return m;
}

std::vector<std::uint64_t> memory_sizes(int l2_bytes, bool quick) {
  // The largest power of two with source and destination in L2 together.
  std::uint64_t first = kMiB;
  while (first * 4 <= static_cast<std::uint64_t>(std::max(l2_bytes, 0))) first *= 2;
  std::vector<std::uint64_t> sizes;
  if (quick) {
    sizes = {first, 64 * kMiB, kGiB};
  } else {
    for (std::uint64_t s = first; s <= 4 * kGiB; s *= 2) sizes.push_back(s);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string size_label(std::uint64_t bytes) {
  if (bytes >= kGiB && bytes % kGiB == 0) return fmt::format("{} GiB", bytes / kGiB);
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{} B", bytes);
}

std::vector<BenchResult> run_memory_suite(SuiteContext& context) {
  std::vector<BenchResult> out;
  for (DeviceContext* d : context.devices) memory_for_device(context, *d, out);
  return out;
}

std::vector<BenchResult> run_launch_suite(SuiteContext& context) {
  std::vector<BenchResult> out;
  for (DeviceContext* d : context.devices) launch_for_device(context, *d, out);
  return out;
}

std::vector<BenchResult> run_p2p_suite(SuiteContext& context) {
  std::vector<BenchResult> out;
  if (context.devices.size() < 2) {
    context.warnings.push_back("p2p: one GPU selected, so there is no pair to measure");
    return out;
  }
  std::vector<std::uint64_t> sizes = context.options.sizes;
  if (sizes.empty()) sizes = {context.options.quick ? kP2PQuickSize : kP2PSize};
  for (std::uint64_t size : sizes)
    for (DeviceContext* a : context.devices)
      for (DeviceContext* b : context.devices)
        if (a != b) p2p_pair(context, *a, *b, size, out);
  return out;
}

Result<BenchRun> run_native_suites(const NativeOptions& options) {
  // Suites first: a typo should not cost a probe.
  static const char* const kNative[] = {"memory", "launch", "p2p"};
  auto is_native = [](const std::string& n) {
    return std::find(std::begin(kNative), std::end(kNative), n) != std::end(kNative);
  };
  std::vector<std::string> suites = options.suites;
  if (suites.empty()) {
    suites.assign(std::begin(kNative), std::end(kNative));
    for (const auto& [name, fn] : options.extra_suites) suites.push_back(name);
  }
  for (const auto& name : suites) {
    if (!is_native(name) && !options.extra_suites.count(name)) {
      std::string known = "memory, launch, p2p";
      for (const auto& [extra, fn] : options.extra_suites) known += ", " + extra;
      return make_error(
          fmt::format("unknown benchmark suite \"{}\" (this build has: {})", name, known));
    }
  }

  ProbeOptions po;
  po.libcuda = options.libcuda;
  po.libnvml = options.libnvml;
  po.use_nvml = !options.libnvml.empty();
  SMCOMPAT_TRY(ProbeReport probe, probe_system(po));
  if (probe.status != ProbeStatus::kOk)
    return make_error(
        fmt::format("no usable GPU/driver: {} ({})", probe.explanation, to_string(probe.status)));
  SessionOptions so;
  so.libcuda = options.libcuda;
  auto session = CudaSession::open(so);
  if (!session) return make_error("no usable GPU/driver: " + session.error().what);

  BenchRun run;
  run.started_utc = utc_now();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) run.host = host;
  run.driver_version = probe.driver_version;
  run.cuda_driver_version = probe.cuda_driver_version;
  run.method.stop = options.stop.value_or(options.quick ? StopRule::quick() : StopRule{});
  run.method.l2_flush = options.l2_flush;
  run.method.quick = options.quick;
  run.warnings = probe.warnings;

  std::string nvml_why;
  std::unique_ptr<NvmlReader> nvml;
  if (!options.libnvml.empty()) nvml = NvmlReader::open(options.libnvml, &nvml_why);
  if (!nvml)
    run.warnings.push_back("NVML unavailable (" + nvml_why +
                           "): no clocks, temperature, power or throttle flags recorded");
  std::vector<int> ordinals = options.devices;
  if (ordinals.empty())
    for (const auto& d : probe.devices) ordinals.push_back(d.ordinal);

  DeviceKernels kernels = options.kernels;
  if (!kernels.spin && options.kernel_provider) {
    std::vector<ComputeCapability> ccs;
    for (const auto& d : probe.devices)
      if (std::find(ordinals.begin(), ordinals.end(), d.ordinal) != ordinals.end())
        ccs.push_back(d.true_cc());
    std::optional<Version> driver_cuda;
    if (probe.cuda_driver_version) driver_cuda = Version::from_cuda_int(*probe.cuda_driver_version);
    if (auto provided = options.kernel_provider(ccs, driver_cuda))
      kernels = std::move(*provided);
    else
      run.warnings.push_back("device kernels: " + provided.error().what);
  }
  run.method.blocking_kernel = kernels.spin.has_value();
  if (!kernels.spin)
    run.warnings.push_back(
        "no device kernels: streams were not held by a blocking kernel, SM copy, triad and "
        "launch rows are skipped");
  std::vector<std::unique_ptr<DeviceContext>> contexts;
  for (int ordinal : ordinals) {
    const ProbeDevice* pd = nullptr;
    for (const auto& d : probe.devices)
      if (d.ordinal == ordinal) pd = &d;
    if (!pd)
      return make_error(
          fmt::format("no GPU {} (this machine has {})", ordinal, probe.devices.size()));
    if (std::any_of(contexts.begin(), contexts.end(),
                    [&](const auto& c) { return c->ordinal() == ordinal; }))
      continue;
    auto ctx = DeviceContext::create(**session, ordinal, pd->pci_bus_id, pd->l2_bytes, kernels);
    if (!ctx) return make_error(fmt::format("GPU {}: {}", ordinal, ctx.error().what));
    BenchDevice bd;
    bd.ordinal = ordinal;
    bd.name = pd->name;
    bd.uuid = pd->uuid;
    bd.cc = pd->true_cc().to_string();
    bd.catalog_gpu = pd->catalog_gpu;
    if (nvml) bd.state_at_start = nvml->read(pd->pci_bus_id);
    run.devices.push_back(std::move(bd));
    contexts.push_back(std::move(*ctx));
  }

  SuiteContext ctx{**session, nvml.get(), probe, options, run.method.stop, {}, {}, {}, {}, 0};
  for (auto& c : contexts) ctx.devices.push_back(c.get());
  for (const auto& name : suites) {
    std::vector<BenchResult> results;
    ctx.suite = name;
    ctx.started = 0;
    if (options.progress) options.progress(name, 0);
    if (name == "memory")
      results = run_memory_suite(ctx);
    else if (name == "launch")
      results = run_launch_suite(ctx);
    else if (name == "p2p")
      results = run_p2p_suite(ctx);
    else
      results = options.extra_suites.at(name)(ctx);
    for (auto& r : results) run.results.push_back(std::move(r));
  }
  for (auto& w : ctx.warnings) run.warnings.push_back(std::move(w));
  for (auto& [name, version] : ctx.libraries) run.libraries[name] = version;
  if ((*session)->is_fake_driver()) {
    // Never let a figure of the timing model pass for a measurement.
    for (auto& r : run.results) r.origin = Origin::kSynthetic;
    run.warnings.insert(run.warnings.begin(),
                        "the driver is smcompat's fake libcuda (tests/fakedriver): every figure "
                        "comes from its timing model, not from a GPU (origin synthetic)");
  }
  contexts.clear();  // before the session that owns their handles
  return run;
}

}  // namespace smcompat::bench
