// The printers of a live-process check (report/check_report.hpp) on a hand-built ProcessCheck:
// the smcompat.check/1 fields and the text's rows and findings.
#include "smcompat/report/check_report.hpp"

#include <gtest/gtest.h>

#include "smcompat/report/doctor_report.hpp"

namespace smcompat {
namespace {

using namespace doctor;

ProcessCheck sample_check() {
  ProcessCheck c;
  c.pid = 77;
  c.maps = "/proc/77/maps";
  c.maps_read = true;
  c.mapped_files = 12;
  c.report.driver.state = DriverFacts::State::kOk;
  c.report.driver.observed = true;
  c.report.driver.version = DriverVersion::parse("580.95.05");
  c.report.driver.cuda = Version{13, 0};
  c.report.driver.gpus.push_back({"GeForce RTX 5090", {12, 0}, "0000:01:00.0"});
  TargetQuery q;
  q.machine.push_back({"GeForce RTX 5090", {12, 0}, 0});
  q.names = {"H100"};
  c.report.targets = resolve_targets(q).targets;
  c.gpu = 0;
  LoadedLibrary lib;
  lib.path = "/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so";
  lib.package = "torch";
  lib.version = "2.7.0+cu126";
  lib.code.targets = {*SmTarget::parse("sm_80"), *SmTarget::parse("sm_90")};
  lib.verdict = LibraryVerdict{lib.path, Fit::kNoImage, "", "no image"};
  c.libraries.push_back(lib);
  TorchRuntime t;
  t.version = "2.7.0+cu126";
  t.cuda = "12.6";
  t.arch_list = {"sm_80", "sm_90"};
  t.capability = ComputeCapability{12, 0};
  c.torch = t;
  c.report.findings.push_back({Severity::kError,
                               "torch-arch-list-excludes-gpu",
                               "torch.cuda.get_arch_list() has no code for GeForce RTX 5090",
                               {"torch.cuda.get_arch_list(): sm_80 sm_90"},
                               "Install torch from the cu128 channel.",
                               {"pip install torch"},
                               "/venv"});
  c.errors.push_back(
      "/proc/77/maps: offset 0x10: malformed maps line: inode \"x\" is not a "
      "decimal number");
  return c;
}

TEST(CheckJson, FieldsOfSchemaCheck1) {
  auto j = check_to_json(sample_check(), {"smcompat", "check", "--pid", "77"});
  EXPECT_EQ(j["schema"], "smcompat.check/1");
  EXPECT_EQ(j["argv"], (std::vector<std::string>{"smcompat", "check", "--pid", "77"}));
  EXPECT_EQ(j["pid"], 77);
  EXPECT_EQ(j["maps"], "/proc/77/maps");
  EXPECT_EQ(j["maps_read"], true);
  EXPECT_EQ(j["mapped_files"], 12);
  EXPECT_EQ(j["gpu"]["cc"], "12.0");
  EXPECT_EQ(j["gpu"]["gpu"], "GeForce RTX 5090");
  ASSERT_EQ(j["what_if"].size(), 1u);
  EXPECT_EQ(j["what_if"][0]["gpu"], "H100 SXM");
  EXPECT_EQ(j["driver"]["version"], "580.95.05");
  EXPECT_EQ(j["driver"]["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  ASSERT_EQ(j["libraries"].size(), 1u);
  auto& l = j["libraries"][0];
  EXPECT_EQ(l["package"], "torch");
  EXPECT_EQ(l["version"], "2.7.0+cu126");
  EXPECT_EQ(l["fit"], "no-image");
  EXPECT_EQ(l["best_image"], nullptr);
  EXPECT_EQ(l["deleted"], false);
  EXPECT_EQ(l["targets"], (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(j["torch"]["arch_list"], (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(j["torch"]["capability"], "12.0");
  EXPECT_EQ(j["torch"]["device"], 0);
  EXPECT_EQ(j["summary"]["errors"], 1);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0], finding_to_json(sample_check().report.findings[0]));
  EXPECT_EQ(j["errors"].size(), 1u);
}

TEST(CheckText, RowsAndFindings) {
  auto text = render_check_text(sample_check(), Style::plain());
  for (const char* want :
       {"smcompat check: process 77",
        "GeForce RTX 5090 (compute capability 12.0, device 0, observed)",
        "H100 SXM (compute capability 9.0, what-if, not present)", "arch list: sm_80 sm_90",
        "Loaded libraries with GPU code (1 of 12 mapped files)", "torch 2.7.0+cu126", "no-image",
        "Findings (1 errors, 0 warnings, 0 info)", "[torch-arch-list-excludes-gpu]",
        "$ pip install torch", "malformed maps line"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(CheckText, UnreadableProcessSaysWhy) {
  ProcessCheck c;
  c.pid = 5;
  c.errors = {"process 5: cannot read /proc/5/maps: No such file or directory"};
  auto text = render_check_text(c, Style::plain());
  EXPECT_NE(text.find("cannot read /proc/5/maps"), std::string::npos);
  EXPECT_EQ(text.find("Findings"), std::string::npos);
}

}  // namespace
}  // namespace smcompat
