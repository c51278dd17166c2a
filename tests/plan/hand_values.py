#!/usr/bin/env python3
"""The arithmetic behind tests/plan/cost_test.cpp, written out from docs/plan.md ("The model,
term by term") without the C++ code: each expected value in the test is one of the lines this
prints. Run: python3 tests/plan/hand_values.py  (--cpp prints the test's initializers)."""
import math
import sys

GiB = 1 << 30
FP8 = 1 + 4 / (128 * 128)  # one fp32 scale per 128x128 block
BF16 = 2.0
MXFP4 = 4.25 / 8  # 4 bits + an 8-bit scale per 32 values

# Parameter counts per layer, worked out in tests/plan/model_test.cpp from the configs.
DSV3 = dict(name="DeepSeek-V3", config="deepseek-ai__DeepSeek-V3", layers=61, dense=3, moe=58,
            sliding=0, window=0, hidden=7168, vocab=129280, tied=False,
            attn=187_107_328, dense_ffn=396_361_728, expert=44_040_192, shared=44_040_192,
            router=1_835_264, norms=2 * 7168, experts=256, k=8, moe_int=2048, shared_int=2048,
            inter=18432, heads=128, mla=True, kv_lora=512, rope=64, nope=128, v=128,
            kvb=(512 + 64) * 2, fa=FP8, fe=FP8, peak="fp8")
QWEN = dict(name="Qwen3-30B-A3B", config="Qwen__Qwen3-30B-A3B", layers=48, dense=0, moe=48,
            sliding=0, window=0, hidden=2048, vocab=151936, tied=False,
            attn=18_874_624, dense_ffn=0, expert=4_718_592, shared=0, router=262_144,
            norms=2 * 2048, experts=128, k=8, moe_int=768, shared_int=0, inter=6144, heads=32,
            kv_heads=4, head_dim=128, mla=False, kvb=2 * 4 * 128 * 2, fa=BF16, fe=BF16,
            peak="fp16_bf16")
# gpt-oss-120b: 18 of 36 layers attend to a 128-token window; MXFP4 experts (fp4 tensor cores on
# sm_120), BF16 attention; router 2880 x 128 + 128 biases.
GPTOSS = dict(name="gpt-oss-120b", config="openai__gpt-oss-120b", layers=36, dense=0, moe=36,
              sliding=18, window=128, hidden=2880, vocab=201088, tied=False,
              attn=26_550_144, dense_ffn=0, expert=24_891_840, shared=0,
              router=2880 * 128 + 128, norms=2 * 2880, experts=128, k=4, moe_int=2880,
              shared_int=0, inter=0, heads=64, kv_heads=8, head_dim=64, mla=False,
              kvb=2 * 8 * 64 * 2, fa=BF16, fe=MXFP4, peak="fp4")
GPUS = {
    "8xH100": dict(spec="8xH100", n=8, mem=80 * GiB, bw=3350,
                   peak={"fp8": 1979, "fp16_bf16": 989},
                   link=900 / 2, eff=370 / 450, lat=10.1e-6 / 14),
    "4xRTX PRO 6000": dict(spec='4x\\"RTX PRO 6000\\"', n=4, mem=96 * GiB, bw=1792,
                           peak={"fp4": 2000, "fp8": 1000, "fp16_bf16": 504},
                           link=63.0, eff=35 / 63, lat=37e-6 / 14),
    "2xRTX 5090:nop2p": dict(spec="2xRTX 5090:nop2p", n=2, mem=32 * GiB, bw=1792,
                             peak={"fp8": 419, "fp16_bf16": 209.5},
                             link=63.0 / 2, eff=22.8 / 31.5, lat=37e-6 / 14),
}
B, L, G = 64, 1024, 1024
MEM_EFF, COMP_EFF, UTIL, OVERHEAD, CHUNK, LAYER_US = 0.59, 0.60, 0.90, 2 * GiB, 8192, 59


def mean_attended(first, last, window):
    """The mean of min(p, window) over positions p spread evenly over [first, last]."""
    if window <= 0 or window >= last:
        return (first + last) / 2
    if window <= first or last <= first:
        return min(first, window)
    return ((window * window - first * first) / 2 + window * (last - window)) / (last - first)


def distinct(E, k, tokens):
    return E * (1 - (1 - k / E) ** tokens)


def imbalance(tokens, k, ranks):
    """Binomial mean + 2 standard deviations over the mean, capped at the number of ranks."""
    if ranks <= 1:
        return 1.0
    mean = tokens * k / ranks
    return min(ranks, (mean + 2 * math.sqrt(mean * (1 - 1 / ranks))) / mean)


def plan(m, g, tp, dp, ep_on, a2a=None, pp=1):
    ep = tp * dp if ep_on else 1
    out = {}
    # The busiest stage: ceil(layers / pp) layers, each kind in proportion.
    layers = math.ceil(m["layers"] / pp)
    share = layers / m["layers"]
    n_dense, n_moe, n_sliding = m["dense"] * share, m["moe"] * share, m["sliding"] * share
    n_full = layers - n_sliding
    emb = (1 if m["tied"] else 2) * m["vocab"] * m["hidden"] / tp  # embedding + LM head over TP
    if pp > 1 and not m["tied"]:
        emb /= 2  # the input embedding on the first stage, the LM head on the last
    attn = m["attn"] * layers / tp
    dense = m["dense_ffn"] * n_dense / tp
    shared = m["shared"] * n_moe / tp
    small = m["router"] * n_moe + m["norms"] * layers
    local = math.ceil(m["experts"] / ep) if ep_on else m["experts"]
    experts = m["expert"] * local * n_moe / (1 if ep_on else tp)
    non_expert_bytes = emb * BF16 + (attn + dense) * m["fa"] + shared * m["fe"] + small * BF16
    out["weights"] = int(non_expert_bytes + experts * m["fe"])
    seqs = math.ceil(B / dp)
    shard = 1.0 if m["mla"] else math.ceil(m["kv_heads"] / tp) / m["kv_heads"]
    kv_tok = m["kvb"] * shard  # KV bytes per token and layer on this GPU

    def kv_per_seq(ctx):
        held = min(ctx, m["window"]) if m["window"] else ctx
        return (n_full * ctx + n_sliding * held) * kv_tok

    out["kv_cache"] = int(seqs * kv_per_seq(L + G))
    width = m["k"] * m["moe_int"] / (1 if ep_on else tp) + m["shared_int"] / tp
    if m["dense"]:
        width = max(width, m["inter"] / tp)
    act_fixed = CHUNK * m["hidden"] * 2 * 4 + CHUNK * width * 2 * 2
    out["activations"] = int(act_fixed + seqs * m["vocab"] / tp * 4)
    out["reserve"] = int((1 - UTIL) * g["mem"]) + OVERHEAD
    left = g["mem"] - out["weights"] - out["reserve"] - act_fixed
    per_seq = kv_per_seq(L + G) + m["vocab"] / tp * 4  # its KV cache and its FP32 logits row
    out["max_batch"] = math.floor(left / per_seq) * dp if left > 0 else 0

    bw = g["link"] * 1e9 * g["eff"]
    lat = g["lat"]
    k, E = m["k"], m["experts"]

    def step(tokens_total, per_seq, att_full, att_sliding, kv_full, kv_sliding, absorbed):
        s = {}
        tokens = math.ceil(tokens_total / dp)
        if ep_on:
            s["imbalance"] = imbalance(tokens_total, k, ep)
            expert_read = distinct(E, k, tokens_total) / ep * m["expert"] * n_moe * m["fe"]
            pairs = tokens_total * k / ep * s["imbalance"]
        else:
            s["imbalance"] = 1.0
            expert_read = distinct(E, k, tokens) * m["expert"] / tp * n_moe * m["fe"]
            pairs = tokens * k
        # The LM head is read whole; of the input embedding only the tokens' rows (a lookup).
        head_read = m["vocab"] * m["hidden"] / tp
        emb_read = (head_read + tokens * m["hidden"]) * BF16
        s["weight_bytes_read"] = non_expert_bytes - emb * BF16 + emb_read + expert_read
        s["kv_bytes_read"] = tokens / per_seq * (n_full * kv_full + n_sliding * kv_sliding) * kv_tok
        if m["mla"]:
            per_ctx = (2 * m["heads"] / tp * (2 * m["kv_lora"] + m["rope"]) if absorbed
                       else 2 * m["heads"] / tp * (m["nope"] + m["rope"] + m["v"]))
        else:
            per_ctx = 4 * m["heads"] / tp * m["head_dim"]
        head = emb if (m["tied"] or pp > 1) else emb / 2  # the LM head's share of `emb`
        s["flops"] = (2 * tokens * (head + attn + dense + shared) +
                      2 * pairs * m["expert"] / (1 if ep_on else tp) * n_moe +
                      tokens * per_ctx * (n_full * att_full + n_sliding * att_sliding))
        comm = 0.0
        s["allreduce_bytes"] = 0.0
        s["all2all_bytes"] = 0.0
        if tp > 1:
            per_layer = 1 + (layers - n_moe) / layers if (ep_on and dp > 1) else 2
            msgs = per_layer * layers
            s["allreduce_bytes"] = msgs * 2 * (tp - 1) / tp * tokens * m["hidden"] * 2
            comm += s["allreduce_bytes"] / bw + msgs * 2 * (tp - 1) * lat
        if ep_on and dp > 1:
            if a2a == "deepep":
                ranks = ep * (1 - (1 - 1 / ep) ** k)
                remote = ranks * (ep - 1) / ep
                s["all2all_bytes"] = tokens * remote * m["hidden"] * 3 * s["imbalance"] * n_moe
                comm += s["all2all_bytes"] / bw + n_moe * 2 * lat
            else:
                s["all2all_bytes"] = 2 * (dp - 1) / dp * tokens_total * m["hidden"] * 2 * n_moe
                comm += s["all2all_bytes"] / bw + n_moe * 2 * (dp - 1) * lat
        s["memory_s"] = (s["weight_bytes_read"] + s["kv_bytes_read"]) / (g["bw"] * 1e9 * MEM_EFF)
        s["compute_s"] = s["flops"] / (g["peak"][m["peak"]] * 1e12 * COMP_EFF)
        s["comm_s"] = comm
        s["overhead_s"] = layers * LAYER_US * 1e-6
        s["step_s"] = max(s["memory_s"], s["compute_s"]) + comm + s["overhead_s"]
        return s

    # Decode: B tokens at positions L .. L + G (pp micro-batches of B/pp with stages).
    att_sliding = mean_attended(L, L + G, m["window"])
    d = step(B / pp, 1, L + G / 2, att_sliding, L + G / 2, att_sliding, True)
    d["pipeline_bytes"] = 0.0
    if pp > 1:
        send = math.ceil(B / pp / dp) * m["hidden"] * 2  # one micro-batch's hidden states
        for key in ("weight_bytes_read", "kv_bytes_read", "flops", "allreduce_bytes",
                    "all2all_bytes", "memory_s", "compute_s", "overhead_s"):
            d[key] *= pp
        d["pipeline_bytes"] = pp * send
        d["comm_s"] = pp * (d["comm_s"] + send / bw + lat)
        d["step_s"] = max(d["memory_s"], d["compute_s"]) + d["comm_s"] + d["overhead_s"]
    out.update(d)

    # Prefill: B x L tokens at positions 0 .. L; each prompt's K and V read once; MLA unabsorbed.
    p = step(B * L, L, L / 2, mean_attended(0, L, m["window"]), L, L, False)
    tokens = math.ceil(B * L / dp)
    chunks = max(1, math.ceil(tokens / CHUNK))
    prefill = p["step_s"] + (chunks - 1) * p["overhead_s"]
    if pp > 1:
        send_s = tokens * m["hidden"] * 2 / bw + chunks * lat
        per_chunk = (prefill + send_s) / chunks
        prefill += send_s + (pp - 1) * per_chunk
    out["prefill_s"] = prefill
    out["output_tokens_per_s"] = B * G / (prefill + G * d["step_s"])
    out["total"] = out["weights"] + out["kv_cache"] + out["activations"] + out["reserve"]
    out["fits"] = out["total"] <= g["mem"]
    return out


# (model, GPUs, tp, dp, experts placed whole, all-to-all, pp)
CASES = [
    (DSV3, "8xH100", 8, 1, False, None, 1), (DSV3, "8xH100", 1, 8, True, "deepep", 1),
    (DSV3, "4xRTX PRO 6000", 4, 1, False, None, 1), (DSV3, "2xRTX 5090:nop2p", 2, 1, False, None, 1),
    (QWEN, "8xH100", 1, 8, False, None, 1), (QWEN, "8xH100", 1, 8, True, "allgather", 1),
    (QWEN, "4xRTX PRO 6000", 4, 1, False, None, 1),
    (QWEN, "4xRTX PRO 6000", 1, 4, True, "allgather", 1),
    (QWEN, "2xRTX 5090:nop2p", 2, 1, False, None, 1),
    (QWEN, "2xRTX 5090:nop2p", 1, 2, True, "allgather", 1),
    # TP4+EP4 at dp 1: whole experts, tokens replicated, combined by the all-reduce.
    (QWEN, "4xRTX PRO 6000", 4, 1, True, None, 1),
    # Two pipeline stages of TP2.
    (QWEN, "4xRTX PRO 6000", 2, 1, False, None, 2),
    (DSV3, "8xH100", 4, 1, False, None, 2),
    # Sliding windows (18 of 36 layers, 128 tokens) and MXFP4 experts.
    (GPTOSS, "4xRTX PRO 6000", 4, 1, False, None, 1),
]
MEMORY = ("weights", "kv_cache", "activations", "reserve")
TERMS = ("weight_bytes_read", "kv_bytes_read", "flops", "allreduce_bytes", "all2all_bytes",
         "pipeline_bytes", "imbalance", "memory_s", "compute_s", "comm_s", "overhead_s", "step_s",
         "prefill_s", "output_tokens_per_s")


def describe(m, gname, tp, dp, ep_on, a2a, pp):
    return (f"{m['name']} on {gname}, pp {pp} tp {tp} dp {dp}" + (" EP" if ep_on else "") +
            (f" {a2a}" if a2a else ""))


def cpp(m, gname, tp, dp, ep_on, a2a, pp, r):
    """One HandCase initializer of tests/plan/cost_test.cpp."""
    a2a_cpp = {"deepep": "kDeepEp", "allgather": "kAllgatherReduceScatter"}.get(a2a, "kNone")
    mode = "kExpertParallel" if ep_on else "kTpSharded"
    mem = ", ".join(f"{r[key]}ull" for key in MEMORY)
    terms = ",\n       ".join(repr(float(r[key])) for key in TERMS)
    return (f'      {{"{describe(m, gname, tp, dp, ep_on, a2a, pp)}",\n'
            f'       "{m["config"]}",\n       "{GPUS[gname]["spec"]}",\n'
            f"       {tp},\n       {dp},\n       {pp},\n       ExpertMode::{mode},\n"
            f"       AllToAll::{a2a_cpp},\n       {{{mem}}},\n"
            f"       {'true' if r['fits'] else 'false'},\n       {r['max_batch']},\n"
            f"       {terms}}},")


if __name__ == "__main__":
    for case in CASES:
        r = plan(case[0], GPUS[case[1]], *case[2:])
        if "--cpp" in sys.argv:
            print(cpp(*case, r))
            continue
        print(describe(*case))
        for key in MEMORY + ("total", "fits", "max_batch"):
            print(f"  {key:20} {r[key]}")
        for key in TERMS:
            print(f"  {key:20} {r[key]!r}")
