// The shim against the fake driver, through every path a program can reach the driver by: direct
// (PLT) calls, dlopen+dlsym, the CUDA runtime's cuGetProcAddress bootstrap (12.0 and 11.3 ABIs),
// and real CUDA runtime programs (static and shared cudart, which stop after the bootstrap
// against the fake). Records are parsed with the trace library and checked for exact values.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "smcompat/trace/trace.hpp"
#include "trace_test_util.hpp"

namespace smcompat::trace {
namespace {

using testing::fixture;
using testing::kFakeDir;
using testing::kProg;
using testing::kProgDl;
using testing::kShim;
using testing::Output;
using testing::run;
using testing::TempDir;
using Env = std::vector<std::pair<std::string, std::string>>;

const char* kRtx5090 = "RTX 5090";
const char* kH100 = "H100 SXM";
const char* kRtx3090 = "RTX 3090";

struct Traced {
  Output output;
  TraceLog log;
  std::string raw;
};

// Runs the driver program through `path` with the shim preloaded (or not).
Traced run_prog(const std::string& path, std::vector<std::string> args, const char* gpus,
                Env extra = {}, bool shim = true) {
  TempDir tmp;
  std::string records = tmp.file("records.jsonl");
  Env env = {{"LD_LIBRARY_PATH", kFakeDir}, {"SMCOMPAT_FAKE_GPUS", gpus}};
  if (shim) {
    env.push_back({"LD_PRELOAD", kShim});
    env.push_back({"SMCOMPAT_TRACE_FILE", records});
  }
  for (auto& e : extra) env.push_back(e);
  std::vector<std::string> argv = {path == "plt" ? kProg : kProgDl, path};
  for (auto& a : args) argv.push_back(a);
  Traced t;
  t.output = run(argv, env);
  t.raw = testing::slurp(records);
  t.log = parse_trace(t.raw, records);
  analyze(t.log);
  return t;
}

// A program run without and then with the shim preloaded (records in `records`).
struct Both {
  Output without, with;
  std::string records;
};
Both run_both(const std::vector<std::string>& argv, const Env& base) {
  TempDir tmp;
  Both b;
  Env without = base;
  if (std::string runtime = testing::runtime_preload(argv[0]); !runtime.empty())
    without.push_back({"LD_PRELOAD", runtime});
  b.without = run(argv, without);
  Env env = base;
  env.push_back({"LD_PRELOAD", testing::preload_for(argv[0])});
  env.push_back({"SMCOMPAT_TRACE_FILE", tmp.file("r.jsonl")});
  b.with = run(argv, env);
  b.records = testing::slurp(tmp.file("r.jsonl"));
  return b;
}

// The shim changed nothing the program printed or returned.
void expect_unchanged(const Both& b, const std::string& what) {
  EXPECT_EQ(b.with.out, b.without.out) << what;
  EXPECT_EQ(b.with.err, b.without.err) << what;
  EXPECT_EQ(b.with.status, b.without.status) << what;
}

class ShimPaths : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(AllPaths, ShimPaths, ::testing::Values("plt", "dlsym", "gpa", "gpa11"));

TEST_P(ShimPaths, JitOfPtxOnBlackwell) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog(GetParam(), {"load", fixture("sm80_ptx80.fatbin")}, kRtx5090,
                      {{"SMCOMPAT_FAKE_JIT_MS", "20"}});
  EXPECT_EQ(t.output.status, 0) << t.output.out << t.output.err;
  EXPECT_EQ(t.output.out, "load 0\nfunction scale binary=120 ptx=80\n");
  ASSERT_EQ(t.log.loads.size(), 1u) << t.raw;
  const TracedLoad& l = t.log.loads[0];
  EXPECT_EQ(l.api, "cuModuleLoadData");
  EXPECT_EQ(l.source, "memory");
  EXPECT_EQ(l.format, "fatbin");
  ASSERT_EQ(l.images.size(), 2u);
  EXPECT_EQ(l.images[0].target.to_string(), "sm_80");
  EXPECT_EQ(l.images[1].target.to_string(), "compute_80");
  EXPECT_EQ(l.device_cc->to_string(), "12.0");
  EXPECT_EQ(l.driver_cuda, 13000);
  EXPECT_EQ(l.outcome, Fit::kPtxJit);
  EXPECT_EQ(l.chosen->to_string(), "compute_80");
  EXPECT_EQ(l.how, "JIT of compute_80 to sm_120");
  EXPECT_GE(l.load_ms, 20.0);
  ASSERT_TRUE(l.jit_wall_ms);  // the shim asked the driver for CU_JIT_WALL_TIME
  EXPECT_GE(*l.jit_wall_ms, 20.0);
  // Functions enumerated at load and the one the program asked for.
  std::set<std::string> names;
  for (const TracedFunction& f : l.functions) {
    names.insert(f.name);
    EXPECT_EQ(f.binary_version, 120);
    EXPECT_EQ(f.ptx_version, 80);
  }
  EXPECT_EQ(names, (std::set<std::string>{"scale", "add"}));
  EXPECT_TRUE(l.first_use_ms);
  EXPECT_TRUE(l.unloaded);
  EXPECT_EQ(l.predicted->outcome, Fit::kPtxJit);
  EXPECT_FALSE(l.disagrees);
}

// The one load of a run that must print `out`, made with `outcome`; nullptr (the failure recorded)
// when the run made more or fewer loads, for the test to ASSERT on.
const TracedLoad* only_load(const Traced& t, const std::string& out, Fit outcome) {
  EXPECT_EQ(t.output.out, out);
  EXPECT_EQ(t.log.loads.size(), 1u);
  if (t.log.loads.size() != 1) return nullptr;
  EXPECT_EQ(t.log.loads[0].outcome, outcome);
  return &t.log.loads[0];
}

TEST_P(ShimPaths, NativeSassOnHopper) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog(GetParam(), {"load", fixture("sm90a.fatbin")}, kH100);
  const TracedLoad* l = only_load(t, "load 0\nfunction scale binary=90 ptx=90\n", Fit::kNative);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->chosen->to_string(), "sm_90a");
  EXPECT_FALSE(l->disagrees);
}

TEST_P(ShimPaths, CompatibleSassOnAmpereMinor) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog(GetParam(), {"fatbin", fixture("sm80.fatbin")}, kRtx3090);
  const TracedLoad* l =
      only_load(t, "load 0\nfunction scale binary=80 ptx=80\n", Fit::kCompatibleSass);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->api, "cuModuleLoadFatBinary");
  EXPECT_EQ(l->how, "sm_80 SASS on 8.6");
}

TEST_P(ShimPaths, FatbinWrapperIsFollowed) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog(GetParam(), {"wrapper", fixture("sm90_ptx90.fatbin")}, kH100);
  const TracedLoad* l = only_load(t, "load 0\nfunction scale binary=90 ptx=90\n", Fit::kNative);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->format, "fatbin");
  ASSERT_EQ(l->images.size(), 2u);
  EXPECT_EQ(l->chosen->to_string(), "sm_90");
}

TEST_P(ShimPaths, NoBinaryForGpu) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog(GetParam(), {"load", fixture("sm90a.fatbin")}, kRtx5090);
  const TracedLoad* only = only_load(t, "load 209\n", Fit::kFailed);
  ASSERT_TRUE(only);
  const TracedLoad& l = *only;
  EXPECT_EQ(l.result, 209);
  EXPECT_EQ(l.error, "CUDA_ERROR_NO_BINARY_FOR_GPU");
  EXPECT_EQ(l.jit_error_log, "[fake driver] no image for sm_120");
  EXPECT_EQ(l.predicted->error, 209);
  EXPECT_FALSE(l.disagrees);
}

TEST_P(ShimPaths, OverrideReportsCapabilityButDriverChoosesByRealOne) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Env env = {{"SMCOMPAT_REPORT_CC", "9.0"}};
  Traced cc = run_prog(GetParam(), {"cc"}, kRtx5090, env);
  EXPECT_EQ(cc.output.out, "attribute 9.0\ncompute_capability 9.0\nsms 170\n");
  ASSERT_EQ(cc.log.processes.size(), 1u);
  EXPECT_EQ(cc.log.processes[0].report_cc, "9.0");
  ASSERT_FALSE(cc.log.cc_queries.empty());
  for (const CcQuery& q : cc.log.cc_queries) {
    EXPECT_TRUE(q.overridden);
    EXPECT_EQ(q.real_cc, "12.0");
    EXPECT_EQ(q.reported_cc, "9.0");
  }
  // The program believes 9.0; the driver still picks by 12.0: sm_90 cannot run, compute_90 JITs.
  Traced load = run_prog(GetParam(), {"load", fixture("sm90_ptx90.fatbin")}, kRtx5090, env);
  EXPECT_EQ(load.output.out, "load 0\nfunction scale binary=120 ptx=90\n");
  ASSERT_EQ(load.log.loads.size(), 1u);
  EXPECT_EQ(load.log.loads[0].device_cc->to_string(), "12.0");
  EXPECT_EQ(load.log.loads[0].outcome, Fit::kPtxJit);
  Traced fail = run_prog(GetParam(), {"load", fixture("sm90a.fatbin")}, kRtx5090, env);
  EXPECT_EQ(fail.output.out, "load 209\n");
}

TEST_P(ShimPaths, OverrideScopedToChosenLibraries) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced other = run_prog(
      GetParam(), {"cc"}, kRtx5090,
      {{"SMCOMPAT_REPORT_CC", "9.0"}, {"SMCOMPAT_REPORT_CC_ONLY_FOR", "libtorch_cuda.so"}});
  EXPECT_EQ(other.output.out, "attribute 12.0\ncompute_capability 12.0\nsms 170\n");
  ASSERT_FALSE(other.log.cc_queries.empty());
  EXPECT_FALSE(other.log.cc_queries[0].overridden);
  std::string self = GetParam() == "plt" ? "trace_driver_prog" : "trace_driver_prog_dl";
  Traced mine = run_prog(
      GetParam(), {"cc"}, kRtx5090,
      {{"SMCOMPAT_REPORT_CC", "9.0"}, {"SMCOMPAT_REPORT_CC_ONLY_FOR", "libtorch_cuda.so:" + self}});
  EXPECT_EQ(mine.output.out, "attribute 9.0\ncompute_capability 9.0\nsms 170\n");
}

TEST_P(ShimPaths, FileLoadsAndLibraries) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced file = run_prog(GetParam(), {"loadfile", fixture("sm120.cubin")}, kRtx5090);
  EXPECT_EQ(file.output.out, "load 0\nfunction scale binary=120 ptx=120\n");
  ASSERT_EQ(file.log.loads.size(), 1u);
  EXPECT_EQ(file.log.loads[0].source, "file");
  EXPECT_EQ(file.log.loads[0].path, fixture("sm120.cubin"));
  EXPECT_EQ(file.log.loads[0].format, "cubin");
  EXPECT_EQ(file.log.loads[0].outcome, Fit::kNative);
}

// The 11.3 bootstrap program (gpa11) does not use cuLibrary*: libraries go through the others.
class ShimLibraryPaths : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(AllButGpa11, ShimLibraryPaths, ::testing::Values("plt", "dlsym", "gpa"));

TEST_P(ShimLibraryPaths, Libraries) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  for (const char* how : {"library", "libfile"}) {
    Traced lib = run_prog(GetParam(), {how, fixture("ptx90.fatbin")}, kRtx5090);
    EXPECT_EQ(lib.output.out, "load 0\nfunction scale binary=120 ptx=90\n") << how;
    ASSERT_EQ(lib.log.loads.size(), 1u) << lib.raw;
    const TracedLoad& l = lib.log.loads[0];
    EXPECT_EQ(l.kind, "library");
    EXPECT_EQ(l.api, std::string(how) == "library" ? "cuLibraryLoadData" : "cuLibraryLoadFromFile");
    EXPECT_EQ(l.outcome, Fit::kPtxJit);
    EXPECT_EQ(l.functions.size(), 2u);
    EXPECT_TRUE(l.unloaded);
  }
}

TEST_P(ShimPaths, OutputUnchangedByTheShim) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  for (auto args : std::vector<std::vector<std::string>>{
           {"cc"}, {"load", fixture("sm80_ptx80.fatbin")}, {"load", fixture("sm90a.fatbin")}}) {
    Traced with = run_prog(GetParam(), args, kRtx5090);
    Traced without = run_prog(GetParam(), args, kRtx5090, {}, false);
    EXPECT_EQ(with.output.out, without.output.out);
    EXPECT_EQ(with.output.err, without.output.err);
    EXPECT_EQ(with.output.status, without.output.status);
  }
}

TEST(ShimJit, ErrorLogAndUnsupportedPtx) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  // PTX ISA 9.0 (CUDA 13.0) on a driver that supports CUDA 12.8: 222, with the driver's log.
  Traced t = run_prog("gpa", {"loadex", fixture("ptx120.fatbin")}, kRtx5090,
                      {{"SMCOMPAT_FAKE_CUDA", "12080"}});
  EXPECT_EQ(t.output.out,
            "log [fake driver] the PTX ISA version is newer than this driver supports\nload 222\n");
  ASSERT_EQ(t.log.loads.size(), 1u);
  EXPECT_EQ(t.log.loads[0].api, "cuModuleLoadDataEx");
  EXPECT_EQ(t.log.loads[0].jit_error_log,
            "[fake driver] the PTX ISA version is newer than this driver supports");
  EXPECT_EQ(t.log.loads[0].predicted->error, 222);
  EXPECT_FALSE(t.log.loads[0].disagrees);
}

TEST(ShimJit, LazyLoadingMovesJitToFirstUse) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog("plt", {"load", fixture("ptx90.fatbin")}, kRtx5090,
                      {{"SMCOMPAT_FAKE_JIT_MS", "40"},
                       {"CUDA_MODULE_LOADING", "LAZY"},
                       {"SMCOMPAT_TRACE_ENUMERATE", "0"}});
  ASSERT_EQ(t.log.loads.size(), 1u);
  EXPECT_LT(t.log.loads[0].load_ms, 40.0);
  ASSERT_TRUE(t.log.loads[0].first_use_ms);
  EXPECT_GE(*t.log.loads[0].first_use_ms, 40.0);
  EXPECT_EQ(t.log.processes[0].env.module_loading, "LAZY");
}

TEST(ShimJit, ForceAndDisablePtxJit) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced forced = run_prog("plt", {"load", fixture("sm80_ptx80.fatbin")}, kRtx3090,
                           {{"CUDA_FORCE_PTX_JIT", "1"}});
  EXPECT_EQ(forced.output.out, "load 0\nfunction scale binary=86 ptx=80\n");
  EXPECT_EQ(forced.log.loads[0].outcome, Fit::kPtxJit);
  EXPECT_FALSE(forced.log.loads[0].disagrees);
  Traced off =
      run_prog("plt", {"load", fixture("ptx90.fatbin")}, kRtx5090, {{"CUDA_DISABLE_PTX_JIT", "1"}});
  EXPECT_EQ(off.output.out, "load 223\n");
  EXPECT_EQ(off.log.loads[0].predicted->error, 223);
  EXPECT_FALSE(off.log.loads[0].disagrees);
}

TEST(ShimLink, LinkerInputsAndOutputAreRecorded) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog("gpa", {"link", fixture("sm120.cubin")}, kRtx5090);
  EXPECT_EQ(t.output.out, "link 0\nload 0\n");
  EXPECT_NE(t.raw.find(R"("api":"cuLinkAddData_v2")"), std::string::npos) << t.raw;
  EXPECT_NE(t.raw.find(R"("api":"cuLinkAddFile_v2")"), std::string::npos) << t.raw;
  EXPECT_NE(t.raw.find(R"("images":[{"offset":0,"stored_size")"), std::string::npos) << t.raw;
  EXPECT_NE(t.raw.find(R"("ev":"link_complete")"), std::string::npos);
  ASSERT_EQ(t.log.loads.size(), 1u);
  EXPECT_EQ(t.log.loads[0].outcome, Fit::kNative);
}

TEST(ShimStress, SixteenThreadsLoadingAtOnce) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog("gpa", {"stress", "16", "25", fixture("sm80_ptx80.fatbin")}, kRtx5090);
  EXPECT_EQ(t.output.out, "stress failures=0\n");
  EXPECT_TRUE(t.log.warnings.empty());  // every line whole
  ASSERT_EQ(t.log.loads.size(), 400u);
  std::set<uint64_t> ids;
  size_t get_functions = 0, unloads = 0;
  for (const TracedLoad& l : t.log.loads) {
    ids.insert(l.id);
    EXPECT_EQ(l.outcome, Fit::kPtxJit);
    EXPECT_TRUE(l.unloaded);
    EXPECT_TRUE(l.first_use_ms);
  }
  EXPECT_EQ(ids.size(), 400u);
  size_t pos = 0;
  while ((pos = t.raw.find(R"("ev":"get_function")", pos)) != std::string::npos)
    ++get_functions, ++pos;
  pos = 0;
  while ((pos = t.raw.find(R"("ev":"unload")", pos)) != std::string::npos) ++unloads, ++pos;
  EXPECT_EQ(get_functions, 400u);
  EXPECT_EQ(unloads, 400u);
}

TEST(ShimBootstrap, LaunchesAreNeverWrapped) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog("gpa", {"cc"}, kRtx5090, {{"SMCOMPAT_TRACE_LOOKUPS", "all"}});
  bool saw_launch = false;
  for (const TracedLookup& k : t.log.lookups) {
    if (k.name == "cuLaunchKernel") {
      saw_launch = true;
      EXPECT_FALSE(k.wrapped);
    }
    if (k.name == "cuModuleLoadData") EXPECT_TRUE(k.wrapped);
  }
  EXPECT_TRUE(saw_launch);
}

TEST(ShimBootstrap, NewerAbiVersionsAreNotWrapped) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  // The wrappers implement the CUDA 13.0 ABIs; a request for a later cudaVersion may mean a newer
  // ABI of the same name, so it gets the driver's own pointer.
  Env env = {{"SMCOMPAT_FAKE_CUDA", "14000"}, {"SMCOMPAT_TRACE_LOOKUPS", "all"}};
  Traced newer = run_prog("gpa", {"lookup", "cuModuleLoadData", "14000"}, kRtx5090, env);
  EXPECT_EQ(newer.output.out, "lookup 0 found\n");
  ASSERT_FALSE(newer.log.lookups.empty());
  EXPECT_EQ(newer.log.lookups.back().name, "cuModuleLoadData");
  EXPECT_EQ(newer.log.lookups.back().version, 14000);
  EXPECT_TRUE(newer.log.lookups.back().found);
  EXPECT_FALSE(newer.log.lookups.back().wrapped);
  Traced known = run_prog("gpa", {"lookup", "cuModuleLoadData", "13000"}, kRtx5090, env);
  EXPECT_TRUE(known.log.lookups.back().wrapped);
}

TEST(ShimBootstrap, RecordsTheRuntimeStyleBootstrap) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog("gpa", {"cc"}, kRtx5090);
  ASSERT_GE(t.log.lookups.size(), 2u) << t.raw;
  EXPECT_EQ(t.log.lookups[0].via, "dlsym");
  EXPECT_EQ(t.log.lookups[0].name, "cuGetProcAddress_v2");
  EXPECT_TRUE(t.log.lookups[0].wrapped);
  EXPECT_EQ(t.log.lookups[1].via, "cuGetProcAddress_v2");
  EXPECT_EQ(t.log.lookups[1].name, "cuGetProcAddress");
  EXPECT_EQ(t.log.lookups[1].version, 12000);
  EXPECT_TRUE(t.log.lookups[1].wrapped);
}

// ---- Real CUDA runtime programs (static and shared cudart) -----------------------------------

class CudartPrograms : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Runtime, CudartPrograms, ::testing::Values("static", "shared"));

TEST_P(CudartPrograms, ShimSeesTheBootstrapAndChangesNothing) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  std::string prog = testing::kTestDir + "/cudart_prog_" + GetParam();
  SMCOMPAT_REQUIRE_BUILT(prog);
  Env base = {{"LD_LIBRARY_PATH", kFakeDir + ":/usr/local/cuda/lib64"},
              {"SMCOMPAT_FAKE_GPUS", kRtx5090}};
  Both b = run_both({prog}, base);
  expect_unchanged(b, prog);
  EXPECT_NE(b.without.out.find("cudaGetDeviceCount: cuda"), std::string::npos) << b.without.out;

  TraceLog log = parse_trace(b.records, "r.jsonl");
  bool dlsym_v2 = false, gpa_11030 = false, gpa_12000 = false;
  for (const TracedLookup& k : log.lookups) {
    if (k.via == "dlsym" && k.name == "cuGetProcAddress_v2" && k.wrapped) dlsym_v2 = true;
    if (k.name == "cuGetProcAddress" && k.version == 11030 && k.wrapped) gpa_11030 = true;
    if (k.name == "cuGetProcAddress" && k.version == 12000 && k.wrapped) gpa_12000 = true;
  }
  EXPECT_TRUE(dlsym_v2);
  EXPECT_TRUE(gpa_11030);
  EXPECT_TRUE(gpa_12000);
  // Wrapped module entry points were handed to the runtime through the shim's resolver.
  bool library_load = false;
  for (const TracedLookup& k : log.lookups)
    if (k.name == "cuLibraryLoadData" && k.version == 12000 && k.wrapped) library_load = true;
  EXPECT_TRUE(library_load);
}

TEST_P(CudartPrograms, OverrideOnTheRuntimePath) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  std::string prog = testing::kTestDir + "/cudart_prog_" + GetParam();
  SMCOMPAT_REQUIRE_BUILT(prog);
  TempDir tmp;
  Env env = {{"LD_LIBRARY_PATH", kFakeDir + ":/usr/local/cuda/lib64"},
             {"SMCOMPAT_FAKE_GPUS", kRtx5090},
             {"LD_PRELOAD", testing::preload_for(prog)},
             {"SMCOMPAT_TRACE_FILE", tmp.file("r.jsonl")},
             {"SMCOMPAT_REPORT_CC", "9.0"}};
  Output o = run({prog}, env);
  TraceLog log = parse_trace(testing::slurp(tmp.file("r.jsonl")), "r.jsonl");
  // The runtime fetched cuDeviceGetAttribute through the shim's resolver: it gets the wrapper.
  bool attr_wrapped = false;
  for (const TracedLookup& k : log.lookups)
    if (k.name == "cuDeviceGetAttribute" && k.wrapped) attr_wrapped = true;
  EXPECT_TRUE(attr_wrapped);
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].report_cc, "9.0");
}

// ---- A broken or missing driver ---------------------------------------------------------------

TEST(ShimFailOpen, MissingDriverLeavesErrorsUnchanged) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  TempDir empty;
  Env base = {{"LD_LIBRARY_PATH", empty.path.string()}};
  for (const char* path : {"dlsym", "gpa"}) {
    Both b = run_both({kProgDl, path, "cc"}, base);
    EXPECT_EQ(b.without.out, "cannot load libcuda.so.1\n");
    EXPECT_EQ(b.without.status, 3);
    expect_unchanged(b, path);
  }
}

TEST(ShimFailOpen, StubDriverLeavesErrorsUnchanged) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  if (!std::filesystem::exists(SMCOMPAT_CUDA_STUB)) GTEST_SKIP() << "no CUDA toolkit stub";
  TempDir dir;
  std::filesystem::create_symlink(SMCOMPAT_CUDA_STUB, dir.path / "libcuda.so.1");
  Env base = {{"LD_LIBRARY_PATH", dir.path.string()}};
  for (const char* path : {"dlsym", "gpa"}) {
    Both b = run_both({kProgDl, path, "cc"}, base);
    EXPECT_EQ(b.with.out, b.without.out) << path;
    EXPECT_EQ(b.with.status, b.without.status) << path;
  }
  // The stub refuses cuGetProcAddress (34): the bootstrap fails the same way with the shim.
  Output gpa = run({kProgDl, "gpa", "cc"}, base);
  EXPECT_EQ(gpa.out, "cuGetProcAddress bootstrap failed\n");
  Output dl = run({kProgDl, "dlsym", "cc"}, base);
  EXPECT_EQ(dl.out, "cuInit failed: 34\n");
}

TEST(ShimFailOpen, BrokenDriverLeavesErrorsUnchanged) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  // A driver whose cuInit fails (as with a kernel module / library version mismatch).
  for (const char* path : {"plt", "dlsym", "gpa"}) {
    Env env = {{"SMCOMPAT_FAKE_INIT_ERROR", "803"}};
    Traced with = run_prog(path, {"load", fixture("sm80_ptx80.fatbin")}, kRtx5090, env);
    Traced without = run_prog(path, {"load", fixture("sm80_ptx80.fatbin")}, kRtx5090, env, false);
    EXPECT_EQ(without.output.out, "cuInit failed: 803\n") << path;
    EXPECT_EQ(with.output.out, without.output.out) << path;
    EXPECT_EQ(with.output.err, without.output.err) << path;
    EXPECT_EQ(with.output.status, without.output.status) << path;
  }
  std::string prog = testing::kTestDir + "/cudart_prog_shared";
  SMCOMPAT_REQUIRE_BUILT(prog);
  Env base = {{"LD_LIBRARY_PATH", kFakeDir + ":/usr/local/cuda/lib64"},
              {"SMCOMPAT_FAKE_GPUS", kRtx5090},
              {"SMCOMPAT_FAKE_INIT_ERROR", "803"}};
  expect_unchanged(run_both({prog}, base), prog);
}

TEST(ShimFailOpen, RtldNextInterposersStillWork) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  // LD_PRELOAD=shim:interposer: the interposer's dlsym(RTLD_NEXT, "getpid") goes through the
  // shim's dlsym and must still start after the interposer (else: endless recursion).
  Env env = {{"LD_LIBRARY_PATH", kFakeDir},
             {"LD_PRELOAD", kShim + ":" + testing::kTestDir + "/libtrace_interposer.so"}};
  Output o = run({kProgDl, "dlsym", "getpid"}, env);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "getpid ok\n");
}

TEST(ShimFailOpen, UnwritableTraceFileIsAPassThrough) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Traced t = run_prog("plt", {"load", fixture("sm80_ptx80.fatbin")}, kRtx5090,
                      {{"SMCOMPAT_TRACE_FILE", "/nonexistent-dir/records.jsonl"}});
  EXPECT_EQ(t.output.status, 0);
  EXPECT_EQ(t.output.out, "load 0\nfunction scale binary=120 ptx=80\n");
}

TEST(ShimFailOpen, GarbageImageDoesNotCrash) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  TempDir tmp;
  std::string junk = tmp.file("junk.bin");
  {
    std::ofstream out(junk, std::ios::binary);
    // A fatbin header claiming a huge size, then nothing.
    const unsigned char bytes[] = {0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00,
                                   0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00};
    out.write(reinterpret_cast<const char*>(bytes), sizeof bytes);
  }
  Traced t = run_prog("plt", {"load", junk}, kRtx5090);
  EXPECT_EQ(t.output.out, "load 200\n");
  ASSERT_EQ(t.log.loads.size(), 1u);
  EXPECT_EQ(t.log.loads[0].outcome, Fit::kFailed);
}

TEST(ShimFailOpen, TruncatedImagesNeverCrash) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  // Prefixes of a real fatbin: headers claim more than is there. The image pointer carries no
  // size, so both the fake driver and the shim bound their reads by the readable mapping; what
  // they read past the prefix is heap garbage, so only "no crash, one record" is asserted.
  std::string whole = testing::slurp(fixture("sm80_ptx80.fatbin"));
  TempDir tmp;
  for (size_t n : {size_t{0}, size_t{4}, size_t{15}, size_t{16}, size_t{17}, size_t{64},
                   size_t{100}, whole.size() / 2, whole.size() - 1}) {
    std::string path = tmp.file("cut" + std::to_string(n));
    std::ofstream(path, std::ios::binary).write(whole.data(), static_cast<std::streamsize>(n));
    Traced t = run_prog("plt", {"load", path}, kRtx5090);
    EXPECT_LT(t.output.status, 128) << n;  // not killed by a signal
    EXPECT_EQ(t.log.loads.size(), 1u) << n << " " << t.raw;
  }
}

}  // namespace
}  // namespace smcompat::trace
