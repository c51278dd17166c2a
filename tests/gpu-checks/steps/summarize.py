#!/usr/bin/env python3
"""Merges the steps' results of one GPU-checks run into OUT/results.json and OUT/gpu-checks.md.

    summarize.py --work WORK --out OUT --kit KIT [--synthetic] --wall S [--steps id,id,...]

Every WORK/<id>/result.json is a step's result (kitlib.py). A step without one is recorded as
"timeout" when WORK/<id>/exit_status holds 124 (the exit code of `timeout`), else as "error".
--steps gives the orchestrator's order and the steps expected (one never started is an error);
without it the known order is used and any other step follows by name.
Exit status: 0, also when steps failed; 2 when WORK cannot be read.
"""

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

SCHEMA = "smcompat.gpu-checks/1"
ORDER = ["machine", "probe", "matrix", "ptx", "lower", "smem", "bench", "frameworks", "fleet"]
# pending-check numbers of each step (docs/gpu-checks/README.md), for steps that left no result
CHECKS = {"machine": [1], "probe": [1, 10], "matrix": [2, 3, 6], "ptx": [4], "lower": [11], "smem": [5],
          "bench": [7], "frameworks": [8, 9], "fleet": [10]}


def read_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def tail(path, lines=8):
    try:
        return Path(path).read_text(errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return []


def missing_result(work, sid):
    """The record of a step that wrote no result.json."""
    d = work / sid
    code = None
    try:
        code = int((d / "exit_status").read_text().strip())
    except (OSError, ValueError):
        pass
    not_run = tail(d / "not-run", 1)
    if not_run:  # the orchestrator's deadline came before the step
        status, reason = "timeout", not_run[0]
    elif code == 124:
        status, reason = "timeout", "stopped by its time limit before it wrote a result"
    elif code is not None:
        status, reason = "error", "exited %d without writing a result" % code
    elif d.is_dir():
        status, reason = "error", "no result and no exit status"
    else:
        status, reason = "error", "did not run (no directory under the work dir)"
    notes = []
    for name in ("step.log", "step.err", "stderr", "stderr.txt"):
        t = tail(d / name)
        if t:
            notes.append("last lines of %s: %s" % (name, " / ".join(t)))
            break
    return {"id": sid, "title": "(no result)", "checks": CHECKS.get(sid, []), "status": status,
            "reason": reason, "synthetic": None, "seconds": None, "commands": [],
            "notes": notes, "rows": [], "exit_status": code}


def git_commit(kit):
    for where in (kit.parent, Path.cwd()):
        try:
            p = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True,
                               text=True, timeout=5)
            if p.returncode == 0 and p.stdout.strip():
                return p.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return None


def tally(rows):
    a = sum(r.get("agree") is True for r in rows)
    d = sum(r.get("agree") is False for r in rows)
    return a, d, len(rows) - a - d


def cell(v):
    """A Markdown table cell: no raw pipes or line breaks."""
    if v is None:
        return ""
    if isinstance(v, bool):
        v = "true" if v else "false"
    s = str(v).replace("\\", "\\\\").replace("|", "\\|").replace("\r", "")
    return s.replace("\n", "<br>")


def agree_mark(a):
    return {True: "yes", False: "**NO**"}.get(a, "–")


def gpu_line(machine):
    gpus = machine.get("gpus") or []
    if not gpus:
        return "none seen (probe status %s)" % machine.get("probe_status")
    names = {}
    for g in gpus:
        k = "%s (catalog %s, CC %s)" % (g.get("name"), g.get("catalog_name"), g.get("cc"))
        names[k] = names.get(k, 0) + 1
    return ", ".join("%d × %s" % (n, k) for k, n in names.items())


def render(doc, title=None, level=1):
    """The Markdown page; record.py reuses it one heading level down under its own header."""
    m = doc.get("machine") or {}
    h = "#" * level
    out = ["%s %s" % (h, title or "GPU checks: %s" % doc["generated"][:10]), ""]
    if doc.get("synthetic"):
        out += ["> **SYNTHETIC RUN.** The GPUs below are served by smcompat's fake driver "
                "(tests/fakedriver): nothing here was measured on a GPU, no row is evidence, "
                "and agreement is not judged where only the fake could answer.", ""]
    kit = doc.get("kit") or {}
    out += ["| | |", "|---|---|",
            "| date (UTC) | %s |" % cell(doc["generated"]),
            "| GPU | %s |" % cell(gpu_line(m)),
            "| driver | %s |" % cell("%s (CUDA %s, %s kernel module)" % (
                m.get("driver"), m.get("cuda_driver"), m.get("kernel_module"))),
            "| commit | %s |" % cell(doc.get("commit")),
            "| kit | %s |" % cell(", ".join("%s %s" % (k, v) for k, v in kit.items()
                                         if not isinstance(v, (dict, list))) or "no manifest"),
            "| host | %s |" % cell(m.get("hostname")),
            "| toolchain | %s |" % cell("nvcc %s; python %s; torch %s%s; CuPy %s; JAX %s; "
                                        "nvidia-smi %s" % (
                                            m.get("nvcc") or "absent", m.get("python") or "absent",
                                            m.get("torch") or "absent",
                                            " (CUDA %s)" % m["torch_cuda"] if m.get("torch_cuda")
                                            else "", m.get("cupy") or "absent",
                                            m.get("jax") or "absent",
                                            "present" if m.get("nvidia_smi") else "absent")),
            "| wall | %s s |" % cell(doc.get("wall_s")), ""]
    out += ["%s# Steps" % h, "", "| step | status | seconds | checks | agree | disagree | "
            "not compared | reason |", "|---|---|---:|---|---:|---:|---:|---|"]
    for s in doc["steps"]:
        a, d, n = tally(s.get("rows") or [])
        out.append("| %s | %s | %s | %s | %d | %d | %d | %s |" % (
            cell(s["id"]), cell(s["status"]), cell(s.get("seconds")),
            cell(", ".join(str(c) for c in s.get("checks") or [])), a, d, n,
            cell(s.get("reason"))))
    out.append("")
    for s in doc["steps"]:
        out += ["%s# %s: %s" % (h, s["id"], s.get("title") or ""), "",
                "Status **%s**%s; checks %s; %s." % (
                    s["status"], (": " + s["reason"]) if s.get("reason") else "",
                    ", ".join(str(c) for c in s.get("checks") or []) or "none",
                    "%s s" % s["seconds"] if s.get("seconds") is not None else "no time recorded"),
                ""]
        rows = s.get("rows") or []
        if rows:
            out += ["| item | predicted (smcompat) | observed | agree | note |",
                    "|---|---|---|---|---|"]
            for r in rows:
                out.append("| %s | %s | %s | %s | %s |" % (
                    cell(r.get("item")), cell(r.get("predicted")), cell(r.get("observed")),
                    agree_mark(r.get("agree")), cell(r.get("note"))))
            out.append("")
        if s.get("notes"):
            out += ["Notes:", ""] + ["- %s" % n.replace("\n", " ") for n in s["notes"]] + [""]
        if s.get("commands"):
            out += ["<details><summary>commands</summary>", "", "```"]
            out += [c for c in s["commands"]]
            out += ["```", "", "</details>", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--kit", required=True)
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--wall", type=float, default=None, help="the run's wall time, seconds")
    ap.add_argument("--steps", default="", help="comma-separated step ids in run order")
    a = ap.parse_args()
    work, out, kit = Path(a.work), Path(a.out), Path(a.kit)
    try:
        present = sorted(p.name for p in work.iterdir() if p.is_dir())
    except OSError as e:
        print("summarize: cannot read the work dir %s: %s" % (work, e), file=sys.stderr)
        return 2
    order = [x for x in a.steps.split(",") if x] if a.steps else \
        [x for x in ORDER if x in present] + [x for x in present if x not in ORDER]
    steps = []
    for sid in order:
        r = read_json(work / sid / "result.json")
        if not isinstance(r, dict):
            r = missing_result(work, sid)
        steps.append(r)
    machine = read_json(work / "machine" / "machine.json") or {}
    manifest = read_json(kit / "MANIFEST.json") or {}
    synthetic = bool(a.synthetic or machine.get("synthetic") or
                     any(s.get("synthetic") for s in steps))
    doc = {"schema": SCHEMA, "synthetic": synthetic,
           "generated": datetime.datetime.now(datetime.timezone.utc).strftime(
               "%Y-%m-%dT%H:%M:%SZ"),
           "wall_s": a.wall, "commit": manifest.get("commit") or git_commit(kit),
           "kit": manifest, "machine": machine, "steps": steps}
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "results.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False))
    tmp.replace(out / "results.json")
    (out / "gpu-checks.md").write_text(render(doc) + "\n")

    # the short text summary
    print("GPU checks%s: %s; driver %s; %s s" % (" (SYNTHETIC)" if synthetic else "",
                                                 gpu_line(machine), machine.get("driver"), a.wall))
    ta = td = tn = 0
    for s in steps:
        x, y, z = tally(s.get("rows") or [])
        ta, td, tn = ta + x, td + y, tn + z
        print("  %-11s %-7s %6s s  %3d agree %3d disagree %3d not compared%s" % (
            s["id"], s["status"], s.get("seconds") if s.get("seconds") is not None else "-",
            x, y, z, ("  " + s["reason"][:80]) if s.get("reason") else ""))
    print("  total: %d agree, %d disagree, %d not compared; %s" % (
        ta, td, tn, out / "gpu-checks.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
