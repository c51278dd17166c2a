// The wheel index: what device code each released wheel of a GPU package carries, recorded once
// per wheel (header level: targets, PTX ISA versions, loading units) so that verdicts for any GPU
// can be computed later without the wheel. A record is made by scanning the wheel with the
// inventory (members read from the zip, nothing extracted) and is stored in an index file
// (schema smcompat.index/1, docs/json-schema.md). Records turn back into verdicts through the one
// verdict function (judge_file) by rebuilding the inventory's units from the record.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/scan/pep440.hpp"  // compare_versions
#include "smcompat/util/json_stream.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/strings.hpp"  // normalize_package_name
#include "smcompat/verdict/fit.hpp"
#include "smcompat/verdict/package.hpp"
#include "smcompat/verdict/runtime_need.hpp"  // marker_applies, infer_cuda_runtime
#include "smcompat/verdict/targets.hpp"

namespace smcompat {

inline constexpr const char* kWheelIndexSchema = "smcompat.index/1";

/// One image of a unit as the index keeps it: its target and, for PTX, the ISA version.
struct IndexedImage {
  SmTarget target;
  std::optional<Version> ptx_isa;
  /// "sm_90a", "compute_90@8.4" (PTX with its ISA), "lto_90"
  std::string to_string() const;
  static std::optional<IndexedImage> parse(std::string_view text);
  auto operator<=>(const IndexedImage&) const = default;
};

/// A loading unit (a fatbin container or a standalone image) reduced to the targets it offers;
/// identical units of one file are kept once with a count.
struct UnitSignature {
  std::vector<IndexedImage> images;  ///< sorted, distinct
  bool prelink = false;              ///< a __nv_relfatbin container (-rdc pre-link code)
  bool bare = false;                 ///< a standalone image (bare cubin, .cubin/.ptx member)
  size_t count = 1;
  auto operator<=>(const UnitSignature&) const = default;
};

/// One member of a wheel that holds device code (or could not be read).
struct IndexedFile {
  std::string path;   ///< member path inside the wheel ("torch/lib/libtorch_cuda.so"), or for a
                      ///< group of standalone images "dir/*.cubin" (see `count`)
  uint64_t size = 0;  ///< bytes (of all files of a group)
  size_t images = 0;
  /// Files this entry stands for: standalone cubin/PTX members of one directory with identical
  /// units are kept as one entry (flashinfer-cubin ships 12,000 such files per wheel); the
  /// verdict is the same for each of them.
  size_t count = 1;
  std::vector<UnitSignature> units;  ///< sorted
  std::vector<std::string> errors;   ///< inventory errors, as Error::to_string() without the path
  bool operator==(const IndexedFile&) const = default;
};

/// Everything the index knows about one wheel file.
struct WheelRecord {
  std::string package;   ///< normalised distribution name (PEP 503: lower case, runs of -_. -> -)
  std::string version;   ///< as in the wheel's file name
  std::string filename;  ///< the wheel's file name
  std::string python_tag, abi_tag, platform_tag;  ///< from the file name (compressed tag sets kept)
  std::string machine;  ///< "x86_64", "aarch64", ... from the platform tag ("any" for pure wheels)
  uint64_t size = 0;    ///< bytes of the wheel file
  std::string sha256;   ///< hex digest of the wheel file
  size_t members = 0;   ///< files in the wheel (zip entries that are not directories)
  /// Requires-Dist lines of the wheel's METADATA that pin torch or name NVIDIA/CUDA wheels, as
  /// written (markers kept): the lockstep pins and the CUDA runtime come from these.
  std::vector<std::string> requires_dist;
  /// The CUDA runtime the wheel needs ("12.8", "13", ...; "" when it has no CUDA code or nothing
  /// says), and the evidence ("requires nvidia-cuda-runtime-cu12==12.8.90", "bundles
  /// libcudart.so.12", "-cu12 in the package name").
  std::string cuda;
  std::string cuda_evidence;
  /// CUDA runtime libraries the wheel bundles (member base names: "libcudart.so.12").
  std::vector<std::string> runtime_libraries;
  std::vector<std::string> sass;    ///< distinct SASS targets over all files, ascending ("sm_120a")
  std::vector<std::string> ptx;     ///< distinct PTX targets with ISA ("compute_120@8.7")
  std::vector<std::string> lto;     ///< distinct LTO-IR targets
  std::vector<IndexedFile> files;   ///< members with device code or errors, by path
  std::vector<std::string> errors;  ///< the wheel itself could not be read (truncated, not a zip)
  bool operator==(const WheelRecord&) const = default;
};

/// Something the index build could not do, kept in the index so that a gap is visible.
struct IndexFailure {
  std::string package;   ///< as requested
  std::string version;   ///< "" when the whole package failed (unknown, no binary wheels)
  std::string platform;  ///< the platform set ("linux_x86_64", "linux_aarch64") or ""
  std::string stage;     ///< "list", "resolve", "download", "scan"
  std::string message;   ///< one sentence, with pip's own last error line where there is one
  bool operator==(const IndexFailure&) const = default;
};

struct WheelIndex {
  std::string built;  ///< UTC date the index was built or last merged ("2026-11-25")
  std::string tool_version;
  std::string rebuild;                 ///< the command that rebuilds it
  std::vector<std::string> platforms;  ///< platform sets indexed
  std::vector<WheelRecord> wheels;     ///< sorted by package, version (PEP 440 order), filename
  std::vector<IndexFailure> failures;
};

/// Scans one wheel file into a record. Never fails as a whole: a wheel that cannot be read
/// becomes a record with `errors` (name, version and tags still come from the file name when it
/// parses; a file name that is not a wheel's is an error result).
Result<WheelRecord> index_wheel(const std::string& path, const InspectOptions& options = {});

/// The record of a wheel from inventories of it (inspect_file's output) and its file-level facts;
/// index_wheel() = this over inspect_file plus METADATA, hash and member count.
void add_inventories(WheelRecord& record, const std::vector<FileInventory>& inventories);

/// Sets `cuda` and `cuda_evidence` from the record's own facts (requirements whose markers hold
/// on its machine, bundled runtimes, runtime-variant libraries, the package name) by the one rule
/// (verdict/runtime_need.hpp). index_wheel() and normalize() call it, so a corrected rule reaches
/// old records on the next merge.
void infer_cuda(WheelRecord& record);

nlohmann::json to_json(const WheelRecord& record);
nlohmann::json to_json(const WheelIndex& index);
/// The same document written wheel by wheel (`index build`/`add`/`merge` output).
void write_json(JsonWriter& out, const WheelIndex& index);
Result<WheelRecord> wheel_record_from_json(const nlohmann::json& j);
/// Parses an index document; `file` names it in errors.
Result<WheelIndex> wheel_index_from_json(const nlohmann::json& j, const std::string& file = {});
Result<WheelIndex> read_wheel_index(const std::string& path);
/// The index shipped in data/wheel_index.json (embedded at build time).
const WheelIndex& builtin_wheel_index();

/// Sorts wheels and failures into the index's canonical order; a wheel present twice (same
/// sha256) is kept once; a failure for a wheel that is now indexed is dropped.
void normalize(WheelIndex& index);
/// Merges indexes (shards, or an old index and a new build) into one, normalised.
WheelIndex merge_indexes(std::vector<WheelIndex> parts);

/// How one indexed file fits a GPU, through judge_file on the inventory rebuilt from the record.
struct IndexedFileVerdict {
  std::string path;
  Fit fit = Fit::kNoImage;
  /// Code for other GPUs only: every unit holds a/f code for other GPUs, or is a standalone
  /// image (a cubin the library picks by architecture at run time) for another GPU.
  bool specialized_elsewhere = false;
  std::string summary;
};

/// How a wheel fits a GPU: per file, and overall through judge_package() (verdict/package.hpp),
/// the roll-up scan and the doctor use too. Files that are arch-gated specialisations for other
/// GPUs (FlashAttention-3's sm_90a library on an RTX 5090) do not decide the verdict; for
/// packages that ship one library per CUDA runtime and load one of them (bitsandbytes'
/// libbitsandbytes_cudaXYZ.so) the best variant decides, and is named. The wheel's CUDA runtime
/// (`cuda`) is checked against the target's driver.
struct WheelVerdict {
  Fit fit = Fit::kNoImage;  ///< kNoImage also when the wheel has no device code at all
  bool has_device_code = false;
  std::vector<IndexedFileVerdict> files;
  std::string variant;  ///< the runtime variant file that decided, if any
  /// For PTX-only fits: the lowest CUDA version (driver) whose JIT accepts the wheel's PTX.
  std::optional<Version> driver_cuda_needed;
  std::string summary;  ///< one line for people
  PackageFit package;   ///< the roll-up (verdict/package.hpp) the fit comes from
};
WheelVerdict judge_wheel(const WheelRecord& record, const Target& target);

/// The inventory judge_file would have seen for an indexed file (units rebuilt from signatures).
FileInventory rebuild_inventory(const IndexedFile& file);

}  // namespace smcompat
