// The inventory of the CUDA 13.0 toolkit libraries installed on this machine, asserted exactly.
//
// Sources of the expected numbers, in this order:
//  1. ../shared/reference/fatbin-format.md section 6 (libcublasLt.so.13 census, verified against
//     this very file; libcufft / libnccl / cudnn headline numbers). Marked [ref].
//  2. tests/fixtures/census.py, an independent Python walker (struct + mmap; zstd/LZ4 through the
//     system libraries via ctypes), run on the same files: `census.py --deep --bare LIB`. Marked
//     [census.py]. It reproduces every [ref] number for libcublasLt exactly, which is why it is
//     trusted for the others.
//  3. `readelf -SW LIB` section sizes. Marked [readelf].
// The tests skip, saying which path they looked at, only when a library is not installed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "fixtures/support.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/util/mapped_file.hpp"

namespace smcompat {
namespace {

using Counts = std::map<std::string, uint64_t>;

struct Census {
  Counts containers;       // section -> containers
  Counts container_bytes;  // section -> sum of container sizes
  Counts images;           // section -> images in containers
  Counts targets;          // "section:target" -> images in containers
  Counts kinds;            // "section:sass|ptx|lto"
  Counts compression;      // "section:none|zstd|lz4"
  Counts header_sizes;     // "section:kind:bytes" (entry header = payload - entry offset)
  Counts bare;             // section -> bare zstd cubins
  Counts bare_abi_arch;    // "abi:arch" of bare cubins
  uint64_t relocatable_images = 0;
  uint64_t relocatable_containers = 0;
};

Census census_of(const FileInventory& f) {
  Census c;
  for (const auto& ct : f.containers) {
    ++c.containers[ct.section];
    c.container_bytes[ct.section] += ct.size;
    c.relocatable_containers += ct.relocatable;
  }
  for (const auto& img : f.images) {
    if (!img.in_container) {
      ++c.bare[img.section];
      ++c.bare_abi_arch[std::to_string(img.elf_abi) + ":" + std::to_string(img.target.arch)];
      continue;
    }
    const std::string s = img.section;
    ++c.images[s];
    ++c.targets[s + ":" + img.target.to_string()];
    ++c.kinds[s + ":" + to_string(img.target.kind)];
    ++c.compression[s + ":" + to_string(img.compression)];
    ++c.header_sizes[s + ":" + to_string(img.target.kind) + ":" +
                     std::to_string(img.payload_offset - img.entry_offset)];
    c.relocatable_images += img.relocatable;
  }
  return c;
}

// Header inventory of one library (no deep decode), checked for errors and warnings.
FileInventory inventory(const std::string& path, bool bare = true) {
  InspectOptions opt;
  opt.bare_cubins = bare;
  auto inv = inspect_file(path, opt);
  EXPECT_EQ(inv.size(), 1u);
  if (inv.empty()) return {};
  EXPECT_EQ(inv[0].format, FileFormat::kHostElf);
  EXPECT_TRUE(inv[0].errors.empty()) << testing::all_errors(inv);
  // [census.py] rejected_magic_hits = 0 in every library below: no validation warnings.
  EXPECT_TRUE(inv[0].warnings.empty()) << inv[0].warnings.front().to_string();
  return std::move(inv[0]);
}

// The census is for CUDA 13.0.88; another toolkit version is a different file, and an exact
// census of it would be meaningless. Fail loudly rather than compare against the wrong numbers.
#define SMCOMPAT_EXPECT_FILE_SIZE(path, bytes)                 \
  ASSERT_EQ(std::filesystem::file_size(path), uint64_t{bytes}) \
      << path << " is not the CUDA 13.0.88 build this census was taken from"

TEST(ToolkitCensus, CublasLtHeaderInventory) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcublasLt.so.13");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 541595600);  // [ref]
  FileInventory f = inventory(path);
  EXPECT_EQ(f.size, 541595600u);
  Census c = census_of(f);
  // [ref] .nv_fatbin: 2,782 containers, 5,737 entries (5,449 ELF, 288 PTX), all ZSTD.
  EXPECT_EQ(c.containers, (Counts{{".nv_fatbin", 2782}, {".cask_resource", 383}}));
  EXPECT_EQ(c.images, (Counts{{".nv_fatbin", 5737}, {".cask_resource", 383}}));
  EXPECT_EQ(
      c.kinds,
      (Counts{{".nv_fatbin:sass", 5449}, {".nv_fatbin:ptx", 288}, {".cask_resource:sass", 383}}));
  EXPECT_EQ(c.compression, (Counts{{".nv_fatbin:zstd", 5737}, {".cask_resource:zstd", 383}}));
  // [ref] per-target table, and .cask_resource: sm_100a 29, sm_100f 326, sm_103f 12, sm_120f 16.
  EXPECT_EQ(c.targets, (Counts{{".nv_fatbin:sm_75", 166},
                               {".nv_fatbin:sm_80", 482},
                               {".nv_fatbin:sm_86", 105},
                               {".nv_fatbin:sm_89", 247},
                               {".nv_fatbin:sm_90", 221},
                               {".nv_fatbin:sm_90a", 1376},
                               {".nv_fatbin:sm_100", 1187},
                               {".nv_fatbin:sm_100a", 1},
                               {".nv_fatbin:sm_103", 64},
                               {".nv_fatbin:sm_120", 463},
                               {".nv_fatbin:sm_120f", 1133},
                               {".nv_fatbin:sm_121", 4},
                               {".nv_fatbin:compute_120", 287},
                               {".nv_fatbin:compute_75", 1},
                               {".cask_resource:sm_100a", 29},
                               {".cask_resource:sm_100f", 326},
                               {".cask_resource:sm_103f", 12},
                               {".cask_resource:sm_120f", 16}}));
  // [ref] entry header sizes: ELF 64 B (2,597), ELF 112 B (2,852), PTX 80 B (287), PTX 96 B (1);
  // .cask_resource: all 112 B.
  EXPECT_EQ(c.header_sizes, (Counts{{".nv_fatbin:sass:64", 2597},
                                    {".nv_fatbin:sass:112", 2852},
                                    {".nv_fatbin:ptx:80", 287},
                                    {".nv_fatbin:ptx:96", 1},
                                    {".cask_resource:sass:112", 383}}));
  // [ref] 6,120 fatbin entries in all sections.
  EXPECT_EQ(c.images[".nv_fatbin"] + c.images[".cask_resource"], 6120u);
  // [ref] the containers of .nv_fatbin are contiguous, no gaps; [readelf] its size is 0x8546080.
  EXPECT_EQ(c.container_bytes[".nv_fatbin"], 0x8546080u);
  // [ref] the PTX entry with -maxrregcount=40 in its options block (the 96-byte header).
  int maxrreg = 0;
  for (const auto& img : f.images)
    if (img.options.find("-maxrregcount=40") != std::string::npos) ++maxrreg;
  EXPECT_EQ(maxrreg, 1);
  // [ref] 2.5: the first entry of .nv_fatbin, at file offset 0x9e53c58 + 16.
  ASSERT_FALSE(f.containers.empty());
  const auto& first = f.images[f.containers[0].first_image];
  EXPECT_EQ(f.containers[0].offset, 0x9e53c58u);
  EXPECT_EQ(f.containers[0].size, 0x1390u + 16u);
  EXPECT_EQ(first.entry_offset, 0x9e53c68u);
  EXPECT_EQ(first.target.to_string(), "sm_75");
  EXPECT_EQ(first.flags, 0x8011u);
  EXPECT_EQ(first.stored_size, 0x250u);
  EXPECT_EQ(first.uncompressed_size, 0x840u);
  EXPECT_EQ(first.elf_abi, 8);
  // [ref] 393 bare zstd cubins: 387 in .ldata, 6 in .data, with the e_flags table (ABI, arch).
  EXPECT_EQ(c.bare, (Counts{{".ldata", 387}, {".data", 6}}));
  EXPECT_EQ(
      c.bare_abi_arch,
      (Counts{
          {"8:120", 95}, {"8:100", 95}, {"7:90", 94}, {"7:80", 94}, {"7:75", 14}, {"7:86", 1}}));
}

// The bare cubins' e_flags themselves ([ref] table), read from the decoded ELF headers.
TEST(ToolkitCensus, CublasLtBareCubinFlags) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcublasLt.so.13");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 541595600);
  auto mapped = MappedFile::open(path);
  ASSERT_TRUE(mapped) << mapped.error().to_string();
  auto inv = inspect_buffer(mapped->view(), path, InspectOptions{});
  ASSERT_EQ(inv.size(), 1u);
  Counts eflags;
  for (const auto& img : inv[0].images) {
    if (img.in_container) continue;
    EXPECT_EQ(img.entry_offset % 8, 0u);  // [ref] all at 8-aligned file offsets
    auto d = decode_image(mapped->view(), img, 1 << 30);
    ASSERT_TRUE(d) << d.error().to_string();
    ASSERT_GE(d->size(), 64u);
    uint32_t flags = (*d)[48] | (*d)[49] << 8 | (*d)[50] << 16 | uint32_t{(*d)[51]} << 24;
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", flags);
    ++eflags[buf];
  }
  EXPECT_EQ(eflags, (Counts{{"0x06007802", 95},
                            {"0x06006402", 95},
                            {"0x005a055a", 94},
                            {"0x00500550", 94},
                            {"0x004b054b", 14},
                            {"0x00560556", 1}}));
}

// Without the bare-cubin search only the containers remain.
TEST(ToolkitCensus, CublasLtWithoutBareCubins) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcublasLt.so.13");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 541595600);
  FileInventory f = inventory(path, /*bare=*/false);
  Census c = census_of(f);
  EXPECT_TRUE(c.bare.empty());
  EXPECT_EQ(f.images.size(), 6120u);
}

// Deep decode of every image (1.4 GB decompressed from .nv_fatbin alone): one test, run once.
TEST(ToolkitCensus, CublasLtDeepKernelCount) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcublasLt.so.13");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 541595600);
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(path, opt);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_TRUE(inv[0].errors.empty()) << testing::all_errors(inv);
  Counts kernels, ptx_entries, failures, decoded;
  for (const auto& img : inv[0].images) {
    std::string where = img.in_container ? img.section : "bare:" + img.section;
    if (img.decode_error) ++failures[where];
    if (img.cubin) {
      kernels[where] += img.cubin->kernels.size();
      // Whatever the fatbin flags say, the cubin agrees on the arch.
      EXPECT_EQ(img.cubin->sm, img.target.arch);
      if (img.in_container && img.target.kind == ImageKind::kSass) ++decoded[where];
    }
    if (img.ptx) {
      ptx_entries[where] += img.ptx->entries.size();
      EXPECT_EQ(img.ptx->version, *img.ptx_version);  // [ref] 5: header version = .version
      EXPECT_EQ(img.ptx->target.arch, img.target.arch);
    }
  }
  EXPECT_TRUE(failures.empty());
  EXPECT_EQ(decoded[".nv_fatbin"], 5449u);
  EXPECT_EQ(decoded[".cask_resource"], 383u);
  // [ref] decompressing all 5,737 .nv_fatbin entries yields 42,200 kernel symbols.
  // [census.py] .cask_resource 3,127; bare cubins 21,368 (.ldata) + 24 (.data).
  EXPECT_EQ(kernels, (Counts{{".nv_fatbin", 42200},
                             {".cask_resource", 3127},
                             {"bare:.ldata", 21368},
                             {"bare:.data", 24}}));
  // [census.py] ".entry " directives in the 288 PTX entries.
  EXPECT_EQ(ptx_entries, (Counts{{".nv_fatbin", 4937}}));
}

// Header inventories of other libraries: containers per section, images by kind and by
// compression, and sections exactly covered by their containers.
struct HeaderCase {
  std::string lib;
  uint64_t file_size;
  Counts containers, kinds, compression;
  Counts container_bytes;  // [readelf] section size, for sections the containers cover exactly
  void (*more)(const Census&) = nullptr;  // what else is peculiar to this library

  friend void PrintTo(const HeaderCase& c, std::ostream* os) { *os << c.lib; }
};

const HeaderCase kHeaderCases[] = {
    // libcufft.so.12: CUDA 11-era LZ4 entries and LTO-IR in .ldata, no .nvFatBinSegment.
    // [ref] 23,983 containers in .ldata; [census.py] plus one in .nv_fatbin, one entry each.
    // [ref] 12,728 lto_75 entries; [census.py] 8,131 PTX, 3,124 ELF. [ref] 22,789 LZ4 entries;
    // [census.py] the other 1,194 in .ldata and the .nv_fatbin one: zstd. [readelf] .nv_fatbin
    // is 0x2a0 bytes, all of it one container.
    {"libcufft.so.12",
     286542352,
     {{".ldata", 23983}, {".nv_fatbin", 1}},
     {{".ldata:lto", 12728}, {".ldata:ptx", 8131}, {".ldata:sass", 3124}, {".nv_fatbin:sass", 1}},
     {{".ldata:lz4", 22789}, {".ldata:zstd", 1194}, {".nv_fatbin:zstd", 1}},
     {{".nv_fatbin", 0x2a0}},
     [](const Census& c) {
       EXPECT_EQ(c.images, (Counts{{".ldata", 23983}, {".nv_fatbin", 1}}));
       EXPECT_EQ(c.targets.at(".ldata:lto_75"), 12728u);
       EXPECT_TRUE(c.bare.empty());
     }},
    // libnccl.so.2: relocatable code in __nv_relfatbin. [ref] 127 containers in __nv_relfatbin;
    // [census.py] 16 in .nv_fatbin; entries: __nv_relfatbin 762 ELF + 127 PTX, .nv_fatbin 76 ELF
    // + 11 PTX, all zstd. [readelf] both sections are exactly covered by their containers.
    {"libnccl.so.2",
     217995896,
     {{"__nv_relfatbin", 127}, {".nv_fatbin", 16}},
     {{"__nv_relfatbin:sass", 762},
      {"__nv_relfatbin:ptx", 127},
      {".nv_fatbin:sass", 76},
      {".nv_fatbin:ptx", 11}},
     {{"__nv_relfatbin:zstd", 889}, {".nv_fatbin:zstd", 87}},
     {{"__nv_relfatbin", 0x789dd58}, {".nv_fatbin", 0x39bcb78}},
     [](const Census& c) {
       // Everything in __nv_relfatbin, and only that, is marked relocatable.
       EXPECT_EQ(c.relocatable_images, 889u);
       EXPECT_EQ(c.relocatable_containers, 127u);
       EXPECT_TRUE(c.bare.empty());
     }},
    // A cuDNN library: containers in .cask_resource with no wrappers. [ref] 122 containers in
    // .cask_resource; [census.py] 125 entries there, 1,379 containers and 4,036 entries (3,943
    // ELF, 93 PTX) in .nv_fatbin, all zstd. [readelf] .nv_fatbin exactly covered.
    {"libcudnn_engines_precompiled.so.9",
     245391920,
     {{".cask_resource", 122}, {".nv_fatbin", 1379}},
     {{".cask_resource:sass", 125}, {".nv_fatbin:sass", 3943}, {".nv_fatbin:ptx", 93}},
     {{".cask_resource:zstd", 125}, {".nv_fatbin:zstd", 4036}},
     {{".nv_fatbin", 0x8fe1490}}},
    // [census.py] 12 containers, 82 entries (72 ELF, 10 PTX), all zstd; [readelf] .nv_fatbin.
    {"libcudnn_cnn.so.9",
     4203904,
     {{".nv_fatbin", 12}},
     {{".nv_fatbin:sass", 72}, {".nv_fatbin:ptx", 10}},
     {{".nv_fatbin:zstd", 82}},
     {{".nv_fatbin", 0xdf4d0}}},
    // libcusparse.so.12: containers in .rodata (LZ4, with LTO-IR) and .nv_fatbin. [ref] 34
    // containers in .rodata; [census.py] the rest. [readelf] .nv_fatbin exactly covered.
    {"libcusparse.so.12",
     162565256,
     {{".rodata", 34}, {".nv_fatbin", 134}},
     {{".rodata:lto", 204},
      {".rodata:ptx", 136},
      {".rodata:sass", 136},
      {".nv_fatbin:sass", 900},
      {".nv_fatbin:ptx", 137}},
     {{".rodata:lz4", 476}, {".nv_fatbin:zstd", 1029}, {".nv_fatbin:none", 8}},
     {{".nv_fatbin", 0x8045058}}},
};

// Test names from library names: "libcudnn_cnn.so.9" -> "libcudnncnn".
template <class Case>
std::string lib_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.lib.substr(0, info.param.lib.find('.'));
  n.erase(std::remove(n.begin(), n.end(), '_'), n.end());
  return n;
}

class HeaderCensus : public ::testing::TestWithParam<HeaderCase> {};

TEST_P(HeaderCensus, MatchesTheReference) {
  const HeaderCase& want = GetParam();
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, want.lib);
  SMCOMPAT_EXPECT_FILE_SIZE(path, want.file_size);
  Census c = census_of(inventory(path));
  EXPECT_EQ(c.containers, want.containers);
  EXPECT_EQ(c.kinds, want.kinds);
  EXPECT_EQ(c.compression, want.compression);
  for (const auto& [section, bytes] : want.container_bytes)
    EXPECT_EQ(c.container_bytes[section], bytes) << section;
  if (want.more) want.more(c);
}

INSTANTIATE_TEST_SUITE_P(Toolkit, HeaderCensus, ::testing::ValuesIn(kHeaderCases),
                         lib_name<HeaderCase>);

// Totals of a deep inventory, in which every image must decode.
struct DeepTotals {
  uint64_t cubins = 0, kernels = 0;  // decoded cubins and their kernels
  uint64_t ptx = 0, entries = 0;     // decoded PTX texts and their .entry directives
  uint64_t lto_decoded = 0, lz4_decoded = 0;
  bool operator==(const DeepTotals&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const DeepTotals& t) {
    return os << "cubins " << t.cubins << ", kernels " << t.kernels << ", ptx " << t.ptx
              << ", entries " << t.entries << ", lto decoded " << t.lto_decoded << ", lz4 decoded "
              << t.lz4_decoded;
  }
};

DeepTotals deep_totals(const std::string& path) {
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(path, opt);
  DeepTotals t;
  EXPECT_EQ(inv.size(), 1u);
  if (inv.empty()) return t;
  EXPECT_TRUE(inv[0].errors.empty()) << testing::all_errors(inv);
  for (const auto& img : inv[0].images) {
    EXPECT_FALSE(img.decode_error) << img.decode_error->to_string();
    if (img.cubin) ++t.cubins, t.kernels += img.cubin->kernels.size();
    if (img.ptx) ++t.ptx, t.entries += img.ptx->entries.size();
    if (img.target.kind == ImageKind::kLto) t.lto_decoded += img.cubin || img.ptx;
    if (img.compression == Compression::kLz4) t.lz4_decoded += img.cubin || img.ptx;
  }
  return t;
}

struct DeepCase {
  std::string lib;
  uint64_t file_size;
  DeepTotals want;

  friend void PrintTo(const DeepCase& c, std::ostream* os) { *os << c.lib; }
};

const DeepCase kDeepCases[] = {
    // libcufft: every LZ4 and zstd entry decodes ([ref] "all 22,789 LZ4 entries in libcufft
    // decoded too"); LTO-IR is left opaque. [census.py] 3,125 cubins with 3,124 kernels in the
    // .ldata ones and 0 in the .nv_fatbin one; 8,131 PTX with one .entry each; LZ4 entries that
    // are not LTO-IR: 22,789 - 12,728 lto_75 (all LZ4 per census.py).
    {"libcufft.so.12", 286542352, {3125, 3124, 8131, 8131, 0, 22789 - 12728}},
    // A small cuDNN library (its headers are in kHeaderCases): [census.py] 72 ELF entries with 411
    // kernels, 10 PTX with 46 .entry, all zstd.
    {"libcudnn_cnn.so.9", 4203904, {72, 411, 10, 46, 0, 0}},
};

class DeepCensus : public ::testing::TestWithParam<DeepCase> {};

TEST_P(DeepCensus, EveryImageDecodes) {
  const DeepCase& c = GetParam();
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, c.lib);
  SMCOMPAT_EXPECT_FILE_SIZE(path, c.file_size);
  EXPECT_EQ(deep_totals(path), c.want);
}

INSTANTIATE_TEST_SUITE_P(Toolkit, DeepCensus, ::testing::ValuesIn(kDeepCases), lib_name<DeepCase>);

// The same numbers through the CLI: `smcompat scan --deep --json` (schema smcompat.scan/2).
std::string run_cli(const std::string& args, int* rc) {
  std::string cmd = std::string(SMCOMPAT_CLI) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// The one file of `smcompat scan --json -q ARGS`, which must exit 0 with a smcompat.scan/2
// report of exactly one file (null otherwise).
nlohmann::json scanned_file(const std::string& args) {
  int rc = -1;
  auto j = nlohmann::json::parse(run_cli("scan --json -q " + args, &rc), nullptr, false);
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(j.is_discarded());
  if (j.is_discarded()) return nullptr;
  EXPECT_EQ(j["schema"], "smcompat.scan/2");
  EXPECT_EQ(j["files"].size(), 1u);
  return j["files"].size() == 1 ? j["files"][0] : nlohmann::json();
}

TEST(ToolkitCensus, CliDeepAgrees) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcudnn_cnn.so.9");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 4203904);
  nlohmann::json f = scanned_file("--deep " + path);
  ASSERT_FALSE(f.is_null());
  EXPECT_EQ(f["path"], path);
  EXPECT_TRUE(f["errors"].empty());
  EXPECT_EQ(f["containers"], 12);  // [census.py], as above
  EXPECT_EQ(f["entries"].size(), 82u);
  size_t kernels = 0, entries = 0;
  for (const auto& e : f["entries"]) {
    if (e.contains("kernels")) kernels += e["kernels"].size();
    if (e.contains("ptx_entries")) entries += e["ptx_entries"].size();
  }
  EXPECT_EQ(kernels, 411u);
  EXPECT_EQ(entries, 46u);
}

TEST(ToolkitCensus, CliRelocatableNccl) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libnccl.so.2");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 217995896);
  nlohmann::json f = scanned_file(path);
  ASSERT_FALSE(f.is_null());
  EXPECT_EQ(f["containers"], 143);
  EXPECT_EQ(f["entries"].size(), 976u);
  size_t relocatable = 0;
  for (const auto& e : f["entries"]) {
    relocatable += e["relocatable"].get<bool>();
    EXPECT_EQ(e["relocatable"].get<bool>(), e["section"] == "__nv_relfatbin");
  }
  EXPECT_EQ(relocatable, 889u);
}

// [ref] 1: libcupti and libcheckpoint carry 3 containers each in .rodata; [census.py] 33 raw
// ELF entries each. [ref] 6: libcudart, libnvrtc, libnvJitLink carry none.
TEST(ToolkitCensus, SmallLibraries) {
  for (const char* name : {"libcupti.so.13", "libcheckpoint.so"}) {
    std::string path = testing::cuda_lib_dir() + "/" + name;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not installed";
    Census c = census_of(inventory(path));
    EXPECT_EQ(c.containers, (Counts{{".rodata", 3}})) << name;
    EXPECT_EQ(c.compression, (Counts{{".rodata:none", 33}})) << name;
  }
  for (const char* name : {"libcudart.so.13", "libnvrtc.so.13", "libnvJitLink.so.13"}) {
    std::string path = testing::cuda_lib_dir() + "/" + name;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not installed";
    FileInventory f = inventory(path);
    EXPECT_TRUE(f.images.empty()) << name << ": " << f.images.size() << " images";
    EXPECT_TRUE(f.containers.empty()) << name;
  }
}

}  // namespace
}  // namespace smcompat
