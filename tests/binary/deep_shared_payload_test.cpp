// The deep decode decodes identical payloads once and copies the details to the other images
// (inventory.cpp, shared_payloads). These tests check, on the real toolkit libraries, that every
// image's deep details equal those of an independent full decode of that image alone
// (decode_image + parse_cubin / parse_ptx_header, nothing shared), field by field.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <unordered_set>

#include "fixtures/support.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat {
namespace {

template <class T>
std::string opt_str(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "-";
}

// Every field of the deep details, as one line per kernel (so a mismatch prints what differs).
std::string describe(const CubinInfo& c) {
  std::string s =
      fmt::format("sm {} vsm {} abi {} rel {} debug {} variant {} tk '{}' '{}'\n", c.sm,
                  c.virtual_sm, c.abi_version, c.relocatable, c.debug,
                  c.variant ? static_cast<int>(*c.variant) : -1, c.tkinfo_arch, c.toolkit);
  for (const auto& k : c.kernels)
    s += fmt::format(
        "{} | {} | sass {} regs {} smem {} ({}) stack {} {} {} threads {} reqntid {} cluster {} "
        "explicit {} rank {} param {} bar {} tcgen05 {} setmaxnreg {}\n",
        k.name, k.demangled, k.sass_bytes, opt_str(k.registers), k.shared_bytes,
        k.shared_section_bytes, opt_str(k.stack_bytes), opt_str(k.min_stack_bytes),
        opt_str(k.max_stack_bytes),
        k.max_threads ? fmt::format("{}", fmt::join(*k.max_threads, ",")) : "-",
        k.reqntid ? fmt::format("{}", fmt::join(*k.reqntid, ",")) : "-",
        k.cluster_dims ? fmt::format("{}", fmt::join(*k.cluster_dims, ",")) : "-",
        k.explicit_cluster, opt_str(k.max_cluster_rank), opt_str(k.param_bytes),
        opt_str(k.barriers), k.uses_tcgen05, k.uses_reg_reconfig);
  return s;
}

std::string describe(const PtxHeader& h) {
  return fmt::format("{}.{} '{}' {} debug {} addr {} entries {}", h.version.major, h.version.minor,
                     h.target_text, h.target.to_string(), h.debug, h.address_size,
                     fmt::join(h.entries, ","));
}

struct Outcome {
  size_t images = 0;    // images compared
  size_t distinct = 0;  // distinct compressed payloads among them
  size_t compressed = 0;
  uint64_t kernels = 0;
};

// Deep inventory of `path` versus a full, unshared decode of each of its images.
void compare_with_full_decode(const std::string& path, Outcome& out) {
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(path, opt);
  ASSERT_EQ(inv.size(), 1u);
  auto mf = MappedFile::open(path);
  ASSERT_TRUE(static_cast<bool>(mf));
  std::unordered_set<std::string_view> payloads;
  for (const auto& img : inv[0].images) {
    if (img.target.kind == ImageKind::kLto) continue;
    SCOPED_TRACE(fmt::format("{} image at {:#x}", img.target.to_string(), img.entry_offset));
    ++out.images;
    if (img.compression != Compression::kNone) {
      ++out.compressed;
      payloads.insert(std::string_view(
          reinterpret_cast<const char*>(mf->view().data()) + img.payload_offset, img.stored_size));
    }
    auto bytes = decode_image(mf->view(), img, opt.max_decoded_bytes);
    EXPECT_EQ(static_cast<bool>(bytes), !img.decode_error);
    if (!bytes) continue;
    ByteView view(bytes->data(), bytes->size(), 0);
    if (img.target.kind == ImageKind::kPtx) {
      auto h = parse_ptx_header(view.as_string_view(), true);
      ASSERT_TRUE(static_cast<bool>(h)) << h.error().to_string();
      ASSERT_TRUE(img.ptx.has_value());
      EXPECT_EQ(describe(*img.ptx), describe(*h));
      continue;
    }
    auto c = parse_cubin(view, true);
    ASSERT_TRUE(static_cast<bool>(c)) << c.error().to_string();
    ASSERT_TRUE(img.cubin.has_value());
    EXPECT_EQ(describe(*img.cubin), describe(*c));
    out.kernels += c->kernels.size();
    // A bare cubin's variant comes from its own ELF header (base when it names none).
    if (!img.in_container) EXPECT_EQ(img.target.variant, c->variant.value_or(ArchVariant::kBase));
  }
  out.distinct = payloads.size();
}

TEST(DeepSharedPayload, CublasLtEqualsFullDecode) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcublasLt.so.13");
  ASSERT_EQ(std::filesystem::file_size(path), uint64_t{541595600})
      << path << " is not the CUDA 13.0.88 build these numbers were taken from";
  Outcome o;
  compare_with_full_decode(path, o);
  // toolkit_census_test: 6,513 images (5,737 + 383 in containers, 393 bare), all zstd.
  EXPECT_EQ(o.images, 6513u);
  EXPECT_EQ(o.compressed, 6513u);
  // Counted by comparing stored bytes: 1,886 distinct payloads, so 4,627 images are copies.
  EXPECT_EQ(o.distinct, 1886u);
  // toolkit_census_test: 42,200 + 3,127 + 21,368 + 24 kernels.
  EXPECT_EQ(o.kernels, 66719u);
}

TEST(DeepSharedPayload, CufftEqualsFullDecode) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcufft.so.12");
  Outcome o;
  compare_with_full_decode(path, o);
  EXPECT_GT(o.images, 0u);
  // toolkit_census_test (CufftDeep): 3,124 kernels.
  EXPECT_EQ(o.kernels, 3124u);
}

}  // namespace
}  // namespace smcompat
