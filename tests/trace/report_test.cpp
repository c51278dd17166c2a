// Unit tests of the trace report: record parsing (including cut-short and hostile lines), the
// classification rule of driver-api.md 5.2, the working-model prediction of
// compatibility-rules.md 7 and the override implications (the printers: tests/report/).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "smcompat/report/trace_report.hpp"
#include "smcompat/trace/trace.hpp"
#include "trace/sample_records.hpp"

namespace smcompat::trace {
namespace {

OfferedImage img(const char* target, const char* isa = nullptr) {
  OfferedImage o{*SmTarget::parse(target), std::nullopt};
  if (isa) o.ptx_isa = Version::parse(isa);
  return o;
}

TEST(TracePredict, ExactSassWinsOverPtx) {
  Prediction p =
      predict({img("sm_80"), img("compute_80", "9.0"), img("sm_90")}, {9, 0}, Version{13, 0}, {});
  EXPECT_EQ(p.outcome, Fit::kNative);
  EXPECT_EQ(p.image->to_string(), "sm_90");
}

TEST(TracePredict, CompatibleSassOnHigherMinor) {
  Prediction p = predict({img("sm_80")}, {8, 6}, Version{13, 0}, {});
  EXPECT_EQ(p.outcome, Fit::kCompatibleSass);
  EXPECT_EQ(p.image->to_string(), "sm_80");
}

TEST(TracePredict, HighestPtxIsJitted) {
  Prediction p = predict({img("sm_80"), img("compute_80", "9.0"), img("compute_90", "9.0")},
                         {12, 0}, Version{13, 0}, {});
  EXPECT_EQ(p.outcome, Fit::kPtxJit);
  EXPECT_EQ(p.image->to_string(), "compute_90");
}

TEST(TracePredict, ArchSpecificNeverRunsElsewhere) {
  Prediction p = predict({img("sm_90a")}, {12, 0}, Version{13, 0}, {});
  EXPECT_EQ(p.outcome, Fit::kFailed);
  EXPECT_EQ(p.error, 209);
}

TEST(TracePredict, NewerPtxThanDriverIs222) {
  Prediction p = predict({img("compute_120", "9.0")}, {12, 0}, Version{12, 8}, {});
  EXPECT_EQ(p.outcome, Fit::kFailed);
  EXPECT_EQ(p.error, 222);
}

TEST(TracePredict, EnvironmentOverrides) {
  JitEnv force;
  force.force_ptx_jit = true;
  Prediction p = predict({img("sm_80"), img("compute_80", "9.0")}, {8, 0}, Version{13, 0}, force);
  EXPECT_EQ(p.outcome, Fit::kPtxJit);
  JitEnv off;
  off.disable_ptx_jit = true;
  p = predict({img("compute_80", "9.0")}, {8, 0}, Version{13, 0}, off);
  EXPECT_EQ(p.outcome, Fit::kFailed);
  EXPECT_EQ(p.error, 223);
}

using testing::kRecords;

TEST(TraceParse, RecordsAndDamagedLines) {
  TraceLog log = parse_trace(kRecords, "t.jsonl");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].exe, "/bin/app");
  ASSERT_EQ(log.loads.size(), 4u);  // the hostile-but-valid JSON object is kept, fields ignored
  EXPECT_EQ(log.loads[0].first_use_ms, 2.5);
  EXPECT_TRUE(log.loads[0].unloaded);
  ASSERT_EQ(log.lookups.size(), 1u);
  EXPECT_EQ(log.lookups[0].name, "cuGetProcAddress_v2");
  ASSERT_EQ(log.warnings.size(), 2u);
  EXPECT_EQ(log.warnings[0].to_string(),
            "t.jsonl: line 8: not a JSON object (a record cut short?)");
  EXPECT_EQ(log.warnings[1].to_string(),
            "t.jsonl: line 9: not a JSON object (a record cut short?)");
}

TEST(TraceParse, EveryPrefixParses) {
  // A crash of the traced program can cut the file anywhere: every prefix gives records or
  // warnings, never a crash, and whole lines are never lost.
  std::string_view all(kRecords);
  size_t previous = 0;
  for (size_t n = 0; n <= all.size(); ++n) {
    TraceLog log = parse_trace(all.substr(0, n), "cut");
    analyze(log);
    (void)render_trace_text(log, {});
    EXPECT_GE(log.loads.size(), previous);
    previous = log.loads.size();
  }
  EXPECT_EQ(previous, 4u);
}

TEST(TraceAnalyze, ClassifiesAndCompares) {
  TraceLog log = parse_trace(kRecords, "t.jsonl");
  analyze(log);
  EXPECT_EQ(log.loads[0].outcome, Fit::kPtxJit);
  EXPECT_EQ(log.loads[0].chosen->to_string(), "compute_80");
  EXPECT_EQ(log.loads[0].how, "JIT of compute_80 to sm_120");
  EXPECT_EQ(log.loads[0].predicted->outcome, Fit::kPtxJit);
  EXPECT_FALSE(log.loads[0].disagrees);

  EXPECT_EQ(log.loads[1].outcome, Fit::kCompatibleSass);
  EXPECT_EQ(log.loads[1].how, "sm_80 SASS on 8.6");
  EXPECT_FALSE(log.loads[1].disagrees);

  EXPECT_EQ(log.loads[2].outcome, Fit::kFailed);
  EXPECT_EQ(log.loads[2].predicted->error, 209);
  EXPECT_FALSE(log.loads[2].disagrees);

  EXPECT_EQ(log.loads[3].outcome, Fit::kUnknown);

  TraceSummary s = summarize(log);
  EXPECT_EQ(s.loads, 4u);
  EXPECT_EQ(s.loads_by_outcome[Fit::kPtxJit], 1u);
  EXPECT_EQ(s.functions_by_outcome[Fit::kCompatibleSass], 2u);
  EXPECT_EQ(s.disagreements, 0u);
}

TEST(TraceAnalyze, FlagsDisagreement) {
  // The driver ran sm_80 SASS on 8.6 although compute_86 PTX was offered too: the working model
  // agrees (compatible SASS before PTX). If it had JIT-compiled instead (CU_PREFER_PTX), the
  // report must say so.
  TraceLog log = parse_trace(
      R"({"ev":"load","pid":1,"id":1,"api":"cuModuleLoadData","result":0,"device_cc":"8.6","images":[{"target":"sm_80"},{"target":"compute_86","ptx_isa":"9.0"}],"functions":[{"name":"k","binary_version":86,"ptx_version":86}]})",
      "x");
  analyze(log);
  EXPECT_EQ(log.loads[0].outcome, Fit::kPtxJit);
  EXPECT_EQ(log.loads[0].predicted->outcome, Fit::kCompatibleSass);
  EXPECT_TRUE(log.loads[0].disagrees);
  EXPECT_NE(render_trace_text(log, {}).find("DISAGREES"), std::string::npos);
}

// ---- records from a real H200 (driver 580.159.04): tests/trace/data/h200-driver-580.159.04 ----

TraceLog h200_trace(const std::string& name) {
  std::string path =
      std::string(SMCOMPAT_SOURCE_DIR) + "/tests/trace/data/h200-driver-580.159.04/" + name;
  auto log = read_trace(path);
  EXPECT_TRUE(log) << path;
  TraceLog out = log ? std::move(*log) : TraceLog{};
  analyze(out);
  return out;
}

// What a real-driver trace says of its one load, where the prediction agrees with what happened;
// `predicted`: the outcome predicted, checked where given.
void expect_one_agreeing_load(const TraceLog& log, Fit outcome, const std::string& how,
                              std::optional<Fit> predicted = std::nullopt) {
  ASSERT_EQ(log.loads.size(), 1u);
  const TracedLoad& l = log.loads[0];
  EXPECT_EQ(l.outcome, outcome);
  EXPECT_EQ(l.how, how);
  if (predicted) {
    ASSERT_TRUE(l.predicted);
    EXPECT_EQ(l.predicted->outcome, *predicted);
  }
  EXPECT_FALSE(l.disagrees);
}

TEST(TraceRealDriver, ModuleWithNoImageFailsAtLoad) {
  TraceLog log = h200_trace("sm100-module.records.jsonl");
  expect_one_agreeing_load(log, Fit::kFailed, "CUDA_ERROR_NO_BINARY_FOR_GPU");
}

TEST(TraceRealDriver, LibraryWithNoImageFailsAtFirstKernelLookup) {
  TraceLog log = h200_trace("sm100-library.records.jsonl");
  ASSERT_NO_FATAL_FAILURE(expect_one_agreeing_load(
      log, Fit::kFailed,
      "CUDA_ERROR_NO_BINARY_FOR_GPU at cuLibraryGetKernel (the load itself succeeded: the "
      "driver reports it at first use)",
      Fit::kFailed));
  const TracedLoad& l = log.loads[0];
  EXPECT_EQ(l.result, 0);  // the load itself succeeded
  EXPECT_EQ(l.first_use_error, 209);
  EXPECT_EQ(l.first_use_api, "cuLibraryGetKernel");
}

TEST(TraceRealDriver, NativeSassReportsItsOwnPtxVersion) {
  TraceLog log = h200_trace("sm90_ptx80-module.records.jsonl");
  expect_one_agreeing_load(log, Fit::kNative, "sm_90 SASS on 9.0");
}

TEST(TraceRealDriver, ForcedJitIsNotTakenForTheCubin) {
  // CUDA_FORCE_PTX_JIT=1, sm_90 + compute_80: BINARY_VERSION 90 is the JIT's output here.
  TraceLog log = h200_trace("sm90_ptx80-forcejit.records.jsonl");
  expect_one_agreeing_load(log, Fit::kPtxJit, "JIT of compute_80 to sm_90", Fit::kPtxJit);
}

TEST(TraceRealDriver, RdcPreLinkCodeLinkedByTheDriverIsJitFromOutside) {
  for (const char* name :
       {"librt_rdc_ptx80-lazy.records.jsonl", "librt_rdc_sm80_ptx80-lazy.records.jsonl"}) {
    TraceLog log = h200_trace(name);
    ASSERT_EQ(log.loads.size(), 1u) << name;
    const TracedLoad& l = log.loads[0];
    EXPECT_EQ(l.outcome, Fit::kPtxJit) << name;
    EXPECT_TRUE(l.from_outside) << name;
    EXPECT_FALSE(l.predicted) << name;  // the container alone cannot predict it
    EXPECT_FALSE(l.disagrees) << name;
    EXPECT_EQ(l.how,
              "JIT of compute_80 code to sm_90: code the loaded container did not offer (linked "
              "in by the driver, e.g. -rdc pre-link code)")
        << name;
  }
}

TEST(TraceRealDriver, RdcSassOfAnotherArchIsNotFoundAtFirstUse) {
  TraceLog log = h200_trace("librt_rdc_sm80-lazy.records.jsonl");
  ASSERT_EQ(log.loads.size(), 1u);
  const TracedLoad& l = log.loads[0];
  EXPECT_EQ(l.outcome, Fit::kFailed);
  EXPECT_EQ(l.first_use_error, 500);  // CUDA_ERROR_NOT_FOUND, with no kernel listed at load
  ASSERT_TRUE(l.predicted);
  EXPECT_EQ(l.predicted->outcome, Fit::kFailed);
  EXPECT_FALSE(l.disagrees);  // outcome compared, not the lookup's error number
}

TEST(TraceRealDriver, ContextFreeLoadWithoutDevicesStaysUnknown) {
  // Recorded by a shim that did not yet list every device: nothing to judge against.
  TraceLog log = h200_trace("librt_ptx80-eager.records.jsonl");
  ASSERT_EQ(log.loads.size(), 1u);
  EXPECT_FALSE(log.loads[0].device_cc);
  EXPECT_EQ(log.loads[0].outcome, Fit::kUnknown);
  EXPECT_FALSE(log.loads[0].predicted);
}

TEST(TraceAnalyze, ContextFreeLoadJudgedForDevicesThatAreAlike) {
  const char* line =
      R"({"ev":"load","pid":1,"id":1,"api":"cuLibraryLoadData","result":0,"devices_cc":["9.0","9.0"],"images":[{"target":"compute_80","ptx_isa":"9.0"}],"functions":[{"name":"k","binary_version":90,"ptx_version":80}]})";
  TraceLog log = parse_trace(line, "x");
  analyze(log);
  ASSERT_EQ(log.loads.size(), 1u);
  EXPECT_EQ(log.loads[0].device_cc->to_string(), "9.0");
  EXPECT_EQ(log.loads[0].outcome, Fit::kPtxJit);
  EXPECT_FALSE(log.loads[0].disagrees);
  std::string mixed = line;
  mixed.replace(mixed.find(R"(["9.0","9.0"])"), 13, R"(["9.0","8.0"])");
  log = parse_trace(mixed, "x");
  analyze(log);
  EXPECT_FALSE(log.loads[0].device_cc);  // unlike devices: no single device to judge for
  EXPECT_EQ(log.loads[0].devices_cc.size(), 2u);
}

TEST(TraceOverride, ImplicationsOfReporting90OnBlackwell) {
  std::vector<std::string> lines = override_implications({9, 0}, {12, 0});
  auto has = [&](const std::string& prefix) {
    for (const std::string& l : lines)
      if (l.rfind(prefix, 0) == 0) return true;
    return false;
  };
  EXPECT_TRUE(has("sm_90 SASS cannot run on 12.0"));
  EXPECT_TRUE(has("compute_90 PTX will be JIT-compiled for 12.0"));
  EXPECT_TRUE(has("sm_90a SASS cannot run on 12.0"));
  EXPECT_TRUE(has("compute_90a PTX cannot run on 12.0"));
  EXPECT_TRUE(has("NVML (nvidia-smi) is left truthful and still reports 12.0"));
  EXPECT_EQ(override_implications({12, 0}, {12, 0}).size(), 1u);
}

}  // namespace
}  // namespace smcompat::trace
