#!/usr/bin/env python3
"""How long `import smcompat` takes: median of N fresh interpreters.

    python bench/python/import_time.py [-n 20] [--python PYTHON]

Two figures per run: the cumulative time `python -X importtime` reports for the `smcompat` package
(microseconds, what the import itself costs), and the wall time of `python -c "import smcompat"`
minus that of `python -c "pass"` (what a user notices). A benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def importtime_us(python: str, module: str) -> int:
    p = subprocess.run([python, "-X", "importtime", "-c", "import " + module],
                       capture_output=True, text=True, check=True)
    for line in p.stderr.splitlines():
        # "import time: self [us] | cumulative | imported package"
        parts = [x.strip() for x in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1])
    raise RuntimeError("no importtime line for %s:\n%s" % (module, p.stderr))


def wall_ms(python: str, code: str) -> float:
    t = time.perf_counter()
    subprocess.run([python, "-c", code], check=True)
    return (time.perf_counter() - t) * 1000.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20, help="fresh interpreters per figure (default 20)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with smcompat installed")
    args = ap.parse_args()

    it = [importtime_us(args.python, "smcompat") for _ in range(args.n)]
    base = [wall_ms(args.python, "pass") for _ in range(args.n)]
    imp = [wall_ms(args.python, "import smcompat") for _ in range(args.n)]
    first = [wall_ms(args.python, "import smcompat; smcompat.__version__") for _ in range(args.n)]
    med_base = statistics.median(base)

    rows = [
        ("-X importtime, cumulative `smcompat`", statistics.median(it) / 1000.0, min(it) / 1000.0),
        ("wall: python -c 'pass'", med_base, min(base)),
        ("wall: python -c 'import smcompat' (minus 'pass')", statistics.median(imp) - med_base,
         min(imp) - med_base),
        ("wall: import + __version__ (loads _native, minus 'pass')", statistics.median(first) - med_base,
         min(first) - med_base),
    ]
    print("import smcompat, %d fresh interpreters each (%s)" % (args.n, args.python))
    print("%-58s %10s %10s" % ("measure", "median ms", "min ms"))
    for name, med, lo in rows:
        print("%-58s %10.2f %10.2f" % (name, med, lo))
    return 0


if __name__ == "__main__":
    sys.exit(main())
