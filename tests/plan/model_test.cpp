// The model reader on real Hugging Face configs (tests/plan/configs/, SOURCES.md says where each
// came from): the fields read, integer counts worked out by hand, and the totals against the
// published parameter counts; then broken inputs, which must become errors naming the file.
#include "smcompat/plan/model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "plan_test_util.hpp"

namespace smcompat::plan {
namespace {

using testing::billions;
using testing::config_path;
using testing::read;
uint64_t input_embedding(const ModelSpec& m) { return uint64_t(m.vocab) * uint64_t(m.hidden); }

// One field a test expects of a config: its name (for the failure message), where it is in
// ModelSpec, and the value. FIELD(layers, 61) makes one.
template <class T>
struct Field {
  const char* name;
  T ModelSpec::*member;
  T value;
};
#define FIELD(f, v) \
  Field<decltype(ModelSpec::f)> { #f, &ModelSpec::f, v }

template <class T>
void expect_field(const ModelSpec& m, const Field<T>& want) {
  EXPECT_EQ(m.*want.member, want.value) << want.name;
}

// EXPECT_EQ on each field given, in the order given.
template <class... T>
void expect_fields(const ModelSpec& m, const Field<T>&... want) {
  (expect_field(m, want), ...);
}

// ---------------------------------------------------------------------------------------------
// DeepSeek-V3 (MLA, 1 shared + 256 routed experts, 3 dense layers, FP8 128x128 blocks, 1 MTP).
//
// By hand (hidden 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128):
//   q_a_proj 7168 x 1536            =  11,010,048
//   q_a_layernorm                   =       1,536
//   q_b_proj 1536 x 128 x (128+64)  =  37,748,736
//   kv_a_proj 7168 x (512+64)       =   4,128,768
//   kv_a_layernorm                  =         512
//   kv_b_proj 512 x 128 x (128+128) =  16,777,216
//   o_proj 128 x 128 x 7168         = 117,440,512
//   attention per layer             = 187,107,328
//   one expert 3 x 7168 x 2048      =  44,040,192
//   dense FFN 3 x 7168 x 18432      = 396,361,728
//   router 7168 x 256 + 256 (e_score_correction_bias) = 1,835,264
//   KV per token and layer (512 + 64) x 2 bytes = 1152
// Total = 2 x 129280 x 7168 (embed, lm_head) + 7168 (final norm)
//       + 61 x (187,107,328 + 2 x 7168) + 3 x 396,361,728
//       + 58 x (256 x 44,040,192 + 44,040,192 (shared) + 1,835,264) = 671,026,419,200
// ---------------------------------------------------------------------------------------------
TEST(ModelConfig, DeepSeekV3Fields) {
  ModelSpec m = read("deepseek-ai__DeepSeek-V3");
  expect_fields(
      m, FIELD(name, "deepseek-ai__DeepSeek-V3"), FIELD(model_type, "deepseek_v3"),
      FIELD(layers, 61), FIELD(hidden, 7168), FIELD(vocab, 129280), FIELD(tied_embeddings, false),
      FIELD(attention, AttentionKind::kMla), FIELD(heads, 128), FIELD(q_lora_rank, 1536),
      FIELD(kv_lora_rank, 512), FIELD(qk_nope_head_dim, 128), FIELD(qk_rope_head_dim, 64),
      FIELD(v_head_dim, 128), FIELD(sliding_window, 0), FIELD(dense_layers, 3),
      FIELD(intermediate, 18432), FIELD(moe_layers, 58), FIELD(experts, 256),
      FIELD(experts_per_token, 8), FIELD(shared_experts, 1), FIELD(moe_intermediate, 2048),
      FIELD(shared_intermediate, 2048), FIELD(router_bias, true), FIELD(mtp_layers, 1),
      FIELD(attention_format, WeightFormat::kFp8), FIELD(expert_format, WeightFormat::kFp8),
      FIELD(quantization, "fp8 block 128x128"), FIELD(dtype, "bfloat16"));
  EXPECT_TRUE(m.is_moe());
}

TEST(ModelConfig, DeepSeekV3CountsByHand) {
  ModelSpec m = read("deepseek-ai__DeepSeek-V3");
  EXPECT_EQ(m.attention_params_per_layer(), 187'107'328u);
  EXPECT_EQ(m.expert_params(), 44'040'192u);
  EXPECT_EQ(m.shared_ffn_params_per_layer(), 44'040'192u);
  EXPECT_EQ(m.dense_ffn_params_per_layer(), 396'361'728u);
  EXPECT_EQ(m.router_params_per_layer(), 1'835'264u);
  EXPECT_EQ(m.embedding_params(), 2u * 129280u * 7168u);
  EXPECT_EQ(m.kv_bytes_per_token_per_layer(), 1152u);
  EXPECT_EQ(m.total_params(), 671'026'419'200u);
}

// Published: 671B total, 37B activated (DeepSeek-V3 technical report). README_WEIGHTS.md of the
// release is more precise: 36.6B activated "including 0.9B for the output Head", i.e. without the
// input embedding, which is what active_params() gives (issue 31: the lookup is not a matmul;
// before, active_params() counted it and this test subtracted it). The MTP module
// (14B) is not in the 671B and not counted here.
TEST(ModelConfig, DeepSeekV3PublishedCounts) {
  ModelSpec m = read("deepseek-ai__DeepSeek-V3");
  EXPECT_NEAR(billions(m.total_params()), 671.0, 0.5);   // "671B": rounding to the unit
  EXPECT_NEAR(billions(m.active_params()), 36.6, 0.05);  // "36.6B"
  // "37B", with the 0.93B input embedding
  EXPECT_NEAR(billions(m.active_params() + input_embedding(m)), 37.0, 0.6);
}

// DeepSeek-R1 has V3's architecture; its config differs in transformers_version only.
TEST(ModelConfig, DeepSeekR1SameShapeAsV3) {
  ModelSpec r1 = read("deepseek-ai__DeepSeek-R1");
  ModelSpec v3 = read("deepseek-ai__DeepSeek-V3");
  EXPECT_EQ(r1.total_params(), v3.total_params());
  EXPECT_EQ(r1.active_params(), v3.active_params());
  EXPECT_EQ(r1.kv_bytes_per_token_per_layer(), 1152u);
}

// ---------------------------------------------------------------------------------------------
// Qwen3-30B-A3B (GQA 32/4 heads of 128, QK-norm, 128 experts top-8 of width 768, 48 MoE layers).
//
// By hand: attention per layer = q 2048 x 4096 (8,388,608) + k, v 2 x 2048 x 512 (2,097,152)
//   + o 4096 x 2048 (8,388,608) + q_norm, k_norm 2 x 128 = 18,874,624
// one expert 3 x 2048 x 768 = 4,718,592; router 2048 x 128 = 262,144
// KV per token and layer: 2 (k, v) x 4 heads x 128 x 2 bytes = 2048
// Total = 2 x 151936 x 2048 + 2048 + 48 x (18,874,624 + 4096 + 128 x 4,718,592 + 262,144)
//       = 30,532,122,624
// Active = total - 48 x 120 x 4,718,592 = 3,353,032,704
// ---------------------------------------------------------------------------------------------
TEST(ModelConfig, Qwen3MoeFieldsAndCounts) {
  ModelSpec m = read("Qwen__Qwen3-30B-A3B");
  expect_fields(m, FIELD(model_type, "qwen3_moe"), FIELD(layers, 48), FIELD(hidden, 2048),
                FIELD(vocab, 151936), FIELD(attention, AttentionKind::kGqa), FIELD(heads, 32),
                FIELD(kv_heads, 4), FIELD(head_dim, 128),
                FIELD(sliding_window, 0),  // sliding_window null, use_sliding_window false
                FIELD(qkv_bias, false), FIELD(qk_norm, true), FIELD(dense_layers, 0),
                FIELD(moe_layers, 48), FIELD(experts, 128), FIELD(experts_per_token, 8),
                FIELD(shared_experts, 0), FIELD(moe_intermediate, 768),
                FIELD(shared_intermediate, 0), FIELD(expert_format, WeightFormat::kBf16),
                FIELD(quantization, "none"));

  EXPECT_EQ(m.attention_params_per_layer(), 18'874'624u);
  EXPECT_EQ(m.expert_params(), 4'718'592u);
  EXPECT_EQ(m.router_params_per_layer(), 262'144u);
  EXPECT_EQ(m.kv_bytes_per_token_per_layer(), 2048u);
  EXPECT_EQ(m.total_params(), 30'532'122'624u);
  // Without the 151936 x 2048 input embedding (a lookup, issue 31): 3,353,032,704 - 311,164,928.
  EXPECT_EQ(m.active_params(), 3'041'867'776u);
}

// Published (model card): 30.5B total, 3.3B activated, 29.9B non-embedding. Qwen's "activated"
// counts both embeddings (3.35B here); active_params() leaves out the input lookup (3.04B).
TEST(ModelConfig, Qwen3MoePublishedCounts) {
  ModelSpec m = read("Qwen__Qwen3-30B-A3B");
  EXPECT_NEAR(billions(m.total_params()), 30.5, 0.05);
  EXPECT_NEAR(billions(m.total_params() - m.embedding_params()), 29.9, 0.05);
  EXPECT_NEAR(billions(m.active_params() + input_embedding(m)), 3.3, 0.1);
}

// Qwen3-235B-A22B-FP8: same family, 94 layers, fp8 in 128x128 blocks (layernorms, routers and
// lm_head in modules_to_not_convert: counted at the checkpoint's 2 bytes anyway).
// Published: 235B total, 22B activated, 234B non-embedding.
TEST(ModelConfig, Qwen3MoeFp8) {
  ModelSpec m = read("Qwen__Qwen3-235B-A22B-FP8");
  expect_fields(m, FIELD(layers, 94), FIELD(hidden, 4096), FIELD(heads, 64), FIELD(kv_heads, 4),
                FIELD(head_dim, 128), FIELD(moe_layers, 94), FIELD(experts, 128),
                FIELD(experts_per_token, 8), FIELD(moe_intermediate, 1536),
                FIELD(attention_format, WeightFormat::kFp8),
                FIELD(expert_format, WeightFormat::kFp8), FIELD(quantization, "fp8 block 128x128"),
                FIELD(weight_block, 128));
  // Its modules_to_not_convert lists norms and routers of every layer ("post_attention_layernorm"
  // included), no attention module: attention stays FP8.
  EXPECT_EQ(m.kv_bytes_per_token_per_layer(), 2u * 4u * 128u * 2u);
  EXPECT_NEAR(billions(m.total_params()), 235.0, 0.5);
  EXPECT_NEAR(billions(m.total_params() - m.embedding_params()), 234.0, 0.5);
  // Qwen's "22B" with both embeddings: 22.19B (active_params() without the lookup: 21.57B).
  EXPECT_NEAR(billions(m.active_params() + input_embedding(m)), 22.0, 0.5);
}

// ---------------------------------------------------------------------------------------------
// gpt-oss-120b: 36 layers alternating sliding (128) and full attention, 64 query / 8 KV heads of
// 64, attention biases and sinks, 128 experts top-4 of width 2880 with biases, MXFP4 experts.
// OpenAI's model card table: total 116.83B, active 5.13B; its active figure counts the unembedding
// but not the embedding (Embed + Unembed 1.16B, MLP 114.71B, attention 0.96B).
// By hand: attention = 2880 x 4096 x 2 + 2880 x 512 x 2 + biases (4096 + 1024 + 2880) + 64 sinks
//   = 26,550,144; one expert = 3 x 2880 x 2880 + 2 x 2880 + 2880 = 24,891,840.
// ---------------------------------------------------------------------------------------------
TEST(ModelConfig, GptOss) {
  ModelSpec m = read("openai__gpt-oss-120b");
  expect_fields(m, FIELD(model_type, "gpt_oss"), FIELD(layers, 36), FIELD(hidden, 2880),
                FIELD(vocab, 201088), FIELD(heads, 64), FIELD(kv_heads, 8), FIELD(head_dim, 64),
                FIELD(sliding_window, 128), FIELD(sliding_window_layers, 18), FIELD(qkv_bias, true),
                FIELD(o_bias, true), FIELD(attention_sinks, true), FIELD(dense_layers, 0),
                FIELD(intermediate, 0), FIELD(moe_layers, 36), FIELD(experts, 128),
                FIELD(experts_per_token, 4), FIELD(moe_intermediate, 2880),
                FIELD(expert_bias, true), FIELD(router_bias, true),
                FIELD(attention_format, WeightFormat::kBf16),
                FIELD(expert_format, WeightFormat::kMxfp4), FIELD(quantization, "mxfp4 (experts)"));

  EXPECT_EQ(m.attention_params_per_layer(), 26'550'144u);
  EXPECT_EQ(m.expert_params(), 24'891'840u);
  EXPECT_EQ(m.kv_bytes_per_token_per_layer(), 2u * 8u * 64u * 2u);
  EXPECT_NEAR(billions(m.total_params()), 116.83, 0.01);
  EXPECT_NEAR(billions(m.active_params()), 5.13, 0.01);  // OpenAI's count: no input lookup
}

// ---------------------------------------------------------------------------------------------
// Mixtral-8x7B: 32 layers, 8 experts top-2 of width 14336 (intermediate_size is the expert's).
// Published (Mistral AI): 46.7B total, 12.9B active (both embeddings counted).
// ---------------------------------------------------------------------------------------------
TEST(ModelConfig, Mixtral) {
  ModelSpec m = read("mistralai__Mixtral-8x7B-v0.1");
  expect_fields(m, FIELD(model_type, "mixtral"), FIELD(layers, 32), FIELD(hidden, 4096),
                FIELD(vocab, 32000), FIELD(kv_heads, 8), FIELD(head_dim, 128),
                FIELD(sliding_window, 0),  // null
                FIELD(intermediate, 0), FIELD(moe_layers, 32), FIELD(experts, 8),
                FIELD(experts_per_token, 2), FIELD(moe_intermediate, 14336));
  EXPECT_EQ(m.expert_params(), 3u * 4096u * 14336u);
  EXPECT_EQ(m.total_params(), 46'702'792'704u);
  EXPECT_NEAR(billions(m.total_params()), 46.7, 0.05);
  // Mistral's "12.9B" counts both embeddings; active_params() leaves out the input lookup.
  EXPECT_NEAR(billions(m.active_params() + input_embedding(m)), 12.9, 0.05);
}

// ---------------------------------------------------------------------------------------------
// Llama 4 (text_config nested; one shared expert of intermediate_size; dense layers of
// intermediate_size_mlp; chunked attention of 8192 on the 3 RoPE layers of every 4).
// Scout published: 109B total, 17B active, for the whole multimodal checkpoint: the vision
// encoder is not read here, so the language model's 107.8B is checked against [107, 109].
// ---------------------------------------------------------------------------------------------
TEST(ModelConfig, Llama4Scout) {
  ModelSpec m = read("meta-llama__Llama-4-Scout-17B-16E-Instruct");
  expect_fields(
      m, FIELD(model_type, "llama4"), FIELD(layers, 48), FIELD(hidden, 5120), FIELD(vocab, 202048),
      FIELD(heads, 40), FIELD(kv_heads, 8), FIELD(head_dim, 128), FIELD(sliding_window, 8192),
      FIELD(sliding_window_layers, 36), FIELD(dense_layers, 0), FIELD(intermediate, 16384),
      FIELD(moe_layers, 48),  // interleave_moe_layer_step 1
      FIELD(experts, 16), FIELD(experts_per_token, 1), FIELD(shared_experts, 1),
      FIELD(moe_intermediate, 8192), FIELD(shared_intermediate, 8192), FIELD(dtype, "bfloat16"));
  EXPECT_GE(billions(m.total_params()), 107.0);
  EXPECT_LE(billions(m.total_params()), 109.0);
  // Meta's "17B" with both embeddings: 17.17B (16.14B without the input lookup).
  EXPECT_NEAR(billions(m.active_params() + input_embedding(m)), 17.0, 0.25);
}

// Maverick: interleave_moe_layer_step 2, so 24 MoE layers of 128 experts and 24 dense layers.
// Published: 400B total, 17B active.
TEST(ModelConfig, Llama4MaverickInterleaved) {
  ModelSpec m = read("meta-llama__Llama-4-Maverick-17B-128E-Instruct");
  EXPECT_EQ(m.moe_layers, 24);
  EXPECT_EQ(m.dense_layers, 24);
  EXPECT_EQ(m.experts, 128);
  EXPECT_EQ(m.intermediate, 16384);
  EXPECT_NEAR(billions(m.total_params()), 400.0, 2.0);
  EXPECT_NEAR(billions(m.active_params() + input_embedding(m)), 17.0, 0.25);
}

// The same language model as a text-only checkpoint (model_type "llama4_text" at the top level,
// tests/plan/configs/SOURCES.md): Llama 4's rules still apply (interleaved MoE layers, the shared
// expert, intermediate_size_mlp, chunked attention). By hand (hidden 5120, 40/8 heads of 128):
//   attention 5120 x 5120 x 2 + 2 x 5120 x 1024           =    62,914,560 per layer
//   one expert (and the shared one) 3 x 5120 x 8192        =   125,829,120
//   dense FFN 3 x 5120 x 16384                             =   251,658,240
//   router 5120 x 128                                      =       655,360
// Total = 2 x 202048 x 5120 + 5120 + 48 x (62,914,560 + 2 x 5120) + 24 x 251,658,240
//       + 24 x (128 x 125,829,120 + 125,829,120 + 655,360) = 400,711,848,960
// (read as a generic MoE it was every layer MoE with no shared expert: ~773B).
TEST(ModelConfig, Llama4TextOnlyIsLlama4) {
  ModelSpec text = read("derived__Llama-4-Maverick-17B-128E-text-only");
  ModelSpec wrapped = read("meta-llama__Llama-4-Maverick-17B-128E-Instruct");
  expect_fields(text, FIELD(model_type, "llama4_text"), FIELD(sliding_window, 8192),
                FIELD(sliding_window_layers, 36), FIELD(dense_layers, 24),
                FIELD(intermediate, 16384), FIELD(moe_layers, 24), FIELD(shared_experts, 1),
                FIELD(moe_intermediate, 8192), FIELD(shared_intermediate, 8192));
  EXPECT_EQ(text.total_params(), 400'711'848'960u);
  EXPECT_EQ(wrapped.total_params(), 400'711'848'960u);
  EXPECT_EQ(text.active_params(), wrapped.active_params());
  // A wrapper whose own model_type is not "llama4": text_config's "llama4_text" decides.
  auto other = parse_model_config(R"({"model_type": "some_wrapper", "text_config": {
    "model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 4,
    "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 32,
    "intermediate_size_mlp": 128, "num_local_experts": 4, "num_experts_per_tok": 1,
    "interleave_moe_layer_step": 2}})",
                                  "wrapped.json");
  ASSERT_TRUE(other.ok()) << other.error().to_string();
  EXPECT_EQ(other->moe_layers, 2);
  EXPECT_EQ(other->dense_layers, 2);
  EXPECT_EQ(other->intermediate, 128);
  EXPECT_EQ(other->shared_intermediate, 32);
}

// ---------------------------------------------------------------------------------------------
// Dense decoders. Qwen3-8B: 8.2B published (model card), 36 layers, QK-norm.
// Llama-3.1-8B: 8.03B (8,030,261,248 in the checkpoint's safetensors index).
// ---------------------------------------------------------------------------------------------
TEST(ModelConfig, DenseQwen3) {
  ModelSpec m = read("Qwen__Qwen3-8B");
  EXPECT_EQ(m.model_type, "qwen3");
  EXPECT_FALSE(m.is_moe());
  EXPECT_EQ(m.experts, 0);
  EXPECT_EQ(m.dense_layers, 36);
  EXPECT_EQ(m.moe_layers, 0);
  EXPECT_EQ(m.intermediate, 12288);
  EXPECT_EQ(m.kv_bytes_per_token_per_layer(), 2u * 8u * 128u * 2u);
  // Dense: every weight is active but the input lookup (not tied in Qwen3-8B).
  EXPECT_EQ(m.active_params() + input_embedding(m), m.total_params());
  EXPECT_NEAR(billions(m.total_params()), 8.2, 0.05);
}

TEST(ModelConfig, DenseLlama31) {
  ModelSpec m = read("meta-llama__Meta-Llama-3.1-8B");
  EXPECT_EQ(m.model_type, "llama");
  EXPECT_FALSE(m.is_moe());
  EXPECT_EQ(m.head_dim, 128);  // hidden_size / num_attention_heads: no head_dim in the config
  EXPECT_EQ(m.total_params(), 8'030'261'248u);
}

// ---------------------------------------------------------------------------------------------
// Hand-written configs for the families and variants with no real file here.
// ---------------------------------------------------------------------------------------------
Result<ModelSpec> parse(const std::string& text) { return parse_model_config(text, "cfg.json"); }

// DeepSeek-V2-Lite's shape: q_lora_rank null (q_proj directly), greedy routing (no bias).
TEST(ModelConfig, MlaWithoutQueryLora) {
  auto m = parse(R"({"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27,
    "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 102400,
    "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "v_head_dim": 128, "n_routed_experts": 64, "num_experts_per_tok": 6, "n_shared_experts": 2,
    "moe_intermediate_size": 1408, "intermediate_size": 10944, "first_k_dense_replace": 1,
    "moe_layer_freq": 1, "topk_method": "greedy", "torch_dtype": "bfloat16"})");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->q_lora_rank, 0);
  EXPECT_FALSE(m->router_bias);
  EXPECT_EQ(m->shared_experts, 2);
  EXPECT_EQ(m->shared_intermediate, 2 * 1408);
  EXPECT_EQ(m->dense_layers, 1);
  EXPECT_EQ(m->moe_layers, 26);
  // q_proj 2048 x 16 x 192 + kv_a 2048 x 576 + 512 + kv_b 512 x 16 x 256 + o 16 x 128 x 2048
  EXPECT_EQ(m->attention_params_per_layer(),
            2048u * 16 * 192 + 2048u * 576 + 512 + 512u * 16 * 256 + 16u * 128 * 2048);
  // DeepSeek-V2-Lite: 15.7B total, 2.4B active (model card; DeepSeek's active leaves out the
  // input embedding, as for V3).
  EXPECT_NEAR(billions(m->total_params()), 15.7, 0.1);
  EXPECT_NEAR(billions(m->active_params()), 2.4, 0.1);
}

// Qwen2-MoE (Qwen1.5-MoE-A2.7B's shape): shared expert with its own width and a gate, qkv bias.
TEST(ModelConfig, Qwen2MoeSharedExpert) {
  auto m = parse(R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
    "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936,
    "intermediate_size": 5632, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
    "num_experts": 60, "num_experts_per_tok": 4, "decoder_sparse_step": 1, "mlp_only_layers": [],
    "tie_word_embeddings": false})");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_TRUE(m->qkv_bias);
  EXPECT_FALSE(m->o_bias);
  EXPECT_EQ(m->shared_experts, 1);
  EXPECT_EQ(m->shared_intermediate, 5632);
  EXPECT_TRUE(m->shared_expert_gate);
  EXPECT_EQ(m->shared_ffn_params_per_layer(), 3u * 2048 * 5632 + 2048);
  // Qwen1.5-MoE-A2.7B: 14.3B total, 2.7B activated (model card, both embeddings counted).
  EXPECT_NEAR(billions(m->total_params()), 14.3, 0.1);
  EXPECT_NEAR(billions(m->active_params() + uint64_t(151936) * 2048), 2.7, 0.1);
}

TEST(ModelConfig, MlpOnlyLayersAndSparseStep) {
  auto m = parse(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 8,
    "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 256,
    "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2,
    "decoder_sparse_step": 2, "mlp_only_layers": [1, 3]})");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  // MoE where (i + 1) % 2 == 0 and i not in [1, 3]: layers 5, 7.
  EXPECT_EQ(m->moe_layers, 2);
  EXPECT_EQ(m->dense_layers, 6);
  EXPECT_EQ(m->intermediate, 256);
  EXPECT_EQ(m->kv_heads, 4);   // absent: MHA
  EXPECT_EQ(m->head_dim, 16);  // 64 / 4
}

TEST(ModelConfig, QuantizationVariants) {
  const std::string base = R"("hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
    "vocab_size": 1000, "intermediate_size": 512, "model_type": "llama")";
  auto with = [&](const std::string& q) {
    return parse("{" + base + ", \"quantization_config\": " + q + "}");
  };

  auto fp8 = with(R"({"quant_method": "fp8", "activation_scheme": "dynamic"})");
  ASSERT_TRUE(fp8.ok()) << fp8.error().to_string();
  EXPECT_EQ(fp8->attention_format, WeightFormat::kFp8);
  EXPECT_EQ(fp8->quantization, "fp8");

  auto ct = with(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
    "strategy": "channel"}}}, "ignore": ["lm_head"]})");
  ASSERT_TRUE(ct.ok()) << ct.error().to_string();
  EXPECT_EQ(ct->expert_format, WeightFormat::kFp8);
  EXPECT_EQ(ct->attention_format, WeightFormat::kFp8);

  auto ct4 = with(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0":
    {"weights": {"num_bits": 4, "type": "float", "group_size": 16}}}, "ignore": ["lm_head",
    "re:.*self_attn.*"]})");
  ASSERT_TRUE(ct4.ok()) << ct4.error().to_string();
  EXPECT_EQ(ct4->expert_format, WeightFormat::kNvfp4);
  EXPECT_EQ(ct4->attention_format, WeightFormat::kBf16);

  auto mo = with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
    "exclude_modules": ["lm_head", "model.layers.*.self_attn*"]})");
  ASSERT_TRUE(mo.ok()) << mo.error().to_string();
  EXPECT_EQ(mo->expert_format, WeightFormat::kNvfp4);
  EXPECT_EQ(mo->attention_format, WeightFormat::kBf16);

  auto mo8 = with(R"({"quant_method": "modelopt", "quant_algo": "FP8"})");
  ASSERT_TRUE(mo8.ok()) << mo8.error().to_string();
  EXPECT_EQ(mo8->attention_format, WeightFormat::kFp8);

  auto awq = with(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true})");
  ASSERT_TRUE(awq.ok()) << awq.error().to_string();
  EXPECT_EQ(awq->expert_format, WeightFormat::kInt4);
  EXPECT_EQ(awq->quantization, "awq int4");

  auto gptq8 = with(R"({"quant_method": "gptq", "bits": 8})");
  ASSERT_FALSE(gptq8.ok());
  EXPECT_NE(gptq8.error().what.find("bits"), std::string::npos) << gptq8.error().to_string();

  // ModelOpt checkpoints list the attention they keep in 16 bits one layer at a time: BF16
  // attention needs every layer's (this config has 2); one layer's or one projection's does not.
  auto mo_layers = with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
    "exclude_modules": ["lm_head", "model.layers.0.self_attn*", "model.layers.1.self_attn*"]})");
  ASSERT_TRUE(mo_layers.ok()) << mo_layers.error().to_string();
  EXPECT_EQ(mo_layers->attention_format, WeightFormat::kBf16);
  auto mo_one = with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
    "exclude_modules": ["lm_head", "model.layers.1.self_attn*"]})");
  ASSERT_TRUE(mo_one.ok()) << mo_one.error().to_string();
  EXPECT_EQ(mo_one->attention_format, WeightFormat::kNvfp4);
  auto mo_proj = with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
    "exclude_modules": ["model.layers.*.self_attn.q_proj", "model.layers.0.post_attention_layernorm",
    "model.layers.1.post_attention_layernorm"]})");
  ASSERT_TRUE(mo_proj.ok()) << mo_proj.error().to_string();
  EXPECT_EQ(mo_proj->attention_format, WeightFormat::kNvfp4);
  auto fp8_attn = with(R"({"quant_method": "fp8", "weight_block_size": [128, 128],
    "modules_to_not_convert": ["model.layers.*.self_attn"]})");
  ASSERT_TRUE(fp8_attn.ok()) << fp8_attn.error().to_string();
  EXPECT_EQ(fp8_attn->attention_format, WeightFormat::kBf16);
  EXPECT_EQ(fp8_attn->weight_block, 128);
  EXPECT_EQ(fp8->weight_block, 0);  // per-tensor FP8: no blocks to keep whole
  EXPECT_EQ(mo8->weight_block, 0);

  auto unknown = with(R"({"quant_method": "bitsandbytes"})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().what.find("bitsandbytes"), std::string::npos);
}

TEST(ModelConfig, BytesPerParam) {
  EXPECT_DOUBLE_EQ(bytes_per_param(WeightFormat::kBf16), 2.0);
  EXPECT_DOUBLE_EQ(bytes_per_param(WeightFormat::kFp8), 1.0 + 4.0 / 16384.0);
  EXPECT_DOUBLE_EQ(bytes_per_param(WeightFormat::kMxfp4), 4.25 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_param(WeightFormat::kNvfp4), 4.5 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_param(WeightFormat::kInt4), 0.515625);
  EXPECT_EQ(to_string(WeightFormat::kMxfp4), "mxfp4");
  EXPECT_EQ(to_string(WeightFormat::kFp8), "fp8");
}

TEST(ModelConfig, NameFromSource) {
  auto a = parse_model_config(R"({"hidden_size": 8, "num_hidden_layers": 1,
    "num_attention_heads": 2, "vocab_size": 10, "intermediate_size": 16})",
                              "/models/Qwen3-8B/config.json");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->name, "Qwen3-8B");
  EXPECT_EQ(a->model_type, "");  // unknown or absent model_type: read the generic fields
  auto b = parse_model_config(R"({"_name_or_path": "org/model", "hidden_size": 8,
    "num_hidden_layers": 1, "num_attention_heads": 2, "vocab_size": 10, "intermediate_size": 16,
    "tie_word_embeddings": true})",
                              "x.json");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->name, "org/model");
  EXPECT_EQ(b->embedding_params(), 80u);
}

TEST(ModelConfig, NameFromConfigJsonInTheWorkingDirectory) {
  // `--model config.json` from inside the checkpoint: the directory names the model, not "config".
  const char* kConfig = R"({"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
    "vocab_size": 10, "intermediate_size": 16})";
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("smcompat-plan-" + std::to_string(::getpid())) / "Org__Model-7B";
  std::filesystem::create_directories(dir);
  std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  auto a = parse_model_config(kConfig, "config.json");
  auto b = parse_model_config(kConfig, "./config.json");
  auto c = parse_model_config(kConfig, "../Org__Model-7B/config.json");
  std::filesystem::current_path(before);
  std::filesystem::remove_all(dir.parent_path());
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->name, "Org__Model-7B");
  EXPECT_EQ(b->name, "Org__Model-7B");
  EXPECT_EQ(c->name, "Org__Model-7B");
}

// ---------------------------------------------------------------------------------------------
// Broken inputs: errors that name the file (and the offset where one is known), never a throw.
// ---------------------------------------------------------------------------------------------
std::string fmt_key(const char* key) { return std::string("\"") + key + "\""; }

const char* kSmall = R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 4,
  "num_attention_heads": 4, "vocab_size": 100, "moe_intermediate_size": 32, "num_experts": 8,
  "num_experts_per_tok": 2})";

// kSmall with `changes` set over its top-level keys, parsed as `file`.
Result<ModelSpec> parse_small(const nlohmann::json& changes, std::string_view file) {
  nlohmann::json j = nlohmann::json::parse(kSmall);
  j.update(changes);
  return parse_model_config(j.dump(), file);
}

TEST(ModelConfigErrors, NotJson) {
  auto m = parse_model_config("this is not json", "bad.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().file, "bad.json");
  ASSERT_TRUE(m.error().offset.has_value());
  EXPECT_EQ(*m.error().offset, 1u);  // "t" could start "true"; "h" at byte 1 cannot follow
  EXPECT_NE(m.error().what.find("not a JSON document"), std::string::npos);
}

TEST(ModelConfigErrors, EmptyAndNotAnObject) {
  auto e = parse_model_config("", "empty.json");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().file, "empty.json");
  auto a = parse_model_config("[1, 2]", "array.json");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().what.find("not a JSON object"), std::string::npos);
}

TEST(ModelConfigErrors, TruncatedHasOffset) {
  std::string text = kSmall;
  text.resize(60);
  auto m = parse_model_config(text, "cut.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().file, "cut.json");
  ASSERT_TRUE(m.error().offset.has_value());
  EXPECT_LE(*m.error().offset, 60u);
  EXPECT_GE(*m.error().offset, 50u);
}

// Every prefix of every real config is read to a result or an error, never a crash or a throw.
TEST(ModelConfigErrors, TruncationSweep) {
  for (const char* name :
       {"deepseek-ai__DeepSeek-V3", "openai__gpt-oss-120b",
        "meta-llama__Llama-4-Scout-17B-16E-Instruct", "mistralai__Mixtral-8x7B-v0.1"}) {
    std::string path = config_path(name);
    FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    int errors = 0;
    for (size_t len = 0; len < text.size(); ++len) {
      auto m = parse_model_config(std::string_view(text).substr(0, len), name);
      if (!m.ok()) {
        ++errors;
        EXPECT_EQ(m.error().file, name);
      }
    }
    // A prefix that still parses must end after the closing brace: only the whole file does
    // (trailing whitespace aside).
    EXPECT_GE(errors, static_cast<int>(text.size()) - 2) << name;
  }
}

TEST(ModelConfigErrors, MissingHiddenSize) {
  auto m = parse_model_config(R"({"num_hidden_layers": 2, "num_attention_heads": 4,
    "vocab_size": 10, "intermediate_size": 16})",
                              "nohidden.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().file, "nohidden.json");
  EXPECT_NE(m.error().what.find("\"hidden_size\""), std::string::npos) << m.error().to_string();
  EXPECT_NE(m.error().what.find("missing"), std::string::npos);
}

TEST(ModelConfigErrors, MissingEachRequiredField) {
  for (const char* field :
       {"hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"}) {
    nlohmann::json j = nlohmann::json::parse(kSmall);
    j.erase(field);
    auto m = parse_model_config(j.dump(), "f.json");
    ASSERT_FALSE(m.ok()) << field;
    EXPECT_NE(m.error().what.find(field), std::string::npos) << m.error().to_string();
  }
}

TEST(ModelConfigErrors, MissingFieldInTextConfig) {
  auto m = parse(R"({"model_type": "llama4", "text_config": {"hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4}})");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("\"text_config.vocab_size\""), std::string::npos)
      << m.error().to_string();
}

TEST(ModelConfigErrors, WrongType) {
  nlohmann::json j = nlohmann::json::parse(kSmall);
  j["hidden_size"] = "4096";
  std::string text = j.dump();
  auto m = parse_model_config(text, "type.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("\"hidden_size\""), std::string::npos);
  EXPECT_NE(m.error().what.find("not a number"), std::string::npos) << m.error().to_string();
  ASSERT_TRUE(m.error().offset.has_value());
  EXPECT_EQ(*m.error().offset, text.find("\"hidden_size\""));

  j = nlohmann::json::parse(kSmall);
  j["num_hidden_layers"] = 4.5;
  auto f = parse_model_config(j.dump(), "float.json");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().what.find("whole number"), std::string::npos);

  j = nlohmann::json::parse(kSmall);
  j["num_hidden_layers"] = 4.0;  // integral float: accepted
  EXPECT_TRUE(parse_model_config(j.dump(), "ok.json").ok());

  j = nlohmann::json::parse(kSmall);
  j["tie_word_embeddings"] = "yes";
  EXPECT_FALSE(parse_model_config(j.dump(), "bool.json").ok());

  j = nlohmann::json::parse(kSmall);
  j["mlp_only_layers"] = "0,1";
  EXPECT_FALSE(parse_model_config(j.dump(), "list.json").ok());

  j = nlohmann::json::parse(kSmall);
  j["quantization_config"] = 7;
  EXPECT_FALSE(parse_model_config(j.dump(), "q.json").ok());
}

TEST(ModelConfigErrors, NegativeExperts) {
  auto m = parse_small({{"num_experts", -8}}, "neg.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("\"num_experts\""), std::string::npos);
  EXPECT_NE(m.error().what.find("negative"), std::string::npos) << m.error().to_string();
}

TEST(ModelConfigErrors, ExpertsPerTokenAboveExperts) {
  nlohmann::json j = nlohmann::json::parse(kSmall);
  j["num_experts_per_tok"] = 9;
  auto m = parse_model_config(j.dump(), "topk.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("more than the 8 experts"), std::string::npos)
      << m.error().to_string();
  j.erase("num_experts_per_tok");
  EXPECT_FALSE(parse_model_config(j.dump(), "topk.json").ok());
}

TEST(ModelConfigErrors, AbsurdSizes) {
  for (auto [field, value] : {std::pair<const char*, int64_t>{"num_hidden_layers", 2'000'000},
                              {"hidden_size", int64_t{1} << 40},
                              {"vocab_size", int64_t{1} << 40},
                              {"num_experts", 10'000'000},
                              {"moe_intermediate_size", int64_t{1} << 50},
                              {"num_attention_heads", 0}}) {
    auto m = parse_small({{field, value}}, "big.json");
    ASSERT_FALSE(m.ok()) << field;
    EXPECT_NE(m.error().what.find(field), std::string::npos) << m.error().to_string();
  }
  // Each field within its bound, the product not: refused as a whole.
  nlohmann::json j = nlohmann::json::parse(kSmall);
  j["num_hidden_layers"] = 100000;
  j["hidden_size"] = 1 << 20;
  j["moe_intermediate_size"] = 1 << 24;
  j["num_experts"] = 1 << 16;
  j["num_experts_per_tok"] = 1;
  auto m = parse_model_config(j.dump(), "product.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("too large"), std::string::npos) << m.error().to_string();
  // A number beyond 64 bits.
  auto huge = parse_model_config(
      R"({"hidden_size": 123456789012345678901234567890, "num_hidden_layers": 1,
      "num_attention_heads": 1, "vocab_size": 1, "intermediate_size": 1})",
      "huge.json");
  EXPECT_FALSE(huge.ok());
}

// A value of the wrong type is described without recursing into it (nlohmann's dump() recurses
// once per level), and a document nested deeper than any config is refused before parsing, at the
// bracket that goes too deep.
TEST(ModelConfigErrors, DeeplyNestedValues) {
  std::string nested_500 = std::string(500, '[') + "1" + std::string(500, ']');
  std::string text = std::string(R"({"hidden_size": )") + nested_500 +
                     R"(, "num_hidden_layers": 4, "num_attention_heads": 4, "vocab_size": 100,
                     "intermediate_size": 32})";
  auto m = parse_model_config(text, "deep.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("\"hidden_size\" is an array of 1 item, not a number"),
            std::string::npos)
      << m.error().to_string();
  EXPECT_EQ(m.error().offset, text.find("\"hidden_size\""));

  const size_t depth = 200000;
  std::string deep =
      std::string(R"({"hidden_size": )") + std::string(depth, '[') + std::string(depth, ']') + "}";
  auto d = parse_model_config(deep, "deeper.json");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().file, "deeper.json");
  EXPECT_NE(d.error().what.find("nested more than 512 levels deep"), std::string::npos)
      << d.error().to_string();
  ASSERT_TRUE(d.error().offset.has_value());
  EXPECT_EQ(*d.error().offset, deep.find('[') + 511);  // the 513th bracket, the object first
  // Brackets inside strings are text, not nesting.
  std::string in_string = std::string(R"({"_name_or_path": ")") + std::string(2000, '[') +
                          R"(", "hidden_size": 64, "num_hidden_layers": 4,
                          "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 32})";
  EXPECT_TRUE(parse_model_config(in_string, "brackets.json").ok());
  // A long wrong-typed string is cut to 37 bytes, here inside a two-byte UTF-8 character: the
  // dump replaces the broken character instead of throwing.
  std::string cut = std::string(R"({"hidden_size": ")") + std::string(36, 'a') +
                    "\u00e9\u00e9\u00e9" +
                    R"(", "num_hidden_layers": 4, "num_attention_heads": 4,
                    "vocab_size": 100, "intermediate_size": 32})";
  auto u = parse_model_config(cut, "utf8.json");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(
      u.error().what.find("is a string (\"" + std::string(36, 'a') + "\\ufffd\"...), not a number"),
      std::string::npos)
      << u.error().to_string();
}

// A number too large for a double is not a parse error to nlohmann but out_of_range, without a
// byte offset: the reader still says where it is.
TEST(ModelConfigErrors, NumberBeyondADoubleIsLocated) {
  std::string text = R"({"hidden_size": 64, "num_hidden_layers": 1e400, "num_attention_heads": 4,
    "vocab_size": 100, "intermediate_size": 32})";
  auto m = parse_model_config(text, "overflow.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().file, "overflow.json");
  EXPECT_NE(m.error().what.find("1e400"), std::string::npos) << m.error().to_string();
  ASSERT_TRUE(m.error().offset.has_value());
  EXPECT_EQ(*m.error().offset, text.find("1e400"));
  auto neg = parse_model_config(R"({"rope_theta": -1e999})", "neg.json");
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.error().offset, std::optional<uint64_t>(15));
}

// Errors name the key actually read, whichever spelling of experts-per-token the config uses.
TEST(ModelConfigErrors, ExpertsPerTokenErrorsNameTheKeyRead) {
  for (const char* key :
       {"num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk"}) {
    nlohmann::json j = nlohmann::json::parse(kSmall);
    j.erase("num_experts_per_tok");
    j[key] = 0;
    auto zero = parse_model_config(j.dump(), "k.json");
    ASSERT_FALSE(zero.ok()) << key;
    EXPECT_NE(zero.error().what.find(fmt_key(key) + " is 0"), std::string::npos)
        << zero.error().to_string();
    j[key] = 9;
    std::string text = j.dump();
    auto above = parse_model_config(text, "k.json");
    ASSERT_FALSE(above.ok()) << key;
    EXPECT_NE(above.error().what.find(fmt_key(key) + " is 9, more than the 8 experts"),
              std::string::npos)
        << above.error().to_string();
    EXPECT_EQ(above.error().offset, text.find(fmt_key(key)));
  }
}

// n_shared_experts x moe_intermediate_size is checked in 64 bits (2^16 x 2^24 overflows an int).
TEST(ModelConfigErrors, SharedExpertWidthOverflow) {
  auto m =
      parse_small({{"n_shared_experts", 65536}, {"moe_intermediate_size", 1 << 24}}, "shared.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("too wide"), std::string::npos) << m.error().to_string();
}

TEST(ModelConfigErrors, KvHeadsAboveHeads) {
  auto m = parse_small({{"num_key_value_heads", 8}}, "kv.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().what.find("num_key_value_heads"), std::string::npos);
}

TEST(ModelConfigErrors, MissingFile) {
  auto m = read_model_config("/nonexistent/dir/config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().file, "/nonexistent/dir/config.json");
}

// What the planner does not model is said, never silent (issue 31). A hybrid family without a
// row in data/layer_patterns.json (here Qwen3-Next's fields under an unknown model_type): a family
// without rules, linear-attention layers costed as full attention. Qwen/Qwen3-Next-80B-A3B-
// Instruct's own config.json (huggingface.co, the fields the reader looks at, transcribed) now has
// rules (tests/plan/hybrid_test.cpp) and no note. The configs with rules give no note but
// DeepSeek's MTP layer and the vision towers of multimodal configs.
TEST(ModelNotes, HybridAndUnknownFamiliesAreNoted) {
  const std::string fields = R"("hidden_size": 2048, "num_hidden_layers": 48,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
    "intermediate_size": 5120, "num_experts": 512, "num_experts_per_tok": 10,
    "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
    "decoder_sparse_step": 1, "mlp_only_layers": [], "full_attention_interval": 4,
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "linear_value_head_dim": 128, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16"})";
  auto unknown = parse(R"({"model_type": "qwen9_next", )" + fields);
  ASSERT_TRUE(unknown.ok()) << unknown.error().to_string();
  ASSERT_EQ(unknown->notes.size(), 2u);
  EXPECT_NE(unknown->notes[0].find("model_type 'qwen9_next' has no family rules"),
            std::string::npos);
  EXPECT_NE(unknown->notes[1].find("full_attention_interval, linear_num_value_heads describe a "
                                   "hybrid layer pattern"),
            std::string::npos);
  auto next =
      parse(R"({"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", )" + fields);
  ASSERT_TRUE(next.ok()) << next.error().to_string();
  EXPECT_TRUE(next->notes.empty()) << fmt::format("{}", fmt::join(next->notes, " | "));
  EXPECT_EQ(next->linear_layers, 36);
  // layer_types naming linear-attention layers in a family without linear-attention rules.
  auto typed = parse(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 4,
    "num_attention_heads": 4, "vocab_size": 100, "num_experts": 8, "num_experts_per_tok": 2,
    "moe_intermediate_size": 32, "layer_types": ["linear_attention", "linear_attention",
    "linear_attention", "full_attention"]})");
  ASSERT_TRUE(typed.ok());
  ASSERT_EQ(typed->notes.size(), 1u);
  EXPECT_NE(typed->notes[0].find("layer_types names 3 layers"), std::string::npos);
  for (auto& entry : std::filesystem::directory_iterator(std::string(SMCOMPAT_SOURCE_DIR) +
                                                         "/tests/plan/configs")) {
    if (entry.path().extension() != ".json") continue;
    auto m = read_model_config(entry.path().string());
    ASSERT_TRUE(m.ok()) << entry.path();
    std::ifstream in(entry.path());
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    bool vision = doc.contains("vision_config");
    // Kimi-K2 (kimi_k2, DeepseekV3ForCausalLM) says it is read by its class's family.
    bool by_class = doc.is_object() && doc.value("model_type", "") == "kimi_k2";
    size_t expected = (m->mtp_layers > 0 ? 1u : 0u) + (vision ? 1u : 0u) + (by_class ? 1u : 0u);
    EXPECT_EQ(m->notes.size(), expected)
        << entry.path() << ": " << fmt::format("{}", fmt::join(m->notes, " | "));
  }
}

// A ModelOpt checkpoint directory keeps its quantization in hf_quant_config.json beside config.json
// (the layout vLLM's and SGLang's ModelOpt readers take: {"producer", "quantization": {quant_algo,
// group_size, exclude_modules}}): --model DIR reads both, and the plan says which file gave the
// format (issue 31). Qwen3-30B-A3B's real config.json, the quantization file written here.
TEST(ModelCheckpointDir, HfQuantConfigGivesTheFormat) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "qwen3-30b-a3b-nvfp4";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/Qwen__Qwen3-30B-A3B.json",
                dir / "config.json");
  auto write = [&](const std::string& text) {
    std::ofstream(dir / "hf_quant_config.json", std::ios::trunc) << text;
  };
  write(R"({"producer": {"name": "modelopt", "version": "0.29.0"},
    "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": null, "group_size": 16,
                     "exclude_modules": ["lm_head", "model.layers.*.mlp.gate"]}})");
  auto m = read_model_config(dir.string());
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->expert_format, WeightFormat::kNvfp4);
  EXPECT_EQ(m->attention_format, WeightFormat::kNvfp4);
  EXPECT_EQ(m->quantization, "modelopt NVFP4");
  EXPECT_EQ(m->quantization_file, "hf_quant_config.json");
  // Attention left out in every layer stays 16-bit, as in config.json's quantization_config.
  write(R"({"quantization": {"quant_algo": "NVFP4", "group_size": 16,
                              "exclude_modules": ["lm_head", "model.layers.*.self_attn*"]}})");
  auto bf16_attention = read_model_config((dir / "config.json").string());
  ASSERT_TRUE(bf16_attention.ok()) << bf16_attention.error().to_string();
  EXPECT_EQ(bf16_attention->expert_format, WeightFormat::kNvfp4);
  EXPECT_EQ(bf16_attention->attention_format, WeightFormat::kBf16);
  // A broken file is an error naming it, not a silent bf16 plan.
  write(R"({"quantization": {"quant_algo": "INT3"}})");
  auto bad = read_model_config(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().file, (dir / "hf_quant_config.json").string());
  EXPECT_NE(bad.error().what.find("INT3"), std::string::npos) << bad.error().what;
  write("{\"quantization\": ");
  EXPECT_FALSE(read_model_config(dir.string()).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace smcompat::plan
