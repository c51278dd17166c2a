// Answers from the wheel index: which release of a package to install for a GPU (advise), the
// packages x versions x verdict table for one GPU (query), and what a release added or dropped
// (diff). Pure functions of a WheelIndex and a Target; the CLI gathers the environment.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/index/record.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat {

/// The machine (wheel platform) a GPU is used with: "aarch64" for Grace-based and Jetson/DGX
/// Spark parts (GB10, GH200, GB200, Thor, Orin), else "x86_64". Overridable by the caller.
/// Decided by architecture (sm_53/62/72/87/101/110/121 are Arm SoCs or GB10) and otherwise by
/// the GPU's name (GpuSpec has no CPU field): "GB300" resolves to the catalog's B300 row, sold on
/// x86 too, so it gives "x86_64" unless the caller says aarch64.
std::string default_machine_for(const Target& target);

/// How one indexed release fits (its wheel for the machine). A release with several wheels for the
/// machine (Python tags) is judged by the worst of those with device code; wheels for the machine
/// hide pure ("any") wheels of the same release.
struct ReleaseFit {
  std::string version;
  std::string filename;
  WheelVerdict verdict;
  std::string cuda;  ///< WheelRecord::cuda: "12.8", "13", or runtime variants "11.8;...;13.0"
  /// The torch release it is built for when it pins one ("2.9.0" from "torch==2.9.0"), else "".
  /// Requirements behind an extra, or whose platform_machine marker names only other machines,
  /// are not pins; ranges (">=2.7") are not pins.
  std::string torch_pin;
};

/// What the environment already has, so that advice keeps lockstep packages in step.
struct AdviseEnvironment {
  std::vector<std::pair<std::string, std::string>> installed;  ///< (normalised name, version)
  std::string python;                  ///< the interpreter, for the pip command ("" -> "pip")
  std::optional<Version> driver_cuda;  ///< what the driver supports, for PTX-only releases
};

/// What to install. The recommended release is, in order: the version the installed torch's own
/// record pins the package to (torch pins triton); when no release carries GPU code, the newest;
/// the newest native release whose torch pin matches the installed torch (else the newest
/// native, installed together with the torch it pins); when nothing runs natively, the newest
/// release that runs through PTX JIT. Versions compare without their local label ("+cu128").
struct PackageAdvice {
  std::string package;  ///< normalised
  std::string machine;
  bool indexed = false;      ///< the index has wheels of it for this machine
  bool device_code = false;  ///< some indexed release carries GPU code (else nothing to judge)
  std::vector<ReleaseFit> releases;             ///< newest first
  std::optional<std::string> newest_native;     ///< newest release with native/compatible SASS
  std::optional<std::string> first_native;      ///< oldest release of the newest run of native ones
  bool first_native_is_oldest_indexed = false;  ///< the index starts there: "at or before"
  std::vector<std::string> jit_only;            ///< releases that would only JIT
  std::optional<std::string> installed_version;
  std::optional<std::string> recommended;  ///< the version to install (honouring pins)
  /// Exact pip command (`PYTHON -m pip install "pkg==ver"`, or `pip install ...` without a
  /// Python), or "" when nothing runs or the recommended release is the installed one.
  std::string install_command;
  std::vector<std::string> notes;  ///< why: pins honoured, driver needed, gaps
};

std::vector<PackageAdvice> advise(const WheelIndex& index, const std::vector<std::string>& packages,
                                  const Target& target, const AdviseEnvironment& environment,
                                  const std::string& machine = {});

/// One row of the query table.
struct QueryRow {
  std::string package, version, machine, filename, cuda;
  WheelVerdict verdict;
};
/// Every indexed wheel for `machine` (all machines when empty), judged for `target`, sorted by
/// package and version (newest first); `packages` restricts the rows when not empty.
std::vector<QueryRow> query_index(const WheelIndex& index, const Target& target,
                                  const std::string& machine = {},
                                  const std::vector<std::string>& packages = {});

/// What one wheel (or release) added or dropped against another.
struct WheelDiff {
  std::string package, machine;
  std::string old_version, new_version;
  std::string old_filename, new_filename;
  std::vector<std::string> added_sass, dropped_sass;
  std::vector<std::string> added_ptx, dropped_ptx;      ///< by target, ISA changes listed as both
  std::vector<std::string> added_files, dropped_files;  ///< members with device code
  std::string old_cuda, new_cuda;
  /// A SASS target, or a PTX target (whatever its ISA), that the old side had and the new lacks.
  /// A PTX ISA change alone ("compute_90@8.4" -> "compute_90@8.7") is listed in both PTX lists
  /// but is not a drop.
  bool dropped_any() const {
    if (!dropped_sass.empty()) return true;
    auto target_of = [](const std::string& p) { return p.substr(0, p.find('@')); };
    for (const auto& d : dropped_ptx) {
      bool kept = false;
      for (const auto& a : added_ptx) kept = kept || target_of(a) == target_of(d);
      if (!kept) return true;
    }
    return false;
  }
};
/// Pairs records by (package, machine): the newest version on each side (one record each when
/// both sides hold a single wheel, whatever their names), and compares them. A key on one side
/// only is compared with nothing (all added, or all dropped). Lists keep the records' order.
/// The index a command reads: the file at `path`, or the built-in index when `path` is empty
/// (shared, not copied: it is built once per process).
Result<std::shared_ptr<const WheelIndex>> load_wheel_index(const std::string& path);

/// One side of `index diff`: a wheel file (scanned now), an index file (all its records), or
/// PKG==VER looked up in the index at `index_path` (the built-in one when empty).
struct DiffSide {
  std::vector<WheelRecord> records;
  bool wheel_file = false;  ///< one wheel, scanned now
  bool lookup = false;      ///< PKG==VER: the release's wheels for every machine
};
Result<DiffSide> read_diff_side(const std::string& arg, const std::string& index_path);

/// A wheel file against PKG==VER: keeps the release's wheels for the wheel's machine only, so a
/// fresh scan of an aarch64 wheel is not also set against the x86_64 one.
void narrow_to_wheel_machine(DiffSide& lookup, const DiffSide& wheel);

std::vector<WheelDiff> diff_records(const std::vector<WheelRecord>& old_side,
                                    const std::vector<WheelRecord>& new_side);

}  // namespace smcompat
