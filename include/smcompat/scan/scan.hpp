// Scanning paths: files, directories (recursively, symlink loops detected), archives and wheels;
// grouping files into packages (Python distributions by dist-info RECORD or wheel name, else the
// top-level folder or the file itself); optional verdicts for a target; progress events.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/binary/inventory.hpp"
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
  std::optional<Fit> verdict;  ///< worst file verdict among files with device code
  bool partial = false;        ///< some file has units without an image for the target
  size_t resource_warnings = 0;
};

struct ScanReport {
  std::vector<ScannedFile> files;        ///< files (and members) with device code or errors
  std::vector<PackageSummary> packages;  ///< in order of first appearance
  std::vector<Error> errors;             ///< walk problems: missing paths, loops, unreadable dirs
  size_t files_seen = 0;                 ///< regular files considered
  size_t files_skipped = 0;              ///< not object code (text, Python, ...)
  uint64_t bytes_scanned = 0;
};

/// The path field of one line of a dist-info RECORD (PEP 376 CSV: path,hash,size; a path with
/// commas or quotes is double-quoted, with "" for a quote). Empty for an empty line.
std::string dist_record_path(std::string_view line);

/// Scans each path (file or directory). Never fails as a whole.
ScanReport scan_paths(const std::vector<std::string>& paths, const ScanOptions& options);

}  // namespace smcompat
