#!/usr/bin/env python3
"""Hand counts for the hybrid configs in tests/plan/configs/ (Jamba, Nemotron-H, Qwen3-Next,
Qwen3.5), written from the Hugging Face modeling files without the C++ code: each module's tensors
as its __init__ builds them. tests/plan/model_test.cpp (Hybrid*) and cost_test.cpp (Hybrid*) assert
the numbers this prints. Run: python3 tests/plan/hybrid_hand_values.py

Sources (transformers main, read 2026-11-28):
  jamba/modeling_jamba.py        JambaMambaMixer, JambaAttention, JambaSparseMoeBlock, JambaMLP
  nemotron_h/modeling_nemotron_h.py  NemotronHMamba2Mixer, NemotronHAttention, NemotronHMoE,
                                     NemotronHMLP (relu2: up_proj and down_proj only)
  qwen3_next/modeling_qwen3_next.py  Qwen3NextGatedDeltaNet, Qwen3NextAttention (q_proj doubled
                                     for the output gate, q_norm/k_norm), Qwen3NextSparseMoeBlock

Held-out MoE configs added 2026-11-28 (second set; docs/plan.md "Held-out configs"), counted the
same way, each from its own modeling file:
  deepseek_v3/modeling_deepseek_v3.py  (Kimi-K2, whose config names DeepseekV3ForCausalLM)
      DeepseekV3Attention: q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa,
      kv_a_layernorm, kv_b_proj, o_proj; DeepseekV3MoE: experts, shared_experts
      (n_shared_experts x moe_intermediate_size), gate weight + e_score_correction_bias
  qwen3_moe/modeling_qwen3_moe.py   Qwen3MoeAttention (q_norm, k_norm of head_dim), experts, gate
  gpt_oss/modeling_gpt_oss.py       GptOssAttention (q/k/v/o with bias, sinks), GptOssTopKRouter
      (weight + bias), GptOssExperts (gate_up_proj + bias, down_proj + bias)
  MiniMaxAI/MiniMax-M2.5 modeling_minimax_m2.py (the checkpoint's remote code; transformers'
      minimax_m2): MiniMaxM2Attention (q_norm over heads x head_dim and k_norm over kv_heads x
      head_dim: qk_norm_type "per_layer"), MiniMaxM2SparseMoeBlock (gate without bias,
      e_score_correction_bias when use_routing_bias, experts w1/w2/w3); MTP modules not counted
Weights per GPU of the quantised ones are counted as the checkpoints store them: FP8 blocks of
128 x 128 with one fp32 scale each (ceil(rows/128) x ceil(cols/128) scales per matrix), MXFP4 with
one byte of scale per 32 values; what the quantization_config leaves out stays bf16.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def cfg(name):
    with open(os.path.join(HERE, "configs", name + ".json")) as f:
        d = json.load(f)
    return d.get("text_config", d) if "hidden_size" not in d else d


def gqa(h, heads, kv, hd, gate=False, qk_norm=False):
    p = h * heads * hd * (2 if gate else 1) + 2 * h * kv * hd + heads * hd * h
    return p + (2 * hd if qk_norm else 0)


# Per GPU under TP2 (no EP), bf16, the default workload (64 sequences of 1024 + 1024 tokens):
# what is split over TP (embeddings, mixers, FFNs and experts) / 2, routers and norms whole.
def bf16_tp(tp, split, whole):
    return int((split / tp + whole) * 2)


def per_gpu_kv(kv_bytes_per_token_all_layers, kv_heads, tp=2, seqs=64, ctx=2048):
    shard = -(-kv_heads // tp) / kv_heads
    return int(seqs * ctx * kv_bytes_per_token_all_layers * shard)


def jamba():
    c = cfg("ai21labs__AI21-Jamba-1.5-Mini")
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    d, n, k, r = c["mamba_expand"] * h, c["mamba_d_state"], c["mamba_d_conv"], c["mamba_dt_rank"]
    mamba = (h * 2 * d                # in_proj
             + d * k + d              # conv1d + bias (mamba_conv_bias)
             + d * (r + 2 * n)        # x_proj
             + r * d + d              # dt_proj + bias
             + d * n + d              # A_log, D
             + d * h                  # out_proj
             + r + 2 * n)             # dt/b/c layernorms
    attn = gqa(h, c["num_attention_heads"], c["num_key_value_heads"], h // c["num_attention_heads"])
    mlp = 3 * h * c["intermediate_size"]
    E, K = c["num_experts"], c["num_experts_per_tok"]
    attn_layers = [i for i in range(L) if i % c["attn_layer_period"] == c["attn_layer_offset"]]
    moe_layers = [i for i in range(L) if i % c["expert_layer_period"] == c["expert_layer_offset"]]
    na, nm = len(attn_layers), len(moe_layers)
    total = (2 * V * h + h + na * attn + (L - na) * mamba + L * 2 * h + (L - nm) * mlp
             + nm * (E * mlp + h * E))
    active = total - nm * (E - K) * mlp - V * h
    kv_token = na * 2 * c["num_key_value_heads"] * (h // c["num_attention_heads"]) * 2
    state = (L - na) * (d * n * 2 + (k - 1) * d * 2)  # bf16 SSM and conv state
    mixers = na * attn + (L - na) * mamba
    experts = (L - nm) * mlp + nm * E * mlp
    weights_tp2 = bf16_tp(2, 2 * V * h + mixers + experts, nm * h * E + L * 2 * h)
    return dict(name="Jamba-1.5-Mini", total=total, active=active, attn_layers=na,
                weights_tp2=weights_tp2, kv_tp2=per_gpu_kv(kv_token, c["num_key_value_heads"]),
                state_tp2=int(64 * state / 2),
                mamba_layers=L - na, moe_layers=nm, attn=attn, mamba=mamba,
                kv_bytes_per_token=kv_token, state_bytes_per_seq=state)


def nemotron_h():
    c = cfg("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    h, V, pat = c["hidden_size"], c["vocab_size"], c["hybrid_override_pattern"]
    nh, hd, n, g, k = (c["mamba_num_heads"], c["mamba_head_dim"], c["ssm_state_size"],
                       c["n_groups"], c["conv_kernel"])
    d = nh * hd
    conv = d + 2 * g * n
    mamba = h * (d + conv + nh) + conv * k + conv + 3 * nh + d + d * h
    attn = gqa(h, c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"])
    expert = 2 * h * c["moe_intermediate_size"]             # relu2: up, down
    shared = 2 * h * c["moe_shared_expert_intermediate_size"]
    E, K = c["n_routed_experts"], c["num_experts_per_tok"]
    router = h * E + E                                       # weight + e_score_correction_bias
    moe = E * expert + shared + router
    cnt = {ch: pat.count(ch) for ch in "M*E-"}
    L = len(pat)
    total = 2 * V * h + h + L * h + cnt["M"] * mamba + cnt["*"] * attn + cnt["E"] * moe
    active = total - cnt["E"] * (E - K) * expert - V * h
    kv_token = cnt["*"] * 2 * c["num_key_value_heads"] * c["head_dim"] * 2
    ssm_b = 4 if c.get("mamba_ssm_cache_dtype") == "float32" else 2
    state = cnt["M"] * (nh * hd * n * ssm_b + (k - 1) * conv * 2)
    split = 2 * V * h + cnt["M"] * mamba + cnt["*"] * attn + cnt["E"] * (E * expert + shared)
    weights_tp2 = bf16_tp(2, split, cnt["E"] * router + L * h)
    return dict(name="Nemotron-3-Nano-30B-A3B", total=total, active=active,
                weights_tp2=weights_tp2, kv_tp2=per_gpu_kv(kv_token, c["num_key_value_heads"]),
                state_tp2=int(64 * state / 2),
                attn_layers=cnt["*"], mamba_layers=cnt["M"], moe_layers=cnt["E"], attn=attn,
                mamba=mamba, kv_bytes_per_token=kv_token, state_bytes_per_seq=state)


def gated_deltanet_model(name):
    c = cfg(name)
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    kh, vh = c["linear_num_key_heads"], c["linear_num_value_heads"]
    kd, vd, k = c["linear_key_head_dim"], c["linear_value_head_dim"], c["linear_conv_kernel_dim"]
    key_dim, value_dim = kh * kd, vh * vd
    conv = 2 * key_dim + value_dim
    gdn = (h * (2 * key_dim + 2 * value_dim) + h * 2 * vh + conv * k + 2 * vh + vd
           + value_dim * h)
    attn = gqa(h, c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], gate=True,
               qk_norm=True)
    E, K, w, sw = (c["num_experts"], c["num_experts_per_tok"], c["moe_intermediate_size"],
                   c["shared_expert_intermediate_size"])
    expert = 3 * h * w
    moe = E * expert + 3 * h * sw + h + h * E                # + shared_expert_gate + router
    if "layer_types" in c:
        full = sum(1 for t in c["layer_types"] if t == "full_attention")
    else:
        full = sum(1 for i in range(L) if (i + 1) % c["full_attention_interval"] == 0)
    total = 2 * V * h + h + L * 2 * h + full * attn + (L - full) * gdn + L * moe
    active = total - L * (E - K) * expert - V * h
    kv_token = full * 2 * c["num_key_value_heads"] * c["head_dim"] * 2
    sb = 4 if c.get("mamba_ssm_dtype") == "float32" else 2
    state = (L - full) * (vh * kd * vd * sb + (k - 1) * conv * 2)
    split = 2 * V * h + full * attn + (L - full) * gdn + L * (E * expert + 3 * h * sw + h)
    weights_tp2 = bf16_tp(2, split, L * h * E + L * 2 * h)
    return dict(name=name, total=total, active=active, attn_layers=full,
                weights_tp2=weights_tp2, kv_tp2=per_gpu_kv(kv_token, c["num_key_value_heads"]),
                state_tp2=int(64 * state / 2),
                linear_layers=L - full, moe_layers=L, attn=attn, gdn=gdn,
                kv_bytes_per_token=kv_token, state_bytes_per_seq=state)


def fp8_block(rows, cols):
    """Bytes of one FP8 matrix with 128 x 128 blocks: a byte a value, an fp32 scale a block."""
    return rows * cols + 4 * (-(-rows // 128)) * (-(-cols // 128))


def kimi_k2():
    c = cfg("moonshotai__Kimi-K2-Instruct")
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    H, ql, kl = c["num_attention_heads"], c["q_lora_rank"], c["kv_lora_rank"]
    nope, rope, vd = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"]
    E, K, w = c["n_routed_experts"], c["num_experts_per_tok"], c["moe_intermediate_size"]
    sw = c["n_shared_experts"] * w
    mats = [(ql, h), (H * (nope + rope), ql), (kl + rope, h), (H * (nope + vd), kl), (h, H * vd)]
    attn = sum(r * k for r, k in mats) + ql + kl                 # + q_a/kv_a layernorms
    dense_layers = c["first_k_dense_replace"]
    moe_layers = L - dense_layers
    expert = 3 * h * w
    router = h * E + E                                           # gate + e_score_correction_bias
    total = (2 * V * h + h + L * (attn + 2 * h) + dense_layers * 3 * h * c["intermediate_size"]
             + moe_layers * (E * expert + 3 * h * sw + router))
    active = total - moe_layers * (E - K) * expert - V * h
    # TP2 bytes: every linear of the decoder in FP8 blocks (no modules_to_not_convert), the
    # router, norms, embeddings and LM head in bf16; all but routers and norms split over 2.
    attn_b = sum(fp8_block(r, k) for r, k in mats)
    mlp_b = lambda width: 2 * fp8_block(width, h) + fp8_block(h, width)
    split = (2 * V * h * 2 + L * attn_b + dense_layers * mlp_b(c["intermediate_size"])
             + moe_layers * (E * mlp_b(w) + mlp_b(sw)))
    whole = 2 * (h + L * (2 * h + ql + kl) + moe_layers * router)
    return dict(name="Kimi-K2-Instruct", total=total, active=active, attn_layers=L,
                moe_layers=moe_layers, weights_tp2=split // 2 + whole,
                kv_bytes_per_token=L * (kl + rope) * 2)


def qwen3_coder():
    c = cfg("Qwen__Qwen3-Coder-480B-A35B-Instruct")
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    attn = gqa(h, c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"],
               qk_norm=True)
    E, K = c["num_experts"], c["num_experts_per_tok"]
    expert = 3 * h * c["moe_intermediate_size"]
    total = 2 * V * h + h + L * (attn + 2 * h + E * expert + h * E)
    active = total - L * (E - K) * expert - V * h
    split = 2 * V * h + L * (attn - 2 * c["head_dim"] + E * expert)
    weights_tp2 = bf16_tp(2, split, L * (h * E + 2 * h + 2 * c["head_dim"]) + h)
    kv = L * 2 * c["num_key_value_heads"] * c["head_dim"] * 2
    return dict(name="Qwen3-Coder-480B-A35B", total=total, active=active, attn_layers=L,
                moe_layers=L, weights_tp2=weights_tp2, kv_bytes_per_token=kv)


def gpt_oss_20b():
    c = cfg("openai__gpt-oss-20b")
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    H, kv, hd, i = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], \
        c["intermediate_size"]
    attn = (h * H * hd + H * hd) + 2 * (h * kv * hd + kv * hd) + (H * hd * h + h) + H  # + sinks
    E, K = c["num_local_experts"], c["num_experts_per_tok"]
    expert_w = h * 2 * i + i * h                      # gate_up_proj, down_proj
    expert_b = 2 * i + h                              # their biases
    router = h * E + E
    total = 2 * V * h + h + L * (attn + 2 * h + router + E * (expert_w + expert_b))
    active = total - L * (E - K) * (expert_w + expert_b) - V * h
    # MXFP4 experts (4 bits a value + a one-byte scale per 32 values); attention, router,
    # embeddings, LM head and the expert biases bf16 (modules_to_not_convert).
    split = 2 * V * h * 2 + L * 2 * attn + L * E * (expert_w * 17 // 32 + 2 * expert_b)
    whole = 2 * (h + L * (2 * h + router))
    return dict(name="gpt-oss-20b", total=total, active=active, attn_layers=L, moe_layers=L,
                weights_tp2=split // 2 + whole, kv_bytes_per_token=L * 2 * kv * hd * 2)


def minimax_m2():
    c = cfg("MiniMaxAI__MiniMax-M2.5")
    h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
    H, kv, hd, w = (c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"],
                    c["intermediate_size"])
    qk_norms = H * hd + kv * hd                        # per_layer q_norm and k_norm
    attn = gqa(h, H, kv, hd) + qk_norms
    E, K = c["num_local_experts"], c["num_experts_per_tok"]
    expert = 3 * h * w
    router = h * E + E                                 # gate + e_score_correction_bias
    total = 2 * V * h + h + L * (attn + 2 * h + router + E * expert)
    active = total - L * (E - K) * expert - V * h
    # FP8 blocks everywhere but gate, e_score_correction_bias and lm_head (modules_to_not_convert;
    # the embedding is not a Linear, so not converted).
    attn_b = (fp8_block(H * hd, h) + 2 * fp8_block(kv * hd, h) + fp8_block(h, H * hd))
    split = 2 * V * h * 2 + L * (attn_b + E * (2 * fp8_block(w, h) + fp8_block(h, w)))
    whole = 2 * (h + L * (2 * h + router + qk_norms))
    return dict(name="MiniMax-M2.5", total=total, active=active, attn_layers=L, moe_layers=L,
                weights_tp2=split // 2 + whole, kv_bytes_per_token=L * 2 * kv * hd * 2)


HELD_OUT = [("moonshotai__Kimi-K2-Instruct", kimi_k2),
            ("Qwen__Qwen3-Coder-480B-A35B-Instruct", qwen3_coder),
            ("openai__gpt-oss-20b", gpt_oss_20b), ("MiniMaxAI__MiniMax-M2.5", minimax_m2),
            ("Qwen__Qwen3.5-397B-A17B", lambda: gated_deltanet_model("Qwen__Qwen3.5-397B-A17B"))]


if __name__ == "__main__":
    for m in (jamba(), nemotron_h(), gated_deltanet_model("Qwen__Qwen3-Next-80B-A3B-Thinking"),
              gated_deltanet_model("Qwen__Qwen3.5-35B-A3B"),
              gated_deltanet_model("Qwen__Qwen3.5-122B-A10B"), *(f() for _, f in HELD_OUT)):
        print(m["name"])
        for key, v in m.items():
            if key != "name":
                unit = f"  ({v / 1e9:.3f}B)" if key in ("total", "active") else ""
                print(f"  {key:22s} {v:>16,d}{unit}")
