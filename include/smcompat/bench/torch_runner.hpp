// The PyTorch view of `smcompat bench` (`smcompat bench --torch [--python PATH]`): runs the script
// shipped inside smcompat (data/bench/torch_bench.py, embedded at build time) in the user's Python
// as `python - ARGS...` with the script fed on stdin (nothing is written to disk, no user code is
// imported), reads the smcompat.bench/1 document it prints on stdout, and fills the catalog peaks
// of its GEMM rows with the same rule as the native suites (bench/peaks.hpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/bench/results.hpp"
#include "smcompat/bench/stats.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::bench {

/// How to run the torch script.
struct TorchOptions {
  /// The interpreter: a path (--python PATH), or empty for `python3` found on PATH.
  std::string python;
  /// The stopping rule applied to every configuration (passed as --min-samples, --min-time,
  /// --max-rel-stddev, --timeout, --max-samples).
  StopRule stop;
  /// --quick: fewer sizes. (The caller sets `stop` = StopRule::quick() as well.)
  bool quick = false;
  /// Row kinds to run (torch_row_kinds()); empty = all.
  std::vector<std::string> rows;
  /// "cuda", or "cpu": the script's own testing aid (tiny sizes, not a benchmark).
  std::string device = "cuda";
  int gpu = 0;  ///< CUDA ordinal
  /// Wall-clock limit for the whole script (seconds); the child and its process group are
  /// terminated (SIGTERM, then SIGKILL) when it is reached. <= 0: no limit.
  double timeout_s = 3600;
  /// Receives the script's stderr (progress lines) as it arrives; unset = copied to our stderr.
  std::function<void(std::string_view)> on_stderr;
  /// Recorded as the document's argv / tool_version; empty = what the script wrote.
  std::vector<std::string> argv;
  std::string tool_version;
  /// Catalog for device matching and peaks; nullptr = Catalog::builtin().
  const Catalog* catalog = nullptr;
};

/// Why run_torch_script() failed, for callers that map failures to exit statuses (kNoCuda: the
/// CLI's "no GPU" exit 2).
enum class TorchFailure {
  kNone,
  kNoInterpreter,  ///< the python is missing or cannot be started
  kNoTorch,        ///< torch cannot be imported there (script exit 3)
  kNoCuda,         ///< torch sees no CUDA device (script exit 2)
  kTimeout,        ///< the script ran past TorchOptions::timeout_s and was stopped
  kScriptFailed,   ///< any other exit status or a signal
  kBadOutput,      ///< stdout is not a smcompat.bench/1 document
};
const char* to_string(TorchFailure failure);

/// Runs the script and returns its run, GEMM peaks filled in. Errors: interpreter missing; torch
/// not importable (names the python and the fix); no CUDA device (the script's exit status 2);
/// timeout; the script failing otherwise (with the tail of its stderr); a document that is not
/// smcompat.bench/1 JSON (with the byte offset). `why`, when given, says which.
Result<BenchRun> run_torch_script(const TorchOptions& options, TorchFailure* why = nullptr);

/// The command line run_torch_script() passes after `python -`.
std::vector<std::string> torch_script_args(const TorchOptions& options);

/// The embedded script's text.
std::string_view torch_bench_script();

/// The row kinds the script knows (as its --list prints them): "gemm", "gemm_batched", ...
const std::vector<std::string>& torch_row_kinds();

/// Matches each device to the catalog (BenchDevice::catalog_gpu, where not yet set) and fills
/// `peak`/`peak_source` of the torch GEMM rows (suites torch.gemm, torch.gemm_batched) from
/// peak_tflops() for the row's params["dtype"]. Rows without a catalog GPU or figure keep none.
void fill_torch_peaks(BenchRun& run, const Catalog& catalog);

}  // namespace smcompat::bench
