// Every term of the cost model (memory per GPU, the largest batch that fits, bytes read, FLOPs,
// bytes sent, times, the prefill, output tokens/s) for DeepSeek-V3, Qwen3-30B-A3B and gpt-oss-120b
// (sliding windows) on 8xH100 SXM, 4xRTX PRO 6000 and 2xRTX 5090 without P2P, in TP, replica,
// TP+EP, DP attention + EP and pipeline plans, at the default workload (64 sequences, 1024-token
// prompts, 1024 generated), against values worked out
// apart from the C++: tests/plan/hand_values.py writes docs/plan.md's formulas out with the
// per-layer parameter counts of tests/plan/model_test.cpp, and the numbers below are what it
// prints. One case in full, as a reader would check it (DeepSeek-V3, TP8 on 8xH100, FP8 weights
// at 1 + 4/128^2 bytes per parameter):
//   weights  = embeddings 2 x 129280 x 7168 / 8 x 2 B          =    463,339,520
//            + attention 187,107,328 x 61 / 8 x FP8            =  1,427,041,689.8
//            + dense FFN 396,361,728 x 3 / 8 x FP8             =    148,671,936
//            + shared expert 44,040,192 x 58 / 8 x FP8         =    319,369,344
//            + routed 44,040,192 x 256 x 58 / 8 x FP8          = 81,758,552,064
//            + routers and norms (1,835,264 x 58 + 14,336 x 61) x 2 B = 214,639,616
//            = 84,331,614,169 bytes: more than an H100's 80 GiB before any KV cache (no fit).
//   KV cache = 64 sequences x 2048 tokens x 61 layers x 1152 B (MLA latent, on every TP rank)
//            = 9,210,691,584 bytes.
//   reserve  = 10 % of 80 GiB + 2 GiB = 10,737,418,239 bytes.
//   decode   : the 64 tokens pick 8 of 256 experts each: 256 x (1 - (1 - 8/256)^64) = 222.4
//              experts touched per layer; memory time = bytes read / (3350 GB/s x 0.59);
//              all-reduce = 2 x 61 messages x 2 x 7/8 x 64 x 7168 x 2 B = 195,887,104 B sent,
//              over 450 GB/s x 370/450 plus 2 x 61 x 14 steps x 10.1/14 us; overhead
//              61 x 59 us.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "smcompat/plan/plan.hpp"

namespace smcompat::plan {
namespace {

struct HandCase {
  std::string what, config, gpus;
  int tp, dp, pp;
  ExpertMode experts;
  AllToAll a2a;
  MemoryUse memory;
  bool fits;
  int max_batch_that_fits;
  double weight_bytes_read, kv_bytes_read, flops, allreduce_bytes, all2all_bytes, pipeline_bytes,
      imbalance;
  double memory_s, compute_s, comm_s, overhead_s, step_s;
  double prefill_s, output_tokens_per_s;
};

// `python3 tests/plan/hand_values.py --cpp` prints these initializers.
const std::vector<HandCase>& hand_cases() {
  static const std::vector<HandCase> cases = {
      {"DeepSeek-V3 on 8xH100, pp 1 tp 8 dp 1",
       "deepseek-ai__DeepSeek-V3",
       "8xH100",
       8,
       1,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {84331614169ull, 9210691584ull, 549396480ull, 10737418239ull},
       false,
       0,
       73383621219.66203,
       6908018688.0,
       793068339200.0,
       195887104.0,
       0.0,
       0.0,
       1.0,
       0.04062314187081307,
       0.0006679032669698501,
       0.0017616246054054053,
       0.0035989999999999998,
       0.04598376647621847,
       1.0936937593001208,
       1360.2022358943739},
      {"DeepSeek-V3 on 8xH100, pp 1 tp 1 dp 8 EP deepep",
       "deepseek-ai__DeepSeek-V3",
       "8xH100",
       1,
       8,
       1,
       ExpertMode::kExpertParallel,
       AllToAll::kDeepEp,
       {100840571598ull, 1151336448ull, 1077878784ull, 10737418239ull},
       false,
       0,
       88270087512.34953,
       863502336.0,
       869527794906.2485,
       0.0,
       56566795.03892369,
       0.0,
       1.2338535866733713,
       0.045096680925044035,
       0.0007322955995504873,
       0.0002365689441206432,
       0.0035989999999999998,
       0.048932249869164675,
       0.6550901183852689,
       1291.051756450297},
      {"DeepSeek-V3 on 4xRTX PRO 6000, pp 1 tp 4 dp 1",
       "deepseek-ai__DeepSeek-V3",
       "4x\"RTX PRO 6000\"",
       4,
       1,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {168448588723ull, 9210691584ull, 629030912ull, 12455405158ull},
       false,
       0,
       146551685319.32407,
       6908018688.0,
       1586136678400.0,
       167903232.0,
       0.0,
       0.0,
       1.0,
       0.14514575515220574,
       0.0026435611306666667,
       0.0067318066285714274,
       0.0035989999999999998,
       0.15547656178077715,
       7.007345841627184,
       394.2836923903978},
      {"DeepSeek-V3 on 2xRTX 5090:nop2p, pp 1 tp 2 dp 1",
       "deepseek-ai__DeepSeek-V3",
       "2xRTX 5090:nop2p",
       2,
       1,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {336682537831ull, 9210691584ull, 788299776ull, 5583457484ull},
       false,
       0,
       292887813518.64813,
       6908018688.0,
       3172273356800.0,
       111935488.0,
       0.0,
       0.0,
       1.0,
       0.28355386672087635,
       0.012618430217979315,
       0.0055543083709273175,
       0.0035989999999999998,
       0.29270717509180366,
       14.909938902269595,
       208.287457003187},
      {"Qwen3-30B-A3B on 8xH100, pp 1 tp 1 dp 8",
       "Qwen__Qwen3-30B-A3B",
       "8xH100",
       1,
       8,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {61064241152ull, 1610612736ull, 340406272ull, 10737418239ull},
       true,
       544,
       25842920626.5,
       1207959552.0,
       58129055744.0,
       0.0,
       0.0,
       0.0,
       1.0,
       0.013686253568682014,
       9.795931200539265e-05,
       0.0,
       0.002832,
       0.016518253568682015,
       0.09202492773036737,
       3853.5363180644495},
      {"Qwen3-30B-A3B on 8xH100, pp 1 tp 1 dp 8 EP allgather",
       "Qwen__Qwen3-30B-A3B",
       "8xH100",
       1,
       8,
       1,
       ExpertMode::kExpertParallel,
       AllToAll::kAllgatherReduceScatter,
       {10329939968ull, 1610612736ull, 340406272ull, 10737418239ull},
       true,
       2552,
       9591132308.554085,
       1207959552.0,
       64908711914.997406,
       0.0,
       22020096.0,
       0.0,
       1.2338535866733713,
       0.005463744933242643,
       0.00010938441509099664,
       0.000544313772972973,
       0.002832,
       0.008840058706215617,
       0.15381743455343103,
       7118.806505629114},
      {"Qwen3-30B-A3B on 4xRTX PRO 6000, pp 1 tp 4 dp 1",
       "Qwen__Qwen3-30B-A3B",
       "4x\"RTX PRO 6000\"",
       4,
       1,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {15285229568ull, 3221225472ull, 194273280ull, 12455405158ull},
       true,
       1488,
       14896888105.10817,
       2415919104.0,
       116258111488.0,
       37748736.0,
       0.0,
       0.0,
       1.0,
       0.01637485548682295,
       0.00038445142687830685,
       0.0026008210285714283,
       0.002832,
       0.02180767651539438,
       1.4786452948656086,
       2752.490932548804},
      {"Qwen3-30B-A3B on 4xRTX PRO 6000, pp 1 tp 1 dp 4 EP allgather",
       "Qwen__Qwen3-30B-A3B",
       "4x\"RTX PRO 6000\"",
       1,
       4,
       1,
       ExpertMode::kExpertParallel,
       AllToAll::kAllgatherReduceScatter,
       {17577697280ull, 3221225472ull, 345268224ull, 12455405158ull},
       true,
       1440,
       16722411817.10817,
       2415919104.0,
       125134765084.96289,
       0.0,
       18874368.0,
       0.0,
       1.1530931089239487,
       0.018101478247113507,
       0.00041380544009577677,
       0.0013004105142857142,
       0.002832,
       0.02223388876139922,
       0.9096213995171388,
       2767.903796438169},
      {"Qwen3-30B-A3B on 2xRTX 5090:nop2p, pp 1 tp 2 dp 1",
       "Qwen__Qwen3-30B-A3B",
       "2xRTX 5090:nop2p",
       2,
       1,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {30544900096ull, 6442450944ull, 254328832ull, 5583457484ull},
       false,
       0,
       29767955026.21634,
       4831838208.0,
       232516222976.0,
       25165824.0,
       0.0,
       0.0,
       1.0,
       0.032725288697616844,
       0.0018497710658393,
       0.0016111927819548871,
       0.002832,
       0.03716848147957173,
       2.8376529305147353,
       1602.4185736374197},
      {"Qwen3-30B-A3B on 2xRTX 5090:nop2p, pp 1 tp 1 dp 2 EP allgather",
       "Qwen__Qwen3-30B-A3B",
       "2xRTX 5090:nop2p",
       1,
       2,
       1,
       ExpertMode::kExpertParallel,
       AllToAll::kAllgatherReduceScatter,
       {32073211904ull, 6442450944ull, 354992128ull, 5583457484ull},
       false,
       0,
       30984970834.21634,
       4831838208.0,
       242766099663.4192,
       0.0,
       12582912.0,
       0.0,
       1.0883883476483185,
       0.03387637053781055,
       0.0019313134420319744,
       0.0008055963909774436,
       0.002832,
       0.037513966928787994,
       2.2635532964777134,
       1611.0977165516745},
      {"Qwen3-30B-A3B on 4xRTX PRO 6000, pp 1 tp 4 dp 1 EP",
       "Qwen__Qwen3-30B-A3B",
       "4x\"RTX PRO 6000\"",
       4,
       1,
       1,
       ExpertMode::kExpertParallel,
       AllToAll::kNone,
       {15285229568ull, 3221225472ull, 345268224ull, 12455405158ull},
       true,
       1485,
       14896888105.10817,
       2415919104.0,
       125134765084.96289,
       37748736.0,
       0.0,
       0.0,
       1.1530931089239487,
       0.01637485548682295,
       0.00041380544009577677,
       0.0026008210285714283,
       0.002832,
       0.02180767651539438,
       1.4795846232885674,
       2752.3823469592007},
      {"Qwen3-30B-A3B on 4xRTX PRO 6000, pp 2 tp 2 dp 1",
       "Qwen__Qwen3-30B-A3B",
       "4x\"RTX PRO 6000\"",
       2,
       1,
       2,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {15272450048ull, 3221225472ull, 254328832ull, 12455405158ull},
       true,
       1483,
       26869424825.82596,
       2415919104.0,
       126215389184.0,
       12582912.0,
       0.0,
       262144.0,
       1.0,
       0.02769875901353091,
       0.00041737893248677246,
       0.0008797158857142858,
       0.002832,
       0.03141047489924519,
       0.8675742471847618,
       1984.021473807708},
      {"DeepSeek-V3 on 8xH100, pp 2 tp 4 dp 1",
       "deepseek-ai__DeepSeek-V3",
       "8xH100",
       4,
       1,
       2,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {85597424769ull, 4680843264ull, 629030912ull, 10737418239ull},
       false,
       0,
       111023006208.14453,
       3510632448.0,
       820653260800.0,
       85327872.0,
       0.0,
       917504.0,
       1.0,
       0.057947704860179375,
       0.0006911346309583965,
       0.0007712813250965252,
       0.003658,
       0.0623769861852759,
       0.8957942198004973,
       1011.8291486833541},
      {"gpt-oss-120b on 4xRTX PRO 6000, pp 1 tp 4 dp 1",
       "openai__gpt-oss-120b",
       "4x\"RTX PRO 6000\"",
       4,
       1,
       1,
       ExpertMode::kTpSharded,
       AllToAll::kNone,
       {16317808128ull, 1283457024ull, 295985152ull, 12455405158ull},
       true,
       3654,
       14031701317.038488,
       981467136.0,
       171671371776.0,
       39813120.0,
       0.0,
       0.0,
       1.0,
       0.014199803697259466,
       0.00014305947648,
       0.002279232,
       0.002124,
       0.018603035697259466,
       1.3252893767709257,
       3216.5226974371562},
  };
  return cases;
}

// The request of a case; false (with the reason as a test failure) when the config or the GPU set
// does not read, so that no estimate runs without a GPU.
bool request(const HandCase& c, PlanRequest& rq) {
  auto model = read_model_config(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/" +
                                 c.config + ".json");
  auto sets = parse_gpu_sets(c.gpus, Catalog::builtin());
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().to_string());
  EXPECT_TRUE(sets.ok()) << (sets.ok() ? "" : sets.error().to_string());
  if (!model.ok() || !sets.ok() || sets->empty() || !sets->front().gpu) return false;
  rq.model = *model;
  rq.gpus = sets->front();
  return true;  // default workload (64, 1024, 1024) and assumptions, as hand_values.py
}

// Relative tolerance for doubles: the two computations add the same terms in other orders.
void expect_close(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * 1e-9 + 1e-12) << what;
}

// The figures compared to a relative tolerance, by name, then as the estimate has them and as
// hand_values.py gives them (the three lists in the same order).
constexpr std::array<const char*, 16> kFigureNames = {
    "weight bytes read",     "KV bytes read",      "flops",           "all-reduce bytes",
    "all-to-all bytes",      "pipeline bytes",     "load imbalance",  "memory time",
    "compute time",          "communication time", "overhead",        "step time",
    "time per output token", "prefill time",       "output tokens/s", "decode tokens/s"};

std::array<double, 16> estimated_figures(const PlanEstimate& e) {
  const auto& d = e.decode;
  return {d.weight_bytes_read,
          d.kv_bytes_read,
          d.flops,
          d.allreduce_bytes,
          d.all2all_bytes,
          d.pipeline_bytes,
          d.expert_load_imbalance,
          d.memory_s,
          d.compute_s,
          d.comm_s,
          d.overhead_s,
          d.step_s,
          e.tpot_ms,
          e.prefill_s,
          e.output_tokens_per_s,
          e.decode_tokens_per_s};
}

std::array<double, 16> hand_figures(const HandCase& c) {
  return {c.weight_bytes_read,
          c.kv_bytes_read,
          c.flops,
          c.allreduce_bytes,
          c.all2all_bytes,
          c.pipeline_bytes,
          c.imbalance,
          c.memory_s,
          c.compute_s,
          c.comm_s,
          c.overhead_s,
          c.step_s,
          c.step_s * 1e3,
          c.prefill_s,
          c.output_tokens_per_s,
          64 / c.step_s};
}

TEST(CostTerms, MatchTheHandComputedValues) {
  for (const HandCase& c : hand_cases()) {
    SCOPED_TRACE(c.what);
    PlanRequest rq;
    ASSERT_TRUE(request(c, rq));
    PlanShape s;
    s.tp = c.tp;
    s.dp = c.dp;
    s.pp = c.pp;
    s.experts = c.experts;
    s.a2a = c.a2a;
    s.dp_attention = c.experts == ExpertMode::kExpertParallel && c.dp > 1;
    PlanEstimate e = estimate(rq, s);
    // Bytes are whole: the C++ truncates each sum once, as the script does.
    EXPECT_NEAR(double(e.memory.weights), double(c.memory.weights), 1.0);
    EXPECT_NEAR(double(e.memory.kv_cache), double(c.memory.kv_cache), 1.0);
    EXPECT_NEAR(double(e.memory.activations), double(c.memory.activations), 1.0);
    EXPECT_EQ(e.memory.reserve, c.memory.reserve);
    EXPECT_EQ(e.fits, c.fits);
    EXPECT_EQ(e.max_batch_that_fits, c.max_batch_that_fits);
    const auto got = estimated_figures(e), want = hand_figures(c);
    for (size_t i = 0; i < kFigureNames.size(); ++i) expect_close(got[i], want[i], kFigureNames[i]);
  }
}

// A pipeline's step is pp stage-times, each with one send of the micro-batch to the next stage:
// pp sends per step on a sending GPU (one per micro-batch and boundary), not pp x (pp - 1). Every
// term is for the whole step, so step = max(memory, compute) + communication + overhead holds as
// it does without stages.
TEST(CostTerms, PipelineStepIsPpStageTimesWithOneSendEach) {
  PlanRequest rq;
  ASSERT_TRUE(request(hand_cases().front(), rq));  // DeepSeek-V3 on 8xH100
  for (int pp : {2, 4, 8}) {
    PlanShape s;
    s.tp = 8 / pp;
    s.pp = pp;
    s.experts = ExpertMode::kTpSharded;
    PlanEstimate e = estimate(rq, s);
    const StepCost& d = e.decode;
    EXPECT_NEAR(d.step_s, std::max(d.memory_s, d.compute_s) + d.comm_s + d.overhead_s, 1e-12) << pp;
    // 64 / pp tokens a micro-batch, 7168 x 2 bytes each, pp of them.
    EXPECT_DOUBLE_EQ(d.pipeline_bytes, 64.0 * 7168 * 2) << pp;
    // The layers' fixed cost is paid once per layer of the whole model (ceil(61 / pp) x pp).
    EXPECT_NEAR(d.overhead_s, std::ceil(61.0 / pp) * pp * 59e-6, 1e-12) << pp;
  }
}

// No GPU in the set (a caller that skipped parse_gpu_sets' error): no estimate is made.
TEST(CostTerms, NoGpuIsNotAPlan) {
  PlanRequest rq;
  ASSERT_TRUE(request(hand_cases().front(), rq));
  rq.gpus.gpu = nullptr;
  PlanEstimate e = estimate(rq, PlanShape{});
  EXPECT_FALSE(e.fits);
  EXPECT_FALSE(e.runnable);
  ASSERT_FALSE(e.why_not.empty());
  EXPECT_NE(e.why_not.front().find("no GPU"), std::string::npos);
}

}  // namespace
}  // namespace smcompat::plan
