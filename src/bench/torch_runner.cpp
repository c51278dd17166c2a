// Runs the embedded PyTorch script (data/bench/torch_bench.py) as `python - ARGS...` through
// posix_spawn with three pipes: the script goes in on stdin, the smcompat.bench/1 document comes
// back on stdout, progress on stderr (passed on as it arrives and its tail kept for errors). The
// child leads its own process group so that a timeout stops it and anything it started
// (torch.compile workers): SIGTERM, then SIGKILL. Then the document is read with read_bench_run()
// and the GEMM rows get the catalog peaks of the native suites (bench/peaks.hpp).
#include "smcompat/bench/torch_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "smcompat/bench/peaks.hpp"
#include "smcompat/util/embedded.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/process.hpp"
#include "smcompat/util/strings.hpp"

SMCOMPAT_EMBEDDED(torch_bench_py)

extern char** environ;

namespace smcompat::bench {

namespace {

/// Where a JSON parse fails (byte offset), without exceptions: a SAX pass that records the
/// position of the first error. nullopt when the text is well-formed JSON.
std::optional<uint64_t> json_error_offset(std::string_view text) {
  struct Sax : nlohmann::json_sax<nlohmann::json> {
    std::optional<uint64_t> at;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception&) override {
      at = position > 0 ? position - 1 : 0;  // chars read, the offending one included
      return false;
    }
  } sax;
  nlohmann::json::sax_parse(text.begin(), text.end(), &sax, nlohmann::json::input_format_t::json,
                            /*strict=*/true);
  return sax.at;
}

/// The last non-empty line of the script's stderr (its own message on the exits it chooses).
std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  std::size_t nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

Error fail(TorchFailure kind, TorchFailure* why, std::string what) {
  if (why) *why = kind;
  return make_error(std::move(what));
}

}  // namespace

constexpr std::array<const char*, 7> kTorchFailureNames = {
    "none", "no_interpreter", "no_torch", "no_cuda", "timeout", "script_failed", "bad_output"};
const char* to_string(TorchFailure failure) { return enum_name(failure, kTorchFailureNames, "?"); }

std::string_view torch_bench_script() {
  return embedded_text(embedded::torch_bench_py, embedded::torch_bench_py_size);
}

const std::vector<std::string>& torch_row_kinds() {
  static const std::vector<std::string> kinds = {
      "gemm",      "gemm_batched", "conv2d",   "conv2d_depthwise", "sdpa",   "linear",
      "layernorm", "softmax",      "resnet50", "transformer",      "compile"};
  return kinds;
}

std::vector<std::string> torch_script_args(const TorchOptions& o) {
  std::vector<std::string> a = {"--device", o.device, "--gpu", std::to_string(o.gpu)};
  a.insert(a.end(), {"--min-samples", std::to_string(o.stop.min_samples)});
  a.insert(a.end(), {"--min-time", fmt::format("{}", o.stop.min_time_s)});
  a.insert(a.end(), {"--max-rel-stddev", fmt::format("{}", o.stop.max_rel_stddev)});
  a.insert(a.end(), {"--timeout", fmt::format("{}", o.stop.timeout_s)});
  a.insert(a.end(), {"--max-samples", std::to_string(o.stop.max_samples)});
  if (o.quick) a.push_back("--quick");
  if (!o.rows.empty()) a.insert(a.end(), {"--rows", join(o.rows, ",")});
  if (!o.tool_version.empty()) a.insert(a.end(), {"--tool-version", o.tool_version});
  return a;
}

void fill_torch_peaks(BenchRun& run, const Catalog& catalog) {
  for (BenchDevice& d : run.devices) {
    if (d.catalog_gpu || d.cc.empty()) continue;  // cc "" = the script's --device cpu
    if (const GpuSpec* g = catalog.find_gpu(d.name)) d.catalog_gpu = g->name;
  }
  for (BenchResult& r : run.results) {
    if (r.suite != "torch.gemm" && r.suite != "torch.gemm_batched") continue;
    if (r.devices.empty()) continue;
    auto dtype = r.params.find("dtype");
    if (dtype == r.params.end()) continue;
    std::optional<Precision> p = parse_precision(dtype->second);
    if (!p) continue;
    const BenchDevice* dev = nullptr;
    for (const BenchDevice& d : run.devices) {
      if (d.ordinal == r.devices.front()) dev = &d;
    }
    if (!dev || !dev->catalog_gpu) continue;
    const GpuSpec* gpu = catalog.find_gpu(*dev->catalog_gpu);
    if (!gpu) continue;
    if (std::optional<Peak> peak = peak_tflops(*gpu, *p)) {
      r.peak = peak->value;
      r.peak_source = peak->source;
    }
  }
}

Result<BenchRun> run_torch_script(const TorchOptions& options, TorchFailure* why) {
  if (why) *why = TorchFailure::kNone;
  const bool search = options.python.empty() || options.python.find('/') == std::string::npos;
  const std::string python = options.python.empty() ? "python3" : options.python;
  if (!search && ::access(python.c_str(), X_OK) != 0) {
    return fail(TorchFailure::kNoInterpreter, why,
                fmt::format("python interpreter {} cannot be run: {}; pass --python PATH of a "
                            "python that has torch installed",
                            python, strerror(errno)));
  }
  std::vector<std::string> argv = {python, "-"};
  for (std::string& a : torch_script_args(options)) argv.push_back(std::move(a));
  std::function<void(std::string_view)> on_stderr = options.on_stderr;
  if (!on_stderr) {
    on_stderr = [](std::string_view chunk) {
      std::size_t done = 0;
      while (done < chunk.size()) {
        ssize_t w = ::write(2, chunk.data() + done, chunk.size() - done);
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) done += static_cast<std::size_t>(w);
      }
    };
  }
  auto child = run_child(argv, search, torch_bench_script(), options.timeout_s, on_stderr);
  if (!child) {
    const bool missing = child.error().what.find(strerror(ENOENT)) != std::string::npos;
    return fail(TorchFailure::kNoInterpreter, why,
                missing ? fmt::format("no python interpreter: {} is not on PATH; pass --python "
                                      "PATH of a python that has torch installed",
                                      python)
                        : child.error().what);
  }
  const ChildOutcome& c = *child;
  const std::string tail = last_line(c.err_tail);
  if (c.timed_out) {
    return fail(TorchFailure::kTimeout, why,
                fmt::format("the torch script ({}) ran past its {} s limit and was stopped "
                            "(SIGTERM, then SIGKILL){}",
                            python, options.timeout_s, tail.empty() ? "" : "; last said: " + tail));
  }
  if (c.exit_code == 127 && c.out.empty() && search) {
    return fail(TorchFailure::kNoInterpreter, why,
                fmt::format("no python interpreter: {} could not be run ({}); pass --python PATH",
                            python, tail));
  }
  if (c.exit_code == 3) {
    return fail(TorchFailure::kNoTorch, why,
                fmt::format("{} cannot import torch ({}); install torch in that environment "
                            "({} -m pip install torch) or pass --python PATH of a python that "
                            "has it",
                            python, tail, python));
  }
  if (c.exit_code == 2) {
    return fail(TorchFailure::kNoCuda, why,
                fmt::format("no CUDA device for torch in {}: {}", python, tail));
  }
  if (c.exit_code != 0) {
    std::string how = c.signal
                          ? fmt::format("killed by signal {} ({})", c.signal, strsignal(c.signal))
                          : fmt::format("exit status {}", c.exit_code);
    return fail(TorchFailure::kScriptFailed, why,
                fmt::format("the torch script failed in {} ({}): {}", python, how,
                            tail.empty() ? "no message" : tail));
  }
  if (c.out.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(TorchFailure::kBadOutput, why,
                fmt::format("the torch script ({}) printed nothing on stdout", python));
  }
  auto run = read_bench_run(c.out);
  if (!run) {
    Error e = run.error();
    e.what = "the torch script's output is not a smcompat.bench/1 document: " + e.what;
    e.in_file("<torch script stdout>");
    if (!e.offset) e.offset = json_error_offset(c.out);
    if (why) *why = TorchFailure::kBadOutput;
    return e;
  }
  BenchRun result = std::move(run).value();
  for (const BenchResult& r : result.results) {
    if (r.origin != Origin::kTorch) {
      return fail(TorchFailure::kBadOutput, why,
                  fmt::format("the torch script's result \"{}\" has origin {}, not torch", r.name,
                              to_string(r.origin)));
    }
  }
  if (!options.argv.empty()) result.argv = options.argv;
  if (!options.tool_version.empty()) result.tool_version = options.tool_version;
  fill_torch_peaks(result, options.catalog ? *options.catalog : Catalog::builtin());
  return result;
}

}  // namespace smcompat::bench
