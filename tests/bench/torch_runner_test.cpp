// The torch runner without torch: fake interpreters (small shell scripts written per test) stand
// in for python to drive every error path (missing interpreter, no torch, no CUDA, timeout, a
// crash, garbage on stdout) and the peak rule on a recorded document; plain python3 (with -S, so
// no site-packages and no torch) checks the real script's own "cannot import torch" exit. The
// real torch venv runs in tests/bench/torch/ (label corpus).
#include "smcompat/bench/torch_runner.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "smcompat/bench/peaks.hpp"

namespace fs = std::filesystem;
using smcompat::Catalog;
using namespace smcompat::bench;

namespace {

class TorchRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("smcompat-torch-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  /// Writes an executable shell script standing in for python; returns its path.
  std::string fake(const std::string& name, const std::string& body) {
    fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  TorchOptions options(const std::string& python) {
    TorchOptions o;
    o.python = python;
    o.device = "cpu";
    o.stop = StopRule::quick();
    o.timeout_s = 20;
    o.on_stderr = [this](std::string_view s) { stderr_.append(s); };
    return o;
  }
  /// Runs the script with `o`, which must fail as `expected` with an error that mentions each of
  /// `mentions`. The error, for more checks, or nothing when the run did not fail (the test's
  /// ASSERT_TRUE on it then stops it, as an ASSERT_FALSE on the result did).
  std::optional<smcompat::Error> failure(const TorchOptions& o, TorchFailure expected,
                                         std::initializer_list<std::string> mentions) {
    TorchFailure why{};
    auto r = run_torch_script(o, &why);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return std::nullopt;
    EXPECT_EQ(why, expected) << r.error().what;
    for (const std::string& m : mentions)
      EXPECT_NE(r.error().what.find(m), std::string::npos) << r.error().what;
    return r.error();
  }
  fs::path dir_;
  std::string stderr_;
};

bool have_python3() { return std::system("python3 -c pass >/dev/null 2>&1") == 0; }

// A recorded H100 document as the script writes it (two GEMM rows, one layer row).
constexpr const char* kH100Doc = R"({"schema": "smcompat.bench/1", "tool_version": "torch-script",
 "argv": ["torch_bench.py"], "started_utc": "2026-11-25T04:00:00Z", "host": "h",
 "driver_version": "580.95.05", "cuda_driver_version": 13000,
 "devices": [{"ordinal": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1", "cc": "9.0",
              "catalog_gpu": null, "state_at_start": null}],
 "method": {"min_samples": 10, "min_time_s": 0.5, "max_rel_stddev": 0.005, "timeout_s": 15,
            "max_samples": 100000, "blocking_kernel": true, "l2_flush": true, "quick": false},
 "libraries": {"torch": "2.15.0+cu132", "python": "3.11.7"},
 "results": [
  {"suite": "torch.gemm", "name": "bf16 8192x8192x8192", "origin": "torch", "devices": [0],
   "params": {"dtype": "bf16", "m": "8192", "n": "8192", "k": "8192"}, "value": 780.0,
   "unit": "TFLOPS", "time": {"samples": 10, "throttled": 0, "mean_s": 0.0014, "median_s": 0.0014,
   "min_s": 0.0014, "max_s": 0.0014, "stddev_s": 0.0, "rel_stddev": 0.0, "total_s": 0.014,
   "stop": "converged"}, "peak": null, "peak_source": "", "percent_of_peak": null,
   "skip_reason": "", "verified": true, "state": null, "extra": {}, "notes": []},
  {"suite": "torch.gemm_batched", "name": "tf32 32x1024x1024x1024", "origin": "torch",
   "devices": [0], "params": {"dtype": "tf32", "batch": "32"}, "value": null, "unit": "TFLOPS",
   "time": null, "peak": null, "peak_source": "", "percent_of_peak": null,
   "skip_reason": "OutOfMemoryError: CUDA out of memory", "verified": null, "state": null,
   "extra": {}, "notes": []},
  {"suite": "torch.softmax", "name": "[8,32,2048,2048]", "origin": "torch", "devices": [0],
   "params": {"dtype": "fp16"}, "value": 1.5, "unit": "ms", "time": null, "peak": null,
   "peak_source": "", "percent_of_peak": null, "skip_reason": "", "verified": null,
   "state": null, "extra": {}, "notes": []}],
 "warnings": []})";

}  // namespace

TEST(TorchScript, EmbeddedScriptIsTheDataFile) {
  std::ifstream in(fs::path(SMCOMPAT_SOURCE_DIR) / "data/bench/torch_bench.py");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(torch_bench_script(), ss.str());
  EXPECT_NE(torch_bench_script().find("smcompat.bench/1"), std::string_view::npos);
}

TEST(TorchScript, ListMatchesTheRowKinds) {
  if (!have_python3()) GTEST_SKIP() << "python3 not on PATH";
  std::string cmd = "python3 '" SMCOMPAT_SOURCE_DIR "/data/bench/torch_bench.py' --list";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::vector<std::string> kinds;
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    std::string s(line);
    kinds.push_back(s.substr(0, s.find('\t')));
  }
  EXPECT_EQ(::pclose(p), 0);
  EXPECT_EQ(kinds, torch_row_kinds());
}

TEST(TorchScript, SamplerMatchesTheNativeOne) {
  if (!have_python3()) GTEST_SKIP() << "python3 not on PATH";
  // The script's statistics (importable without torch) on the same samples and rule as
  // bench/stats.hpp: the same summary and the same stopping point.
  const std::vector<double> samples = {1.00, 1.02, 0.99, 1.50, 1.01, 1.00, 1.00, 1.01, 0.995, 1.0};
  const std::vector<bool> throttled = {false, false, false, true,  false,
                                       false, false, false, false, false};
  StopRule rule;
  rule.min_samples = 4;
  rule.min_time_s = 0.001;
  rule.max_rel_stddev = 0.01;
  rule.timeout_s = 100;
  Sampler native(rule);
  std::size_t stopped_at = 0;
  for (std::size_t i = 0; i < samples.size() && !stopped_at; ++i) {
    native.add(samples[i], throttled[i]);
    if (native.done(0)) stopped_at = i + 1;
  }
  ASSERT_GT(stopped_at, 0u);
  std::string cmd =
      "python3 -c \"import importlib.util, json, types\n"
      "spec = importlib.util.spec_from_file_location('tb', '" SMCOMPAT_SOURCE_DIR
      "/data/bench/torch_bench.py')\n"
      "tb = importlib.util.module_from_spec(spec); spec.loader.exec_module(tb)\n"
      "a = types.SimpleNamespace(min_samples=4, min_time=0.001, max_rel_stddev=0.01, timeout=100, "
      "max_samples=100000)\n"
      "s = tb.Sampler(tb.StopRule(a)); n = 0\n"
      "for i, (x, t) in enumerate(zip([1.00, 1.02, 0.99, 1.50, 1.01, 1.00, 1.00, 1.01, 0.995, "
      "1.0], "
      "[0, 0, 0, 1, 0, 0, 0, 0, 0, 0])):\n"
      "    s.add(x, bool(t))\n"
      "    if s.done(0): n = i + 1; break\n"
      "print(json.dumps(dict(s.summary(), stopped_at=n)))\"";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(::pclose(p), 0) << out;
  auto py = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(py.is_discarded()) << out;
  const SampleSummary s = native.summary();
  EXPECT_EQ(py["stopped_at"].get<std::size_t>(), stopped_at);
  EXPECT_EQ(py["samples"].get<std::size_t>(), s.samples);
  EXPECT_EQ(py["throttled"].get<std::size_t>(), s.throttled);
  EXPECT_EQ(py["stop"].get<std::string>(), to_string(s.stop));
  const std::pair<const char*, double> fields[] = {
      {"mean_s", s.mean_s},  {"median_s", s.median_s}, {"min_s", s.min_s},
      {"max_s", s.max_s},    {"stddev_s", s.stddev_s}, {"rel_stddev", s.rel_stddev},
      {"total_s", s.total_s}};
  for (const auto& [key, value] : fields) EXPECT_NEAR(py[key].get<double>(), value, 1e-12) << key;
}

TEST(TorchScript, ArgsCarryTheStopRule) {
  TorchOptions o;
  o.stop.min_samples = 7;
  o.stop.min_time_s = 0.25;
  o.stop.max_rel_stddev = 0.01;
  o.stop.timeout_s = 3;
  o.quick = true;
  o.rows = {"gemm", "sdpa"};
  o.tool_version = "1.2.3";
  std::vector<std::string> a = torch_script_args(o);
  auto after = [&](const std::string& flag) {
    for (std::size_t i = 0; i + 1 < a.size(); ++i) {
      if (a[i] == flag) return a[i + 1];
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(after("--device"), "cuda");
  EXPECT_EQ(after("--min-samples"), "7");
  EXPECT_EQ(after("--min-time"), "0.25");
  EXPECT_EQ(after("--max-rel-stddev"), "0.01");
  EXPECT_EQ(after("--timeout"), "3");
  EXPECT_EQ(after("--rows"), "gemm,sdpa");
  EXPECT_EQ(after("--tool-version"), "1.2.3");
  EXPECT_NE(std::find(a.begin(), a.end(), "--quick"), a.end());
}

TEST_F(TorchRunner, MissingInterpreterPath) {
  ASSERT_TRUE(failure(options((dir_ / "no-such-python").string()), TorchFailure::kNoInterpreter,
                      {"no-such-python", "--python"}));
}

TEST_F(TorchRunner, MissingInterpreterOnPath) {
  ASSERT_TRUE(
      failure(options("smcompat-no-such-python3"), TorchFailure::kNoInterpreter, {"not on PATH"}));
}

TEST_F(TorchRunner, PythonWithoutTorchSaysWhichAndTheFix) {
  if (!have_python3()) GTEST_SKIP() << "python3 not on PATH";
  // -S: no site-packages, so no torch whatever this machine has installed.
  std::string py = fake("python-without-torch", "exec python3 -S \"$@\"");
  ASSERT_TRUE(failure(options(py), TorchFailure::kNoTorch,
                      {py, "pip install torch", "No module named 'torch'"}));
}

TEST_F(TorchRunner, NoCudaIsItsOwnFailure) {
  std::string py = fake("python-no-cuda",
                        "cat >/dev/null; echo 'torch_bench: no CUDA device visible to torch' >&2;"
                        " exit 2");
  ASSERT_TRUE(failure(options(py), TorchFailure::kNoCuda, {"no CUDA device"}));
}

TEST_F(TorchRunner, TimeoutKillsTheChildAndItsGroup) {
  fs::path pidfile = dir_ / "pids";
  std::string py =
      fake("python-hangs", "echo $$ > '" + pidfile.string() + "'; sleep 60 & echo $! >> '" +
                               pidfile.string() + "'; echo started >&2; wait");
  TorchOptions o = options(py);
  o.timeout_s = 0.5;
  auto t0 = std::chrono::steady_clock::now();
  auto error = failure(o, TorchFailure::kTimeout, {"0.5 s"});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(error);
  EXPECT_LT(took, 5.0);
  std::ifstream in(pidfile);
  pid_t shell = 0, sleeper = 0;
  in >> shell >> sleeper;
  ASSERT_GT(shell, 0);
  ASSERT_GT(sleeper, 0);
  // The shell was reaped by the runner; its background sleep (same process group) was killed
  // (gone, or a zombie left to whatever reaps orphans here).
  EXPECT_NE(::kill(shell, 0), 0);
  bool sleeper_dead = false;
  for (int i = 0; i < 200 && !sleeper_dead; ++i) {
    std::ifstream stat("/proc/" + std::to_string(sleeper) + "/stat");
    std::string pid, comm, state;
    sleeper_dead = !(stat >> pid >> comm >> state) || state == "Z" || state == "X";
    if (!sleeper_dead) ::usleep(10000);
  }
  EXPECT_TRUE(sleeper_dead) << "pid " << sleeper << " still running";
}

TEST_F(TorchRunner, GarbageOnStdoutIsAnError) {
  std::string py = fake("python-garbage", "cat >/dev/null; echo '{\"schema\": oops'");
  auto error = failure(options(py), TorchFailure::kBadOutput, {"not a smcompat.bench/1 document"});
  ASSERT_TRUE(error);
  // {"schema": oops — the parser stops at the 'o' (offset 11).
  EXPECT_EQ(error->offset, std::optional<uint64_t>(11)) << error->to_string();
  EXPECT_EQ(error->file, "<torch script stdout>");
}

TEST_F(TorchRunner, NothingOnStdoutIsAnError) {
  std::string py = fake("python-silent", "cat >/dev/null; exit 0");
  ASSERT_TRUE(failure(options(py), TorchFailure::kBadOutput, {"printed nothing"}));
}

TEST_F(TorchRunner, CrashKeepsTheLastWordsAndDoesNotKillUs) {
  // Exits at once without reading the script from stdin: the runner must survive the EPIPE.
  std::string py = fake("python-crash", "echo 'Traceback: boom' >&2; exit 5");
  ASSERT_TRUE(failure(options(py), TorchFailure::kScriptFailed, {"exit status 5", "boom"}));
  EXPECT_NE(stderr_.find("boom"), std::string::npos);
}

TEST_F(TorchRunner, RecordedDocumentGetsCatalogPeaks) {
  fs::path doc = dir_ / "doc.json";
  std::ofstream(doc) << kH100Doc;
  // Reads the whole script, checks the arguments it was given, prints the recorded document.
  std::string py = fake("python-recorded",
                        "[ \"$1\" = - ] || exit 9; shift; echo \"args: $*\" >&2; "
                        "wc -c >&2; cat '" +
                            doc.string() + "'");
  TorchOptions o = options(py);
  o.device = "cuda";
  o.argv = {"smcompat", "bench", "--torch"};
  o.tool_version = "9.9.9";
  auto r = run_torch_script(o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_NE(stderr_.find("--device cuda"), std::string::npos) << stderr_;
  EXPECT_NE(stderr_.find(std::to_string(torch_bench_script().size())), std::string::npos)
      << "the whole script reached stdin: " << stderr_;
  EXPECT_EQ(r->argv, o.argv);
  EXPECT_EQ(r->tool_version, "9.9.9");
  ASSERT_EQ(r->devices.size(), 1u);
  ASSERT_TRUE(r->devices[0].catalog_gpu.has_value());
  EXPECT_EQ(*r->devices[0].catalog_gpu, "H100 SXM");
  ASSERT_EQ(r->results.size(), 3u);
  const BenchResult& bf16 = r->results[0];
  ASSERT_TRUE(bf16.peak.has_value());
  EXPECT_DOUBLE_EQ(*bf16.peak, 989);
  EXPECT_NE(bf16.peak_source.find("H100 SXM fp16_bf16"), std::string::npos) << bf16.peak_source;
  EXPECT_NEAR(*bf16.percent_of_peak(), 78.87, 0.01);
  // The same rule as the native suites: peak_tflops() for the row's precision.
  auto native = peak_tflops(*Catalog::builtin().find_gpu("H100 SXM"), Precision::kTf32);
  ASSERT_TRUE(native.has_value());
  ASSERT_TRUE(r->results[1].peak.has_value());
  EXPECT_EQ(*r->results[1].peak, native->value);
  EXPECT_TRUE(r->results[1].skipped());
  EXPECT_FALSE(r->results[2].peak.has_value()) << "layer rows have no catalog peak";
}

TEST(TorchPeaks, CpuAndUnknownDevicesGetNone) {
  BenchRun run;
  run.devices.push_back({0, "cpu (x86_64)", "", "", std::nullopt, std::nullopt});
  BenchResult r;
  r.suite = "torch.gemm";
  r.origin = Origin::kTorch;
  r.devices = {0};
  r.params["dtype"] = "fp16";
  r.value = 1;
  run.results.push_back(r);
  fill_torch_peaks(run, Catalog::builtin());
  EXPECT_FALSE(run.devices[0].catalog_gpu.has_value());
  EXPECT_FALSE(run.results[0].peak.has_value());
  run.devices[0] = {0, "NVIDIA Imaginary 9000", "GPU-x", "9.0", std::nullopt, std::nullopt};
  fill_torch_peaks(run, Catalog::builtin());
  EXPECT_FALSE(run.results[0].peak.has_value());
}
