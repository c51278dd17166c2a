"""Step "ptx" (pending check 4): `smcompat ptx retarget` run here, its output run against the original.

setmaxnreg.cu (a warp-specialised kernel and a plain one) built for sm_90a is retargeted to sm_90
(setmaxnreg dropped); both images run the same inputs and their outputs must be identical byte for
byte. cluster.cu built for sm_90 is retargeted to sm_89 (clusters collapsed to one block; the
kernel that reads a neighbour's shared memory must be refused) and its PTX JIT-compiled here: the
collapsed kernel must compute what a cluster of one computes. Inputs are small integers, so every
float sum is exact whatever order the atomics take.
"""

from kitlib import Step

step = Step("ptx", "ptx retarget: rewritten kernels run against their originals", [4])
data = step.kit / "checks" / "ptx"
kit_driver = str(step.kit / "checks" / "kit_driver")
SYNTHETIC_NOTE = "the fake driver runs no kernels: both outputs are the zeroed buffers"


def retarget(src, to):
    out = step.path(src.stem.split(".")[0] + "." + to + ".ptx")
    r = step.run("retarget-" + src.stem + "-" + to,
                 [step.smcompat, "ptx", "retarget", str(src), "--to", to, "-o", str(out)], timeout=30)
    rewrites = (r.stdout + r.stderr).count(" rewrite ")
    step.row("ptx retarget %s --to %s" % (src.name, to), "rewritten",
             "exit %d, %s, %d rewrites" % (r.rc, "output written" if out.exists() else "no output", rewrites),
             r.rc == 0 and out.exists())
    return out if out.exists() else None


def compare(a, b, kernel):
    r = step.run("compare-" + kernel, [kit_driver, "compare", str(a), str(b), kernel], timeout=30)
    lines = r.json_lines()
    return lines[0] if lines else {"error": r.stderr.strip()[-200:] or "no output"}


ws = retarget(data / "setmaxnreg.sm_90a.ptx", "sm_90")
for kernel in ("warp_specialized", "plain"):
    if not ws:
        step.row("%s: sm_90a cubin vs retargeted sm_90 PTX" % kernel, "identical output", "not run: no retargeted PTX", False)
        continue
    c = compare(data / "setmaxnreg.sm_90a.cubin", ws, kernel)
    ran = c.get("a_result") == "CUDA_SUCCESS" and c.get("b_result") == "CUDA_SUCCESS"
    obs = ("identical, %d bytes" % c.get("bytes", 0) if c.get("identical") else
           "%s differing bytes of %s" % (c.get("differing_bytes"), c.get("bytes"))) if ran else \
          "original %s at %s, retargeted %s at %s" % (c.get("a_result"), c.get("a_stage"), c.get("b_result"), c.get("b_stage"))
    agree, note = (ran and bool(c.get("identical"))), "binary versions %s / %s" % (c.get("a_binary_version"), c.get("b_binary_version"))
    if step.synthetic:
        agree, note = None, SYNTHETIC_NOTE
    step.row("%s: sm_90a cubin vs retargeted sm_90 PTX" % kernel, "identical output", obs, agree, note)

# The whole cluster.cu must be refused (dsmem reads a neighbour's shared memory); its collapsible
# kernel alone (clustered.sm_90.ptx: cluster.cu built with -DSMCOMPAT_COLLAPSIBLE_ONLY) is
# rewritten and run.
r = step.run("retarget-cluster-sm_89", [step.smcompat, "ptx", "retarget", str(data / "cluster.sm_90.ptx"),
                                         "--to", "sm_89", "-o", str(step.path("cluster.sm_89.ptx"))], timeout=30)
refused = r.rc == 1 and "dsmem" in r.stderr + r.stdout and not step.path("cluster.sm_89.ptx").exists()
step.row("ptx retarget cluster.sm_90.ptx --to sm_89", "refused: dsmem uses another block's shared memory",
         "exit %d%s" % (r.rc, ", dsmem named" if "dsmem" in r.stderr + r.stdout else ""), refused)
cl = retarget(data / "clustered.sm_90.ptx", "sm_89")
if cl:
    c = compare(data / "cluster.sm_90.cubin", cl, "clustered")
    ran = c.get("b_result") == "CUDA_SUCCESS"
    obs = ("cluster-of-one result %s" % ("exact" if c.get("cluster_of_one") else "WRONG")) if ran else \
          "retargeted %s at %s" % (c.get("b_result"), c.get("b_stage"))
    agree, note = ran and bool(c.get("cluster_of_one")), "original (cluster of 2): %s" % c.get("a_result")
    if step.synthetic:
        agree, note = None, SYNTHETIC_NOTE
    step.row("clustered: sm_89 PTX (collapsed) JIT-compiled here", "runs, out[i] = i mod 64 (a cluster of one)", obs, agree, note)
step.finish()
