// The cost model against published serving figures (docs/plan.md, "Calibration"). Each row is a
// measurement someone else made and published, with its source; the model's defaults were fitted
// to the first series only (SGLang, DeepSeek-R1 FP8, TP8 on 8xH200), the other rows are held out.
// docs/plan.md's table is read here: each row's prediction and error must be the ones it states
// (a row drifting past its stated error, or a page edited apart from the model, fails).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "smcompat/plan/plan.hpp"

namespace smcompat::plan {
namespace {

struct PublishedRow {
  std::string id;      ///< as in docs/plan.md
  std::string config;  ///< tests/plan/configs/<config>.json
  std::string gpus;    ///< --gpus spec
  PlanShape shape;
  Workload workload;
  double published_tpot_ms;
  bool fitted;                                       ///< used to fit the defaults (else held out)
  std::function<void(ModelSpec&)> adjust = nullptr;  ///< the checkpoint's formats, where the
                                                     ///< config file is not the one measured
  std::string source;
};

PlanShape tp_sharded(int n, ExpertMode experts = ExpertMode::kTpSharded) {
  PlanShape s;
  s.tp = n;
  s.experts = experts;
  return s;
}

std::vector<PublishedRow> published_rows() {
  const std::string r1 = "deepseek-ai__DeepSeek-R1";
  const std::string sglang_870 = "github.com/SemiAnalysisAI/InferenceX/issues/870";
  const std::string trtllm_5929 = "github.com/NVIDIA/TensorRT-LLM/issues/5929";
  const std::string sglang_6121 = "github.com/sgl-project/sglang/pull/6121";
  const std::string tt_356 = "github.com/tenstorrent/tt-inference-server/issues/356";
  const std::string qwen3_moe = "Qwen__Qwen3-30B-A3B";
  const PlanShape ep8 = tp_sharded(8, ExpertMode::kExpertParallel);
  auto nvfp4 = [](ModelSpec& m) {  // nvidia/DeepSeek-R1-FP4: NVFP4 experts, BF16 attention
    m.expert_format = WeightFormat::kNvfp4;
    m.attention_format = WeightFormat::kBf16;
  };
  auto awq = [](ModelSpec& m) {  // DeepSeek-R1-0528-AWQ: 4-bit weights in every linear layer
    m.expert_format = WeightFormat::kInt4;
    m.attention_format = WeightFormat::kInt4;
  };
  return {
      {"P1a", r1, "8xH200", tp_sharded(8), {8, 1024, 1024}, 12.8, true, nullptr, sglang_870},
      {"P1b", r1, "8xH200", tp_sharded(8), {16, 1024, 1024}, 17.2, true, nullptr, sglang_870},
      {"P1c", r1, "8xH200", tp_sharded(8), {32, 1024, 1024}, 25.6, true, nullptr, sglang_870},
      {"P1d", r1, "8xH200", tp_sharded(8), {64, 1024, 1024}, 34.6, true, nullptr, sglang_870},
      {"P2a", r1, "8xH200", tp_sharded(8), {1, 1600, 600}, 13.78, false, nullptr, trtllm_5929},
      {"P2b", r1, "8xH200", tp_sharded(8), {8, 1600, 600}, 18.18, false, nullptr, trtllm_5929},
      {"P2c", r1, "8xH200", ep8, {1, 1600, 600}, 11.0, false, nullptr, trtllm_5929},
      {"P2d", r1, "8xH200", ep8, {8, 1600, 600}, 16.42, false, nullptr, trtllm_5929},
      {"P2e", r1, "8xB200", tp_sharded(8), {1, 1600, 600}, 6.78, false, nvfp4, trtllm_5929},
      {"P3",
       qwen3_moe,
       "4xA40",
       tp_sharded(4),
       {128, 512, 256},
       52.85,
       false,
       nullptr,
       sglang_6121},
      {"P4", r1, "8xH100", tp_sharded(8), {1, 128, 128}, 16.1, false, awq, tt_356},
  };
}

double predicted_tpot_ms(const PublishedRow& row, const PlanAssumptions& a) {
  auto model = read_model_config(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/" +
                                 row.config + ".json");
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().to_string());
  if (!model.ok()) return 0;
  if (row.adjust) row.adjust(*model);
  auto sets = parse_gpu_sets(row.gpus, Catalog::builtin());
  EXPECT_TRUE(sets.ok());
  if (!sets.ok()) return 0;
  PlanRequest rq;
  rq.model = *model;
  rq.gpus = sets->front();
  rq.workload = row.workload;
  rq.assumptions = a;
  return estimate(rq, row.shape).tpot_ms;
}

// One row of the calibration table in docs/plan.md, as the page prints it.
struct DocumentedRow {
  double published_ms = 0, predicted_ms = 0;
  int error_pct = 0;  ///< the error column, rounded to a whole percent
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The leading number of a cell ("13.78 ms (p50 ITL)", "−31 %": U+2212 is a minus).
double leading_number(std::string cell) {
  for (size_t at; (at = cell.find("\u2212")) != std::string::npos;) cell.replace(at, 3, "-");
  size_t start = cell.find_first_not_of(' ');
  return start == std::string::npos ? NAN : std::strtod(cell.c_str() + start, nullptr);
}

// The rows of docs/plan.md's calibration table, by id ("| P1a | model | GPUs | engine, plan |
// workload | published | predicted | error | source |").
std::map<std::string, DocumentedRow> documented_rows(const std::string& page) {
  std::map<std::string, DocumentedRow> rows;
  std::istringstream lines(page);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| P")) continue;
    std::vector<std::string> cells;
    for (size_t from = 1, bar; (bar = line.find('|', from)) != std::string::npos; from = bar + 1)
      cells.push_back(line.substr(from, bar - from));
    if (cells.size() < 8) continue;
    std::string id = cells[0];
    id.erase(std::remove(id.begin(), id.end(), ' '), id.end());
    if (id.size() < 2 || id[0] != 'P' || !std::isdigit(static_cast<unsigned char>(id[1])))
      continue;  // another table's row ("| PCIe with P2P |")
    rows[id] = {leading_number(cells[5]), leading_number(cells[6]),
                int(std::lround(leading_number(cells[7])))};
  }
  return rows;
}

const std::string& plan_page() {
  static const std::string page = read_text(std::string(SMCOMPAT_SOURCE_DIR) + "/docs/plan.md");
  return page;
}

// The table of docs/plan.md, row by row: the page holds the published figure of each row, the
// model's prediction as it stands, and an error column that is that prediction's error against
// the published figure. A drift of the model, or an edit of one side only, fails here.
TEST(Calibration, PredictionsAndErrorsAreTheDocumentedOnes) {
  auto documented = documented_rows(plan_page());
  ASSERT_EQ(documented.size(), published_rows().size()) << "rows in docs/plan.md";
  for (const auto& r : published_rows()) {
    SCOPED_TRACE(r.id);
    ASSERT_TRUE(documented.contains(r.id));
    const DocumentedRow& doc = documented.at(r.id);
    double p = predicted_tpot_ms(r, PlanAssumptions{});
    double error = p / r.published_tpot_ms - 1;
    fmt::print("{:4} {:28} {:8} {:10} B={:3} published {:6.2f} predicted {:6.2f} error {:+4.0f}%\n",
               r.id, r.config, r.gpus, r.shape.name(), r.workload.batch, r.published_tpot_ms, p,
               error * 100);
    EXPECT_DOUBLE_EQ(doc.published_ms, r.published_tpot_ms);
    EXPECT_NEAR(doc.predicted_ms, p, 0.005 + 1e-9) << "predicted " << p;
    // The row's error is the one the page states: within it (to the percent it is rounded to),
    // and the same when rounded.
    EXPECT_LE(std::abs(error) * 100, std::abs(doc.error_pct) + 0.5) << "error " << error * 100;
    EXPECT_EQ(std::lround(error * 100), doc.error_pct) << "error " << error * 100;
  }
}

// The Error paragraph's summary figures are those of the rows: the largest error and the RMS on
// the fitted series, and the mean absolute error of the held-out rows.
TEST(Calibration, ErrorParagraphSummarisesTheRows) {
  double fitted_max = 0, fitted_sq = 0, held_abs = 0;
  int fitted = 0, held = 0;
  for (const auto& r : published_rows()) {
    double error = std::abs(predicted_tpot_ms(r, PlanAssumptions{}) / r.published_tpot_ms - 1);
    if (r.fitted) {
      fitted_max = std::max(fitted_max, error);
      fitted_sq += error * error;
      ++fitted;
    } else {
      held_abs += error;
      ++held;
    }
  }
  std::string page = plan_page();  // the paragraph's words, whatever their line breaks
  std::replace(page.begin(), page.end(), '\n', ' ');
  std::string within =
      fmt::format("On the fitted series the model is within {:.0f} % (RMS {:.1f} %)",
                  std::round(fitted_max * 100), std::sqrt(fitted_sq / fitted) * 100);
  EXPECT_NE(page.find(within), std::string::npos) << within;
  std::string mean = fmt::format("Mean absolute error over the seven held-out rows: {:.0f} %",
                                 held_abs / held * 100);
  EXPECT_EQ(held, 7);
  EXPECT_NE(page.find(mean), std::string::npos) << mean;
}

// The held-out rows may only get better: each row's error at most today's (rounded up to the
// half percent) and their mean absolute error at most today's 31.9 %, whatever docs/plan.md says,
// so that a worse model cannot pass by re-pasting the table. (Issue 31 raised P3 from 4.5 to 5.0,
// P4 from 61.0 to 61.5 and the mean from 31.75 to 31.95: a decode step no longer reads the whole
// input embedding table, which it never did, so predictions under the published times moved
// down by ~0.08 ms; the refit overhead, 59 us, recovers most of it on the fitted series.)
TEST(Calibration, HeldOutErrorsMayOnlyShrink) {
  const std::map<std::string, double> ceiling_pct = {{"P2a", 52.0}, {"P2b", 31.0}, {"P2c", 40.0},
                                                     {"P2d", 23.5}, {"P2e", 11.5}, {"P3", 5.0},
                                                     {"P4", 61.5}};
  double sum = 0;
  int held = 0;
  for (const auto& r : published_rows()) {
    if (r.fitted) continue;
    SCOPED_TRACE(r.id);
    ASSERT_TRUE(ceiling_pct.contains(r.id)) << "a new held-out row needs its ceiling";
    double error = std::abs(predicted_tpot_ms(r, PlanAssumptions{}) / r.published_tpot_ms - 1);
    EXPECT_LE(error * 100, ceiling_pct.at(r.id));
    sum += error;
    ++held;
  }
  EXPECT_EQ(held, int(ceiling_pct.size()));
  EXPECT_LE(sum / held * 100, 31.95);
}

// The defaults are the fit they claim to be: the least-squares relative error over the fitted
// series, searched on a grid (efficiency in steps of 0.01, overhead in steps of 1 us).
TEST(Calibration, DefaultsAreTheLeastSquaresFitOfSeriesP1) {
  std::vector<PublishedRow> fitted;
  for (auto& r : published_rows())
    if (r.fitted) fitted.push_back(r);
  ASSERT_EQ(fitted.size(), 4u);
  auto rms = [&](double eff, double overhead) {
    PlanAssumptions a;
    a.memory_efficiency = eff;
    a.per_layer_overhead_us = overhead;
    double sum = 0;
    for (const auto& r : fitted)
      sum += std::pow(predicted_tpot_ms(r, a) / r.published_tpot_ms - 1, 2);
    return std::sqrt(sum / fitted.size());
  };
  PlanAssumptions d;
  double at_defaults = rms(d.memory_efficiency, d.per_layer_overhead_us);
  EXPECT_LT(at_defaults, 0.03);
  // No neighbour on the grid does better.
  for (double de : {-0.01, 0.0, 0.01})
    for (double dov : {-1.0, 0.0, 1.0})
      EXPECT_GE(rms(d.memory_efficiency + de, d.per_layer_overhead_us + dov), at_defaults - 1e-12)
          << "memory_efficiency " << d.memory_efficiency + de << ", overhead "
          << d.per_layer_overhead_us + dov;
}

}  // namespace
}  // namespace smcompat::plan
