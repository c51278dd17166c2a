// The bench JSON writer (src/report/bench_json.cpp) and reader (src/bench/results.cpp), schema
// smcompat.bench/1: exact round trips of the recorded fixtures, null kept apart from 0, every
// reader error naming its JSON path, truncated and hostile input refused without a crash, and
// the `comparison` object written with --baseline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench_fixture.hpp"
#include "smcompat/report/bench_report.hpp"

namespace smcompat {
namespace {

using nlohmann::json;
using testing::bench_fixture;
using testing::bench_fixture_text;

class BenchJsonFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(BenchJsonFixture, RoundTripsExactly) {
  const std::string text = bench_fixture_text(GetParam());
  ASSERT_FALSE(text.empty());
  auto run = bench::read_bench_run(text);
  ASSERT_TRUE(run) << run.error().to_string();
  // What was read writes back as the very document that was recorded...
  const json written = bench_to_json(*run);
  EXPECT_EQ(written, json::parse(text));
  // ...and reads back as the same run again.
  auto again = bench::read_bench_run(written.dump());
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(bench_to_json(*again), written);
}

INSTANTIATE_TEST_SUITE_P(BenchFixtures, BenchJsonFixture,
                         ::testing::Values("run_synthetic.json", "baseline_synthetic.json",
                                           "hostile_synthetic.json"));

TEST(BenchJson, FixturesAreAllSynthetic) {
  for (const char* name :
       {"run_synthetic.json", "baseline_synthetic.json", "hostile_synthetic.json"}) {
    auto run = bench_fixture(name);
    ASSERT_FALSE(run.results.empty());
    for (const auto& r : run.results) EXPECT_EQ(r.origin, bench::Origin::kSynthetic) << r.name;
  }
}

TEST(BenchJson, ReadsTheFieldsItWrote) {
  auto run = bench_fixture("run_synthetic.json");
  EXPECT_EQ(run.tool_version, "0.10.0");
  EXPECT_EQ(run.driver_version, "580.95.05");
  EXPECT_EQ(run.cuda_driver_version, 13000);
  ASSERT_EQ(run.devices.size(), 2u);
  EXPECT_EQ(run.devices[1].catalog_gpu, "H100 SXM");
  EXPECT_EQ(run.devices[1].state_at_start->temperature_c, 36);
  EXPECT_EQ(run.libraries.at("cublasLt"), "13.0.0");
  const auto& first = run.results.front();
  EXPECT_EQ(first.suite, "gemm");
  EXPECT_EQ(first.name, "bf16 1024x1024x1024");
  EXPECT_EQ(first.params.at("dtype"), "bf16");
  EXPECT_EQ(first.verified, true);
  ASSERT_TRUE(first.percent_of_peak());
  EXPECT_NEAR(*first.percent_of_peak(), 0.72 * 0.45 * 100, 0.1);
  EXPECT_EQ(first.time->stop, bench::StopReason::kConverged);
}

TEST(BenchJson, NullIsNotZero) {
  auto run = bench_fixture("run_synthetic.json");
  run.results.resize(1);
  auto& r = run.results[0];
  r.value = 0.0;
  r.peak.reset();
  r.verified.reset();
  r.state->power_w.reset();
  r.state->sm_clock_mhz = 0;
  const json j = bench_to_json(run);
  EXPECT_EQ(j["results"][0]["value"], json(0.0));
  EXPECT_TRUE(j["results"][0]["peak"].is_null());
  EXPECT_TRUE(j["results"][0]["percent_of_peak"].is_null());
  EXPECT_TRUE(j["results"][0]["verified"].is_null());
  EXPECT_TRUE(j["results"][0]["state"]["power_w"].is_null());
  auto back = bench::read_bench_run(j.dump());
  ASSERT_TRUE(back);
  const auto& b = back->results[0];
  EXPECT_EQ(b.value, 0.0);
  EXPECT_FALSE(b.skipped());
  EXPECT_FALSE(b.peak.has_value());
  EXPECT_FALSE(b.verified.has_value());
  EXPECT_FALSE(b.state->power_w.has_value());
  EXPECT_EQ(b.state->sm_clock_mhz, 0);

  // And the other way: a null value is a skip, not a zero.
  json skipped = j;
  skipped["results"][0]["value"] = nullptr;
  skipped["results"][0]["time"] = nullptr;
  skipped["results"][0]["state"] = nullptr;
  back = bench::read_bench_run(skipped.dump());
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->results[0].skipped());
  EXPECT_FALSE(back->results[0].time.has_value());
  EXPECT_FALSE(back->results[0].state.has_value());
}

TEST(BenchJson, PercentOfPeakIsRecomputed) {
  json j = json::parse(bench_fixture_text("run_synthetic.json"));
  j["results"][0]["percent_of_peak"] = 99999;  // a stale convenience figure is not believed
  auto run = bench::read_bench_run(j.dump());
  ASSERT_TRUE(run);
  EXPECT_LT(*run->results[0].percent_of_peak(), 100);
  bench::BenchResult r;
  r.value = 10;
  r.peak = 0;
  EXPECT_FALSE(r.percent_of_peak());  // no division by a zero peak
}

TEST(BenchJson, UnknownFieldsAreIgnored) {
  json j = json::parse(bench_fixture_text("run_synthetic.json"));
  j["future_field"] = {{"a", 1}};
  j["results"][0]["future"] = json::array({1, 2});
  j["results"][0]["time"]["p99_s"] = 0.5;
  j["devices"][0]["pci_bus_id"] = "0000:01:00.0";
  j["comparison"] = {{"rows", json::array()}};
  auto run = bench::read_bench_run(j.dump());
  ASSERT_TRUE(run) << run.error().to_string();
  EXPECT_EQ(bench_to_json(*run), json::parse(bench_fixture_text("run_synthetic.json")));
}

TEST(BenchJson, OriginNames) {
  for (auto o : {bench::Origin::kNative, bench::Origin::kTorch, bench::Origin::kSynthetic})
    EXPECT_EQ(bench::parse_origin(bench::to_string(o)), o);
  EXPECT_STREQ(bench::to_string(bench::Origin::kTorch), "torch");
  EXPECT_FALSE(bench::parse_origin("measured"));
  EXPECT_FALSE(bench::parse_origin(""));
}

// Each mutation of a valid document and the error it must produce, word for word.
struct BadCase {
  const char* what;
  void (*mutate)(json&);
  const char* error;
};

const BadCase kBadCases[] = {
    {"top level not an object", [](json& j) { j = json::array(); },
     "(document): expected an object, found an array"},
    {"schema missing", [](json& j) { j.erase("schema"); }, "schema: missing"},
    {"schema other", [](json& j) { j["schema"] = "smcompat.bench/2"; },
     "schema: \"smcompat.bench/2\" is not smcompat.bench/1"},
    {"schema not a string", [](json& j) { j["schema"] = 1; },
     "schema: expected a string, found a number"},
    {"results missing", [](json& j) { j.erase("results"); }, "results: missing"},
    {"results null", [](json& j) { j["results"] = nullptr; },
     "results: expected an array, found null"},
    {"results an object", [](json& j) { j["results"] = json::object(); },
     "results: expected an array, found an object"},
    {"result not an object", [](json& j) { j["results"][2] = "x"; },
     "results[2]: expected an object, found a string"},
    {"median a string", [](json& j) { j["results"][3]["time"]["median_s"] = "fast"; },
     "results[3].time.median_s: expected a number, found a string"},
    {"samples negative", [](json& j) { j["results"][3]["time"]["samples"] = -1; },
     "results[3].time.samples: -1 is out of range"},
    {"samples fractional", [](json& j) { j["results"][3]["time"]["samples"] = 2.5; },
     "results[3].time.samples: expected an integer, found a number"},
    {"stop unknown", [](json& j) { j["results"][1]["time"]["stop"] = "bored"; },
     "results[1].time.stop: unknown stop reason \"bored\""},
    {"time an array", [](json& j) { j["results"][1]["time"] = json::array(); },
     "results[1].time: expected an object or null, found an array"},
    {"suite missing", [](json& j) { j["results"][0].erase("suite"); }, "results[0].suite: missing"},
    {"name null", [](json& j) { j["results"][0]["name"] = nullptr; },
     "results[0].name: expected a string, found null"},
    {"origin unknown", [](json& j) { j["results"][0]["origin"] = "meas\x1b[31m"; },
     "results[0].origin: unknown origin \"meas\\x1b[31m\""},
    {"value a string", [](json& j) { j["results"][0]["value"] = "233"; },
     "results[0].value: expected a number or null, found a string"},
    {"peak a bool", [](json& j) { j["results"][0]["peak"] = true; },
     "results[0].peak: expected a number or null, found a boolean"},
    {"unit a number", [](json& j) { j["results"][0]["unit"] = 1; },
     "results[0].unit: expected a string, found a number"},
    {"verified a string", [](json& j) { j["results"][0]["verified"] = "yes"; },
     "results[0].verified: expected true, false or null, found a string"},
    {"devices element",
     [](json& j) {
       j["results"][0]["devices"] = json::array({0, "1"});
     },
     "results[0].devices[1]: expected an integer, found a string"},
    {"params value", [](json& j) { j["results"][0]["params"]["m"] = 1024; },
     "results[0].params.m: expected a string, found a number"},
    {"extra value", [](json& j) { j["results"][0]["extra"]["load_ms"] = "1"; },
     "results[0].extra.load_ms: expected a number, found a string"},
    {"notes element",
     [](json& j) {
       j["results"][0]["notes"] = json::array({"a", nullptr});
     },
     "results[0].notes[1]: expected a string, found null"},
    {"throttle reason",
     [](json& j) {
       j["results"][0]["state"]["throttle_reasons"] = {"a", 7};
     },
     "results[0].state.throttle_reasons[1]: expected a string, found a number"},
    {"state clock", [](json& j) { j["results"][0]["state"]["sm_clock_mhz"] = 1e12; },
     "results[0].state.sm_clock_mhz: expected an integer, found a number"},
    {"device ordinal", [](json& j) { j["devices"][1]["ordinal"] = 4294967296; },
     "devices[1].ordinal: 4294967296 is out of range"},
    {"device state", [](json& j) { j["devices"][0]["state_at_start"]["power_w"] = "72"; },
     "devices[0].state_at_start.power_w: expected a number or null, found a string"},
    {"device not object", [](json& j) { j["devices"][0] = 0; },
     "devices[0]: expected an object, found a number"},
    {"catalog gpu", [](json& j) { j["devices"][0]["catalog_gpu"] = 3; },
     "devices[0].catalog_gpu: expected a string or null, found a number"},
    {"driver", [](json& j) { j["driver_version"] = 580; },
     "driver_version: expected a string or null, found a number"},
    {"cuda driver", [](json& j) { j["cuda_driver_version"] = "13000"; },
     "cuda_driver_version: expected an integer, found a string"},
    {"method flag", [](json& j) { j["method"]["quick"] = 1; },
     "method.quick: expected true or false, found a number"},
    {"method number", [](json& j) { j["method"]["timeout_s"] = "15"; },
     "method.timeout_s: expected a number, found a string"},
    {"library", [](json& j) { j["libraries"]["torch"] = 2; },
     "libraries.torch: expected a string, found a number"},
    {"argv", [](json& j) { j["argv"] = "smcompat bench"; },
     "argv: expected an array, found a string"},
    {"warnings", [](json& j) { j["warnings"] = json::array({1}); },
     "warnings[0]: expected a string, found a number"},
};

TEST(BenchJson, EveryErrorNamesItsPath) {
  const json good = json::parse(bench_fixture_text("run_synthetic.json"));
  for (const auto& c : kBadCases) {
    json j = good;
    c.mutate(j);
    auto run = bench::read_bench_run(j.dump());
    ASSERT_FALSE(run) << c.what;
    EXPECT_EQ(run.error().what, c.error) << c.what;
  }
}

TEST(BenchJson, TruncatedInputIsAlwaysAnError) {
  for (const char* name : {"hostile_synthetic.json", "run_synthetic.json"}) {
    const std::string text = bench_fixture_text(name);
    // Every prefix of the small fixture; about 100 evenly spread ones of the large fixture plus
    // its last 16 (nearly whole documents), which keeps the test quick under the sanitizers.
    std::vector<size_t> cuts;
    const size_t step = text.size() < 8000 ? 1 : text.size() / 100 + 1;
    for (size_t n = 0; n < text.size(); n += step) cuts.push_back(n);
    for (size_t n = text.size() > 16 ? text.size() - 16 : 0; n < text.size(); ++n)
      cuts.push_back(n);
    for (size_t n : cuts) {
      auto run = bench::read_bench_run(std::string_view(text).substr(0, n));
      ASSERT_FALSE(run) << name << " cut at " << n;
      EXPECT_TRUE(run.error().what.starts_with("not a JSON document: ")) << run.error().what;
      ASSERT_TRUE(run.error().offset) << name << " cut at " << n;  // where it stopped
      EXPECT_LE(*run.error().offset, n);
    }
  }
}

TEST(BenchJson, HostileInputIsRefusedWithoutACrash) {
  const std::string deep(200000, '[');
  EXPECT_FALSE(bench::read_bench_run(deep));
  std::string nested = std::string(100000, '[') + std::string(100000, ']');
  auto run = bench::read_bench_run(nested);  // valid JSON, nested deep: freed without recursion
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().what, "(document): expected an object, found an array");
  EXPECT_FALSE(bench::read_bench_run(std::string("{\"schema\":\"\xff\"}")));  // bad UTF-8
  EXPECT_FALSE(bench::read_bench_run(std::string("\0{}", 3)));
  EXPECT_FALSE(bench::read_bench_run(""));
  auto empty_results = bench::read_bench_run(R"({"schema":"smcompat.bench/1","results":[]})");
  ASSERT_TRUE(empty_results);  // the minimal document: everything else absent reads as unknown
  EXPECT_TRUE(empty_results->results.empty());
  EXPECT_FALSE(empty_results->driver_version);
}

TEST(BenchJson, ComparisonObject) {
  auto base = bench_fixture("baseline_synthetic.json");
  auto cur = bench_fixture("run_synthetic.json");
  auto cmp = compare_bench_runs(base, cur);
  const json j = bench_to_json(cur, &cmp);
  ASSERT_TRUE(j.contains("comparison"));
  EXPECT_EQ(j["comparison"]["baseline"],
            json::parse(R"({"started_utc":"2026-11-01T04:00:00Z","host":"synthetic-host",
                            "tool_version":"0.9.0"})"));
  const json& rows = j["comparison"]["rows"];
  ASSERT_EQ(rows.size(), cur.results.size() + 1);
  json changed;
  for (const auto& r : rows)
    if (r["name"] == "bf16 8192x8192x8192" && r["suite"] == "gemm") changed = r;
  ASSERT_FALSE(changed.is_null());
  EXPECT_EQ(changed["status"], "compared");
  EXPECT_EQ(changed["beyond_noise"], true);
  EXPECT_NEAR(changed["change_percent"].get<double>(), 11.1, 0.1);
  EXPECT_EQ(rows.back()["status"], "missing");
  EXPECT_EQ(rows.back()["name"], "fp64 8192x8192x8192");
  EXPECT_TRUE(rows.back()["value"].is_null());
  // The comparison is not part of the run: reading the document back ignores it.
  auto back = bench::read_bench_run(j.dump());
  ASSERT_TRUE(back);
  EXPECT_EQ(bench_to_json(*back), bench_to_json(cur));
}

}  // namespace
}  // namespace smcompat
