// The index page (`smcompat index report --html`, src/report/index_html.cpp) in a real browser:
// the page of the shipped index is screenshotted by Debian's headless chromium and the PNG
// (decoded by libpng) must show the cell colours the page's own style sheet names, each in a
// meaningful number of pixels; the same check must fail on the page searched for a package that
// does not exist (rows hidden by the page's script), so it tells a table from an empty page.
// The DOM after the script ran (--dump-dom) shows the search and the sort working from the
// page's address (#q=torch, #sort=4&order=desc). Skips, saying why, without chromium.
// The screenshot stays behind as index_report.png in the test's work directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "browser/chromium.hpp"
#include "smcompat/index/overview.hpp"
#include "smcompat/report/index_report.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;
using testing::Chromium;
using testing::Image;
using testing::pixels_of;

std::string shipped_page() {
  TargetQuery query;
  query.names = default_overview_gpus();
  ResolvedTargets resolved = resolve_targets(query);
  EXPECT_TRUE(resolved.errors.empty());
  const WheelIndex& index = builtin_wheel_index();
  return render_index_html(index_overview(index, resolved.targets),
                           index_answer_context(index, "built-in"));
}

// The background colour the page's style sheet gives a cell class ("fit-native" -> "#bfeccb").
std::string colour_of(const std::string& html, const std::string& cls) {
  std::smatch m;
  const std::regex rule("\\." + cls + "\\{background:(#[0-9a-f]{6})");
  return std::regex_search(html, m, rule) ? m[1].str() : "";
}

// The rows of a dumped DOM in their order, each with whether it is hidden.
std::vector<std::pair<std::string, bool>> dom_rows(const std::string& dom) {
  std::vector<std::pair<std::string, bool>> rows;
  const std::regex row("<tr data-package=\"([^\"]*)\"( hidden=\"\")?>");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), row); it != std::sregex_iterator();
       ++it)
    rows.emplace_back((*it)[1].str(), (*it)[2].matched);
  return rows;
}

// The data-rank of each row's cell in column `col` (1 = the first GPU), rows in DOM order.
std::vector<int> column_ranks(const std::string& dom, int col) {
  std::vector<int> ranks;
  const std::string row = "<tr data-package=", rank = "data-rank=\"";
  for (auto at = dom.find(row); at != std::string::npos; at = dom.find(row, at + 1)) {
    auto td = at;
    for (int i = 0; i < col && td != std::string::npos; ++i) td = dom.find("<td", td + 1);
    auto r = td == std::string::npos ? td : dom.find(rank, td);
    if (r == std::string::npos || r > dom.find("</tr>", at)) break;
    ranks.push_back(std::stoi(dom.substr(r + rank.size())));
  }
  return ranks;
}

// Pixels of the cells' fills; the colours of the verdicts the shipped index has on these GPUs.
struct CellPixels {
  size_t native, compatible, no_image, no_device_code, text;
};

CellPixels cell_pixels(const Image& img, const std::string& html) {
  return {pixels_of(img, colour_of(html, "fit-native")),
          pixels_of(img, colour_of(html, "fit-compatible-sass")),
          pixels_of(img, colour_of(html, "fit-no-image")),
          pixels_of(img, colour_of(html, "fit-none")),
          pixels_of(img, "#111111") + pixels_of(img, "#000000")};
}

// A table of verdicts is on the screen: each fill in at least the area of a few cells (a cell is
// about 120 x 50 pixels; the legend's sample of each colour is under 1,500).
constexpr size_t kTableFill = 15000;
bool table_drawn(const CellPixels& p) {
  return p.native >= 10 * kTableFill && p.compatible >= kTableFill && p.no_image >= kTableFill &&
         p.no_device_code >= kTableFill;
}

std::string describe(const CellPixels& p) {
  return "native " + std::to_string(p.native) + ", compatible-sass " +
         std::to_string(p.compatible) + ", no-image " + std::to_string(p.no_image) +
         ", no device code " + std::to_string(p.no_device_code) + ", text " +
         std::to_string(p.text) + " pixels";
}

class IndexHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string chromium = SMCOMPAT_CHROMIUM;
    if (chromium.empty() || !fs::exists(chromium))
      GTEST_SKIP() << "chromium not found at configure time (apt-get install chromium): the "
                      "index page is not checked in a browser";
    fs::create_directories(SMCOMPAT_BROWSER_WORKDIR);
  }

  Chromium browser_{SMCOMPAT_CHROMIUM, SMCOMPAT_BROWSER_WORKDIR};
  const std::string html_ = shipped_page();
};

TEST_F(IndexHtmlBrowser, TheTableIsDrawnAndTheCheckFailsWhenSearchHidesIt) {
  for (const char* cls : {"fit-native", "fit-compatible-sass", "fit-no-image", "fit-none"})
    ASSERT_FALSE(colour_of(html_, cls).empty()) << cls;
  const std::string url = browser_.write_page(html_, "index_report");
  std::string error;
  Image img;
  ASSERT_TRUE(browser_.screenshot(url, "index_report", 3200, img, error)) << error;
  EXPECT_EQ(img.width, 1400u);
  const CellPixels all = cell_pixels(img, html_);
  std::printf("the whole table: %s\n", describe(all).c_str());
  EXPECT_TRUE(table_drawn(all)) << describe(all);
  EXPECT_GT(all.text, 20000u) << describe(all);

  // Searched for nothing that exists: the rows are hidden, the check fails, the page is not blank.
  Image none;
  ASSERT_TRUE(
      browser_.screenshot(url + "#q=no-such-package", "index_report_empty", 3200, none, error))
      << error;
  const CellPixels empty = cell_pixels(none, html_);
  std::printf("searched for no-such-package: %s\n", describe(empty).c_str());
  EXPECT_FALSE(table_drawn(empty)) << describe(empty);
  EXPECT_LT(empty.native, 1500u) << describe(empty);
  EXPECT_GT(empty.text, 1000u) << describe(empty);
}

TEST_F(IndexHtmlBrowser, SearchFromTheAddressShowsOnlyTheMatchingRows) {
  const std::string url = browser_.write_page(html_, "index_search");
  std::string error;
  const std::string dom = browser_.dump_dom(url + "#q=torch", "index_search", error);
  ASSERT_FALSE(dom.empty()) << error;
  const auto rows = dom_rows(dom);
  ASSERT_EQ(rows.size(), 28u);
  std::vector<std::string> shown;
  for (const auto& [name, hidden] : rows)
    if (!hidden) shown.push_back(name);
  EXPECT_EQ(shown, (std::vector<std::string>{"torch", "torchaudio", "torchvision"}));
  EXPECT_NE(dom.find("<span id=\"count\">3 of 28 packages</span>"), std::string::npos);
}

TEST_F(IndexHtmlBrowser, SortingByAGpuOrdersRowsByVerdict) {
  const std::string url = browser_.write_page(html_, "index_sort");
  std::string error;
  // Column 4 is DGX Spark GB10 (aarch64 wheels): ascending puts the natives first (by name),
  // descending puts xformers, which has no aarch64 wheel, first.
  const std::string up = browser_.dump_dom(url + "#sort=4", "index_sort_up", error);
  ASSERT_FALSE(up.empty()) << error;
  auto rows = dom_rows(up);
  ASSERT_EQ(rows.size(), 28u);
  EXPECT_EQ(rows.front().first, "bitsandbytes");
  EXPECT_EQ(rows.back().first, "xformers");
  EXPECT_NE(up.find("<th aria-sort=\"ascending\">DGX Spark GB10<br>"), std::string::npos);
  // The GB10 cell's rank along the rows never decreases.
  int last = -1, ranked = 0;
  for (int r : column_ranks(up, 4)) {
    EXPECT_GE(r, last);
    last = r;
    ++ranked;
  }
  EXPECT_EQ(ranked, 28);
  EXPECT_EQ(last, 100);  // not indexed for aarch64

  const std::string down = browser_.dump_dom(url + "#sort=4&order=desc", "index_sort_down", error);
  ASSERT_FALSE(down.empty()) << error;
  rows = dom_rows(down);
  ASSERT_EQ(rows.size(), 28u);
  EXPECT_EQ(rows.front().first, "xformers");
  EXPECT_NE(down.find("<th aria-sort=\"descending\">DGX Spark GB10<br>"), std::string::npos);
}

}  // namespace
}  // namespace smcompat
