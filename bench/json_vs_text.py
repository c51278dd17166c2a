#!/usr/bin/env python3
"""Time and peak RSS of a command's text report against its `--json` document (issue 32: the JSON
is written as it is produced, within 1.15x of the text's time and memory), beside the floor of
writing that many bytes to the same place.

    bench/json_vs_text.py --smcompat build/bin/smcompat [--before OLD_BINARY] [--runs 3]
                          [--out-dir /tmp] -- scan --deep WHEEL...

Each run is one process, its stdout sent to a file in --out-dir, measured with wait4 (wall,
user+system CPU, ru_maxrss). The floor is the same number of bytes written to the same directory
in 1 MiB pieces by this script (page-cache speed, as the process gets: no fsync), best of --runs.
With --before, the older binary's `--json` must print the same bytes (argv[0] is "smcompat" for
both); a difference exits 1.
"""
import argparse
import os
import sys
import time


def run(binary, argv, out_path):
    """(wall s, CPU s, peak RSS MiB, bytes written) of one run with stdout to out_path."""
    start = time.monotonic()
    with open(out_path, "wb") as out:
        pid = os.posix_spawn(binary, ["smcompat"] + argv, os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                           (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)])
        _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"json_vs_text: {binary} {' '.join(argv)} exited "
                 f"{os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.path.getsize(out_path)


def best(binary, argv, out_path, runs):
    results = [run(binary, argv, out_path) for _ in range(runs)]
    return min(results, key=lambda r: r[0])


def write_floor(nbytes, out_dir, runs):
    """Seconds to write nbytes to a file in out_dir in 1 MiB pieces (best of runs)."""
    piece = b"x" * (1 << 20)
    path = os.path.join(out_dir, "json_vs_text.floor")
    times = []
    for _ in range(runs):
        start = time.monotonic()
        with open(path, "wb", buffering=0) as f:
            left = nbytes
            while left > 0:
                left -= f.write(piece[:min(left, len(piece))])
        times.append(time.monotonic() - start)
        os.unlink(path)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smcompat", required=True)
    ap.add_argument("--before")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out-dir", default="/tmp")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    argv = [a for a in args.command if a != "--"]
    if not argv:
        ap.error("no command given (after --)")
    builds = [("after" if args.before else "", os.path.abspath(args.smcompat))]
    if args.before:
        builds.append(("before", os.path.abspath(args.before)))
    print(f"command: smcompat {' '.join(argv)}; best of {args.runs}; stdout to {args.out_dir}")
    print(f"| build | output | bytes | wall s | CPU s | peak RSS MiB | write floor s |")
    print(f"|---|---|---:|---:|---:|---:|---:|")
    documents = {}
    for label, binary in builds:
        text_out = os.path.join(args.out_dir, f"json_vs_text.{label or 'out'}.txt")
        json_out = os.path.join(args.out_dir, f"json_vs_text.{label or 'out'}.json")
        t = best(binary, argv, text_out, args.runs)
        j = best(binary, argv + ["--json"], json_out, args.runs)
        with open(json_out, "rb") as f:
            documents[label] = f.read()
        for name, r in (("text", t), ("--json", j)):
            print(f"| {label} | {name} | {r[3]:,} | {r[0]:.2f} | {r[1]:.2f} | {r[2]:.0f} | "
                  f"{write_floor(r[3], args.out_dir, args.runs):.2f} |")
        print(f"| {label} | json/text | | {j[0] / t[0]:.2f}x | {j[1] / t[1]:.2f}x | "
              f"{j[2] / t[2]:.2f}x | |")
        os.unlink(text_out)
        os.unlink(json_out)
    if args.before and documents["after"] != documents["before"]:
        print("json_vs_text: the two builds' --json documents differ", file=sys.stderr)
        return 1
    if args.before:
        print(f"--json documents of both builds: byte-identical ({len(documents['after']):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
