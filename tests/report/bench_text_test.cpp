// The bench text and Markdown printers (src/report/bench_text.cpp, bench_markdown.cpp) on the
// recorded fixtures (all synthetic): specific lines and values (header, suites, % of peak, noise,
// not converged, throttled, verified, skips with reasons, native beside torch, the baseline
// comparison with changed, unchanged, new and missing rows), colour only when asked, and
// hostile strings neutralised.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bench_fixture.hpp"
#include "smcompat/report/bench_report.hpp"

namespace smcompat {
namespace {

using testing::bench_fixture;
using ::testing::Contains;
using testing::expect_lines;
using testing::expect_substrings;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class BenchPrinters : public ::testing::Test {
 protected:
  bench::BenchRun run = bench_fixture("run_synthetic.json");
  bench::BenchRun base = bench_fixture("baseline_synthetic.json");
  BenchComparison cmp = compare_bench_runs(base, run);
};

TEST_F(BenchPrinters, TextHeader) {
  const auto text = lines(render_bench_text(run, Style::plain()));
  ASSERT_GE(text.size(), 3u);
  EXPECT_EQ(text[0], "smcompat bench");
  EXPECT_EQ(text[1],
            "SYNTHETIC: 43 of 43 rows are made-up figures (tests, examples), not measurements");
  expect_lines(text, {"  driver     580.95.05 (CUDA 13.0)", "  host       synthetic-host",
                      "  libraries  cublasLt 13.0.0, python 3.11.7, torch 2.9.0+cu130",
                      "  method     at least 10 samples and 0.5 s, until the relative "
                      "stddev is at most 0.5 % or 15 s pass; blocking kernel, L2 flushed "
                      "before each sample",
                      "  GPU 0: NVIDIA H100 80GB HBM3, cc 9.0, catalog H100 SXM; at start "
                      "SM 1980 MHz, mem 2619 MHz, 35 °C, 72.0 W"});
}

TEST_F(BenchPrinters, TextSuiteTables) {
  const auto text = lines(render_bench_text(run, Style::plain()));
  // Suites in order of first appearance, each a bold-able title line.
  std::vector<std::string> suites;
  for (const auto& l : text)
    if (l == "gemm" || l == "memory" || l == "p2p" || l == "launch" || l == "jit" ||
        l.rfind("torch.", 0) == 0)
      suites.push_back(l);
  EXPECT_EQ(suites, (std::vector<std::string>{"gemm", "memory", "p2p", "launch", "jit",
                                              "torch.gemm", "torch.sdpa", "torch.resnet50"}));
  expect_lines(text, {"  configuration            GPU          value  % of peak  noise   "
                      "                               verified  origin     flags",
                      "  bf16 8192x8192x8192      0     712.4 TFLOPS     72.0 %  ±0.20 % "
                      "n=24                           yes       synthetic",
                      // Not converged, throttled, failed verification.
                      "  bf16 2048x2048x2048      0     498.7 TFLOPS     50.4 %  ±1.10 % "
                      "n=180 not converged (timeout)  yes       synthetic",
                      "  fp16 8192x8192x8192      0     593.6 TFLOPS     60.0 %  ±0.20 % "
                      "n=24                           yes       synthetic  throttled 4 "
                      "samples (sw_power_cap)",
                      "  fp64 1024x1024x1024      0     40.10 TFLOPS     59.9 %  ±0.20 % "
                      "n=24                           NO        synthetic",
                      "  note: fp64 1024x1024x1024: reference check: max relative error "
                      "3.1e-2 above 1e-6",
                      "  kernel launch  0    2.310 us  ±3.00 % n=100000 not converged "
                      "(max_samples)  synthetic",
                      "  ce unidirectional 0->1  0→1  389.5 GB/s     86.6 %  ±0.20 % n=24 "
                      " synthetic",
                      "  mma compute_80 PTX (JIT)    0    598.4 TFLOPS     60.5 %  ±0.20 % "
                      "n=24  synthetic  load_ms=412.5",
                      // No peak: the % column is blank, not 0.
                      "  h2d pinned 1024 MiB  0     53.20 GB/s             ±0.20 % n=24  "
                      "synthetic"});
}

TEST_F(BenchPrinters, TextSkipsWithReasons) {
  const auto text = lines(render_bench_text(run, Style::plain()));
  EXPECT_THAT(text, Contains("  skipped:"));
  EXPECT_THAT(text, Contains("    fp4 8192x8192x8192 (GPU 0): no fp4 on 9.0"));
  EXPECT_THAT(text, Contains("    h2d pageable 1024 MiB (GPU 0): CUDA_ERROR_OUT_OF_MEMORY"));
  // A skipped row is never shown with a value.
  for (const auto& l : text)
    if (l.find("fp4 8192x8192x8192") != std::string::npos) EXPECT_THAT(l, Not(HasSubstr("TFLOPS")));
}

TEST_F(BenchPrinters, TextNativeAndTorchSideBySide) {
  const auto text = lines(render_bench_text(run, Style::plain()));
  EXPECT_THAT(text, Contains("native and torch side by side"));
  EXPECT_THAT(text, Contains("  gemm   bf16 8192x8192x8192  712.4 TFLOPS  705.3 TFLOPS         "
                             "0.99×"));
  EXPECT_THAT(text, Contains("  gemm   fp16 8192x8192x8192  593.6 TFLOPS  717.0 TFLOPS         "
                             "1.21×"));
}

TEST(BenchPrintersOrigin, OriginsShownAndPaired) {
  // Made-up figures in a constructed run, to show how the origins print; no banner then.
  bench::BenchRun run;
  for (auto origin : {bench::Origin::kNative, bench::Origin::kTorch}) {
    bench::BenchResult r;
    r.suite = "gemm";
    r.name = "bf16 4096x4096x4096";
    r.origin = origin;
    r.devices = {0};
    r.unit = "TFLOPS";
    r.value = origin == bench::Origin::kNative ? 100.0 : 50.0;
    run.results.push_back(r);
  }
  const std::string text = render_bench_text(run, Style::plain());
  EXPECT_THAT(text, Not(HasSubstr("SYNTHETIC")));
  EXPECT_THAT(text, HasSubstr("  bf16 4096x4096x4096  100.0 TFLOPS         native\n"));
  EXPECT_THAT(text, HasSubstr("  bf16 4096x4096x4096  50.00 TFLOPS         torch\n"));
  EXPECT_THAT(text, HasSubstr("  gemm   bf16 4096x4096x4096  100.0 TFLOPS  50.00 TFLOPS         "
                              "0.50×\n"));
  const std::string md = render_bench_markdown(run);
  EXPECT_THAT(md,
              HasSubstr("| gemm | bf16 4096x4096x4096 | 100.0 TFLOPS | 50.00 TFLOPS | 0.50× |"));
}

TEST(BenchPrintersOrigin, EmptyRun) {
  bench::BenchRun run;
  const std::string text = render_bench_text(run, Style::plain());
  EXPECT_THAT(text, HasSubstr("\nno results recorded\n"));
  EXPECT_THAT(text, HasSubstr("  driver     unknown\n"));
  EXPECT_THAT(text, HasSubstr("  no devices recorded\n"));
  EXPECT_THAT(render_bench_markdown(run), HasSubstr("\nNo results recorded.\n"));
}

TEST_F(BenchPrinters, TextComparison) {
  const auto text = lines(render_bench_text(run, Style::plain(), &cmp));
  expect_lines(text, {"compared with the baseline of 2026-11-01T04:00:00Z on synthetic-host "
                      "(smcompat 0.9.0)",
                      "  gemm            bf16 8192x8192x8192         0    641.2 TFLOPS  "
                      "712.4 TFLOPS  +11.1 %  changed (faster)",
                      "  jit             triad compute_80 PTX (JIT)  0               -   "
                      "3004.5 GB/s           new",
                      "  torch.resnet50  fp16 batch 256              0               -  "
                      "3120.0 img/s           new",
                      "  gemm            fp64 8192x8192x8192         0    52.00 TFLOPS    "
                      "         -           missing",
                      "  gemm            fp4 8192x8192x8192          0               -    "
                      "         -           skipped",
                      "  1 changed beyond the noise, 38 within it, 2 not comparable, 2 new, "
                      "1 missing",
                      "  (38 rows within the noise not listed)"});
  // bf16 4096³ moved by 0.1 %, well inside its noise: counted, not listed as a change.
  const std::string all = render_bench_text(run, Style::plain(), &cmp);
  const auto cmp_part = all.substr(all.find("compared with the baseline"));
  EXPECT_THAT(cmp_part, Not(HasSubstr("bf16 4096x4096x4096")));
  // Without a comparison there is no such section.
  EXPECT_THAT(render_bench_text(run, Style::plain()), Not(HasSubstr("compared with")));
}

TEST_F(BenchPrinters, ComparisonModel) {
  auto find = [&](const std::string& suite, const std::string& name) {
    for (const auto& r : cmp.rows)
      if (r.suite == suite && r.name == name) return r;
    ADD_FAILURE() << suite << " " << name;
    return BenchComparisonRow{};
  };
  auto changed = find("gemm", "bf16 8192x8192x8192");
  EXPECT_EQ(changed.status, BenchComparisonRow::Status::kCompared);
  EXPECT_TRUE(changed.changed());
  auto same = find("gemm", "bf16 4096x4096x4096");
  EXPECT_EQ(same.beyond_noise, false);
  EXPECT_NEAR(*same.change_percent, 0.1, 0.01);
  EXPECT_EQ(find("jit", "triad compute_80 PTX (JIT)").status, BenchComparisonRow::Status::kNew);
  EXPECT_EQ(find("gemm", "fp64 8192x8192x8192").status, BenchComparisonRow::Status::kMissing);
  EXPECT_FALSE(find("gemm", "fp4 8192x8192x8192").beyond_noise.has_value());
  // A time that grew is slower; a throughput that grew is faster.
  auto later = run;
  for (auto& r : later.results)
    if (r.name == "graph launch") {
      r.value = 1.5;
      r.time->median_s = 1.5e-6;
    }
  auto c4 = compare_bench_runs(run, later);
  EXPECT_THAT(render_bench_text(later, Style::plain(), &c4),
              HasSubstr("  launch  graph launch           0    1.120 us  1.500 us  +33.9 %  "
                        "changed (slower)\n"));
  // Same name on other devices is another configuration.
  auto moved = run;
  moved.results[0].devices = {1};
  auto c2 = compare_bench_runs(run, moved);
  EXPECT_EQ(c2.rows.front().status, BenchComparisonRow::Status::kNew);
  EXPECT_EQ(c2.rows.back().status, BenchComparisonRow::Status::kMissing);
  // Different units: compared, but no change figure.
  auto units = run;
  units.results[0].unit = "GFLOPS";
  auto c3 = compare_bench_runs(run, units);
  EXPECT_TRUE(c3.rows.front().units_differ);
  EXPECT_FALSE(c3.rows.front().change_percent);
  EXPECT_THAT(render_bench_text(units, Style::plain(), &c3), HasSubstr("units differ"));
}

TEST_F(BenchPrinters, ColourOnlyWhenAsked) {
  EXPECT_THAT(render_bench_text(run, Style::plain(), &cmp), Not(HasSubstr("\x1b[")));
  const Style colour = Style::for_stream(stdout, Style::Mode::kAlways);
  ASSERT_TRUE(colour.enabled());
  const std::string text = render_bench_text(run, colour, &cmp);
  expect_substrings(text, {"\x1b[33m±1.10 % n=180 not converged (timeout)\x1b[0m",
                           "\x1b[31mNO\x1b[0m", "\x1b[33mthrottled 4 samples (sw_power_cap)\x1b[0m",
                           "\x1b[33mchanged (faster)\x1b[0m"});
}

TEST_F(BenchPrinters, Markdown) {
  const auto md = lines(render_bench_markdown(run, &cmp));
  ASSERT_FALSE(md.empty());
  EXPECT_EQ(md[0], "# smcompat bench");
  expect_lines(md, {"> **SYNTHETIC: 43 of 43 rows are made-up figures (tests, examples), "
                    "not measurements**",
                    "- **driver**: 580.95.05 (CUDA 13.0)", "## gemm",
                    "| configuration | GPU | value | % of peak | noise | verified | origin "
                    "| flags |",
                    "| --- | --- | ---: | ---: | --- | --- | --- | --- |",
                    "| bf16 8192x8192x8192 | 0 | 712.4 TFLOPS | 72.0 % | ±0.20 % n=24 | "
                    "yes | synthetic |  |",
                    "| bf16 2048x2048x2048 | 0 | 498.7 TFLOPS | 50.4 % | **±1.10 % n=180 "
                    "not converged (timeout)** | yes | synthetic |  |",
                    "| fp16 8192x8192x8192 | 0 | 593.6 TFLOPS | 60.0 % | ±0.20 % n=24 | "
                    "yes | synthetic | throttled 4 samples (sw\\_power\\_cap) |",
                    "| fp64 1024x1024x1024 | 0 | 40.10 TFLOPS | 59.9 % | ±0.20 % n=24 | "
                    "**NO** | synthetic |  |",
                    "- fp4 8192x8192x8192 (GPU 0): no fp4 on 9.0",
                    "| gemm | bf16 8192x8192x8192 | 712.4 TFLOPS | 705.3 TFLOPS | 0.99× |",
                    "| gemm | bf16 8192x8192x8192 | 0 | 641.2 TFLOPS | 712.4 TFLOPS | "
                    "+11.1 % | **changed (faster)** |",
                    "| torch.resnet50 | fp16 batch 256 | 0 | - | 3120.0 img/s |  | new |",
                    "| gemm | fp64 8192x8192x8192 | 0 | 52.00 TFLOPS | - |  | missing |",
                    "1 changed beyond the noise, 38 within it, 2 not comparable, 2 new, 1 "
                    "missing"});
  // Every table row has as many cells as its header.
  size_t cells = 0;
  for (const auto& l : md) {
    if (l.empty() || l[0] != '|') {
      cells = 0;
      continue;
    }
    size_t n = 0;
    for (size_t i = 0; i < l.size(); ++i) n += l[i] == '|' && (i == 0 || l[i - 1] != '\\');
    if (cells == 0) cells = n;
    EXPECT_EQ(n, cells) << l;
  }
}

TEST(BenchPrintersHostile, TextEscapesControlCharacters) {
  auto run = bench_fixture("hostile_synthetic.json");
  const std::string text = render_bench_text(run, Style::plain());
  EXPECT_THAT(text, Not(HasSubstr("\x1b")));
  EXPECT_THAT(text, HasSubstr("\\x1b[31mred\\x1b[0m note"));
  EXPECT_THAT(text, HasSubstr("reason <i>&amp;</i> | `x`\\x0asecond line\n"));
}

TEST(BenchPrintersHostile, MarkdownEscapesMarkup) {
  auto run = bench_fixture("hostile_synthetic.json");
  const std::string md = render_bench_markdown(run);
  // No markup reaches the page: every <, >, & and | from the results is backslash-escaped.
  // (A ">" opening a line is the report's own block quote.)
  for (size_t i = 1; i < md.size(); ++i)
    if (md[i] == '<' || (md[i] == '>' && md[i - 1] != '\n') || md[i] == '&')
      EXPECT_EQ(md[i - 1], '\\') << md.substr(i, 20);
  EXPECT_THAT(md, Not(HasSubstr("\x1b")));
  EXPECT_THAT(md, HasSubstr("| bf16 \\<img src=x onerror=alert(1)\\> \\| pipe \\& \"quote\" "
                            "\\</script\\> | 712.4 TFLOPS |"));
  EXPECT_THAT(md, HasSubstr("- fp8 \\</script\\>\\<b\\>skip\\</b\\>: reason "
                            "\\<i\\>\\&amp;\\</i\\> \\| \\`x\\` second line\n"));
  EXPECT_THAT(md, HasSubstr("- **host**: \\<script\\>alert('host')\\</script\\>\n"));
}

}  // namespace
}  // namespace smcompat
