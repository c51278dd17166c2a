// The trace report: reads the JSON-lines records written by the LD_PRELOAD shim
// (libsmcompat_trace.so, src/trace/shim/), classifies what the driver chose for every module and
// library (native SASS / compatible SASS / PTX JIT / failed) from the function attributes the
// driver reported, and compares that with the prediction made from the images alone (printed by
// report/trace_report.hpp). Also runs a command under the shim and states what a compute-capability
// override implies. References: ../shared/reference/driver-api.md section 5.2 (classification
// rule), 4.2 (what a masquerade breaks); ../shared/reference/compatibility-rules.md section 7
// (selection working model). Record and report schemas: docs/trace.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat::trace {

/// One image a loaded container offered (from the shim's inventory of it).
struct OfferedImage {
  SmTarget target;
  std::optional<Version> ptx_isa;  ///< PTX ISA version (PTX images)
};

/// A function (CUfunction/CUkernel) of a load and what the driver said about it.
struct TracedFunction {
  std::string name;
  std::optional<int> binary_version;  ///< CU_FUNC_ATTRIBUTE_BINARY_VERSION (e.g. 120)
  std::optional<int> ptx_version;     ///< CU_FUNC_ATTRIBUTE_PTX_VERSION (e.g. 90)
  std::optional<int> num_regs;
  std::optional<double> get_ms;  ///< time of the cuModuleGetFunction/cuKernelGetFunction call
};

/// How a load ended up running is a smcompat::Fit (verdict/fit.hpp): kNative, kCompatibleSass or
/// kPtxJit when observed running, kFailed when the load call failed, kUnknown when it loaded but
/// the driver reported nothing to tell which image ran. These five are the only values trace
/// produces; kObservedFits lists them in report order.
inline constexpr Fit kObservedFits[] = {Fit::kNative, Fit::kCompatibleSass, Fit::kPtxJit,
                                        Fit::kFailed, Fit::kUnknown};

/// What the working model predicts for a set of images on a device (compatibility-rules.md 7).
struct Prediction {
  Fit outcome = Fit::kUnknown;    ///< kFailed when nothing can run
  std::optional<SmTarget> image;  ///< the image expected to be chosen
  int error = 0;                  ///< expected CUresult when kFailed (209, 222 or 223)
  std::string reason;
};

/// Options of the environment that change the driver's choice (recorded by the shim at start).
struct JitEnv {
  bool force_ptx_jit = false;    ///< CUDA_FORCE_PTX_JIT=1
  bool disable_ptx_jit = false;  ///< CUDA_DISABLE_PTX_JIT=1
  std::string module_loading;    ///< CUDA_MODULE_LOADING
};

/// What `smcompat scan` predicts (verdict/'s judge_file, treating the images as one unit) for
/// `images` on a device of compute capability `cc` with a driver supporting CUDA `driver_cuda`
/// (if known), adjusted for CUDA_FORCE_PTX_JIT / CUDA_DISABLE_PTX_JIT in `env`.
Prediction predict(const std::vector<OfferedImage>& images, ComputeCapability cc,
                   std::optional<Version> driver_cuda, const JitEnv& env,
                   const Catalog& catalog = Catalog::builtin());

/// One module or library load as recorded, with the analysis filled in by analyze().
struct TracedLoad {
  uint64_t id = 0;
  int pid = 0;
  size_t line = 0;     ///< line of the record in the trace file (1-based)
  std::string api;     ///< cuModuleLoadData, cuLibraryLoadData, ...
  std::string kind;    ///< "module" or "library"
  std::string source;  ///< "memory" or "file"
  std::string path;    ///< for file loads
  std::string format;  ///< fatbin, cubin, ptx, ... (inventory)
  int result = 0;      ///< CUresult
  std::string error;   ///< CUresult name when result != 0
  std::optional<int> device;
  std::optional<ComputeCapability> device_cc;  ///< the real CC (never the override); for a
                                               ///< context-independent load, every device's
                                               ///< when they are all the same
  /// A load with no current context (a library serves every device): each device's real CC.
  std::vector<ComputeCapability> devices_cc;
  std::optional<int> driver_cuda;  ///< cuDriverGetVersion
  double load_ms = 0;
  std::optional<double> jit_wall_ms;  ///< CU_JIT_WALL_TIME as the driver reported it
  std::string jit_error_log;
  std::vector<OfferedImage> images;
  std::string inventory_error;
  std::vector<TracedFunction> functions;
  std::optional<double> first_use_ms;  ///< first cuModuleGetFunction / cuLibraryGetKernel
  /// A library loads lazily: with no image for the device, cuLibraryLoadData succeeds and the
  /// first cuLibraryGetKernel fails (CUDA_ERROR_NO_BINARY_FOR_GPU; CUDA_ERROR_NOT_FOUND for -rdc
  /// SASS of another arch), observed on an H200 with driver 580. The first failed lookup, when
  /// none succeeded.
  std::optional<int> first_use_error;
  std::string first_use_error_name;
  std::string first_use_api;
  bool got_function = false;      ///< some function or kernel lookup succeeded
  bool functions_listed = false;  ///< the shim enumerated the functions at load (maybe none)
  bool unloaded = false;

  // Filled by analyze():
  Fit outcome = Fit::kUnknown;     ///< one of kObservedFits
  std::optional<SmTarget> chosen;  ///< the offered image the driver's answer points to
  std::string how;                 ///< "sm_80 SASS on 8.6", "JIT of compute_90 to sm_120", ...
  bool from_outside = false;       ///< the code that ran was not among the offered images
  std::optional<Prediction> predicted;
  bool disagrees = false;  ///< observed and predicted outcome/image differ
};

/// A symbol lookup the shim saw (only bootstrap lookups and wrapped names are recorded by
/// default).
struct TracedLookup {
  std::string via;  ///< "dlsym", "cuGetProcAddress", "cuGetProcAddress_v2"
  std::string name;
  std::optional<int> version;
  uint64_t flags = 0;
  bool wrapped = false;
  bool found = false;
  int pid = 0;
};

/// A compute-capability query and whether the override changed its answer (one record per caller
/// object and API).
struct CcQuery {
  std::string api;
  std::string caller;  ///< object that called (path)
  std::string real_cc;
  std::string reported_cc;
  bool overridden = false;
  int pid = 0;
};

/// A process that started with the shim loaded.
struct TracedProcess {
  int pid = 0;
  std::string exe;
  std::string report_cc;  ///< override in effect ("" if none)
  std::vector<std::string> only_for;
  JitEnv env;
};

struct TraceLog {
  std::vector<TracedProcess> processes;
  std::vector<TracedLoad> loads;
  std::vector<TracedLookup> lookups;
  std::vector<CcQuery> cc_queries;
  std::vector<Error> warnings;  ///< unreadable lines (file + line in `what`)
};

/// Parses trace records (JSON lines). Bad lines become warnings; never fails as a whole.
TraceLog parse_trace(std::string_view text, const std::string& name);
/// Reads and parses a trace file; an error only if the file cannot be read.
Result<TraceLog> read_trace(const std::string& path);

/// Classifies every load (driver-api.md 5.2) and attaches the prediction.
void analyze(TraceLog& log, const Catalog& catalog = Catalog::builtin());

struct TraceSummary {
  size_t loads = 0;
  std::map<Fit, size_t> loads_by_outcome;
  std::map<Fit, size_t> functions_by_outcome;
  size_t disagreements = 0;
  size_t overridden_queries = 0;
};
TraceSummary summarize(const TraceLog& log);

/// What reporting `fake` to the application implies on a device that really is `real`: which
/// kinds of code built for the fake capability can still run (compatibility-rules via
/// fit_image()). One sentence per target kind.
std::vector<std::string> override_implications(ComputeCapability fake, ComputeCapability real,
                                               const Catalog& catalog = Catalog::builtin());

/// The same for the images in files the application will load (its executable, libraries named
/// by the user): per file, how its code fares on the real device (verdict/, as `scan` predicts
/// it) and what becomes of the images built for the reported capability. Files without device
/// code are skipped; unreadable ones get a line saying so.
std::vector<std::string> override_implications_for_files(
    const std::vector<std::string>& paths, ComputeCapability fake, ComputeCapability real,
    std::optional<Version> driver_cuda, const Catalog& catalog = Catalog::builtin());

/// What --report-cc implies, before a run: the device's real capability (nullopt without a
/// driver), override_implications(), and override_implications_for_files() for the program's own
/// file (found as execvp finds it) and `images`.
struct OverridePreview {
  std::optional<ComputeCapability> real_cc;
  std::vector<std::string> implications, file_predictions;
};
OverridePreview preview_override(ComputeCapability reported, const std::string& program,
                                 const std::vector<std::string>& images);

/// Running a command under the shim.
struct RunOptions {
  std::string shim_path;   ///< libsmcompat_trace.so
  std::string trace_file;  ///< where the shim appends its records
  std::optional<ComputeCapability> report_cc;
  std::vector<std::string> only_for;
};
/// The environment entries (NAME=value) that load the shim, given the current LD_PRELOAD.
std::vector<std::pair<std::string, std::string>> shim_environment(const RunOptions& options);
/// Runs `argv` with the shim preloaded and waits for it. Returns its exit status (128 + signal
/// number if it was killed), or an error if it could not be started.
Result<int> run_traced(const std::vector<std::string>& argv, const RunOptions& options);

/// Where the shim writes one run's records: a temporary file removed at the end, or, for
/// `--records PATH`, a file beside PATH renamed over it once the run is over (an earlier file is
/// never left truncated by a failed run or a full disk).
class RecordsFile {
 public:
  /// `keep` empty: a temporary file; else the path the records end up at.
  static Result<RecordsFile> create(const std::string& keep);
  RecordsFile(RecordsFile&& other) noexcept;
  RecordsFile& operator=(RecordsFile&&) = delete;
  ~RecordsFile();  ///< removes the file unless finish() moved it into place
  const std::string& path() const { return path_; }
  /// Renames the records into place (kept) or removes them (temporary).
  std::optional<Error> finish();

 private:
  RecordsFile() = default;
  std::string path_, keep_;
  bool done_ = false;
};

/// The real compute capability of device `ordinal` as this machine's driver reports it
/// (the probe's true_cc()); nullopt without a usable driver.
std::optional<ComputeCapability> query_device_cc(int ordinal = 0);

/// Locates libsmcompat_trace.so: $SMCOMPAT_TRACE_LIB, else ../lib/ next to the executable
/// `self_exe`, else the install prefix's lib/.
std::optional<std::string> find_shim(const std::string& self_exe);

}  // namespace smcompat::trace
