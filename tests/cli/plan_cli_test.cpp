// `smcompat plan` end to end: real configs (tests/plan/configs/), GPU sets from --gpus and from
// the probe under the fake driver (tests/fakedriver), measured peaks from a recorded bench run,
// and every bad input: exit 2, a message naming the argument, and no -o file. The figures are the
// cost model's (tuned elsewhere): only the document's shape and its relations are checked here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probe/run_child.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::run_child;
using test::TempDir;
using Env = std::map<std::string, std::string>;

const std::string kConfigs = std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/";
const std::string kQwen = kConfigs + "Qwen__Qwen3-30B-A3B.json";
const std::string kDeepSeek = kConfigs + "deepseek-ai__DeepSeek-V3.json";
const std::string kDense = kConfigs + "Qwen__Qwen3-8B.json";
const std::string kBench =
    std::string(SMCOMPAT_SOURCE_DIR) + "/tests/fixtures/bench/run_synthetic.json";
const std::string kRtxPro = "4x\"RTX PRO 6000\"";

// No GPU visible: the fake driver with an empty GPU list (cuInit: no device).
Env no_gpu_env() { return {{"LD_LIBRARY_PATH", SMCOMPAT_FAKEDRIVER_DIR}, {"NO_COLOR", "1"}}; }

test::ChildResult plan(std::vector<std::string> args, Env env = no_gpu_env()) {
  std::vector<std::string> argv{SMCOMPAT_CLI, "--color", "never", "plan"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_child(argv, env);
}

json parse(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not JSON (" << e.what() << "): " << text;
    return json();
  }
}

class PlanCli : public ::testing::Test {
 protected:
  std::string out_file() const { return dir_.path() + "/plan.json"; }
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = dir_.path() + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  // A bad run: exit 2, the message on stderr, nothing on the -o path.
  void expect_refused(std::vector<std::string> args, const std::string& message) {
    args.push_back("-o");
    args.push_back(out_file());
    auto r = plan(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out_file()));
    for (const auto& e : fs::directory_iterator(dir_.path()))
      EXPECT_FALSE(e.path().filename().string().starts_with("plan.json")) << e.path();
  }
  TempDir dir_;
};

TEST_F(PlanCli, QwenOnFourRtxProFits) {
  auto r = plan({"--model", kQwen, "--gpus", kRtxPro});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("estimated, not measured"), std::string::npos);
  EXPECT_NE(r.out.find("4x RTX PRO 6000 Blackwell"), std::string::npos);
  EXPECT_NE(r.out.find("Best: "), std::string::npos);
  EXPECT_NE(r.out.find("vllm serve Qwen__Qwen3-30B-A3B "), std::string::npos);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
}

TEST_F(PlanCli, JsonOutputEqualsTheFileAndHasEveryPlanField) {
  auto r = plan({"--model", kQwen, "--gpus", kRtxPro, "--json", "-o", out_file(), "--model-id",
                 "Qwen/Qwen3-30B-A3B"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse(r.out);
  std::ifstream in(out_file());
  ASSERT_TRUE(in) << "no -o file";
  json f = json::parse(in);
  j.erase("argv");
  f.erase("argv");
  EXPECT_EQ(j, f);
  EXPECT_EQ(j["schema"], "smcompat.plan/1");
  EXPECT_EQ(j["fits_anywhere"], true);
  EXPECT_EQ(j["model_id"], "Qwen/Qwen3-30B-A3B");
  ASSERT_EQ(j["gpu_sets"].size(), 1u);
  const json& s = j["gpu_sets"][0];
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["gpu"], "RTX PRO 6000 Blackwell");
  ASSERT_FALSE(s["plans"].empty());
  EXPECT_EQ(s["best"], s["plans"][0]["plan"]);
  EXPECT_EQ(s["plans"][0]["fits"], true);
  bool seen_unfit = false;
  for (const auto& p : s["plans"]) {
    SCOPED_TRACE(p.dump());
    EXPECT_TRUE(p["plan"].is_string());
    EXPECT_TRUE(p["fits"].is_boolean());
    if (!p["fits"]) {
      seen_unfit = true;
      EXPECT_FALSE(p["why_not"].empty());
    } else {
      EXPECT_FALSE(seen_unfit) << "a fitting plan after one that does not fit";
    }
    for (const char* k : {"weights_bytes", "kv_cache_bytes", "activation_bytes", "reserve_bytes",
                          "total_bytes", "gpu_memory_bytes"})
      EXPECT_TRUE(p["per_gpu"][k].is_number_unsigned()) << k;
    EXPECT_EQ(p["per_gpu"]["total_bytes"].get<uint64_t>(),
              p["per_gpu"]["weights_bytes"].get<uint64_t>() +
                  p["per_gpu"]["kv_cache_bytes"].get<uint64_t>() +
                  p["per_gpu"]["activation_bytes"].get<uint64_t>() +
                  p["per_gpu"]["reserve_bytes"].get<uint64_t>());
    for (const char* k : {"tpot_ms", "decode_tokens_per_s", "output_tokens_per_s", "prefill_s",
                          "max_batch_that_fits"})
      EXPECT_TRUE(p["estimates"][k].is_number()) << k;
    EXPECT_EQ(p["flags"]["engine"], "vllm");
    EXPECT_EQ(p["flags"]["argv"][0], "vllm");
    EXPECT_NE(p["flags"]["shell"].get<std::string>().find("Qwen/Qwen3-30B-A3B"), std::string::npos);
  }
}

TEST_F(PlanCli, FromIsRewritten) {
  auto r = plan({"--model", kQwen, "--gpus", kRtxPro, "--json", "--from",
                 "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 8 --port 9000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse(r.out);
  const json& rw = j["gpu_sets"][0]["rewrite"];
  ASSERT_TRUE(rw.is_object()) << j.dump(1);
  EXPECT_FALSE(rw["changes"].empty());
  EXPECT_NE(rw["shell"].get<std::string>().find("--port 9000"), std::string::npos);
  auto t = plan({"--model", kQwen, "--gpus", kRtxPro, "--from",
                 "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 8 --port 9000"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("Your command, rewritten"), std::string::npos);
  EXPECT_NE(t.out.find(rw["shell"].get<std::string>()), std::string::npos);
}

TEST_F(PlanCli, DeepSeekV3FitsNowhereOnFourRtxPro) {
  auto r = plan({"--model", kDeepSeek, "--gpus", kRtxPro, "-o", out_file()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("Fits nowhere on 4x RTX PRO 6000 Blackwell"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUs of this kind"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("not written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out_file()));
  auto j = plan({"--model", kDeepSeek, "--gpus", kRtxPro, "--json"});
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_EQ(parse(j.out)["fits_anywhere"], false);
}

TEST_F(PlanCli, BadInputsExit2AndWriteNothing) {
  expect_refused({"--model", dir_.path() + "/missing.json", "--gpus", "8xH100"}, "missing.json");
  expect_refused({"--model", write("bad.json", "{\"hidden_size\": "), "--gpus", "8xH100"},
                 "bad.json");
  expect_refused({"--model", kDense, "--gpus", "8xH100"},
                 "has no expert fields (num_experts / n_routed_experts / num_local_experts)");
  expect_refused({"--model", kDense, "--gpus", "8xH100"}, "dense model");
  expect_refused({"--model", kQwen, "--gpus", "4xH7000"}, "unknown GPU 'H7000'");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--engine", "tgi"}, "--engine tgi");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--from", "vllm serve 'oops"}, "--from");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--from", "ls -l"}, "--from");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--batch", "0"}, "--batch 0");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--prompt-len", "-5"}, "--prompt-len -5");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--gen-len", "20000000"},
                 "--gen-len 20000000");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--bench", write("b.json", "nope")},
                 "--bench");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--bench", dir_.path() + "/none.json"},
                 "none.json");
  // A bench document with nothing usable: one skipped GEMM row.
  std::string empty_run = write("empty_run.json", R"({"schema": "smcompat.bench/1",
    "tool_version": "0", "argv": [], "started_utc": "", "host": "h", "devices": [],
    "method": {}, "libraries": {}, "warnings": [],
    "results": [{"suite": "gemm", "name": "bf16 8192x8192x8192", "origin": "native",
                 "devices": [0], "params": {"dtype": "bf16"}, "value": null, "unit": "TFLOPS",
                 "skip_reason": "test"}]})");
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--bench", empty_run}, "no usable figure");
  // Measured on H100 SXM: not for another GPU.
  expect_refused({"--model", kQwen, "--gpus", kRtxPro, "--bench", kBench}, "measured on H100 SXM");
  // An explicitly empty --gpus is an error, not "this machine's GPUs".
  expect_refused({"--model", kQwen, "--gpus", ""}, "--gpus");
}

// The recorded run with one thing changed, as a file in the test's directory.
std::string edited_bench(const std::string& path, const std::function<void(json&)>& edit) {
  std::ifstream in(kBench);
  json j = json::parse(in);
  edit(j);
  std::ofstream(path) << j.dump(1);
  return path;
}

TEST_F(PlanCli, BenchFiguresMustBeThoseOfTheGpuAndPlausible) {
  // No device named, or one the catalog does not know: whose figures these are is unknown.
  expect_refused(
      {"--model", kQwen, "--gpus", "4xH100", "--bench",
       edited_bench(dir_.path() + "/nodev.json", [](json& j) { j["devices"] = json::array(); })},
      "names no GPU it was measured on");
  expect_refused({"--model", kQwen, "--gpus", "4xH100", "--bench",
                  edited_bench(dir_.path() + "/unknown.json",
                               [](json& j) {
                                 for (auto& d : j["devices"]) d.erase("catalog_gpu");
                               })},
                 "GPU 0 (NVIDIA H100 80GB HBM3) is not in the catalog");
  // A copy at 1e-300 GB/s would make every step infinite; 9000 TFLOPS bf16 is 9x an H100 SXM's
  // 989.
  auto scale = [](std::string_view suite, double factor) {
    return [suite, factor](json& j) {
      for (auto& r : j["results"])
        if (r["suite"] == suite && r["value"].is_number())
          r["value"] = r["value"].get<double>() * factor;
    };
  };
  expect_refused({"--model", kQwen, "--gpus", "4xH100", "--bench",
                  edited_bench(dir_.path() + "/slow.json", scale("memory", 1e-303))},
                 "a measured memory bandwidth (GB/s) of ");
  expect_refused({"--model", kQwen, "--gpus", "4xH100", "--bench",
                  edited_bench(dir_.path() + "/fast.json", scale("gemm", 12.5))},
                 "a measured bf16 GEMM TFLOPS of 8905 is implausible for H100 SXM (specification "
                 "989); expected 1 % to 150 % of it");
}

TEST_F(PlanCli, InvalidUtf8InTheUsersWordsIsReplacedNotFatal) {
  // The --from words and the model id come back in the document: bytes that are not UTF-8 are
  // written as U+FFFD instead of aborting the JSON writer.
  auto r = plan({"--model", kQwen, "--gpus", "8xH100", "--model-id", "org/m\xff", "--from",
                 "vllm serve org/m\xfe --port 8000", "--json", "-o", out_file()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse(r.out);
  EXPECT_EQ(j["model_id"], "org/m\uFFFD") << j.dump();
  EXPECT_EQ(j, parse([&] {
              std::ifstream in(out_file());
              return std::string(std::istreambuf_iterator<char>(in), {});
            }()));
}

TEST_F(PlanCli, MeasuredPeaksFromABenchRun) {
  auto r = plan({"--model", kQwen, "--gpus", "4xH100", "--bench", kBench, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse(r.out);
  EXPECT_EQ(j["peaks"]["source"], "measured");
  EXPECT_EQ(j["peaks"]["file"], kBench);
  // The best bf16 GEMM (a bf16 checkpoint) and the best device copy of 1 GiB and more.
  EXPECT_EQ(j["peaks"]["tflops_format"], "bf16");
  EXPECT_DOUBLE_EQ(j["peaks"]["tflops"].get<double>(), 712.4);
  EXPECT_DOUBLE_EQ(j["peaks"]["memory_gbs"].get<double>(), 3050.3);
  auto c = plan({"--model", kQwen, "--gpus", "4xH100", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(parse(c.out)["peaks"]["source"], "catalog");
  EXPECT_NE(parse(c.out)["gpu_sets"][0]["plans"][0]["decode"]["memory_s"],
            j["gpu_sets"][0]["plans"][0]["decode"]["memory_s"]);
  auto t = plan({"--model", kQwen, "--gpus", "4xH100", "--bench", kBench});
  EXPECT_NE(t.out.find("peaks: measured, from " + kBench), std::string::npos) << t.out;
}

TEST_F(PlanCli, GpusFromTheProbe) {
  Env env = no_gpu_env();
  env["SMCOMPAT_FAKE_GPUS"] = "H100,H100,H100,H100";
  env["SMCOMPAT_FAKE_NVLINK"] = "6";  // 3 x 6 links per GPU: within NVML's 36
  auto r = plan({"--model", kQwen, "--json"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse(r.out);
  ASSERT_EQ(j["gpu_sets"].size(), 1u);
  const json& s = j["gpu_sets"][0];
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["gpu"], "H100 SXM");
  EXPECT_EQ(s["origin"], "probe");
  EXPECT_EQ(s["memory_bytes"], 80ull << 30);  // the fake reports the catalog's memory_gib
  EXPECT_EQ(s["link"]["kind"], "nvlink");
  EXPECT_NE(s["link"]["source"].get<std::string>().find("probe: NVLink between all 4 GPUs"),
            std::string::npos);

  env["SMCOMPAT_FAKE_NVLINK"] = "0";
  auto p2p = plan({"--model", kQwen, "--json"}, env);
  ASSERT_EQ(p2p.exit_code, 0) << p2p.err;
  EXPECT_EQ(parse(p2p.out)["gpu_sets"][0]["link"]["kind"], "pcie-p2p");

  env["SMCOMPAT_FAKE_P2P"] = "0";
  auto host = plan({"--model", kQwen, "--json"}, env);
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_EQ(parse(host.out)["gpu_sets"][0]["link"]["kind"], "pcie-host");

  // NVML's PCIe link: a link trained to Gen4 that can reach Gen5, on 8 of 16 lanes. The figure is
  // Gen5 x8 (an idle GPU trains down; the lanes are what it has), half of it without P2P.
  env["SMCOMPAT_FAKE_PCIE"] = "4x8/5x16";
  auto narrow = plan({"--model", kQwen, "--json"}, env);
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  json narrow_doc = parse(narrow.out);
  const json& ns = narrow_doc["gpu_sets"][0];
  EXPECT_EQ(ns["pcie_gen"], 5);
  EXPECT_EQ(ns["pcie_width"], 8);
  EXPECT_DOUBLE_EQ(ns["link"]["gbs_per_direction"].get<double>(), 15.75);

  // Two kinds of GPU: two sets, in order of first appearance.
  Env mixed = no_gpu_env();
  mixed["SMCOMPAT_FAKE_GPUS"] = "RTX PRO 6000,H100,RTX PRO 6000";
  auto m = plan({"--model", kQwen, "--json"}, mixed);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  json mj = parse(m.out);
  ASSERT_EQ(mj["gpu_sets"].size(), 2u);
  EXPECT_EQ(mj["gpu_sets"][0]["label"], "2x RTX PRO 6000 Blackwell");
  EXPECT_EQ(mj["gpu_sets"][1]["label"], "1x H100 SXM");
}

TEST_F(PlanCli, InstalledKernelsFromPython) {
  // A venv with vllm installed and no compiled code: read from disk, nothing run.
  fs::path site = fs::path(dir_.path()) / "venv/lib/python3.12/site-packages";
  fs::create_directories(site / "vllm-0.33.0.dist-info");
  fs::create_directories(fs::path(dir_.path()) / "venv/bin");
  std::ofstream(fs::path(dir_.path()) / "venv/bin/python") << "";
  std::ofstream(site / "vllm-0.33.0.dist-info/METADATA")
      << "Metadata-Version: 2.1\nName: vllm\nVersion: 0.33.0\n";
  std::string venv = dir_.path() + "/venv";
  auto r = plan({"--model", kQwen, "--gpus", "8xH100", "--python", venv, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = parse(r.out);
  EXPECT_EQ(j["python"], venv);
  const json& k = j["gpu_sets"][0]["kernels"];
  EXPECT_EQ(k["python"], venv);
  EXPECT_EQ(k["gpu"], "H100 SXM");
  ASSERT_EQ(k["packages"].size(), 1u);
  EXPECT_EQ(k["packages"][0]["name"], "vllm");
  EXPECT_EQ(k["packages"][0]["version"], "0.33.0");
  auto t = plan({"--model", kQwen, "--gpus", "8xH100", "--python", venv});
  EXPECT_NE(t.out.find("installed kernels (" + venv + ", judged for H100 SXM)"), std::string::npos)
      << t.out;
  expect_refused({"--model", kQwen, "--gpus", "8xH100", "--python", dir_.path() + "/nope"},
                 "/nope");
}

TEST_F(PlanCli, NoGpuAndNoGpusOption) { expect_refused({"--model", kQwen}, "pass --gpus"); }

}  // namespace
}  // namespace smcompat
