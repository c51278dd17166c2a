// libFuzzer target for the redactor (explain --prompt): any input must redact without a crash or
// a hang, keep its line count (no mask crosses a line break), and still mask a known token
// planted as a word in the middle of it.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "smcompat/explain/explain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string out = smcompat::explain::redact(text);
  if (std::count(out.begin(), out.end(), '\n') != std::count(text.begin(), text.end(), '\n'))
    std::abort();
  // Each mask is 10 characters and replaces at least one.
  if (out.size() > 10 * text.size() + 10) std::abort();
  // A Hugging Face token (no hex run, not a digest) between blanks must go whatever surrounds it.
  static const std::string kToken = "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";
  std::string planted = text.substr(0, size / 2) + " " + kToken + " " + text.substr(size / 2);
  if (smcompat::explain::redact(planted).find(kToken) != std::string::npos) std::abort();
  return 0;
}
