// Container images for tests, written with libarchive's writer (never hand-made tar bytes): layer
// tars (plain or gzip), and from them an OCI image layout (directory or tar) or a `docker save`
// tarball. Blobs are named by their sha256 (libcrypto), as the OCI image spec requires.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace smcompat::testimage {

struct Entry {
  enum Type { kFile, kDir, kSymlink, kHardlink };
  std::string path;
  Type type = kFile;
  std::string data;  // kFile: contents
  std::string link;  // kSymlink / kHardlink: target
};

inline Entry file(std::string path, std::string data) {
  return {std::move(path), Entry::kFile, std::move(data), {}};
}
inline Entry dir(std::string path) { return {std::move(path), Entry::kDir, {}, {}}; }
inline Entry symlink(std::string path, std::string target) {
  return {std::move(path), Entry::kSymlink, {}, std::move(target)};
}
inline Entry hardlink(std::string path, std::string target) {
  return {std::move(path), Entry::kHardlink, {}, std::move(target)};
}

inline la_ssize_t append_to_string(archive*, void* client, const void* buf, size_t n) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}

/// A tar (pax) of `entries`, gzip- or zstd-compressed when asked.
inline std::string tar(const std::vector<Entry>& entries, bool gzip = false, bool zstd = false) {
  std::string out;
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (gzip) {
    archive_write_add_filter_gzip(a);
    archive_write_set_filter_option(a, "gzip", "timestamp", nullptr);  // same bytes every time
  }
  if (zstd) archive_write_add_filter_zstd(a);
  archive_write_set_bytes_in_last_block(a, 1);
  archive_write_open(a, &out, nullptr, append_to_string, nullptr);
  for (const auto& e : entries) {
    archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.path.c_str());
    archive_entry_set_mtime(ae, 0, 0);
    switch (e.type) {
      case Entry::kFile:
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, 0644);
        archive_entry_set_size(ae, static_cast<la_int64_t>(e.data.size()));
        break;
      case Entry::kDir:
        archive_entry_set_filetype(ae, AE_IFDIR);
        archive_entry_set_perm(ae, 0755);
        break;
      case Entry::kSymlink:
        archive_entry_set_filetype(ae, AE_IFLNK);
        archive_entry_set_perm(ae, 0777);
        archive_entry_set_symlink(ae, e.link.c_str());
        break;
      case Entry::kHardlink:
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, 0644);
        archive_entry_set_hardlink(ae, e.link.c_str());
        archive_entry_set_size(ae, 0);
        break;
    }
    archive_write_header(a, ae);
    if (e.type == Entry::kFile && !e.data.empty())
      archive_write_data(a, e.data.data(), e.data.size());
    archive_entry_free(ae);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

inline std::string sha256_hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

struct Layer {
  std::string bytes;
  bool gzip = false;
  bool zstd = false;
};

/// The files of an image archive: name -> bytes (an OCI layout or a docker save).
using Files = std::vector<std::pair<std::string, std::string>>;

/// An OCI image layout with one image (index.json -> manifest -> config + layers).
inline Files oci_layout(const std::vector<Layer>& layers, const std::string& ref_name = "demo:1",
                        const std::string& platform_arch = "amd64") {
  Files files;
  nlohmann::json config{{"architecture", platform_arch},
                        {"os", "linux"},
                        {"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  nlohmann::json manifest{{"schemaVersion", 2},
                          {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                          {"layers", nlohmann::json::array()}};
  for (const auto& l : layers) {
    std::string hex = sha256_hex(l.bytes);
    files.push_back({"blobs/sha256/" + hex, l.bytes});
    manifest["layers"].push_back(
        {{"mediaType", l.gzip   ? "application/vnd.oci.image.layer.v1.tar+gzip"
                       : l.zstd ? "application/vnd.oci.image.layer.v1.tar+zstd"
                                : "application/vnd.oci.image.layer.v1.tar"},
         {"digest", "sha256:" + hex},
         {"size", l.bytes.size()}});
  }
  std::string config_text = config.dump();
  files.push_back({"blobs/sha256/" + sha256_hex(config_text), config_text});
  manifest["config"] = {{"mediaType", "application/vnd.oci.image.config.v1+json"},
                        {"digest", "sha256:" + sha256_hex(config_text)},
                        {"size", config_text.size()}};
  std::string manifest_text = manifest.dump();
  files.push_back({"blobs/sha256/" + sha256_hex(manifest_text), manifest_text});
  nlohmann::json index{{"schemaVersion", 2},
                       {"mediaType", "application/vnd.oci.image.index.v1+json"},
                       {"manifests",
                        {{{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                          {"digest", "sha256:" + sha256_hex(manifest_text)},
                          {"size", manifest_text.size()},
                          {"annotations", {{"org.opencontainers.image.ref.name", ref_name}}}}}}};
  files.push_back({"oci-layout", R"({"imageLayoutVersion":"1.0.0"})"});
  files.push_back({"index.json", index.dump()});
  return files;
}

/// A `docker save` tarball's files (Docker < 25: <id>/layer.tar, manifest.json).
inline Files docker_save(const std::vector<Layer>& layers, const std::string& tag = "demo:1") {
  Files files;
  nlohmann::json config{{"architecture", "amd64"},
                        {"os", "linux"},
                        {"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  nlohmann::json entry{{"RepoTags", {tag}}, {"Layers", nlohmann::json::array()}};
  for (size_t i = 0; i < layers.size(); ++i) {
    std::string hex = sha256_hex(layers[i].bytes);
    files.push_back({hex + "/layer.tar", layers[i].bytes});
    entry["Layers"].push_back(hex + "/layer.tar");
    config["rootfs"]["diff_ids"].push_back("sha256:" + hex);
  }
  std::string config_text = config.dump();
  std::string config_name = sha256_hex(config_text) + ".json";
  files.push_back({config_name, config_text});
  entry["Config"] = config_name;
  files.push_back({"manifest.json", nlohmann::json::array({entry}).dump()});
  return files;
}

/// The files as one tar (the image archive).
inline std::string archive_of(const Files& files) {
  std::vector<Entry> entries;
  for (const auto& [name, bytes] : files) entries.push_back(file(name, bytes));
  return tar(entries);
}

inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The files as a layout directory.
inline void write_layout(const std::filesystem::path& dir, const Files& files) {
  for (const auto& [name, bytes] : files) write_file(dir / name, bytes);
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace smcompat::testimage
