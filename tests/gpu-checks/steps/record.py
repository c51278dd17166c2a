#!/usr/bin/env python3
"""Records a GPU-checks run that came back from a GPU machine (scripts/gpu-checks-record.sh).

    record.py OUT_DIR [-o FILE] [--allow-synthetic] [--readme PATH] [--docs DIR]

OUT_DIR holds results.json (required), gpu-checks.md and gpu-checks-logs.tar.gz (optional).
Writes docs/gpu-checks/<date>-<gpu-slug>.md (date, GPU, driver, commit, commands, the
predicted-vs-observed tables, `promtool check metrics` on the run's exposition file), copies the
run's small artifacts (probe/bench/fleet JSON, the bench HTML, node.prom, ...) into
docs/gpu-checks/<date>-<gpu-slug>/, and sets a status note per pending check in the table of
docs/gpu-checks/README.md: "run on <GPU>, <driver>, <date>: N agree, M disagree, K not compared
(see <file>)"; a later run on the same GPU model replaces its note. Running it twice on the same
OUT_DIR gives the same files.

A synthetic results.json (the fake driver's) is refused unless --allow-synthetic; then nothing is
written under docs: the record goes to -o FILE (or stdout) and the README is left alone unless
--readme names a copy to update (tests).
Exit status: 0 recorded; 2 refused or unreadable input.
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import summarize  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
ARTIFACT_MAX = 2 << 20  # bytes per copied artifact
# (step dir, file name) copied from the logs into the record's folder when present
ARTIFACTS = [("machine", "machine.json"), ("probe", "probe.json"), ("probe", "doctor.json"),
             ("probe", "node.prom"), ("probe", "nvidia-smi-q.xml"),
             ("probe", "nvidia-smi-topo.txt"), ("probe", "torch-props.json"),
             ("bench", "bench-merged.json"), ("bench", "bench.html"),
             ("bench", "jit-trace.json"), ("bench", "torch-copy.json"),
             ("frameworks", "check.json"), ("frameworks", "torch_hold.json"),
             ("frameworks", "scan-torch.summary.json"), ("frameworks", "scan-nvidia.summary.json"),
             ("frameworks", "scan-cupy.summary.json"), ("frameworks", "scan-jax.summary.json"),
             ("fleet", "node.json"), ("fleet", "fleet.json")]


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", (text or "unknown").lower()).strip("-") or "unknown"


def gpu_slug(machine):
    gpus = machine.get("gpus") or []
    if not gpus:
        return "no-gpu"
    models = []
    for g in gpus:
        name = g.get("catalog_name") or g.get("name")
        if name not in models:
            models.append(name)
    s = "-".join(slug(x) for x in models)
    return ("%dx-" % len(gpus) if len(gpus) > 1 else "") + s


def gpu_label(machine):
    gpus = machine.get("gpus") or []
    if not gpus:
        return "no GPU"
    g = gpus[0]
    name = g.get("catalog_name") or g.get("name")
    return ("%d× %s" % (len(gpus), name)) if len(gpus) > 1 else name


def read_logs(out_dir):
    """{(step, name): bytes} for the artifacts found in the logs tarball (read in memory only:
    member paths are never used to write anything)."""
    found = {}
    tgz = out_dir / "gpu-checks-logs.tar.gz"
    if not tgz.exists():
        return found, "no gpu-checks-logs.tar.gz in %s" % out_dir
    try:
        with tarfile.open(tgz, "r:*") as tar:
            for mem in tar:
                if not mem.isfile():
                    continue
                parts = mem.name.replace("\\", "/").split("/")
                if len(parts) < 2:
                    continue
                key = (parts[-2], parts[-1])
                if key in ARTIFACTS and key not in found:
                    fh = tar.extractfile(mem)
                    if fh is not None:
                        found[key] = fh.read(ARTIFACT_MAX + 1)
    except (OSError, tarfile.TarError) as e:
        return found, "the logs tarball cannot be read: %s" % e
    return found, ""


def promtool_check(prom):
    """The result of `promtool check metrics` on the exposition file, as one line."""
    if prom is None:
        return "not run: no probe/node.prom in the logs"
    tool = shutil.which("promtool")
    if not tool:
        return "not run: promtool is not on PATH"
    try:
        p = subprocess.run([tool, "check", "metrics"], input=prom, capture_output=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return "could not run: %s" % e
    text = (p.stdout + p.stderr).decode(errors="replace").strip()
    if p.returncode == 0 and not text:
        return "accepted (exit 0, no lint warnings)"
    return "exit %d: %s" % (p.returncode, text.replace("\n", "; ")[:500])


def per_check(doc):
    """{check number: (agree, disagree, not compared, [step statuses])}"""
    out = {}
    for s in doc.get("steps") or []:
        checks = s.get("checks") or []
        for c in checks:
            out.setdefault(c, [0, 0, 0, []])[3].append("%s %s" % (s["id"], s["status"]))
        for r in s.get("rows") or []:
            for c in ([r["check"]] if r.get("check") is not None else checks):
                t = out.setdefault(c, [0, 0, 0, []])
                t[0 if r.get("agree") is True else 1 if r.get("agree") is False else 2] += 1
    return out


def status_note(doc, counts, link_name):
    m = doc.get("machine") or {}
    a, d, n, statuses = counts
    return "%srun on %s, %s, %s: %d agree, %d disagree, %d not compared (%s; see [%s](%s))" % (
        "SYNTHETIC " if doc.get("synthetic") else "", gpu_label(m), m.get("driver"),
        doc["generated"][:10], a, d, n, ", ".join(statuses),
        link_name, link_name)


def update_readme(path, doc, link_name):
    """Adds or refreshes one note per check (per GPU model) in the pending-checks table."""
    text = path.read_text()
    lines = text.split("\n")
    counts = per_check(doc)
    label = "%srun on %s," % ("SYNTHETIC " if doc.get("synthetic") else "",
                              gpu_label(doc.get("machine") or {}))
    head = None
    for i, ln in enumerate(lines):
        if re.match(r"^\|\s*#\s*\|\s*check\s*\|", ln):
            head = i
            break
    if head is None:
        raise ValueError("%s: no pending-checks table (a header row '| # | check | ...')" % path)
    cols = [c.strip() for c in lines[head].strip().strip("|").split("|")]
    has_status = cols[-1] == "status"
    if not has_status:
        lines[head] = lines[head].rstrip() + " status |"
        lines[head + 1] = lines[head + 1].rstrip() + "---|"
    i = head + 2
    while i < len(lines) and lines[i].startswith("|"):
        cells = split_row(lines[i])
        if not has_status:
            cells.append("")
        num = cells[0].strip()
        if num.isdigit() and int(num) in counts:
            note = status_note(doc, counts[int(num)], link_name).replace("|", "\\|")
            kept = [x for x in re.split(r"<br>", cells[-1].strip()) if x.strip()
                    and not x.strip().startswith(label)]
            cells[-1] = " " + "<br>".join(kept + [note]) + " "
        lines[i] = "|" + "|".join(cells) + "|"
        i += 1
    new = "\n".join(lines)
    if new != text:
        path.write_text(new)
    return sorted(counts)


def split_row(line):
    """Cells of a Markdown table row, keeping escaped pipes inside cells."""
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    cells, cur, k = [], "", 0
    while k < len(body):
        ch = body[k]
        if ch == "\\" and k + 1 < len(body):
            cur += body[k:k + 2]
            k += 2
            continue
        if ch == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        k += 1
    cells.append(cur)
    return cells


def main():
    ap = argparse.ArgumentParser(description="record a GPU-checks run under docs/gpu-checks")
    ap.add_argument("out_dir")
    ap.add_argument("-o", "--output", help="write the record here (default "
                    "docs/gpu-checks/<date>-<gpu>.md; '-' for stdout)")
    ap.add_argument("--allow-synthetic", action="store_true",
                    help="accept a fake-driver run (nothing is written under docs)")
    ap.add_argument("--readme", help="the README whose pending table is updated (default "
                    "docs/gpu-checks/README.md; for a synthetic run only when given)")
    ap.add_argument("--docs", default=str(REPO / "docs" / "gpu-checks"),
                    help="the docs/gpu-checks directory")
    a = ap.parse_args()
    out_dir = Path(a.out_dir)
    try:
        doc = json.loads((out_dir / "results.json").read_text())
    except (OSError, ValueError) as e:
        print("record: %s/results.json: %s" % (out_dir, e), file=sys.stderr)
        return 2
    if doc.get("schema") != summarize.SCHEMA:
        print("record: %s/results.json is not a %s document" % (out_dir, summarize.SCHEMA),
              file=sys.stderr)
        return 2
    synthetic = bool(doc.get("synthetic"))
    if synthetic and not a.allow_synthetic:
        print("record: %s/results.json is SYNTHETIC (the fake driver's run): refusing to record "
              "it as GPU evidence (--allow-synthetic writes it elsewhere with -o)" % out_dir,
              file=sys.stderr)
        return 2
    machine = doc.get("machine") or {}
    docs = Path(a.docs)
    name = "%s-%s" % (doc["generated"][:10], gpu_slug(machine))
    if a.output:
        target = None if a.output == "-" else Path(a.output)
    else:
        target = None if synthetic else docs / (name + ".md")

    logs, why = read_logs(out_dir)
    prom_result = promtool_check(logs.get(("probe", "node.prom")))
    copied = []
    if target is not None and logs:
        folder = target.with_suffix("")
        folder.mkdir(parents=True, exist_ok=True)
        for key in ARTIFACTS:
            data = logs.get(key)
            if data is None or len(data) > ARTIFACT_MAX:
                continue
            if key == ("probe", "nvidia-smi-q.xml"):
                # Board serial numbers identify the lender's hardware: not for a public repository.
                data = re.sub(rb"<serial>[^<]*</serial>", b"<serial>(removed)</serial>", data)
            dest = folder / ("%s-%s" % key)
            dest.write_bytes(data)
            copied.append(dest.name)

    title = "GPU checks on %s, driver %s, %s" % (gpu_label(machine), machine.get("driver"),
                                                 doc["generated"][:10])
    head = ["# %s" % title, ""]
    if synthetic:
        head += ["> **SYNTHETIC**: recorded from a fake-driver run with --allow-synthetic; "
                 "not evidence of any GPU.", ""]
    counts = per_check(doc)
    head += ["Recorded with `scripts/gpu-checks-record.sh` from the output of "
             "`scripts/gpu-checks.sh` (see [README.md](README.md)).", "",
             "| check | agree | disagree | not compared | steps |", "|---|---:|---:|---:|---|"]
    for c in sorted(counts):
        x = counts[c]
        head.append("| %s | %d | %d | %d | %s |" % (c, x[0], x[1], x[2], ", ".join(x[3])))
    head += ["", "- `promtool check metrics` on probe/node.prom: %s" % prom_result]
    if copied:
        head.append("- raw outputs kept in [%s/](%s/): %s" % (
            target.with_suffix("").name, target.with_suffix("").name, ", ".join(copied)))
    elif why:
        head.append("- raw outputs: %s" % why)
    head.append("")
    text = "\n".join(head) + "\n" + summarize.render(doc, title="The run", level=2) + "\n"
    if target is None:
        sys.stdout.write(text)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        print("record: wrote %s" % target, file=sys.stderr)

    readme = Path(a.readme) if a.readme else (None if synthetic else docs / "README.md")
    if readme is not None:
        link = target.name if target is not None else name + ".md"
        try:
            done = update_readme(readme, doc, link)
            print("record: %s: status of checks %s set" % (readme, ", ".join(map(str, done))),
                  file=sys.stderr)
        except (OSError, ValueError) as e:
            print("record: %s" % e, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
