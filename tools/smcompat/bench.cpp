// `smcompat bench [SUITE...]`: measures this machine's GPUs (bench/suites.hpp: memory, launch,
// p2p; bench/gemm.hpp: gemm via cuBLASLt; bench/jit.hpp: native SASS vs JIT-compiled PTX) and,
// with --torch, runs the shipped PyTorch script (bench/torch_runner.hpp) into the same document.
// `smcompat bench report RESULTS.json` renders a recorded run without a GPU. Printers are
// report/bench_report.hpp; docs/bench.md. Exit codes: 0 the run finished (skips are recorded),
// 2 usage or I/O error, or no usable GPU.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "smcompat/bench/gemm.hpp"
#include "smcompat/bench/jit.hpp"
#include "smcompat/bench/suites.hpp"
#include "smcompat/bench/torch_runner.hpp"
#include "smcompat/report/bench_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

const std::vector<std::string> kSuites = {"gemm", "memory", "p2p", "launch", "jit"};

struct OutputArgs {
  bool json = false;
  bool markdown = false;
  std::string html;      // file to write, "" = none
  std::string baseline;  // OLD.json, "" = none
};

struct BenchArgs {
  std::vector<std::string> suites;
  std::vector<int> devices;
  bool quick = false;
  std::string libcuda = "libcuda.so.1";
  std::string libnvml = "libnvidia-ml.so.1";
  bool no_nvml = false;
  std::string cublaslt;
  bool torch = false;
  std::string python;
  std::vector<std::string> rows;
  OutputArgs out;
};

struct ReportArgs {
  std::string results;
  OutputArgs out;
};

Result<bench::BenchRun> read_run_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot open the file").in_file(path);
  std::ostringstream text;
  text << in.rdbuf();
  auto run = bench::read_bench_run(text.str());
  if (!run) return Error(run.error()).in_file(path);
  return run;
}

// Prints `run` as asked (text on stdout by default; --html writes only the file it names).
int emit(const bench::BenchRun& run, const OutputArgs& out, const Context& ctx,
         const char* command) {
  std::optional<BenchComparison> comparison;
  if (!out.baseline.empty()) {
    auto baseline = read_run_file(out.baseline);
    if (!baseline) {
      fmt::print(stderr, "smcompat {}: --baseline: {}\n", command, baseline.error().to_string());
      return kExitError;
    }
    comparison = compare_bench_runs(*baseline, run);
  }
  const BenchComparison* cmp = comparison ? &*comparison : nullptr;
  if (!out.html.empty()) {
    if (auto e = write_file_atomically(out.html, render_bench_html(run, cmp))) {
      fmt::print(stderr, "smcompat {}: {}\n", command, e->to_string());
      return kExitError;
    }
    fmt::print(stderr, "smcompat {}: wrote {}\n", command, out.html);
  }
  if (out.json) {
    fmt::print("{}\n", json_text(bench_to_json(run, cmp)));
  } else if (out.markdown) {
    fmt::print("{}", render_bench_markdown(run, cmp));
  } else if (out.html.empty()) {
    fmt::print("{}", render_bench_text(run, ctx.out_style(), cmp));
  }
  return kExitOk;
}

void add_output_options(CLI::App* cmd, OutputArgs& out) {
  auto* json =
      cmd->add_flag("--json", out.json, "Machine-readable output (schema smcompat.bench/1)");
  cmd->add_flag("--markdown", out.markdown, "GitHub-flavoured Markdown")->excludes(json);
  cmd->add_option("--html", out.html, "Write one self-contained HTML page with plots to this file");
  cmd->add_option("--baseline", out.baseline,
                  "Compare with an earlier run (its --json output); changes beyond the noise are "
                  "marked")
      ->check(CLI::ExistingFile);
}

// Appends the torch run's rows to `into` (the native run), keeping one header.
void merge_runs(bench::BenchRun& into, bench::BenchRun&& torch) {
  for (auto& [name, version] : torch.libraries) into.libraries.emplace(name, version);
  for (auto& r : torch.results) into.results.push_back(std::move(r));
  for (auto& w : torch.warnings) into.warnings.push_back("torch: " + w);
  if (into.devices.empty()) into.devices = std::move(torch.devices);
}

int run_bench(const BenchArgs& args, Context& ctx) {
  // --torch alone runs only the PyTorch script; suites named beside it run too.
  const bool native = !args.torch || !args.suites.empty();
  std::optional<bench::BenchRun> run;
  if (native) {
    bench::NativeOptions options;
    options.suites = args.suites;
    options.devices = args.devices;
    options.quick = args.quick;
    options.libcuda = args.libcuda;
    options.libnvml = args.no_nvml ? "" : args.libnvml;
    bench::GemmSuiteOptions gemm;
    if (!args.cublaslt.empty()) gemm.paths.user = args.cublaslt;
    options.extra_suites["gemm"] = bench::gemm_suite(gemm);
    options.extra_suites["jit"] = bench::run_jit_suite;
    if (options.suites.empty()) options.suites = kSuites;
    options.kernel_provider = [](std::span<const ComputeCapability> ccs,
                                 std::optional<Version> driver_cuda) {
      return bench::embedded_device_kernels(ccs, driver_cuda);
    };
    // Progress on stderr: a line rewritten in place on a terminal, one line per suite otherwise.
    const bool tty = isatty(STDERR_FILENO) != 0;
    options.progress = [tty](std::string_view suite, int started) {
      if (tty) {
        fmt::print(stderr, "\r\033[Ksmcompat bench: {} ({} configurations started)", suite,
                   started);
      } else if (started == 0) {
        fmt::print(stderr, "smcompat bench: {}\n", suite);
      }
    };
    auto native_run = bench::run_native_suites(options);
    if (tty) fmt::print(stderr, "\r\033[K");
    if (!native_run) {
      fmt::print(stderr, "smcompat bench: {}\n", native_run.error().to_string());
      return kExitError;
    }
    run = std::move(*native_run);
  }
  if (args.torch) {
    bench::TorchOptions options;
    options.python = args.python;
    options.quick = args.quick;
    options.stop = args.quick ? bench::StopRule::quick() : bench::StopRule{};
    options.rows = args.rows;
    if (!args.devices.empty()) options.gpu = args.devices.front();
    options.argv = ctx.argv;
    options.tool_version = SMCOMPAT_VERSION;
    bench::TorchFailure why = bench::TorchFailure::kNone;
    auto torch_run = bench::run_torch_script(options, &why);
    if (!torch_run) {
      fmt::print(stderr, "smcompat bench --torch: {}\n", torch_run.error().to_string());
      return kExitError;
    }
    if (run) {
      merge_runs(*run, std::move(*torch_run));
    } else {
      run = std::move(*torch_run);
    }
  }
  run->tool_version = SMCOMPAT_VERSION;
  run->argv = ctx.argv;
  return emit(*run, args.out, ctx, "bench");
}

}  // namespace

void register_bench(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "bench",
      "Measure this machine's GPUs: GEMM per precision, memory, P2P, launch latency, native SASS "
      "vs PTX JIT (and PyTorch with --torch), against the catalog peaks");
  static BenchArgs args;
  cmd->add_option("suite", args.suites,
                  "Suites to run: gemm, memory, p2p, launch, jit (default all)")
      ->check(CLI::IsMember(kSuites));
  cmd->add_flag("--quick", args.quick, "About a minute: fewer sizes, looser stopping rule");
  cmd->add_option("--device", args.devices, "CUDA ordinal to measure (repeatable; default all)");
  cmd->add_option("--libcuda", args.libcuda, "Driver library to load (default libcuda.so.1)");
  cmd->add_option("--libnvml", args.libnvml, "NVML library to load (default libnvidia-ml.so.1)");
  cmd->add_flag("--no-nvml", args.no_nvml, "Do not read clocks, temperature or throttle reasons");
  cmd->add_option("--cublaslt", args.cublaslt,
                  "libcublasLt to use (file or directory; default: the environment's nvidia-cublas "
                  "wheel, torch/lib, the toolkit, the system search)");
  cmd->add_flag("--torch", args.torch,
                "Run the shipped PyTorch script in --python's environment (alone, or beside the "
                "suites named)");
  cmd->add_option("--python", args.python, "Python interpreter for --torch (default python3)");
  cmd->add_option("--rows", args.rows, "PyTorch row kinds for --torch (default all)");
  add_output_options(cmd, args.out);
  cmd->callback([&ctx, cmd] {
    if (cmd->get_subcommands().empty()) ctx.exit_code = run_bench(args, ctx);
  });

  auto* report = cmd->add_subcommand(
      "report", "Render a recorded run (smcompat bench --json output); needs no GPU");
  static ReportArgs report_args;
  report->add_option("results", report_args.results, "RESULTS.json")
      ->required()
      ->check(CLI::ExistingFile);
  add_output_options(report, report_args.out);
  report->callback([&ctx] {
    auto run = read_run_file(report_args.results);
    if (!run) {
      fmt::print(stderr, "smcompat bench report: {}\n", run.error().to_string());
      ctx.exit_code = kExitError;
      return;
    }
    ctx.exit_code = emit(*run, report_args.out, ctx, "bench report");
  });
}

}  // namespace smcompat::cli
