// libFuzzer target for the redactor (explain --prompt): any input must redact without a crash or
// a hang, keep its line count (no mask crosses a line break; a PEM private key's body is masked
// line by line), and still mask known secrets planted in the middle of it: a token as a word, a
// curl `-u user:password`, and a PEM private-key block.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "smcompat/explain/explain.hpp"

namespace {

// Letters (and, when `slashes`, a '/' every 8th character) from a hash of the input, so the fuzzer
// cannot copy them into the input (a copy glued to other letters is not a secret, and would read
// as a leak).
std::string hashed_letters(uint64_t& h, int n, bool slashes) {
  std::string s;
  for (int k = 0; k < n; ++k, h = h * 6364136223846793005ull + 1442695040888963407ull)
    s += slashes && k % 8 == 7
             ? '/'
             : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[(h >> 33) % 52];
  return s;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string out = smcompat::explain::redact(text);
  if (std::count(out.begin(), out.end(), '\n') != std::count(text.begin(), text.end(), '\n'))
    std::abort();
  // Each mask is 10 characters and replaces at least one.
  if (out.size() > 10 * text.size() + 10) std::abort();
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t k = 0; k < size; ++k) h = (h ^ data[k]) * 1099511628211ull;
  std::string first = text.substr(0, size / 2), second = text.substr(size / 2);
  // A Hugging Face token (no hex run, not a digest) between blanks must go whatever surrounds it.
  std::string token = "hf_" + hashed_letters(h, 34, false);
  if (contains(smcompat::explain::redact(first + " " + token + " " + second), token)) std::abort();
  // curl's `-u user:password`: the password goes.
  std::string password = hashed_letters(h, 20, false);
  if (contains(smcompat::explain::redact(first + " curl -u bob:" + password + " " + second),
               password))
    std::abort();
  // A PEM private key on lines of its own: no body line survives (base64 that '/' splits into
  // runs no other rule masks), and the line count stays.
  std::string line1 = hashed_letters(h, 64, true), line2 = hashed_letters(h, 40, true);
  std::string planted = first + "\n-----BEGIN RSA PRIVATE KEY-----\n" + line1 + "\n" + line2 +
                        "\n-----END RSA PRIVATE KEY-----\n" + second;
  std::string masked = smcompat::explain::redact(planted);
  if (contains(masked, line1) || contains(masked, line2)) std::abort();
  if (std::count(masked.begin(), masked.end(), '\n') !=
      std::count(planted.begin(), planted.end(), '\n'))
    std::abort();
  return 0;
}
