// What a served model is, read from its Hugging Face config.json: the shapes that decide memory,
// traffic and compute (layers, hidden size, attention kind and heads, dense and expert FFNs,
// experts per token, shared experts) and the number format of each kind of weight.
//
// Families read: DeepSeek-V2/V3/R1 (MLA, shared experts, first dense layers), Qwen2-MoE/Qwen3-MoE,
// Mixtral, gpt-oss, Llama 4 (text_config or a text-only "llama4_text" config, interleaved MoE
// layers), dense decoders (Llama, Qwen, Mistral), and the hybrids whose layer patterns
// data/layer_patterns.json describes (Jamba, Nemotron-H: Mamba; Qwen3-Next, Qwen3.5:
// Gated DeltaNet linear attention), each layer with its own mixer and FFN. Counts follow the
// checkpoint's tensors, so the totals can be checked against the published parameter counts
// (tests/plan/model_test.cpp).
//
// What is counted: every weight tensor of the language model as the Hugging Face checkpoint holds
// it (linears, their biases where the family has them, norms, routers, embeddings), and nothing
// the main model does not run: DeepSeek's multi-token-prediction module (mtp_layers) and Llama 4's
// vision tower are left out, as in the published totals (DeepSeek-V3's 671B excludes its 14B MTP).
// Embeddings, norms and routers are stored as the checkpoint's dtype (2 bytes for bf16/fp16);
// attention_format and expert_format say how the linears are stored.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/util/result.hpp"

namespace smcompat::plan {

/// How a group of weights is stored: bytes per parameter including block scales.
enum class WeightFormat {
  kBf16,   ///< 2 bytes (also fp16)
  kFp8,    ///< 1 byte (+ block scales: 4 bytes per 128x128 block)
  kMxfp4,  ///< 4 bits + one 8-bit scale per 32 values = 4.25 bits
  kNvfp4,  ///< 4 bits + one fp8 scale per 16 values = 4.5 bits
  kInt4,   ///< 4 bits + bf16 scale per group of 128 (AWQ/GPTQ)
};
std::string_view to_string(WeightFormat f);
double bytes_per_param(WeightFormat f);

enum class AttentionKind { kGqa, kMla };  // kGqa covers MHA (kv_heads == heads) and MQA

/// What mixes tokens in one layer (data/layer_patterns.json says which fields decide it).
enum class MixerKind {
  kFull,     ///< softmax attention over the whole context (KV cache grows with it)
  kSliding,  ///< softmax attention over a window (KV cache bounded by it)
  kLinear,   ///< linear attention (Gated DeltaNet): a fixed recurrent state, no KV cache
  kMamba,    ///< Mamba SSM: a fixed recurrent state (SSM + convolution), no KV cache
  kNone,     ///< no mixer (a Nemotron-H MLP or MoE block)
};
/// What follows the mixer in one layer.
enum class FfnKind { kDense, kMoe, kNone };
std::string_view to_string(MixerKind k);
std::string_view to_string(FfnKind k);

struct LayerKind {
  MixerKind mixer = MixerKind::kFull;
  FfnKind ffn = FfnKind::kDense;
};

/// A Mamba mixer's shape. version 1 (Jamba's JambaMambaMixer): d_inner = expand x hidden, one
/// SSM state of d_inner x d_state; version 2 (Nemotron-H's Mamba2 mixer): d_inner = heads x
/// head_dim, B and C shared by `groups` groups, SSM state heads x head_dim x d_state.
struct MambaShape {
  int version = 0;  ///< 0: the model has no Mamba layers
  int d_inner = 0;
  int d_state = 0;
  int conv_kernel = 0;
  int dt_rank = 0;  ///< version 1: the time-step projection's rank
  int heads = 0;    ///< version 2
  int head_dim = 0;
  int groups = 1;
  bool conv_bias = true;
  bool proj_bias = false;
  int conv_dim() const { return version == 2 ? d_inner + 2 * groups * d_state : d_inner; }
};

/// A Gated DeltaNet mixer's shape (Qwen3-Next, Qwen3.5): per value head a key_head_dim x
/// value_head_dim state; a causal convolution over q, k and v.
struct LinearAttentionShape {
  int key_heads = 0;  ///< 0: the model has no linear-attention layers
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;
  int conv_dim() const { return 2 * key_heads * key_head_dim + value_heads * value_head_dim; }
};

struct ModelSpec {
  std::string name;          ///< `_name_or_path`, else the config's file/dir name
  std::string model_type;    ///< config `model_type` ("deepseek_v3", "qwen3_moe", ...)
  std::string architecture;  ///< the config's first `architectures` entry ("JambaForCausalLM")
  int layers = 0;
  int hidden = 0;
  int vocab = 0;
  bool tied_embeddings = false;

  AttentionKind attention = AttentionKind::kGqa;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;  ///< GQA: per-head dimension
  // MLA (DeepSeek): the latent KV cache holds kv_lora_rank + qk_rope_head_dim per token and layer.
  int q_lora_rank = 0;  ///< 0: queries projected directly
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  int sliding_window = 0;  ///< tokens, for the layers that use it (0: none); Llama 4: the
                           ///< attention chunk (attention_chunk_size), which bounds the KV alike
  int sliding_window_layers = 0;  ///< how many layers use the window
  // Small per-layer attention tensors, counted where the family has them.
  bool qkv_bias = false;               ///< q, k and v projections carry biases (Qwen2, gpt-oss)
  bool o_bias = false;                 ///< the output projection carries a bias (gpt-oss)
  bool qk_norm = false;                ///< RMSNorm of head_dim on q and on k (Qwen3)
  bool qk_norm_per_layer = false;      ///< RMSNorm over all of q (heads x head_dim) and all of
                                       ///< k (kv_heads x head_dim) (MiniMax-M2)
  bool attention_sinks = false;        ///< one learned sink logit per head (gpt-oss)
  bool attention_output_gate = false;  ///< q_proj also yields a sigmoid gate per head and
                                       ///< dimension (Qwen3-Next: twice the query width)

  /// One entry per layer: its mixer and FFN (empty in hand-built specs: every layer full
  /// attention, with dense_layers and moe_layers as set). The counts below follow from it.
  std::vector<LayerKind> layer_kinds;
  int mamba_layers = 0;      ///< layers whose mixer is Mamba
  int linear_layers = 0;     ///< layers whose mixer is linear attention
  int mixerless_layers = 0;  ///< layers with no mixer (Nemotron-H's MLP/MoE blocks)
  MambaShape mamba;
  LinearAttentionShape linear;
  int norms_per_layer = 2;         ///< RMSNorms of hidden width per layer (Nemotron-H: 1)
  std::string activation;          ///< the FFN's activation as the config names it ("silu")
  int state_bytes_per_value = 2;   ///< recurrent SSM state (Nemotron-H: fp32,
                                   ///< mamba_ssm_cache_dtype); convolution state: 2
  std::string layer_rules_source;  ///< the modeling file the layer rules came from (data row)

  int dense_layers = 0;  ///< layers with a dense FFN
  int intermediate = 0;  ///< the dense FFN's width (Llama 4: intermediate_size_mlp; Mixtral,
                         ///< gpt-oss: 0, their intermediate_size is the expert's width)
  int moe_layers = 0;    ///< layers with routed experts
  int experts = 0;       ///< routed experts per MoE layer
  int experts_per_token = 0;
  int shared_experts = 0;           ///< always-active experts per MoE layer (counted as one FFN of
                                    ///< shared_intermediate width)
  int moe_intermediate = 0;         ///< one routed expert's width
  int shared_intermediate = 0;      ///< the shared FFN's total width (0: none)
  bool gated_ffn = true;            ///< 3 matrices (gate, up, down), else 2
  bool expert_bias = false;         ///< routed experts carry biases (gpt-oss: gate_up and down)
  bool router_bias = false;         ///< the router has one bias per expert (gpt-oss's bias;
                                    ///< DeepSeek-V3's e_score_correction_bias with noaux_tc)
  bool shared_expert_gate = false;  ///< a hidden x 1 gate on the shared expert (Qwen2-MoE)
  int mtp_layers = 0;               ///< DeepSeek `num_nextn_predict_layers` (Qwen3.5
                                    ///< `mtp_num_hidden_layers`): noted, not in the counts
  std::string mtp_field = "num_nextn_predict_layers";  ///< the spelling the config used

  WeightFormat attention_format = WeightFormat::kBf16;  ///< attention and dense FFN linears
  WeightFormat expert_format = WeightFormat::kBf16;     ///< routed (and shared) experts
  std::string quantization;       ///< as the config says ("fp8 block 128x128", "mxfp4", "none")
  std::string quantization_file;  ///< the file that gave it when not config.json
                                  ///< ("hf_quant_config.json": NVIDIA ModelOpt checkpoints)
  int weight_block = 0;           ///< block-quantised FP8 (weight_block_size): a TP slice of a
                         ///< linear must be a multiple of this (128); 0: per tensor/channel
  std::string dtype;  ///< `torch_dtype`/`dtype` ("bfloat16", "float16", "float32"; empty
                      ///< if absent). fp32 checkpoints are served as 16-bit, so the
                      ///< formats stay kBf16.
  int kv_cache_bytes_per_value = 2;  ///< bf16 KV cache (engines' default)
  /// What the reader saw and the planner does not model, for people (never silent): a family
  /// without rules, a hybrid layer pattern (Mamba, linear attention), a vision tower, an MTP
  /// module or an indexer left out of the counts.
  std::vector<std::string> notes;

  bool is_moe() const { return experts > 0 && moe_layers > 0; }
  /// Layers with softmax attention (full or sliding window): the ones with a KV cache.
  int attention_layers() const { return layers - mamba_layers - linear_layers - mixerless_layers; }
  bool has_recurrent_state() const { return mamba_layers > 0 || linear_layers > 0; }

  // Parameter counts (one layer, or the whole model).
  uint64_t attention_params_per_layer() const;
  uint64_t dense_ffn_params_per_layer() const;
  uint64_t expert_params() const;  ///< one routed expert
  uint64_t shared_ffn_params_per_layer() const;
  uint64_t router_params_per_layer() const;
  uint64_t norm_params_per_layer() const;              ///< the RMSNorms around mixer and FFN
  uint64_t mamba_params_per_layer() const;             ///< one Mamba mixer (0 without Mamba layers)
  uint64_t linear_attention_params_per_layer() const;  ///< one Gated DeltaNet mixer
  /// Every layer's mixer: attention x attention_layers() + Mamba + linear attention.
  uint64_t mixer_params() const;
  uint64_t embedding_params() const;  ///< input embedding + LM head (once if tied)
  uint64_t lm_head_params() const;    ///< the LM head (the tied table when tied)
  uint64_t total_params() const;      ///< + the final norm
  /// Per token, as model cards count "active": every matmul a token runs, so everything but the
  /// routed experts it does not pick (experts_per_token per MoE layer) and the input embedding
  /// (a lookup, not a matmul); the LM head counted (once, also when tied). gpt-oss-20b: 3.61B.
  uint64_t active_params() const;

  /// Recurrent state one sequence holds in one layer, bytes: SSM (or DeltaNet) state at
  /// state_bytes_per_value plus the convolution's last conv_kernel - 1 inputs at 2 bytes.
  uint64_t mamba_state_bytes_per_layer() const;
  uint64_t linear_state_bytes_per_layer() const;
  uint64_t recurrent_state_bytes_per_sequence() const;  ///< all layers

  /// KV-cache bytes one token occupies in one full-attention layer (MLA: the latent, not per
  /// head; GQA: 2 x kv_heads x head_dim).
  uint64_t kv_bytes_per_token_per_layer() const;
};

/// Reads a config.json. `source` names it in errors. A config with no expert fields is read as a
/// dense model (is_moe() false); the caller decides whether that is an error. Errors (never
/// exceptions): not JSON or truncated (with the byte offset), arrays and objects nested more than
/// 512 levels deep (at the bracket), a number too large for a double (at its first byte), a
/// missing required field
/// (hidden_size, num_hidden_layers, num_attention_heads, vocab_size), a field of the wrong type,
/// a negative or absurd value (offset of the field's key where it can be found), or counts that
/// would not fit in 64 bits.
Result<ModelSpec> parse_model_config(std::string_view json_text, std::string_view source);
Result<ModelSpec> read_model_config(const std::string& path);

}  // namespace smcompat::plan
