// Scanning directories: package grouping (dist-info RECORD, wheels, top-level folders), walk
// errors (missing paths, symlink loops), files that are not object code, and verdicts.
#include "smcompat/scan/scan.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zip.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "smcompat/report/scan_report.hpp"
#include "support/cases.hpp"
#include "support/synth.hpp"
#include "support/wheel.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::vector<uint8_t>& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}
void write(const fs::path& p, const std::string& text) {
  write(p, std::vector<uint8_t>(text.begin(), text.end()));
}

// A wheel (zip) holding one fatbin member and a dist-info, built with libzip.
void make_wheel(const fs::path& p, const std::vector<uint8_t>& member) {
  testwheel::make_wheel(p, member, "Name: fancy\nVersion: 1.2\n");
}

class ScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("smcompat_scan_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(ScanTest, GroupsPythonDistributionsByRecord) {
  fs::path site = root_ / "lib/python3.11/site-packages";
  auto native = synth::container({synth::sass_entry(120), synth::sass_entry(90)});
  auto old = synth::container({synth::sass_entry(80), synth::sass_entry(90)});
  write(site / "torch/lib/libtorch_cuda.so.fatbin", native);
  write(site / "torch/lib/helper.fatbin", native);
  write(site / "torch/__init__.py", "import os\n");
  write(site / "torch-2.7.0+cu128.dist-info/RECORD",
        "torch/lib/libtorch_cuda.so.fatbin,sha256=x,10\ntorch/lib/helper.fatbin,,\n"
        "torch/__init__.py,,\n");
  write(site / "xformers/_C.fatbin", old);
  write(site / "xformers-0.0.30.dist-info/RECORD", "xformers/_C.fatbin,,\n");
  write(site / "loose/thing.fatbin", native);  // in no RECORD: grouped by top-level folder
  ScanOptions opt;
  opt.target = *resolve_target("RTX 5090");
  ScanReport r = scan_paths({site.string()}, opt);
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.packages.size(), 3u);
  std::map<std::string, const PackageSummary*> by;
  for (const auto& p : r.packages) by[p.name] = &p;
  ASSERT_TRUE(by.count("torch") && by.count("xformers") && by.count("loose"));
  EXPECT_EQ(by["torch"]->version, "2.7.0+cu128");
  EXPECT_EQ(by["torch"]->kind, "python-distribution");
  EXPECT_EQ(by["torch"]->files.size(), 2u);
  EXPECT_EQ(*by["torch"]->verdict, Fit::kNative);
  EXPECT_EQ(by["torch"]->sass_targets, (std::vector<std::string>{"sm_90", "sm_120"}));
  EXPECT_EQ(*by["xformers"]->verdict, Fit::kNoImage);
  EXPECT_EQ(by["loose"]->kind, "directory");
  EXPECT_EQ(r.files_skipped, 3u);  // __init__.py and the two RECORDs are not opened
}

TEST_F(ScanTest, WheelsAreReadWithoutExtracting) {
  make_wheel(root_ / "fancy-1.2-cp311-cp311-linux_x86_64.whl",
             synth::container({synth::sass_entry(120), synth::ptx_entry(120, "sm_120")}));
  ScanOptions opt;
  opt.target = *resolve_target("GB10");
  ScanReport r = scan_paths({root_.string()}, opt);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].inventory.member, "fancy/kernels.fatbin");
  EXPECT_EQ(r.files[0].package, "fancy");
  ASSERT_EQ(r.packages.size(), 1u);
  EXPECT_EQ(r.packages[0].version, "1.2");
  EXPECT_EQ(r.packages[0].kind, "wheel");
  EXPECT_EQ(*r.packages[0].verdict, Fit::kCompatibleSass);  // sm_120 SASS on 12.1
  // Nothing was written next to the wheel.
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root_)) ++n;
  EXPECT_EQ(n, 1u);
}

// Archives nested past the limit: the error names where (it had an empty `file`).
TEST_F(ScanTest, NestingPastTheLimitIsALocatedError) {
  auto zip_of = [&](const fs::path& p, const char* name, const std::vector<uint8_t>& bytes) {
    int err = 0;
    zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    ASSERT_NE(z, nullptr);
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    ASSERT_GE(zip_file_add(z, name, src, ZIP_FL_OVERWRITE), 0);
    ASSERT_EQ(zip_close(z), 0);
  };
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
  };
  zip_of(root_ / "inner.zip", "k.fatbin", synth::container({synth::sass_entry(90)}));
  zip_of(root_ / "outer.zip", "inner.zip", read(root_ / "inner.zip"));
  fs::remove(root_ / "inner.zip");
  InspectOptions opt;
  opt.max_nesting = 1;
  auto inv = inspect_file((root_ / "outer.zip").string(), opt);
  bool located = false;
  for (const auto& f : inv)
    for (const auto& e : f.errors)
      if (e.what.find("nested more than 1 levels deep") != std::string::npos) {
        EXPECT_EQ(e.file, (root_ / "outer.zip").string() + "!inner.zip!k.fatbin");
        located = true;
      }
  EXPECT_TRUE(located);
}

// One walk judged for several GPUs (export prometheus judges each node's models from one scan):
// the same verdicts, package roll-ups included, as a scan made for that GPU.
TEST_F(ScanTest, JudgingAScanAgainEqualsScanningForThatGpu) {
  make_wheel(root_ / "fancy-1.2-cp311-cp311-linux_x86_64.whl",
             synth::container({synth::sass_entry(90), synth::ptx_entry(90, "sm_90")}));
  write(root_ / "old.fatbin", synth::container({synth::sass_entry(80)}));
  ScanReport once = scan_paths({root_.string()}, {});
  for (const char* gpu : {"H100 SXM", "RTX 5090", "A100"}) {
    SCOPED_TRACE(gpu);
    ScanOptions opt;
    opt.target = *resolve_target(gpu);
    ScanReport direct = scan_paths({root_.string()}, opt);
    ScanReport again = once;
    judge_report(again, *opt.target);
    EXPECT_EQ(scan_to_json(again, opt, {}).dump(), scan_to_json(direct, opt, {}).dump());
  }
}

TEST_F(ScanTest, WalkProblemsAreReportedAndTheScanGoesOn) {
  write(root_ / "good.fatbin", synth::container({synth::sass_entry(86)}));
  fs::create_directories(root_ / "loop");
  fs::create_directory_symlink(root_ / "loop", root_ / "loop" / "again");  // cycle
  fs::create_symlink(root_ / "self", root_ / "self");                      // ELOOP
  auto bad = synth::container({synth::sass_entry(86)});
  synth::put64(bad, 8, 1 << 20);  // size past the end
  write(root_ / "bad.fatbin", bad);
  ScanReport r = scan_paths({root_.string(), (root_ / "missing").string()}, {});
  std::string all;
  for (const auto& e : r.errors) all += e.to_string() + "\n";
  EXPECT_NE(all.find("symbolic link loop"), std::string::npos) << all;
  EXPECT_NE(all.find("symlink cycle"), std::string::npos) << all;
  EXPECT_NE(all.find((root_ / "missing").string() + ": cannot access"), std::string::npos) << all;
  ASSERT_EQ(r.files.size(), 2u);
  const FileInventory* b = nullptr;
  const FileInventory* g = nullptr;
  for (const auto& f : r.files) (f.inventory.path.ends_with("bad.fatbin") ? b : g) = &f.inventory;
  ASSERT_TRUE(b && g);
  ASSERT_EQ(b->errors.size(), 1u);
  EXPECT_EQ(b->errors[0].offset, 8u);
  EXPECT_EQ(b->errors[0].file, (root_ / "bad.fatbin").string());
  EXPECT_EQ(g->images.size(), 1u);
}

TEST_F(ScanTest, JsonCarriesTheDocumentedFields) {
  write(root_ / "k.fatbin",
        synth::container({synth::sass_entry(90, 0x100000), synth::ptx_entry(90, "sm_90", 8, 5)}));
  ScanOptions opt;
  opt.target = *resolve_target("sm_120", "12.8");
  ScanReport r = scan_paths({(root_ / "k.fatbin").string()}, opt);
  auto j = scan_to_json(r, opt, {false, false, {"smcompat", "scan"}});
  EXPECT_EQ(j["schema"], "smcompat.scan/2");
  EXPECT_EQ(j["target"]["cc"], "12.0");
  EXPECT_EQ(j["target"]["driver_cuda"], "12.8");
  ASSERT_EQ(j["files"].size(), 1u);
  const auto& f = j["files"][0];
  EXPECT_EQ(f["path"], (root_ / "k.fatbin").string());
  EXPECT_EQ(f["package"], "k.fatbin");
  EXPECT_TRUE(f["errors"].empty());
  EXPECT_EQ(f["verdict"], "ptx-jit");
  ASSERT_EQ(f["entries"].size(), 2u);
  EXPECT_EQ(f["entries"][0]["kind"], "sass");
  EXPECT_EQ(f["entries"][0]["target"], "sm_90a");
  EXPECT_EQ(f["entries"][0]["section"], "");
  EXPECT_EQ(f["entries"][0]["container_offset"], 0);
  EXPECT_EQ(f["entries"][0]["compression"], "none");
  EXPECT_EQ(f["entries"][0]["verdict"], "no-image");
  EXPECT_EQ(f["entries"][1]["kind"], "ptx");
  EXPECT_EQ(f["entries"][1]["target"], "compute_90");
  EXPECT_EQ(f["entries"][1]["ptx_version"], "8.5");
  EXPECT_EQ(f["entries"][1]["verdict"], "ptx-jit");
}

}  // namespace
}  // namespace smcompat

namespace smcompat {
namespace {

TEST(DistRecord, PathFieldOfCsvLines) {
  smcompat::testing::expect_mapped(
      dist_record_path, {
                            {"torch/lib/libc10.so,sha256=abc,123", "torch/lib/libc10.so"},
                            {"\"a,b/c.so\",sha256=x,1", "a,b/c.so"},
                            {"\"say \"\"hi\"\".so\",,", "say \"hi\".so"},
                            {"torch-2.7.0.dist-info/RECORD,,", "torch-2.7.0.dist-info/RECORD"},
                            {"", ""},
                            {"\"unterminated", "unterminated"},
                        });
}

}  // namespace
}  // namespace smcompat
