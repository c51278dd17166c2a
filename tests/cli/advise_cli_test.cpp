// `smcompat advise` and `smcompat index query/diff` end to end: an index file written from the
// hand-built records of tests/index/index_fixtures.hpp, a fake environment on disk for --python,
// exit codes (0 fine, 1 no native release / a dropped target, 2 usage or I/O), and the JSON.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "index/index_fixtures.hpp"
#include "support/cli_run.hpp"
#include "support/synth.hpp"
#include "support/wheel.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

using testcli::CliRun;
using testcli::run;

// A wheel (zip, built with libzip) holding one fatbin member and its METADATA.
void make_wheel(const fs::path& p, const std::vector<uint8_t>& fatbin) {
  testwheel::make_wheel(p, fatbin, "Metadata-Version: 2.1\nName: fancy\nVersion: 1.2\n");
}

class AdviseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smcompat_advise_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    write_index("index.json", test_index::sample_index());
    // A venv: bin/python (any regular file: the environment is read from disk, not run) and
    // dist-info directories with METADATA.
    fs::create_directories(dir_ / "venv/bin");
    std::ofstream(dir_ / "venv/bin/python") << "";
    auto site = dir_ / "venv/lib/python3.12/site-packages";
    for (auto [name, version] :
         {std::pair{"torch", "2.8.0+cu128"}, {"xformers", "0.0.32.post2"}, {"numpy", "2.1.0"}}) {
      auto d = site / fmt::format("{}-{}.dist-info", name, version);
      fs::create_directories(d);
      std::ofstream(d / "METADATA")
          << fmt::format("Metadata-Version: 2.1\nName: {}\nVersion: {}\n", name, version);
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_index(const char* name, const WheelIndex& index) {
    std::ofstream(dir_ / name) << to_json(index).dump();
  }
  std::string p(const char* name) const { return (dir_ / name).string(); }
  std::string index_arg() const { return " --index " + p("index.json"); }
  fs::path dir_;
};

TEST_F(AdviseCli, RecommendsTheNativeRelease) {
  CliRun r = run("advise bitsandbytes --gpu 'RTX 5090' --json" + index_arg());
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "smcompat.advise/1");
  EXPECT_EQ(j["argv"][1], "advise");
  EXPECT_EQ(j["machine"], "x86_64");
  EXPECT_EQ(j["index"]["source"], p("index.json"));
  EXPECT_EQ(j["index"]["built"], "2026-11-25");
  ASSERT_EQ(j["packages"].size(), 1u);
  EXPECT_EQ(j["packages"][0]["recommended"], "0.45.3");
  EXPECT_EQ(j["packages"][0]["install_command"], "pip install \"bitsandbytes==0.45.3\"");
  EXPECT_EQ(j["packages"][0]["releases"].size(), 3u);
  EXPECT_EQ(j["packages"][0]["jit_only"], nlohmann::json::parse(R"(["0.45.2", "0.45.1"])"));
}

TEST_F(AdviseCli, ExitOneWhenAPackageHasNoNativeRelease) {
  EXPECT_EQ(run("advise xformers --gpu V100" + index_arg()).code, 1);
  EXPECT_EQ(run("advise bitsandbytes flash-attn --gpu 5090" + index_arg()).code, 1);  // unknown
  EXPECT_EQ(run("advise triton --gpu 5090" + index_arg()).code, 0);  // no GPU code to judge
  EXPECT_EQ(run("advise xformers --gpu H100" + index_arg()).code, 0);
}

TEST_F(AdviseCli, PlatformChoosesTheWheels) {
  CliRun r = run("advise torch --gpu GB10 --json" + index_arg());
  ASSERT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["machine"], "aarch64");
  EXPECT_EQ(j["packages"][0]["releases"].size(), 1u);
  r = run("advise torch --gpu GB10 --platform x86_64 --json" + index_arg());
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["machine"], "x86_64");
  EXPECT_EQ(j["packages"][0]["releases"].size(), 3u);
}

TEST_F(AdviseCli, PythonEnvironmentWithoutPackagesAdvisesOnWhatTheIndexKnows) {
  CliRun r =
      run("advise --gpu 'RTX 5090' --python " + p("venv/bin/python") + " --json" + index_arg());
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["python"], p("venv/bin/python"));
  ASSERT_EQ(j["site_packages"].size(), 1u);
  EXPECT_NE(j["site_packages"][0].get<std::string>().find("python3.12/site-packages"),
            std::string::npos);
  ASSERT_EQ(j["packages"].size(), 2u);  // numpy is not in the index
  const auto& torch = j["packages"][0];
  EXPECT_EQ(torch["package"], "torch");
  EXPECT_EQ(torch["installed_version"], "2.8.0+cu128");
  EXPECT_EQ(torch["recommended"], "2.9.0");
  EXPECT_EQ(torch["install_command"], p("venv/bin/python") + " -m pip install \"torch==2.9.0\"");
  const auto& xformers = j["packages"][1];
  EXPECT_EQ(xformers["package"], "xformers");
  EXPECT_EQ(xformers["recommended"], "0.0.32.post2");  // the installed torch's pin
  EXPECT_EQ(xformers["install_command"], "");          // and already installed
}

TEST_F(AdviseCli, TextAndMarkdown) {
  CliRun text = run("advise bitsandbytes --gpu 5090" + index_arg());
  ASSERT_EQ(text.code, 0);
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos);  // piped: no colour
  EXPECT_NE(text.out.find("bitsandbytes → 0.45.3"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("pip install \"bitsandbytes==0.45.3\""), std::string::npos);
  CliRun colour = run("--color always advise bitsandbytes --gpu 5090" + index_arg());
  EXPECT_NE(colour.out.find('\x1b'), std::string::npos);
  CliRun md = run("advise bitsandbytes --gpu 5090 --markdown -v" + index_arg());
  ASSERT_EQ(md.code, 0);
  EXPECT_EQ(md.out.rfind("# smcompat advise\n", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| 0.45.2 | ptx-jit |"), std::string::npos) << md.out;
}

TEST_F(AdviseCli, UsageAndIoErrorsExitTwo) {
  EXPECT_EQ(run("advise bitsandbytes" + index_arg()).code, 2);  // no --gpu
  EXPECT_EQ(run("advise bitsandbytes --gpu 'RTX 9999'" + index_arg()).code, 2);
  EXPECT_EQ(run("advise --gpu 5090" + index_arg()).code, 2);  // nothing asked
  EXPECT_EQ(run("advise torch --gpu 5090 --index " + p("missing.json")).code, 2);
  EXPECT_EQ(run("advise torch --gpu 5090 --python " + p("nowhere") + index_arg()).code, 2);
  EXPECT_EQ(run("advise torch --gpu 5090 --platform ppc64le" + index_arg()).code, 2);
  EXPECT_EQ(run("advise torch --gpu 5090 --json --markdown" + index_arg()).code, 2);
  EXPECT_EQ(run("advise torch --gpu 5090 --driver banana" + index_arg()).code, 2);
  std::ofstream(dir_ / "broken.json") << "{\"schema\": \"smcompat.index/1\", \"wheels\": [";
  EXPECT_EQ(run("advise torch --gpu 5090 --index " + p("broken.json")).code, 2);
}

TEST_F(AdviseCli, IndexQuery) {
  CliRun r = run("index query --gpu 'RTX 5090' --json" + index_arg());
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "smcompat.index-query/1");
  EXPECT_EQ(j["machine"], nullptr);
  EXPECT_EQ(j["rows"].size(), 13u);
  r = run("index query --gpu 'RTX 5090' --platform aarch64 --json" + index_arg());
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["package"], "torch");
  r = run("index query --gpu 5090 bitsandbytes" + index_arg());
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("bitsandbytes  0.45.2   x86_64   ptx-jit"), std::string::npos) << r.out;
  EXPECT_EQ(run("index query --gpu 5090 --markdown" + index_arg()).out.rfind("# smcompat", 0), 0u);
  EXPECT_EQ(run("index query" + index_arg()).code, 2);  // no --gpu
  EXPECT_EQ(run("index").code, 2);                      // no index subcommand
}

TEST_F(AdviseCli, IndexDiffOfReleasesInTheIndex) {
  CliRun r = run("index diff bitsandbytes==0.45.2 bitsandbytes==0.45.3 --fail-on dropped --json" +
                 index_arg());
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "smcompat.index-diff/1");
  EXPECT_EQ(j["dropped_any"], false);
  ASSERT_EQ(j["diffs"].size(), 1u);
  EXPECT_EQ(j["diffs"][0]["added_sass"], nlohmann::json::parse(R"(["sm_100", "sm_120"])"));
  // The other way round drops sm_100 and sm_120: exit 1 only when asked.
  EXPECT_EQ(run("index diff bitsandbytes==0.45.3 bitsandbytes==0.45.2" + index_arg()).code, 0);
  r = run("index diff bitsandbytes==0.45.3 bitsandbytes==0.45.2 --fail-on dropped" + index_arg());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("dropped a SASS or PTX target"), std::string::npos) << r.out;
  // torch 2.8.0 vs 2.9.0: paired per machine (2.8.0 has no aarch64 wheel).
  r = run("index diff torch==2.8.0 torch==2.9.0 --json" + index_arg());
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["diffs"].size(), 2u);
  EXPECT_EQ(j["diffs"][0]["machine"], "aarch64");
  EXPECT_EQ(j["diffs"][0]["old_version"], "");
}

TEST_F(AdviseCli, IndexDiffOfIndexFiles) {
  WheelIndex old_index, new_index;
  old_index.wheels = {test_index::bitsandbytes("0.45.3", true)};
  new_index.wheels = {test_index::bitsandbytes("0.45.2", false)};
  write_index("old.json", old_index);
  write_index("new.json", new_index);
  EXPECT_EQ(run("index diff " + p("old.json") + " " + p("new.json") + " --fail-on dropped").code,
            1);
  EXPECT_EQ(run("index diff " + p("new.json") + " " + p("old.json") + " --fail-on dropped").code,
            0);
  CliRun md = run("index diff " + p("old.json") + " " + p("new.json") + " --markdown");
  EXPECT_EQ(md.out.rfind("# smcompat index diff\n", 0), 0u) << md.out;
}

TEST_F(AdviseCli, IndexDiffOfWheelFilesScansThem) {
  using namespace synth;
  make_wheel(dir_ / "fancy-1.2-cp312-cp312-linux_x86_64.whl",
             container({sass_entry(80), sass_entry(90), ptx_entry(90, "sm_90", 8, 4)}));
  make_wheel(dir_ / "fancy-1.3-cp312-cp312-linux_x86_64.whl",
             container({sass_entry(90), sass_entry(120)}));
  std::string old_whl = p("fancy-1.2-cp312-cp312-linux_x86_64.whl");
  std::string new_whl = p("fancy-1.3-cp312-cp312-linux_x86_64.whl");
  CliRun r = run("index diff " + old_whl + " " + new_whl + " --json --fail-on dropped");
  EXPECT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["diffs"].size(), 1u);
  const auto& d = j["diffs"][0];
  EXPECT_EQ(d["package"], "fancy");
  EXPECT_EQ(d["old_version"], "1.2");
  EXPECT_EQ(d["new_version"], "1.3");
  EXPECT_EQ(d["added_sass"], nlohmann::json::parse(R"(["sm_120"])"));
  EXPECT_EQ(d["dropped_sass"], nlohmann::json::parse(R"(["sm_80"])"));
  EXPECT_EQ(d["dropped_ptx"], nlohmann::json::parse(R"(["compute_90@8.4"])"));
  EXPECT_TRUE(d["added_files"].empty());
  EXPECT_EQ(run("index diff " + new_whl + " " + new_whl + " --fail-on dropped").code, 0);
  // Against PKG==VER, a wheel file meets the release's wheel for its own machine only.
  WheelIndex index;
  for (const char* machine : {"x86_64", "aarch64"})
    index.wheels.push_back(
        test_index::wheel("fancy", "1.3", machine,
                          {test_index::device_file("fancy/kernels.fatbin", {"sm_90", "sm_120"})}));
  write_index("fancy.json", index);
  r = run("index diff " + new_whl + " fancy==1.3 --json --fail-on dropped --index " +
          p("fancy.json"));
  EXPECT_EQ(r.code, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["diffs"].size(), 1u);
  EXPECT_EQ(j["diffs"][0]["machine"], "x86_64");
  EXPECT_TRUE(j["diffs"][0]["added_sass"].empty());
  EXPECT_TRUE(j["diffs"][0]["dropped_sass"].empty());
  EXPECT_TRUE(j["diffs"][0]["added_files"].empty());
}

TEST_F(AdviseCli, IndexDiffErrorsExitTwo) {
  EXPECT_EQ(run("index diff bitsandbytes==9.9 bitsandbytes==0.45.3" + index_arg()).code, 2);
  EXPECT_EQ(run("index diff nothing-here bitsandbytes==0.45.3" + index_arg()).code, 2);
  std::ofstream(dir_ / "garbage.whl") << "not a zip";
  EXPECT_EQ(run("index diff " + p("garbage.whl") + " bitsandbytes==0.45.3" + index_arg()).code, 2);
  EXPECT_EQ(run("index diff a==1 b==1 --fail-on added" + index_arg()).code, 2);
  EXPECT_EQ(run("index diff bitsandbytes==0.45.3" + index_arg()).code, 2);  // NEW missing
}

TEST_F(AdviseCli, IndexReportWritesOnlyTheNamedPage) {
  const std::string page = p("page.html");
  CliRun r = run("index report --html " + page + " --gpu 'RTX 5090' --gpu H100" + index_arg());
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "");  // nothing on stdout: the page goes to the file it names, only
  std::ifstream in(page);
  const std::string html{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  size_t rows = 0;
  for (auto at = html.find("<tr data-package="); at != std::string::npos;
       at = html.find("<tr data-package=", at + 1))
    ++rows;
  EXPECT_EQ(rows, 5u);  // bitsandbytes, flashinfer-python, torch, triton, xformers
  // 0.45.1 and 0.45.2 carry compute_90 PTX only; 0.45.3 adds sm_120 SASS.
  EXPECT_NE(html.find("<tr data-package=\"bitsandbytes\"><th>bitsandbytes</th><td "
                      "class=\"fit-native\" data-rank=\"0\"><div class=\"cell-verdict\">native "
                      "<span class=\"ver\">0.45.3</span></div><div class=\"cell-native\">runs "
                      "natively: since 0.45.3</div><div class=\"cell-jit\">JIT only: "
                      "0.45.1–0.45.2</div><code class=\"pip\">pip install "
                      "&quot;bitsandbytes==0.45.3&quot;</code></td>"),
            std::string::npos)
      << html;
  EXPECT_EQ(run("index report -o " + p("o.html") + " --gpu L4" + index_arg()).code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "o.html"));
}

TEST_F(AdviseCli, IndexReportErrorsExitTwoAndWriteNothing) {
  EXPECT_EQ(run("index report" + index_arg()).code, 2);  // --html is required
  EXPECT_EQ(run("index report --html " + p("a.html") + " --gpu 'RTX 9999'" + index_arg()).code, 2);
  EXPECT_EQ(run("index report --html " + p("b.html") + " --index " + p("missing.json")).code, 2);
  EXPECT_EQ(run("index report --html " + p("no/such/dir/c.html") + index_arg()).code, 2);
  for (const char* name : {"a.html", "b.html", "no"}) EXPECT_FALSE(fs::exists(dir_ / name)) << name;
}

}  // namespace
}  // namespace smcompat
