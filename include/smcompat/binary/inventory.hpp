// Inventory: every piece of device code in a file, whatever the file is (host ELF, cubin, fatbin,
// PTX text, static archive, Python wheel/zip). Containers are found in every section, not only
// .nv_fatbin, and bare zstd cubins are found too (fatbin-format.md section 7). No policy here:
// verdicts come from verdict/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/binary/cubin.hpp"
#include "smcompat/binary/fatbin.hpp"
#include "smcompat/binary/ptx_header.hpp"
#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

enum class FileFormat { kUnknown, kHostElf, kCubin, kFatbin, kPtx, kArchive, kZip };
const char* to_string(FileFormat f);  // "unknown", "elf", "cubin", "fatbin", "ptx", "ar", "zip"

/// Compressed images up to this many decoded bytes are inflated to count their kernels (a cubin
/// holding any kernel is rarely this small; one with none is about 1 KB). Raw images are counted
/// in place at any size.
inline constexpr uint64_t kSmallCubinBytes = 8192;

/// One image of device code, as found in a file.
struct DeviceImage {
  SmTarget target;                ///< kind (sass/ptx/lto), arch, a/f variant
  std::string section;            ///< host ELF section holding it ("" for bare files)
  uint64_t container_offset = 0;  ///< file offset of its fatbin container (or of the bare image)
  uint64_t entry_offset = 0;      ///< file offset of its entry header (or of the bare image)
  bool in_container = true;       ///< false for bare zstd cubins and standalone cubin/PTX files
  Compression compression = Compression::kNone;
  uint64_t stored_size = 0;            ///< bytes stored (compressed size, or padded size if raw)
  uint64_t uncompressed_size = 0;      ///< declared decoded size (0 if unknown)
  std::optional<Version> ptx_version;  ///< PTX ISA version (PTX entries, from the entry header)
  uint16_t elf_abi = 0;                ///< cubin ABI version from the entry header (7 or 8)
  uint64_t flags = 0;                  ///< raw fatbin entry flags
  std::string identifier;
  std::string options;
  bool relocatable = false;  ///< from __nv_relfatbin, or an ET_REL cubin (-rdc)
  bool debug = false;        ///< -G
  /// Kernels in a cubin, or `.entry` functions in PTX, when known: from the deep decode, or read
  /// at header level for raw images and small compressed ones (kSmallCubinBytes). 0 marks an image
  /// with nothing to launch (libcufftw's and NPP's 872-byte sm_52 cubins, cuDNN's 56-byte PTX): it
  /// is not code any GPU can lack.
  std::optional<uint32_t> kernels;
  bool kernelless() const { return kernels && *kernels == 0; }
  // Deep details (InspectOptions::deep):
  std::optional<CubinInfo> cubin;
  std::optional<PtxHeader> ptx;
  std::optional<Error> decode_error;  ///< why the deep decode of this image failed
  // Where the stored payload lies within the bytes the inventory was made from (so it can be
  // decoded later without a re-scan); see decode_image().
  uint64_t payload_offset = 0;  ///< relative to the start of the inventoried buffer
};

/// A fatbin container as found (for per-container verdicts).
struct ContainerInfo {
  std::string section;
  uint64_t offset = 0;
  uint64_t size = 0;
  size_t first_image = 0;  ///< index into FileInventory::images
  size_t image_count = 0;
  bool relocatable = false;  ///< in __nv_relfatbin
};

/// How the container search went (not reported; for benchmarks and tests): each container or
/// bare cubin found is jumped over by its recorded size, and the next one is expected right at
/// its end (the next 8-aligned offset). Where something else is there the chain breaks and the
/// magic search reads on to the next hit; the reason is counted.
struct ChainCounts {
  uint64_t searched_from_section_start = 0;  ///< sections in which the search found a first hit
  uint64_t linked = 0;      ///< the next 8-aligned offset held a magic: no bytes searched
  uint64_t breaks_gap = 0;  ///< other bytes followed (padding, data, the end of the chain)
  uint64_t breaks_invalid_container = 0;  ///< a fatbin magic that did not validate
  uint64_t breaks_not_a_cubin = 0;        ///< a zstd magic that was not a bare cubin

  ChainCounts& operator+=(const ChainCounts& o) {
    searched_from_section_start += o.searched_from_section_start;
    linked += o.linked;
    breaks_gap += o.breaks_gap;
    breaks_invalid_container += o.breaks_invalid_container;
    breaks_not_a_cubin += o.breaks_not_a_cubin;
    return *this;
  }
};

/// Everything found in one file, or one member of an archive/zip.
struct FileInventory {
  std::string path;    ///< file path on disk
  std::string member;  ///< member path inside an archive or zip ("" for the file itself);
                       ///< nested members are joined with '!': "pkg.whl!lib/a.so"
  FileFormat format = FileFormat::kUnknown;
  uint64_t size = 0;
  std::vector<ContainerInfo> containers;
  std::vector<DeviceImage> images;
  std::vector<Error> errors;    ///< stop-this-item problems; the rest of the file was still read
  std::vector<Error> warnings;  ///< oddities that did not stop anything
  ChainCounts chain;            ///< how the container search went (host ELF and raw files)

  /// "path" or "path!member"
  std::string display_name() const { return member.empty() ? path : path + "!" + member; }
};

struct InspectOptions {
  bool deep = false;        ///< decode every image: cubin kernels/resources, PTX header
  bool bare_cubins = true;  ///< look for bare zstd cubins outside containers
  unsigned jobs = 0;        ///< threads for the deep decode (0 = all cores)
  uint64_t max_decoded_bytes = 1ull << 30;  ///< per image: decompression-bomb guard
  uint64_t max_member_bytes = 4ull << 30;   ///< per zip member read (a large one is spooled)
  int max_nesting = 3;                      ///< archives inside wheels inside ...
  /// Zip members storing at least this many bytes are inflated ahead by other threads (with
  /// jobs != 1), the walk staying in member order.
  uint64_t inflate_ahead_bytes = 16ull << 20;
  /// With `deep`: decode only the images this accepts (all when empty).
  std::function<bool(const DeviceImage&)> deep_filter;
};

/// What kind of file this is, from its first bytes (never fails; kUnknown if not ours).
FileFormat sniff_format(ByteView bytes, std::string_view name_hint = {});

/// What holds the bytes given to the inventory: memory of the caller's, or a read-only file
/// mapping (a MappedFile, a spooled member), whose pages the walk drops from the resident set as
/// it finishes with them, so that a large file costs the pages being read, not its size.
enum class Backing { kMemory, kFileMapping };

/// Inventories a buffer (a mapped file). Archives and zips produce one FileInventory per member
/// that holds device code or errors (members without either are left out), after the first for
/// the container file itself. Never fails as a whole: problems are recorded per item.
std::vector<FileInventory> inspect_buffer(ByteView bytes, const std::string& path,
                                          const InspectOptions& options,
                                          Backing backing = Backing::kMemory);

/// Inventories bytes that are one member of a container the caller reads itself (a file of a
/// container image's filesystem): like inspect_buffer(), but every FileInventory carries `path`
/// and `member` (nested members continue with '!'), and errors name "path!member".
std::vector<FileInventory> inspect_member(ByteView bytes, const std::string& path,
                                          const std::string& member, const InspectOptions& options,
                                          Backing backing = Backing::kMemory);

/// Maps the file at `path` and inventories it (errors opening it become a FileInventory error).
std::vector<FileInventory> inspect_file(const std::string& path, const InspectOptions& options);

/// Decodes an image found by inspect_buffer() from the same bytes: decompressed cubin ELF or PTX
/// text (with its trailing NUL removed). LTO-IR is refused (opaque).
Result<std::vector<uint8_t>> decode_image(ByteView bytes, const DeviceImage& image,
                                          uint64_t max_output);

/// Calls `visit` for every image of the file at `path` (recursing into archives and zips) with
/// its decoded payload. Errors decoding one image are passed to `on_error` and the walk goes on.
/// Returns false if the file itself could not be read.
using ImageVisitor =
    std::function<void(const FileInventory& file, const DeviceImage& image, ByteView payload)>;
using ErrorVisitor = std::function<void(const FileInventory& file, const Error& error)>;
bool visit_images(const std::string& path, const InspectOptions& options, const ImageVisitor& visit,
                  const ErrorVisitor& on_error = {});

/// Inventories an image handed to the driver in memory (cuModuleLoadData and friends): a
/// __fatBinC_Wrapper_t, a fatbin container, a cubin ELF or NUL-terminated PTX. The extent is
/// discovered from the image's own headers and never read beyond `max_size` bytes.
FileInventory inspect_memory_image(const void* image, uint64_t max_size,
                                   const InspectOptions& options);

}  // namespace smcompat
