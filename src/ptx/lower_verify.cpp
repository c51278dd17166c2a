// `ptx lower --verify`: the original and the lowered kernels run in the reference interpreter
// (include/smcompat/ptx/interp.hpp) on the same inputs, and their global memory must end up
// byte-identical. Inputs are made up: every 64-bit parameter points to its own buffer of
// small-integer f16 bit patterns (so tensor-core sums are exact whatever the order), every other
// parameter takes its value from the options (default 1).
#include <fmt/format.h>

#include <cstring>
#include <random>

#include "smcompat/ptx/interp.hpp"
#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx {
namespace {

// f16 bit patterns of -2..2: products and sums of these stay exact in f16 and f32.
constexpr uint16_t kSmallHalves[] = {0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000};

struct Run {
  std::vector<std::vector<uint8_t>> before, buffers;
  std::string error;
};

Run run_once(const Module& m, const Function& f, const LowerVerifyOptions& o) {
  Run run;
  InterpMemory mem;
  std::vector<uint64_t> params;
  std::vector<uint64_t> buffers;
  std::mt19937 rng(o.seed);
  for (const Variable& p : f.params) {
    if (p.element_size == 8 && p.vector == 1 && p.array_count.value_or(1) == 1) {
      const uint64_t addr = mem.allocate(o.buffer_bytes);
      auto bytes = mem.buffer(addr);
      for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
        const uint16_t h = kSmallHalves[rng() % 5];
        std::memcpy(&bytes[i], &h, 2);
      }
      buffers.push_back(addr);
      run.before.emplace_back(bytes.begin(), bytes.end());
      params.push_back(addr);
    } else if (p.element_size > 0 && p.element_size <= 8 && p.vector == 1 &&
               p.array_count.value_or(1) == 1) {
      // Floating-point parameters (a softmax scale, say) default to 1.0, integers to the option.
      uint64_t fallback = o.default_value;
      if (p.type == ".f32") fallback = 0x3F800000u;
      if (p.type == ".f64") fallback = 0x3FF0000000000000ull;
      auto it = o.values.find(std::string(p.name));
      params.push_back(it != o.values.end() ? it->second : fallback);
    } else {
      run.error = fmt::format("parameter {} is not a scalar or pointer", p.name);
      return run;
    }
  }
  InterpLaunch launch;
  const auto& perf = f.perf;
  if (perf.reqntid)
    launch.block = *perf.reqntid;
  else if (perf.maxntid)
    launch.block = *perf.maxntid;
  else
    launch.block = {o.block_threads, 1, 1};
  launch.grid = {o.grid_blocks, 1, 1};
  launch.dynamic_shared_bytes = o.dynamic_shared_bytes;
  launch.max_instructions = o.max_instructions;
  auto r = interpret_kernel(m, f.name, launch, params, mem);
  if (!r.ok()) {
    run.error = r.error().to_string();
    return run;
  }
  for (uint64_t a : buffers) {
    auto span = mem.buffer(a);
    run.buffers.emplace_back(span.begin(), span.end());
  }
  return run;
}

}  // namespace

std::vector<KernelVerification> verify_lowering(std::string_view original, std::string_view lowered,
                                                const LowerVerifyOptions& options) {
  std::vector<KernelVerification> out;
  auto mo = parse_module(original);
  auto ml = parse_module(lowered);
  if (!mo.ok() || !ml.ok()) {
    KernelVerification v;
    v.status = "not-run";
    v.reason = "does not parse: " + (mo.ok() ? ml.error().what : mo.error().what);
    out.push_back(std::move(v));
    return out;
  }
  for (const Function& f : mo->functions) {
    if (!f.is_entry || !f.has_body) continue;
    if (!options.kernel.empty() && f.name != options.kernel) continue;
    KernelVerification v;
    v.kernel = std::string(f.name);
    v.status = "not-run";
    const Function* g = ml->find_function(f.name);
    if (!g) {
      v.reason = "the lowered text has no such kernel";
      out.push_back(std::move(v));
      continue;
    }
    Run a = run_once(*mo, f, options);
    Run b = a.error.empty() ? run_once(*ml, *g, options) : Run{};
    if (!a.error.empty() || !b.error.empty()) {
      v.reason = !a.error.empty() ? "original: " + a.error : "lowered: " + b.error;
      out.push_back(std::move(v));
      continue;
    }
    for (size_t i = 0; i < a.buffers.size() && i < b.buffers.size(); ++i) {
      v.bytes_compared += a.buffers[i].size();
      for (size_t j = 0; j < a.buffers[i].size(); ++j) {
        v.differing_bytes += a.buffers[i][j] != b.buffers[i][j];
        v.bytes_written += a.buffers[i][j] != a.before[i][j];
      }
    }
    v.status = v.differing_bytes == 0 ? "equal" : "differs";
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace smcompat::ptx
