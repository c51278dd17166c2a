// Numbered regression inputs (tests/binary/regress/, described in docs/testing.md): each one
// reproduced a bug in binary/ found by the fixture tests and truncation sweeps, and must keep
// giving the expected result. Small files made from a one-kernel tiny.cu with nvcc 13.0.88 and
// Python's zipfile (see docs/testing.md, "Regression inputs").
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "fixtures/support.hpp"
#include "smcompat/binary/inventory.hpp"

namespace smcompat {
namespace {

std::string regress(const std::string& name) {
  return std::string(SMCOMPAT_SOURCE_DIR) + "/tests/binary/regress/" + name;
}

struct RegressCase {
  std::string file;
  std::string member;              // inventory that carries the error / images ("" = the file)
  std::string error;               // expected substring of its one error ("" = no error)
  std::optional<uint64_t> offset;  // expected error offset
  size_t images = 0;               // expected images of that inventory
};

const std::vector<RegressCase> kRegressCases = {
    // A .fatbin of 4..15 bytes used to give no error at all.
    {"01-fatbin-header-cut.fatbin", "", "fatbin header truncated", 0, 0},
    // A cubin cut inside its program header table (at the end) used to parse without complaint.
    {"02-cubin-program-headers-cut.cubin", "", "file is truncated", 3212, 1},
    // An archive ending inside a member header used to be accepted silently.
    {"03-archive-partial-member-header.a", "", "archive ends inside a member header", 8, 0},
    // A zip member declaring 3.75 GiB: an error naming zip!member (Error::file used to be empty),
    // without allocating the declared size.
    {"04-zip-member-declares-3.75GiB.zip", "pkg/tiny.cubin", "does not match its declared size",
     std::nullopt, 0},
    // A relocatable cubin: .nv.shared.tiny has sh_type 0x7000000a, not NOBITS; it used to count
    // as file extent (a false "truncated") and its 4096 bytes of shared memory read as 0.
    {"05-rdc-cubin-static-shared.cubin", "", "", std::nullopt, 1},
    // An archive member at a file offset that is not 8-aligned (132): its device code used to be
    // missed because containers were searched at 8-aligned absolute offsets.
    {"06-archive-member-at-odd-offset.a", "tiny.o", "", std::nullopt, 1},
};

class Regress : public ::testing::TestWithParam<RegressCase> {};

TEST_P(Regress, GivesTheExpectedResult) {
  const RegressCase& c = GetParam();
  std::string path = regress(c.file);
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(path, opt);
  const FileInventory* f = nullptr;
  for (const auto& i : inv)
    if (i.member == c.member) f = &i;
  ASSERT_NE(f, nullptr) << "no inventory for member '" << c.member << "'";
  EXPECT_EQ(f->images.size(), c.images) << testing::all_errors(inv);
  if (c.error.empty()) {
    EXPECT_TRUE(testing::all_errors(inv).empty()) << testing::all_errors(inv);
    for (const auto& img : f->images) EXPECT_FALSE(img.decode_error.has_value());
    return;
  }
  ASSERT_EQ(f->errors.size(), 1u) << testing::all_errors(inv);
  const Error& e = f->errors[0];
  EXPECT_NE(e.what.find(c.error), std::string::npos) << e.to_string();
  EXPECT_EQ(e.file, c.member.empty() ? path : path + "!" + c.member);
  EXPECT_EQ(e.offset, c.offset) << e.to_string();
}

INSTANTIATE_TEST_SUITE_P(Inputs, Regress, ::testing::ValuesIn(kRegressCases),
                         [](const auto& info) { return "r" + info.param.file.substr(0, 2); });

TEST(RegressDetail, RelocatableCubinSharedMemory) {
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(regress("05-rdc-cubin-static-shared.cubin"), opt);
  ASSERT_EQ(inv.size(), 1u);
  ASSERT_EQ(inv[0].images.size(), 1u);
  const auto& img = inv[0].images[0];
  ASSERT_TRUE(img.cubin.has_value());
  EXPECT_TRUE(img.cubin->relocatable);
  ASSERT_EQ(img.cubin->kernels.size(), 1u);
  EXPECT_EQ(img.cubin->kernels[0].name, "tiny");
  EXPECT_EQ(img.cubin->kernels[0].shared_bytes, 4096u);  // __shared__ float s[1024] (ptxas -v)
}

TEST(RegressDetail, ZipBombMemberInOneGibibyte) {
  EXPECT_TRUE(testing::in_bounded_child([] {
    auto inv = inspect_file(regress("04-zip-member-declares-3.75GiB.zip"), InspectOptions{});
    return inv.size() == 3 ? 0 : 1;  // the zip, the lying member, the good fatbin member
  }));
}

}  // namespace
}  // namespace smcompat
