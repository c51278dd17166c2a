// Container images: OCI image layouts (a directory, or the same as a tar: `skopeo copy
// oci-archive:`, `docker save` of Docker >= 25) and `docker save` tarballs (manifest.json). The
// image's layers are applied in order into its final filesystem (regular files, hard links,
// symlinks, directories; whiteouts `.wh.NAME` and opaque directories `.wh..wh..opq` honoured, as
// the OCI image spec's layer.md says), then the surviving files the caller wants are handed over
// one at a time with their bytes. Layer tar streams (plain, gzip, zstd) are read with libarchive.
// Specs: https://github.com/opencontainers/image-spec (image-layout.md, image-index.md,
// manifest.md, layer.md); docker save: moby image/tarexport.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

enum class ImageArchiveFormat { kOciLayout, kOciArchive, kDockerArchive };
/// "oci-layout", "oci-archive", "docker-archive"
const char* to_string(ImageArchiveFormat format);

/// One layer of an image as its manifest describes it, with what its tar held.
struct ImageLayer {
  std::string digest;      ///< "sha256:…" (docker save: the config's diff_id, else from the path)
  std::string media_type;  ///< as the manifest says ("" for docker save's manifest.json)
  uint64_t size = 0;       ///< bytes of the blob (compressed), as declared or as found
  size_t entries = 0;      ///< tar entries read
  size_t whiteouts = 0;    ///< `.wh.` entries, opaque markers included
};

/// One image of an image archive (an index can hold several: `docker save a b`).
struct ContainerImage {
  std::string path;  ///< the image archive or layout directory as given
  ImageArchiveFormat format = ImageArchiveFormat::kOciLayout;
  std::optional<std::string> reference;  ///< RepoTags / io.containerd.image.name / ref.name
  std::string platform;                  ///< "linux/amd64" (from the index or the config)
  std::optional<std::string> manifest_digest;
  std::vector<ImageLayer> layers;
  size_t files_in_image = 0;       ///< regular files (hard links included) after flattening
  std::vector<std::string> notes;  ///< e.g. which platform of a multi-platform index was chosen
};

/// A directory holding `oci-layout` and `index.json`, or a tar holding `index.json` (OCI) or
/// `manifest.json` (docker save) at its top; nullopt for anything else (never fails).
std::optional<ImageArchiveFormat> sniff_container_image(const std::string& path);
/// The same for the bytes of a tar (oci-archive or docker-archive).
std::optional<ImageArchiveFormat> sniff_image_tar(ByteView bytes);

/// What the reader hands to its caller. Calls come from the reading thread, one at a time.
class ImageFileVisitor {
 public:
  virtual ~ImageFileVisitor() = default;
  /// Every regular file of image `image` (an index into ImageReadResult::images) that survives
  /// flattening, in path order, before any bytes are read; true to be handed its bytes.
  virtual bool want(size_t image, const std::string& member, uint64_t size) = 0;
  /// The bytes of a wanted file (valid during the call only): in memory, or for a large file a
  /// mapping of a temporary file (`backing`), whose pages the inventory may drop as it reads.
  virtual void file(size_t image, const std::string& member, ByteView bytes, Backing backing) = 0;
  /// A wanted file whose bytes could not be read (above the size limit, corrupt layer).
  virtual void file_error(size_t image, const std::string& member, Error error) = 0;
};

struct ImageReadOptions {
  uint64_t max_file_bytes = 4ull << 30;   ///< per file of the image held in memory
  uint64_t max_json_bytes = 16ull << 20;  ///< index.json, manifests, configs
};

struct ImageReadResult {
  std::vector<ContainerImage> images;
  /// Located problems: bad JSON, missing blobs, corrupt layers, `..` escaping the root, hard
  /// links to nothing. Each stops only the item it names.
  std::vector<Error> errors;
  std::vector<Error> warnings;
};

/// Reads the image archive or layout directory at `path` (as sniffed). Never fails as a whole.
ImageReadResult read_container_image(const std::string& path, ImageFileVisitor& visitor,
                                     const ImageReadOptions& options = {});
/// Reads an image tar held in memory (`path` names it in errors).
ImageReadResult read_image_tar(ByteView bytes, const std::string& path, ImageFileVisitor& visitor,
                               const ImageReadOptions& options = {});

/// A path inside an image, normalised: leading "./" and "/" stripped, "." and empty components
/// dropped, ".." applied; nullopt when ".." climbs above the root. "" is the root itself.
std::optional<std::string> normalize_image_path(std::string_view path);

}  // namespace smcompat
