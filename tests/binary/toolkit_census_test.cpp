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

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
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

// libcufft.so.12: CUDA 11-era LZ4 entries and LTO-IR in .ldata, no .nvFatBinSegment.
TEST(ToolkitCensus, Cufft) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcufft.so.12");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 286542352);
  FileInventory f = inventory(path);
  Census c = census_of(f);
  // [ref] 23,983 containers in .ldata; [census.py] plus one in .nv_fatbin, one entry each.
  EXPECT_EQ(c.containers, (Counts{{".ldata", 23983}, {".nv_fatbin", 1}}));
  EXPECT_EQ(c.images, (Counts{{".ldata", 23983}, {".nv_fatbin", 1}}));
  // [ref] 12,728 lto_75 entries; [census.py] 8,131 PTX, 3,124 ELF.
  EXPECT_EQ(c.kinds, (Counts{{".ldata:lto", 12728},
                             {".ldata:ptx", 8131},
                             {".ldata:sass", 3124},
                             {".nv_fatbin:sass", 1}}));
  EXPECT_EQ(c.targets[".ldata:lto_75"], 12728u);
  // [ref] 22,789 LZ4 entries; [census.py] the other 1,194 in .ldata and the .nv_fatbin one: zstd.
  EXPECT_EQ(c.compression,
            (Counts{{".ldata:lz4", 22789}, {".ldata:zstd", 1194}, {".nv_fatbin:zstd", 1}}));
  EXPECT_TRUE(c.bare.empty());
  // [readelf] .nv_fatbin is 0x2a0 bytes, all of it one container.
  EXPECT_EQ(c.container_bytes[".nv_fatbin"], 0x2a0u);
}

// Deep decode of libcufft: every LZ4 and zstd entry decodes ([ref] "all 22,789 LZ4 entries in
// libcufft decoded too"); LTO-IR is left opaque.
TEST(ToolkitCensus, CufftDeep) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcufft.so.12");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 286542352);
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(path, opt);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_TRUE(inv[0].errors.empty()) << testing::all_errors(inv);
  uint64_t kernels = 0, entries = 0, cubins = 0, ptx = 0, lto_decoded = 0, lz4_decoded = 0;
  for (const auto& img : inv[0].images) {
    EXPECT_FALSE(img.decode_error) << img.decode_error->to_string();
    if (img.cubin) ++cubins, kernels += img.cubin->kernels.size();
    if (img.ptx) ++ptx, entries += img.ptx->entries.size();
    if (img.target.kind == ImageKind::kLto) lto_decoded += img.cubin || img.ptx;
    if (img.compression == Compression::kLz4) lz4_decoded += img.cubin || img.ptx;
  }
  EXPECT_EQ(cubins, 3125u);
  EXPECT_EQ(ptx, 8131u);
  EXPECT_EQ(lto_decoded, 0u);
  // [census.py] LZ4 entries that are not LTO-IR: 22,789 - 12,728 lto_75 (all LZ4 per census.py).
  EXPECT_EQ(lz4_decoded, 22789u - 12728u);
  // [census.py] kernels: 3,124 in .ldata cubins, 0 in the .nv_fatbin one; 8,131 .entry in PTX.
  EXPECT_EQ(kernels, 3124u);
  EXPECT_EQ(entries, 8131u);
}

// libnccl.so.2: relocatable code in __nv_relfatbin.
TEST(ToolkitCensus, Nccl) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libnccl.so.2");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 217995896);
  FileInventory f = inventory(path);
  Census c = census_of(f);
  // [ref] 127 containers in __nv_relfatbin; [census.py] 16 in .nv_fatbin.
  EXPECT_EQ(c.containers, (Counts{{"__nv_relfatbin", 127}, {".nv_fatbin", 16}}));
  // [census.py] entries: __nv_relfatbin 762 ELF + 127 PTX; .nv_fatbin 76 ELF + 11 PTX; all zstd.
  EXPECT_EQ(c.kinds, (Counts{{"__nv_relfatbin:sass", 762},
                             {"__nv_relfatbin:ptx", 127},
                             {".nv_fatbin:sass", 76},
                             {".nv_fatbin:ptx", 11}}));
  EXPECT_EQ(c.compression, (Counts{{"__nv_relfatbin:zstd", 889}, {".nv_fatbin:zstd", 87}}));
  // Everything in __nv_relfatbin, and only that, is marked relocatable.
  EXPECT_EQ(c.relocatable_images, 889u);
  EXPECT_EQ(c.relocatable_containers, 127u);
  // [readelf] both sections are exactly covered by their containers: 0x789dd58 and 0x39bcb78.
  EXPECT_EQ(c.container_bytes["__nv_relfatbin"], 0x789dd58u);
  EXPECT_EQ(c.container_bytes[".nv_fatbin"], 0x39bcb78u);
  EXPECT_TRUE(c.bare.empty());
}

// A cuDNN library: containers in .cask_resource with no wrappers, and a small one decoded deep.
TEST(ToolkitCensus, CudnnEnginesPrecompiled) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcudnn_engines_precompiled.so.9");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 245391920);
  FileInventory f = inventory(path);
  Census c = census_of(f);
  // [ref] 122 containers in .cask_resource; [census.py] 125 entries there, 1,379 containers and
  // 4,036 entries (3,943 ELF, 93 PTX) in .nv_fatbin, all zstd.
  EXPECT_EQ(c.containers, (Counts{{".cask_resource", 122}, {".nv_fatbin", 1379}}));
  EXPECT_EQ(
      c.kinds,
      (Counts{{".cask_resource:sass", 125}, {".nv_fatbin:sass", 3943}, {".nv_fatbin:ptx", 93}}));
  EXPECT_EQ(c.compression, (Counts{{".cask_resource:zstd", 125}, {".nv_fatbin:zstd", 4036}}));
  // [readelf] .nv_fatbin 0x8fe1490 bytes, exactly covered.
  EXPECT_EQ(c.container_bytes[".nv_fatbin"], 0x8fe1490u);
}

TEST(ToolkitCensus, CudnnCnnDeep) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcudnn_cnn.so.9");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 4203904);
  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(path, opt);
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_TRUE(inv[0].errors.empty()) << testing::all_errors(inv);
  Census c = census_of(inv[0]);
  // [census.py] 12 containers, 82 entries (72 ELF, 10 PTX), all zstd; 411 kernels, 46 .entry.
  EXPECT_EQ(c.containers, (Counts{{".nv_fatbin", 12}}));
  EXPECT_EQ(c.kinds, (Counts{{".nv_fatbin:sass", 72}, {".nv_fatbin:ptx", 10}}));
  EXPECT_EQ(c.compression, (Counts{{".nv_fatbin:zstd", 82}}));
  EXPECT_EQ(c.container_bytes[".nv_fatbin"], 0xdf4d0u);  // [readelf]
  uint64_t kernels = 0, entries = 0;
  for (const auto& img : inv[0].images) {
    EXPECT_FALSE(img.decode_error) << img.decode_error->to_string();
    if (img.cubin) kernels += img.cubin->kernels.size();
    if (img.ptx) entries += img.ptx->entries.size();
  }
  EXPECT_EQ(kernels, 411u);
  EXPECT_EQ(entries, 46u);
}

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

TEST(ToolkitCensus, CliDeepAgrees) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcudnn_cnn.so.9");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 4203904);
  int rc = -1;
  auto j = nlohmann::json::parse(run_cli("scan --deep --json -q " + path, &rc), nullptr, false);
  EXPECT_EQ(rc, 0);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["schema"], "smcompat.scan/2");
  ASSERT_EQ(j["files"].size(), 1u);
  const auto& f = j["files"][0];
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
  int rc = -1;
  auto j = nlohmann::json::parse(run_cli("scan --json -q " + path, &rc), nullptr, false);
  EXPECT_EQ(rc, 0);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["files"].size(), 1u);
  const auto& f = j["files"][0];
  EXPECT_EQ(f["containers"], 143);
  EXPECT_EQ(f["entries"].size(), 976u);
  size_t relocatable = 0;
  for (const auto& e : f["entries"]) {
    relocatable += e["relocatable"].get<bool>();
    EXPECT_EQ(e["relocatable"].get<bool>(), e["section"] == "__nv_relfatbin");
  }
  EXPECT_EQ(relocatable, 889u);
}

// libcusparse.so.12: containers in .rodata (LZ4, with LTO-IR) and .nv_fatbin.
TEST(ToolkitCensus, Cusparse) {
  SMCOMPAT_REQUIRE_TOOLKIT_LIB(path, "libcusparse.so.12");
  SMCOMPAT_EXPECT_FILE_SIZE(path, 162565256);
  FileInventory f = inventory(path);
  Census c = census_of(f);
  // [ref] 34 containers in .rodata; [census.py] the rest.
  EXPECT_EQ(c.containers, (Counts{{".rodata", 34}, {".nv_fatbin", 134}}));
  EXPECT_EQ(c.kinds, (Counts{{".rodata:lto", 204},
                             {".rodata:ptx", 136},
                             {".rodata:sass", 136},
                             {".nv_fatbin:sass", 900},
                             {".nv_fatbin:ptx", 137}}));
  EXPECT_EQ(c.compression,
            (Counts{{".rodata:lz4", 476}, {".nv_fatbin:zstd", 1029}, {".nv_fatbin:none", 8}}));
  EXPECT_EQ(c.container_bytes[".nv_fatbin"], 0x8045058u);  // [readelf]
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
