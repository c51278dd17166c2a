// The HTML report of a benchmark run (render_bench_html, include/smcompat/report/
// bench_report.hpp): one self-contained page, no network. Header facts, the P2P matrices as
// coloured tables (a heat map), one table per suite, native beside torch, warnings, the baseline
// comparison, and plots drawn by Chart.js (Debian's libjs-chart.js, embedded at build time by
// src/report/CMakeLists.txt and inlined here): TFLOPS vs size per type, bandwidth vs size, JIT vs
// native, torch vs native. The chart configurations are built here as JSON, so the page's script
// only hands them to Chart.js. Results are untrusted: every string is HTML-escaped, and the JSON
// placed in a <script> element has <, > and & escaped so it cannot close the element.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <string_view>

#include "bench_view.hpp"
#include "html_text.hpp"
#include "smcompat/report/bench_report.hpp"
#include "smcompat/util/embedded.hpp"
#include "smcompat/util/json_text.hpp"

SMCOMPAT_EMBEDDED(chartjs)

#ifdef SMCOMPAT_HAVE_CHARTJS
#endif

namespace smcompat {

namespace {

using namespace bench_view;  // NOLINT(build/namespaces): the printers' shared vocabulary
using nlohmann::json;

std::string_view chartjs_source() {
#ifdef SMCOMPAT_HAVE_CHARTJS
  return embedded_text(embedded::chartjs, embedded::chartjs_size);
#else
  return {};
#endif
}

// The embedded script, unless it could end the <script> element it is placed in.
bool chartjs_inlinable() {
  static const bool inlinable = [] {
    std::string lower(chartjs_source());
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return !lower.empty() && lower.find("</script") == std::string::npos &&
           lower.find("<!--") == std::string::npos;
  }();
  return inlinable;
}

// JSON for a <script type="application/json"> element: valid JSON whose text cannot close the
// element or open a comment (\u003c etc. are ordinary JSON string escapes).
std::string script_json(const json& j) {
  const std::string text = json_text(j, -1);
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

// Distinct colours for datasets (Sasha Trubetskoy's list, pale ones left out so that every
// series stands out on white), handed out by series key so that the same series keeps its
// colour across charts.
constexpr const char* kPalette[] = {"#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4",
                                    "#42d4f4", "#f032e6", "#9a6324", "#800000", "#808000",
                                    "#000075", "#469990", "#bfef45", "#ffe119"};

class Colours {
 public:
  const char* operator()(const std::string& key) {
    auto [it, inserted] = map_.try_emplace(key, next_);
    if (inserted) next_ = (next_ + 1) % std::size(kPalette);
    return kPalette[it->second];
  }

 private:
  std::map<std::string, size_t> map_;
  size_t next_ = 0;
};

std::optional<double> param_number(const bench::BenchResult& r, const char* key) {
  auto it = r.params.find(key);
  if (it == r.params.end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (*end != '\0' || !(v > 0)) return std::nullopt;
  return v;
}

std::string param(const bench::BenchResult& r, const char* key, const std::string& fallback) {
  auto it = r.params.find(key);
  return it == r.params.end() || it->second.empty() ? fallback : it->second;
}

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

json axis(const std::string& title, const char* type = "linear") {
  return {{"type", type}, {"title", {{"display", true}, {"text", title}}}};
}

json chart(const char* type, const std::string& title, json data, json x, json y) {
  return {{"type", type},
          {"data", std::move(data)},
          {"options",
           {{"animation", false},  // a screenshot shows the final plot
            {"responsive", false},
            {"plugins", {{"title", {{"display", true}, {"text", title}}}}},
            {"scales", {{"x", std::move(x)}, {"y", std::move(y)}}}}}};
}

json line_dataset(const std::string& label, const char* colour, json points) {
  return {{"label", label},        {"data", std::move(points)},
          {"borderColor", colour}, {"backgroundColor", colour},
          {"borderWidth", 3},      {"pointRadius", 4}};
}

json bar_dataset(const std::string& label, const char* colour, json values) {
  return {{"label", label},
          {"data", std::move(values)},
          {"borderColor", colour},
          {"backgroundColor", colour}};
}

// Series of {x, y} points keyed by series name, in order of first appearance.
struct Series {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<double, double>>> points;
  void add(const std::string& key, double x, double y) {
    if (!points.count(key)) order.push_back(key);
    points[key].emplace_back(x, y);
  }
};

void add_line_chart(json& charts, Colours& colours, const std::string& prefix, const Series& s,
                    const std::string& title, const std::string& x_title,
                    const std::string& y_title) {
  if (s.order.empty()) return;
  json datasets = json::array();
  for (const auto& key : s.order) {
    auto pts = s.points.at(key);
    std::sort(pts.begin(), pts.end());
    json data = json::array();
    for (const auto& [x, y] : pts) data.push_back({{"x", x}, {"y", y}});
    datasets.push_back(line_dataset(key, colours(prefix + key), std::move(data)));
  }
  charts.push_back(
      chart("line", title, {{"datasets", datasets}}, axis(x_title, "logarithmic"), axis(y_title)));
}

// Bars: labels along x, one dataset per series (null where a series lacks a label).
struct Bars {
  std::vector<std::string> labels;
  std::vector<std::string> series;
  std::map<std::pair<std::string, std::string>, double> values;
  void add(const std::string& label, const std::string& s, double v) {
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
    if (std::find(series.begin(), series.end(), s) == series.end()) series.push_back(s);
    values[{label, s}] = v;
  }
};

void add_bar_chart(json& charts, Colours& colours, const std::string& prefix, const Bars& b,
                   const std::string& title, const std::string& y_title, bool log_y = false) {
  if (b.labels.empty()) return;
  json datasets = json::array();
  for (const auto& s : b.series) {
    json data = json::array();
    for (const auto& l : b.labels) {
      auto it = b.values.find({l, s});
      data.push_back(it == b.values.end() ? json(nullptr) : json(it->second));
    }
    datasets.push_back(bar_dataset(s, colours(prefix + s), std::move(data)));
  }
  charts.push_back(chart("bar", title, {{"labels", b.labels}, {"datasets", datasets}},
                         axis("", "category"), axis(y_title, log_y ? "logarithmic" : "linear")));
}

json chart_configs(const bench::BenchRun& run) {
  json charts = json::array();
  Colours colours;
  Series gemm;
  std::map<std::string, Series> memory;  // by unit
  std::map<std::string, Bars> jit;       // by unit
  Bars jit_load;
  for (const auto& r : run.results) {
    if (!r.value) continue;
    // Square, unbatched GEMMs only: the x axis is one size.
    const std::string m_text = param(r, "m", "");
    if (r.suite == "gemm" && r.unit == "TFLOPS" && param(r, "batch", "1") == "1" &&
        param(r, "n", m_text) == m_text && param(r, "k", m_text) == m_text)
      if (auto m = param_number(r, "m"))
        gemm.add(param(r, "dtype", first_word(r.name)), *m, *r.value);
    if (r.suite == "memory")
      if (auto bytes = param_number(r, "bytes")) {
        std::string key = param(r, "engine", "") + " " + param(r, "op", "");
        if (r.params.count("host")) key += " " + r.params.at("host");
        if (key == " ") key = r.name;
        memory[r.unit].add(key, *bytes, *r.value);
      }
    if (r.suite == "jit") {
      const std::string kernel = param(r, "kernel", first_word(r.name));
      const std::string image = param(r, "image", r.name);
      jit[r.unit].add(kernel, image, *r.value);
      for (const char* key : {"load_ms", "jit_load_ms"})
        if (auto it = r.extra.find(key); it != r.extra.end() && it->second > 0)
          jit_load.add(kernel, image, it->second);
    }
  }
  add_line_chart(charts, colours, "gemm:", gemm, "GEMM: TFLOPS vs size, per type",
                 "matrix size (m = n = k)", "TFLOPS");
  for (const auto& [unit, s] : memory)
    add_line_chart(charts, colours, "memory:", s, "Memory: " + unit + " vs size", "bytes", unit);
  for (const auto& [unit, b] : jit)
    add_bar_chart(charts, colours, "jit:", b, "JIT vs native: steady state (" + unit + ")", unit);
  add_bar_chart(charts, colours, "jit:", jit_load, "JIT vs native: first load (ms, log scale)",
                "ms", /*log_y=*/true);
  std::map<std::string, Bars> torch;  // by unit
  std::vector<const bench::BenchResult*> paired;
  for (const auto& p : side_by_side(run)) {
    paired.push_back(p.torch);
    torch[p.native->unit].add(p.native->suite + " " + p.native->name, "native", *p.native->value);
    torch[p.native->unit].add(p.native->suite + " " + p.native->name, "torch", *p.torch->value);
  }
  for (const auto& [unit, b] : torch)
    add_bar_chart(charts, colours, "torch:", b, "native and torch (" + unit + ")", unit);
  // The other torch rows (SDPA, conv, ResNet-50, ...), one chart per unit.
  std::map<std::string, Bars> torch_rows;
  for (const auto& r : run.results)
    if (r.value && is_torch_side(r) && std::find(paired.begin(), paired.end(), &r) == paired.end())
      torch_rows[r.unit].add(r.suite + " " + r.name, "torch", *r.value);
  for (const auto& [unit, b] : torch_rows)
    add_bar_chart(charts, colours, "torch:", b, "torch rows (" + unit + ")", unit);
  return charts;
}

// White to dark blue by t in [0, 1] (a sequential scale, so the darkest cell is the fastest).
std::string heat(double t) {
  t = std::clamp(t, 0.0, 1.0);
  auto mix = [&](int a, int b) { return static_cast<int>(a + (b - a) * t + 0.5); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(247, 8), mix(251, 48), mix(255, 107));
}

void p2p_heat_maps(std::string& out, const bench::BenchRun& run) {
  // (engine direction, unit) → src → dst → value
  std::map<std::pair<std::string, std::string>, std::map<int, std::map<int, double>>> maps;
  // Ordinals beyond kMaxGpus (only a hostile file has them) are left out rather than letting
  // one row ask for a matrix of 2^31 squared cells.
  constexpr int kMaxGpus = 256;
  auto plausible = [](int ordinal) { return ordinal >= 0 && ordinal < kMaxGpus; };
  int n = 0;
  for (const auto& d : run.devices)
    if (plausible(d.ordinal)) n = std::max(n, d.ordinal + 1);
  for (const auto& r : run.results) {
    if (r.suite != "p2p" || !r.value || r.devices.size() != 2) continue;
    if (!plausible(r.devices[0]) || !plausible(r.devices[1])) continue;
    const std::string kind = param(r, "engine", "") + " " + param(r, "direction", "");
    maps[{kind == " " ? "p2p" : kind, r.unit}][r.devices[0]][r.devices[1]] = *r.value;
    n = std::max({n, r.devices[0] + 1, r.devices[1] + 1});
  }
  if (maps.empty()) return;
  out += "<h2>P2P matrix</h2>\n";
  for (const auto& [key, m] : maps) {
    double max = 0;
    for (const auto& [src, row] : m)
      for (const auto& [dst, v] : row) max = std::max(max, v);
    out += fmt::format(
        "<table class=\"heat\"><caption>{} ({}; row: source GPU, column: destination "
        "GPU)</caption>\n<tr><th></th>",
        html_text(key.first), html_text(key.second));
    for (int dst = 0; dst < n; ++dst) out += fmt::format("<th>GPU {}</th>", dst);
    out += "</tr>\n";
    for (int src = 0; src < n; ++src) {
      out += fmt::format("<tr><th>GPU {}</th>", src);
      for (int dst = 0; dst < n; ++dst) {
        auto row = m.find(src);
        if (row == m.end() || !row->second.count(dst)) {
          out += "<td class=\"none\">&mdash;</td>";
          continue;
        }
        const double v = row->second.at(dst);
        const double t = max > 0 ? v / max : 0;
        out += fmt::format("<td style=\"background:{};color:{}\">{}</td>", heat(t),
                           t > 0.5 ? "#fff" : "#000", number(v));
      }
      out += "</tr>\n";
    }
    out += "</table>\n";
  }
}

void suite_table(std::string& out, const SuiteGroup& g, bool device_column) {
  out += "<h2>" + html_text(g.suite) + "</h2>\n";
  if (!g.measured.empty()) {
    // Columns that no row of the suite fills are left out.
    const auto columns = suite_columns(g, device_column, /*flags_always=*/false);
    out += "<table class=\"results\"><tr>";
    for (SuiteColumn c : columns) out += std::string("<th>") + html_text(column_title(c)) + "</th>";
    out += "</tr>\n";
    for (const auto* r : g.measured) {
      std::string cls;
      if (not_converged(*r)) cls += " nc";
      if (throttled(*r)) cls += " thr";
      if (r->verified == false) cls += " bad";
      out += cls.empty() ? "<tr>" : "<tr class=\"" + cls.substr(1) + "\">";
      for (SuiteColumn c : columns) {
        out += column_numeric(c) ? "<td class=\"num\">" : "<td>";
        out += html_text(suite_cell(*r, c));
        if (c == SuiteColumn::kConfiguration && !r->peak_source.empty())
          out += "<span class=\"src\" title=\"" + html_text(r->peak_source) + "\"></span>";
        out += "</td>";
      }
      out += "</tr>\n";
    }
    out += "</table>\n";
    bool any_note = false;
    for (const auto* r : g.measured)
      for (const auto& n : r->notes) {
        if (!any_note) out += "<ul class=\"notes\">\n";
        any_note = true;
        out += "<li>note: " + html_text(r->name) + ": " + html_text(n) + "</li>\n";
      }
    if (any_note) out += "</ul>\n";
  }
  if (!g.skipped.empty()) {
    out += "<p>Skipped:</p>\n<ul class=\"skips\">\n";
    for (const auto* r : g.skipped) {
      std::string where = device_column ? " (GPU " + devices_text(r->devices) + ")" : "";
      out += "<li>" + html_text(r->name + where) + ": " +
             html_text(r->skip_reason.empty() ? "no reason recorded" : r->skip_reason) + "</li>\n";
    }
    out += "</ul>\n";
  }
}

void comparison_table(std::string& out, const BenchComparison& c) {
  out += "<h2>" + html_text(comparison_title(c)) + "</h2>\n";
  out += "<p>" + html_text(comparison_summary(c)) + "</p>\n";
  out +=
      "<table class=\"results\"><tr><th>suite</th><th>configuration</th><th>GPU</th>"
      "<th>baseline</th><th>now</th><th>change</th><th>verdict</th></tr>\n";
  for (const auto& row : c.rows) {
    auto val = [&](const std::optional<double>& v) {
      return v ? number(*v) + " " + row.unit : std::string("-");
    };
    const std::string verdict = verdict_text(row);
    std::string cls = verdict;
    std::replace(cls.begin(), cls.end(), ' ', '-');
    out += "<tr class=\"v-" + cls + "\"><td>" + html_text(row.suite) + "</td><td>" +
           html_text(row.name) + "</td><td>" + html_text(devices_text(row.devices)) +
           "</td><td class=\"num\">" + html_text(val(row.baseline_value)) +
           "</td><td class=\"num\">" + html_text(val(row.value)) + "</td><td class=\"num\">" +
           html_text(change_text(row)) + "</td><td>" + html_text(verdict_shown(row)) +
           "</td></tr>\n";
  }
  out += "</table>\n";
}

constexpr const char* kStyle = R"(
body{font-family:system-ui,sans-serif;margin:24px;color:#111;background:#fff}
h1{margin:0 0 8px}h2{margin:24px 0 8px;font-size:1.2em}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:6px 10px;font-weight:bold}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 8px;
text-align:left;font-size:13px}th{background:#f0f0f0}td.num{text-align:right}
table.facts td:first-child{font-weight:bold}tr.nc td,tr.thr td{background:#fff6d8}
tr.bad td{background:#fde0e0}tr.v-changed td{background:#fff0c0}td.none{color:#999}
.charts{display:grid;grid-template-columns:repeat(2,642px);gap:12px}
.charts canvas{border:1px solid #ddd}.noplots{color:#a00;font-weight:bold}
table.heat td{text-align:right;min-width:70px}
caption{white-space:nowrap;text-align:left;font-weight:bold})";

}  // namespace

bool bench_html_plots_available() { return chartjs_inlinable(); }

std::string render_bench_html(const bench::BenchRun& run, const BenchComparison* comparison,
                              const BenchHtmlOptions& options) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>smcompat bench: " +
      html_text(run.host.empty() ? "run" : run.host) + " " + html_text(run.started_utc) +
      "</title>\n<style>" + kStyle + "\n</style>\n</head>\n<body>\n<h1>smcompat bench</h1>\n";
  if (auto banner = synthetic_banner(run); !banner.empty())
    out += "<p class=\"banner\">" + html_text(banner) + "</p>\n";
  out += "<table class=\"facts\">\n";
  for (const auto& [label, value] : header_facts(run))
    out += "<tr><td>" + html_text(label) + "</td><td>" + html_text(value) + "</td></tr>\n";
  out += "</table>\n<ul class=\"devices\">\n";
  for (const auto& line : device_lines(run)) out += "<li>" + html_text(line) + "</li>\n";
  out += "</ul>\n";

  // Plots first, so that they are on the first screen.
  const json charts = chart_configs(run);
  const bool plots = options.plots && bench_html_plots_available();
  out += "<h2>Plots</h2>\n";
  if (!plots) {
    out += std::string("<p class=\"noplots\">Plots are unavailable: ") +
           (options.plots ? "this smcompat was built without Chart.js (Debian package "
                            "libjs-chart.js)"
                          : "plots were turned off for this page") +
           ". The tables below hold every figure.</p>\n";
  } else if (charts.empty()) {
    out += "<p>No results to plot.</p>\n";
  } else {
    out += "<div class=\"charts\">\n";
    for (size_t i = 0; i < charts.size(); ++i)
      out += fmt::format("<canvas id=\"chart{}\" width=\"640\" height=\"330\"></canvas>\n", i);
    out += "</div>\n";
  }

  p2p_heat_maps(out, run);
  const bool device_column = needs_device_column(run);
  for (const auto& g : group_by_suite(run)) suite_table(out, g, device_column);
  if (run.results.empty()) out += "<p>No results recorded.</p>\n";

  if (auto pairs = side_by_side(run); !pairs.empty()) {
    out +=
        "<h2>native and torch side by side</h2>\n<table class=\"results\"><tr><th>suite</th>"
        "<th>configuration</th><th>native</th><th>torch</th><th>torch/native</th></tr>\n";
    for (const auto& p : pairs)
      out += "<tr><td>" + html_text(p.native->suite) + "</td><td>" + html_text(p.native->name) +
             "</td><td class=\"num\">" + html_text(value_text(*p.native)) +
             "</td><td class=\"num\">" + html_text(value_text(*p.torch)) +
             "</td><td class=\"num\">" + html_text(ratio_text(p)) + "</td></tr>\n";
    out += "</table>\n";
  }
  if (!run.warnings.empty()) {
    out += "<h2>warnings</h2>\n<ul>\n";
    for (const auto& w : run.warnings) out += "<li>" + html_text(w) + "</li>\n";
    out += "</ul>\n";
  }
  if (comparison) comparison_table(out, *comparison);

  if (plots && !charts.empty()) {
    out += "<script>\n";
    out += chartjs_source();
    out += "\n</script>\n<script type=\"application/json\" id=\"smcompat-charts\">";
    out += script_json(charts);
    out +=
        "</script>\n<script>\n"
        "(function () {\n"
        "  var configs = JSON.parse(document.getElementById('smcompat-charts').textContent);\n"
        "  configs.forEach(function (config, i) {\n"
        "    new Chart(document.getElementById('chart' + i), config);\n"
        "  });\n"
        "})();\n</script>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace smcompat
