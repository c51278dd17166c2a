#!/usr/bin/env python3
"""Times `smcompat fleet merge` on generated fleets of N node reports (issue 13: 10,000 reports
merge in seconds with bounded memory).

The reports are real `smcompat probe --json` documents written against the fake driver
(tests/fakedriver) for four GPU mixes, copied under N host names, plus one scan of the CUDA
toolkit's libcublasLt. Prints wall time and peak RSS of the merge for each N; peak RSS that stays
flat while N grows is the "bounded memory" claim.

usage: bench/fleet/merge_scale.py BUILD_DIR [N ...]      (default N: 1000 10000)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    sizes = [int(n) for n in sys.argv[2:]] or [1000, 10000]
    cli = os.path.join(build, "bin", "smcompat")
    fake = os.path.join(build, "tests", "fakedriver", "lib")
    mixes = [
        ("h100", {"SMCOMPAT_FAKE_GPUS": ",".join(["H100"] * 8), "SMCOMPAT_FAKE_NVLINK": "2"}),
        ("h100old", {"SMCOMPAT_FAKE_GPUS": ",".join(["H100"] * 8), "SMCOMPAT_FAKE_NVLINK": "2",
                     "SMCOMPAT_FAKE_DRIVER": "570.124.06", "SMCOMPAT_FAKE_CUDA": "12080"}),
        ("pro6000", {"SMCOMPAT_FAKE_GPUS": ",".join(["RTX PRO 6000"] * 4), "SMCOMPAT_FAKE_P2P": "0"}),
        ("spark", {"SMCOMPAT_FAKE_GPUS": "GB10"}),
    ]
    templates = []
    for name, env in mixes:
        e = dict(os.environ, LD_LIBRARY_PATH=fake, **env)
        out = subprocess.run([cli, "probe", "--json"], env=e, capture_output=True, text=True)
        templates.append((name, json.loads(out.stdout)))
    scan = subprocess.run([cli, "scan", "/usr/local/cuda/lib64/libcublasLt.so", "--json"],
                          capture_output=True, text=True).stdout
    print(f"{'reports':>8} {'bytes':>12} {'wall s':>8} {'peak RSS MiB':>13}  (smcompat fleet merge DIR -o F)")
    for n in sizes:
        d = tempfile.mkdtemp(prefix="smcompat-fleet-bench-")
        try:
            total = 0
            for i in range(n):
                name, doc = templates[i % len(templates)]
                doc["hostname"] = f"{name}-{i:05d}"
                text = json.dumps(doc, indent=1)
                total += len(text)
                with open(os.path.join(d, f"{name}-{i:05d}.json"), "w") as f:
                    f.write(text)
            with open(os.path.join(d, "zz-scan.json"), "w") as f:
                f.write(scan)
            out = os.path.join(d, "fleet.out")
            t0 = time.perf_counter()
            proc = subprocess.Popen([cli, "fleet", "merge", d, "-o", out, "--fail-on", "never"],
                                    stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak RSS
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                sys.exit(f"fleet merge exited {proc.returncode}")
            peak = f"{usage.ru_maxrss / 1024:.0f}"
            print(f"{n + 1:>8} {total:>12} {wall:>8.2f} {peak:>13}")
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
