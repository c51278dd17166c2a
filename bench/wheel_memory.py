#!/usr/bin/env python3
"""Peak RSS and time of `smcompat scan WHEEL` and `smcompat index add WHEEL` for every wheel of
a directory (the corpus: scripts/fetch-corpus.sh), one process per measurement, read with wait4.

    bench/wheel_memory.py --smcompat build/bin/smcompat [--before OLD_BINARY]
                          [--wheels ~/.cache/smcompat-corpus/wheels] [--runs 1]

Prints a Markdown table (docs/scan.md keeps one); with --before, each cell is "before → after",
and at the end the totals: CPU seconds and GB of wheels per CPU-minute of each command.
Exit 1 if any after-figure is above --limit-mb (200 by default): the bound of issue 27.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time


def measure(argv):
    """(peak RSS in MiB, wall seconds, user+system CPU seconds, exit status) of one run."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    return (usage.ru_maxrss / 1024, wall, usage.ru_utime + usage.ru_stime,
            os.waitstatus_to_exitcode(status))


def best_of(argv, runs):
    """The run with the least wall time (RSS is the same from run to run)."""
    return min((measure(argv) for _ in range(runs)), key=lambda m: m[1])


def figures(binary, wheel, runs, scratch):
    out = pathlib.Path(scratch) / "index.json"
    scan = best_of([binary, "scan", str(wheel)], runs)
    index = []
    for _ in range(runs):
        out.unlink(missing_ok=True)
        index.append(measure([binary, "index", "add", str(wheel), "-o", str(out)]))
    return scan, min(index, key=lambda m: m[1])


def cell(after, before, fmt):
    return fmt.format(after) if before is None else (fmt.format(before) + " → " + fmt.format(after))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smcompat", required=True)
    ap.add_argument("--before", help="an older smcompat to compare with")
    ap.add_argument("--wheels", default=os.path.expanduser("~/.cache/smcompat-corpus/wheels"))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--limit-mb", type=float, default=200.0)
    args = ap.parse_args()
    wheels = sorted(pathlib.Path(args.wheels).glob("*.whl"), key=lambda p: -p.stat().st_size)
    if not wheels:
        print(f"wheel_memory: no wheels in {args.wheels}", file=sys.stderr)
        return 2
    print("| wheel | MB | scan peak RSS (MiB) | scan wall (s) | scan CPU (s) | "
          "index add peak RSS (MiB) | index add wall (s) | index add CPU (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    over = []
    total_bytes = 0
    cpu = {"scan": [0.0, 0.0], "index add": [0.0, 0.0]}  # after, before
    with tempfile.TemporaryDirectory() as scratch:
        for wheel in wheels:
            scan, index = figures(args.smcompat, wheel, args.runs, scratch)
            old = figures(args.before, wheel, args.runs, scratch) if args.before else (None, None)
            for name, m in (("scan", scan), ("index add", index)):
                if m[3] not in (0, 1):
                    over.append(f"{wheel.name}: {name} exited {m[3]}")
                if m[0] > args.limit_mb:
                    over.append(f"{wheel.name}: {name} peaked at {m[0]:.0f} MiB")
            total_bytes += wheel.stat().st_size
            for name, m, o in (("scan", scan, old[0]), ("index add", index, old[1])):
                cpu[name][0] += m[2]
                cpu[name][1] += o[2] if o else 0.0
            print(f"| {wheel.name} | {wheel.stat().st_size / 1e6:.0f} "
                  f"| {cell(scan[0], old[0] and old[0][0], '{:.0f}')} "
                  f"| {cell(scan[1], old[0] and old[0][1], '{:.2f}')} "
                  f"| {cell(scan[2], old[0] and old[0][2], '{:.2f}')} "
                  f"| {cell(index[0], old[1] and old[1][0], '{:.0f}')} "
                  f"| {cell(index[1], old[1] and old[1][1], '{:.2f}')} "
                  f"| {cell(index[2], old[1] and old[1][2], '{:.2f}')} |", flush=True)
    print()
    for name, (after, before) in cpu.items():
        rate = lambda seconds: total_bytes / 1e9 / (seconds / 60) if seconds else 0.0
        figure = f"{after:.1f} CPU s, {rate(after):.1f} GB per CPU-minute"
        if args.before:
            figure = (f"{before:.1f} → {after:.1f} CPU s, {rate(before):.1f} → {rate(after):.1f} GB "
                      "per CPU-minute")
        print(f"{name}: {len(wheels)} wheels, {total_bytes / 1e9:.2f} GB: {figure}")
    for line in over:
        print(f"wheel_memory: {line}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
