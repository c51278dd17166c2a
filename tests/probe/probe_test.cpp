// In-process tests of the probe library: the /proc/driver/nvidia/version parser, the derived
// bandwidth formula, and probe_system() against a missing library and the CUDA toolkit's stub
// (which answers every call with CUDA_ERROR_STUB_LIBRARY, driver-api.md §8), and the NUMA node
// read from a hand-built sysfs tree.
#include "smcompat/probe/probe.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_child.hpp"
#include "smcompat/report/probe_report.hpp"

namespace smcompat {
namespace {

TEST(ProcDriverVersion, OpenModule) {
  auto info = parse_proc_driver_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
      "(dvs-builder@U16-I3-B03-4-3)  Thu Sep 25 23:08:28 UTC 2025\nGCC version: gcc 12.2.0\n");
  EXPECT_EQ(info.module, KernelModule::kOpen);
  ASSERT_TRUE(info.version);
  EXPECT_EQ(*info.version, "580.95.05");
  EXPECT_EQ(info.first_line.find("NVRM version:"), 0u);
  EXPECT_EQ(info.first_line.find('\n'), std::string::npos);
}

TEST(ProcDriverVersion, ProprietaryModule) {
  auto info = parse_proc_driver_version(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.247.01  Wed Apr  9 21:29:28 UTC 2025\n");
  EXPECT_EQ(info.module, KernelModule::kProprietary);
  ASSERT_TRUE(info.version);
  EXPECT_EQ(*info.version, "535.247.01");
}

TEST(ProcDriverVersion, GarbageIsUnknown) {
  for (const char* text : {"", "\n\n", "hello 1.2.3", "NVRM version:", "\xff\xfe binary"}) {
    auto info = parse_proc_driver_version(text);
    EXPECT_EQ(info.module, KernelModule::kUnknown) << text;
    EXPECT_FALSE(info.version) << text;
  }
}

TEST(Bandwidth, DdrFormula) {
  auto bw = theoretical_bandwidth_gbs(14000000, 512);  // RTX 5090: 14 GHz effective x 512 bits
  ASSERT_TRUE(bw);
  EXPECT_DOUBLE_EQ(*bw, 1792.0);
  EXPECT_NEAR(*theoretical_bandwidth_gbs(2619000, 5120), 3352.32, 1e-9);  // H100 SXM as reported
  EXPECT_FALSE(theoretical_bandwidth_gbs(0, 512));
  EXPECT_FALSE(theoretical_bandwidth_gbs(14000000, 0));
  EXPECT_FALSE(theoretical_bandwidth_gbs(-1, 512));
}

// A sysfs tree with the PCI function `id` whose numa_node file holds `text`.
void write_numa(const std::string& root, const std::string& id, const std::string& text) {
  std::string dir = root + "/bus/pci/devices/" + id;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/numa_node") << text;
}

TEST(NumaNode, NodeNumbers) {
  test::TempDir sys;
  write_numa(sys.path(), "0000:01:00.0", "0\n");
  write_numa(sys.path(), "0000:11:00.0", "1\n");
  write_numa(sys.path(), "0001:c1:00.0", "7");  // no newline; a second PCI domain
  auto r = read_pci_numa_node(sys.path(), "0000:01:00.0");
  EXPECT_EQ(r.node, 0);
  EXPECT_EQ(r.warning, "");
  EXPECT_EQ(read_pci_numa_node(sys.path(), "0000:11:00.0").node, 1);
  // CUDA's id in upper case names sysfs' lower-case directory.
  r = read_pci_numa_node(sys.path(), "0001:C1:00.0");
  EXPECT_EQ(r.node, 7);
  EXPECT_EQ(r.warning, "");
}

TEST(NumaNode, NoneOrMissingIsUnknownWithoutWarning) {
  test::TempDir sys;
  write_numa(sys.path(), "0000:01:00.0", "-1\n");  // the kernel knows no affinity
  for (const char* id : {"0000:01:00.0", "0000:21:00.0", "not a bus id", ""}) {
    auto r = read_pci_numa_node(sys.path(), id);
    EXPECT_FALSE(r.node) << id;
    EXPECT_EQ(r.warning, "") << id;
  }
  auto r = read_pci_numa_node("/nonexistent/sys", "0000:01:00.0");
  EXPECT_FALSE(r.node);
  EXPECT_EQ(r.warning, "");
}

TEST(NumaNode, GarbageIsUnknownWithAWarningNamingTheFile) {
  test::TempDir sys;
  const std::string file = sys.path() + "/bus/pci/devices/0000:01:00.0/numa_node";
  for (const char* text : {"garbage\n", "", "\n", "-2\n", "1 2\n", "0x1\n", "99999999999\n"}) {
    write_numa(sys.path(), "0000:01:00.0", text);
    auto r = read_pci_numa_node(sys.path(), "0000:01:00.0");
    EXPECT_FALSE(r.node) << text;
    EXPECT_NE(r.warning.find(file), std::string::npos) << r.warning;
    EXPECT_NE(r.warning.find("not a node number"), std::string::npos) << r.warning;
  }
  write_numa(sys.path(), "0000:01:00.0", "garbage\n");
  EXPECT_EQ(read_pci_numa_node(sys.path(), "0000:01:00.0").warning,
            "NUMA node unknown: " + file + " holds \"garbage\", not a node number");
}

TEST(ProbeSystem, EmptyLibraryNameIsAnError) {
  ProbeOptions opt;
  opt.libcuda = "";
  auto r = probe_system(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("empty"), std::string::npos);
}

TEST(ProbeSystem, MissingLibraryIsNoDriver) {
  ProbeOptions opt;
  opt.libcuda = "/nonexistent/dir/libcuda.so.1";
  opt.libnvml = "/nonexistent/dir/libnvidia-ml.so.1";
  opt.proc_version_path = "/nonexistent/version";
  auto r = probe_system(opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, ProbeStatus::kNoDriver);
  EXPECT_STREQ(to_string(r->status), "no_driver");
  EXPECT_NE(r->explanation.find("/nonexistent/dir/libcuda.so.1"), std::string::npos);
  EXPECT_FALSE(r->nvml_loaded);
  EXPECT_FALSE(r->driver_version);
  EXPECT_TRUE(r->devices.empty());
  auto j = probe_to_json(*r, {});
  EXPECT_EQ(j["schema"], "smcompat.probe/1");
  EXPECT_EQ(j["status"], "no_driver");
  EXPECT_TRUE(j["driver_version"].is_null());
}

TEST(ProbeSystem, NotADriverLibrary) {
  // A real shared library without cuInit (libc) must be reported, not crash the probe.
  ProbeOptions opt;
  opt.libcuda = "libc.so.6";
  opt.use_nvml = false;
  auto r = probe_system(opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, ProbeStatus::kError);
  EXPECT_NE(r->explanation.find("cuInit"), std::string::npos);
}

TEST(ProbeSystem, ToolkitStubInProcess) {
  const std::string stub = SMCOMPAT_CUDA_STUB;
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  ProbeOptions opt;
  opt.libcuda = stub;
  opt.use_nvml = false;
  auto r = probe_system(opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, ProbeStatus::kStubLibrary);
  ASSERT_TRUE(r->cuda_error);
  EXPECT_EQ(*r->cuda_error, 34);
  EXPECT_FALSE(r->cuda_driver_version);
  EXPECT_EQ(r->libcuda_path, stub);
}

}  // namespace
}  // namespace smcompat
