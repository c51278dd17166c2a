// The jit suite on a GPU (jit.hpp's run_jit_suite): every variant of jit_variants() loaded by
// itself with cuModuleLoadData (the first load's wall time is the JIT cost for PTX; a second
// load shows the driver's cache), then the compute-bound mma kernels and the memory-bound triad
// measured through the runner's loop (measure.hpp). Skips keep the rule or the CUresult that
// stopped them. Also the kernel choice for the other suites (embedded_device_kernels).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "smcompat/bench/jit.hpp"
#include "smcompat/bench/peaks.hpp"

namespace smcompat::bench {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
// mma launch: 4 warps per block, 4 blocks per SM, iterations sized so that one launch takes
// about a millisecond at datasheet tensor rates (one m16n8k16 per SM per clock).
constexpr unsigned kMmaThreads = 128;
constexpr unsigned kMmaBlocksPerSm = 4;
constexpr int kMmaIters = 16384;
constexpr unsigned kTriadThreads = 256;
constexpr unsigned kTriadBlocksPerSm = 4;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

BenchResult base(const JitVariant& v, int ordinal, const std::string& kernel) {
  BenchResult r = jit_skip_result(v, ordinal);
  r.skip_reason.clear();
  r.name = fmt::format("jit {} {} gpu{}", kernel, v.label, ordinal);
  r.params["kernel"] = kernel;
  if (!v.fit.reason.empty()) r.notes.push_back(v.fit.reason);
  return r;
}

}  // namespace

Result<DeviceKernels> embedded_device_kernels(std::span<const ComputeCapability> devices,
                                              std::optional<Version> driver_cuda) {
  if (kernel_images().empty()) {
    return make_error(fmt::format("no bench kernels embedded: {}", kernel_images_absent_reason()));
  }
  // The image every device can load with the best worst-case fit (one image serves the run).
  const EmbeddedImage* best = nullptr;
  int best_rank = 0;
  std::string why;
  for (const auto& image : kernel_images()) {
    int worst = 0;
    for (const auto& cc : devices) {
      const auto fit = fit_image(image.target, cc, image.ptx_isa, driver_cuda);
      if (rank(fit.fit) > worst) {
        worst = rank(fit.fit);
        if (worst > rank(Fit::kPtxJit)) why = fit.reason;
      }
    }
    if (!best || worst <= best_rank) {
      best = &image;
      best_rank = worst;
    }
  }
  if (!best || best_rank > rank(Fit::kPtxJit)) {
    return make_error(fmt::format("no embedded bench kernel image runs on every GPU: {}", why));
  }
  const auto k = [&](const char* fn, unsigned block) {
    return KernelImage{best->bytes, fn, block, 4};
  };
  DeviceKernels out;
  out.spin = k(kSpinKernel, 1);
  out.empty = k(kEmptyKernel, 1);
  out.copy = k(kCopyKernel, 256);
  out.triad = k(kTriadKernel, 256);
  return out;
}

std::vector<BenchResult> run_jit_variant(SuiteContext& ctx, DeviceContext& dev,
                                         const JitVariant& v) {
  const int ordinal = dev.ordinal();
  if (v.skipped() || !v.image) {
    BenchResult r = jit_skip_result(v, ordinal);
    if (r.skip_reason.empty()) r.skip_reason = "no image to load";
    return {r};
  }
  CudaSession& s = ctx.session;
  std::vector<BenchResult> out;
  const auto fail_all = [&](std::string why) {
    BenchResult r = jit_skip_result(v, ordinal);
    r.skip_reason = std::move(why);
    return std::vector<BenchResult>{r};
  };
  if (auto a = dev.activate(); !a) return fail_all(a.error().what);
  // First load: for PTX this is where the driver JIT-compiles (unless its disk cache has it).
  auto t0 = std::chrono::steady_clock::now();
  auto module = s.load_module(v.image->bytes);
  const double load_ms = ms_since(t0);
  if (!module) return fail_all(module.error().what);
  double reload_ms = 0;
  {
    auto t1 = std::chrono::steady_clock::now();
    auto again = s.load_module(v.image->bytes);
    reload_ms = ms_since(t1);
    if (!again) reload_ms = -1;
  }
  const ProbeDevice* pd = ctx.probe_device(ordinal);
  const GpuSpec* gpu = ctx.catalog_gpu(ordinal);
  const unsigned sms = pd && pd->sms > 0 ? static_cast<unsigned>(pd->sms) : 1;
  const char* cache = std::getenv("CUDA_CACHE_DISABLE");
  const std::string cache_note =
      cache && std::string(cache) == "1"
          ? "CUDA_CACHE_DISABLE=1: every load JIT-compiles"
          : "the driver's JIT cache (~/.nv/ComputeCache) may serve a PTX load; set "
            "CUDA_CACHE_DISABLE=1 to time the compilation itself";
  const auto finish = [&](BenchResult& r) {
    r.extra["load_ms"] = load_ms;
    if (reload_ms >= 0) r.extra["reload_ms"] = reload_ms;
    if (v.image->ptx()) r.notes.push_back(cache_note);
  };

  // Compute-bound: the mma kernels.
  for (const char* kernel : {kMmaF16Kernel, kMmaBf16Kernel}) {
    BenchResult r = base(v, ordinal, kernel);
    finish(r);
    auto fn = s.function(module->get(), kernel);
    if (!fn) {
      r.skip_reason = fmt::format("{} is not in {}: {}", kernel, v.label, fn.error().what);
      out.push_back(std::move(r));
      continue;
    }
    LaunchDims dims;
    dims.grid_x = sms * kMmaBlocksPerSm;
    dims.block_x = kMmaThreads;
    auto buf = s.device_buffer(std::size_t{dims.grid_x} * dims.block_x * sizeof(float));
    if (!buf) {
      r.skip_reason = buf.error().what;
      out.push_back(std::move(r));
      continue;
    }
    MeasureSpec spec = ctx.spec();
    spec.flush_l2 = false;  // registers only: nothing in L2 to flush
    const Function f = *fn;
    const DevicePtr p = buf->get();
    auto m = measure(
        dev, spec,
        [&, f, dims, p](Stream st) {
          DevicePtr outp = p;
          int iters = kMmaIters;
          void* params[] = {&outp, &iters};
          return s.launch(f, dims, st, params);
        },
        ctx.nvml);
    if (!m) {
      r.skip_reason = m.error().what;
      out.push_back(std::move(r));
      continue;
    }
    const double flops = mma_flops(dims.grid_x, dims.block_x, kMmaIters);
    r.time = m->time;
    r.state = m->after ? m->after : m->before;
    r.value = tflops(flops, m->time.median_s);
    r.unit = "TFLOPS";
    r.extra["flops_per_launch"] = flops;
    r.params["blocking_kernel"] = m->blocked ? "true" : "false";
    for (const auto& n : m->notes) r.notes.push_back(n);
    if (gpu) {
      if (auto peak = peak_tflops(*gpu, Precision::kFp16)) {
        r.peak = peak->value;
        r.peak_source = peak->source;
      }
    }
    out.push_back(std::move(r));
  }

  // Memory-bound: triad over three arrays well beyond L2.
  {
    BenchResult r = base(v, ordinal, kTriadKernel);
    finish(r);
    const std::uint64_t bytes = (ctx.options.quick ? 64 : 256) * kMiB;
    const unsigned long long n = bytes / sizeof(float);
    auto fn = s.function(module->get(), kTriadKernel);
    auto a = s.device_buffer(bytes);
    auto b = s.device_buffer(bytes);
    auto c = s.device_buffer(bytes);
    if (!fn || !a || !b || !c) {
      r.skip_reason = !fn  ? fn.error().what
                      : !a ? a.error().what
                      : !b ? b.error().what
                           : c.error().what;
      out.push_back(std::move(r));
    } else {
      LaunchDims dims;
      dims.grid_x = sms * kTriadBlocksPerSm;
      dims.block_x = kTriadThreads;
      const Function f = *fn;
      const DevicePtr pa = a->get(), pb = b->get(), pc = c->get();
      // Defined inputs: zeroed once (the timing does not depend on the values).
      (void)s.memset(pb, 0, bytes, dev.stream());
      (void)s.memset(pc, 0, bytes, dev.stream());
      auto m = measure(
          dev, ctx.spec(),
          [&, f, dims, pa, pb, pc, n](Stream st) {
            DevicePtr x = pa, y = pb, z = pc;
            float scalar = 3.0f;
            unsigned long long count = n;
            void* params[] = {&x, &y, &z, &scalar, &count};
            return s.launch(f, dims, st, params);
          },
          ctx.nvml);
      if (!m) {
        r.skip_reason = m.error().what;
      } else {
        r.time = m->time;
        r.state = m->after ? m->after : m->before;
        r.value = gbps(triad_bytes(n), m->time.median_s);
        r.unit = "GB/s";
        r.extra["bytes_per_op"] = triad_bytes(n);
        r.params["blocking_kernel"] = m->blocked ? "true" : "false";
        r.params["l2_flush"] = m->flushed ? "true" : "false";
        for (const auto& note : m->notes) r.notes.push_back(note);
        if (gpu) {
          if (auto peak = peak_bandwidth(*gpu)) {
            r.peak = peak->value;
            r.peak_source = peak->source;
          }
        }
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<BenchResult> run_jit_suite(SuiteContext& ctx) {
  std::vector<BenchResult> out;
  const std::optional<Version> driver_cuda =
      ctx.session.driver_version() > 0
          ? std::optional<Version>(Version::from_cuda_int(ctx.session.driver_version()))
          : std::nullopt;
  for (DeviceContext* dev : ctx.devices) {
    const ProbeDevice* pd = ctx.probe_device(dev->ordinal());
    if (!pd) continue;
    for (const auto& v : jit_variants(pd->true_cc(), driver_cuda)) {
      for (auto& r : run_jit_variant(ctx, *dev, v)) out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace smcompat::bench
