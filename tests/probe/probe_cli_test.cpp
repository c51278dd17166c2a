// End-to-end tests of `smcompat probe --json` against the fake driver (tests/fakedriver) serving
// catalog GPUs, the CUDA toolkit's stub libcuda.so, a missing driver, CUDA_VISIBLE_DEVICES hiding
// every GPU, unreadable device nodes and a compute-capability masquerade. Each case runs the CLI
// in a child process with an exact environment; expected values come from data/catalog.json and
// the formulas in tests/fakedriver/README.md.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_child.hpp"

namespace smcompat {
namespace {

using test::run_child;
using test::TempDir;
using Env = std::map<std::string, std::string>;
using nlohmann::json;

const std::string kFakeDir = SMCOMPAT_FAKEDRIVER_DIR;

struct Probe {
  int exit_code;
  json j;
  std::string err;
};

// Runs `smcompat probe --json` with the fake driver first on the library path (unless `env`
// sets LD_LIBRARY_PATH itself), a device directory that holds no nodes and a sysfs root without
// PCI devices (so this machine's own /sys cannot leak into the answers) unless given.
Probe probe(Env env, std::vector<std::string> extra = {}, std::optional<unsigned> uid = {}) {
  static TempDir empty_dev;
  static TempDir empty_sys;
  if (!env.count("LD_LIBRARY_PATH")) env["LD_LIBRARY_PATH"] = kFakeDir;
  std::vector<std::string> argv{SMCOMPAT_CLI, "--color", "never", "probe", "--json"};
  auto given = [&](const char* opt) {
    return std::find(extra.begin(), extra.end(), opt) != extra.end();
  };
  if (!given("--proc-version")) {
    argv.push_back("--proc-version");
    argv.push_back("/nonexistent/proc/driver/nvidia/version");
  }
  if (!given("--dev-dir")) {
    argv.push_back("--dev-dir");
    argv.push_back(empty_dev.path());
  }
  if (!given("--sysfs-root")) {
    argv.push_back("--sysfs-root");
    argv.push_back(empty_sys.path());
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto r = run_child(argv, env, uid);
  Probe p{r.exit_code, json(), r.err};
  if (uid && (r.exit_code == 126 || r.exit_code == 127)) return p;  // could not switch user/exec
  try {
    p.j = json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not JSON (" << e.what() << "): " << r.out << "\nstderr: " << r.err;
  }
  return p;
}

// The fake puts GPU i on PCI bus 0x01 + 0x10 * i (README.md).
std::string fmt_bus(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0000:%02x:00.0", 0x01 + 0x10 * i);
  return buf;
}

std::vector<std::string> strings(const json& a) { return a.get<std::vector<std::string>>(); }
bool contains(const json& a, const std::string& s) {
  auto v = strings(a);
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ProbeCli, Rtx5090) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& j = p.j;
  EXPECT_EQ(j["schema"], "smcompat.probe/1");
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["observed"], true);
  EXPECT_EQ(j["driver_version"], "580.95.05");
  EXPECT_EQ(j["driver_version_source"], "nvml");
  EXPECT_EQ(j["cuda_driver_version"], 13000);
  EXPECT_EQ(j["nvml_cuda_driver_version"], 13000);
  EXPECT_EQ(j["libcuda"]["resolved_via"], "cuGetProcAddress_v2");
  EXPECT_EQ(j["libcuda"]["path"], kFakeDir + "/libcuda.so.1");
  EXPECT_EQ(j["nvml"]["loaded"], true);
  EXPECT_EQ(j["nvml"]["device_count"], 1);
  EXPECT_EQ(j["kernel_module"], "unknown");
  ASSERT_EQ(j["devices"].size(), 1u);
  const json& d = j["devices"][0];
  EXPECT_EQ(d["ordinal"], 0);
  EXPECT_EQ(d["name"], "NVIDIA GeForce RTX 5090");
  EXPECT_EQ(d["cc"], "12.0");
  EXPECT_EQ(d["nvml_cc"], "12.0");
  EXPECT_EQ(d["nvml_index"], 0);
  EXPECT_EQ(d["masquerade"], false);
  EXPECT_EQ(d["pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(d["uuid"].get<std::string>().size(), 40u);
  EXPECT_EQ(d["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
  EXPECT_EQ(d["sms"], 170);
  EXPECT_EQ(d["memory_bytes"], 32ull << 30);
  EXPECT_EQ(d["smem_per_block"], 49152);
  EXPECT_EQ(d["smem_per_block_optin"], 101376);
  EXPECT_EQ(d["smem_per_sm"], 102400);
  EXPECT_EQ(d["reserved_smem_per_block"], 1024);
  EXPECT_EQ(d["l2_bytes"], 96 << 20);
  EXPECT_EQ(d["clock_khz"], 2407000);
  EXPECT_EQ(d["memory_clock_khz"], 14000000);
  EXPECT_EQ(d["bus_width_bits"], 512);
  EXPECT_DOUBLE_EQ(d["bandwidth_gbs"]["value"].get<double>(), 1792.0);
  EXPECT_EQ(d["bandwidth_gbs"]["derived"], true);
  EXPECT_EQ(d["threads_per_sm"], 1536);
  EXPECT_EQ(d["blocks_per_sm"], 24);
  EXPECT_EQ(d["regs_per_sm"], 65536);
  EXPECT_EQ(d["cluster_launch"], true);
  EXPECT_EQ(d["arch"]["sm"], "sm_120");
  EXPECT_TRUE(contains(d["arch"]["features"], "tma"));
  EXPECT_TRUE(contains(d["arch"]["features"], "fp4"));
  EXPECT_FALSE(contains(d["arch"]["f_features"], "tmem"));  // no TMEM on sm_120
  EXPECT_FALSE(contains(d["arch"]["a_features"], "wgmma"));
  EXPECT_TRUE(contains(d["arch"]["a_features"], "mma_block_scale_fp4"));
  EXPECT_EQ(d["catalog_gpu"], "GeForce RTX 5090");
  EXPECT_EQ(d["nvlink"]["active_links"], 0);
  // No SMCOMPAT_FAKE_PCIE: NVML answers NOT_SUPPORTED, which is no warning; no sysfs entry.
  EXPECT_EQ(
      d["pcie"],
      json::parse(R"({"gen_current":null,"gen_max":null,"width_current":null,"width_max":null})"));
  EXPECT_TRUE(d["numa_node"].is_null());
  EXPECT_TRUE(d["warnings"].empty()) << d["warnings"].dump();
  EXPECT_EQ(j["topology"]["p2p_access"], json::parse("[[null]]"));
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
}

// The facts the fake derives from the catalog for one GPU, as `probe --json` reports them.
struct CatalogFacts {
  const char* name;
  const char* cc;
  int sms;
  uint64_t memory_bytes;
  int smem_per_block_optin;
  int l2_bytes;
  int bus_width_bits;
};
void expect_facts(const json& d, const CatalogFacts& f) {
  EXPECT_EQ(d["name"], f.name);
  EXPECT_EQ(d["cc"], f.cc);
  EXPECT_EQ(d["sms"], f.sms);
  EXPECT_EQ(d["memory_bytes"], f.memory_bytes);
  EXPECT_EQ(d["smem_per_block_optin"], f.smem_per_block_optin);
  EXPECT_EQ(d["l2_bytes"], f.l2_bytes);
  EXPECT_EQ(d["bus_width_bits"], f.bus_width_bits);
}

TEST(ProbeCli, H100) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& d = p.j["devices"][0];
  expect_facts(d, {"NVIDIA H100 SXM", "9.0", 132, 80ull << 30, 227 * 1024, 50 << 20, 5120});
  EXPECT_EQ(d["smem_per_sm"], 228 * 1024);
  EXPECT_EQ(d["memory_clock_khz"], 2617188);  // 3350 GB/s / (2 * 640 bytes), rounded
  EXPECT_NEAR(d["bandwidth_gbs"]["value"].get<double>(), 3350.0, 0.001);
  EXPECT_EQ(d["cluster_launch"], true);
  EXPECT_TRUE(contains(d["arch"]["a_features"], "wgmma"));
  EXPECT_TRUE(contains(d["arch"]["features"], "fp64_tensor"));
  EXPECT_EQ(d["catalog_gpu"], "H100 SXM");
}

TEST(ProbeCli, B200) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "B200"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& d = p.j["devices"][0];
  expect_facts(d, {"NVIDIA B200", "10.0", 148, 180ull << 30, 232448, 126 << 20, 8192});
  EXPECT_EQ(d["arch"]["sm"], "sm_100");
  EXPECT_NEAR(d["bandwidth_gbs"]["value"].get<double>(), 7700.0, 0.01);
  EXPECT_TRUE(contains(d["arch"]["f_features"], "tmem"));
  EXPECT_TRUE(contains(d["arch"]["f_features"], "tcgen05"));
  EXPECT_FALSE(contains(d["arch"]["a_features"], "wgmma"));
}

TEST(ProbeCli, TwoRtx5090WithoutP2P) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090,RTX 5090"}, {"SMCOMPAT_FAKE_P2P", "0"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& j = p.j;
  ASSERT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(j["devices"][1]["pci_bus_id"], "0000:11:00.0");
  EXPECT_NE(j["devices"][0]["uuid"], j["devices"][1]["uuid"]);
  EXPECT_EQ(j["devices"][1]["nvml_index"], 1);
  EXPECT_EQ(j["topology"]["p2p_access"], json::parse("[[null,false],[false,null]]"));
  EXPECT_EQ(j["topology"]["native_atomics"], json::parse("[[null,false],[false,null]]"));
  EXPECT_EQ(j["topology"]["nvlink_links"], json::parse("[[null,0],[0,null]]"));
  EXPECT_EQ(j["topology"]["pcie_common_ancestor"],
            json::parse(R"([[null,"single"],["single",null]])"));
}

TEST(ProbeCli, TwoRtx5090WithP2P) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090,RTX 5090"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.j["topology"]["p2p_access"], json::parse("[[null,true],[true,null]]"));
  // P2P over PCIe without NVLink: the fake models no native atomics.
  EXPECT_EQ(p.j["topology"]["native_atomics"], json::parse("[[null,false],[false,null]]"));
}

TEST(ProbeCli, EightH100WithNvlink) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100,H100,H100,H100,H100,H100,H100,H100"},
                  {"SMCOMPAT_FAKE_NVLINK", "2"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& j = p.j;
  ASSERT_EQ(j["devices"].size(), 8u);
  const json& t = j["topology"];
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(j["devices"][i]["nvlink"]["active_links"], 14) << i;  // 2 links x 7 peers
    EXPECT_EQ(j["devices"][i]["nvlink"]["links_to_other"], 0) << i;
    EXPECT_EQ(j["devices"][i]["pci_bus_id"], fmt_bus(i)) << i;
    for (int k = 0; k < 8; ++k) {
      if (i == k) {
        EXPECT_TRUE(t["p2p_access"][i][k].is_null());
        EXPECT_TRUE(t["nvlink_links"][i][k].is_null());
        continue;
      }
      EXPECT_EQ(t["p2p_access"][i][k], true) << i << "," << k;
      EXPECT_EQ(t["native_atomics"][i][k], true) << i << "," << k;
      EXPECT_EQ(t["nvlink_links"][i][k], 2) << i << "," << k;
    }
  }
  EXPECT_EQ(t["pcie_common_ancestor"][0][1], "single");
  EXPECT_EQ(t["pcie_common_ancestor"][0][3], "node");
  EXPECT_EQ(t["pcie_common_ancestor"][0][4], "system");
  EXPECT_EQ(t["pcie_common_ancestor"][6][7], "single");
}

TEST(ProbeCli, NvlinkToAHiddenGpuCountsAsOther) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100,H100,H100"},
                  {"SMCOMPAT_FAKE_NVLINK", "2"},
                  {"CUDA_VISIBLE_DEVICES", "0,2"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(p.j["devices"].size(), 2u);
  EXPECT_EQ(p.j["devices"][1]["pci_bus_id"], "0000:21:00.0");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(p.j["devices"][i]["nvlink"]["active_links"], 4) << i;
    EXPECT_EQ(p.j["devices"][i]["nvlink"]["links_to_other"], 2) << i;  // to hidden GPU 1
  }
  EXPECT_EQ(p.j["topology"]["nvlink_links"], json::parse("[[null,2],[2,null]]"));
  EXPECT_EQ(p.j["topology"]["pcie_common_ancestor"],
            json::parse(R"([[null,"node"],["node",null]])"));
}

TEST(ProbeCli, NoDriverOnLibraryPath) {
  TempDir empty;
  auto p = probe({{"LD_LIBRARY_PATH", empty.path()}});
  // A real driver in the loader's cache cannot be hidden by an empty library path.
  if (p.j["status"] != "no_driver" && !p.j["libcuda"]["path"].is_null() &&
      p.j["libcuda"]["path"].get<std::string>().rfind(kFakeDir, 0) != 0)
    GTEST_SKIP() << "a libcuda.so.1 is installed system-wide: " << p.j["libcuda"]["path"];
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.j["status"], "no_driver");
  EXPECT_NE(p.j["explanation"].get<std::string>().find("no NVIDIA driver found"),
            std::string::npos);
  EXPECT_TRUE(p.j["libcuda"]["path"].is_null());
  EXPECT_TRUE(p.j["devices"].empty());
}

TEST(ProbeCli, NoDriverAtNamedPath) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}},
                 {"--libcuda", "/nonexistent/libcuda.so.1", "--libnvml", "/nonexistent/nvml.so"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.j["status"], "no_driver");
  EXPECT_EQ(p.j["libcuda"]["requested"], "/nonexistent/libcuda.so.1");
  EXPECT_EQ(p.j["nvml"]["loaded"], false);
  EXPECT_NE(p.j["nvml"]["error"].get<std::string>().find("/nonexistent/nvml.so"),
            std::string::npos);
}

TEST(ProbeCli, TextShowsTopologyMatrix) {
  auto r = run_child({SMCOMPAT_CLI, "--color", "never", "probe", "--proc-version", "/nonexistent",
                      "--dev-dir", "/nonexistent"},
                     {{"LD_LIBRARY_PATH", kFakeDir},
                      {"SMCOMPAT_FAKE_GPUS", "H100,H100,H100,H100"},
                      {"SMCOMPAT_FAKE_NVLINK", "4"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU3  NV4 p2p+atomics  NV4 p2p+atomics  NV4 p2p+atomics  X\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("NVLink         12 active links\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3350.0 GB/s theoretical"), std::string::npos) << r.out;
}

TEST(ProbeCli, TextSaysNoDriverFound) {
  auto r = run_child({SMCOMPAT_CLI, "--color", "never", "probe", "--libcuda",
                      "/nonexistent/libcuda.so.1", "--no-nvml", "--proc-version", "/nonexistent"},
                     {});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("no_driver: no NVIDIA driver found"), std::string::npos) << r.out;
}

TEST(ProbeCli, ToolkitStubLibrary) {
  const std::string stub = SMCOMPAT_CUDA_STUB;
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  TempDir dir;
  std::filesystem::create_symlink(stub, dir.path() + "/libcuda.so.1");
  auto p = probe({{"LD_LIBRARY_PATH", dir.path()}}, {"--no-nvml"});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.j["status"], "stub_library");
  EXPECT_EQ(p.j["cuda_error"], 34);
  EXPECT_EQ(p.j["libcuda"]["path"], dir.path() + "/libcuda.so.1");
  // The stub's cuGetProcAddress_v2 answers 34, so cuInit came from the dlsym fallback.
  EXPECT_EQ(p.j["libcuda"]["resolved_via"], "dlsym");
  EXPECT_NE(p.j["explanation"].get<std::string>().find("stub"), std::string::npos);
}

TEST(ProbeCli, DriverWithoutGpu) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", ""}});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.j["status"], "no_device");
  EXPECT_EQ(p.j["cuda_error"], 100);
  EXPECT_EQ(p.j["nvml"]["device_count"], 0);
  EXPECT_EQ(p.j["driver_version"], "580.95.05");
  EXPECT_NE(p.j["explanation"].get<std::string>().find("nvidia0 device node"), std::string::npos)
      << p.j["explanation"];
}

TEST(ProbeCli, CudaVisibleDevicesEmptyHidesAll) {
  for (const char* value : {"", "-1"}) {
    auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090,RTX 5090"}, {"CUDA_VISIBLE_DEVICES", value}});
    EXPECT_EQ(p.exit_code, 1) << value;
    EXPECT_EQ(p.j["status"], "devices_hidden") << value;
    EXPECT_EQ(p.j["cuda_visible_devices"], value);
    EXPECT_EQ(p.j["nvml"]["device_count"], 2) << value;
    EXPECT_NE(p.j["explanation"].get<std::string>().find("NVML sees 2 GPU(s)"), std::string::npos)
        << p.j["explanation"];
  }
}

TEST(ProbeCli, CudaVisibleDevicesReorders) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090,H100"}, {"CUDA_VISIBLE_DEVICES", "1,0"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(p.j["devices"].size(), 2u);
  // CUDA ordinal 0 is NVML index 1: the probe joins them by PCI bus id, not by position.
  EXPECT_EQ(p.j["devices"][0]["name"], "NVIDIA H100 SXM");
  EXPECT_EQ(p.j["devices"][0]["nvml_index"], 1);
  EXPECT_EQ(p.j["devices"][0]["nvml_cc"], "9.0");
  EXPECT_EQ(p.j["devices"][1]["name"], "NVIDIA GeForce RTX 5090");
  EXPECT_EQ(p.j["devices"][1]["nvml_index"], 0);
  EXPECT_EQ(p.j["devices"][1]["masquerade"], false);
}

TEST(ProbeCli, CudaVisibleDevicesHidingSomeIsAWarning) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090,RTX 5090,B200"}, {"CUDA_VISIBLE_DEVICES", "2"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(p.j["devices"].size(), 1u);
  EXPECT_EQ(p.j["devices"][0]["name"], "NVIDIA B200");
  EXPECT_EQ(p.j["devices"][0]["pci_bus_id"], "0000:21:00.0");
  ASSERT_EQ(p.j["warnings"].size(), 1u);
  EXPECT_EQ(p.j["warnings"][0], "CUDA_VISIBLE_DEVICES=\"2\" hides 2 of the 3 GPUs NVML sees");
}

TEST(ProbeCli, KernelModuleWithoutUserSpaceLibraries) {
  TempDir dir;
  std::string proc = dir.path() + "/version";
  std::ofstream(proc) << "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  "
                         "Release Build  (dvs-builder@U16-I3-B03-4-3)\n";
  auto p =
      probe({}, {"--libcuda", "/nonexistent/libcuda.so.1", "--no-nvml", "--proc-version", proc});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.j["status"], "no_driver");
  EXPECT_EQ(p.j["kernel_module"], "open");
  EXPECT_EQ(p.j["driver_version"], "580.95.05");
  EXPECT_NE(p.j["explanation"].get<std::string>().find("kernel module is loaded (580.95.05)"),
            std::string::npos)
      << p.j["explanation"];
}

TEST(ProbeCli, FailingAttributesBecomeWarnings) {
  // L2 (38), memory clock (36) and cluster launch (120) fail: no value is invented for them.
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_FAIL_ATTRIBUTES", "38,36,120"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& d = p.j["devices"][0];
  EXPECT_EQ(d["sms"], 132);
  EXPECT_EQ(d["l2_bytes"], 0);
  EXPECT_EQ(d["memory_clock_khz"], 0);
  EXPECT_EQ(d["cluster_launch"], false);
  EXPECT_TRUE(d["bandwidth_gbs"].is_null());  // cannot be derived without the memory clock
  ASSERT_EQ(d["warnings"].size(), 3u);
  EXPECT_EQ(d["warnings"][0],
            "cuDeviceGetAttribute(L2_CACHE_SIZE) failed: CUDA_ERROR_NOT_SUPPORTED (801)");
}

TEST(ProbeCli, NvmlInitFailureKeepsCudaFacts) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}, {"SMCOMPAT_FAKE_NVML_INIT_ERROR", "9"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.j["status"], "ok");
  EXPECT_EQ(p.j["nvml"]["loaded"], false);
  EXPECT_EQ(p.j["nvml"]["error"], "nvmlInit_v2 failed: Driver Not Loaded (NVML error 9)");
  EXPECT_TRUE(p.j["driver_version"].is_null());  // no NVML, no proc file, no versioned file name
  EXPECT_EQ(p.j["devices"][0]["cc"], "12.0");
  EXPECT_TRUE(p.j["devices"][0]["nvml_cc"].is_null());
  EXPECT_EQ(p.j["devices"][0]["smem_per_block_optin"], 101376);
}

TEST(ProbeCli, MasqueradeDetected) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}, {"SMCOMPAT_FAKE_MASQUERADE", "9.0"}});
  EXPECT_EQ(p.exit_code, 1);  // a finding
  EXPECT_EQ(p.j["status"], "ok");
  const json& d = p.j["devices"][0];
  EXPECT_EQ(d["cc"], "9.0");
  EXPECT_EQ(d["nvml_cc"], "12.0");
  EXPECT_EQ(d["masquerade"], true);
  EXPECT_EQ(d["arch"]["sm"], "sm_120");  // the catalog view follows the real architecture
  EXPECT_FALSE(contains(d["arch"]["a_features"], "wgmma"));
  ASSERT_EQ(p.j["warnings"].size(), 1u);
  EXPECT_NE(p.j["warnings"][0].get<std::string>().find("masquerading"), std::string::npos);
}

TEST(ProbeCli, PermissionDeniedOnDeviceNodes) {
  TempDir dev;
  for (const char* node : {"nvidiactl", "nvidia0"}) {
    std::ofstream(dev.path() + "/" + node).put('\0');
    chmod((dev.path() + "/" + node).c_str(), geteuid() == 0 ? 0600 : 0000);
  }
  // As root, access checks always pass, so run the probe as "nobody" against root-owned nodes.
  std::optional<unsigned> uid;
  if (geteuid() == 0) uid = 65534;
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}, {"SMCOMPAT_FAKE_INIT_ERROR", "100"}},
                 {"--dev-dir", dev.path()}, uid);
  if (uid && p.exit_code == 126) GTEST_SKIP() << "cannot switch to uid 65534 (no CAP_SETUID)";
  if (uid && p.exit_code == 127)
    GTEST_SKIP() << "uid 65534 cannot execute " << SMCOMPAT_CLI << " (build directory not "
                 << "world-readable); run the tests as a non-root user to cover this case";
  EXPECT_EQ(p.exit_code, 1) << p.err;
  EXPECT_EQ(p.j["status"], "permission_denied");
  std::string ex = p.j["explanation"].get<std::string>();
  EXPECT_NE(ex.find(dev.path() + "/nvidia0"), std::string::npos) << ex;
  EXPECT_NE(ex.find(dev.path() + "/nvidiactl"), std::string::npos) << ex;
  EXPECT_NE(ex.find("Permission denied"), std::string::npos) << ex;
}

TEST(ProbeCli, OtherInitErrorNamesTheCode) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}, {"SMCOMPAT_FAKE_INIT_ERROR", "804"}});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.j["status"], "error");
  EXPECT_EQ(p.j["cuda_error"], 804);
  EXPECT_NE(p.j["explanation"].get<std::string>().find("CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
            std::string::npos);
}

TEST(ProbeCli, KernelModuleAndDriverVersionFromProc) {
  TempDir dir;
  std::string open_file = dir.path() + "/open", prop_file = dir.path() + "/prop";
  std::ofstream(open_file) << "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                              "580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Sep "
                              "25 23:08:28 UTC 2025\nGCC version:  gcc version 12.2.0\n";
  std::ofstream(prop_file) << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.172.08  Tue "
                              "Jul  8 18:10:02 UTC 2025\n";
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "B200"}}, {"--proc-version", open_file, "--no-nvml"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.j["kernel_module"], "open");
  EXPECT_EQ(p.j["driver_version"], "580.95.05");
  EXPECT_EQ(p.j["driver_version_source"], open_file);
  EXPECT_EQ(p.j["devices"][0]["nvml_cc"], nullptr);  // NVML not loaded: nothing to compare
  ASSERT_EQ(p.j["warnings"].size(), 1u);
  EXPECT_NE(p.j["warnings"][0].get<std::string>().find("NVML unavailable"), std::string::npos);

  p = probe({{"SMCOMPAT_FAKE_GPUS", "B200"}}, {"--proc-version", prop_file, "--no-nvml"});
  EXPECT_EQ(p.j["kernel_module"], "proprietary");
  EXPECT_EQ(p.j["driver_version"], "570.172.08");
}

TEST(ProbeCli, OldDriverFallsBackToVersionedNames) {
  // A CUDA 11.2 driver refuses lookups at ABI 11040 (cuDeviceGetUuid_v2): the probe falls back to
  // dlsym of the versioned name and still gets every fact.
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "A100"}, {"SMCOMPAT_FAKE_CUDA", "11020"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.j["cuda_driver_version"], 11020);
  const json& d = p.j["devices"][0];
  EXPECT_EQ(d["name"], "NVIDIA A100 80GB SXM");
  EXPECT_EQ(d["cc"], "8.0");
  EXPECT_EQ(d["uuid"].get<std::string>().size(), 40u);
  EXPECT_EQ(d["smem_per_block_optin"], 163 * 1024);
  EXPECT_EQ(d["cluster_launch"], false);
  EXPECT_TRUE(d["warnings"].empty()) << d["warnings"].dump();
}

TEST(ProbeCli, DriverVersionsFromEnvironment) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"},
                  {"SMCOMPAT_FAKE_DRIVER", "575.51.03"},
                  {"SMCOMPAT_FAKE_CUDA", "12090"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.j["driver_version"], "575.51.03");
  EXPECT_EQ(p.j["cuda_driver_version"], 12090);
}

// A sysfs tree holding numa_node files for the fake's GPUs (GPU i on bus 0x01 + 0x10 * i); a
// nullptr entry writes no file for that GPU.
void write_sysfs(const std::string& root, const std::vector<const char*>& numa_nodes) {
  for (size_t i = 0; i < numa_nodes.size(); ++i) {
    if (!numa_nodes[i]) continue;
    std::string dir = root + "/bus/pci/devices/" + fmt_bus(static_cast<int>(i));
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/numa_node") << numa_nodes[i];
  }
}

TEST(ProbeCli, PcieLinkFromNvml) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100,H100"}, {"SMCOMPAT_FAKE_PCIE", "5x16"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  for (int i = 0; i < 2; ++i) {
    const json& d = p.j["devices"][i];
    EXPECT_EQ(d["pcie"], json::parse(R"({"gen_current":5,"gen_max":5,"width_current":16,
                                          "width_max":16})"))
        << i;
    EXPECT_TRUE(d["numa_node"].is_null()) << i;  // the sysfs root holds no PCI devices
    EXPECT_TRUE(d["warnings"].empty()) << d["warnings"].dump();
  }
}

TEST(ProbeCli, PcieDowntrainedAndNotSupported) {
  // GPU 0 runs at Gen4 x8 of a possible Gen5 x16; GPU 1 has no PCIe link (as GB10): unknown and
  // no warning.
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100,GB10"}, {"SMCOMPAT_FAKE_PCIE", "4x8/5x16,-"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& d0 = p.j["devices"][0];
  EXPECT_EQ(d0["pcie"]["gen_current"], 4);
  EXPECT_EQ(d0["pcie"]["gen_max"], 5);
  EXPECT_EQ(d0["pcie"]["width_current"], 8);
  EXPECT_EQ(d0["pcie"]["width_max"], 16);
  const json& d1 = p.j["devices"][1];
  for (const char* key : {"gen_current", "gen_max", "width_current", "width_max"})
    EXPECT_TRUE(d1["pcie"][key].is_null()) << key;
  EXPECT_TRUE(d1["warnings"].empty()) << d1["warnings"].dump();
}

TEST(ProbeCli, PcieQueryErrorIsAWarning) {
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}, {"SMCOMPAT_FAKE_PCIE", "error"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& d = p.j["devices"][0];
  EXPECT_TRUE(d["pcie"]["gen_current"].is_null());
  ASSERT_EQ(d["warnings"].size(), 4u) << d["warnings"].dump();
  EXPECT_EQ(d["warnings"][0],
            "nvmlDeviceGetCurrPcieLinkGeneration failed: Unknown Error (NVML error 999)");
  EXPECT_EQ(d["warnings"][3],
            "nvmlDeviceGetMaxPcieLinkWidth failed: Unknown Error (NVML error 999)");
}

TEST(ProbeCli, PcieImplausibleAnswersAreWarningsNotFacts) {
  // Generation 9 (no such PCIe generation) and 64 lanes (wider than the specification's x32): NVML
  // answered, but not with a link; each is left unknown and named.
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_PCIE", "9x64/5x16"}});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& d = p.j["devices"][0];
  EXPECT_TRUE(d["pcie"]["gen_current"].is_null());
  EXPECT_TRUE(d["pcie"]["width_current"].is_null());
  EXPECT_EQ(d["pcie"]["gen_max"], 5);
  EXPECT_EQ(d["pcie"]["width_max"], 16);
  EXPECT_EQ(d["warnings"],
            json::parse(R"(["nvmlDeviceGetCurrPcieLinkGeneration returned an implausible 9",
                            "nvmlDeviceGetCurrPcieLinkWidth returned an implausible 64"])"));
}

TEST(ProbeCli, NumaNodeFromSysfs) {
  // GPUs 0..4: node 0, node 1, -1 (no affinity), no file, garbage.
  TempDir sys;
  write_sysfs(sys.path(), {"0\n", "1\n", "-1\n", nullptr, "banana\n"});
  auto p =
      probe({{"SMCOMPAT_FAKE_GPUS", "H100,H100,H100,H100,H100"}}, {"--sysfs-root", sys.path()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json& devs = p.j["devices"];
  ASSERT_EQ(devs.size(), 5u);
  EXPECT_EQ(devs[0]["numa_node"], 0);
  EXPECT_EQ(devs[1]["numa_node"], 1);
  for (int i = 2; i < 5; ++i) EXPECT_TRUE(devs[i]["numa_node"].is_null()) << i;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(devs[i]["warnings"].empty()) << devs[i]["warnings"];
  ASSERT_EQ(devs[4]["warnings"].size(), 1u);
  EXPECT_EQ(devs[4]["warnings"][0], "NUMA node unknown: " + sys.path() +
                                        "/bus/pci/devices/0000:41:00.0/numa_node holds "
                                        "\"banana\", not a node number");
}

TEST(ProbeCli, NumaNodeNeedsNoNvml) {
  TempDir sys;
  write_sysfs(sys.path(), {"1\n"});
  auto p = probe({{"SMCOMPAT_FAKE_GPUS", "B200"}, {"SMCOMPAT_FAKE_PCIE", "6x16"}},
                 {"--sysfs-root", sys.path(), "--no-nvml"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.j["devices"][0]["numa_node"], 1);
  EXPECT_TRUE(p.j["devices"][0]["pcie"]["gen_current"].is_null());  // NVML not loaded
}

TEST(ProbeCli, TextShowsPcieLinkAndNumaNode) {
  TempDir sys;
  write_sysfs(sys.path(), {"0\n", "1\n", nullptr});
  auto r = run_child({SMCOMPAT_CLI, "--color", "never", "probe", "--proc-version", "/nonexistent",
                      "--dev-dir", "/nonexistent", "--sysfs-root", sys.path()},
                     {{"LD_LIBRARY_PATH", kFakeDir},
                      {"SMCOMPAT_FAKE_GPUS", "H100,H100,GB10"},
                      {"SMCOMPAT_FAKE_PCIE", "5x16,4x8/5x16,-"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto at = [&](const std::string& text) { return r.out.find(text); };
  EXPECT_NE(at("  PCIe           Gen5 x16 (max Gen5 x16), NUMA node 0\n"), std::string::npos)
      << r.out;
  EXPECT_NE(at("  PCIe           Gen4 x8 (max Gen5 x16: running below its maximum), NUMA node 1\n"),
            std::string::npos)
      << r.out;
  // The GB10: neither a link nor a node, so no line at all.
  auto gpu2 = at("GPU 2  ");
  ASSERT_NE(gpu2, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PCIe  ", gpu2), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("NUMA node", gpu2), std::string::npos) << r.out;
}

}  // namespace
}  // namespace smcompat
