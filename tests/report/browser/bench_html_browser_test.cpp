// The bench HTML page (src/report/bench_html.cpp) in a real browser: a recorded fixture is
// rendered, screenshotted by Debian's headless chromium, and the PNG (decoded by libpng) must
// show every plotted series' colour, which the page's own chart data names, in a meaningful
// number of pixels (lines, points, bars and legend boxes). The same check must fail on the page
// rendered with plots off, so the test can tell a page with plots from one without. Skips,
// saying why, when chromium or Chart.js is absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bench_fixture.hpp"
#include "browser/chromium.hpp"
#include "smcompat/report/bench_report.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Chromium;
using testing::Image;
using testing::pixels_of;

// The series colours ("#e6194b") named by the page's chart data, one each.
std::set<std::string> series_colours(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"smcompat-charts\">";
  std::set<std::string> out;
  auto start = html.find(open);
  if (start == std::string::npos) return out;
  start += open.size();
  for (const auto& chart : json::parse(html.substr(start, html.find("</script>", start) - start)))
    for (const auto& d : chart["data"]["datasets"]) out.insert(d["backgroundColor"]);
  return out;
}

constexpr size_t kMinPixels = 150;  // a legend box alone is about 40 × 12

// The check itself: every series colour drawn in at least kMinPixels pixels.
bool plots_drawn(const Image& img, const std::set<std::string>& colours, std::string& report) {
  bool all = !colours.empty();
  for (const auto& c : colours) {
    const size_t n = pixels_of(img, c);
    report += c + ": " + std::to_string(n) + " pixels\n";
    all &= n >= kMinPixels;
  }
  return all;
}

class BenchHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string chromium = SMCOMPAT_CHROMIUM;
    if (chromium.empty() || !fs::exists(chromium))
      GTEST_SKIP() << "chromium not found at configure time (apt-get install chromium): the "
                      "HTML report is not checked in a browser";
    if (!bench_html_plots_available())
      GTEST_SKIP() << "this build has no Chart.js (apt-get install libjs-chart.js): no plots "
                      "to look for";
    fs::create_directories(SMCOMPAT_BROWSER_WORKDIR);
  }

  // Renders `html` to a file and screenshots it; false (with the browser's log) on failure.
  bool screenshot(const std::string& html, const std::string& name, Image& img) {
    std::string error;
    if (browser_.screenshot(browser_.write_page(html, name), name, 3000, img, error)) return true;
    ADD_FAILURE() << error;
    return false;
  }

  Chromium browser_{SMCOMPAT_CHROMIUM, SMCOMPAT_BROWSER_WORKDIR};
  bench::BenchRun run = testing::bench_fixture("run_synthetic.json");
};

TEST_F(BenchHtmlBrowser, PlotsAreDrawnAndTheCheckFailsWithoutThem) {
  const std::string with_plots = render_bench_html(run);
  const auto colours = series_colours(with_plots);
  ASSERT_GE(colours.size(), 10u);  // gemm types, memory engines, JIT images, native/torch

  Image img;
  ASSERT_TRUE(screenshot(with_plots, "bench_plots", img));
  EXPECT_EQ(img.width, 1400u);
  std::string report;
  EXPECT_TRUE(plots_drawn(img, colours, report)) << "a series is missing from the plots:\n"
                                                 << report;
  std::printf("series colours in the screenshot with plots:\n%s", report.c_str());

  // The page without plots: same tables, and the same check must fail on its screenshot.
  Image none;
  ASSERT_TRUE(screenshot(render_bench_html(run, nullptr, {.plots = false}), "bench_noplots", none));
  std::string none_report;
  EXPECT_FALSE(plots_drawn(none, colours, none_report))
      << "the plot check passed on a page without plots:\n"
      << none_report;
  std::printf("and without plots:\n%s", none_report.c_str());
  for (const auto& c : colours) EXPECT_LT(pixels_of(none, c), kMinPixels) << c;
  // Both pages drew something (tables), so the difference is the plots, not a blank page.
  EXPECT_GT(pixels_of(none, "#000000") + pixels_of(none, "#111111"), 1000u);
}

}  // namespace
}  // namespace smcompat
