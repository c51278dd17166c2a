// `smcompat ptx` end to end: exit codes, JSON schemas and the files it writes (only when asked).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ptx_test_util.hpp"
#include "smcompat/ptx/ptxas.hpp"

namespace smcompat::ptx {
namespace {

using testing::run_command;

constexpr std::string_view kSetmaxnreg = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry ws()
.maxntid 384, 1, 1
{
	.shared .align 16 .b8 stage[32768];
	.reg .b32 %r<2>;
	mov.u32 %r1, stage;
	setmaxnreg.inc.sync.aligned.u32 232;
	ret;
}
)";

std::string cli() { return SMCOMPAT_CLI; }

TEST(PtxCli, CheckJson) {
  auto dir = testing::work_dir("cli");
  testing::write_file(dir / "ws.ptx", kSetmaxnreg);
  std::string out;
  int rc = run_command(
      cli() + " ptx check --json --target sm_120 " + (dir / "ws.ptx").string() + " 2>/dev/null",
      &out);
  EXPECT_EQ(rc, 1);  // findings
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "smcompat.ptx-check/1");
  EXPECT_EQ(j["target"], "sm_120");
  EXPECT_EQ(j["verdict"], "needs-specific-target");
  const auto& k = j["inputs"][0]["kernels"][0];
  EXPECT_EQ(k["name"], "ws");
  EXPECT_EQ(k["verdict"], "needs-specific-target");
  EXPECT_EQ(k["specific_target"], "sm_120f");
  EXPECT_EQ(k["features"][0]["id"], "setmaxnreg");
  EXPECT_EQ(k["features"][0]["first_use"]["line"], 10);
  EXPECT_EQ(k["features"][0]["first_use"]["column"], 2);
  EXPECT_EQ(k["shared_memory"]["static_bytes"], 32768);
  EXPECT_EQ(k["shared_memory"]["optin_limit"], 101376);

  rc = run_command(cli() + " ptx check --target sm_120a " + (dir / "ws.ptx").string(), &out);
  EXPECT_EQ(rc, 0) << out;
  rc = run_command(cli() + " ptx check --target sm_100 " + (dir / "ws.ptx").string(), &out);
  EXPECT_EQ(rc, 1) << out;
  rc = run_command(cli() + " ptx check --target bogus " + (dir / "ws.ptx").string(), &out);
  EXPECT_EQ(rc, 2) << out;
  rc = run_command(cli() + " ptx check --target sm_120 " + (dir / "missing.ptx").string(), &out);
  EXPECT_EQ(rc, 2) << out;
}

TEST(PtxCli, RetargetWritesOnlyWhenAskedAndReports) {
  auto dir = testing::work_dir("cli");
  testing::write_file(dir / "ws.ptx", kSetmaxnreg);
  std::filesystem::remove(dir / "ws.sm_120.ptx");
  std::string out;
  int rc = run_command(cli() + " ptx retarget --json --to sm_120 " + (dir / "ws.ptx").string() +
                           " -o " + (dir / "ws.sm_120.ptx").string() + " --verify",
                       &out);
  EXPECT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "smcompat.ptx-retarget/1");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["intact_alternative"], "sm_120f");
  ASSERT_EQ(j["rewrites"].size(), 3u);  // version 8.0 -> 8.7, target, setmaxnreg
  EXPECT_EQ(j["rewrites"][0]["kind"], "version");
  EXPECT_EQ(j["rewrites"][2]["kind"], "drop-setmaxnreg");
  EXPECT_FALSE(j.contains("ptx"));
  ASSERT_TRUE(std::filesystem::exists(dir / "ws.sm_120.ptx"));
  if (auto ptxas = find_ptxas()) {
    EXPECT_EQ(j["ptxas"]["verified"], true);
    auto v =
        run_ptxas(*ptxas, testing::read_file(dir / "ws.sm_120.ptx"), *SmTarget::parse("sm_120"));
    ASSERT_TRUE(v.ok()) << v.error().to_string();
    EXPECT_TRUE(v->accepted) << v->log;
  } else {  // --verify says why it could not verify
    EXPECT_TRUE(j["ptxas"]["verified"].is_null()) << j["ptxas"];
    EXPECT_NE(j["ptxas"]["note"].get<std::string>().find("no ptxas"), std::string::npos);
  }
  // Refused: nothing is written.
  constexpr std::string_view kWgmma =
      ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
      "\twgmma.fence.sync.aligned;\n\tret;\n}\n";
  testing::write_file(dir / "wg.ptx", kWgmma);
  std::filesystem::remove(dir / "wg.out.ptx");
  rc = run_command(cli() + " ptx retarget --to sm_120 " + (dir / "wg.ptx").string() + " -o " +
                       (dir / "wg.out.ptx").string(),
                   &out);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("cannot retarget"), std::string::npos) << out;
  EXPECT_NE(out.find("mma.sync"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "wg.out.ptx"));
  // Malformed input: a located error, exit 2.
  testing::write_file(dir / "bad.ptx", ".version 8.0\n.target sm_80\n.entry k() {\n\tret\n}\n");
  rc = run_command(cli() + " ptx retarget --to sm_120 " + (dir / "bad.ptx").string(), &out);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("line 4, column 2"), std::string::npos) << out;
}

TEST(PtxCli, LowerRewritesWgmmaAndReports) {
  auto dir = testing::work_dir("cli-lower");
  constexpr std::string_view kWgmma =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k(.param .u64 pa, .param .u64 pb)\n{\n"
      "\t.reg .f32 %f<5>;\n\t.reg .b64 %rd<3>;\n"
      "\tld.param.u64 %rd1, [pa];\n\tld.param.u64 %rd2, [pb];\n"
      "\twgmma.fence.sync.aligned;\n"
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 0, "
      "1, 1, 0, 0;\n"
      "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tret;\n}\n";
  testing::write_file(dir / "wg.ptx", kWgmma);
  std::filesystem::remove(dir / "wg.sm_120.ptx");
  std::string out;
  int rc = run_command(cli() + " ptx lower --json --to sm_120 " + (dir / "wg.ptx").string() +
                           " -o " + (dir / "wg.sm_120.ptx").string() + " --verify",
                       &out);
  EXPECT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "smcompat.ptx-lower/1");
  EXPECT_EQ(j["ok"], true);
  ASSERT_EQ(j["lowered"].size(), 4u);
  EXPECT_EQ(j["lowered"][1]["kind"], "wgmma-mma");
  EXPECT_EQ(j["lowered"][1]["mma_sync"], 1);
  EXPECT_EQ(j["lowered"][1]["at"]["line"], 11);
  EXPECT_EQ(j["lowered"][0]["kind"], "wgmma-sync");
  ASSERT_EQ(j["rewrites"].size(), 2u);  // version 8.0 -> 8.7, target
  EXPECT_FALSE(j.contains("ptx"));
  ASSERT_TRUE(std::filesystem::exists(dir / "wg.sm_120.ptx"));
  const std::string lowered = testing::read_file(dir / "wg.sm_120.ptx");
  EXPECT_NE(lowered.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}"),
            std::string::npos);
  if (find_ptxas()) EXPECT_EQ(j["ptxas"]["verified"], true) << j["ptxas"];
  // Text: the report on stderr, the PTX on stdout.
  rc = run_command(
      "(" + cli() + " ptx lower --to sm_120 " + (dir / "wg.ptx").string() + " 2>/dev/null)", &out);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out.rfind(".version 8.7", 0), 0u) << out.substr(0, 200);
  // Refused: nothing is written, exit 1, the line and the reason.
  std::string bad(kWgmma);
  bad.replace(bad.find("m64n8k16.f32.f16.f16"), 20, "m64n8k16.f32.f16.bf16");
  testing::write_file(dir / "mixed.ptx", bad);
  std::filesystem::remove(dir / "mixed.out.ptx");
  rc = run_command(cli() + " ptx lower --to sm_120 " + (dir / "mixed.ptx").string() + " -o " +
                       (dir / "mixed.out.ptx").string(),
                   &out);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("mixed.ptx:11:2: cannot lower k"), std::string::npos) << out;
  EXPECT_NE(out.find("do not pair"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "mixed.out.ptx"));
  // A bad target is a usage error.
  rc = run_command(cli() + " ptx lower --to gfx90a " + (dir / "wg.ptx").string(), &out);
  EXPECT_EQ(rc, 2);
}

TEST(PtxCli, CheckFindsPtxEmbeddedInAnArchiveMember) {
  SMCOMPAT_REQUIRE_CUDA();
  auto dir = testing::work_dir("cli-archive");
  std::string log;
  // An object holding only compute_90a PTX (no SASS), inside a static library.
  int rc = run_command(testing::cuda_bin("nvcc") +
                           " -c -gencode arch=compute_90a,code=compute_90a " + SMCOMPAT_SOURCE_DIR +
                           "/tests/ptx/data/setmaxnreg.cu -o " + (dir / "ws.o").string(),
                       &log);
  ASSERT_EQ(rc, 0) << log;
  std::filesystem::remove(dir / "libws.a");
  ASSERT_EQ(
      run_command("ar rcs " + (dir / "libws.a").string() + " " + (dir / "ws.o").string(), &log), 0)
      << log;
  std::string out;
  rc = run_command(
      cli() + " ptx check --json --target sm_120 " + (dir / "libws.a").string() + " 2>/dev/null",
      &out);
  EXPECT_EQ(rc, 1);
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["inputs"].size(), 1u) << out;
  const auto& in = j["inputs"][0];
  EXPECT_EQ(in["member"], "ws.o");
  EXPECT_EQ(in["image"]["target"], "compute_90a");
  EXPECT_EQ(in["ptx_target"], "sm_90a");
  ASSERT_EQ(in["kernels"].size(), 2u);
  EXPECT_EQ(in["kernels"][0]["name"], "warp_specialized");
  EXPECT_EQ(in["kernels"][0]["verdict"], "needs-specific-target");
  EXPECT_EQ(in["kernels"][1]["name"], "plain");
  EXPECT_EQ(in["kernels"][1]["verdict"], "runs");
  EXPECT_EQ(j["summary"]["kernels"], 2);
}

TEST(PtxCli, BudgetExplainsSharedMemory) {
  auto dir = testing::work_dir("cli");
  testing::write_file(dir / "ws.ptx", kSetmaxnreg);
  std::string out;
  int rc = run_command(cli() + " ptx budget --target sm_120 " + (dir / "ws.ptx").string(), &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("stage"), std::string::npos) << out;
  EXPECT_NE(out.find("32768"), std::string::npos) << out;
  EXPECT_NE(out.find("101376"), std::string::npos) << out;
  rc = run_command(cli() + " ptx budget --json -k ws " + (dir / "ws.ptx").string(), &out);
  EXPECT_EQ(rc, 0);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "smcompat.ptx-budget/1");
  EXPECT_EQ(j["kernels"][0]["shared_memory"]["declarations"][0]["name"], "stage");
  EXPECT_EQ(j["kernels"][0]["shared_memory"]["declarations"][0]["bytes"], 32768);
  rc = run_command(cli() + " ptx budget -k nope " + (dir / "ws.ptx").string(), &out);
  EXPECT_EQ(rc, 2);
}

}  // namespace
}  // namespace smcompat::ptx
