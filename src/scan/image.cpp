// Container image reading and flattening (include/smcompat/scan/image.hpp). Every tar is read with
// libarchive: the outer image tar (from memory, mapped) and each layer, nested in it or a blob
// file of a layout directory. Two passes per image: headers only, to learn which (layer, entry)
// survives as each path of the final filesystem; then only the layers that hold a wanted
// surviving file, reading only those entries' bytes, one file at a time.
#include "smcompat/scan/image.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "image_store.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_fields.hpp"
#include "smcompat/util/json_read.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> kImageArchiveFormatNames = {"oci-layout", "oci-archive",
                                                                 "docker-archive"};
const char* to_string(ImageArchiveFormat format) {
  return enum_name(format, kImageArchiveFormatNames, "oci-layout");
}

std::optional<std::string> normalize_image_path(std::string_view path) {
  std::vector<std::string_view> parts;
  for (auto part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (auto p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

namespace {

constexpr const char* kWhiteoutPrefix = ".wh.";
constexpr const char* kOpaqueMarker = ".wh..wh..opq";
constexpr int kMaxIndexDepth = 4;
constexpr size_t kMaxErrorsPerLayer = 200;

using namespace image_store;

// ---------------------------------------------------------------------------------------------
// Manifests.

Result<nlohmann::json> parse_json(BlobStore& store, const std::string& name, uint64_t limit) {
  SMCOMPAT_TRY(auto text, store.read_small(name, limit));
  return parse_json_document(text, store.where(name));
}

// "sha256:<hex>" -> "blobs/sha256/<hex>", refusing anything that could leave blobs/.
std::optional<std::string> blob_name(const std::string& digest) {
  auto colon = digest.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == digest.size()) return std::nullopt;
  std::string alg = digest.substr(0, colon), hex = digest.substr(colon + 1);
  for (char c : alg)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '.' || c == '_' ||
          c == '-'))
      return std::nullopt;
  for (char c : hex)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '=' || c == '_' || c == '-'))
      return std::nullopt;
  return "blobs/" + alg + "/" + hex;
}

std::string platform_of(const nlohmann::json& p) {
  if (!p.is_object()) return "";
  std::string s = json_string(p, "os") + "/" + json_string(p, "architecture");
  if (auto v = json_string(p, "variant"); !v.empty()) s += "/" + v;
  return s == "/" ? "" : s;
}

bool is_index_type(const std::string& mt) {
  return mt == "application/vnd.oci.image.index.v1+json" ||
         mt == "application/vnd.docker.distribution.manifest.list.v2+json";
}

// One image to flatten: its layers by blob name.
struct ImagePlan {
  ContainerImage info;
  std::vector<std::string> blobs;  // blob names, one per layer ("" where the layer is unusable)
};

struct Reader {
  BlobStore& store;
  const ImageReadOptions& opt;
  ImageFileVisitor& visitor;
  ImageReadResult& result;
  std::string path;
  ImageArchiveFormat format;

  std::optional<std::string> reference_of(const nlohmann::json& desc) {
    if (!desc.contains("annotations") || !desc["annotations"].is_object()) return std::nullopt;
    const auto& a = desc["annotations"];
    for (const char* key : {"io.containerd.image.name", "org.opencontainers.image.ref.name"})
      if (auto s = json_string(a, key); !s.empty()) return s;
    return std::nullopt;
  }

  // The descriptors of an index to scan: all of them, unless they are platforms of one image
  // (then linux/amd64, or the only one).
  void collect(const nlohmann::json& index, const std::string& where, int depth,
               std::optional<std::string> reference, std::vector<ImagePlan>& plans) {
    if (!index.is_object() || !index.contains("manifests") || !index["manifests"].is_array()) {
      result.errors.push_back(make_error("image index has no \"manifests\" array").in_file(where));
      return;
    }
    std::vector<const nlohmann::json*> descs;
    bool platforms = false;
    for (const auto& d : index["manifests"]) {
      if (!d.is_object()) continue;
      std::string plat = d.contains("platform") ? platform_of(d["platform"]) : "";
      if (plat == "unknown/unknown") continue;  // buildx attestation manifests
      if (!plat.empty()) platforms = true;
      descs.push_back(&d);
    }
    std::string chosen_note;
    if (platforms && descs.size() > 1) {
      const nlohmann::json* pick = nullptr;
      std::vector<std::string> all;
      for (const auto* d : descs) {
        std::string plat = d->contains("platform") ? platform_of((*d)["platform"]) : "";
        all.push_back(plat);
        if (!pick && plat == "linux/amd64") pick = d;
      }
      if (!pick) pick = descs.front();
      std::string plat = pick->contains("platform") ? platform_of((*pick)["platform"]) : "";
      std::string list;
      for (const auto& p : all) list += (list.empty() ? "" : ", ") + p;
      chosen_note = fmt::format("multi-platform index ({}): {} chosen", list, plat);
      descs = {pick};
    }
    for (const auto* d : descs) {
      std::string mt = json_string(*d, "mediaType");
      std::string digest = json_string(*d, "digest");
      auto ref = reference_of(*d);
      if (!ref) ref = reference;
      auto blob = blob_name(digest);
      if (!blob) {
        result.errors.push_back(
            make_error(fmt::format("manifest descriptor has an invalid digest '{}'", digest))
                .in_file(where));
        continue;
      }
      if (is_index_type(mt)) {
        if (depth >= kMaxIndexDepth) {
          result.errors.push_back(
              make_error(fmt::format("image indexes nested more than {} deep", kMaxIndexDepth))
                  .in_file(store.where(*blob)));
          continue;
        }
        auto nested = parse_json(store, *blob, opt.max_json_bytes);
        if (!nested) {
          result.errors.push_back(nested.error());
          continue;
        }
        size_t before = plans.size();
        collect(*nested, store.where(*blob), depth + 1, ref, plans);
        if (!chosen_note.empty())
          for (size_t i = before; i < plans.size(); ++i) plans[i].info.notes.push_back(chosen_note);
        continue;
      }
      if (!mt.empty() && mt != "application/vnd.oci.image.manifest.v1+json" &&
          mt != "application/vnd.docker.distribution.manifest.v2+json") {
        result.warnings.push_back(
            make_error(fmt::format("descriptor of media type '{}' is not an image; skipped", mt))
                .in_file(where));
        continue;
      }
      ImagePlan plan;
      plan.info.path = path;
      plan.info.format = format;
      plan.info.reference = ref;
      plan.info.manifest_digest = digest;
      plan.info.platform = d->contains("platform") ? platform_of((*d)["platform"]) : "";
      if (!chosen_note.empty()) plan.info.notes.push_back(chosen_note);
      auto manifest = parse_json(store, *blob, opt.max_json_bytes);
      if (!manifest) {
        result.errors.push_back(manifest.error());
        continue;
      }
      if (!manifest->is_object() || !manifest->contains("layers") ||
          !(*manifest)["layers"].is_array()) {
        result.errors.push_back(
            make_error("image manifest has no \"layers\" array").in_file(store.where(*blob)));
        continue;
      }
      if (plan.info.platform.empty() && manifest->contains("config")) {
        if (auto cfg = blob_name(json_string((*manifest)["config"], "digest")))
          if (auto config = parse_json(store, *cfg, opt.max_json_bytes))
            plan.info.platform = platform_of(*config);
      }
      for (const auto& l : (*manifest)["layers"]) {
        ImageLayer layer;
        layer.digest = json_string(l, "digest");
        layer.media_type = json_string(l, "mediaType");
        if (l.contains("size") && l["size"].is_number_unsigned())
          layer.size = l["size"].get<uint64_t>();
        auto lb = blob_name(layer.digest);
        if (!lb)
          result.errors.push_back(
              make_error(fmt::format("layer descriptor has an invalid digest '{}'", layer.digest))
                  .in_file(store.where(*blob)));
        plan.blobs.push_back(lb ? *lb : "");
        plan.info.layers.push_back(std::move(layer));
      }
      plans.push_back(std::move(plan));
    }
  }

  void collect_docker(const nlohmann::json& manifest, std::vector<ImagePlan>& plans) {
    std::string where = store.where("manifest.json");
    if (!manifest.is_array()) {
      result.errors.push_back(make_error("manifest.json is not an array").in_file(where));
      return;
    }
    for (const auto& m : manifest) {
      if (!m.is_object() || !m.contains("Layers") || !m["Layers"].is_array()) {
        result.errors.push_back(
            make_error("manifest.json entry has no \"Layers\" array").in_file(where));
        continue;
      }
      ImagePlan plan;
      plan.info.path = path;
      plan.info.format = format;
      auto tags = json_string_list(m, "RepoTags");
      if (!tags.empty()) {
        std::string joined;
        for (const auto& t : tags) joined += (joined.empty() ? "" : ", ") + t;
        plan.info.reference = joined;
      }
      std::vector<std::string> diff_ids;
      if (auto cfg = normalize_image_path(json_string(m, "Config")); cfg && !cfg->empty()) {
        if (auto config = parse_json(store, *cfg, opt.max_json_bytes)) {
          plan.info.platform = platform_of(*config);
          if (config->contains("rootfs") && (*config)["rootfs"].is_object())
            diff_ids = json_string_list((*config)["rootfs"], "diff_ids");
        } else {
          result.errors.push_back(config.error());
        }
      }
      size_t i = 0;
      for (const auto& l : m["Layers"]) {
        ImageLayer layer;
        std::string name = l.is_string() ? l.get<std::string>() : "";
        auto n = normalize_image_path(name);
        if (!n || n->empty()) {
          result.errors.push_back(
              make_error(fmt::format("layer path '{}' is not inside the image tar", name))
                  .in_file(where));
          n = "";
        }
        if (i < diff_ids.size())
          layer.digest = diff_ids[i];
        else if (starts_with(*n, "blobs/sha256/"))
          layer.digest = "sha256:" + n->substr(13);
        layer.size = n->empty() ? 0 : store.size_of(*n);
        plan.blobs.push_back(*n);
        plan.info.layers.push_back(std::move(layer));
        ++i;
      }
      plans.push_back(std::move(plan));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Flattening.

  enum class Kind { kFile, kDir, kSymlink, kOther };
  struct Node {
    Kind kind = Kind::kOther;
    size_t layer = 0;  // where the bytes are (for a hard link: its target's entry)
    size_t entry = 0;  // 1-based index of the tar entry in that layer
    uint64_t size = 0;
  };
  using Tree = std::map<std::string, Node>;

  static void erase_below(Tree& tree, const std::string& dir) {
    // Everything strictly under `dir` ("" is the root): keys in [dir + "/", dir + "0").
    if (dir.empty()) {
      tree.clear();
      return;
    }
    tree.erase(tree.lower_bound(dir + "/"), tree.lower_bound(dir + "0"));
  }

  // Pass 1 over one layer: its entries applied on top of `tree`.
  void apply_layer(ContainerImage& image, size_t li, const std::string& blob, Tree& tree) {
    ImageLayer& layer = image.layers[li];
    if (blob.empty()) return;
    if (!layer.size) layer.size = store.size_of(blob);
    auto stream = store.open_layer(blob);
    if (!stream) {
      result.errors.push_back(stream.error());
      return;
    }
    archive* a = stream->get();
    const std::string where = store.where(blob);
    struct Pending {
      std::string path;
      Node node;
      std::string link;  // hard link target
    };
    std::vector<Pending> adds;
    std::vector<std::string> deletes, opaques;
    size_t problems = 0;
    auto warn = [&](std::string what) {
      if (problems++ < kMaxErrorsPerLayer)
        result.warnings.push_back(
            make_error(std::move(what), archive_filter_bytes(a, -1)).in_file(where));
    };
    archive_entry* e = nullptr;
    size_t index = 0;
    int r;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      ++index;
      ++layer.entries;
      const char* raw = archive_entry_pathname(e);
      std::string name = raw ? raw : "";
      auto p = normalize_image_path(name);
      if (!p) {
        warn(fmt::format("entry '{}' climbs above the image root; ignored", name));
        continue;
      }
      if (p->empty()) continue;  // the root directory itself
      std::string base = p->substr(p->rfind('/') == std::string::npos ? 0 : p->rfind('/') + 1);
      std::string parent = p->size() > base.size() ? p->substr(0, p->size() - base.size() - 1) : "";
      if (starts_with(base, kWhiteoutPrefix)) {
        ++layer.whiteouts;
        if (base == kOpaqueMarker) {
          opaques.push_back(parent);
        } else if (!starts_with(base, ".wh..wh.")) {  // other .wh..wh. names: AUFS metadata
          std::string target = base.substr(4);
          if (target.empty() || target == "." || target == "..") continue;
          deletes.push_back(parent.empty() ? target : parent + "/" + target);
        }
        continue;
      }
      Pending add{*p, {}, {}};
      add.node.layer = li;
      add.node.entry = index;
      if (const char* hl = archive_entry_hardlink(e)) {
        auto target = normalize_image_path(hl);
        if (!target || target->empty()) {
          warn(fmt::format("hard link '{}' points above the image root ('{}'); ignored", name, hl));
          continue;
        }
        add.node.kind = Kind::kFile;
        add.link = *target;
      } else {
        switch (archive_entry_filetype(e)) {
          case AE_IFREG:
            add.node.kind = Kind::kFile;
            add.node.size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
            break;
          case AE_IFDIR:
            add.node.kind = Kind::kDir;
            break;
          case AE_IFLNK:
            add.node.kind = Kind::kSymlink;  // recorded, never followed
            break;
          default:
            add.node.kind = Kind::kOther;
        }
      }
      adds.push_back(std::move(add));
    }
    if (r != ARCHIVE_EOF)
      result.errors.push_back(
          make_error(fmt::format("layer {} ({}): {}; entries after this point not read", li + 1,
                                 layer.digest, archive_message(a)),
                     archive_filter_bytes(a, -1))
              .in_file(where));
    // Whiteouts apply to the lower layers only (layer.md, "Whiteouts"), so before this layer's
    // own entries.
    for (const auto& d : opaques) erase_below(tree, d);
    for (const auto& d : deletes) {
      tree.erase(d);
      erase_below(tree, d);
    }
    for (auto& add : adds) {
      if (!add.link.empty()) {
        auto it = tree.find(add.link);
        if (it == tree.end() || it->second.kind != Kind::kFile) {
          warn(
              fmt::format("hard link '{}' -> '{}': no regular file of that name in this or an "
                          "earlier layer; ignored",
                          add.path, add.link));
          continue;
        }
        add.node = it->second;
      }
      if (add.node.kind == Kind::kDir) {
        auto it = tree.find(add.path);
        if (it != tree.end() && it->second.kind == Kind::kDir) continue;  // metadata only
        tree[add.path] = add.node;
        continue;
      }
      erase_below(tree, add.path);  // a file replacing a directory replaces its tree
      tree[add.path] = add.node;
    }
  }

  // Pass 2: the bytes of wanted surviving files, layer by layer.
  void read_files(size_t image_index, const ImagePlan& plan, const Tree& tree) {
    // layer -> entry -> members of the final filesystem carrying those bytes
    std::map<size_t, std::map<size_t, std::vector<std::string>>> needs;
    size_t files = 0;
    for (const auto& [path, node] : tree) {
      if (node.kind != Kind::kFile) continue;
      ++files;
      if (visitor.want(image_index, path, node.size)) needs[node.layer][node.entry].push_back(path);
    }
    result.images[image_index].files_in_image = files;
    for (auto& [li, entries] : needs) {
      const std::string& blob = plan.blobs[li];
      auto fail_all = [&](const Error& err,
                          const std::map<size_t, std::vector<std::string>>& left) {
        for (const auto& [entry, members] : left)
          for (const auto& m : members) visitor.file_error(image_index, m, err);
      };
      auto stream = store.open_layer(blob);
      if (!stream) {
        fail_all(stream.error(), entries);
        continue;
      }
      archive* a = stream->get();
      const std::string where = store.where(blob);
      archive_entry* e = nullptr;
      size_t index = 0;
      int r;
      while (!entries.empty() &&
             ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN)) {
        ++index;
        auto it = entries.find(index);
        if (it == entries.end()) continue;
        std::vector<std::string> members = std::move(it->second);
        entries.erase(it);
        uint64_t declared = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        if (declared > opt.max_file_bytes) {
          Error err =
              make_error(fmt::format("{} bytes, above the {}-byte limit for one file of "
                                     "an image; not read",
                                     declared, opt.max_file_bytes));
          for (const auto& m : members) visitor.file_error(image_index, m, err);
          continue;
        }
        // Memory follows the bytes that really arrive, not the declared size (a truncated layer
        // may declare gigabytes); a large file goes to a temporary file, as zip members do.
        SpooledBytes data = SpooledBytes::read(
            [&](uint8_t* buffer, uint64_t capacity) {
              return static_cast<int64_t>(archive_read_data(a, buffer, capacity));
            },
            declared, declared);
        if (data.failed() || !data.spool_error().empty() || data.size() != declared) {
          Error err =
              make_error(
                  fmt::format("layer {}: {} bytes of {} read: {}", li + 1, data.size(), declared,
                              data.spool_error().empty() ? archive_message(a) : data.spool_error()),
                  archive_filter_bytes(a, -1))
                  .in_file(where);
          for (const auto& m : members) visitor.file_error(image_index, m, err);
          continue;
        }
        for (const auto& m : members)
          visitor.file(image_index, m, data.view(),
                       data.file_backed() ? Backing::kFileMapping : Backing::kMemory);
      }
      if (!entries.empty())
        fail_all(make_error(fmt::format("layer {}: {}", li + 1, archive_message(a)),
                            archive_filter_bytes(a, -1))
                     .in_file(where),
                 entries);
    }
  }

  void run(std::vector<ImagePlan>& plans) {
    for (auto& plan : plans) {
      size_t image_index = result.images.size();
      result.images.push_back(plan.info);
      Tree tree;
      for (size_t li = 0; li < plan.blobs.size(); ++li)
        apply_layer(result.images[image_index], li, plan.blobs[li], tree);
      read_files(image_index, plan, tree);
    }
  }
};

void read_with(BlobStore& store, ImageArchiveFormat format, const std::string& path,
               ImageFileVisitor& visitor, const ImageReadOptions& opt, ImageReadResult& result) {
  Reader reader{store, opt, visitor, result, path, format};
  std::vector<ImagePlan> plans;
  if (format == ImageArchiveFormat::kDockerArchive) {
    auto manifest = parse_json(store, "manifest.json", opt.max_json_bytes);
    if (!manifest) {
      result.errors.push_back(manifest.error());
      return;
    }
    reader.collect_docker(*manifest, plans);
  } else {
    auto index = parse_json(store, "index.json", opt.max_json_bytes);
    if (!index) {
      result.errors.push_back(index.error());
      return;
    }
    reader.collect(*index, store.where("index.json"), 0, std::nullopt, plans);
  }
  reader.run(plans);
}

bool tar_magic(ByteView bytes) {
  // POSIX ustar ("ustar\0") and GNU tar ("ustar  ") both carry "ustar" at offset 257.
  return bytes.clamp(257, 5).as_string_view() == "ustar";
}

}  // namespace

std::optional<ImageArchiveFormat> sniff_image_tar(ByteView bytes) {
  if (!tar_magic(bytes)) return std::nullopt;
  TarStore store(bytes, "");
  if (store.index()) return std::nullopt;
  if (store.exists("index.json")) return ImageArchiveFormat::kOciArchive;
  if (store.exists("manifest.json")) return ImageArchiveFormat::kDockerArchive;
  // A cut-off OCI tar (index.json is often written last): an image with a located error, not a
  // plain file.
  if (store.exists("oci-layout") || (store.truncated() && store.has_blobs()))
    return ImageArchiveFormat::kOciArchive;
  return std::nullopt;
}

std::optional<ImageArchiveFormat> sniff_container_image(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (fs::is_regular_file(fs::path(path) / "oci-layout", ec) &&
        fs::is_regular_file(fs::path(path) / "index.json", ec))
      return ImageArchiveFormat::kOciLayout;
    return std::nullopt;
  }
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  auto mf = MappedFile::open(path);
  if (!mf) return std::nullopt;
  return sniff_image_tar(mf->view());
}

ImageReadResult read_image_tar(ByteView bytes, const std::string& path, ImageFileVisitor& visitor,
                               const ImageReadOptions& options) {
  ImageReadResult result;
  TarStore store(bytes, path);
  if (auto err = store.index()) {
    result.errors.push_back(*err);
    return result;
  }
  if (store.truncated()) result.errors.push_back(*store.truncated());
  ImageArchiveFormat format = store.exists("index.json")      ? ImageArchiveFormat::kOciArchive
                              : store.exists("manifest.json") ? ImageArchiveFormat::kDockerArchive
                                                              : ImageArchiveFormat::kOciArchive;
  read_with(store, format, path, visitor, options, result);
  return result;
}

ImageReadResult read_container_image(const std::string& path, ImageFileVisitor& visitor,
                                     const ImageReadOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    ImageReadResult result;
    DirectoryStore store(path);
    read_with(store, ImageArchiveFormat::kOciLayout, path, visitor, options, result);
    return result;
  }
  auto mf = MappedFile::open(path);
  if (!mf) {
    ImageReadResult result;
    result.errors.push_back(mf.error());
    return result;
  }
  return read_image_tar(mf->view(), path, visitor, options);
}

}  // namespace smcompat
