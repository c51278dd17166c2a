#!/usr/bin/env python3
"""Step "bench" (check 7): `smcompat bench --quick` beside PyTorch, the jit table under
`smcompat trace`, and the HTML report.

  1. smcompat bench --quick gemm --device 0 --json, then smcompat bench --quick memory launch
     --device 0 --json                                                  (native suites; two runs
     so that a slow suite cannot take the GEMM row with it)
  2. smcompat bench --torch --python PY --rows gemm --quick --json       (torch.matmul, same method)
  3. a torch device-to-device copy of 1 GiB timed with CUDA events      (the torch script has no
     memory row kind, so the step times torch's copy itself; GB/s = read + write, as bench)
  4. smcompat trace -- smcompat bench --quick jit --device 0 --json     (the jit table and what
     the driver loaded for each variant)
  5. smcompat bench report merged.json --html bench.html (and --markdown)

Rows: gemm BF16 8192^3 smcompat vs torch within +-3 %; memory device copy >= 90 % of torch's;
every jit row and every traced load. Under the fake driver every figure is its timing model:
recorded with agree null.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kitlib import Step, last_json, python_exe  # noqa: E402

BUDGET = 120  # seconds, unless $GPU_CHECKS_BUDGET_S says otherwise (scripts/gpu-checks.sh)
GIB = 1 << 30

TORCH_COPY = r'''
import json, statistics, sys
import torch
n = 1 << 30
if not torch.cuda.is_available():
    print(json.dumps({"error": "torch.cuda.is_available() is False"})); sys.exit(0)
src = torch.empty(n, dtype=torch.uint8, device="cuda:0")
dst = torch.empty_like(src)
src.fill_(1)
for _ in range(3):
    dst.copy_(src)
torch.cuda.synchronize()
times = []
for _ in range(20):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(5):
        dst.copy_(src)
    b.record()
    b.synchronize()
    times.append(a.elapsed_time(b) / 1000.0 / 5)
med = statistics.median(times)
print(json.dumps({"bytes": n, "median_s": med, "gbs": 2.0 * n / med / 1e9, "samples": len(times),
                  "rel_stddev": statistics.pstdev(times) / statistics.mean(times),
                  "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}))
'''


def fmt(v, unit=""):
    if v is None:
        return None
    return ("%.1f %s" % (v, unit)).strip() if v >= 10 else ("%.3g %s" % (v, unit)).strip()


def find(results, suite, **params):
    for r in results:
        if r.get("suite") != suite:
            continue
        p = r.get("params") or {}
        if all(str(p.get(k)) == str(v) for k, v in params.items()):
            return r
    return None


def skipped(r):
    """'skipped: why' for a result row without a figure (skip_reason may be null)."""
    return "skipped: " + str((r or {}).get("skip_reason") or "no reason given")


def main():
    step = Step("bench", "smcompat bench --quick beside torch, the jit table under trace, HTML",
                checks=[7])
    budget = step.budget(BUDGET)
    m = step.machine()
    py = m.get("python_exe") or python_exe()
    # torch.cuda.is_available() as the machine step saw it; unknown (that step ran out of time,
    # or did not run) is tried: `bench --torch` says itself when torch cannot run
    torch_ok = m.get("torch_cuda_available")
    torch_import = (m.get("imports") or {}).get("torch") or {}
    if torch_ok is None and m.get("packages") is not None and "torch" not in m["packages"]:
        torch_ok = False
    elif torch_ok is None and torch_import.get("error") and (
            not torch_import.get("timed_out") or torch_import.get("seconds", 0) >= 15):
        torch_ok = False  # the import failed, or hung for 15 s, there: it would here too
    synth = step.synthetic
    synth_note = "synthetic timing model (the fake driver): not a measurement" if synth else ""
    docs = []

    def limit(most, keep):
        """A command's timeout: at most `most` s, keeping `keep` s of the budget for what
        follows (never under 5 s)."""
        return max(5, min(most, step.left(budget) - keep))

    def native_run(name, suites, timeout):
        r = step.run(name, [step.smcompat, "bench", "--quick", *suites, "--device", "0",
                            "--json"], timeout=timeout)
        doc = last_json(r.stdout) if r.rc == 0 else None
        if doc:
            step.path(name + ".json").write_text(r.stdout)
            docs.append(doc)
        else:
            step.note("smcompat bench --quick %s gave no document: %s" % (
                " ".join(suites), "timed out after %.0f s" % r.seconds if r.timed_out else
                "exit %d: %s" % (r.rc, r.stderr.strip()[-300:])))
        return (doc or {}).get("results") or []

    # 1. native suites on GPU 0 (all GPUs would multiply the time by their number); GEMM alone
    # first: the +-3 % row needs it, and a run stopped by its timeout prints no document at all
    nres = native_run("bench-native-gemm", ["gemm"], limit(40, 75))
    nres += native_run("bench-native-memory", ["memory", "launch"], limit(35, 60))

    # 2. torch.matmul by the same method, 3. torch's device copy
    torch_doc, copy = None, None
    why_torch = ""
    if torch_ok is False:
        why_torch = "torch with CUDA is not usable here (%s)" % (
            "import torch failed in the machine step: %s" % torch_import["error"]
            if torch_import.get("error") else
            "torch is not installed" if not m.get("torch") else
            "torch %s: torch.cuda.is_available() is %s" % (m["torch"],
                                                           m.get("torch_cuda_available")))
    elif step.left(budget) < 30:
        why_torch = "torch rows not run: the step's %d s budget is used up" % budget
    else:
        # --rows takes the torch script's row kinds (data/bench/torch_bench.py ROW_KINDS)
        r = step.run("bench-torch", [step.smcompat, "bench", "--torch", "--python", py, "--rows",
                                     "gemm", "--quick", "--json"], timeout=limit(45, 30))
        torch_doc = last_json(r.stdout) if r.rc == 0 else None
        if torch_doc:
            step.path("bench-torch.json").write_text(r.stdout)
            docs.append(torch_doc)
        else:
            why_torch = "bench --torch gave no document: %s" % (
                "timed out after %.0f s" % r.seconds if r.timed_out else
                "exit %d: %s" % (r.rc, r.stderr.strip()[-300:]))
        if step.left(budget) > 30:
            r = step.run("torch-copy", [py, step.script("torch_copy.py", TORCH_COPY)],
                         timeout=limit(20, 22))
            copy = last_json(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else None
            if copy and copy.get("error"):
                step.note("torch copy: " + copy["error"])
                copy = None
            elif not copy:
                step.note("torch copy gave no answer: %s" % (
                    "timed out" if r.timed_out else "exit %d: %s" % (
                        r.rc, (r.stderr.strip().splitlines() or [""])[-1][:300])))
    if why_torch:
        step.note(why_torch)
    tres = (torch_doc or {}).get("results") or []

    # gemm BF16 8192^3: smcompat (cuBLASLt) vs torch.matmul, +-3 %
    nb = find(nres, "gemm", dtype="bf16", m=8192, n=8192, k=8192, batch=1)
    tb = find(tres, "torch.gemm", dtype="bf16", m=8192, n=8192, k=8192)
    nv = nb and nb.get("value")
    tv = tb and tb.get("value")
    agree, note = None, ""
    if nv and tv:
        ratio = nv / tv
        note = "smcompat / torch = %.3f; within +-3 %% required" % ratio
        agree = None if synth else abs(ratio - 1) <= 0.03
        # +-3 % of throughput means nothing when the two ran at different clocks: a power-bound
        # GPU (an H200 at 8192^3 BF16) throttles by how much ran before. Compared only when the
        # SM clocks at the end of the two rows are within 3 % of each other, whichever way it goes.
        nc = ((nb.get("state") or {}).get("sm_clock_mhz") or 0)
        tc = ((tb.get("state") or {}).get("sm_clock_mhz") or 0)
        if agree is not None and nc and tc and abs(nc / tc - 1) > 0.03:
            agree = None
            note += ("; not compared: the SM clock ended at %d MHz (smcompat) and %d MHz (torch)"
                     " - throttled differently (smcompat: %s)" % (
                         nc, tc, "; ".join(nb.get("notes") or []) or "no notes"))
    else:
        note = "; ".join(x for x in (
            "smcompat: " + (str(nb.get("skip_reason") or "no figure") if nb else "no row")
            if not nv else "",
            "torch: " + (str((tb.get("skip_reason") if tb else "") or why_torch or "no row"))
            if not tv else "") if x)
    step.row("gemm bf16 8192x8192x8192 GPU 0: smcompat vs torch.matmul (TFLOPS)",
             fmt(nv, "TFLOPS") or (nb and "skipped"), fmt(tv, "TFLOPS"), agree,
             "; ".join(x for x in (note, synth_note) if x))

    # memory: copy engine device to device, 1 GiB, against torch's copy of 1 GiB
    nm = find(nres, "memory", op="dtod", bytes=GIB)
    mv = nm and nm.get("value")
    cv = copy and copy.get("gbs")
    agree, note = None, "GB/s count read + write (2 x 1 GiB) on both sides; >= 90 % required"
    if mv and cv:
        note += "; smcompat / torch = %.3f" % (mv / cv)
        agree = None if synth else mv >= 0.9 * cv
    elif not cv:
        note += "; torch: " + (why_torch or "no measurement")
    step.row("memory dtod 1 GiB GPU 0: smcompat copy engine vs torch copy_ (GB/s)",
             fmt(mv, "GB/s") or (nm and skipped(nm)),
             fmt(cv, "GB/s"), agree, "; ".join(x for x in (note, synth_note) if x))
    if copy:
        step.path("torch-copy.json").write_text(json.dumps(copy, indent=1))

    # headline native figures, recorded
    for r in nres:
        if r.get("suite") == "launch" or (r.get("suite") == "memory" and
                                          str((r.get("params") or {}).get("bytes")) == str(GIB)):
            step.row("%s %s" % (r.get("suite"), r.get("name")), None,
                     fmt(r.get("value"), r.get("unit") or "") or skipped(r),
                     None, "; ".join(x for x in ("recorded", synth_note) if x))

    # 4. the jit table under trace
    jit = None
    if step.left(budget) > 20:
        records = step.path("jit-records.jsonl")
        report = step.path("jit-trace.json")
        r = step.run("bench-jit-traced", [step.smcompat, "trace", "--json", "-o", report,
                                          "--records", records, "--", step.smcompat, "bench",
                                          "--quick", "jit", "--device", "0", "--json"],
                     timeout=max(8, step.left(budget) - 12))
        jit = last_json(r.stdout)
        if jit:
            step.path("bench-jit.json").write_text(r.stdout)
            docs.append(jit)
        if (r.timed_out or not report.exists()) and records.exists():
            # the traced run was stopped: report on the records it left
            step.run("jit-trace-from", [step.smcompat, "trace", "--from", records, "--json",
                                        "-o", report],
                     timeout=max(3, min(20, step.left(budget) - 3)))
        trace = None
        try:
            trace = json.loads(report.read_text())
        except (OSError, ValueError):
            step.note("no trace report of the jit run")
        for row in (jit or {}).get("results") or []:
            p = row.get("params") or {}
            extra = row.get("extra") or {}
            obs = fmt(row.get("value"), row.get("unit") or "") or skipped(row)
            if extra.get("load_ms") is not None:
                obs += ", load %.2f ms" % extra["load_ms"]
            step.row(row.get("name"), "%s (%s)" % (p.get("fit"), p.get("image")) if p.get("fit")
                     else p.get("image"), obs, None,
                     "; ".join(x for x in ("recorded (the jit table)", synth_note) if x))
        for k, ld in enumerate((trace or {}).get("loads") or [], 1):
            pred = ld.get("predicted") or {}
            imgs = ",".join(i.get("target", "?") for i in ld.get("images") or [])
            obs = "%s %s" % (ld.get("outcome"), ld.get("chosen") or "")
            if ld.get("jit_wall_ms") is not None:
                obs += ", JIT %.2f ms" % ld["jit_wall_ms"]
            obs += ", load %.2f ms" % (ld.get("load_ms") or 0)
            agree = None
            if not synth and ld.get("outcome") not in (None, "unknown"):
                agree = not ld.get("disagrees", False)
            step.row("jit trace load %d [%s] via %s" % (k, imgs, ld.get("api")),
                     "%s %s" % (pred.get("outcome"), pred.get("image") or ""), obs.strip(), agree,
                     "fake driver's loading model" if synth else
                     "trace: predicted from the images vs the driver's BINARY_VERSION/PTX_VERSION")
        if trace:
            step.note("jit trace summary: %s" % json.dumps(trace.get("summary"), sort_keys=True))
    else:
        step.note("the jit table was not run: the step's %d s budget is used up" % budget)

    # 5. one document, rendered
    if docs:
        merged = dict(docs[0])
        merged["results"] = [x for d in docs for x in d.get("results") or []]
        merged["warnings"] = [w for d in docs for w in d.get("warnings") or []]
        merged["libraries"] = {k: v for d in docs for k, v in (d.get("libraries") or {}).items()}
        path = step.path("bench-merged.json")
        path.write_text(json.dumps(merged, indent=1))
        r = step.run("bench-report-html", [step.smcompat, "bench", "report", path, "--html",
                                           step.path("bench.html")],
                     timeout=max(2, min(20, step.left(budget) - 3)))
        if step.left(budget) > 3:
            step.run("bench-report-md", [step.smcompat, "bench", "report", path, "--markdown"],
                     timeout=max(1, min(10, step.left(budget) - 1)))
        if r.rc == 0 and step.path("bench.html").exists():
            step.note("HTML report: bench/bench.html (%d rows from %d runs)" % (
                len(merged["results"]), len(docs)))
        else:
            step.note("bench report --html failed (exit %d): %s" % (r.rc, r.stderr.strip()[-200:]))
    step.note("not run within the budget: bench --torch over every row kind, the p2p suite, "
              "GPUs other than 0")
    if synth:
        step.note("synthetic: every figure comes from the fake driver's timing model")
    step.finish()


if __name__ == "__main__":
    main()
