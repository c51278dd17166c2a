// The PTX of files, parsed (include/smcompat/ptx/files.hpp).
#include "smcompat/ptx/files.hpp"

#include <fmt/format.h>

#include "smcompat/ptx/module.hpp"

namespace smcompat::ptx {

size_t visit_ptx_texts(const std::vector<std::string>& files, const PtxTextVisitor& visit) {
  size_t texts = 0;
  for (const auto& file : files) {
    auto on_image_error = [&](const Error& e) {
      if (visit.image_error) visit.image_error(file, e);
    };
    auto r = for_each_ptx(
        file,
        [&](PtxSource&& src) {
          ++texts;
          auto m = parse_module(src.text);
          if (!m.ok()) {
            if (visit.parse_error) visit.parse_error(src, m.error());
          } else if (visit.module) {
            visit.module(src, *m);
          }
        },
        on_image_error);
    if (!r.ok() && visit.file_error) visit.file_error(file, r.error());
  }
  return texts;
}

Result<std::string> read_single_ptx(const std::string& path) {
  std::string text;
  size_t n = 0;
  auto r = for_each_ptx(path, [&](PtxSource&& s) {
    if (n++ == 0) text = std::move(s.text);
  });
  if (!r.ok()) return std::move(r).error();
  if (n != 1)
    return make_error(fmt::format(
        "{} holds {} PTX texts; retarget takes one .ptx file (extract an image first)", path, n));
  return text;
}

}  // namespace smcompat::ptx
