// The smcompat binary end to end: exit codes, --json, colour rules, usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_run.hpp"
#include "support/image_builder.hpp"
#include "support/synth.hpp"

namespace {

namespace fs = std::filesystem;

using smcompat::testcli::CliRun;
using smcompat::testcli::run;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smcompat_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    auto write = [&](const char* name, const std::vector<uint8_t>& b) {
      std::ofstream(dir_ / name, std::ios::binary)
          .write(reinterpret_cast<const char*>(b.data()), b.size());
    };
    using namespace smcompat::synth;
    write("native.fatbin", container({sass_entry(120)}));
    write("old.fatbin", container({sass_entry(80), sass_entry(90)}));
    write("jit.fatbin", container({sass_entry(80), ptx_entry(80, "sm_80", 8, 0)}));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const char* name) { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CliTest, FailOnThresholds) {
  EXPECT_EQ(run("scan " + p("native.fatbin") + " --gpu 'RTX 5090' --fail-on ptx-jit").code, 0);
  EXPECT_EQ(run("scan " + p("jit.fatbin") + " --gpu 'RTX 5090' --fail-on ptx-jit").code, 1);
  EXPECT_EQ(run("scan " + p("jit.fatbin") + " --gpu 'RTX 5090' --fail-on no-image").code, 0);
  EXPECT_EQ(run("scan " + p("old.fatbin") + " --gpu 'RTX 5090' --fail-on no-image").code, 1);
  EXPECT_EQ(run("scan " + p("old.fatbin") + " --gpu H100 --fail-on no-image").code, 0);
  EXPECT_EQ(run("scan " + dir_.string() + " --target sm_120 --fail-on warning").code, 1);
}

TEST_F(CliTest, UsageAndIoErrorsExitTwo) {
  EXPECT_EQ(run("scan " + p("native.fatbin") + " --gpu 'RTX 9999'").code, 2);
  EXPECT_EQ(run("scan " + p("native.fatbin") + " --gpu H100 --target sm_90").code, 2);
  EXPECT_EQ(run("scan " + p("native.fatbin") + " --fail-on no-image").code, 2);  // needs a target
  EXPECT_EQ(run("scan " + p("does-not-exist")).code, 2);
  EXPECT_EQ(run("scan").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
}

TEST_F(CliTest, AFailedWriteToStdoutExitsTwoAndSaysSo) {
  // /dev/full: every write fails with ENOSPC, as on a full disk. The streamed document must not
  // pass for a complete one.
  for (const char* args : {" --json", ""}) {
    std::string cmd = std::string(SMCOMPAT_CLI) + " scan " + dir_.string() + " --gpu 5090" + args +
                      " 2>&1 >/dev/full";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_TRUE(p);
    std::string err;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) err.append(buf, n);
    int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << args << ": " << err;
    EXPECT_NE(err.find("cannot write to standard output"), std::string::npos) << err;
  }
}

TEST_F(CliTest, JsonIsValidAndVersioned) {
  CliRun r = run("scan " + dir_.string() + " --gpu 5090 --json");
  ASSERT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "smcompat.scan/2");
  EXPECT_EQ(j["target"]["gpu"], "GeForce RTX 5090");
  EXPECT_EQ(j["files"].size(), 3u);
  EXPECT_EQ(j["argv"][1], "scan");
}

// Bytes that are not UTF-8 (a file name, a log line) are written as U+FFFD in --json; nlohmann's
// dump() used to throw on them ("internal error ... type_error.316", exit 2, no output).
TEST_F(CliTest, JsonWithBytesThatAreNotUtf8) {
  std::string odd = "odd\xff\xfename.fatbin";
  fs::copy_file(dir_ / "native.fatbin", dir_ / odd);
  auto scan = run("scan " + dir_.string() + " --gpu 'RTX 5090' --json");
  ASSERT_EQ(scan.code, 0) << scan.out;
  auto doc = nlohmann::json::parse(scan.out);
  bool found = false;
  for (const auto& f : doc["files"])
    found |=
        f["path"].get<std::string>() == (dir_ / "odd\xef\xbf\xbd\xef\xbf\xbdname.fatbin").string();
  EXPECT_TRUE(found) << scan.out;

  std::ofstream(dir_ / "log.txt") << "RuntimeError: CUDA error: no kernel image is available for "
                                     "execution on the device \xff\xfe\n";
  auto explain = run("explain --json --file " + p("log.txt"));
  ASSERT_EQ(explain.code, 0) << explain.out;
  auto e = nlohmann::json::parse(explain.out);
  EXPECT_EQ(e["schema"], "smcompat.explain/1");
  EXPECT_NE(explain.out.find("\xef\xbf\xbd"), std::string::npos) << explain.out;
}

TEST_F(CliTest, NoColourWhenPipedOrAsked) {
  CliRun piped = run("scan " + p("old.fatbin") + " --gpu 5090");
  EXPECT_EQ(piped.out.find("\x1b["), std::string::npos);
  EXPECT_NE(piped.out.find("no-image"), std::string::npos);
  CliRun forced = run("--color always scan " + p("old.fatbin") + " --gpu 5090");
  EXPECT_NE(forced.out.find("\x1b[31mno-image"), std::string::npos);
  // A global option after the subcommand is the same option (docs/scan.md lists it there).
  CliRun after = run("scan " + p("old.fatbin") + " --gpu 5090 --color always");
  EXPECT_EQ(after.code, forced.code);
  EXPECT_NE(after.out.find("\x1b[31mno-image"), std::string::npos) << after.out;
  CliRun after_never = run("scan " + p("old.fatbin") + " --gpu 5090 --color never");
  EXPECT_EQ(after_never.out, piped.out);
  EXPECT_EQ(run("scan " + p("old.fatbin") + " --color sometimes").code, 2);
  CliRun gpus = run("gpus 5090 --json");
  EXPECT_EQ(nlohmann::json::parse(gpus.out)["gpus"][0]["cc"], "12.0");
  CliRun arch = run("arch sm_120");
  EXPECT_NE(arch.out.find("101376 bytes"), std::string::npos) << arch.out;
  EXPECT_NE(arch.out.find("runs SASS        sm_120, sm_120a, sm_120f"), std::string::npos)
      << arch.out;
}

}  // namespace

namespace {

TEST_F(CliTest, WithoutATargetTheProbedGpuIsUsed) {
  std::string fake = std::string(SMCOMPAT_BINARY_DIR) + "/tests/fakedriver/lib";
  if (!fs::exists(fake + "/libcuda.so.1")) GTEST_SKIP() << "fake driver not built";
  CliRun r = run("scan " + p("old.fatbin") + " --json",
                 "LD_LIBRARY_PATH=" + fake + " SMCOMPAT_FAKE_GPUS='H100' SMCOMPAT_FAKE_CUDA=12080");
  ASSERT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["target"]["cc"], "9.0");
  EXPECT_EQ(j["target"]["driver_cuda"], "12.8");
  EXPECT_EQ(j["files"][0]["verdict"], "native");
  // --no-probe, or no driver at all: an inventory without verdicts.
  CliRun np = run("scan " + p("old.fatbin") + " --json --no-probe",
                  "LD_LIBRARY_PATH=" + fake + " SMCOMPAT_FAKE_GPUS='H100'");
  EXPECT_TRUE(nlohmann::json::parse(np.out)["target"].is_null());
  CliRun none = run("scan " + p("old.fatbin") + " --json", "LD_LIBRARY_PATH=/nonexistent");
  EXPECT_TRUE(nlohmann::json::parse(none.out)["target"].is_null());
}

// `smcompat scan image.tar`: an OCI tarball whose second layer deletes one of the first layer's
// libraries (tests/scan/image_scan_test.cpp has the full inventory).
TEST_F(CliTest, ScanContainerImage) {
#ifndef SMCOMPAT_IMAGE_FIXTURES
  GTEST_SKIP() << "nvcc fixtures not built (tests/scan/CMakeLists.txt needs nvcc)";
#else
  namespace ti = smcompat::testimage;
  const fs::path fixtures = SMCOMPAT_IMAGE_FIXTURES;
  if (!fs::exists(fixtures / "libkeep.so")) GTEST_SKIP() << "nvcc fixtures not built";
  std::string keep = ti::read_file(fixtures / "libkeep.so");
  std::string gone = ti::read_file(fixtures / "libgone.so");
  ti::Layer l1{
      ti::tar({ti::file("opt/app/lib/libkeep.so", keep), ti::file("opt/app/lib/libgone.so", gone),
               ti::file("opt/app/lib/libcudart.so.12.8.90", "runtime")},
              true),
      true};
  ti::Layer l2{ti::tar({ti::file("opt/app/lib/.wh.libgone.so", "")}), false};
  std::string image = p("image.tar");
  ti::write_file(image, ti::archive_of(ti::oci_layout({l1, l2}, "demo:1")));

  CliRun r = run("scan " + image + " --json --gpu 'RTX 5090'");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "smcompat.scan/2");
  ASSERT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["files"][0]["path"], image);
  EXPECT_EQ(j["files"][0]["member"], "opt/app/lib/libkeep.so");
  EXPECT_EQ(j["files"][0]["verdict"], "ptx-jit");
  ASSERT_EQ(j["images"].size(), 1u);
  EXPECT_EQ(j["images"][0]["format"], "oci-archive");
  EXPECT_EQ(j["images"][0]["reference"], "demo:1");
  EXPECT_EQ(j["images"][0]["platform"], "linux/amd64");
  EXPECT_EQ(j["images"][0]["files_in_image"], 2);
  ASSERT_EQ(j["images"][0]["layers"].size(), 2u);
  EXPECT_EQ(j["images"][0]["layers"][0]["media_type"],
            "application/vnd.oci.image.layer.v1.tar+gzip");
  EXPECT_EQ(j["images"][0]["layers"][1]["whiteouts"], 1);
  ASSERT_EQ(j["cuda_runtimes"].size(), 1u);
  EXPECT_EQ(j["cuda_runtimes"][0]["member"], "opt/app/lib/libcudart.so.12.8.90");
  EXPECT_EQ(j["cuda_runtimes"][0]["version"], "12.8.90");

  CliRun text = run("scan " + image + " --gpu 'RTX 5090'");
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("Image demo:1 (oci-archive)"), std::string::npos) << text.out;
  EXPECT_LT(text.out.find("Image demo:1"), text.out.find("package"));
  EXPECT_EQ(text.out.find("libgone"), std::string::npos);

  // A truncated image tar is still read as far as it goes: a located error, exit 0 unless
  // --fail-on error.
  std::string bytes = ti::read_file(image);
  ti::write_file(image, bytes.substr(0, bytes.size() / 2));
  CliRun cut = run("scan " + image + " --json --fail-on error");
  auto jc = nlohmann::json::parse(cut.out);
  EXPECT_FALSE(jc["errors"].empty());
#endif
}

}  // namespace
