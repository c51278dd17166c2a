// `smcompat bench` as one call (include/smcompat/bench/run.hpp).
#include "smcompat/bench/run.hpp"

#include <fmt/format.h>

#include "smcompat/bench/gemm.hpp"
#include "smcompat/bench/jit.hpp"
#include "smcompat/bench/suites.hpp"
#include "smcompat/bench/torch_runner.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat::bench {

namespace {

// Appends the torch run's rows to `into` (the native run), keeping one header.
void merge_runs(BenchRun& into, BenchRun&& torch) {
  for (auto& [name, version] : torch.libraries) into.libraries.emplace(name, version);
  for (auto& r : torch.results) into.results.push_back(std::move(r));
  for (auto& w : torch.warnings) into.warnings.push_back("torch: " + w);
  if (into.devices.empty()) into.devices = std::move(torch.devices);
}

}  // namespace

Result<BenchRun> run_bench(const BenchRequest& args) {
  std::optional<BenchRun> run;
  if (!args.torch || !args.suites.empty()) {
    NativeOptions options;
    options.suites = args.suites.empty() ? kBenchSuites : args.suites;
    options.devices = args.devices;
    options.quick = args.quick;
    options.libcuda = args.libcuda;
    options.libnvml = args.libnvml;
    GemmSuiteOptions gemm;
    if (!args.cublaslt.empty()) gemm.paths.user = args.cublaslt;
    options.extra_suites["gemm"] = gemm_suite(gemm);
    options.extra_suites["jit"] = run_jit_suite;
    options.kernel_provider = [](std::span<const ComputeCapability> ccs,
                                 std::optional<Version> driver_cuda) {
      return embedded_device_kernels(ccs, driver_cuda);
    };
    options.progress = args.progress;
    SMCOMPAT_TRY(BenchRun native, run_native_suites(options));
    run = std::move(native);
  }
  if (args.torch) {
    TorchOptions options;
    options.python = args.python;
    options.quick = args.quick;
    options.stop = args.quick ? StopRule::quick() : StopRule{};
    options.rows = args.rows;
    if (!args.devices.empty()) options.gpu = args.devices.front();
    options.argv = args.argv;
    options.tool_version = SMCOMPAT_VERSION;
    TorchFailure why = TorchFailure::kNone;
    auto torch_run = run_torch_script(options, &why);
    if (!torch_run) return make_error("--torch: " + torch_run.error().to_string());
    if (run)
      merge_runs(*run, std::move(*torch_run));
    else
      run = std::move(*torch_run);
  }
  run->tool_version = SMCOMPAT_VERSION;
  run->argv = args.argv;
  return std::move(*run);
}

Result<BenchRun> read_bench_run_file(const std::string& path) {
  // A run of every suite on eight GPUs is a few hundred KB; anything past 64 MiB is not one.
  constexpr size_t kMaxBytes = 64u << 20;
  auto text = read_file_prefix(path, kMaxBytes + 1);
  if (!text) return make_error("cannot open the file").in_file(path);
  if (text->size() > kMaxBytes)
    return make_error(fmt::format("larger than {} MiB: not a bench run", kMaxBytes >> 20))
        .in_file(path);
  auto run = read_bench_run(*text);
  if (!run) return Error(run.error()).in_file(path);
  return run;
}

}  // namespace smcompat::bench
