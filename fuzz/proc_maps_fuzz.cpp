// libFuzzer target for parse_proc_maps (smcompat check): any text parses to files or a located
// error without a crash or a hang; every file is an absolute path named by one line, so there
// are never more files than lines, and every warning's offset lies inside the input.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "smcompat/doctor/process_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<smcompat::Error> warnings;
  auto files = smcompat::doctor::parse_proc_maps(text, "fuzz", &warnings);
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  if (files) {
    if (files->size() > lines) std::abort();
    for (auto& f : *files)
      if (f.path.empty() || f.path[0] != '/' || f.line_offset >= size) std::abort();
  } else if (!files.error().offset || *files.error().offset > size) {
    std::abort();
  }
  for (auto& w : warnings)
    if (!w.offset || *w.offset >= size) std::abort();
  return 0;
}
