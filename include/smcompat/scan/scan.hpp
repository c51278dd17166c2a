// Scanning paths: files, directories (recursively, symlink loops detected), archives and wheels;
// grouping files into packages (Python distributions by dist-info RECORD or wheel name, else the
// top-level folder or the file itself); optional verdicts for a target; progress events.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/scan/image.hpp"
#include "smcompat/verdict/package.hpp"
#include "smcompat/verdict/runtime_need.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat {

struct ScanProgress {
  size_t files_done = 0;
  size_t files_total = 0;
  uint64_t bytes_done = 0;
  std::string current;  ///< the file just finished
};

struct ScanOptions {
  std::optional<Target> target;  ///< verdicts only when set
  InspectOptions inspect;        ///< deep, limits
  unsigned jobs = 0;             ///< files scanned in parallel (0 = all cores)
  /// Files under a directory holding *.dist-info folders belong to the distribution whose
  /// RECORD lists them; off, packages are named by folder or file only.
  bool group_by_record = true;
  /// Called after each file (from worker threads, serialised by the scanner).
  std::function<void(const ScanProgress&)> progress;
};

struct ScannedFile {
  FileInventory inventory;
  std::string package;  ///< distribution or library it belongs to
  std::optional<FileVerdict> verdict;
};

struct PackageSummary {
  std::string name;
  std::string version;                    ///< from dist-info / wheel name, if known
  std::string kind;                       ///< "python-distribution", "wheel", "directory", "file"
  std::vector<size_t> files;              ///< indices into ScanReport::files
  std::vector<std::string> sass_targets;  ///< distinct sm_XX present, ascending
  std::vector<std::string> ptx_targets;   ///< distinct compute_XX present
  std::vector<std::string> lto_targets;
  size_t images = 0;
  size_t errors = 0;
  /// The package verdict (judge_package: the libraries that load on the target), when it has
  /// device code.
  std::optional<Fit> verdict;
  std::optional<PackageFit> fit;  ///< the roll-up behind `verdict` (roles, JIT units, reasons)
  /// The CUDA runtime it needs, for wheels (METADATA, bundled libcudart, names); checked against
  /// the target's driver by the roll-up when it is one version.
  RuntimeGuess runtime;
  bool partial = false;  ///< some file has units without an image for the target
  size_t resource_warnings = 0;
};

/// A CUDA runtime library the walk saw (fleet merge compares runtimes across machines).
struct CudaRuntimeLibrary {
  std::string path;    ///< file, wheel or container image
  std::string member;  ///< path inside the wheel or image ("" for a file)
  int major = 0;       ///< from the file name (libcudart.so.12 -> 12)
  /// "N.M[.P]" from the file name (libcudart.so.12.8.90), else the version of the owning
  /// nvidia-cuda-runtime[-cuN] distribution or wheel, else unknown.
  std::optional<std::string> version;
};

struct ScanReport {
  std::vector<ScannedFile> files;        ///< files (and members) with device code or errors
  std::vector<PackageSummary> packages;  ///< in order of first appearance
  std::vector<Error> errors;             ///< walk problems: missing paths, loops, unreadable dirs
  /// Oddities that stopped nothing (container images: entries escaping the root, hard links to
  /// nothing, descriptors that are not images).
  std::vector<Error> warnings;
  std::vector<CudaRuntimeLibrary> cuda_runtimes;  ///< every libcudart seen, symlinks once
  std::vector<ContainerImage> images;             ///< container images scanned
  size_t files_seen = 0;                          ///< regular files considered
  size_t files_skipped = 0;                       ///< not object code (text, Python, ...)
  uint64_t bytes_scanned = 0;
};

/// The path field of one line of a dist-info RECORD (PEP 376 CSV: path,hash,size; a path with
/// commas or quotes is double-quoted, with "" for a quote). Empty for an empty line.
std::string dist_record_path(std::string_view line);

/// One installed Python distribution as its .dist-info directory says: core metadata ("Name:",
/// "Version:" headers, PEP 566) and the files of its RECORD (PEP 376). scan_paths() groups files
/// into packages by these RECORDs; the doctor reads an environment's packages with it.
struct InstalledDistribution {
  std::string name;       ///< METADATA Name, else from the directory name (name-version.dist-info)
  std::string version;    ///< METADATA Version, else from the directory name
  std::string dist_info;  ///< the .dist-info directory
  std::vector<std::string> requires_dist;  ///< METADATA Requires-Dist lines, markers kept
  /// RECORD's files as absolute, lexically normal paths (relative ones are under the directory
  /// holding the .dist-info), each once, in RECORD order.
  std::vector<std::string> files;
  bool has_record = false;
  std::vector<std::string> warnings;  ///< METADATA or RECORD missing
};
InstalledDistribution read_installed_distribution(const std::string& dist_info_dir);
/// The same from the texts of METADATA and RECORD (nullopt: the file is missing), as read from
/// somewhere else than a directory (a container image).
InstalledDistribution parse_installed_distribution(const std::string& dist_info_dir,
                                                   const std::optional<std::string>& metadata,
                                                   const std::optional<std::string>& record);

/// The .dist-info directories directly inside `dir` (a site-packages directory), sorted.
/// `error` is set when `dir` cannot be read.
std::vector<std::string> dist_info_dirs(const std::string& dir, std::error_code* error = nullptr);

/// Whether a directory walk leaves a file out by its name alone (.py, .txt, headers, RECORD, …):
/// names that cannot hold object code. Paths given to scan_paths() as files are never skipped.
bool scan_skips_by_name(std::string_view file_name);

/// Scans each path (file, directory, or container image: an OCI layout directory, an OCI or
/// docker-save tarball; scan/image.hpp). Files inside an image are reported with `path` the
/// image and `member` the path in its flattened filesystem. Never fails as a whole.
ScanReport scan_paths(const std::vector<std::string>& paths, const ScanOptions& options);

/// Sets every file's and package's verdict in `report` for `target` (scan_paths does this when
/// ScanOptions::target is set): one scan judged again for another GPU needs no second walk.
void judge_report(ScanReport& report, const Target& target);

}  // namespace smcompat
