// `smcompat bench [SUITE...]`: measures this machine's GPUs (bench/suites.hpp: memory, launch,
// p2p; bench/gemm.hpp: gemm via cuBLASLt; bench/jit.hpp: native SASS vs JIT-compiled PTX) and,
// with --torch, runs the shipped PyTorch script (bench/torch_runner.hpp) into the same document.
// `smcompat bench report RESULTS.json` renders a recorded run without a GPU. Printers are
// report/bench_report.hpp; docs/bench.md. Exit codes: 0 the run finished (skips are recorded),
// 2 usage or I/O error, or no usable GPU.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/bench/run.hpp"
#include "smcompat/report/bench_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

struct OutputArgs {
  bool json = false;
  bool markdown = false;
  std::string html;      // file to write, "" = none
  std::string baseline;  // OLD.json, "" = none
};

struct BenchArgs : bench::BenchRequest {
  bool no_nvml = false;
  OutputArgs out;
};

struct ReportArgs {
  std::string results;
  OutputArgs out;
};

// Prints `run` as asked (text on stdout by default; --html writes only the file it names).
int emit(const bench::BenchRun& run, const OutputArgs& out, Context& ctx, const char* command) {
  std::optional<BenchComparison> comparison;
  if (!out.baseline.empty()) {
    auto baseline = bench::read_bench_run_file(out.baseline);
    if (!baseline) return ctx.fail(command, "--baseline: " + baseline.error().to_string());
    comparison = compare_bench_runs(*baseline, run);
  }
  const BenchComparison* cmp = comparison ? &*comparison : nullptr;
  if (!out.html.empty()) {
    if (auto e = write_file_atomically(out.html, render_bench_html(run, cmp)))
      return ctx.fail(command, e->to_string());
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
  add_format_flags(cmd, out.json, &out.markdown, "smcompat.bench/1");
  cmd->add_option("--html", out.html, "Write one self-contained HTML page with plots to this file");
  cmd->add_option("--baseline", out.baseline,
                  "Compare with an earlier run (its --json output); changes beyond the noise are "
                  "marked")
      ->check(CLI::ExistingFile);
}

int run_bench(BenchArgs args, Context& ctx) {
  if (args.no_nvml) args.libnvml.clear();
  args.argv = ctx.argv;
  // Progress on stderr: a line rewritten in place on a terminal, one line per suite otherwise.
  const bool tty = isatty(STDERR_FILENO) != 0;
  args.progress = [tty](std::string_view suite, int started) {
    if (tty)
      fmt::print(stderr, "\r\033[Ksmcompat bench: {} ({} configurations started)", suite, started);
    else if (started == 0)
      fmt::print(stderr, "smcompat bench: {}\n", suite);
  };
  auto run = bench::run_bench(args);
  if (tty) fmt::print(stderr, "\r\033[K");
  if (!run) {
    std::string why = run.error().to_string();  // "smcompat bench --torch: ..." for the script
    fmt::print(stderr, "smcompat bench{}{}\n", why.starts_with("--torch: ") ? " " : ": ", why);
    return kExitError;
  }
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
      ->check(CLI::IsMember(bench::kBenchSuites));
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
    auto run = bench::read_bench_run_file(report_args.results);
    ctx.exit_code = run ? emit(*run, report_args.out, ctx, "bench report")
                        : ctx.fail("bench report", run.error().to_string());
  });
}

}  // namespace smcompat::cli
