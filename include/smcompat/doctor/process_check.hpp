// Checking a live process: which files with GPU device code it has mapped (/proc/PID/maps), which
// Python distribution owns each (the dist-info RECORD of the site-packages it lives under), and
// whether each runs on the GPU the process uses, judged by the doctor's own rules (doctor.hpp)
// over the loaded libraries only. With torch already imported, the caller passes what torch says
// at run time and three cross-checks compare it with the driver and the loaded libtorch_cuda.so.
// /proc/PID/maps format: proc(5), "/proc/pid/maps". Documented in docs/doctor.md ("Checking a
// running process"); JSON schema "smcompat.check/1" in docs/json-schema.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/doctor/facts.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::doctor {

/// One file-backed mapping of /proc/PID/maps (the first line that names the file).
struct MappedFile {
  std::string path;           ///< as the kernel prints it, " (deleted)" removed
  bool deleted = false;       ///< the kernel marked it " (deleted)": replaced or removed on disk
  std::string address_range;  ///< "7f1c2a000000-7f1c2a021000" (a /proc/PID/map_files name)
  uint64_t line_offset = 0;   ///< byte offset of that line in the maps text
};

/// The unique file-backed mappings of /proc/PID/maps text, in order of first appearance. Pseudo
/// entries ([heap], [stack], [vdso], [anon:…]), anonymous mappings, names without a file to read
/// (memfd, SysV shm) and device nodes (/dev/nvidiactl) are skipped. A malformed line is skipped and
/// described in `warnings` (source, byte offset of the line, reason); the call fails only when the
/// text is not maps at all (no line parses although some are present, or it holds a NUL byte).
Result<std::vector<MappedFile>> parse_proc_maps(std::string_view text, const std::string& source,
                                                std::vector<Error>* warnings = nullptr);

/// What torch says in the live process (passed in by a caller that has torch imported).
struct TorchRuntime {
  std::string version;                          ///< torch.__version__ ("2.7.1+cu128")
  std::string cuda;                             ///< torch.version.cuda ("12.8"; "" for CPU)
  std::vector<std::string> arch_list;           ///< torch.cuda.get_arch_list() ("sm_90", …)
  std::optional<ComputeCapability> capability;  ///< torch.cuda.get_device_capability()
  int device = 0;                               ///< torch.cuda.current_device()
  std::string device_name;                      ///< torch.cuda.get_device_name()
};

struct ProcessCheckOptions {
  int pid = 0;                      ///< 0 = this process
  std::string proc_root = "/proc";  ///< where PID/maps and PID/environ are read
  /// What-if targets besides the process's GPU, like doctor --gpu.
  std::vector<std::string> gpus;
  std::optional<TorchRuntime> torch;
  /// Driver facts gathered by the caller; else the probe runs (probe_system()).
  std::optional<DriverFacts> driver;
  /// The process's environment; empty: read from PROC/PID/environ when readable.
  Environment env;
  unsigned jobs = 0;  ///< files scanned in parallel (0 = all cores)
};

/// A loaded file that carries device code.
struct LoadedLibrary {
  std::string path;
  bool deleted = false;  ///< mapped file replaced on disk; read through map_files if possible
  std::string package;   ///< owning distribution ("" if none: the file is its own package)
  std::string version;   ///< the distribution's version ("" if none)
  LibraryCode code;      ///< device code (targets, inventories)
  /// Its verdict on the process's GPU (else the first target judged); unset without a target
  /// or for kernel-free code.
  std::optional<LibraryVerdict> verdict;
};

/// The result of checking one process.
struct ProcessCheck {
  int pid = 0;
  std::string maps;                      ///< the maps file read ("/proc/1234/maps")
  bool maps_read = false;                ///< false: the process could not be read (see errors)
  size_t mapped_files = 0;               ///< distinct file-backed mappings
  std::vector<LoadedLibrary> libraries;  ///< loaded files with device code, in maps order
  std::optional<TorchRuntime> torch;
  /// The process's GPU among report.targets (index), unset if the driver shows none.
  std::optional<size_t> gpu;
  /// Driver facts, targets, verdicts and findings from the doctor's rules over the loaded
  /// libraries (report.envs: one per site-packages, plus one for files outside any).
  DoctorReport report;
  std::vector<std::string> errors;  ///< unreadable maps, malformed lines, unreadable libraries
};

/// Checks a running process. Never throws; what could not be read is in `errors`.
ProcessCheck check_process(const ProcessCheckOptions& options,
                           const Catalog& catalog = Catalog::builtin());

/// A process's environment from the text of /proc/PID/environ (NUL-separated NAME=value).
Environment parse_environ(std::string_view text);

}  // namespace smcompat::doctor
