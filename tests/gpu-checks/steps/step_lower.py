"""Step "lower" (pending check 11): `smcompat ptx lower` run here, its mma.sync kernels run against the wgmma originals.

tests/ptx/data/wgmma_kernels.cu (9 kernels, one wgmma.mma_async each: f16, bf16, tf32 and e4m3
inputs, f32 and f16 accumulators, A from shared memory and from registers, K- and MN-major
operands, N from 8 to 256) built for sm_90a is lowered with `--to sm_90`, which rewrites every
wgmma into mma.sync chains. A Hopper GPU runs both, so each original (the sm_90a cubin) and its
lowering (the PTX, JIT-compiled here) run on the same inputs for several shared-memory layouts
(swizzled and not) with and without accumulation, and their outputs must be identical byte for
byte: inputs are small integers, so every sum is exact in every element type and no rounding can
excuse a difference. The lowering's cost is recorded beside it (the median of 20 timed launches
of each, lowered/original), an observation, not a prediction.
"""

import re

from kitlib import Step

step = Step("lower", "ptx lower: wgmma kernels lowered to mma.sync run against their originals", [11])
data = step.kit / "checks" / "ptx"
kit_driver = str(step.kit / "checks" / "kit_driver")
SYNTHETIC_NOTE = "the fake driver runs no kernels: both outputs are the zeroed buffers"
KERNELS = ["wgmma_f16_ss_n64_kk", "wgmma_f16_ss_n64_mn", "wgmma_bf16_ss_n32_kn", "wgmma_f16_rs_n16",
           "wgmma_f16acc_ss_n64", "wgmma_tf32_ss_n16", "wgmma_e4m3_ss_n32", "wgmma_f16_ss_n256",
           "wgmma_bf16_ss_n8"]
budget = step.budget(30)

src = data / "wgmma_kernels.sm_90a.ptx"
lowered = step.path("lowered.sm_90.ptx")
r = step.run("lower-wgmma-sm_90", [step.smcompat, "ptx", "lower", str(src), "--to", "sm_90", "-o", str(lowered),
                                   "--verify"], timeout=max(5, min(15, budget // 2)))
text = r.stdout + r.stderr
m = re.search(r"lowered (\d+) wgmma", text)
n_lowered = int(m.group(1)) if m else 0
# --verify: ptxas (where the machine has one) and the reference interpreter, original vs lowered.
verify = [l.strip() for l in text.splitlines() if l.startswith("ptxas ")]
interp = [l for l in text.splitlines() if l.startswith("interpreter: ")]
if interp:
    verify.append("interpreter: %d same, %d different, %d not run" % (
        sum("same results" in l for l in interp), sum("DIFFERENT" in l for l in interp),
        sum(" not run" in l for l in interp)))
step.row("ptx lower %s --to sm_90 --verify" % src.name, "lowered, exit 0, %d wgmma lowered" % len(KERNELS),
         "exit %d, %s, %d wgmma lowered" % (r.rc, "output written" if lowered.exists() else "no output", n_lowered),
         r.rc == 0 and lowered.exists() and n_lowered == len(KERNELS), "; ".join(verify)[:300])

runs = {}
if lowered.exists():
    c = step.run("wgmma-cubin-vs-lowered", [kit_driver, "wgmma", str(data / "wgmma_kernels.sm_90a.cubin"),
                                             str(lowered)], timeout=max(5, int(step.left(budget)) - 3))
    for line in c.json_lines():
        runs.setdefault(line.get("kernel"), []).append(line)
    if not runs:
        step.note("kit_driver wgmma printed nothing: exit %d, %s" % (c.rc, c.stderr.strip()[-200:]))


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def layout(run):
    return "A %s B %s acc %s" % (run.get("a_layout"), run.get("b_layout"), run.get("accumulate"))


for kernel in KERNELS:
    item = "%s: sm_90a cubin vs lowered sm_90 PTX" % kernel
    ks = runs.get(kernel, [])
    if not ks:
        step.row(item, "identical output", "not run: %s" % ("no lowered PTX" if not lowered.exists() else
                                                            "kit_driver printed no run of it"), False)
        continue
    failed = [x for x in ks if x.get("a_result") != "CUDA_SUCCESS" or x.get("b_result") != "CUDA_SUCCESS"]
    differing = [x for x in ks if x not in failed and not x.get("identical")]
    ratios = [x["b_ms"] / x["a_ms"] for x in ks if x not in failed and x.get("a_ms", -1) > 0 and x.get("b_ms", -1) > 0]
    ratio = median(ratios)
    if failed:
        x = failed[0]
        obs = "%d of %d runs did not run: original %s at %s, lowered %s at %s (%s)" % (
            len(failed), len(ks), x.get("a_result"), x.get("a_stage"), x.get("b_result"), x.get("b_stage"), layout(x))
    elif differing:
        obs = "%d of %d runs differ: %s" % (len(differing), len(ks), "; ".join(
            "%s: %s of %s bytes" % (layout(x), x.get("differing_bytes"), x.get("bytes")) for x in differing[:3]))
    else:
        obs = "identical over %d runs, lowered/original time ratio %s" % (
            len(ks), "%.2f" % ratio if ratio is not None else "not measured")
    a_ms = median([x["a_ms"] for x in ks if x.get("a_ms", -1) > 0])
    b_ms = median([x["b_ms"] for x in ks if x.get("b_ms", -1) > 0])
    note = "binary versions %s / %s; median launch %s / %s ms; lowered PTX load %s ms" % (
        ks[0].get("a_binary_version"), ks[0].get("b_binary_version"),
        "%.4f" % a_ms if a_ms else "-", "%.4f" % b_ms if b_ms else "-", ks[0].get("b_load_ms"))
    agree = not failed and not differing
    if step.synthetic:
        agree, note = None, SYNTHETIC_NOTE
    step.row(item, "identical output", obs, agree, note)
step.finish()
