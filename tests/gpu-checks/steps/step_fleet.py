#!/usr/bin/env python3
"""Step "fleet" (check 10): `smcompat fleet merge` of this node's real probe with a scan of a
real set of GPU libraries.

There is no docker on the GPU machine, so no image can be saved: torch's installed libraries
(torch/lib and the nvidia-* wheels' libraries) stand in for the image; without torch the kit's own
fatbins (<kit>/checks) are scanned so that the merge is still exercised.

  smcompat probe --json > node.json
  smcompat scan DIR... --gpu <this GPU> --driver <this driver> --json > image.json
  smcompat fleet merge node.json image.json --json

Rows: the merge's verdict for this node's class against the scan's own verdict for this GPU (the
worst file verdict, as the merge defines it), the per-verdict file counts, the CUDA-runtime check,
and the node facts the merge kept against the probe. These compare two of smcompat's own
computations on real data (notes say so); what the driver does with the torch modules is the
frameworks step's trace, quoted here when it ran.
"""

import gzip
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kitlib import Step  # noqa: E402

BUDGET = 40  # seconds, unless $GPU_CHECKS_BUDGET_S says otherwise (scripts/gpu-checks.sh)
RANK = ["native", "compatible-sass", "ptx-jit", "unsupported-ptx", "no-image"]  # best -> worst
CONSISTENCY = "smcompat's merge against its own scan/probe (no oracle outside smcompat)"


def worst(verdicts):
    vs = [v for v in verdicts if v in RANK]
    return max(vs, key=RANK.index) if vs else None


def main():
    step = Step("fleet", "fleet merge of this node's probe with a scan of real GPU libraries",
                checks=[10])
    budget = step.budget(BUDGET)
    m = step.machine()
    gpu = (m.get("gpus") or [{}])[0]

    def limit(most, keep):
        """A command's timeout: at most `most` s, keeping `keep` s of the budget for what
        follows (never under 3 s)."""
        return max(3, min(most, step.left(budget) - keep))

    r = step.run("probe", [step.smcompat, "probe", "--json"], timeout=limit(15, 20))
    probe = r.json()
    if not isinstance(probe, dict):
        step.fail("smcompat probe --json gave no JSON (exit %d)" % r.rc)
    node = step.path("node.json")
    node.write_text(r.stdout)

    # the "image": torch's libraries, else the kit's fatbins
    pk = m.get("packages") or {}
    dirs = [os.path.join(p, "lib") for p in pk.get("torch", [])
            if os.path.isdir(os.path.join(p, "lib"))]
    # the nvidia-* wheels (the CUDA runtime, cuBLAS, cuDNN: GBs; scan reads about 1 GB/s, and
    # the frameworks step has just read them) only when the budget allows: the CUDA-runtime
    # check (image-driver-too-old) needs them: a pip torch wheel takes its CUDA runtime from
    # the nvidia-cuda-runtime wheel, not from torch/lib
    with_nvidia = bool(dirs and pk.get("nvidia") and step.left(budget) > 25)
    what = "torch's installed libraries (torch/lib%s)" % (
        " and the nvidia-* wheels' libraries" if with_nvidia else "")
    if dirs:
        if with_nvidia:
            dirs += pk["nvidia"]
        elif pk.get("nvidia"):
            step.note("the nvidia-* wheels' libraries are left out of the image (a %d s budget): "
                      "the CUDA-runtime check (image-driver-too-old) sees only what torch/lib "
                      "carries" % budget)
        step.note("no docker on the GPU machine: %s stand in for a container image" % what)
    elif (step.kit / "checks").is_dir():
        dirs = [str(step.kit / "checks")]
        step.note("no torch here: the kit's own fatbins (%s) stand in for an image" % dirs[0])
    target = []
    if gpu.get("catalog_name"):
        target = ["--gpu", gpu["catalog_name"]] + (["--driver", m["driver"]] if m.get("driver")
                                                   else [])
    scan = None
    image = step.path("image.json")
    if dirs:
        r = step.run("scan", [step.smcompat, "scan", *dirs, *target, "--json", "-q"],
                     timeout=limit(25, 15 if with_nvidia else 8), stdout_path=image)
        if r.timed_out and with_nvidia:
            n_torch = len([p for p in pk.get("torch", [])
                           if os.path.isdir(os.path.join(p, "lib"))])
            dirs = dirs[:n_torch]
            step.note("the scan of %s timed out after %.0f s: scanning torch/lib alone" % (
                what, r.seconds))
            r = step.run("scan-torch-only", [step.smcompat, "scan", *dirs, *target, "--json",
                                             "-q"], timeout=limit(20, 8), stdout_path=image)
        try:
            scan = json.loads(image.read_text())
        except (OSError, ValueError):
            step.note("the scan gave no document (exit %d%s)" % (r.rc, ", timed out"
                                                                  if r.timed_out else ""))
    else:
        step.note("nothing to scan: no torch and no <kit>/checks: only the node facts are merged")

    inputs = [node] + ([image] if scan else [])
    r = step.run("fleet-merge", [step.smcompat, "fleet", "merge", *inputs, "--json"],
                 timeout=limit(20, 2))
    fleet = r.json()
    if not isinstance(fleet, dict):
        step.fail("fleet merge gave no JSON (exit %d): %s" % (r.rc, r.stderr.strip()[-300:]))
    step.path("fleet.json").write_text(r.stdout)

    # node facts against the probe
    nodes = fleet.get("nodes") or []
    n = nodes[0] if nodes else {}
    step.row("fleet: nodes merged", 1, len(nodes), len(nodes) == 1, CONSISTENCY)
    cv = probe.get("cuda_driver_version")
    cvt = "%d.%d" % (cv // 1000, (cv % 1000) // 10) if cv else None
    for label, got, want in (("driver version", n.get("driver_version"),
                              probe.get("driver_version")),
                             ("driver CUDA", n.get("driver_cuda"), cvt),
                             ("driver state", n.get("driver_state"), probe.get("status"))):
        step.row("fleet node %s vs probe" % label, got, want, got == want, CONSISTENCY)
    devs = probe.get("devices") or []
    want = {}
    for d in devs:
        key = (d.get("catalog_gpu") or d.get("name"), d.get("cc"), d.get("memory_bytes"))
        want[key] = want.get(key, 0) + 1
    got = {}
    for g in n.get("gpus") or []:
        key = (g.get("model"), g.get("cc"), g.get("memory_bytes"))
        got[key] = got.get(key, 0) + g.get("count", 0)
    fmt = lambda c: "; ".join("%d x %s CC %s %s B" % (v, *k) for k, v in sorted(
        c.items(), key=lambda kv: str(kv[0])))
    step.row("fleet node GPUs (model, CC, memory, count) vs probe", fmt(got), fmt(want),
             got == want, CONSISTENCY)
    topo = probe.get("topology") or {}
    k = len(devs)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]

    def cell(name, i, j):
        mat = topo.get(name) or []
        try:
            return mat[i][j]
        except (IndexError, TypeError):
            return None
    want_t = {"gpu_pairs": len(pairs),
              "p2p_pairs": sum(1 for i, j in pairs if cell("p2p_access", i, j)
                               and cell("p2p_access", j, i)),
              "nvlink_pairs": sum(1 for i, j in pairs if (cell("nvlink_links", i, j) or 0) > 0)}
    got_t = n.get("topology") or {}
    step.row("fleet node topology (pairs, P2P pairs, NVLink pairs) vs probe",
             json.dumps(got_t, sort_keys=True), json.dumps(want_t, sort_keys=True),
             all(got_t.get(x) == want_t[x] for x in want_t) if got_t else None,
             CONSISTENCY + "; a pair counts as P2P when both directions have access")

    # the image judged for this node's class against the scan's own verdict
    if scan:
        files = [f for f in scan.get("files") or [] if f.get("entries")]
        sv = worst(f.get("verdict") for f in files)
        sc = {v: 0 for v in RANK}
        for f in files:
            if f.get("verdict") in sc:
                sc[f["verdict"]] += 1
        imgs = fleet.get("images") or []
        cls = None
        for c in (imgs[0].get("classes") if imgs else None) or []:
            if c.get("model") == (gpu.get("catalog_name") or c.get("model")) and \
                    c.get("cc") == gpu.get("cc", c.get("cc")):
                cls = c
        if cls is None:
            step.row("fleet image class for this node", "one class (%s, CC %s)" % (
                gpu.get("catalog_name"), gpu.get("cc")), None, False, "the merge judged no class")
        else:
            step.row("fleet image verdict for this node vs the scan's verdict for this GPU",
                     cls.get("verdict"), sv, cls.get("verdict") == sv,
                     CONSISTENCY + "; both are the worst file verdict (%d files with code)" %
                     len(files))
            fc = cls.get("files") or {}
            step.row("fleet image files per verdict vs the scan's", json.dumps(fc, sort_keys=True),
                     json.dumps(sc, sort_keys=True), all(fc.get(v, 0) == sc[v] for v in RANK),
                     CONSISTENCY)
            majors = sorted({rt.get("major") for rt in scan.get("cuda_runtimes") or []
                             if rt.get("major") is not None})
            dmaj = cv // 1000 if cv else None
            too_new = [x for x in majors if dmaj is not None and x > dmaj]
            want_rt = max(too_new) if too_new else None
            step.row("fleet image runtime_too_new vs the scan's CUDA runtimes and the driver",
                     cls.get("runtime_too_new"), "%s (runtimes %s, driver CUDA %s)" % (
                         want_rt, majors or "none", cvt), cls.get("runtime_too_new") == want_rt,
                     CONSISTENCY)
            fids = sorted({f.get("id") for f in fleet.get("findings") or []})
            step.row("fleet findings", None, ", ".join(fids) or "none", None, "recorded")
            # what the driver did with torch's modules (frameworks step), when it ran
            tr = step.work.parent / "frameworks" / "trace-torch.json"
            gz = tr.with_name(tr.name + ".gz")  # the frameworks step compresses large logs
            if (tr.exists() or gz.exists()) and dirs and "torch" in dirs[0]:
                try:
                    text = tr.read_text() if tr.exists() else gzip.open(gz, "rt").read()
                    summ = json.loads(text).get("summary") or {}
                    step.row("fleet image verdict vs torch's loads under trace (frameworks step)",
                             cls.get("verdict"), json.dumps(summ.get("loads_by_outcome"),
                                                            sort_keys=True), None,
                             "recorded: the verdict is the worst file's, a kernel loads a few "
                             "modules; per-library comparison in the frameworks step")
                except (OSError, ValueError, EOFError):
                    pass
        step.shrink(image)
    if step.synthetic:
        step.note("synthetic: the node is the fake driver's; the rows compare smcompat's merge "
                  "with its own scan and probe, which holds on any node")
    step.finish()


if __name__ == "__main__":
    main()
