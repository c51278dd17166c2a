"""Step "smem" (pending check 5): static plus dynamic shared memory against the opt-in limit.

The catalog's opt-in limit for this GPU's architecture (data/catalog.json, what `smcompat scan`
and `ptx check` judge with) against the driver's MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; then a kernel
with 1 KiB of static shared memory launched with exactly the rest of the limit as dynamic shared
memory (must run and compute 255 + words) and with one byte more (the attribute call and the
launch must fail).
"""

import json
from pathlib import Path

from kitlib import Step

step = Step("smem", "shared memory at the opt-in limit and one byte above", [5])
catalog = json.loads((Path(__file__).resolve().parents[3] / "data" / "catalog.json").read_text())
r = step.run("smem", [str(step.kit / "checks" / "kit_driver"), "smem",
                      str(step.kit / "checks" / "smem" / "smem.sm_90.cubin")], timeout=30)
lines = r.json_lines()
if not lines or "optin" not in lines[0]:
    step.fail("kit_driver smem gave no result: %s" % (lines[0] if lines else r.stderr.strip()[-300:]))
s = lines[0]

gpus = step.machine().get("gpus") or []
cc = gpus[0].get("cc") if gpus else None
arch = None
if cc:
    sm = int(cc.replace(".", ""))
    arch = next((a for a in catalog.get("archs", []) if a.get("sm") == sm), None)
if arch:
    predicted = arch["smem_per_block_optin_kib"] * 1024
    step.row("opt-in limit per block (sm_%d)" % arch["sm"], predicted, s["optin"], predicted == s["optin"],
             "catalog smem_per_block_optin_kib vs CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
    per_sm = arch["smem_per_sm_kib"] * 1024
    step.row("shared memory per SM (sm_%d)" % arch["sm"], per_sm, s["per_sm"], per_sm == s["per_sm"],
             "catalog smem_per_sm_kib vs MAX_SHARED_MEMORY_PER_MULTIPROCESSOR")
else:
    step.note("no compute capability from step machine: the catalog's limit not compared")

static = s.get("static_bytes")
if step.synthetic:
    step.row("static shared memory of kit_smem", 1024, static, None,
             "the fake driver does not read the cubin's shared-memory size")
else:
    step.row("static shared memory of kit_smem", 1024, static, static == 1024, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES")
at, above = s.get("at", {}), s.get("above", {})
words = (at.get("dynamic") or 0) // 4
if "launch" not in at:
    step.row("launch at the limit", "runs", "cuFuncSetAttribute %s" % at.get("set_attribute"), None,
             "this driver lacks cuFuncSetAttribute (the fake does)")
else:
    ok = at.get("set_attribute") == "CUDA_SUCCESS" and at.get("launch") == "CUDA_SUCCESS"
    agree = ok and at.get("value") == 255 + words
    note = "dynamic %d bytes + static %s = %s" % (at.get("dynamic"), static, (at.get("dynamic") or 0) + (static or 0))
    if step.synthetic:
        agree, note = None, note + "; the fake driver runs no kernels"
    step.row("launch at the limit", "runs, value %d" % (255 + words),
             "attribute %s, launch %s, value %s" % (at.get("set_attribute"), at.get("launch"), at.get("value")), agree, note)
if "launch" in above:
    refused = above.get("set_attribute") != "CUDA_SUCCESS" or above.get("launch") != "CUDA_SUCCESS"
    agree = refused if not step.synthetic else None
    step.row("one byte above the limit", "refused (attribute or launch fails)",
             "attribute %s, launch %s" % (above.get("set_attribute"), above.get("launch")), agree,
             "the fake driver does not check shared memory" if step.synthetic else "")
step.finish()
