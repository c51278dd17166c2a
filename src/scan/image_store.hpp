// Where a container image's blobs live, for image.cpp (module-internal): a layout directory or an
// image tar read with libarchive, behind one BlobStore interface; layer streams nested in the
// outer tar or opened from a blob file.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "smcompat/scan/image.hpp"
#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::image_store {

namespace fs = std::filesystem;

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

// The compressions layers use (layer.md: none, gzip, zstd) and the common ones a hand-made tar
// might, each through its library: not archive_read_support_filter_all(), which would also run
// external programs (lrzip, lzop, grzip) on hostile input.
inline void add_layer_filters(archive* a) {
  archive_read_support_filter_gzip(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_bzip2(a);
}

inline ArchivePtr new_tar_reader() {
  ArchivePtr a(archive_read_new());
  if (!a) return a;
  archive_read_support_format_tar(a.get());
  add_layer_filters(a.get());
  return a;
}

inline std::string archive_message(archive* a) {
  const char* s = archive_error_string(a);
  return s ? s : "unknown libarchive error";
}

// A layer's tar stream ready for archive_read_next_header(); owns what it reads from.
struct LayerStream {
  ArchivePtr outer;  // the image tar, positioned on the blob's entry (tar images only)
  ArchivePtr inner;  // the layer
  archive* get() const { return inner.get(); }
};

// Where the blobs of an image live: a layout directory or an image tar.
class BlobStore {
 public:
  virtual ~BlobStore() = default;
  /// The name errors use for a blob ("dir/blobs/sha256/…" or "image.tar!blobs/sha256/…").
  virtual std::string where(const std::string& name) const = 0;
  virtual bool exists(const std::string& name) const = 0;
  virtual Result<std::string> read_small(const std::string& name, uint64_t limit) = 0;
  virtual Result<LayerStream> open_layer(const std::string& name) = 0;
  virtual uint64_t size_of(const std::string& name) const = 0;
};

class DirectoryStore : public BlobStore {
 public:
  explicit DirectoryStore(std::string root) : root_(std::move(root)) {}
  std::string where(const std::string& name) const override {
    return (fs::path(root_) / name).string();
  }
  bool exists(const std::string& name) const override { return !unusable(name); }
  uint64_t size_of(const std::string& name) const override {
    std::error_code ec;
    auto n = fs::file_size(where(name), ec);
    return ec ? 0 : n;
  }
  /// Why a blob cannot be read, or nullopt when it is a regular file inside the layout. A link
  /// is followed only while it stays in the layout: one to /proc/self/mem or to a tar elsewhere
  /// is refused, and what a non-file is gets named.
  std::optional<Error> unusable(const std::string& name) const {
    std::error_code ec;
    fs::path path = where(name);
    auto link = fs::symlink_status(path, ec);
    if (ec || link.type() == fs::file_type::not_found)
      return make_error("blob not found").in_file(path.string());
    if (link.type() == fs::file_type::symlink) {
      fs::path target = fs::weakly_canonical(path, ec);
      fs::path root = fs::weakly_canonical(root_, ec);
      auto rel = target.lexically_relative(root);
      if (ec || rel.empty() || *rel.begin() == "..")
        return make_error("blob is a symbolic link that leaves the layout (to " + target.string() +
                          "): refused")
            .in_file(path.string());
    }
    auto st = fs::status(path, ec);
    switch (ec ? fs::file_type::not_found : st.type()) {
      case fs::file_type::regular:
        return std::nullopt;
      case fs::file_type::not_found:
        return make_error("blob is a link to nothing").in_file(path.string());
      case fs::file_type::directory:
        return make_error("blob is a directory, not a file").in_file(path.string());
      case fs::file_type::fifo:
        return make_error("blob is a FIFO, not a file: refused").in_file(path.string());
      case fs::file_type::character:
      case fs::file_type::block:
        return make_error("blob is a device, not a file: refused").in_file(path.string());
      default:
        return make_error("blob is not a regular file").in_file(path.string());
    }
  }
  Result<std::string> read_small(const std::string& name, uint64_t limit) override {
    if (auto why = unusable(name)) return *why;
    if (size_of(name) > limit)
      return make_error(fmt::format("{} bytes, above the {}-byte limit for JSON documents",
                                    size_of(name), limit))
          .in_file(where(name));
    auto text = read_file_prefix(where(name), limit);
    if (!text) return make_error("cannot read").in_file(where(name));
    return *text;
  }
  Result<LayerStream> open_layer(const std::string& name) override {
    if (auto why = unusable(name)) {
      if (why->what == "blob not found") why->what = "layer blob not found";
      return *why;
    }
    LayerStream s;
    s.inner = new_tar_reader();
    if (!s.inner) return make_error("libarchive: out of memory").in_file(where(name));
    if (archive_read_open_filename(s.inner.get(), where(name).c_str(), 1 << 16) != ARCHIVE_OK)
      return make_error(archive_message(s.inner.get()), 0).in_file(where(name));
    return s;
  }

 private:
  std::string root_;
};

// libarchive read callback for a layer nested in the image tar: the outer entry's data blocks.
inline la_ssize_t read_outer_block(archive* inner, void* client, const void** buffer) {
  auto* outer = static_cast<archive*>(client);
  size_t size = 0;
  la_int64_t offset = 0;
  int r = archive_read_data_block(outer, buffer, &size, &offset);
  if (r == ARCHIVE_EOF) return 0;
  if (r < ARCHIVE_WARN) {
    archive_set_error(inner, EIO, "image tar: %s", archive_message(outer).c_str());
    return ARCHIVE_FATAL;
  }
  return static_cast<la_ssize_t>(size);
}

class TarStore : public BlobStore {
 public:
  TarStore(ByteView bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}

  /// Lists the tar's regular files (normalised names); an error if it is not a readable tar.
  std::optional<Error> index() {
    ArchivePtr a = open_outer();
    if (!a) return make_error("not a tar archive", 0).in_file(path_);
    archive_entry* e = nullptr;
    int r;
    while ((r = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e)) continue;
      const char* name = archive_entry_pathname(e);
      if (!name) continue;
      if (auto n = normalize_image_path(name); n && !n->empty())
        sizes_[*n] = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
    }
    if (r != ARCHIVE_EOF)
      truncated_ = make_error(fmt::format("image tar: {}", archive_message(a.get())),
                              archive_filter_bytes(a.get(), -1))
                       .in_file(path_);
    if (sizes_.empty() && r != ARCHIVE_EOF) return truncated_;
    return std::nullopt;
  }
  const std::optional<Error>& truncated() const { return truncated_; }
  bool has_blobs() const {
    auto it = sizes_.lower_bound("blobs/");
    return it != sizes_.end() && starts_with(it->first, "blobs/");
  }

  std::string where(const std::string& name) const override { return path_ + "!" + name; }
  bool exists(const std::string& name) const override { return sizes_.count(name) > 0; }
  uint64_t size_of(const std::string& name) const override {
    auto it = sizes_.find(name);
    return it == sizes_.end() ? 0 : it->second;
  }

  Result<std::string> read_small(const std::string& name, uint64_t limit) override {
    if (!exists(name)) return make_error("not in the image tar").in_file(where(name));
    if (size_of(name) > limit)
      return make_error(fmt::format("{} bytes, above the {}-byte limit for JSON documents",
                                    size_of(name), limit))
          .in_file(where(name));
    SMCOMPAT_TRY(auto a, seek(name));
    std::string out(size_of(name), '\0');
    uint64_t got = 0;
    while (got < out.size()) {
      la_ssize_t n = archive_read_data(a.get(), out.data() + got, out.size() - got);
      if (n <= 0) break;
      got += static_cast<uint64_t>(n);
    }
    if (got != out.size())
      return make_error(fmt::format("image tar: {} of {} bytes read ({})", got, out.size(),
                                    archive_message(a.get())))
          .in_file(where(name));
    return out;
  }

  Result<LayerStream> open_layer(const std::string& name) override {
    if (!exists(name)) return make_error("layer blob not in the image tar").in_file(where(name));
    SMCOMPAT_TRY(auto outer, seek(name));
    LayerStream s;
    s.outer = std::move(outer);
    s.inner = new_tar_reader();
    if (!s.inner) return make_error("libarchive: out of memory").in_file(where(name));
    if (archive_read_open(s.inner.get(), s.outer.get(), nullptr, read_outer_block, nullptr) !=
        ARCHIVE_OK)
      return make_error(archive_message(s.inner.get()), 0).in_file(where(name));
    return s;
  }

 private:
  ArchivePtr open_outer() const {
    ArchivePtr a(archive_read_new());
    if (!a) return a;
    archive_read_support_format_tar(a.get());
    add_layer_filters(a.get());  // an image tar may itself be compressed
    if (archive_read_open_memory(a.get(), bytes_.data(), bytes_.size()) != ARCHIVE_OK)
      return nullptr;
    return a;
  }

  // The image tar positioned on the data of entry `name` (the last entry of that name wins, as
  // when a tar is extracted; images hold each name once).
  Result<ArchivePtr> seek(const std::string& name) {
    size_t wanted = 0, seen = 0;
    {
      ArchivePtr a = open_outer();
      if (!a) return make_error("not a tar archive", 0).in_file(path_);
      archive_entry* e = nullptr;
      size_t i = 0;
      int r;
      while ((r = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        ++i;
        const char* p = archive_entry_pathname(e);
        if (p && archive_entry_filetype(e) == AE_IFREG && !archive_entry_hardlink(e) &&
            normalize_image_path(p) == name) {
          wanted = i;
          ++seen;
        }
      }
    }
    if (!seen) return make_error("not in the image tar").in_file(where(name));
    ArchivePtr a = open_outer();
    if (!a) return make_error("not a tar archive", 0).in_file(path_);
    archive_entry* e = nullptr;
    for (size_t i = 0; i < wanted; ++i) {
      int r = archive_read_next_header(a.get(), &e);
      if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
        return make_error(fmt::format("image tar: {}", archive_message(a.get())),
                          archive_filter_bytes(a.get(), -1))
            .in_file(where(name));
    }
    return a;
  }

  ByteView bytes_;
  std::string path_;
  std::map<std::string, uint64_t> sizes_;
  std::optional<Error> truncated_;
};

}  // namespace smcompat::image_store
