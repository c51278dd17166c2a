// The trace printers (src/report/trace_report.cpp) on constructed trace logs: the exact text table
// and summary, the exact JSON report (schema smcompat.trace/1, docs/trace.md), and the report of
// the sample record file the trace tests parse.
#include "smcompat/report/trace_report.hpp"

#include <gtest/gtest.h>

#include "trace/sample_records.hpp"

namespace smcompat {
namespace {

using nlohmann::json;
using trace::TraceLog;

// A module load by process 42 on device 0 (12.0), recorded on line id + 1, offering `targets`.
trace::TracedLoad module_load(uint64_t id, const char* api, const char* format,
                              const std::vector<const char*>& targets) {
  trace::TracedLoad l;
  l.id = id;
  l.pid = 42;
  l.line = id + 1;
  l.api = api;
  l.kind = "module";
  l.format = format;
  l.device = 0;
  l.device_cc = ComputeCapability{12, 0};
  for (const char* t : targets) l.images.push_back({*SmTarget::parse(t), std::nullopt});
  return l;
}

// One process with an override, a JIT load that agrees with the prediction, a failed load the
// prediction disagrees with, a lookup, an overridden capability query and a damaged line.
TraceLog constructed_log() {
  TraceLog log;
  trace::TracedProcess p;
  p.pid = 42;
  p.exe = "/bin/app";
  p.report_cc = "9.0";
  p.only_for = {"libtorch_cuda.so"};
  log.processes.push_back(p);

  log.loads.push_back(module_load(1, "cuModuleLoadData", "fatbin", {"sm_80", "compute_80"}));
  trace::TracedLoad& jit = log.loads.back();
  jit.source = "memory";
  jit.driver_cuda = 13000;
  jit.load_ms = 31.5;
  jit.jit_wall_ms = 30.25;
  jit.images[1].ptx_isa = Version{9, 0};
  jit.functions = {{"scale", 120, 80, 16, 0.5}};
  jit.first_use_ms = 2.5;
  jit.unloaded = true;
  jit.outcome = Fit::kPtxJit;
  jit.chosen = SmTarget::parse("compute_80");
  jit.how = "JIT of compute_80 to sm_120";
  jit.predicted = trace::Prediction{Fit::kPtxJit, SmTarget::parse("compute_80"), 0, "only PTX"};

  log.loads.push_back(module_load(2, "cuModuleLoad", "cubin", {"sm_90a"}));
  trace::TracedLoad& failed = log.loads.back();
  failed.source = "file";
  failed.path = "/k.cubin";
  failed.result = 209;
  failed.error = "CUDA_ERROR_NO_BINARY_FOR_GPU";
  failed.load_ms = 12.0;
  failed.jit_error_log = "ptxas fatal";
  failed.outcome = Fit::kFailed;
  failed.how = "CUDA_ERROR_NO_BINARY_FOR_GPU";
  failed.predicted = trace::Prediction{Fit::kNative, SmTarget::parse("sm_90a"), 0, "exact"};
  failed.disagrees = true;

  log.lookups.push_back({"cuGetProcAddress_v2", "cuGetProcAddress", 12000, 0, true, true, 42});
  log.cc_queries.push_back(
      {"cuDeviceGetAttribute", "/lib/libtorch_cuda.so", "12.0", "9.0", true, 42});
  Error w = make_error("line 4: not a JSON object (a record cut short?)");
  w.file = "t.jsonl";
  log.warnings.push_back(w);
  return log;
}

TEST(TraceReportText, ConstructedLog) {
  TraceRenderOptions options;
  options.command = "app --x";
  options.exit_status = 1;
  EXPECT_EQ(
      render_trace_text(constructed_log(), options),
      "smcompat trace: app --x (exit status 1)\n"
      "  device 0: compute capability 12.0 (as the driver reports it), driver supports CUDA 13.0\n"
      "  capability override: 9.0 reported to callers in libtorch_cuda.so (pid 42); NVML left "
      "truthful\n"
      "  lookups answered by the shim (bootstrap and wrapped names): cuGetProcAddress_v2 (1); "
      "cuGetProcAddress bootstrap answered by the shim\n"
      "    cuDeviceGetAttribute from libtorch_cuda.so: real 12.0, reported 9.0\n"
      "\n"
      "  #  api               source            offered            observed (driver)  how          "
      "                         load ms  first use ms  predicted\n"
      "  1  cuModuleLoadData  memory (fatbin)   sm_80, compute_80  ptx-jit            JIT of "
      "compute_80 to sm_120   31.5 (JIT 30.2)          2.50  ptx-jit compute_80\n"
      "  2  cuModuleLoad      /k.cubin (cubin)  sm_90a             failed             "
      "CUDA_ERROR_NO_BINARY_FOR_GPU             12.0             -  native sm_90a DISAGREES\n"
      "  load #2 JIT log: ptxas fatal\n"
      "\n"
      "summary: 2 load(s): 0 native, 0 compatible SASS, 1 JIT, 1 failed, 0 unknown; kernels: 0 "
      "native, 0 compatible SASS, 1 JIT\n"
      "         1 disagreement(s) between the driver and the prediction (marked DISAGREES above; "
      "the prediction's ranking of several fitting images is unverified)\n"
      "  observed = what the driver reported (CU_FUNC_ATTRIBUTE_BINARY_VERSION/PTX_VERSION); "
      "predicted = smcompat's model from the images alone\n"
      "  warning: t.jsonl: line 4: not a JSON object (a record cut short?)\n");
}

TEST(TraceReportText, NothingRecorded) {
  EXPECT_EQ(render_trace_text(TraceLog{}, {}),
            "smcompat trace\n"
            "  the shim never started: the program did not load it (static binary, setuid, or "
            "LD_PRELOAD removed)\n"
            "  no module or library loads were seen\n"
            "\n"
            "summary: 0 load(s): 0 native, 0 compatible SASS, 0 JIT, 0 failed, 0 unknown; kernels: "
            "0 native, 0 compatible SASS, 0 JIT\n"
            "         0 disagreement(s) between the driver and the prediction\n"
            "  observed = what the driver reported (CU_FUNC_ATTRIBUTE_BINARY_VERSION/PTX_VERSION); "
            "predicted = smcompat's model from the images alone\n");
}

TEST(TraceReportJson, ConstructedLog) {
  TraceRenderOptions options;
  options.command = "app --x";
  options.exit_status = 1;
  options.override_implications = {"sm_90 SASS cannot run on 12.0"};
  options.override_file_predictions = {"app: on the real 12.0: native"};
  options.real_cc = ComputeCapability{12, 0};
  json j = trace_to_json(constructed_log(), options, {"smcompat", "trace"});
  EXPECT_EQ(render_trace_json(constructed_log(), options, {"smcompat", "trace"}), j.dump(2) + "\n");
  EXPECT_EQ(j["tool_version"], SMCOMPAT_VERSION);
  j.erase("tool_version");
  EXPECT_EQ(j, json::parse(R"json({
  "argv": [
    "smcompat",
    "trace"
  ],
  "cc_queries": [
    {
      "api": "cuDeviceGetAttribute",
      "caller": "/lib/libtorch_cuda.so",
      "overridden": true,
      "pid": 42,
      "real_cc": "12.0",
      "reported_cc": "9.0"
    }
  ],
  "command": "app --x",
  "exit_status": 1,
  "loads": [
    {
      "api": "cuModuleLoadData",
      "chosen": "compute_80",
      "device": 0,
      "device_cc": "12.0",
      "disagrees": false,
      "driver_cuda": 13000,
      "first_use_ms": 2.5,
      "format": "fatbin",
      "functions": [
        {
          "binary_version": 120,
          "name": "scale",
          "num_regs": 16,
          "ptx_version": 80
        }
      ],
      "how": "JIT of compute_80 to sm_120",
      "id": 1,
      "images": [
        {
          "target": "sm_80"
        },
        {
          "ptx_isa": "9.0",
          "target": "compute_80"
        }
      ],
      "jit_wall_ms": 30.25,
      "kind": "module",
      "load_ms": 31.5,
      "observed": true,
      "outcome": "ptx-jit",
      "pid": 42,
      "predicted": {
        "image": "compute_80",
        "outcome": "ptx-jit",
        "reason": "only PTX"
      },
      "record_line": 2,
      "result": 0,
      "source": "memory",
      "unloaded": true
    },
    {
      "api": "cuModuleLoad",
      "device": 0,
      "device_cc": "12.0",
      "disagrees": true,
      "error": "CUDA_ERROR_NO_BINARY_FOR_GPU",
      "format": "cubin",
      "functions": [],
      "how": "CUDA_ERROR_NO_BINARY_FOR_GPU",
      "id": 2,
      "images": [
        {
          "target": "sm_90a"
        }
      ],
      "jit_error_log": "ptxas fatal",
      "kind": "module",
      "load_ms": 12.0,
      "observed": true,
      "outcome": "failed",
      "path": "/k.cubin",
      "pid": 42,
      "predicted": {
        "image": "sm_90a",
        "outcome": "native",
        "reason": "exact"
      },
      "record_line": 3,
      "result": 209,
      "source": "file",
      "unloaded": false
    }
  ],
  "lookups": [
    {
      "flags": 0,
      "found": true,
      "name": "cuGetProcAddress",
      "pid": 42,
      "version": 12000,
      "via": "cuGetProcAddress_v2",
      "wrapped": true
    }
  ],
  "override": {
    "files": [
      "app: on the real 12.0: native"
    ],
    "implications": [
      "sm_90 SASS cannot run on 12.0"
    ],
    "predicted": true,
    "real_cc": "12.0"
  },
  "processes": [
    {
      "exe": "/bin/app",
      "nvml_overridden": false,
      "only_for": [
        "libtorch_cuda.so"
      ],
      "pid": 42,
      "report_cc": "9.0"
    }
  ],
  "schema": "smcompat.trace/1",
  "summary": {
    "disagreements": 1,
    "functions_by_outcome": {
      "compatible-sass": 0,
      "failed": 0,
      "native": 0,
      "ptx-jit": 1,
      "unknown": 0
    },
    "loads": 2,
    "loads_by_outcome": {
      "compatible-sass": 0,
      "failed": 1,
      "native": 0,
      "ptx-jit": 1,
      "unknown": 0
    },
    "overridden_queries": 1
  },
  "warnings": [
    "t.jsonl: line 4: not a JSON object (a record cut short?)"
  ]
})json"))
      << j.dump(2);
}

TEST(TraceReport, JsonSchemaAndSummary) {
  TraceLog log = trace::parse_trace(trace::testing::kRecords, "t.jsonl");
  trace::analyze(log);
  std::string j = render_trace_json(log, {}, {"smcompat", "trace"});
  EXPECT_NE(j.find("\"schema\": \"smcompat.trace/1\""), std::string::npos);
  EXPECT_NE(j.find("\"ptx-jit\": 1"), std::string::npos);
  std::string t = render_trace_text(log, {});
  EXPECT_NE(t.find("summary: 4 load(s): 0 native, 1 compatible SASS, 1 JIT, 1 failed, 1 unknown"),
            std::string::npos)
      << t;
}

}  // namespace
}  // namespace smcompat
