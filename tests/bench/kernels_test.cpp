// The embedded bench kernel images are real: each cubin parses (binary/cubin.hpp) as the SASS arch
// its variant names and holds the entry points kernels.hpp names; each PTX image carries the
// .target it claims and NUL-terminates. Built without nvcc, the set is empty and says why.
#include "smcompat/bench/kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "smcompat/binary/cubin.hpp"
#include "smcompat/binary/ptx_header.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/strings.hpp"
#include "toolkit_targets.hpp"

namespace smcompat::bench {
namespace {

std::vector<std::string> targets() {
  std::vector<std::string> out;
  for (const auto& image : kernel_images()) out.push_back(image.target.to_string());
  return out;
}

TEST(BenchKernels, EmptyOnlyWithAReason) {
  if (kernel_images().empty()) {
    EXPECT_FALSE(kernel_images_absent_reason().empty());
    auto chosen = choose_kernel_image({9, 0});
    ASSERT_FALSE(chosen.ok());
    EXPECT_NE(chosen.error().what.find("no bench kernels embedded"), std::string::npos);
    GTEST_SKIP() << "built without bench kernels: " << kernel_images_absent_reason();
  }
  EXPECT_TRUE(kernel_images_absent_reason().empty());
}

TEST(BenchKernels, BuildsEveryArchItsNvccLists) {
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  auto expected = testtoolkit::nvcc_bench_targets();
  if (expected.empty()) GTEST_SKIP() << SMCOMPAT_TEST_NVCC << " --list-gpu-code gave nothing here";
  EXPECT_EQ(targets(), expected);
  if (kernel_images_toolkit() == "13.0")  // and, for the toolkit the project is built with, by name
    EXPECT_EQ(targets(),
              (std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89",
                                        "sm_90", "sm_100", "sm_103", "sm_110", "sm_120", "sm_121",
                                        "compute_75", "compute_80", "compute_89", "compute_90"}));
}

TEST(BenchKernels, CubinsAreTheArchTheySay) {
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  for (const auto& image : kernel_images()) {
    if (image.ptx()) continue;
    SCOPED_TRACE(image.label());
    ByteView bytes(image.bytes.data(), image.bytes.size());
    ASSERT_TRUE(cubin_sniff(bytes));
    auto info = parse_cubin(bytes, true);
    ASSERT_TRUE(info.ok()) << info.error().to_string();
    EXPECT_EQ(info->sm, image.target.arch);
    EXPECT_FALSE(info->relocatable);
    std::set<std::string> names;
    for (const auto& k : info->kernels) names.insert(k.name);
    for (const char* k : {kSpinKernel, kEmptyKernel, kCopyKernel, kTriadKernel, kMmaF16Kernel}) {
      EXPECT_TRUE(names.count(k)) << k;
    }
    // The mma loop keeps its accumulators in registers: no local-memory frame, room to spare.
    for (const auto& k : info->kernels) {
      EXPECT_EQ(k.stack_bytes.value_or(0), 0u) << k.name;
      if (k.registers) EXPECT_LE(*k.registers, 128u) << k.name;
    }
    // bf16 mma exists from sm_80 only.
    EXPECT_EQ(names.count(kMmaBf16Kernel) == 1, image.target.arch >= 80);
    // Kept modest: a handful of small kernels per image.
    EXPECT_LT(image.bytes.size(), 96u * 1024);
  }
}

TEST(BenchKernels, PtxCarriesTheTargetItClaims) {
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  int seen = 0;
  for (const auto& image : kernel_images()) {
    if (!image.ptx()) continue;
    ++seen;
    SCOPED_TRACE(image.label());
    std::string_view text(reinterpret_cast<const char*>(image.bytes.data()), image.bytes.size());
    // cuModuleLoadData reads PTX up to its NUL: one must follow the text.
    EXPECT_EQ(image.bytes.data()[image.bytes.size()], 0);
    EXPECT_EQ(text.find('\0'), std::string_view::npos);
    ASSERT_TRUE(ptx_sniff(text));
    auto header = parse_ptx_header(text, true);
    ASSERT_TRUE(header.ok()) << header.error().to_string();
    // nvcc writes ".target sm_80" for compute_80; the parser names it as the PTX target.
    EXPECT_EQ(header->target, image.target);
    ASSERT_TRUE(image.ptx_isa.has_value());
    EXPECT_EQ(*image.ptx_isa, header->version);
    std::set<std::string> entries(header->entries.begin(), header->entries.end());
    EXPECT_TRUE(entries.count(kMmaF16Kernel));
    EXPECT_TRUE(entries.count(kTriadKernel));
    EXPECT_EQ(entries.count(kMmaBf16Kernel) == 1, image.target.arch >= 80);
    EXPECT_LT(image.bytes.size(), 96u * 1024);
  }
  EXPECT_GT(seen, 0);
}

TEST(BenchKernels, PtxIsaIsTheToolkitsOwn) {
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  // The PTX ISA each CUDA release writes, from the catalog (CUDA 13.0: 9.0; 12.8: 8.7).
  auto cuda = Version::parse(kernel_images_toolkit());
  ASSERT_TRUE(cuda) << kernel_images_toolkit();
  auto isa = Catalog::builtin().ptx_isa_of_cuda(*cuda);
  ASSERT_TRUE(isa) << "the catalog has no PTX ISA for CUDA " << kernel_images_toolkit();
  if (*cuda == Version{13, 0}) EXPECT_EQ(*isa, (Version{9, 0}));
  for (const auto& image : kernel_images()) {
    if (image.ptx()) EXPECT_EQ(image.ptx_isa, *isa) << image.label();
  }
}

TEST(BenchKernels, LabelsAndLookup) {
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  const auto* sm90 = find_kernel_image(*SmTarget::parse("sm_90"));
  ASSERT_NE(sm90, nullptr);
  EXPECT_EQ(sm90->label(), "sm_90 SASS");
  const auto* c80 = find_kernel_image(*SmTarget::parse("compute_80"));
  ASSERT_NE(c80, nullptr);
  EXPECT_EQ(c80->label(), "compute_80 PTX");
  EXPECT_EQ(find_kernel_image(*SmTarget::parse("sm_90a")), nullptr);
}

TEST(BenchKernels, ChooseAsTheDriverWould) {
  // The choices follow from the targets the installed nvcc builds (CUDA 12.x or 13.x): each case
  // runs where its SASS is among them.
  if (kernel_images().empty()) GTEST_SKIP() << kernel_images_absent_reason();
  const auto built = testtoolkit::nvcc_bench_targets();
  if (built.empty()) GTEST_SKIP() << SMCOMPAT_TEST_NVCC << " --list-gpu-code gave nothing here";
  const auto has = [&](const std::string& t) {
    return std::find(built.begin(), built.end(), t) != built.end();
  };
  const auto chose = [](ComputeCapability cc, std::optional<Version> cuda = std::nullopt) {
    auto r = choose_kernel_image(cc, cuda);
    return r.ok() ? r->image->target.to_string() : "error: " + r.error().what;
  };
  int checked = 0;
  for (const auto& [cc, sass] : std::vector<std::pair<ComputeCapability, std::string>>{
           {{9, 0}, "sm_90"}, {{12, 0}, "sm_120"}, {{12, 1}, "sm_121"}, {{8, 9}, "sm_89"}}) {
    if (!has(sass)) continue;
    EXPECT_EQ(chose(cc), sass);
    ++checked;
  }
  EXPECT_GE(checked, 2);  // sm_89 and sm_90 from CUDA 11.8 on
  // 10.7 has no SASS of its own (no nvcc builds sm_107): the highest compatible cubin, an older
  // minor of 10.x, wins (sm_103 from CUDA 12.9 on, sm_100 before).
  if (has("sm_103"))
    EXPECT_EQ(chose({10, 7}), "sm_103");
  else if (has("sm_100"))
    EXPECT_EQ(chose({10, 7}), "sm_100");
  // 12.2 (hypothetical): the newest 12.x cubin is the newest compatible one.
  if (has("sm_121")) EXPECT_EQ(chose({12, 2}), "sm_121");
  // A major nothing was built for: the newest PTX that can JIT (SMCOMPAT_BENCH_PTX_ARCHS).
  EXPECT_EQ(chose({13, 0}), built.back());
  // That PTX is this toolkit's ISA: a driver older than the toolkit cannot JIT it.
  auto toolkit = Version::parse(kernel_images_toolkit());
  ASSERT_TRUE(toolkit) << kernel_images_toolkit();
  if (Version{12, 8} < *toolkit)
    EXPECT_NE(
        chose({13, 0}, Version{12, 8}).find("error: no embedded bench kernel image runs on 13.0"),
        std::string::npos);
  EXPECT_NE(chose({7, 0}).find("error:"), std::string::npos);
}

TEST(BenchKernels, MmaFlops) {
  // One block of 4 warps, 10 iterations: 4 × 10 × 8 chains × 4096.
  EXPECT_DOUBLE_EQ(mma_flops(1, 128, 10), 4 * 10 * 8 * 4096.0);
  // A partial warp runs whole mmas.
  EXPECT_DOUBLE_EQ(mma_flops(2, 33, 1), 2 * 2 * 8 * 4096.0);
  EXPECT_DOUBLE_EQ(copy_bytes(1000), 2000.0);
  EXPECT_DOUBLE_EQ(triad_bytes(1000), 12000.0);
}

}  // namespace
}  // namespace smcompat::bench
