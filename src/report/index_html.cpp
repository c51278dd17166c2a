// The wheel index as one HTML page (`smcompat index report --html OUT`,
// include/smcompat/report/index_report.hpp): a table of packages x GPUs, each cell the verdict of
// the package's newest release on that GPU's machine, the releases that run natively
// (index_view's native_cell()), the JIT-only ranges and the pip line advise() gives. Self-contained
// like the bench page (src/report/bench_html.cpp): inline CSS and a small inline script that sorts
// by a column (by verdict rank for a GPU) and filters rows by a search box; no network, no
// external script or font. The script reads `#q=TEXT&sort=N&order=desc` from the address, so a
// link (and the browser test, tests/report/browser/) can open the page searched and sorted.
// Names, versions and commands come from the index (untrusted): every one is HTML-escaped, and
// no index data is placed inside the script.
#include <fmt/format.h>

#include "html_text.hpp"
#include "index_view.hpp"
#include "smcompat/report/index_report.hpp"

namespace smcompat {
namespace index_html_page {
namespace {

// Sort keys of a cell (ascending = best first): rank(Fit) for a newest release with device code,
// then releases without GPU code, then packages with no wheel for the GPU's machine.
constexpr int kRankNoDeviceCode = 50;
constexpr int kRankNotIndexed = 100;

// Cell classes and their colours (the legend's too); the browser test reads the colours from
// this style sheet.
constexpr const char* kPageStyle = R"(
body{font-family:system-ui,sans-serif;margin:24px;color:#111;background:#fff}
h1{margin:0 0 8px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 6px;
text-align:left;vertical-align:top;font-size:13px}th{background:#f0f0f0}
table.facts td:first-child{font-weight:bold}
p.note{max-width:1100px;font-size:13px;color:#333}
.search{margin:12px 0;font-size:14px}.search input{font-size:14px;padding:3px 6px;width:260px}
#matrix thead th{position:sticky;top:0;cursor:pointer;user-select:none;min-width:118px}
#matrix thead th:first-child{min-width:170px}
#matrix th[aria-sort=ascending]::after{content:" \25B2"}
#matrix th[aria-sort=descending]::after{content:" \25BC"}
#matrix tbody th{font-weight:bold;background:#fafafa}
.sub{font-weight:normal;color:#555;font-size:12px}
.ver{font-weight:normal}.cell-verdict{font-weight:bold}
.cell-native,.cell-jit{font-size:12px}
code.pip{display:block;font-size:11px;overflow-wrap:anywhere;margin-top:2px;color:#222}
.fit-native{background:#bfeccb}.fit-compatible-sass{background:#d9f2c4}
.fit-ptx-jit{background:#fff0b3}.fit-unsupported-ptx,.fit-driver-too-old{background:#ffd7a8}
.fit-no-image{background:#f6c6c6}.fit-none{background:#e8edf3}
.fit-absent{background:#f7f7f7;color:#888}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;border:1px solid #ccc;
font-size:12px})";

std::string cell_class(const PackageAdvice& a) {
  if (!a.indexed || a.releases.empty()) return "fit-absent";
  const WheelVerdict& v = a.releases.front().verdict;
  return v.has_device_code ? std::string("fit-") + to_string(v.fit) : "fit-none";
}

int cell_rank(const PackageAdvice& a) {
  if (!a.indexed || a.releases.empty()) return kRankNotIndexed;
  const WheelVerdict& v = a.releases.front().verdict;
  return v.has_device_code ? rank(v.fit) : kRankNoDeviceCode;
}

std::string matrix_cell(const PackageAdvice& a, const std::string& machine) {
  std::string out = fmt::format("<td class=\"{}\" data-rank=\"{}\">", cell_class(a), cell_rank(a));
  if (!a.indexed || a.releases.empty()) {
    out += "<div class=\"cell-verdict\">not indexed</div><div class=\"cell-native\">no " +
           html_text(machine) + " wheels</div></td>";
    return out;
  }
  const ReleaseFit& newest = a.releases.front();
  out += "<div class=\"cell-verdict\">" + html_text(index_view::fit_word(newest.verdict)) +
         " <span class=\"ver\">" + html_text(newest.version) + "</span></div>";
  if (a.device_code)
    out += "<div class=\"cell-native\">" +
           html_text(a.newest_native ? "runs natively: " + index_view::native_cell(a)
                                     : std::string("no release runs natively")) +
           "</div>";
  if (auto jit = index_view::jit_ranges(a); !jit.empty())
    out += "<div class=\"cell-jit\">JIT only: " + html_text(jit) + "</div>";
  if (!a.install_command.empty())
    out += "<code class=\"pip\">" + html_text(a.install_command) + "</code>";
  return out + "</td>";
}

constexpr const char* kPageScript = R"(
(function () {
  var table = document.getElementById('matrix');
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var search = document.getElementById('search');
  var count = document.getElementById('count');
  var state = {col: 0, desc: false};
  function key(row, col) {
    return col === 0 ? row.dataset.package : Number(row.cells[col].dataset.rank);
  }
  function sortBy(col, desc) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, col), y = key(b, col);
      var c = x < y ? -1 : x > y ? 1 : 0;
      if (desc) c = -c;
      if (c === 0) c = a.dataset.package < b.dataset.package ? -1 : 1;
      return c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    for (var i = 0; i < heads.length; ++i)
      heads[i].setAttribute('aria-sort', i === col ? (desc ? 'descending' : 'ascending') : 'none');
    state = {col: col, desc: desc};
  }
  function filter() {
    var q = search.value.trim().toLowerCase(), shown = 0;
    Array.prototype.forEach.call(body.rows, function (r) {
      var hit = q === '' || r.dataset.package.indexOf(q) !== -1;
      r.hidden = !hit;
      if (hit) ++shown;
    });
    count.textContent = shown + ' of ' + body.rows.length + ' packages';
  }
  function remember() {
    var p = new URLSearchParams();
    if (search.value) p.set('q', search.value);
    if (state.col !== 0 || state.desc) p.set('sort', String(state.col));
    if (state.desc) p.set('order', 'desc');
    try { history.replaceState(null, '', '#' + p.toString()); } catch (e) {}
  }
  Array.prototype.forEach.call(heads, function (th, i) {
    th.addEventListener('click', function () {
      sortBy(i, state.col === i ? !state.desc : false);
      remember();
    });
  });
  search.addEventListener('input', function () { filter(); remember(); });
  var params = new URLSearchParams(location.hash.slice(1));
  if (params.has('q')) search.value = params.get('q');
  var col = parseInt(params.get('sort') || '0', 10);
  sortBy(col >= 0 && col < heads.length ? col : 0, params.get('order') === 'desc');
  filter();
})();
)";

}  // namespace
}  // namespace index_html_page

std::string render_index_html(const IndexOverview& overview, const IndexAnswerContext& context) {
  using namespace index_html_page;  // NOLINT(build/namespaces): this page's helpers
  const size_t n = overview.packages.size();
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>smcompat index report: {} packages, {} GPUs</title>\n<style>{}\n</style>\n"
      "</head>\n<body>\n<h1>smcompat index report</h1>\n<table class=\"facts\">\n",
      n, overview.targets.size(), kPageStyle);
  out += "<tr><td>index</td><td>" + html_text(index_view::index_fact(context)) + "</td></tr>\n";
  out += "<tr><td>packages</td><td>" + std::to_string(n) + "</td></tr>\n</table>\n";
  out +=
      "<p class=\"note\">Each cell is for the GPU's machine (aarch64 for DGX Spark and Grace, "
      "x86_64 otherwise): the verdict of the newest indexed release, the releases that run "
      "natively (SASS for the GPU or a compatible one), the releases that run only through PTX "
      "JIT, and the pip line of the release <code>smcompat advise</code> recommends. Predicted "
      "from the device code of each wheel (compatibility rules), not run on a GPU. Refresh the "
      "index with <code>" +
      html_text(context.index_rebuild.empty() ? "smcompat index build PKG..."
                                              : context.index_rebuild) +
      "</code>.</p>\n";
  out +=
      "<p class=\"legend\"><span class=\"fit-native\">native</span><span "
      "class=\"fit-compatible-sass\">compatible-sass</span><span class=\"fit-ptx-jit\">ptx-jit"
      "</span><span class=\"fit-driver-too-old\">unsupported-ptx, driver-too-old</span><span "
      "class=\"fit-no-image\">no-image</span><span class=\"fit-none\">no device code</span><span "
      "class=\"fit-absent\">not indexed</span></p>\n";
  out += fmt::format(
      "<p class=\"search\"><label for=\"search\">Search packages</label> <input id=\"search\" "
      "type=\"search\" placeholder=\"package name\" autocomplete=\"off\"> <span id=\"count\">{0} "
      "of {0} packages</span></p>\n",
      n);
  out += "<table id=\"matrix\">\n<thead><tr><th aria-sort=\"ascending\">package</th>";
  for (size_t t = 0; t < overview.targets.size(); ++t) {
    const Target& target = overview.targets[t];
    const std::string machine = t < overview.machines.size() ? overview.machines[t] : "";
    out += "<th aria-sort=\"none\">" + html_text(target.name) + "<br><span class=\"sub\">" +
           html_text(fmt::format("sm_{} · {}", target.cc.arch(), machine)) + "</span></th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (size_t p = 0; p < n; ++p) {
    const std::string& name = overview.packages[p];
    out += "<tr data-package=\"" + html_text(name) + "\"><th>" + html_text(name) + "</th>";
    for (size_t t = 0; t < overview.targets.size(); ++t)
      if (p < overview.cells.size() && t < overview.cells[p].size())
        out += matrix_cell(overview.cells[p][t],
                           t < overview.machines.size() ? overview.machines[t] : "");
      else
        out += "<td></td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n<script>" + std::string(kPageScript) + "</script>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace smcompat
