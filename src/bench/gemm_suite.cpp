// The gemm suite on a GPU (gemm.hpp's run_gemm_suite): cuBLASLt (cublaslt.hpp, dlopened) runs
// each configuration of gemm_plan() with the algorithm its heuristic picks, timed by the runner's
// measurement loop (measure.hpp), reported as TFLOPS and % of the catalog peak. Each precision is
// first verified on the exact 128×128×64 case against the CPU reference. Every failure is a
// recorded skip naming the cuBLASLt status or the CUresult.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "smcompat/bench/gemm.hpp"

namespace smcompat::bench {

namespace cl = cublaslt;

namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;  // what cuBLAS itself defaults to on Hopper+
constexpr std::size_t kFillChunk = 16u << 20;

// The descriptors of one matmul, destroyed together.
struct LtMatmul {
  const cl::Library* lib = nullptr;
  cl::MatmulDesc desc = nullptr;
  cl::MatrixLayout a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cl::MatmulPreference pref = nullptr;
  cl::MatmulAlgo algo{};
  std::size_t workspace = 0;
  LtMatmul() = default;
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;
  ~LtMatmul() {
    if (!lib) return;
    const auto& f = lib->fn();
    if (pref) f.preference_destroy(pref);
    for (auto* l : {a, b, c, d}) {
      if (l) f.matrix_layout_destroy(l);
    }
    if (desc) f.matmul_desc_destroy(desc);
  }
};

// Device addresses of one configuration's operands.
struct Operands {
  DevicePtr a = 0, b = 0, d = 0, a_scale = 0, b_scale = 0, workspace = 0;
};

Result<void> lt_check(const cl::Library& lib, cl::Status s, const char* call) {
  if (s == cl::kSuccess) return {};
  return make_error(fmt::format("{}: {}", call, lib.name(s)));
}

// Descriptors, layouts and the heuristic's algorithm for `cfg`.
Result<void> prepare(const cl::Library& lib, cl::Handle handle, const GemmConfig& cfg,
                     const Operands& ops, LtMatmul& mm) {
  const auto& f = lib.fn();
  const auto& t = cfg.types;
  mm.lib = &lib;
  SMCOMPAT_CHECK(lt_check(lib, f.matmul_desc_create(&mm.desc, t.compute, t.scale),
                          "cublasLtMatmulDescCreate"));
  const auto set = [&](int attr, const void* v, std::size_t n, const char* what) {
    return lt_check(lib, f.matmul_desc_set_attribute(mm.desc, attr, v, n), what);
  };
  const int op_t = cl::kOpT, op_n = cl::kOpN;
  if (auto r = set(cl::kDescTransA, &op_t, sizeof op_t, "cublasLtMatmulDescSetAttribute(TRANSA)");
      !r)
    return r;
  if (auto r = set(cl::kDescTransB, &op_n, sizeof op_n, "cublasLtMatmulDescSetAttribute(TRANSB)");
      !r)
    return r;
  if (t.scale_pointers || t.block_scale_mode) {
    if (t.block_scale_mode) {
      const int mode = *t.block_scale_mode;
      if (auto r = set(cl::kDescAScaleMode, &mode, sizeof mode, "A_SCALE_MODE"); !r) return r;
      if (auto r = set(cl::kDescBScaleMode, &mode, sizeof mode, "B_SCALE_MODE"); !r) return r;
    }
    const void* as = reinterpret_cast<const void*>(ops.a_scale);
    const void* bs = reinterpret_cast<const void*>(ops.b_scale);
    if (auto r = set(cl::kDescAScalePointer, &as, sizeof as, "A_SCALE_POINTER"); !r) return r;
    if (auto r = set(cl::kDescBScalePointer, &bs, sizeof bs, "B_SCALE_POINTER"); !r) return r;
  }
  const auto layout = [&](cl::MatrixLayout* l, int type, std::uint64_t rows, std::uint64_t cols,
                          std::int64_t ld) -> Result<void> {
    SMCOMPAT_CHECK(lt_check(lib, f.matrix_layout_create(l, type, rows, cols, ld),
                            "cublasLtMatrixLayoutCreate"));
    if (cfg.batch > 1) {
      const int count = static_cast<int>(cfg.batch);
      const std::int64_t stride = static_cast<std::int64_t>(rows * cols);
      if (auto r = lt_check(
              lib, f.matrix_layout_set_attribute(*l, cl::kLayoutBatchCount, &count, sizeof count),
              "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
          !r)
        return r;
      if (auto r = lt_check(lib,
                            f.matrix_layout_set_attribute(*l, cl::kLayoutStridedBatchOffset,
                                                          &stride, sizeof stride),
                            "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
          !r)
        return r;
    }
    return {};
  };
  const auto m = cfg.m, n = cfg.n, k = cfg.k;
  if (auto r = layout(&mm.a, t.a, k, m, static_cast<std::int64_t>(k)); !r) return r;
  if (auto r = layout(&mm.b, t.b, k, n, static_cast<std::int64_t>(k)); !r) return r;
  if (auto r = layout(&mm.c, t.c, m, n, static_cast<std::int64_t>(m)); !r) return r;
  if (auto r = layout(&mm.d, t.d, m, n, static_cast<std::int64_t>(m)); !r) return r;
  SMCOMPAT_CHECK(lt_check(lib, f.preference_create(&mm.pref), "cublasLtMatmulPreferenceCreate"));
  const std::size_t ws = kWorkspaceBytes;
  if (auto r = lt_check(
          lib, f.preference_set_attribute(mm.pref, cl::kPrefMaxWorkspaceBytes, &ws, sizeof ws),
          "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
      !r)
    return r;
  cl::HeuristicResult result{};
  int returned = 0;
  if (auto r = lt_check(lib,
                        f.algo_get_heuristic(handle, mm.desc, mm.a, mm.b, mm.c, mm.d, mm.pref, 1,
                                             &result, &returned),
                        "cublasLtMatmulAlgoGetHeuristic");
      !r)
    return r;
  if (returned == 0 || result.state != cl::kSuccess) {
    return make_error(fmt::format("cublasLtMatmulAlgoGetHeuristic: no algorithm ({})",
                                  lib.name(returned == 0 ? 15 : result.state)));
  }
  mm.algo = result.algo;
  mm.workspace = result.workspace_size;
  return {};
}

Result<void> run_matmul(const cl::Library& lib, cl::Handle handle, const GemmConfig& cfg,
                        const Operands& ops, const LtMatmul& mm, Stream stream) {
  const double one = 1.0, zero = 0.0;
  const float onef = 1.0f, zerof = 0.0f;
  const bool dbl = cfg.types.scale == cl::kR64F;
  const void* alpha = dbl ? static_cast<const void*>(&one) : &onef;
  const void* beta = dbl ? static_cast<const void*>(&zero) : &zerof;
  const auto p = [](DevicePtr x) { return reinterpret_cast<void*>(x); };
  return lt_check(lib,
                  lib.fn().matmul(handle, mm.desc, alpha, p(ops.a), mm.a, p(ops.b), mm.b, beta,
                                  p(ops.d), mm.c, p(ops.d), mm.d, &mm.algo, p(ops.workspace),
                                  kWorkspaceBytes, static_cast<cl::Stream>(stream)),
                  "cublasLtMatmul");
}

// Copies `bytes` of host pattern into `dst` chunk by chunk.
Result<void> upload_pattern(CudaSession& s, DevicePtr dst, std::uint64_t bytes,
                            const std::vector<std::uint8_t>& pattern, Stream st) {
  for (std::uint64_t off = 0; off < bytes; off += pattern.size()) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(pattern.size(), bytes - off));
    SMCOMPAT_CHECK(s.copy_htod(dst + off, pattern.data(), n, st));
  }
  return {};
}

std::uint64_t scale_bytes(const GemmConfig& cfg, std::uint64_t outer) {
  if (cfg.types.block_size == 0) return sizeof(float);
  const std::uint64_t blocks = cfg.k / cfg.types.block_size;
  return ((outer + 127) / 128 * 128) * ((blocks + 3) / 4 * 4) * cfg.batch;
}

// Allocates and fills the operands (inputs random, or the verification case).
struct Buffers {
  Owned<DevicePtr> a, b, d, as, bs, ws;
  Operands ops() const { return {a.get(), b.get(), d.get(), as.get(), bs.get(), ws.get()}; }
};

Result<Buffers> allocate(CudaSession& s, const GemmConfig& cfg, Stream st,
                         const VerifyInputs* verify) {
  const auto& t = cfg.types;
  const std::uint64_t a_bytes = cfg.m * cfg.k * t.a_bits / 8 * cfg.batch;
  const std::uint64_t b_bytes = cfg.k * cfg.n * t.b_bits / 8 * cfg.batch;
  const std::uint64_t d_bytes = cfg.m * cfg.n * t.d_bits / 8 * cfg.batch;
  Buffers buf;
  SMCOMPAT_TRY(buf.a, s.device_buffer(a_bytes));
  SMCOMPAT_TRY(buf.b, s.device_buffer(b_bytes));
  SMCOMPAT_TRY(buf.d, s.device_buffer(d_bytes));
  SMCOMPAT_TRY(buf.ws, s.device_buffer(kWorkspaceBytes));
  if (t.scale_pointers || t.block_scale_mode) {
    const std::uint64_t as = scale_bytes(cfg, cfg.m), bs = scale_bytes(cfg, cfg.n);
    SMCOMPAT_TRY(buf.as, s.device_buffer(as));
    SMCOMPAT_TRY(buf.bs, s.device_buffer(bs));
    if (t.block_scale_mode) {
      const int scale_type =
          *t.block_scale_mode == cl::kScaleVec32UE8M0 ? cl::kR8F_UE8M0 : cl::kR8F_E4M3;
      const auto byte = unit_scale_byte(scale_type);
      SMCOMPAT_CHECK(s.memset(buf.as.get(), byte, as, st));
      SMCOMPAT_CHECK(s.memset(buf.bs.get(), byte, bs, st));
    } else {
      static const float kOne = 1.0f;  // outlives the asynchronous copies
      SMCOMPAT_CHECK(s.copy_htod(buf.as.get(), &kOne, sizeof kOne, st));
      SMCOMPAT_CHECK(s.copy_htod(buf.bs.get(), &kOne, sizeof kOne, st));
    }
  }
  if (verify) {
    SMCOMPAT_CHECK(s.copy_htod(buf.a.get(), verify->a.data(), verify->a.size(), st));
    SMCOMPAT_CHECK(s.copy_htod(buf.b.get(), verify->b.data(), verify->b.size(), st));
  } else {
    std::vector<std::uint8_t> pattern(kFillChunk);
    fill_random(t.a, pattern, 1);
    SMCOMPAT_CHECK(upload_pattern(s, buf.a.get(), a_bytes, pattern, st));
    // The pattern is refilled next: let the copies from it finish first.
    SMCOMPAT_CHECK(s.synchronize(st));
    fill_random(t.b, pattern, 2);
    SMCOMPAT_CHECK(upload_pattern(s, buf.b.get(), b_bytes, pattern, st));
  }
  SMCOMPAT_CHECK(s.synchronize(st));
  return buf;
}

// The exact small case of a precision: true if the GPU's D equals the CPU reference.
Result<void> verify_small(CudaSession& s, const cl::Library& lib, cl::Handle handle,
                          const GemmConfig& like, Stream st) {
  GemmConfig cfg = like;
  cfg.m = cfg.n = kVerifySize;
  cfg.k = kVerifyK;
  cfg.batch = 1;
  auto inputs = verify_inputs(cfg.types, cfg.m, cfg.n, cfg.k);
  if (!inputs) return make_error("the verification inputs cannot be encoded in this type");
  SMCOMPAT_TRY(auto buf, allocate(s, cfg, st, &*inputs));
  LtMatmul mm;
  SMCOMPAT_CHECK(prepare(lib, handle, cfg, buf.ops(), mm));
  SMCOMPAT_CHECK(run_matmul(lib, handle, cfg, buf.ops(), mm, st));
  std::vector<std::uint8_t> d(cfg.m * cfg.n * cfg.types.d_bits / 8);
  SMCOMPAT_CHECK(s.copy_dtoh(d.data(), buf.d.get(), d.size(), st));
  SMCOMPAT_CHECK(s.synchronize(st));
  return check_against_reference(cfg.types.d, d, cfg.m, cfg.n, cfg.k);
}

// GEMMs per sample: enough that a sample lasts about a millisecond at the catalog peak (50
// TFLOPS assumed without one), so that small sizes are not lost in event resolution.
unsigned iterations_for(double flops, const std::optional<Peak>& peak) {
  const double rate = (peak && peak->value > 0 ? peak->value : 50.0) * 1e12;
  const double per_op_s = flops / rate;
  return static_cast<unsigned>(std::clamp(std::ceil(1e-3 / per_op_s), 1.0, 200.0));
}

BenchResult row(const GemmConfig& cfg, int ordinal, const cl::Library* lib) {
  BenchResult r;
  r.suite = "gemm";
  r.name = fmt::format("{} gpu{}", cfg.name(), ordinal);
  r.devices = {ordinal};
  r.params["dtype"] = cfg.variant.empty() ? to_string(cfg.precision) : cfg.variant;
  r.params["m"] = std::to_string(cfg.m);
  r.params["n"] = std::to_string(cfg.n);
  r.params["k"] = std::to_string(cfg.k);
  r.params["batch"] = std::to_string(cfg.batch);
  r.params["layout"] = "TN";
  r.params["library"] = "cublasLt";
  if (lib) r.params["cublaslt_version"] = lib->version_string();
  if (cfg.precision == Precision::kFp8E5M2 && cfg.variant.empty()) {
    r.notes.push_back("A e5m2 x B e4m3: cuBLASLt has no e5m2 x e5m2");
  }
  return r;
}

}  // namespace

std::vector<BenchResult> run_gemm_suite(SuiteContext& ctx, const GemmSuiteOptions& options) {
  std::vector<BenchResult> out;
  auto lib = cl::Library::load(options.paths);
  if (lib) ctx.libraries["cublasLt"] = lib->version_string();
  for (DeviceContext* dev : ctx.devices) {
    const int ordinal = dev->ordinal();
    const ProbeDevice* pd = ctx.probe_device(ordinal);
    const GpuSpec* gpu = ctx.catalog_gpu(ordinal);
    GemmPlanOptions po;
    po.quick = ctx.options.quick;
    po.precisions = options.precisions;
    if (pd && pd->total_memory > 0) po.device_memory = pd->total_memory;
    const ArchInfo* arch = pd ? Catalog::builtin().arch(pd->true_cc().arch()) : nullptr;
    const auto plan = gemm_plan(arch, po);
    const auto skip_all = [&](const std::string& why) {
      for (const auto& e : plan) {
        BenchResult r = row(e.config, ordinal, lib ? &*lib : nullptr);
        r.skip_reason = e.skip_reason.empty() ? why : e.skip_reason;
        out.push_back(std::move(r));
      }
    };
    if (!lib) {
      skip_all(lib.error().what);
      continue;
    }
    if (auto a = dev->activate(); !a) {
      skip_all(a.error().what);
      continue;
    }
    cl::Handle handle = nullptr;
    if (auto s = lib->fn().create(&handle); s != cl::kSuccess) {
      skip_all(fmt::format("cublasLtCreate: {}", lib->name(s)));
      continue;
    }
    CudaSession& s = ctx.session;
    std::map<std::string, Result<void>> verified;  // by dtype
    for (const auto& e : plan) {
      BenchResult r = row(e.config, ordinal, &*lib);
      if (!e.skip_reason.empty()) {
        r.skip_reason = e.skip_reason;
        out.push_back(std::move(r));
        continue;
      }
      const std::string dtype = r.params["dtype"];
      if (!verified.count(dtype)) {
        verified.emplace(dtype, verify_small(s, *lib, handle, e.config, dev->stream()));
      }
      const auto& v = verified.at(dtype);
      r.verified = v.ok();
      if (!v.ok()) r.notes.push_back("small-case check: " + v.error().what);
      auto buf = allocate(s, e.config, dev->stream(), nullptr);
      if (!buf) {
        r.skip_reason = buf.error().what;
        out.push_back(std::move(r));
        continue;
      }
      LtMatmul mm;
      if (auto p = prepare(*lib, handle, e.config, buf->ops(), mm); !p) {
        r.skip_reason = p.error().what;
        out.push_back(std::move(r));
        continue;
      }
      MeasureSpec spec = ctx.spec();
      const GemmConfig cfg = e.config;
      const Operands ops = buf->ops();
      const std::optional<Peak> peak =
          gpu ? peak_tflops(*gpu, cfg.variant == "nvfp4" ? Precision::kFp4 : cfg.precision)
              : std::nullopt;
      spec.iterations = iterations_for(cfg.flops(), peak);
      const unsigned iterations = spec.iterations;
      auto m = measure(
          *dev, spec,
          [&, cfg, ops, iterations](Stream st) -> Result<void> {
            for (unsigned i = 0; i < iterations; ++i) {
              SMCOMPAT_CHECK(run_matmul(*lib, handle, cfg, ops, mm, st));
            }
            return {};
          },
          ctx.nvml);
      if (!m) {
        r.skip_reason = m.error().what;
        out.push_back(std::move(r));
        continue;
      }
      r.time = m->time;
      r.state = m->after ? m->after : m->before;
      r.value = tflops(cfg.flops(), m->time.median_s);
      r.unit = "TFLOPS";
      r.extra["flops"] = cfg.flops();
      r.extra["workspace_bytes"] = static_cast<double>(mm.workspace);
      r.params["blocking_kernel"] = m->blocked ? "true" : "false";
      r.params["l2_flush"] = m->flushed ? "true" : "false";
      for (const auto& n : m->notes) r.notes.push_back(n);
      r.extra["iterations_per_sample"] = iterations;
      if (peak) {
        r.peak = peak->value;
        r.peak_source = peak->source;
      }
      out.push_back(std::move(r));
    }
    lib->fn().destroy(handle);
  }
  return out;
}

SuiteFn gemm_suite(GemmSuiteOptions options) {
  return [options = std::move(options)](SuiteContext& ctx) { return run_gemm_suite(ctx, options); };
}

}  // namespace smcompat::bench
