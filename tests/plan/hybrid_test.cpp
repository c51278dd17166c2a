// Hybrid layer patterns (data/layer_patterns.json) on real configs: Jamba-1.5-Mini (Mamba + MoE
// every other layer), Nemotron-3-Nano-30B-A3B (Mamba-2 / attention / relu² MoE blocks from
// hybrid_override_pattern), Qwen3-Next-80B-A3B and Qwen3.5 (Gated DeltaNet with full attention
// every 4th layer). Every expected integer is what tests/plan/hybrid_hand_values.py prints: the
// tensors of each Hugging Face modeling file counted apart from the C++ (its docstring names the
// modules). Then the cost model: KV cache only for the attention layers, recurrent state per
// sequence, weights per GPU; and the errors and notes around the patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "plan_test_util.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/plan/plan.hpp"

namespace smcompat::plan {
namespace {

using testing::billions;
using testing::config_path;
using testing::read;

struct HybridHand {
  const char* config;
  int attention_layers, mamba_layers, linear_layers, moe_layers, dense_layers;
  uint64_t total, active;
  uint64_t kv_bytes_per_token;  ///< all attention layers together
  uint64_t state_bytes_per_sequence;
  uint64_t weights_tp2, kv_tp2, state_tp2;   ///< per GPU, TP2, 64 x (1024 + 1024) tokens
  double published_total, published_active;  ///< billions, from the model cards
};

// python3 tests/plan/hybrid_hand_values.py
constexpr HybridHand kHybrids[] = {
    {"ai21labs__AI21-Jamba-1.5-Mini", 4, 28, 0, 16, 16, 51'570'323'328, 11'841'875'840, 16'384,
     8'716'288, 51'571'629'952, 1'073'741'824, 278'921'216, 51.6, 12.0},
    {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 6, 23, 0, 23, 0, 31'577'940'288, 3'227'754'816,
     6'144, 49'082'368, 31'585'993'792, 402'653'184, 1'570'635'776, 31.6, 3.2},
    {"Qwen__Qwen3-Next-80B-A3B-Thinking", 12, 0, 36, 48, 0, 79'674'391'296, 3'563'764'480, 24'576,
     39'518'208, 79'724'917'504, 1'610'612'736, 1'264'582'656, 80.0, 3.0},
    {"Qwen__Qwen3.5-35B-A3B", 10, 0, 30, 40, 0, 34'660'610'688, 2'946'429'568, 20'480, 64'389'120,
     34'681'744'000, 1'342'177'280, 2'060'451'840, 35.0, 3.0},
    {"Qwen__Qwen3.5-122B-A10B", 12, 0, 36, 48, 0, 122'111'526'912, 9'008'449'536, 24'576,
     153'649'152, 122'149'567'488, 1'610'612'736, 4'916'772'864, 122.0, 10.0},
};

TEST(HybridLayers, CountsPerLayerKindMatchTheHandCount) {
  for (const HybridHand& h : kHybrids) {
    SCOPED_TRACE(h.config);
    ModelSpec m = read(h.config);
    EXPECT_EQ(m.attention_layers(), h.attention_layers);
    EXPECT_EQ(m.mamba_layers, h.mamba_layers);
    EXPECT_EQ(m.linear_layers, h.linear_layers);
    EXPECT_EQ(m.moe_layers, h.moe_layers);
    EXPECT_EQ(m.dense_layers, h.dense_layers);
    EXPECT_EQ(m.total_params(), h.total);
    EXPECT_EQ(m.active_params(), h.active);
    EXPECT_EQ(m.kv_bytes_per_token_per_layer() * uint64_t(m.attention_layers()),
              h.kv_bytes_per_token);
    EXPECT_EQ(m.recurrent_state_bytes_per_sequence(), h.state_bytes_per_sequence);
    // Against the model cards: totals within 2 %; active (which the cards round to a whole
    // billion or two digits) reported beside it in docs/plan.md, checked loosely here.
    EXPECT_NEAR(billions(m.total_params()), h.published_total, 0.02 * h.published_total);
    EXPECT_NEAR(billions(m.active_params()), h.published_active, 0.2 * h.published_active);
    // The family has rules now: no note says generic rules or an unmodelled pattern were used.
    for (const std::string& note : m.notes) {
      EXPECT_EQ(note.find("generic rules"), std::string::npos) << note;
      EXPECT_EQ(note.find("does not model yet"), std::string::npos) << note;
    }
  }
}

TEST(HeldOut, Mixtral8x22BAgainstTheHandCountAndTheAnnouncement) {
  // hidden 6144, 56 layers, 48 heads / 8 KV heads of 128, 8 experts (2 per token) of 16384:
  // attention 2 x 6144^2 + 2 x 6144 x 1024 = 88,080,384; expert 3 x 6144 x 16384 = 301,989,888;
  // router 6144 x 8; total = 2 x 32000 x 6144 + 6144 + 56 x (attention + 2 x 6144 + 8 experts
  // + router) = 140,620,634,112; active = total - 56 x 6 experts - the 32000 x 6144 lookup.
  ModelSpec m = read("mistralai__Mixtral-8x22B-v0.1");
  EXPECT_EQ(m.total_params(), 140'620'634'112u);
  EXPECT_EQ(m.active_params(), 38'955'423'744u);
  EXPECT_NEAR(billions(m.total_params()), 141.0, 0.02 * 141.0);  // "141B"
  EXPECT_NEAR(billions(m.active_params()), 39.0, 0.05 * 39.0);   // "39B active"
}

TEST(HeldOut, NemotronH56BDenseHybridWithInfinityInItsConfig) {
  // 118 blocks: 54 Mamba-2 (256 heads of 64, state 256, 8 groups), 10 attention (64 heads, 8 KV
  // heads of 128), 54 relu² MLPs of 32768 ('-'); no experts. Its config.json holds
  // "time_step_limit": [0.0, Infinity] (Python's json output), read as null.
  // Hand count (hybrid_hand_values.py's formulas): Mamba-2 layer 8192 x (16384 + 20480 + 256) +
  // 20480 x 5 + 3 x 256 + 16384 + 16384 x 8192; total 56,324,350,464 ("56B").
  ModelSpec m = read("nvidia__Nemotron-H-56B-Base-8K");
  EXPECT_EQ(m.mamba_layers, 54);
  EXPECT_EQ(m.attention_layers(), 10);
  EXPECT_EQ(m.dense_layers, 54);
  EXPECT_EQ(m.moe_layers, 0);
  EXPECT_EQ(m.total_params(), 56'324'350'464u);
  EXPECT_EQ(m.active_params(), 55'250'608'640u);  // all but the 131072 x 8192 lookup
  EXPECT_EQ(m.kv_bytes_per_token_per_layer() * uint64_t(m.attention_layers()), 40'960u);
  EXPECT_EQ(m.recurrent_state_bytes_per_sequence(), 459'620'352u);
  EXPECT_NEAR(billions(m.total_params()), 56.0, 0.02 * 56.0);
}

// The second held-out set (docs/plan.md, "Held-out configs"): five real MoE configs not read by
// any other test, one of them a hybrid. Hand counts from hybrid_hand_values.py (HELD_OUT), each
// from its own modeling file; weights per GPU as the checkpoint stores them (FP8 blocks with
// their fp32 scales, MXFP4 with its byte of scale per 32 values), TP2, experts split.
struct HeldOutHand {
  const char* config;
  uint64_t total, active, weights_tp2, kv_bytes_per_token;
  double published_total, published_active;  ///< billions, from the model cards
};

constexpr HeldOutHand kHeldOut[] = {
    {"moonshotai__Kimi-K2-Instruct", 1'026'408'232'448, 31'687'095'808, 514'752'782'256, 70'272,
     1040.0, 32.0},
    {"Qwen__Qwen3-Coder-480B-A35B-Instruct", 480'154'875'392, 34'541'270'528, 480'216'607'744,
     253'952, 480.0, 35.0},
    {"openai__gpt-oss-20b", 20'914'757'184, 3'608'307'264, 6'882'986'112, 49'152, 20.91, 3.61},
    {"MiniMaxAI__MiniMax-M2.5", 228'689'764'864, 10'415'956'480, 115'061'643'776, 253'952, 230.0,
     10.0},
    {"Qwen__Qwen3.5-397B-A17B", 396'346'350'336, 16'331'922'176, 396'472'666'880, 30'720, 397.0,
     17.0},
};

TEST(HeldOut, SecondSetAgainstTheHandCountsAndTheModelCards) {
  for (const HeldOutHand& h : kHeldOut) {
    SCOPED_TRACE(h.config);
    ModelSpec m = read(h.config);
    EXPECT_EQ(m.total_params(), h.total);
    EXPECT_EQ(m.active_params(), h.active);
    EXPECT_EQ(m.kv_bytes_per_token_per_layer() * uint64_t(m.attention_layers()),
              h.kv_bytes_per_token);
    EXPECT_NEAR(billions(m.total_params()), h.published_total, 0.02 * h.published_total);
    EXPECT_NEAR(billions(m.active_params()), h.published_active, 0.05 * h.published_active);
    PlanRequest rq;
    rq.model = m;
    auto sets = parse_gpu_sets("2xH200", Catalog::builtin());
    ASSERT_TRUE(sets.ok());
    rq.gpus = sets->front();
    PlanShape tp2;
    tp2.tp = 2;
    tp2.experts = ExpertMode::kTpSharded;
    PlanEstimate e = estimate(rq, tp2);
    EXPECT_NEAR(double(e.memory.weights), double(h.weights_tp2), 0.01 * double(h.weights_tp2));
    std::printf("%s: total %.3fB active %.3fB weights/GPU %+.3f%% of the hand count\n", h.config,
                billions(m.total_params()), billions(m.active_params()),
                100.0 * (double(e.memory.weights) / double(h.weights_tp2) - 1.0));
    // Every family here has rules (Kimi-K2 by its architectures' DeepseekV3ForCausalLM).
    for (const std::string& note : m.notes)
      EXPECT_EQ(note.find("generic rules"), std::string::npos) << note;
  }
}

TEST(HeldOut, FamiliesReadByTheirClassOrTheirRowSaySo) {
  // Kimi-K2's model_type kimi_k2 has no rules; its architectures names DeepseekV3ForCausalLM,
  // whose rules read it (MLA, first_k_dense_replace, noaux_tc) and the note says which.
  ModelSpec kimi = read("moonshotai__Kimi-K2-Instruct");
  EXPECT_EQ(kimi.attention, AttentionKind::kMla);
  EXPECT_EQ(kimi.moe_layers, 60);
  EXPECT_TRUE(kimi.router_bias);
  EXPECT_TRUE(std::any_of(kimi.notes.begin(), kimi.notes.end(), [](const std::string& n) {
    return n.find(
               "read with the rules of deepseek_v3 (its architectures names "
               "DeepseekV3ForCausalLM)") != std::string::npos;
  }));
  // MiniMax-M2's row: q/k norms over the whole projection (use_qk_norm, per_layer), the routing
  // bias (use_routing_bias), and its MTP modules named as not counted.
  ModelSpec mm = read("MiniMaxAI__MiniMax-M2.5");
  EXPECT_TRUE(mm.qk_norm_per_layer);
  EXPECT_FALSE(mm.qk_norm);
  EXPECT_TRUE(mm.router_bias);
  EXPECT_EQ(mm.attention_params_per_layer(), 2u * 3072 * 6144 + 2u * 3072 * 1024 + 6144 + 1024);
  EXPECT_TRUE(std::any_of(mm.notes.begin(), mm.notes.end(), [](const std::string& n) {
    return n.find("3 multi-token-prediction layer(s) (num_mtp_modules)") != std::string::npos;
  }));
  auto bad_norm = parse_model_config(
      R"({"model_type": "minimax_m2", "hidden_size": 64, "num_attention_heads": 4,
          "num_hidden_layers": 2, "vocab_size": 100, "intermediate_size": 32,
          "num_local_experts": 4, "num_experts_per_tok": 2, "use_qk_norm": true,
          "qk_norm_type": "sideways"})",
      "mm.json");
  ASSERT_FALSE(bad_norm.ok());
  EXPECT_NE(bad_norm.error().to_string().find("qk_norm_type"), std::string::npos)
      << bad_norm.error().to_string();
}

TEST(HybridLayers, JambaPeriodsPlaceAttentionAndExperts) {
  ModelSpec m = read("ai21labs__AI21-Jamba-1.5-Mini");
  ASSERT_EQ(m.layer_kinds.size(), 32u);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(m.layer_kinds[i].mixer, i % 8 == 4 ? MixerKind::kFull : MixerKind::kMamba) << i;
    EXPECT_EQ(m.layer_kinds[i].ffn, i % 2 == 1 ? FfnKind::kMoe : FfnKind::kDense) << i;
  }
  EXPECT_EQ(m.mamba.version, 1);
  EXPECT_EQ(m.mamba.d_inner, 8192);
  EXPECT_EQ(m.mamba.dt_rank, 256);
  EXPECT_EQ(m.mamba_params_per_layer(), 105'308'448u);
  EXPECT_TRUE(m.gated_ffn);
  EXPECT_EQ(m.state_bytes_per_value, 2);
}

TEST(HybridLayers, NemotronHPatternAndTwoMatrixExperts) {
  ModelSpec m = read("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  // "MEMEM*EMEMEM*...": M Mamba-2 without FFN, E MoE without mixer, * attention without FFN.
  EXPECT_EQ(m.layer_kinds[0].mixer, MixerKind::kMamba);
  EXPECT_EQ(m.layer_kinds[0].ffn, FfnKind::kNone);
  EXPECT_EQ(m.layer_kinds[1].mixer, MixerKind::kNone);
  EXPECT_EQ(m.layer_kinds[1].ffn, FfnKind::kMoe);
  EXPECT_EQ(m.layer_kinds[5].mixer, MixerKind::kFull);
  EXPECT_EQ(m.layer_kinds[5].ffn, FfnKind::kNone);
  EXPECT_EQ(m.mixerless_layers, 23);
  EXPECT_EQ(m.activation, "relu2");
  EXPECT_FALSE(m.gated_ffn);                       // up and down only
  EXPECT_EQ(m.expert_params(), 2u * 2688 * 1856);  // 9,977,856
  EXPECT_EQ(m.shared_intermediate, 3712);          // moe_shared_expert_intermediate_size
  EXPECT_TRUE(m.router_bias);                      // e_score_correction_bias
  EXPECT_EQ(m.norms_per_layer, 1);
  EXPECT_EQ(m.mamba.version, 2);
  EXPECT_EQ(m.mamba.conv_dim(), 4096 + 2 * 8 * 128);
  EXPECT_EQ(m.mamba_params_per_layer(), 38'742'208u);
  EXPECT_EQ(m.state_bytes_per_value, 4);  // mamba_ssm_cache_dtype float32
}

TEST(HybridLayers, QwenNextGatedDeltaNetAndGatedAttention) {
  ModelSpec m = read("Qwen__Qwen3-Next-80B-A3B-Thinking");
  for (int i = 0; i < 48; ++i)
    EXPECT_EQ(m.layer_kinds[i].mixer, (i + 1) % 4 == 0 ? MixerKind::kFull : MixerKind::kLinear)
        << i;
  EXPECT_TRUE(m.attention_output_gate);
  EXPECT_TRUE(m.qk_norm);
  EXPECT_TRUE(m.shared_expert_gate);
  EXPECT_EQ(m.attention_params_per_layer(), 27'263'488u);
  EXPECT_EQ(m.linear_attention_params_per_layer(), 33'718'464u);
  // Qwen3.5 names its layers in layer_types (read before full_attention_interval).
  ModelSpec q35 = read("Qwen__Qwen3.5-35B-A3B");
  EXPECT_EQ(q35.linear_layers, 30);
  EXPECT_EQ(q35.state_bytes_per_value, 4);  // mamba_ssm_dtype float32
}

PlanRequest hybrid_request(const std::string& config, const std::string& gpus) {
  PlanRequest rq;
  rq.model = read(config);
  auto sets = parse_gpu_sets(gpus, Catalog::builtin());
  EXPECT_TRUE(sets.ok());
  if (sets.ok() && !sets->empty()) rq.gpus = sets->front();
  return rq;
}

TEST(HybridCost, KvCacheOnlyForAttentionLayersAndStatePerSequence) {
  for (const HybridHand& h : kHybrids) {
    SCOPED_TRACE(h.config);
    PlanRequest rq = hybrid_request(h.config, "2xH100");
    PlanShape tp2;
    tp2.tp = 2;
    tp2.experts = ExpertMode::kTpSharded;
    PlanEstimate e = estimate(rq, tp2);
    EXPECT_EQ(e.memory.kv_cache, h.kv_tp2);
    EXPECT_EQ(e.memory.state, h.state_tp2);
    // Weights per GPU within 1 % of the hand count (the counts are exact; the hand value
    // rounds each term the way the C++ does not).
    EXPECT_NEAR(double(e.memory.weights), double(h.weights_tp2), 0.01 * double(h.weights_tp2));
    // A decode step reads each sequence's state and writes it back.
    EXPECT_DOUBLE_EQ(e.decode.state_bytes, 2.0 * double(h.state_tp2));
    EXPECT_EQ(e.memory.total(), e.memory.weights + e.memory.kv_cache + e.memory.state +
                                    e.memory.activations + e.memory.reserve);
  }
}

TEST(HybridCost, DecodeReadsTheLmHeadButNotTheEmbeddingTable) {
  // The input embedding is a lookup: a decode step reads its tokens' rows, not the table. So a
  // model with a separate input table reads what the same model with the table tied to the LM
  // head reads, though it holds one table more.
  PlanRequest rq = hybrid_request("ai21labs__AI21-Jamba-1.5-Mini", "2xH100");
  PlanShape tp2;
  tp2.tp = 2;
  tp2.experts = ExpertMode::kTpSharded;
  PlanEstimate untied = estimate(rq, tp2);
  rq.model.tied_embeddings = true;
  PlanEstimate tied = estimate(rq, tp2);
  EXPECT_DOUBLE_EQ(untied.decode.weight_bytes_read, tied.decode.weight_bytes_read);
  EXPECT_NEAR(double(untied.memory.weights - tied.memory.weights), 65536.0 * 4096 / 2 * 2, 2);
  // Active parameters: the LM head counted, the lookup not (so tying changes nothing).
  ModelSpec m = read("ai21labs__AI21-Jamba-1.5-Mini");
  ModelSpec t = m;
  t.tied_embeddings = true;
  EXPECT_EQ(m.active_params(), t.active_params());
}

TEST(HybridLayers, BrokenPatternsAreErrorsNamingTheField) {
  auto bad = [](const std::string& body) {
    return parse_model_config(
        R"({"model_type": "nemotron_h", "hidden_size": 64, "num_attention_heads": 4,
            "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
            "intermediate_size": 32, "mamba_num_heads": 4, "mamba_head_dim": 16,
            "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, )" +
            body + "}",
        "bad.json");
  };
  auto wrong_length = bad(R"("num_hidden_layers": 3, "hybrid_override_pattern": "M*")");
  ASSERT_FALSE(wrong_length.ok());
  EXPECT_NE(wrong_length.error().to_string().find("hybrid_override_pattern"), std::string::npos)
      << wrong_length.error().to_string();
  EXPECT_NE(wrong_length.error().to_string().find("2 letters for 3 layers"), std::string::npos);
  auto unknown = bad(R"("num_hidden_layers": 2, "hybrid_override_pattern": "MX")");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().to_string().find("layer 1"), std::string::npos)
      << unknown.error().to_string();
  auto ok = bad(R"("num_hidden_layers": 3, "hybrid_override_pattern": "M*E")");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->mamba_layers, 1);
  EXPECT_EQ(ok->moe_layers, 1);
  EXPECT_EQ(ok->attention_layers(), 1);

  auto jamba_offset = parse_model_config(
      R"({"model_type": "jamba", "hidden_size": 64, "num_attention_heads": 4,
          "num_hidden_layers": 8, "vocab_size": 100, "intermediate_size": 32,
          "attn_layer_period": 4, "attn_layer_offset": 4})",
      "jamba.json");
  ASSERT_FALSE(jamba_offset.ok());
  EXPECT_NE(jamba_offset.error().to_string().find("attn_layer_offset"), std::string::npos)
      << jamba_offset.error().to_string();
}

TEST(HybridLayers, MtpSpellingsAndLatentExpertsAreNoted) {
  // Qwen3.5 spells its MTP layers mtp_num_hidden_layers; the note names the field read.
  ModelSpec q35 = read("Qwen__Qwen3.5-35B-A3B");
  EXPECT_EQ(q35.mtp_layers, 1);
  EXPECT_TRUE(std::any_of(q35.notes.begin(), q35.notes.end(), [](const std::string& n) {
    return n.find("(mtp_num_hidden_layers) are not counted") != std::string::npos;
  }));
  // Nemotron-3-Super's latent MoE (moe_latent_size) is not modelled: said, not silent.
  auto latent = parse_model_config(
      R"({"model_type": "nemotron_h", "hidden_size": 64, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100, "intermediate_size": 32,
          "mamba_num_heads": 4, "mamba_head_dim": 16, "n_routed_experts": 4,
          "num_experts_per_tok": 2, "moe_intermediate_size": 16, "moe_latent_size": 8,
          "num_hidden_layers": 3, "hybrid_override_pattern": "M*E"})",
      "latent.json");
  ASSERT_TRUE(latent.ok()) << latent.error().to_string();
  EXPECT_TRUE(std::any_of(latent->notes.begin(), latent->notes.end(), [](const std::string& n) {
    return n.find("moe_latent_size") != std::string::npos;
  }));
}

TEST(HybridLayers, UnknownHybridFamilyStillGetsTheNote) {
  // A family without a row keeps the old rules and says so.
  auto m = parse_model_config(
      R"({"model_type": "some_hybrid", "hidden_size": 64, "num_attention_heads": 4,
          "num_hidden_layers": 2, "vocab_size": 100, "intermediate_size": 32,
          "layer_types": ["linear_attention", "full_attention"]})",
      "x.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->linear_layers, 0);
  bool noted = std::any_of(m->notes.begin(), m->notes.end(), [](const std::string& n) {
    return n.find("neither full nor sliding-window") != std::string::npos;
  });
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace smcompat::plan
