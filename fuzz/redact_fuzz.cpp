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
  // Its body derives from a hash of the input, so the fuzzer cannot copy it into the input (a copy
  // glued to other letters is not a token, and would read as a leak).
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t k = 0; k < size; ++k) h = (h ^ data[k]) * 1099511628211ull;
  std::string token = "hf_";
  for (int k = 0; k < 34; ++k, h = h * 6364136223846793005ull + 1442695040888963407ull)
    token += "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[(h >> 33) % 52];
  std::string planted = text.substr(0, size / 2) + " " + token + " " + text.substr(size / 2);
  if (smcompat::explain::redact(planted).find(token) != std::string::npos) std::abort();
  return 0;
}
