// PTX texts from files and binaries (include/smcompat/ptx/sources.hpp). Uses a shallow
// inventory and decodes PTX images only, so SASS payloads are never decompressed; archive and
// zip members go through visit_images (which owns the member buffers).
#include "smcompat/ptx/sources.hpp"

#include <fmt/format.h>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat::ptx {

std::string PtxSource::display_name() const {
  std::string s = member.empty() ? file : file + "!" + member;
  if (embedded)
    s += fmt::format("@{:#x} ({})", entry_offset,
                     image_target ? image_target->to_string() : std::string("ptx"));
  return s;
}

namespace {
std::string strip_nuls(const uint8_t* data, size_t size) {
  while (size > 0 && data[size - 1] == 0) --size;
  return std::string(reinterpret_cast<const char*>(data), size);
}
}  // namespace

Result<size_t> for_each_ptx(const std::string& path, const std::function<void(PtxSource&&)>& visit,
                            const std::function<void(const Error&)>& on_error,
                            const PtxSourceOptions& options) {
  auto mf = MappedFile::open(path);
  if (!mf) return std::move(mf).error();
  ByteView bytes = mf->view();
  FileFormat fmt = sniff_format(bytes, path);
  if (fmt == FileFormat::kPtx) {
    PtxSource src;
    src.file = path;
    src.text = strip_nuls(bytes.data(), bytes.size());
    visit(std::move(src));
    return size_t{1};
  }
  if (fmt == FileFormat::kUnknown)
    return make_error(
               "neither PTX text nor a binary smcompat can read (ELF, fatbin, cubin, ar, "
               "zip)")
        .in_file(path);
  InspectOptions io;
  io.deep = false;
  io.bare_cubins = false;
  io.max_decoded_bytes = options.max_image_bytes;
  auto invs = inspect_buffer(bytes, path, io);
  size_t count = 0;
  bool has_members = false;
  for (const auto& inv : invs) {
    if (!inv.member.empty()) {
      has_members = true;
      continue;
    }
    for (const auto& e : inv.errors)
      if (on_error) on_error(e);
    for (const auto& img : inv.images) {
      if (img.target.kind != ImageKind::kPtx) continue;
      auto payload = decode_image(bytes, img, options.max_image_bytes);
      if (!payload) {
        if (on_error) {
          Error e = payload.error();
          on_error(e.in_file(path));
        }
        continue;
      }
      PtxSource src;
      src.file = path;
      src.image_target = img.target;
      src.section = img.section;
      src.entry_offset = img.entry_offset;
      src.embedded = true;
      src.text = strip_nuls(payload->data(), payload->size());
      visit(std::move(src));
      ++count;
    }
  }
  if (has_members) {
    visit_images(
        path, io,
        [&](const FileInventory& file, const DeviceImage& img, ByteView payload) {
          if (file.member.empty() || img.target.kind != ImageKind::kPtx) return;
          PtxSource src;
          src.file = path;
          src.member = file.member;
          src.image_target = img.target;
          src.section = img.section;
          src.entry_offset = img.entry_offset;
          src.embedded = true;
          src.text = strip_nuls(payload.data(), payload.size());
          visit(std::move(src));
          ++count;
        },
        [&](const FileInventory&, const Error& e) {
          if (on_error) on_error(e);
        });
  }
  return count;
}

}  // namespace smcompat::ptx
