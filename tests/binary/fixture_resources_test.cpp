// Kernel resources read from the fixtures' cubins agree with `ptxas -v` for every kernel of every
// fixture target: registers, static shared memory and stack frame (the logs are captured by
// tests/fixtures/build_fixtures.sh with -Xptxas -v). Plus the attributes the source code fixes:
// __launch_bounds__(256), __cluster_dims__(2, 1, 1), 4096 bytes of __shared__ and the 1 KiB extra
// in the .nv.shared section from sm_90 on (fatbin-format.md 4.5-4.6).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fixtures/support.hpp"
#include "smcompat/binary/inventory.hpp"

namespace smcompat {
namespace {

using testing::fixture;
using testing::PtxasKernel;

struct ResourceCase {
  std::string file;                         // fixture to inventory
  std::string log;                          // its build step: <log>.ptxas.log
  bool every_logged_kernel_present = true;  // false where nvlink may drop unlaunched kernels
};

const std::vector<ResourceCase> kCases = {
    {"multi.fatbin", "multi"},
    {"sm90a.fatbin", "sm90a"},
    {"sm100f.fatbin", "sm100f"},
    {"sm103a.fatbin", "sm103a"},
    {"sm120.fatbin", "sm120"},
    {"compress_size.fatbin", "compress_size"},
    {"compress_speed.fatbin", "compress_speed"},
    {"compress_none.fatbin", "compress_none"},
    {"compress_all.fatbin", "compress_all"},
    {"compress_speed_all.fatbin", "compress_speed_all"},
    {"debug.fatbin", "debug"},
    {"kernels_sm90.cubin", "cubin"},
    {"rdc.o", "rdc_obj"},
    {"rdc_app", "rdc_app", false},
    {"app", "app"},
    {"libfixture.so", "shared"},
    {"plain.o", "plain_obj"},
};

class ResourceFixture : public ::testing::TestWithParam<ResourceCase> {};

TEST_P(ResourceFixture, AgreesWithPtxasVerbose) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const ResourceCase& c = GetParam();
  std::string log_path = fixture(c.log + ".ptxas.log", c.log);
  std::vector<PtxasKernel> logged = testing::parse_ptxas_log(testing::read_text(log_path));
  ASSERT_FALSE(logged.empty()) << "no kernels in " << log_path;
  std::map<std::pair<std::string, std::string>, PtxasKernel> want;
  for (const auto& k : logged) want[{k.target, k.name}] = k;

  InspectOptions opt;
  opt.deep = true;
  auto inv = inspect_file(fixture(c.file, c.log), opt);
  ASSERT_FALSE(inv.empty());
  EXPECT_TRUE(testing::all_errors(inv).empty()) << testing::all_errors(inv);
  std::set<std::pair<std::string, std::string>> seen;
  size_t compared = 0;
  for (const auto& f : inv) {
    for (const auto& img : f.images) {
      if (img.target.kind != ImageKind::kSass) continue;
      ASSERT_TRUE(img.cubin.has_value()) << img.target.to_string() << " "
                                         << (img.decode_error ? img.decode_error->to_string() : "");
      for (const CubinKernel& k : img.cubin->kernels) {
        auto key = std::make_pair(img.target.to_string(), k.name);
        auto it = want.find(key);
        ASSERT_NE(it, want.end()) << "kernel " << k.name << " for " << key.first << " is not in "
                                  << log_path;
        SCOPED_TRACE(c.file + " " + key.first + " " + k.name);
        const PtxasKernel& p = it->second;
        ASSERT_TRUE(k.registers.has_value());
        EXPECT_EQ(*k.registers, p.registers);
        EXPECT_EQ(k.shared_bytes, p.shared_bytes);
        EXPECT_EQ(k.stack_bytes.value_or(0), p.stack_bytes);
        // EIATTR_NUM_BARRIERS is left out of a kernel that uses none (ptxas: "used 0 barriers").
        EXPECT_EQ(k.barriers.value_or(0), p.barriers);
        EXPECT_GT(k.sass_bytes, 0u);
        seen.insert(key);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0u);
  if (c.every_logged_kernel_present) {
    for (const auto& [key, k] : want)
      EXPECT_TRUE(seen.count(key)) << "ptxas compiled " << key.second << " for " << key.first
                                   << " but the inventory has no such kernel";
  }
}

INSTANTIATE_TEST_SUITE_P(Ptxas, ResourceFixture, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.log; });

// The attributes the source fixes, on every SASS target they were built for.
TEST(FixtureResources, SourceLevelAttributes) {
  SMCOMPAT_REQUIRE_FIXTURES();
  InspectOptions opt;
  opt.deep = true;
  int smem = 0, bounded = 0, cluster = 0, stack = 0;
  for (const char* name : {"multi.fatbin", "sm90a.fatbin", "sm100f.fatbin", "sm103a.fatbin",
                           "sm120.fatbin", "debug.fatbin", "kernels_sm90.cubin"}) {
    auto inv = inspect_file(fixture(name), opt);
    ASSERT_EQ(inv.size(), 1u);
    for (const auto& img : inv[0].images) {
      if (!img.cubin) continue;
      int arch = img.target.arch;
      SCOPED_TRACE(std::string(name) + " " + img.target.to_string());
      for (const auto& k : img.cubin->kernels) {
        if (k.name == "fixture_smem") {
          ++smem;
          EXPECT_EQ(k.shared_bytes, 4096u);  // __shared__ float buf[1024]
          // sm_90+: the .nv.shared.<k> section is 1 KiB larger than ptxas reports.
          EXPECT_EQ(k.shared_section_bytes, arch >= 90 ? 4096u + 1024u : 4096u);
          EXPECT_EQ(k.demangled, "fixture_smem");  // extern "C"
        } else if (k.name == "fixture_bounded") {
          ++bounded;
          ASSERT_TRUE(k.max_threads.has_value());
          EXPECT_EQ(*k.max_threads, (std::array<uint32_t, 3>{256, 1, 1}));
          EXPECT_EQ(k.shared_bytes, 0u);
        } else if (k.name == "fixture_cluster") {
          ++cluster;
          EXPECT_GE(arch, 90);
          ASSERT_TRUE(k.cluster_dims.has_value());
          EXPECT_EQ(*k.cluster_dims, (std::array<uint32_t, 3>{2, 1, 1}));
        } else if (k.name == "_ZN7fixture5scaleILi4EEEvPff") {
          EXPECT_EQ(k.demangled, "void fixture::scale<4>(float*, float)");
          ASSERT_TRUE(k.param_bytes.has_value());
          EXPECT_EQ(*k.param_bytes, 12u);  // float* + float
          EXPECT_FALSE(k.max_threads.has_value());
          EXPECT_FALSE(k.cluster_dims.has_value());
        } else if (k.name == "fixture_stack") {
          stack += k.stack_bytes.value_or(0) > 0;
        }
      }
    }
  }
  // sm_75 x1, sm_80 x1, sm_90a, sm_100f, sm_103a, sm_110, sm_120, sm_121, sm_86 (-G), sm_90 cubin.
  EXPECT_EQ(smem, 10);
  EXPECT_EQ(bounded, 10);
  // sm_90a, sm_100f, sm_103a, sm_110, sm_120, sm_121, sm_90 cubin: the -DFIXTURE_CLUSTER builds.
  EXPECT_EQ(cluster, 7);
  EXPECT_GT(stack, 0);  // ptxas gives fixture_stack a frame on most targets (512 bytes on sm_80)
}

TEST(FixtureResources, PtxasLogParser) {
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for _Z6helperf\n"
      "    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90a'\n"
      "ptxas info    : Function properties for k1\n"
      "    512 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 37 registers, used 1 barriers, 4096 bytes smem, 512 bytes "
      "cumulative stack size\n"
      "ptxas info    : Compiling entry function 'k2' for 'sm_75'\n"
      "ptxas info    : Function properties for k2\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, 364 bytes cmem[0]\n";
  auto k = testing::parse_ptxas_log(log);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].target, "sm_90a");
  EXPECT_EQ(k[0].name, "k1");
  EXPECT_EQ(k[0].registers, 37u);
  EXPECT_EQ(k[0].barriers, 1u);
  EXPECT_EQ(k[0].shared_bytes, 4096u);
  EXPECT_EQ(k[0].stack_bytes, 512u);
  EXPECT_EQ(k[1].target, "sm_75");
  EXPECT_EQ(k[1].registers, 8u);
  EXPECT_EQ(k[1].shared_bytes, 0u);
  EXPECT_EQ(k[1].stack_bytes, 0u);
}

}  // namespace
}  // namespace smcompat
