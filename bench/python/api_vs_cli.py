#!/usr/bin/env python3
"""A scan through the Python API against the console script on the same files: median of N runs.

    python bench/python/api_vs_cli.py [-n 5] [--gpu "RTX 5090"] [--cli smcompat] PATH...

Rows: the API in this process (smcompat.scan(...).to_dict(): the native scan, JSON text, parsing
and the typed report), the API in a fresh interpreter (import included), and the console script
`smcompat scan PATH... --gpu GPU --json` (process start, the scan, the JSON on a pipe) parsed with
json.loads. Also checks that the documents agree (argv aside). A benchmark: it asserts nothing.
Default paths: /usr/local/cuda/lib64.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def timed(fn, n):
    out, times = None, []
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["/usr/local/cuda/lib64"])
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--gpu", default="RTX 5090")
    ap.add_argument("--cli", default=os.environ.get("SMCOMPAT_CLI") or shutil.which("smcompat") or "smcompat")
    args = ap.parse_args()

    import smcompat

    def api():
        return smcompat.scan(args.paths, gpu=args.gpu).to_dict()

    code = ("import json, sys, smcompat; smcompat.scan(json.loads(sys.argv[1]), gpu=sys.argv[2]).to_dict()")

    def api_fresh():
        subprocess.run([sys.executable, "-c", code, json.dumps(args.paths), args.gpu], check=True)

    def cli():
        p = subprocess.run([args.cli, "scan"] + args.paths + ["--gpu", args.gpu, "--json", "-q"],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):
            raise SystemExit("%s failed (exit %d): %s" % (args.cli, p.returncode, p.stderr[-500:]))
        return json.loads(p.stdout)

    api()  # warm the page cache and load the native module once
    a, t_api = timed(api, args.n)
    _, t_fresh = timed(api_fresh, args.n)
    c, t_cli = timed(cli, args.n)
    a.pop("argv", None)
    c.pop("argv", None)
    same = json.dumps(a, sort_keys=True) == json.dumps(c, sort_keys=True)

    size = sum(f["size"] for f in a["files"] if not f["member"])
    print("scan of %s for %s: %d files reported, %.1f MB on disk; %d runs each; documents %s" % (
        " ".join(args.paths), args.gpu, len(a["files"]), size / 1e6, args.n, "equal" if same else "DIFFER"))
    print("%-44s %10s %10s" % ("how", "median s", "min s"))
    for name, t in (("API, this process (scan + to_dict)", t_api),
                    ("API, fresh interpreter (import included)", t_fresh),
                    ("console script --json, parsed", t_cli)):
        print("%-44s %10.3f %10.3f" % (name, statistics.median(t), min(t)))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
