// Runs bench code against the fake driver in a forked child: the fake reads its configuration
// (SMCOMPAT_FAKE_*) once per process, so each configuration needs a process of its own. The child
// sets the environment, runs `body`, and sends back the text it returns; the parent never loads
// the fake. The BenchRun of run_native_suites() travels as JSON (to_json/from_json below, only the
// fields the tests read).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/bench/results.hpp"
#include "smcompat/bench/suites.hpp"

namespace smcompat::test {

inline const std::string kFakeCuda = std::string(SMCOMPAT_FAKEDRIVER_DIR) + "/libcuda.so.1";
inline const std::string kFakeNvml = std::string(SMCOMPAT_FAKEDRIVER_DIR) + "/libnvidia-ml.so.1";

/// Runs `body` in a child whose environment has `env` and no other SMCOMPAT_FAKE_* or CUDA_*
/// variable; returns its text, or "child failed: ..." if it crashed.
inline std::string in_child(const std::map<std::string, std::string>& env,
                            const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return "child failed: pipe";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    // Only the test's configuration: nothing the fake or a driver reads comes from outside.
    std::vector<std::string> inherited;
    for (char** e = environ; e && *e; ++e) {
      std::string entry = *e;
      if (entry.rfind("SMCOMPAT_FAKE_", 0) == 0 || entry.rfind("CUDA_", 0) == 0)
        inherited.push_back(entry.substr(0, entry.find('=')));
    }
    for (const auto& name : inherited) unsetenv(name.c_str());
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::string text = body();
    std::size_t off = 0;
    while (off < text.size()) {
      ssize_t n = write(fds[1], text.data() + off, text.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "child failed: status " + std::to_string(status);
  return text;
}

inline nlohmann::json state_json(const std::optional<bench::DeviceState>& s) {
  if (!s) return nullptr;
  nlohmann::json j;
  j["sm_clock_mhz"] = s->sm_clock_mhz.value_or(-1);
  j["memory_clock_mhz"] = s->memory_clock_mhz.value_or(-1);
  j["temperature_c"] = s->temperature_c.value_or(-1);
  j["power_w"] = s->power_w.value_or(-1);
  j["throttle_reasons"] = s->throttle_reasons;
  return j;
}

/// The fields of a run (or its error) the tests check.
inline std::string run_json(const Result<bench::BenchRun>& run) {
  nlohmann::json j;
  if (!run) {
    j["error"] = run.error().what;
    return j.dump();
  }
  j["warnings"] = run->warnings;
  j["blocking_kernel"] = run->method.blocking_kernel;
  j["cuda_driver_version"] = run->cuda_driver_version.value_or(-1);
  j["driver_version"] = run->driver_version.value_or("");
  for (const auto& d : run->devices)
    j["devices"].push_back({{"ordinal", d.ordinal},
                            {"name", d.name},
                            {"cc", d.cc},
                            {"catalog_gpu", d.catalog_gpu.value_or("")},
                            {"state", state_json(d.state_at_start)}});
  j["results"] = nlohmann::json::array();
  for (const auto& r : run->results) {
    nlohmann::json x;
    x["suite"] = r.suite;
    x["name"] = r.name;
    x["origin"] = bench::to_string(r.origin);
    x["devices"] = r.devices;
    x["params"] = r.params;
    x["value"] = r.value ? nlohmann::json(*r.value) : nlohmann::json(nullptr);
    x["unit"] = r.unit;
    x["peak"] = r.peak ? nlohmann::json(*r.peak) : nlohmann::json(nullptr);
    // value / peak x 100 (BenchResult::percent_of_peak() lives with the report code).
    x["percent"] = r.value && r.peak && *r.peak > 0 ? nlohmann::json(*r.value / *r.peak * 100)
                                                    : nlohmann::json(nullptr);
    x["peak_source"] = r.peak_source;
    x["skip_reason"] = r.skip_reason;
    x["notes"] = r.notes;
    if (r.time) {
      x["samples"] = r.time->samples;
      x["throttled"] = r.time->throttled;
      x["stop"] = bench::to_string(r.time->stop);
      x["median_s"] = r.time->median_s;
      x["rel_stddev"] = r.time->rel_stddev;
    }
    x["state"] = state_json(r.state);
    j["results"].push_back(x);
  }
  return j.dump();
}

/// run_native_suites(options) against the fake GPUs of `env` (SMCOMPAT_FAKE_GPUS...), in a child.
inline nlohmann::json fake_run(const std::map<std::string, std::string>& env,
                               bench::NativeOptions options) {
  if (options.libcuda == "libcuda.so.1") options.libcuda = kFakeCuda;
  if (options.libnvml == "libnvidia-ml.so.1") options.libnvml = kFakeNvml;
  std::string text = in_child(env, [&] { return run_json(bench::run_native_suites(options)); });
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return nlohmann::json{{"error", "unparsable child output: " + text}};
  return j;
}

/// The result named `name` (null if absent).
inline nlohmann::json find_result(const nlohmann::json& run, const std::string& name) {
  if (run.contains("results"))
    for (const auto& r : run["results"])
      if (r["name"] == name) return r;
  return nullptr;
}

}  // namespace smcompat::test
