// Byte-range edits of PTX text, shared by `ptx retarget` and `ptx lower`: both keep everything
// they do not rewrite byte-identical, so they edit the original text rather than print a module.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace smcompat::ptx {

/// Replace text[begin, end) with `replacement`.
struct TextEdit {
  uint32_t begin = 0, end = 0;
  std::string replacement;
};

/// Applies non-overlapping edits (in any order) to `text`; of two overlapping edits the one that
/// starts first is kept.
inline std::string apply_text_edits(std::string_view text, std::vector<TextEdit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(text.size() + 256);
  uint32_t pos = 0;
  for (const auto& e : edits) {
    if (e.begin < pos) continue;
    out.append(text.substr(pos, e.begin - pos));
    out.append(e.replacement);
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

/// A PTX comment saying what was removed.
inline std::string removed_comment(std::string_view what) {
  std::string s = "/* smcompat: removed '";
  s.append(what);
  s.append("' */");
  return s;
}

}  // namespace smcompat::ptx
