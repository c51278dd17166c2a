// The index page (render_index_html, src/report/index_html.cpp): exact cells of real packages
// from the shipped index (data/wheel_index.json, the same answers `smcompat advise` and `index
// query` give, docs/index.md), JIT-only releases folded into ranges, hostile names escaped, and a
// page that fetches nothing. The browser's view of it is tests/report/browser/.
// Refreshing the shipped index may move "newest" forward: update the versions below with it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "smcompat/index/overview.hpp"
#include "smcompat/report/index_report.hpp"

namespace smcompat {
namespace {

const IndexOverview& shipped_overview() {
  static const IndexOverview overview = [] {
    TargetQuery query;
    query.names = default_overview_gpus();
    ResolvedTargets resolved = resolve_targets(query);
    EXPECT_TRUE(resolved.errors.empty());
    return index_overview(builtin_wheel_index(), resolved.targets);
  }();
  return overview;
}

const std::string& shipped_page() {
  static const std::string page = render_index_html(
      shipped_overview(), index_answer_context(builtin_wheel_index(), "built-in"));
  return page;
}

// The cells (<td ...>...</td>) of the row of `package`, in column order.
std::vector<std::string> row_cells(const std::string& html, const std::string& package) {
  std::vector<std::string> cells;
  const std::string open = "<tr data-package=\"" + package + "\">";
  auto start = html.find(open);
  if (start == std::string::npos) return cells;
  const auto end = html.find("</tr>", start);
  for (auto td = html.find("<td", start); td < end; td = html.find("<td", td + 1))
    cells.push_back(html.substr(td, html.find("</td>", td) + 5 - td));
  return cells;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

void check_columns_are_the_catalogs_gpus_on_their_machines() {
  const IndexOverview& o = shipped_overview();
  ASSERT_EQ(o.targets.size(), 8u);
  EXPECT_EQ(o.machines, (std::vector<std::string>{"x86_64", "x86_64", "x86_64", "aarch64", "x86_64",
                                                  "x86_64", "x86_64", "x86_64"}));
  EXPECT_NE(
      shipped_page().find(
          "<thead><tr><th aria-sort=\"ascending\">package</th><th aria-sort=\"none\">GeForce "
          "RTX 5090<br><span class=\"sub\">sm_120 · x86_64</span></th><th "
          "aria-sort=\"none\">RTX PRO 6000 Blackwell<br><span class=\"sub\">sm_120 · "
          "x86_64</span></th><th aria-sort=\"none\">B200<br><span class=\"sub\">sm_100 · "
          "x86_64</span></th><th aria-sort=\"none\">DGX Spark GB10<br><span "
          "class=\"sub\">sm_121 · aarch64</span></th><th aria-sort=\"none\">H100 SXM<br><span "
          "class=\"sub\">sm_90 · x86_64</span></th><th aria-sort=\"none\">A100 80GB "
          "SXM<br><span class=\"sub\">sm_80 · x86_64</span></th><th "
          "aria-sort=\"none\">L4<br><span class=\"sub\">sm_89 · x86_64</span></th><th "
          "aria-sort=\"none\">Tesla T4<br><span class=\"sub\">sm_75 · "
          "x86_64</span></th></tr></thead>"),
      std::string::npos);
  // One row per package of the index, and the search box counts them.
  EXPECT_EQ(o.packages.size(), 28u);
  EXPECT_EQ(count_of(shipped_page(), "<tr data-package="), 28u);
  EXPECT_NE(shipped_page().find("<span id=\"count\">28 of 28 packages</span>"), std::string::npos);
  EXPECT_NE(shipped_page().find("<td>index</td><td>built-in, built 2026-11-27, 435 wheels</td>"),
            std::string::npos);
}

void check_bitsandbytes_cells() {
  auto cells = row_cells(shipped_page(), "bitsandbytes");
  ASSERT_EQ(cells.size(), 8u);
  // RTX 5090: sm_120 SASS since 0.45.3; 0.45.2 had only PTX (docs/index.md's query).
  EXPECT_EQ(cells[0],
            "<td class=\"fit-native\" data-rank=\"0\"><div class=\"cell-verdict\">native <span "
            "class=\"ver\">0.50.2</span></div><div class=\"cell-native\">runs natively: since "
            "0.45.3</div><div class=\"cell-jit\">JIT only: 0.45.2</div><code class=\"pip\">pip "
            "install &quot;bitsandbytes==0.50.2&quot;</code></td>");
  // GB10: the aarch64 wheels, native since 0.46.1.
  EXPECT_EQ(cells[3],
            "<td class=\"fit-native\" data-rank=\"0\"><div class=\"cell-verdict\">native <span "
            "class=\"ver\">0.50.2</span></div><div class=\"cell-native\">runs natively: since "
            "0.46.1</div><div class=\"cell-jit\">JIT only: 0.46.0</div><code class=\"pip\">pip "
            "install &quot;bitsandbytes==0.50.2&quot;</code></td>");
}

void check_xformers_cells() {
  auto cells = row_cells(shipped_page(), "xformers");
  ASSERT_EQ(cells.size(), 8u);
  // RTX 5090: only 0.0.33 runs natively, the releases around it only JIT; advise installs
  // 0.0.33.
  EXPECT_EQ(cells[0],
            "<td class=\"fit-ptx-jit\" data-rank=\"2\"><div class=\"cell-verdict\">ptx-jit <span "
            "class=\"ver\">0.0.35</span></div><div class=\"cell-native\">runs natively: 0.0.33 "
            "only</div><div class=\"cell-jit\">JIT only: 0.0.33.post1–0.0.35, "
            "0.0.31.post1–0.0.32.post2</div><code class=\"pip\">pip install "
            "&quot;xformers==0.0.33&quot;</code></td>");
  // GB10: xformers has no aarch64 wheels.
  EXPECT_EQ(cells[3],
            "<td class=\"fit-absent\" data-rank=\"100\"><div class=\"cell-verdict\">not "
            "indexed</div><div class=\"cell-native\">no aarch64 wheels</div></td>");
  // L4 (sm_89): sm_80 SASS.
  EXPECT_EQ(cells[6],
            "<td class=\"fit-compatible-sass\" data-rank=\"1\"><div class=\"cell-verdict\">"
            "compatible-sass <span class=\"ver\">0.0.35</span></div><div class=\"cell-native\">"
            "runs natively: since ≤ 0.0.31.post1</div><code class=\"pip\">pip install "
            "&quot;xformers==0.0.35&quot;</code></td>");
}

void check_no_device_code_cell() {
  auto cells = row_cells(shipped_page(), "nvidia-cuda-runtime");
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[7],
            "<td class=\"fit-none\" data-rank=\"50\"><div class=\"cell-verdict\">no device code "
            "<span class=\"ver\">13.5.37</span></div><code class=\"pip\">pip install "
            "&quot;nvidia-cuda-runtime==13.5.37&quot;</code></td>");
}

void check_the_page_fetches_nothing() {
  const std::string& page = shipped_page();
  for (const char* outside : {"http:", "https:", "//", "<link", "src=", "@import", "url("})
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  EXPECT_EQ(count_of(page, "<script>"), 1u);
  EXPECT_EQ(count_of(page, "<script"), 1u);  // inline, no src
}

// One test over the shipped index: computing its overview (advise for 28 packages x 8 GPUs) takes
// 4.5 s, 160 s under the sanitizers, and CTest runs each test in a process of its own — five tests
// would compute it five times. Each part keeps its own name in the failure messages.
TEST(IndexHtml, ShippedIndexPage) {
  {
    SCOPED_TRACE("ShippedIndexColumnsAreTheCatalogsGpusOnTheirMachines");
    check_columns_are_the_catalogs_gpus_on_their_machines();
  }
  {
    SCOPED_TRACE("BitsandbytesCells");
    check_bitsandbytes_cells();
  }
  {
    SCOPED_TRACE("XformersCells");
    check_xformers_cells();
  }
  {
    SCOPED_TRACE("NoDeviceCodeCell");
    check_no_device_code_cell();
  }
  {
    SCOPED_TRACE("ThePageFetchesNothing");
    check_the_page_fetches_nothing();
  }
}

ReleaseFit hand_release(const std::string& version, Fit fit) {
  ReleaseFit r;
  r.version = version;
  r.verdict.fit = fit;
  r.verdict.has_device_code = true;
  return r;
}

IndexAnswerContext hand_context() {
  WheelIndex index;
  index.built = "2026-11-25";
  index.rebuild = "smcompat index build <x> && rm -rf '/'";
  index.wheels.resize(5);
  return index_answer_context(index, "idx\"<b>.json");
}

TEST(IndexHtml, HostileNamesAreEscaped) {
  IndexOverview o;
  o.targets = {*resolve_target("RTX 5090")};
  o.machines = {"x86_64\"><i>"};
  const std::string name = "<img src=x onerror=alert(1)>&\"'";
  o.packages = {name};
  PackageAdvice a;
  a.package = name;
  a.indexed = true;
  a.device_code = true;
  a.releases = {hand_release("1.0\"><script>alert(2)</script>", Fit::kNative)};
  a.newest_native = a.first_native = a.releases[0].version;
  a.first_native_is_oldest_indexed = true;
  a.install_command = "pip install \"</code><script>alert(3)</script>\"";
  o.cells = {{a}};
  const std::string page = render_index_html(o, hand_context());
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_EQ(count_of(page, "<script"), 1u);  // the page's own
  EXPECT_NE(page.find("<tr data-package=\"&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;\"><th>"
                      "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;</th><td "
                      "class=\"fit-native\" data-rank=\"0\"><div class=\"cell-verdict\">native "
                      "<span class=\"ver\">1.0&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"
                      "</span></div><div class=\"cell-native\">runs natively: since ≤ "
                      "1.0&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;</div><code "
                      "class=\"pip\">pip install &quot;&lt;/code&gt;&lt;script&gt;alert(3)&lt;/"
                      "script&gt;&quot;</code></td></tr>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("sm_120 · x86_64&quot;&gt;&lt;i&gt;</span>"), std::string::npos);
  EXPECT_NE(page.find("<td>idx&quot;&lt;b&gt;.json, built 2026-11-25, 5 wheels</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<code>smcompat index build &lt;x&gt; &amp;&amp; rm -rf &#39;/&#39;</code>"),
            std::string::npos);
}

TEST(IndexHtml, JitOnlyReleasesFoldIntoRangesNewestFirst) {
  IndexOverview o;
  o.targets = {*resolve_target("T4")};
  o.machines = {"x86_64"};
  o.packages = {"pkg"};
  PackageAdvice a;
  a.package = "pkg";
  a.indexed = true;
  a.device_code = true;
  a.releases = {hand_release("6", Fit::kNoImage),        hand_release("5", Fit::kPtxJit),
                hand_release("4", Fit::kUnsupportedPtx), hand_release("3", Fit::kNoImage),
                hand_release("2", Fit::kPtxJit),         hand_release("1", Fit::kNoImage)};
  a.jit_only = {"5", "4", "2"};
  a.recommended = "5";
  a.install_command = "pip install \"pkg==5\"";
  o.cells = {{a}};
  auto cells = row_cells(render_index_html(o, hand_context()), "pkg");
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0],
            "<td class=\"fit-no-image\" data-rank=\"5\"><div class=\"cell-verdict\">no-image <span "
            "class=\"ver\">6</span></div><div class=\"cell-native\">no release runs "
            "natively</div><div class=\"cell-jit\">JIT only: 4–5, 2</div><code class=\"pip\">pip "
            "install &quot;pkg==5&quot;</code></td>");
}

}  // namespace
}  // namespace smcompat
