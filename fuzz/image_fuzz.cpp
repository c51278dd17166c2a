// libFuzzer target for the container image reader (scan/image.hpp): any bytes are read as an
// image tar (OCI or docker save) to images and located errors without a crash or a hang; the
// files handed over are inventoried as the scanner does. Invariants: a file's bytes never exceed
// the limit, every file handed over was wanted, and each file is handed over (or failed) once.
// Seeds: fuzz/corpus/image/ (written by fuzz/corpus/make_image_seeds.py).
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/scan/image.hpp"

namespace {

constexpr uint64_t kLimit = 4 << 20;

void check(bool ok) {
  if (!ok) std::abort();
}

struct Visitor : smcompat::ImageFileVisitor {
  std::set<std::pair<size_t, std::string>> wanted, done;
  bool want(size_t image, const std::string& member, uint64_t) override {
    check(!member.empty() && member.front() != '/');
    wanted.insert({image, member});
    return true;
  }
  void file(size_t image, const std::string& member, smcompat::ByteView bytes,
            smcompat::Backing backing) override {
    check(bytes.size() <= kLimit);
    check(wanted.count({image, member}) == 1);
    check(done.insert({image, member}).second);
    smcompat::InspectOptions opt;
    opt.deep = true;
    opt.jobs = 1;
    opt.max_decoded_bytes = kLimit;
    opt.max_member_bytes = kLimit;
    auto inv = smcompat::inspect_member(bytes, "fuzz-input", member, opt, backing);
    check(!inv.empty() && inv[0].member == member);
  }
  void file_error(size_t image, const std::string& member, smcompat::Error) override {
    check(wanted.count({image, member}) == 1);
    check(done.insert({image, member}).second);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  smcompat::ByteView bytes(data, size);
  (void)smcompat::sniff_image_tar(bytes);
  Visitor visitor;
  smcompat::ImageReadOptions opt;
  opt.max_file_bytes = kLimit;
  opt.max_json_bytes = 1 << 20;
  auto r = smcompat::read_image_tar(bytes, "fuzz-input", visitor, opt);
  for (const auto& im : r.images) check(im.layers.size() < (1u << 20));
  return 0;
}
