#!/usr/bin/env python3
"""The arithmetic behind tests/plan/cost_test.cpp, written out from docs/plan.md ("The model,
term by term") without the C++ code: each expected value in the test is one of the lines this
prints. Run: python3 tests/plan/hand_values.py"""
import math

GiB = 1 << 30
FP8 = 1 + 4 / (128 * 128)  # one fp32 scale per 128x128 block
BF16 = 2.0

# Parameter counts per layer, worked out in tests/plan/model_test.cpp from the configs.
DSV3 = dict(name="DeepSeek-V3", layers=61, dense=3, moe=58, hidden=7168, vocab=129280,
            attn=187_107_328, dense_ffn=396_361_728, expert=44_040_192, shared=44_040_192,
            router=1_835_264, norms=2 * 7168, experts=256, k=8, moe_int=2048, shared_int=2048,
            inter=18432, heads=128, mla=True, kv_lora=512, rope=64, kvb=(512 + 64) * 2,
            fa=FP8, fe=FP8, peak="fp8")
QWEN = dict(name="Qwen3-30B-A3B", layers=48, dense=0, moe=48, hidden=2048, vocab=151936,
            attn=18_874_624, dense_ffn=0, expert=4_718_592, shared=0, router=262_144,
            norms=2 * 2048, experts=128, k=8, moe_int=768, shared_int=0, inter=6144, heads=32,
            kv_heads=4, head_dim=128, mla=False, kvb=2 * 4 * 128 * 2, fa=BF16, fe=BF16,
            peak="fp16_bf16")
GPUS = {
    "8xH100": dict(n=8, mem=80 * GiB, bw=3350, peak={"fp8": 1979, "fp16_bf16": 989},
                   link=900 / 2, eff=370 / 450, lat=10.1e-6 / 14),
    "4xRTX PRO 6000": dict(n=4, mem=96 * GiB, bw=1792, peak={"fp8": 1000, "fp16_bf16": 504},
                           link=63.0, eff=35 / 63, lat=37e-6 / 14),
    "2xRTX 5090:nop2p": dict(n=2, mem=32 * GiB, bw=1792, peak={"fp8": 419, "fp16_bf16": 209.5},
                             link=63.0 / 2, eff=22.8 / 31.5, lat=37e-6 / 14),
}
B, L, G = 64, 1024, 1024
MEM_EFF, COMP_EFF, UTIL, OVERHEAD, CHUNK, LAYER_US = 0.59, 0.60, 0.90, 2 * GiB, 8192, 58


def plan(m, g, tp, dp, ep_on, a2a=None):
    ep = tp * dp if ep_on else 1
    out = {}
    emb = 2 * m["vocab"] * m["hidden"] / tp  # input embedding + LM head, split over TP
    attn = m["attn"] * m["layers"] / tp
    dense = m["dense_ffn"] * m["dense"] / tp
    shared = m["shared"] * m["moe"] / tp
    small = m["router"] * m["moe"] + m["norms"] * m["layers"]
    local = math.ceil(m["experts"] / ep) if ep_on else m["experts"]
    experts = m["expert"] * local * m["moe"] / (1 if ep_on else tp)
    non_expert_bytes = emb * BF16 + (attn + dense) * m["fa"] + shared * m["fe"] + small * BF16
    out["weights"] = int(non_expert_bytes + experts * m["fe"])
    seqs = math.ceil(B / dp)
    shard = 1.0 if m["mla"] else math.ceil(m["kv_heads"] / tp) / m["kv_heads"]
    out["kv_cache"] = int(seqs * (L + G) * m["layers"] * m["kvb"] * shard)
    width = m["k"] * m["moe_int"] / (1 if ep_on else tp) + m["shared_int"] / tp
    if m["dense"]:
        width = max(width, m["inter"] / tp)
    out["activations"] = int(CHUNK * m["hidden"] * 2 * 4 + CHUNK * width * 2 * 2 +
                             seqs * m["vocab"] / tp * 4)
    out["reserve"] = int((1 - UTIL) * g["mem"]) + OVERHEAD

    # One decode step: B new tokens at an average context of L + G/2.
    ctx = L + G / 2
    k, E = m["k"], m["experts"]
    if ep_on:
        mean = B * k / ep
        imb = min(ep, (mean + 2 * math.sqrt(mean * (1 - 1 / ep))) / mean) if ep > 1 else 1.0
        touched = E * (1 - (1 - k / E) ** B) / ep
        expert_read = touched * m["expert"] * m["moe"] * m["fe"]
        pairs = B * k / ep * imb
    else:
        imb = 1.0
        touched = E * (1 - (1 - k / E) ** seqs)
        expert_read = touched * m["expert"] / tp * m["moe"] * m["fe"]
        pairs = seqs * k
    out["weight_bytes_read"] = non_expert_bytes + expert_read
    out["kv_bytes_read"] = seqs * ctx * m["layers"] * m["kvb"] * shard
    per_ctx = (2 * m["heads"] / tp * (2 * m["kv_lora"] + m["rope"]) if m["mla"]
               else 4 * m["heads"] / tp * m["head_dim"])
    out["flops"] = (2 * seqs * (emb / 2 + attn + dense + shared) +
                    2 * pairs * m["expert"] / (1 if ep_on else tp) * m["moe"] +
                    seqs * per_ctx * ctx * m["layers"])
    out["imbalance"] = imb
    bw = g["link"] * 1e9 * g["eff"]
    comm = 0.0
    out["allreduce_bytes"] = 0.0
    out["all2all_bytes"] = 0.0
    if tp > 1:
        per_layer = 1 + (m["layers"] - m["moe"]) / m["layers"] if (ep_on and dp > 1) else 2
        msgs = per_layer * m["layers"]
        out["allreduce_bytes"] = msgs * 2 * (tp - 1) / tp * seqs * m["hidden"] * 2
        comm += out["allreduce_bytes"] / bw + msgs * 2 * (tp - 1) * g["lat"]
    if ep_on and dp > 1:
        if a2a == "deepep":
            ranks = ep * (1 - (1 - 1 / ep) ** k)
            remote = ranks * (ep - 1) / ep
            out["all2all_bytes"] = seqs * remote * m["hidden"] * 3 * imb * m["moe"]
            comm += out["all2all_bytes"] / bw + m["moe"] * 2 * g["lat"]
        else:
            out["all2all_bytes"] = 2 * (dp - 1) / dp * B * m["hidden"] * 2 * m["moe"]
            comm += out["all2all_bytes"] / bw + m["moe"] * 2 * (dp - 1) * g["lat"]
    out["memory_s"] = (out["weight_bytes_read"] + out["kv_bytes_read"]) / (g["bw"] * 1e9 * MEM_EFF)
    out["compute_s"] = out["flops"] / (g["peak"][m["peak"]] * 1e12 * COMP_EFF)
    out["comm_s"] = comm
    out["overhead_s"] = m["layers"] * LAYER_US * 1e-6
    out["step_s"] = max(out["memory_s"], out["compute_s"]) + comm + out["overhead_s"]
    out["total"] = out["weights"] + out["kv_cache"] + out["activations"] + out["reserve"]
    out["fits"] = out["total"] <= g["mem"]
    return out


CASES = [
    (DSV3, "8xH100", 8, 1, False, None), (DSV3, "8xH100", 1, 8, True, "deepep"),
    (DSV3, "4xRTX PRO 6000", 4, 1, False, None), (DSV3, "2xRTX 5090:nop2p", 2, 1, False, None),
    (QWEN, "8xH100", 1, 8, False, None), (QWEN, "8xH100", 1, 8, True, "allgather"),
    (QWEN, "4xRTX PRO 6000", 4, 1, False, None), (QWEN, "4xRTX PRO 6000", 1, 4, True, "allgather"),
    (QWEN, "2xRTX 5090:nop2p", 2, 1, False, None), (QWEN, "2xRTX 5090:nop2p", 1, 2, True, "allgather"),
]
if __name__ == "__main__":
    for m, gname, tp, dp, ep_on, a2a in CASES:
        r = plan(m, GPUS[gname], tp, dp, ep_on, a2a)
        print(f"{m['name']} on {gname}: tp={tp} dp={dp} ep={'on' if ep_on else 'off'} {a2a or ''}")
        for key in ("weights", "kv_cache", "activations", "reserve", "total", "fits"):
            print(f"  {key:18} {r[key]}")
        for key in ("weight_bytes_read", "kv_bytes_read", "flops", "allreduce_bytes",
                    "all2all_bytes", "imbalance", "memory_s", "compute_s", "comm_s", "overhead_s", "step_s"):
            print(f"  {key:18} {r[key]:.6g}")
