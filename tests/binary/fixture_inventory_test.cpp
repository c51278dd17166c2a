// Inventory of nvcc-built fixtures (tests/fixtures/build_fixtures.sh): for every build flag set the
// expected images follow from the flags alone -- targets from -gencode, compression from
// --compress-mode (fatbin-format.md section 3), debug from -G, relocatable from -rdc, LTO-IR from
// code=lto_XX, members from how the archive and wheel were assembled.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fixtures/support.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat {
namespace {

using testing::fixture;

const std::set<std::string> kKernels = {"fixture_smem", "fixture_bounded", "fixture_stack",
                                        "_ZN7fixture5scaleILi4EEEvPff"};
std::set<std::string> kernels_with_cluster() {
  auto k = kKernels;
  k.insert("fixture_cluster");
  return k;
}

InspectOptions deep_options() {
  InspectOptions o;
  o.deep = true;
  o.jobs = 2;
  return o;
}

std::set<std::string> kernel_names(const CubinInfo& c) {
  std::set<std::string> s;
  for (const auto& k : c.kernels) s.insert(k.name);
  return s;
}

struct ExpectedImage {
  std::string target;  // SmTarget::to_string()
  Compression compression;
};

struct FatbinCase {
  std::string step;  // build step in build_fixtures.sh; the fixture is <step>.fatbin
  std::vector<ExpectedImage> images;
  bool cluster = false;  // built with -DFIXTURE_CLUSTER (sm_90+)
  bool debug = false;

  std::string file() const { return step + ".fatbin"; }
};

// Default mode: zstd on PTX only, ELF raw. size / -compress-all: zstd on all. speed: LZ4 on PTX,
// all with -compress-all. none: raw. -G: debug images are compressed too (fatbinary --help:
// "Compress ptx and debug images").
const std::vector<FatbinCase> kFatbins = {
    {"multi",
     {{"sm_75", Compression::kNone},
      {"sm_80", Compression::kNone},
      {"compute_80", Compression::kZstd}}},
    {"sm90a", {{"sm_90a", Compression::kNone}}, true},
    {"sm100f", {{"sm_100f", Compression::kNone}}, true},
    {"sm103a",
     {{"sm_103a", Compression::kNone},
      {"compute_103a", Compression::kZstd},
      {"sm_110", Compression::kNone}},
     true},
    {"sm120",
     {{"sm_120", Compression::kNone},
      {"sm_121", Compression::kNone},
      {"compute_120", Compression::kZstd}},
     true},
    {"compute120f", {{"compute_120f", Compression::kZstd}}},
    {"compress_size", {{"sm_80", Compression::kZstd}, {"compute_80", Compression::kZstd}}},
    {"compress_speed", {{"sm_80", Compression::kNone}, {"compute_80", Compression::kLz4}}},
    {"compress_none", {{"sm_80", Compression::kNone}, {"compute_80", Compression::kNone}}},
    {"compress_all", {{"sm_80", Compression::kZstd}, {"compute_80", Compression::kZstd}}},
    {"compress_speed_all", {{"sm_80", Compression::kLz4}, {"compute_80", Compression::kLz4}}},
    {"debug", {{"sm_86", Compression::kZstd}, {"compute_86", Compression::kZstd}}, false, true},
};

class FatbinFixture : public ::testing::TestWithParam<FatbinCase> {};

TEST_P(FatbinFixture, ImagesFollowFromBuildFlags) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const FatbinCase& c = GetParam();
  std::string path = fixture(c.file(), c.step);
  auto inv = inspect_file(path, deep_options());
  ASSERT_EQ(inv.size(), 1u);
  const FileInventory& f = inv[0];
  EXPECT_TRUE(f.errors.empty()) << testing::all_errors(inv);
  EXPECT_EQ(f.format, FileFormat::kFatbin);
  EXPECT_EQ(f.path, path);
  EXPECT_EQ(f.size, std::filesystem::file_size(path));
  ASSERT_EQ(f.containers.size(), 1u);
  EXPECT_EQ(f.containers[0].offset, 0u);
  EXPECT_EQ(f.containers[0].size, f.size);  // nvcc -fatbin writes exactly one container
  EXPECT_EQ(f.containers[0].image_count, c.images.size());
  ASSERT_EQ(f.images.size(), c.images.size());
  for (size_t i = 0; i < c.images.size(); ++i) {
    const DeviceImage& img = f.images[i];
    SCOPED_TRACE(c.file() + " image " + std::to_string(i) + " " + img.target.to_string());
    EXPECT_EQ(img.target.to_string(), c.images[i].target);
    EXPECT_EQ(img.compression, c.images[i].compression);
    EXPECT_TRUE(img.in_container);
    EXPECT_EQ(img.container_offset, 0u);
    EXPECT_EQ(img.debug, c.debug);
    EXPECT_FALSE(img.relocatable);
    EXPECT_FALSE(img.decode_error.has_value()) << img.decode_error->to_string();
    if (img.compression != Compression::kNone) {
      EXPECT_GT(img.uncompressed_size, img.stored_size);  // small kernels compress well
    }
    if (img.target.kind == ImageKind::kSass) {
      ASSERT_TRUE(img.cubin.has_value());
      EXPECT_EQ(img.cubin->sm, img.target.arch);
      EXPECT_EQ(img.cubin->abi_version, 8);  // CUDA 13 writes V2 cubins (fatbin-format.md 4.1)
      EXPECT_EQ(img.elf_abi, 8);
      EXPECT_FALSE(img.cubin->relocatable);
      EXPECT_EQ(img.cubin->debug, c.debug);
      // The a/f variant read from the cubin itself (.nv.compat / .note.nv.tkinfo) agrees with the
      // fatbin entry flags.
      ASSERT_TRUE(img.cubin->variant.has_value());
      EXPECT_EQ(*img.cubin->variant, img.target.variant);
      EXPECT_EQ(img.cubin->tkinfo_arch, img.target.to_string());
      EXPECT_EQ(kernel_names(*img.cubin), c.cluster ? kernels_with_cluster() : kKernels);
    } else {
      ASSERT_EQ(img.target.kind, ImageKind::kPtx);
      ASSERT_TRUE(img.ptx.has_value());
      ASSERT_TRUE(img.ptx_version.has_value());
      EXPECT_EQ(img.ptx->version, *img.ptx_version);
      EXPECT_EQ(img.ptx->version, (Version{9, 0}));  // nvcc 13.0 writes .version 9.0
      EXPECT_EQ(img.ptx->target.arch, img.target.arch);
      EXPECT_EQ(img.ptx->target.variant, img.target.variant);
      EXPECT_EQ(img.ptx->debug, c.debug);  // -G: ".target sm_86, debug"
      EXPECT_EQ(img.ptx->address_size, 64);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gencode, FatbinFixture, ::testing::ValuesIn(kFatbins),
                         [](const auto& info) {
                           std::string n = info.param.step;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Every image decodes through decode_image() to exactly the payload visit_images() hands out, and
// both are a cubin ELF (SASS) or PTX text (PTX) whatever the compression.
TEST(FixtureInventory, DecodeImageMatchesVisitImages) {
  SMCOMPAT_REQUIRE_FIXTURES();
  for (const char* name : {"multi.fatbin", "compress_speed_all.fatbin", "compress_all.fatbin",
                           "compress_none.fatbin", "debug.fatbin"}) {
    std::string path = fixture(name);
    auto mapped = MappedFile::open(path);
    ASSERT_TRUE(mapped) << mapped.error().to_string();
    InspectOptions opt;
    auto inv = inspect_buffer(mapped->view(), path, opt);
    ASSERT_EQ(inv.size(), 1u);
    std::vector<std::vector<uint8_t>> decoded;
    for (const auto& img : inv[0].images) {
      auto d = decode_image(mapped->view(), img, 1 << 26);
      ASSERT_TRUE(d) << name << ": " << d.error().to_string();
      if (img.target.kind == ImageKind::kSass) {
        ASSERT_GE(d->size(), 64u);
        EXPECT_EQ(std::string(d->begin(), d->begin() + 4),
                  "\x7f"
                  "ELF");
      } else {
        std::string text(d->begin(), d->end());
        EXPECT_NE(text.find(".version 9.0"), std::string::npos) << name;
        EXPECT_EQ(text.find('\0'), std::string::npos) << "trailing NUL must be removed";
      }
      if (img.uncompressed_size && img.target.kind == ImageKind::kSass)
        EXPECT_EQ(d->size(), img.uncompressed_size);
      decoded.push_back(std::move(*d));
    }
    size_t visited = 0;
    bool ok = visit_images(
        path, opt,
        [&](const FileInventory&, const DeviceImage& img, ByteView payload) {
          ASSERT_LT(visited, decoded.size());
          EXPECT_EQ(img.entry_offset, inv[0].images[visited].entry_offset);
          EXPECT_EQ(std::string(payload.as_string_view()),
                    std::string(decoded[visited].begin(), decoded[visited].end()))
              << name << " image " << visited;
          ++visited;
        },
        [&](const FileInventory& f, const Error& e) {
          ADD_FAILURE() << f.display_name() << ": " << e.to_string();
        });
    EXPECT_TRUE(ok);
    EXPECT_EQ(visited, decoded.size()) << name;
  }
}

// code=lto_89: one kind-8 entry, reported as present and never decoded (opaque).
TEST(FixtureInventory, LtoIrIsPresentButOpaque) {
  SMCOMPAT_REQUIRE_FIXTURES();
  std::string path = fixture("lto.fatbin", "lto");
  auto inv = inspect_file(path, deep_options());
  ASSERT_EQ(inv.size(), 1u);
  ASSERT_EQ(inv[0].images.size(), 1u);
  const DeviceImage& img = inv[0].images[0];
  EXPECT_EQ(img.target.to_string(), "lto_89");
  EXPECT_EQ(img.target.kind, ImageKind::kLto);
  EXPECT_FALSE(img.cubin.has_value());
  EXPECT_FALSE(img.ptx.has_value());
  EXPECT_TRUE(inv[0].errors.empty()) << testing::all_errors(inv);
  auto mapped = MappedFile::open(path);
  ASSERT_TRUE(mapped);
  EXPECT_FALSE(decode_image(mapped->view(), img, 1 << 26)) << "LTO-IR must be refused";

  // nvcc -dc code=lto_89: the LTO-IR sits in the relocatable-code section of the object.
  std::string obj = fixture("lto.o", "lto_obj");
  auto oinv = inspect_file(obj, deep_options());
  ASSERT_EQ(oinv.size(), 1u);
  EXPECT_EQ(oinv[0].format, FileFormat::kHostElf);
  ASSERT_EQ(oinv[0].images.size(), 1u);
  EXPECT_EQ(oinv[0].images[0].target.to_string(), "lto_89");
  EXPECT_EQ(oinv[0].images[0].section, "__nv_relfatbin");
  EXPECT_TRUE(oinv[0].images[0].relocatable);
}

TEST(FixtureInventory, BareCubinAndPtxFiles) {
  SMCOMPAT_REQUIRE_FIXTURES();
  auto cinv = inspect_file(fixture("kernels_sm90.cubin", "cubin"), deep_options());
  ASSERT_EQ(cinv.size(), 1u);
  EXPECT_EQ(cinv[0].format, FileFormat::kCubin);
  EXPECT_TRUE(cinv[0].errors.empty()) << testing::all_errors(cinv);
  ASSERT_EQ(cinv[0].images.size(), 1u);
  const DeviceImage& c = cinv[0].images[0];
  EXPECT_FALSE(c.in_container);
  EXPECT_EQ(c.entry_offset, 0u);
  EXPECT_EQ(c.target.to_string(), "sm_90");
  ASSERT_TRUE(c.cubin.has_value());
  EXPECT_EQ(c.cubin->sm, 90);
  EXPECT_EQ(c.cubin->virtual_sm, 90);  // .note.nv.cuinfo: compute_90
  EXPECT_EQ(c.cubin->tkinfo_arch, "sm_90");
  EXPECT_EQ(kernel_names(*c.cubin), kernels_with_cluster());

  auto pinv = inspect_file(fixture("kernels_c90.ptx", "ptx"), deep_options());
  ASSERT_EQ(pinv.size(), 1u);
  EXPECT_EQ(pinv[0].format, FileFormat::kPtx);
  ASSERT_EQ(pinv[0].images.size(), 1u);
  EXPECT_EQ(pinv[0].images[0].target.to_string(), "compute_90");
  ASSERT_TRUE(pinv[0].images[0].ptx.has_value());
  EXPECT_EQ(pinv[0].images[0].ptx->version, (Version{9, 0}));
}

// Collects (section, target) of every image of a host ELF.
std::multiset<std::string> section_targets(const FileInventory& f) {
  std::multiset<std::string> s;
  for (const auto& img : f.images) s.insert(img.section + ":" + img.target.to_string());
  return s;
}

// An executable and a shared library: every -gencode target is present in .nv_fatbin, nothing
// else is, and each SASS target holds the fixture kernels. (nvcc also links a kernel-less module
// per SASS target from the runtime, so a target may appear twice; only one of them has kernels.)
TEST(FixtureInventory, ExecutableAndSharedLibrary) {
  SMCOMPAT_REQUIRE_FIXTURES();
  struct Case {
    std::string file, step;
    std::set<std::string> targets;
  };
  for (const Case& c : {Case{"app", "app", {"sm_75", "sm_90", "compute_90"}},
                        Case{"libfixture.so", "shared", {"sm_80", "sm_120", "compute_120"}}}) {
    SCOPED_TRACE(c.file);
    auto inv = inspect_file(fixture(c.file, c.step), deep_options());
    ASSERT_EQ(inv.size(), 1u);
    const FileInventory& f = inv[0];
    EXPECT_EQ(f.format, FileFormat::kHostElf);
    EXPECT_TRUE(f.errors.empty()) << testing::all_errors(inv);
    std::set<std::string> seen;
    std::map<std::string, std::set<std::string>> kernels;
    for (const auto& img : f.images) {
      EXPECT_EQ(img.section, ".nv_fatbin");
      EXPECT_FALSE(img.relocatable);
      seen.insert(img.target.to_string());
      if (img.cubin)
        for (const auto& k : img.cubin->kernels) kernels[img.target.to_string()].insert(k.name);
    }
    EXPECT_EQ(seen, c.targets);
    for (const auto& t : c.targets)
      if (t.rfind("sm_", 0) == 0) EXPECT_EQ(kernels[t], kKernels) << t;
    // Containers: each one's images are contiguous and inside the file.
    size_t counted = 0;
    for (const auto& ct : f.containers) {
      EXPECT_EQ(ct.section, ".nv_fatbin");
      EXPECT_LE(ct.offset + ct.size, f.size);
      EXPECT_EQ(ct.first_image, counted);
      counted += ct.image_count;
    }
    EXPECT_EQ(counted, f.images.size());
  }
}

// -rdc=true -c: relocatable code in __nv_relfatbin (ET_REL cubin, zstd-compressed even in the
// default mode, plus the PTX); the device function is not a kernel.
TEST(FixtureInventory, RelocatableObject) {
  SMCOMPAT_REQUIRE_FIXTURES();
  auto inv = inspect_file(fixture("rdc.o", "rdc_obj"), deep_options());
  ASSERT_EQ(inv.size(), 1u);
  const FileInventory& f = inv[0];
  EXPECT_EQ(f.format, FileFormat::kHostElf);
  EXPECT_TRUE(f.errors.empty()) << testing::all_errors(inv);
  EXPECT_EQ(section_targets(f),
            (std::multiset<std::string>{"__nv_relfatbin:sm_80", "__nv_relfatbin:compute_80"}));
  ASSERT_EQ(f.containers.size(), 1u);
  EXPECT_TRUE(f.containers[0].relocatable);
  for (const auto& img : f.images) {
    EXPECT_TRUE(img.relocatable) << img.target.to_string();
    EXPECT_EQ(img.compression, Compression::kZstd) << img.target.to_string();
    if (img.target.kind == ImageKind::kSass) {
      ASSERT_TRUE(img.cubin.has_value());
      EXPECT_TRUE(img.cubin->relocatable);
      EXPECT_EQ(kernel_names(*img.cubin), kKernels);  // not _Z14fixture_helperf
    } else {
      // fatbin-format.md 2.2: the ptxas options recorded under -rdc (with our -Xptxas -v).
      EXPECT_NE(img.options.find("--compile-only"), std::string::npos) << img.options;
    }
  }
}

// -rdc=true linked: the device-linked cubin in .nv_fatbin (ET_EXEC) and the pre-link code in
// __nv_relfatbin. The linker may drop kernels nothing launches; the two main() launches stay.
TEST(FixtureInventory, DeviceLinkedExecutable) {
  SMCOMPAT_REQUIRE_FIXTURES();
  auto inv = inspect_file(fixture("rdc_app", "rdc_app"), deep_options());
  ASSERT_EQ(inv.size(), 1u);
  const FileInventory& f = inv[0];
  EXPECT_TRUE(f.errors.empty()) << testing::all_errors(inv);
  int linked = 0, prelink = 0;
  for (const auto& img : f.images) {
    EXPECT_EQ(img.target.to_string(), "sm_80");
    ASSERT_TRUE(img.cubin.has_value());
    if (img.section == ".nv_fatbin") {
      ++linked;
      EXPECT_FALSE(img.relocatable);
      EXPECT_FALSE(img.cubin->relocatable);
      auto names = kernel_names(*img.cubin);
      EXPECT_TRUE(names.count("fixture_smem"));
      EXPECT_TRUE(names.count("_ZN7fixture5scaleILi4EEEvPff"));
      for (const auto& n : names) EXPECT_TRUE(kKernels.count(n)) << n;
    } else {
      ++prelink;
      EXPECT_EQ(img.section, "__nv_relfatbin");
      EXPECT_TRUE(img.relocatable);
      EXPECT_TRUE(img.cubin->relocatable);
      EXPECT_EQ(kernel_names(*img.cubin), kKernels);
    }
  }
  EXPECT_EQ(linked, 1);
  EXPECT_EQ(prelink, 1);
}

// ar rcs libfixture.a rdc.o plain.o: one inventory for the archive, then one per member with
// device code, named by member; the members' images equal those of the objects on their own.
TEST(FixtureInventory, StaticArchiveMembers) {
  SMCOMPAT_REQUIRE_FIXTURES();
  auto inv = inspect_file(fixture("libfixture.a", "archive"), deep_options());
  ASSERT_EQ(inv.size(), 3u) << testing::all_errors(inv);
  EXPECT_EQ(inv[0].format, FileFormat::kArchive);
  EXPECT_EQ(inv[0].member, "");
  EXPECT_EQ(inv[1].member, "rdc.o");
  EXPECT_EQ(inv[2].member, "plain.o");
  EXPECT_EQ(inv[1].display_name(), fixture("libfixture.a") + "!rdc.o");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(inv[i].path, fixture("libfixture.a"));
    EXPECT_EQ(inv[i].format, FileFormat::kHostElf);
    EXPECT_TRUE(inv[i].errors.empty()) << testing::all_errors(inv);
    auto alone = inspect_file(fixture(inv[i].member), deep_options());
    ASSERT_EQ(alone.size(), 1u);
    EXPECT_EQ(section_targets(inv[i]), section_targets(alone[0]));
    EXPECT_EQ(inv[i].size, std::filesystem::file_size(fixture(inv[i].member)));
  }
  EXPECT_EQ(section_targets(inv[2]), (std::multiset<std::string>{".nv_fatbin:sm_89"}));
  ASSERT_EQ(inv[2].images.size(), 1u);
  ASSERT_TRUE(inv[2].images[0].cubin.has_value());
  EXPECT_EQ(kernel_names(*inv[2].images[0].cubin), kKernels);
}

// The wheel: libfixture.so (deflated) and kernels.fatbin (stored) are inventoried as members with
// the same images as the files they were made from; members without device code are left out.
TEST(FixtureInventory, WheelMembers) {
  SMCOMPAT_REQUIRE_FIXTURES();
  std::string whl = fixture("fixture_pkg-0.1-py3-none-linux_x86_64.whl", "wheel");
  auto inv = inspect_file(whl, deep_options());
  ASSERT_EQ(inv.size(), 3u) << testing::all_errors(inv);
  EXPECT_EQ(inv[0].format, FileFormat::kZip);
  EXPECT_TRUE(inv[0].images.empty());
  std::map<std::string, const FileInventory*> by_member;
  for (size_t i = 1; i < inv.size(); ++i) by_member[inv[i].member] = &inv[i];
  ASSERT_TRUE(by_member.count("fixture_pkg/libfixture.so"));
  ASSERT_TRUE(by_member.count("fixture_pkg/kernels.fatbin"));
  const auto& so = *by_member["fixture_pkg/libfixture.so"];
  const auto& fb = *by_member["fixture_pkg/kernels.fatbin"];
  EXPECT_EQ(so.format, FileFormat::kHostElf);
  EXPECT_EQ(fb.format, FileFormat::kFatbin);
  EXPECT_EQ(so.display_name(), whl + "!fixture_pkg/libfixture.so");
  EXPECT_TRUE(so.errors.empty() && fb.errors.empty()) << testing::all_errors(inv);
  auto so_alone = inspect_file(fixture("libfixture.so"), deep_options());
  auto fb_alone = inspect_file(fixture("multi.fatbin"), deep_options());
  EXPECT_EQ(section_targets(so), section_targets(so_alone[0]));
  EXPECT_EQ(section_targets(fb), section_targets(fb_alone[0]));
  EXPECT_EQ(so.size, std::filesystem::file_size(fixture("libfixture.so")));
  // Deep details inside the zip member too.
  size_t cubins = 0;
  for (const auto& img : so.images) cubins += img.cubin.has_value();
  EXPECT_EQ(cubins, so_alone[0].images.size() - 1);  // all but compute_120

  // visit_images walks into the zip: every non-LTO image of both members, decoded.
  size_t visited = 0;
  EXPECT_TRUE(visit_images(
      whl, InspectOptions{},
      [&](const FileInventory& f, const DeviceImage&, ByteView payload) {
        EXPECT_FALSE(f.member.empty());
        EXPECT_FALSE(payload.empty());
        ++visited;
      },
      [&](const FileInventory& f, const Error& e) {
        ADD_FAILURE() << f.display_name() << ": " << e.to_string();
      }));
  EXPECT_EQ(visited, so.images.size() + fb.images.size());
}

}  // namespace
}  // namespace smcompat

namespace smcompat {
namespace {

// The in-memory path (what the trace shim sees from cuModuleLoadData): the image's own headers
// bound it, whatever follows it in memory.
TEST(FixtureInventory, MemoryImagesAreBoundedByTheirHeaders) {
  SMCOMPAT_REQUIRE_FIXTURES();
  struct Case {
    std::string file;
    FileFormat format;
    size_t images;
  };
  for (const Case& c : {Case{"kernels_sm90.cubin", FileFormat::kCubin, 1},
                        Case{"multi.fatbin", FileFormat::kFatbin, 3},
                        Case{"compress_speed_all.fatbin", FileFormat::kFatbin, 2},
                        Case{"kernels_c90.ptx", FileFormat::kPtx, 1}}) {
    std::vector<uint8_t> bytes = testing::read_bytes(fixture(c.file));
    const size_t size = bytes.size();
    bytes.push_back(0);               // PTX handed to the driver is NUL-terminated
    bytes.resize(size + 4096, 0xCC);  // and whatever memory follows
    InspectOptions opt;
    opt.deep = true;
    FileInventory f = inspect_memory_image(bytes.data(), bytes.size(), opt);
    SCOPED_TRACE(c.file);
    EXPECT_TRUE(f.errors.empty()) << (f.errors.empty() ? "" : f.errors[0].to_string());
    EXPECT_EQ(f.format, c.format);
    EXPECT_EQ(f.size, size);
    ASSERT_EQ(f.images.size(), c.images);
    for (const auto& img : f.images) EXPECT_TRUE(img.cubin || img.ptx) << img.target.to_string();
  }
}

}  // namespace
}  // namespace smcompat
