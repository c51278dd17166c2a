// The native suites against the fake driver (tests/fakedriver, README.md "Timing model"): exact
// figures from the catalog and the documented constants, P2P matrices for 1, 2 and 4 GPUs with
// P2P and NVLink on and off, skips (no driver, injected failures), the blocking kernel and the
// stopping rule end to end. Each run happens in a forked child (fake_run.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <set>
#include <utility>

#include "fake_run.hpp"
#include "smcompat/bench/cuda_session.hpp"
#include "smcompat/bench/suites.hpp"

namespace smcompat::bench {
namespace {

using nlohmann::json;
using test::fake_run;
using test::find_result;

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

// Converges as soon as min_samples are in (the fake's times do not vary).
StopRule exact_rule(std::size_t min_samples = 10) {
  StopRule r;
  r.min_samples = min_samples;
  r.min_time_s = 0;
  r.timeout_s = 30;
  return r;
}

NativeOptions options(std::vector<std::string> suites, std::vector<std::uint64_t> sizes = {}) {
  NativeOptions o;
  o.suites = std::move(suites);
  o.sizes = std::move(sizes);
  o.stop = exact_rule();
  return o;
}

// Stand-in device kernels: PTX the fake loads (and JIT-compiles for any GPU of CC >= 8.0). Their
// parameters follow the DeviceKernels contract; the fake charges SMCOMPAT_FAKE_KERNEL_US each.
const std::string kPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry smcompat_spin(.param .u64 flag, .param .u64 timeout_ns)
{
  ret;
}
.visible .entry smcompat_empty()
{
  ret;
}
.visible .entry smcompat_copy(.param .u64 src, .param .u64 dst, .param .u64 bytes)
{
  ret;
}
.visible .entry smcompat_triad(.param .u64 a, .param .u64 b, .param .u64 c, .param .f32 s, .param .u64 n)
{
  ret;
}
)";

DeviceKernels test_kernels() {
  static const std::vector<std::uint8_t> image = [] {
    std::vector<std::uint8_t> v(kPtx.begin(), kPtx.end());
    v.push_back(0);
    return v;
  }();
  DeviceKernels k;
  k.spin = KernelImage{image, "smcompat_spin"};
  k.empty = KernelImage{image, "smcompat_empty"};
  k.copy = KernelImage{image, "smcompat_copy"};
  k.triad = KernelImage{image, "smcompat_triad"};
  return k;
}

// EXPECT_EQ(result["params"][key], value) for each key and value given, each failure naming its
// key.
void expect_params(json result, std::initializer_list<std::pair<const char*, const char*>> want) {
  for (auto [key, value] : want) EXPECT_EQ(result["params"][key], value) << key;
}

void expect_relative(double actual, double expected, double tolerance = 1e-5) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * tolerance) << "expected " << expected;
}

bool contains(const json& text, const std::string& part) {
  return text.is_string() && text.get<std::string>().find(part) != std::string::npos;
}

// ---- no driver, no GPU ----

TEST(BenchNative, NoDriverLibraryIsAClearError) {
  NativeOptions o = options({"memory"});
  o.libcuda = "/nonexistent/libcuda.so.1";
  json run = fake_run({}, o);
  ASSERT_TRUE(run.contains("error")) << run.dump();
  EXPECT_TRUE(contains(run["error"], "no usable GPU/driver:")) << run["error"];
  EXPECT_TRUE(contains(run["error"], "no_driver")) << run["error"];
}

TEST(BenchNative, DriverWithoutGpuIsAClearError) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", ""}}, options({"memory"}));
  ASSERT_TRUE(run.contains("error")) << run.dump();
  EXPECT_TRUE(contains(run["error"], "no usable GPU/driver:")) << run["error"];
  EXPECT_TRUE(contains(run["error"], "no_device")) << run["error"];
}

TEST(BenchNative, UnknownSuiteAndDeviceAreErrors) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, options({"memroy"}));
  EXPECT_TRUE(contains(run["error"], "unknown benchmark suite \"memroy\"")) << run.dump();
  NativeOptions o = options({"memory"}, {kMiB});
  o.devices = {3};
  run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, o);
  EXPECT_TRUE(contains(run["error"], "no GPU 3")) << run.dump();
}

// ---- memory: exact figures from the timing model ----

TEST(BenchNative, H100CopiesMatchTheTimingModel) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, options({"memory"}, {kGiB}));
  ASSERT_FALSE(run.contains("error")) << run.dump();
  ASSERT_EQ(run["devices"].size(), 1u);
  EXPECT_EQ(run["devices"][0]["catalog_gpu"], "H100 SXM");
  EXPECT_EQ(run["devices"][0]["cc"], "9.0");
  EXPECT_EQ(run["cuda_driver_version"], 13000);
  EXPECT_EQ(run["driver_version"], "580.95.05");
  ASSERT_EQ(run["results"].size(), 7u) << run.dump();

  // Device to device: 2 x 1 GiB through DRAM at the catalog's 3350 GB/s -> exactly the peak.
  json dtod = find_result(run, "dtod 1 GiB gpu0");
  ASSERT_FALSE(dtod.is_null()) << run.dump();
  expect_relative(dtod["value"].get<double>(), 3350.0);
  EXPECT_EQ(dtod["unit"], "GB/s");
  EXPECT_EQ(dtod["peak"].get<double>(), 3350.0);
  expect_relative(dtod["percent"].get<double>(), 100.0);
  EXPECT_TRUE(contains(dtod["peak_source"], "H100 SXM")) << dtod["peak_source"];
  expect_relative(dtod["median_s"].get<double>(), 2.0 * kGiB / 3350e9);
  expect_params(dtod,
                {{"engine", "copy_engine"}, {"l2_flush", "true"}, {"blocking_kernel", "false"}});
  bool read_plus_written = false;
  for (const auto& n : dtod["notes"]) read_plus_written |= contains(n, "read plus bytes written");
  EXPECT_TRUE(read_plus_written) << dtod["notes"];

  // Pinned host copies at SMCOMPAT_FAKE_PCIE_GBS (25), pageable at SMCOMPAT_FAKE_PAGEABLE_GBS (10).
  expect_relative(find_result(run, "htod_pinned 1 GiB gpu0")["value"].get<double>(), 25.0);
  expect_relative(find_result(run, "dtoh_pinned 1 GiB gpu0")["value"].get<double>(), 25.0);
  expect_relative(find_result(run, "htod_pageable 1 GiB gpu0")["value"].get<double>(), 10.0);
  expect_relative(find_result(run, "dtoh_pageable 1 GiB gpu0")["value"].get<double>(), 10.0);
  EXPECT_TRUE(find_result(run, "htod_pinned 1 GiB gpu0")["peak"].is_null());

  // No kernels in this build of the test: SM rows are recorded skips.
  for (const char* name : {"sm_copy 1 GiB gpu0", "sm_triad 1 GiB gpu0"}) {
    json r = find_result(run, name);
    EXPECT_TRUE(r["value"].is_null()) << name;
    EXPECT_EQ(r["skip_reason"], "built without device kernels") << name;
  }
  bool warned = false;
  for (const auto& w : run["warnings"]) warned |= contains(w, "no device kernels");
  EXPECT_TRUE(warned) << run["warnings"];
  EXPECT_FALSE(run["blocking_kernel"].get<bool>());
  // The fake driver's figures never pass for measurements.
  EXPECT_TRUE(contains(run["warnings"][0], "fake libcuda")) << run["warnings"];
  for (const auto& r : run["results"]) EXPECT_EQ(r["origin"], "synthetic") << r["name"];
}

TEST(BenchNative, KnobsChangeTheFiguresAndSmallSizesBatch) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"},
                       {"SMCOMPAT_FAKE_PCIE_GBS", "50"},
                       {"SMCOMPAT_FAKE_PAGEABLE_GBS", "20"}},
                      options({"memory"}, {kMiB}));
  ASSERT_FALSE(run.contains("error")) << run.dump();
  expect_relative(find_result(run, "dtod 1 MiB gpu0")["value"].get<double>(), 1792.0);
  expect_relative(find_result(run, "htod_pinned 1 MiB gpu0")["value"].get<double>(), 50.0);
  expect_relative(find_result(run, "dtoh_pageable 1 MiB gpu0")["value"].get<double>(), 20.0);
}

TEST(BenchNative, DeviceKernelsRunSmRowsAndHoldTheStream) {
  NativeOptions o = options({"memory"}, {kMiB});
  o.kernels = test_kernels();
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_KERNEL_US", "4"}}, o);
  ASSERT_FALSE(run.contains("error")) << run.dump();
  EXPECT_TRUE(run["blocking_kernel"].get<bool>());
  // One launch per copy: 2 x 1 MiB in 4 us; triad: 3 x 1 MiB in 4 us.
  json copy = find_result(run, "sm_copy 1 MiB gpu0");
  expect_relative(copy["value"].get<double>(), 2.0 * kMiB / 4e-6 / 1e9);
  EXPECT_EQ(copy["peak"].get<double>(), 3350.0);
  expect_relative(find_result(run, "sm_triad 1 MiB gpu0")["value"].get<double>(),
                  3.0 * kMiB / 4e-6 / 1e9);
  // The spin kernel held the stream of copy-engine copies (and was not timed: same figure).
  json dtod = find_result(run, "dtod 1 MiB gpu0");
  EXPECT_EQ(dtod["params"]["blocking_kernel"], "true");
  expect_relative(dtod["value"].get<double>(), 3350.0);
  // Pageable copies may block the host: never held.
  EXPECT_EQ(find_result(run, "htod_pageable 1 MiB gpu0")["params"]["blocking_kernel"], "false");
}

// ---- skips ----

TEST(BenchNative, InjectedAllocationFailureIsARecordedSkipAndTheRunGoesOn) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_MAX_ALLOC", "536870912"}},
                      options({"memory"}, {256 * kMiB, kGiB}));
  ASSERT_FALSE(run.contains("error")) << run.dump();
  ASSERT_EQ(run["results"].size(), 14u);
  json big = find_result(run, "dtod 1 GiB gpu0");
  EXPECT_TRUE(big["value"].is_null());
  EXPECT_TRUE(contains(big["skip_reason"], "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY"))
      << big["skip_reason"];
  expect_relative(find_result(run, "dtod 256 MiB gpu0")["value"].get<double>(), 3350.0);
}

TEST(BenchNative, InjectedCopyFailureSkipsOnlyThatConfiguration) {
  json run = fake_run(
      {{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_FAIL_CALLS", "cuMemcpyDtoHAsync_v2=801"}},
      options({"memory"}, {64 * kMiB}));
  ASSERT_FALSE(run.contains("error")) << run.dump();
  for (const char* name : {"dtoh_pinned 64 MiB gpu0", "dtoh_pageable 64 MiB gpu0"})
    EXPECT_TRUE(contains(find_result(run, name)["skip_reason"],
                         "cuMemcpyDtoHAsync_v2 failed: CUDA_ERROR_NOT_SUPPORTED"))
        << name;
  EXPECT_FALSE(find_result(run, "htod_pinned 64 MiB gpu0")["value"].is_null());
  EXPECT_FALSE(find_result(run, "dtod 64 MiB gpu0")["value"].is_null());
}

TEST(BenchNative, TooLargeForTheGpuIsASkip) {
  // RTX 5090: 32 GiB; 2 x 16 GiB plus the flush buffer does not fit.
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "RTX 5090"}}, options({"memory"}, {16 * kGiB}));
  ASSERT_FALSE(run.contains("error")) << run.dump();
  EXPECT_TRUE(contains(find_result(run, "dtod 16 GiB gpu0")["skip_reason"], "needs 2 x 16 GiB"));
}

// ---- NVML state and throttling ----

TEST(BenchNative, DeviceStateIsRecordedAndThrottledSamplesFlagged) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"},
                       {"SMCOMPAT_FAKE_THROTTLE", "0x28"},  // sw_thermal | hw_slowdown
                       {"SMCOMPAT_FAKE_TEMP_C", "83"},
                       {"SMCOMPAT_FAKE_POWER_W", "640"}},
                      options({"memory"}, {64 * kMiB}));
  ASSERT_FALSE(run.contains("error")) << run.dump();
  json dtod = find_result(run, "dtod 64 MiB gpu0");
  EXPECT_EQ(dtod["state"]["sm_clock_mhz"], 1980);
  EXPECT_EQ(dtod["state"]["temperature_c"], 83);
  EXPECT_EQ(dtod["state"]["power_w"], 640.0);
  EXPECT_EQ(dtod["state"]["throttle_reasons"], json({"hw_slowdown", "sw_thermal"}));
  EXPECT_EQ(dtod["throttled"], dtod["samples"]);
  EXPECT_EQ(dtod["samples"], 10);
  bool noted = false;
  for (const auto& n : dtod["notes"]) noted |= contains(n, "10 of 10 samples taken while");
  EXPECT_TRUE(noted) << dtod["notes"];
  EXPECT_EQ(run["devices"][0]["state"]["temperature_c"], 83);

  json calm = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_THROTTLE", "0x1"}},
                       options({"memory"}, {64 * kMiB}));  // idle is not a throttle
  EXPECT_EQ(find_result(calm, "dtod 64 MiB gpu0")["throttled"], 0);
}

TEST(BenchNative, WithoutNvmlThereIsNoStateAndAWarning) {
  NativeOptions o = options({"memory"}, {kMiB});
  o.libnvml = "";
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, o);
  ASSERT_FALSE(run.contains("error")) << run.dump();
  EXPECT_TRUE(find_result(run, "dtod 1 MiB gpu0")["state"].is_null());
  bool warned = false;
  for (const auto& w : run["warnings"]) warned |= contains(w, "NVML unavailable");
  EXPECT_TRUE(warned);
}

// ---- the stopping rule, end to end ----

TEST(BenchNative, DeterministicTimesConvergeAtMinSamples) {
  NativeOptions o = options({"memory"}, {4 * kMiB});
  o.stop = exact_rule(7);
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, o);
  json dtod = find_result(run, "dtod 4 MiB gpu0");
  EXPECT_EQ(dtod["samples"], 7);
  EXPECT_EQ(dtod["stop"], "converged");
  EXPECT_LE(dtod["rel_stddev"].get<double>(), 1e-6);
}

TEST(BenchNative, MinimumTimeCountsWholeSamples) {
  // 1 MiB copies run 64 to a sample; 10 ms of measured time takes ceil(10 ms / (64 x t)) samples.
  NativeOptions o = options({"memory"}, {kMiB});
  StopRule rule = exact_rule(2);
  rule.min_time_s = 0.01;
  o.stop = rule;
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, o);
  json dtod = find_result(run, "dtod 1 MiB gpu0");
  const double per_sample = 64 * 2.0 * kMiB / 3350e9;
  EXPECT_EQ(dtod["samples"].get<int>(), static_cast<int>(std::ceil(0.01 / per_sample)));
  EXPECT_EQ(dtod["stop"], "converged");
}

TEST(BenchNative, WallClockTimeoutIsHonoured) {
  NativeOptions o = options({"memory"}, {4 * kMiB});
  StopRule rule = exact_rule(5);
  rule.min_time_s = 1e9;  // never reached: only the timeout can stop it
  rule.timeout_s = 0.2;
  o.stop = rule;
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, o);
  json dtod = find_result(run, "dtod 4 MiB gpu0");
  EXPECT_EQ(dtod["stop"], "timeout");
  EXPECT_GT(dtod["samples"].get<int>(), 5);
  bool noted = false;
  for (const auto& n : dtod["notes"]) noted |= contains(n, "stopped by timeout");
  EXPECT_TRUE(noted) << dtod["notes"];
}

// ---- launch ----

TEST(BenchNative, LaunchLatencyFollowsTheKernelTime) {
  NativeOptions o = options({"launch"});
  o.kernels = test_kernels();
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "B200"}, {"SMCOMPAT_FAKE_KERNEL_US", "3.5"}}, o);
  ASSERT_FALSE(run.contains("error")) << run.dump();
  ASSERT_EQ(run["results"].size(), 2u);
  json kernel = find_result(run, "kernel launch gpu0");
  expect_relative(kernel["value"].get<double>(), 3.5, 1e-4);
  EXPECT_EQ(kernel["unit"], "us");
  EXPECT_EQ(kernel["params"]["blocking_kernel"], "true");
  expect_relative(find_result(run, "graph launch gpu0")["value"].get<double>(), 3.5, 1e-4);
}

TEST(BenchNative, LaunchWithoutKernelsOrGraphsIsSkipped) {
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100"}}, options({"launch"}));
  EXPECT_EQ(find_result(run, "kernel launch gpu0")["skip_reason"], "built without device kernels");
  EXPECT_EQ(find_result(run, "graph launch gpu0")["skip_reason"], "built without device kernels");

  NativeOptions o = options({"launch"});
  o.kernels = test_kernels();
  run = fake_run(
      {{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_FAIL_CALLS", "cuGraphInstantiateWithFlags"}},
      o);
  EXPECT_FALSE(find_result(run, "kernel launch gpu0")["value"].is_null()) << run.dump();
  EXPECT_TRUE(contains(find_result(run, "graph launch gpu0")["skip_reason"],
                       "cuGraphInstantiateWithFlags failed: CUDA_ERROR_UNKNOWN"));
}

// ---- p2p ----

json p2p_run(const std::string& gpus, const std::string& p2p, const std::string& nvlink,
             NativeOptions o = options({"p2p"}, {256 * kMiB})) {
  return fake_run(
      {{"SMCOMPAT_FAKE_GPUS", gpus}, {"SMCOMPAT_FAKE_P2P", p2p}, {"SMCOMPAT_FAKE_NVLINK", nvlink}},
      o);
}

TEST(BenchNative, OneGpuHasNoPairs) {
  json run = p2p_run("H100", "1", "0");
  ASSERT_FALSE(run.contains("error")) << run.dump();
  EXPECT_TRUE(run["results"].empty());
  bool noted = false;
  for (const auto& w : run["warnings"]) noted |= contains(w, "one GPU");
  EXPECT_TRUE(noted) << run["warnings"];
}

TEST(BenchNative, PcieP2PPairs) {
  json run = p2p_run("H100,H100", "1", "0");
  ASSERT_FALSE(run.contains("error")) << run.dump();
  ASSERT_EQ(run["results"].size(), 4u) << run.dump();
  for (const char* pair : {"gpu0->gpu1", "gpu1->gpu0"}) {
    json uni = find_result(run, std::string("copy_engine unidirectional 256 MiB ") + pair);
    json bi = find_result(run, std::string("copy_engine bidirectional 256 MiB ") + pair);
    ASSERT_FALSE(uni.is_null()) << pair;
    expect_params(uni, {{"path", "pcie"}, {"p2p_access", "true"}, {"nvlink_links", "0"}});
    expect_relative(uni["value"].get<double>(), 25.0);
    expect_relative(bi["value"].get<double>(), 50.0);  // full duplex: both directions at once
    EXPECT_TRUE(uni["peak"].is_null());
  }
}

TEST(BenchNative, NvlinkP2PPairsReachTheCatalogFigure) {
  json run = p2p_run("H100,H100", "1", "4");
  ASSERT_FALSE(run.contains("error")) << run.dump();
  json uni = find_result(run, "copy_engine unidirectional 256 MiB gpu0->gpu1");
  expect_params(uni, {{"path", "nvlink"}, {"nvlink_links", "4"}});
  expect_relative(uni["value"].get<double>(), 450.0);  // 900 GB/s total, half per direction
  EXPECT_EQ(uni["peak"].get<double>(), 450.0);
  expect_relative(uni["percent"].get<double>(), 100.0);
  json bi = find_result(run, "copy_engine bidirectional 256 MiB gpu0->gpu1");
  expect_relative(bi["value"].get<double>(), 900.0);
  EXPECT_EQ(bi["peak"].get<double>(), 900.0);
  EXPECT_EQ(bi["params"]["blocking_kernel"], "false");  // no spin kernel in this run
}

TEST(BenchNative, PairsWithoutP2PAreStagedThroughTheHost) {
  json run = p2p_run("H100,H100", "0", "0");
  ASSERT_FALSE(run.contains("error")) << run.dump();
  json uni = find_result(run, "copy_engine unidirectional 256 MiB gpu1->gpu0");
  expect_params(uni, {{"path", "staged through host"}, {"p2p_access", "false"}});
  expect_relative(uni["value"].get<double>(), 12.5);  // down and up at 25 GB/s
  expect_relative(
      find_result(run, "copy_engine bidirectional 256 MiB gpu1->gpu0")["value"].get<double>(),
      25.0);
}

TEST(BenchNative, FourGpuMatrixHasEveryOrderedPair) {
  for (const char* p2p : {"0", "1"}) {
    for (const char* nvlink : {"0", "2"}) {
      json run = p2p_run("H100,H100,H100,H100", p2p, nvlink);
      ASSERT_FALSE(run.contains("error")) << run.dump();
      ASSERT_EQ(run["results"].size(), 24u) << p2p << nvlink;  // 12 ordered pairs x 2 directions
      std::set<std::pair<int, int>> pairs;
      std::set<std::string> names;
      for (const auto& r : run["results"]) {
        pairs.insert({r["devices"][0].get<int>(), r["devices"][1].get<int>()});
        names.insert(r["name"].get<std::string>());
        std::string expected_path = std::string(p2p) == "0"      ? "staged through host"
                                    : std::string(nvlink) == "0" ? "pcie"
                                                                 : "nvlink";
        EXPECT_EQ(r["params"]["path"], expected_path);
        EXPECT_FALSE(r["value"].is_null()) << r.dump();
      }
      EXPECT_EQ(pairs.size(), 12u);
      EXPECT_EQ(names.size(), 24u);
    }
  }
}

TEST(BenchNative, P2PSmCopyWithAKernel) {
  NativeOptions o = options({"p2p"}, {64 * kMiB});
  o.kernels = test_kernels();
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100,H100"},
                       {"SMCOMPAT_FAKE_NVLINK", "2"},
                       {"SMCOMPAT_FAKE_KERNEL_US", "200"}},
                      o);
  ASSERT_FALSE(run.contains("error")) << run.dump();
  ASSERT_EQ(run["results"].size(), 6u);
  json sm = find_result(run, "sm unidirectional 64 MiB gpu0->gpu1");
  expect_relative(sm["value"].get<double>(), 64.0 * kMiB / 200e-6 / 1e9);
  EXPECT_EQ(sm["params"]["blocking_kernel"], "true");
  // Held by the spin kernel, the two-stream copy still times only the copies.
  json bi = find_result(run, "copy_engine bidirectional 64 MiB gpu1->gpu0");
  EXPECT_EQ(bi["params"]["blocking_kernel"], "true");
  expect_relative(bi["value"].get<double>(), 900.0);
  json staged = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100,H100"}, {"SMCOMPAT_FAKE_P2P", "0"}}, o);
  EXPECT_TRUE(contains(find_result(staged, "sm unidirectional 64 MiB gpu0->gpu1")["skip_reason"],
                       "needs peer access"));
}

// ---- extension and helpers ----

TEST(BenchNative, ExtraSuitesRunWithTheSameContext) {
  NativeOptions o = options({"gemm"});
  o.extra_suites["gemm"] = [](SuiteContext& ctx) {
    BenchResult r;
    r.suite = "gemm";
    r.name = "devices " + std::to_string(ctx.devices.size()) + " " +
             (ctx.catalog_gpu(0) ? ctx.catalog_gpu(0)->name : "?");
    r.skip_reason = "test";
    return std::vector<BenchResult>{r};
  };
  json run = fake_run({{"SMCOMPAT_FAKE_GPUS", "H100,B200"}}, o);
  ASSERT_FALSE(run.contains("error")) << run.dump();
  ASSERT_EQ(run["results"].size(), 1u);
  EXPECT_EQ(run["results"][0]["name"], "devices 2 H100 SXM");
}

TEST(BenchSizes, FromL2ResidentTo4GiB) {
  std::vector<std::uint64_t> h100 = memory_sizes(50 * 1024 * 1024, false);  // 50 MiB of L2
  ASSERT_EQ(h100.size(), 9u);                                               // 16 MiB ... 4 GiB
  EXPECT_EQ(h100.front(), 16 * kMiB);  // source + destination: 32 MiB of 50; 2 x 32 MiB would not

  EXPECT_EQ(h100.back(), 4 * kGiB);
  EXPECT_EQ(memory_sizes(96 * 1024 * 1024, true),
            (std::vector<std::uint64_t>{32 * kMiB, 64 * kMiB, kGiB}));
  EXPECT_EQ(memory_sizes(0, true), (std::vector<std::uint64_t>{kMiB, 64 * kMiB, kGiB}));
  EXPECT_EQ(size_label(4 * kGiB), "4 GiB");
  EXPECT_EQ(size_label(256 * kMiB), "256 MiB");
  EXPECT_EQ(size_label(4096), "4 KiB");
  EXPECT_EQ(size_label(1000), "1000 B");
}

TEST(BenchThrottle, ReasonNames) {
  EXPECT_EQ(throttle_reason_names(0x1 | 0x2 | 0x100), std::vector<std::string>{});
  EXPECT_EQ(throttle_reason_names(0x4 | 0x80),
            (std::vector<std::string>{"sw_power_cap", "hw_power_brake"}));
}

// ---- the session directly ----

TEST(CudaSession, FailuresNameTheCallAndTheCUresult) {
  std::string text = test::in_child({{"SMCOMPAT_FAKE_GPUS", "H100"}}, [] {
    SessionOptions so;
    so.libcuda = test::kFakeCuda;
    auto s = CudaSession::open(so);
    if (!s) return "open: " + s.error().what;
    std::string out = "count " + std::to_string((*s)->device_count()) + "\n";
    auto bad = (*s)->use_device(5);
    out += "use5: " + (bad ? std::string("ok") : bad.error().what) + "\n";
    if (auto r = (*s)->use_device(0); !r) return out + r.error().what;
    auto p = (*s)->alloc_device(1024);
    if (!p) return out + p.error().what;
    auto f1 = (*s)->free_device(*p);
    auto f2 = (*s)->free_device(*p);
    out += "free1: " + std::string(f1 ? "ok" : f1.error().what) + "\n";
    out += "free2: " + std::string(f2 ? "ok" : f2.error().what) + "\n";
    auto copy = (*s)->copy_dtod(*p, *p, 16, nullptr);
    out += "copy: " + std::string(copy ? "ok" : copy.error().what) + "\n";
    auto module = (*s)->load_module(std::span<const std::uint8_t>());
    out += "module: " + std::string(module ? "ok" : module.error().what) + "\n";
    return out;
  });
  EXPECT_NE(text.find("count 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("use5: no CUDA device 5 (the driver shows 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("free1: ok\n"), std::string::npos) << text;
  EXPECT_NE(text.find("free2: cuMemFree_v2 failed: CUDA_ERROR_INVALID_VALUE"), std::string::npos)
      << text;
  EXPECT_NE(text.find("copy: cuMemcpyDtoDAsync_v2 failed: CUDA_ERROR_INVALID_VALUE"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("module: cuModuleLoadData: empty image"), std::string::npos) << text;
}

TEST(CudaSession, InitFailureNamesTheCUresult) {
  std::string text =
      test::in_child({{"SMCOMPAT_FAKE_GPUS", "H100"}, {"SMCOMPAT_FAKE_INIT_ERROR", "804"}}, [] {
        SessionOptions so;
        so.libcuda = test::kFakeCuda;
        auto s = CudaSession::open(so);
        return s ? std::string("opened") : s.error().what;
      });
  EXPECT_EQ(text, "cuInit failed: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
}

}  // namespace
}  // namespace smcompat::bench
