// The bench HTML printer (src/report/bench_html.cpp) without a browser: one self-contained page
// (no network), the chart configurations it hands to Chart.js (series, colours, animation off),
// the P2P heat map, the page without plots (turned off, or a build without Chart.js), and every
// string from the results HTML-escaped. tests/report/browser/ looks at the rendered page.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "bench_fixture.hpp"
#include "smcompat/report/bench_report.hpp"

namespace smcompat {
namespace {

using nlohmann::json;
using testing::bench_fixture;
using testing::expect_substrings;
using ::testing::HasSubstr;
using ::testing::Not;

// The chart configurations the page carries (empty when it has none).
json charts_of(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"smcompat-charts\">";
  auto start = html.find(open);
  if (start == std::string::npos) return json::array();
  start += open.size();
  return json::parse(html.substr(start, html.find("</script>", start) - start));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

class BenchHtml : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!bench_html_plots_available())
      GTEST_SKIP() << "this build has no Chart.js (apt-get install libjs-chart.js); the page "
                      "without plots is tested by BenchHtmlNoPlots";
  }
  bench::BenchRun run = bench_fixture("run_synthetic.json");
};

TEST_F(BenchHtml, SelfContainedPageWithChartJsInlined) {
  const std::string html = render_bench_html(run);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_THAT(html, HasSubstr("Chart.js v3"));  // the library itself, inlined
  EXPECT_EQ(count(html, "<script"), 3u);        // Chart.js, the chart data, the call
  EXPECT_EQ(count(html, "</script>"), 3u);
  // Nothing is fetched: no external scripts, styles, images or frames.
  for (const char* tag : {"<script src", "<link", "<img", "<iframe", "@import", "url("})
    EXPECT_THAT(html, Not(HasSubstr(tag))) << tag;
  EXPECT_THAT(html, HasSubstr("<p class=\"banner\">SYNTHETIC: 43 of 43 rows are made-up figures "
                              "(tests, examples), not measurements</p>"));
  EXPECT_THAT(html, HasSubstr("<tr><td>driver</td><td>580.95.05 (CUDA 13.0)</td></tr>"));
  EXPECT_EQ(count(html, "<canvas id=\"chart"), charts_of(html).size());
}

TEST_F(BenchHtml, ChartConfigurations) {
  const json charts = charts_of(render_bench_html(run));
  ASSERT_EQ(charts.size(), 8u);
  std::vector<std::string> titles;
  for (const auto& c : charts) {
    titles.push_back(c["options"]["plugins"]["title"]["text"]);
    EXPECT_EQ(c["options"]["animation"], false);  // final plots in a screenshot
  }
  EXPECT_EQ(titles,
            (std::vector<std::string>{
                "GEMM: TFLOPS vs size, per type", "Memory: GB/s vs size",
                "JIT vs native: steady state (GB/s)", "JIT vs native: steady state (TFLOPS)",
                "JIT vs native: first load (ms, log scale)", "native and torch (TFLOPS)",
                "torch rows (img/s)", "torch rows (ms)"}));
  // GEMM: one line per type, points sorted by size, skipped rows absent.
  const json& gemm = charts[0];
  EXPECT_EQ(gemm["type"], "line");
  EXPECT_EQ(gemm["options"]["scales"]["x"]["type"], "logarithmic");
  std::vector<std::string> types;
  for (const auto& d : gemm["data"]["datasets"]) types.push_back(d["label"]);
  EXPECT_EQ(types, (std::vector<std::string>{"bf16", "fp16", "tf32", "fp32", "fp8_e4m3", "fp64"}));
  EXPECT_EQ(gemm["data"]["datasets"][0]["data"],
            json::parse(R"([{"x":1024.0,"y":320.6},{"x":2048.0,"y":498.7},{"x":4096.0,"y":641.1},
                            {"x":8192.0,"y":712.4}])"));
  // Batched or non-square GEMMs are tables only.
  auto odd = run;
  odd.results[0].params["batch"] = "32";
  odd.results[1].params["k"] = "64";
  EXPECT_EQ(charts_of(render_bench_html(odd))[0]["data"]["datasets"][0]["data"],
            json::parse(R"([{"x":4096.0,"y":641.1},{"x":8192.0,"y":712.4}])"));
  // Memory: bandwidth against bytes, one line per engine and operation.
  std::vector<std::string> engines;
  for (const auto& d : charts[1]["data"]["datasets"]) engines.push_back(d["label"]);
  EXPECT_EQ(engines, (std::vector<std::string>{"sm copy", "ce d2d", "ce h2d pinned"}));
  // JIT: bars per kernel, one dataset per image; load times on a log scale.
  EXPECT_EQ(charts[3]["data"]["labels"], json::array({"mma"}));
  EXPECT_EQ(charts[4]["options"]["scales"]["y"]["type"], "logarithmic");
  EXPECT_EQ(charts[4]["data"]["datasets"][1]["label"], "compute_80 PTX (JIT)");
  EXPECT_EQ(charts[4]["data"]["datasets"][1]["data"], json::parse("[412.5, 120.4]"));
  EXPECT_EQ(charts[4]["data"]["datasets"][2]["data"], json::parse("[388.0, null]"));
  // torch beside native.
  EXPECT_EQ(charts[5]["data"]["labels"],
            json::parse(R"(["gemm bf16 8192x8192x8192", "gemm fp16 8192x8192x8192"])"));
  EXPECT_EQ(charts[5]["data"]["datasets"][1]["data"], json::parse("[705.3, 717.0]"));
  // torch rows not beside a native one, each unit its own chart.
  EXPECT_EQ(charts[6]["data"]["labels"], json::array({"torch.resnet50 fp16 batch 256"}));
  EXPECT_EQ(charts[7]["data"]["labels"], json::array({"torch.sdpa bf16 b8 h16 s4096 d128"}));
  EXPECT_EQ(charts[7]["data"]["datasets"][0]["data"], json::array({4.21}));
  EXPECT_EQ(charts[7]["data"]["datasets"][0]["backgroundColor"],
            charts[5]["data"]["datasets"][1]["backgroundColor"]);  // torch's colour throughout
  // Every series has its own colour, and keeps it from chart to chart (JIT images).
  std::set<std::string> colours;
  size_t series = 0;
  for (size_t i : {0, 1, 2, 3, 5})
    for (const auto& d : charts[i]["data"]["datasets"]) {
      colours.insert(d["backgroundColor"].get<std::string>());
      ++series;
    }
  EXPECT_EQ(colours.size(), series - 2);  // the GB/s and TFLOPS JIT charts share two images
  EXPECT_EQ(charts[3]["data"]["datasets"][0]["backgroundColor"],
            charts[4]["data"]["datasets"][0]["backgroundColor"]);
}

TEST(BenchHtmlEscaping, HostileStringsAreEscaped) {
  auto hostile = bench_fixture("hostile_synthetic.json");
  hostile.results[0].params["dtype"] = "</script><script>alert(4)</script>";
  const std::string html = render_bench_html(hostile);
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, Not(HasSubstr("\x1b")));
  expect_substrings(html, {"<td>bf16 &lt;img src=x onerror=alert(1)&gt; | pipe &amp; "
                           "&quot;quote&quot; &lt;/script&gt;",
                           "<title>smcompat bench: &lt;script&gt;alert(&#39;host&#39;)&lt;/"
                           "script&gt; 2026-11-25T04:00:00Z</title>",
                           "<li>fp8 &lt;/script&gt;&lt;b&gt;skip&lt;/b&gt;: reason "
                           "&lt;i&gt;&amp;amp;&lt;/i&gt; | `x`\nsecond line</li>",
                           "\\x1b[31mred\\x1b[0m note &lt;/script&gt;",
                           "<li>GPU 0: GPU &amp; &lt;b&gt;Co&lt;/b&gt;, cc 9.0",
                           "<li>warn &lt;script&gt;alert(3)&lt;/script&gt;</li>"});
  if (!bench_html_plots_available()) {
    EXPECT_THAT(html, Not(HasSubstr("<script")));
    return;
  }
  // The only script elements are the page's own three; the hostile series name survives,
  // escaped for the script element, as data.
  EXPECT_EQ(count(html, "<script"), 3u);
  EXPECT_EQ(count(html, "</script>"), 3u);
  EXPECT_THAT(html, HasSubstr("\\u003c/script\\u003e\\u003cscript\\u003ealert(4)"));
  EXPECT_EQ(charts_of(html)[0]["data"]["datasets"][0]["label"],
            "</script><script>alert(4)</script>");
}

TEST(BenchHtmlEscaping, HostileOrdinalsDoNotBlowUpTheHeatMap) {
  auto run = bench_fixture("run_synthetic.json");
  run.devices[1].ordinal = 2147483647;
  for (auto& r : run.results)
    if (r.suite == "p2p") r.devices = {0, 2000000000};
  const std::string html = render_bench_html(run, nullptr, {.plots = false});
  EXPECT_LT(html.size(), 100000u);
  EXPECT_THAT(html, Not(HasSubstr("<h2>P2P matrix</h2>")));
  EXPECT_THAT(html, HasSubstr("<h2>p2p</h2>"));  // the rows are still listed
}

// The page follows the build: with Chart.js embedded it plots, without it it says why not.
TEST(BenchHtmlNoPlots, BuildWithoutChartJs) {
  const std::string html = render_bench_html(bench_fixture("run_synthetic.json"));
  const std::string says_why =
      "<p class=\"noplots\">Plots are unavailable: this smcompat was "
      "built without Chart.js (Debian package libjs-chart.js). The tables "
      "below hold every figure.</p>";
  if (bench_html_plots_available()) {
    EXPECT_THAT(html, Not(HasSubstr(says_why)));
    EXPECT_THAT(html, HasSubstr("<canvas"));
  } else {
    EXPECT_THAT(html, HasSubstr(says_why));
    EXPECT_THAT(html, Not(HasSubstr("<script")));
  }
}

TEST(BenchHtmlNoPlots, SaysSoAndKeepsTheTables) {
  auto run = bench_fixture("run_synthetic.json");
  auto cmp = compare_bench_runs(bench_fixture("baseline_synthetic.json"), run);
  const std::string html = render_bench_html(run, &cmp, {.plots = false});
  EXPECT_THAT(html, HasSubstr("<p class=\"noplots\">Plots are unavailable: plots were turned off "
                              "for this page. The tables below hold every figure.</p>"));
  EXPECT_THAT(html, Not(HasSubstr("<canvas")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("Chart.js v3")));
  EXPECT_TRUE(charts_of(html).empty());
  // Every table is still there.
  for (const char* suite : {"gemm", "memory", "p2p", "launch", "jit", "torch.gemm"})
    EXPECT_THAT(html, HasSubstr(std::string("<h2>") + suite + "</h2>")) << suite;
  expect_substrings(html,
                    {"<tr class=\"nc\"><td>bf16 2048x2048x2048<span class=\"src\" "
                     "title=\"catalog: H100 SXM fp16_bf16 dense (DS)\"></span></td><td>0"
                     "</td><td class=\"num\">498.7 TFLOPS</td><td class=\"num\">50.4 %"
                     "</td><td>±1.10 % n=180 not converged (timeout)</td><td>yes</td>",
                     "<tr class=\"thr\"><td>fp16 8192x8192x8192",
                     // Columns no row of a suite fills are left out.
                     "<h2>launch</h2>\n<table class=\"results\"><tr><th>configuration"
                     "</th><th>GPU</th><th>value</th><th>noise</th><th>origin</th></tr>",
                     "<tr class=\"bad\"><td>fp64 1024x1024x1024",
                     "<li>fp4 8192x8192x8192 (GPU 0): no fp4 on 9.0</li>",
                     // The P2P heat map: the fastest link darkest, no link on the diagonal.
                     "<caption>ce unidirectional (GB/s; row: source GPU, column: "
                     "destination GPU)</caption>",
                     "<tr><th>GPU 1</th><td style=\"background:#08306b;color:#fff\">"
                     "391.2</td><td class=\"none\">&mdash;</td></tr>",
                     // The comparison lists every row, changed ones marked.
                     "<tr class=\"v-changed\"><td>gemm</td><td>bf16 8192x8192x8192</td>"
                     "<td>0</td><td class=\"num\">641.2 TFLOPS</td><td class=\"num\">"
                     "712.4 TFLOPS</td><td class=\"num\">+11.1 %</td><td>changed (faster)</td>",
                     "<tr class=\"v-within-noise\"><td>gemm</td><td>bf16 "
                     "4096x4096x4096</td>",
                     "<tr class=\"v-new\"><td>torch.resnet50</td>",
                     "<tr class=\"v-missing\"><td>gemm</td><td>fp64 8192x8192x8192",
                     "<h2>native and torch side by side</h2>"});
}

TEST(BenchHtmlNoPlots, EmptyRun) {
  const std::string html = render_bench_html(bench::BenchRun{}, nullptr, {.plots = false});
  EXPECT_THAT(html, HasSubstr("<p>No results recorded.</p>"));
  EXPECT_THAT(html, HasSubstr("</html>\n"));
  if (bench_html_plots_available())
    EXPECT_THAT(render_bench_html(bench::BenchRun{}), HasSubstr("<p>No results to plot.</p>"));
}

}  // namespace
}  // namespace smcompat
