#!/usr/bin/env python3
"""Times `smcompat fleet merge` on generated fleets of N node reports (issue 13: 10,000 reports
merge in seconds with bounded memory).

The reports are real `smcompat probe --json` documents written against the fake driver
(tests/fakedriver) for four GPU mixes, copied under N host names, plus one scan of the CUDA
toolkit's libcublasLt. Prints wall time and peak RSS of the merge for each N; peak RSS that stays
flat while N grows is the "bounded memory" claim.

With --before OLD_SMCOMPAT, the same merges are run with an older binary too (issue 32's
before/after: the JSON written node by node instead of built whole), and the two `-o` and
`--json` outputs must be byte-identical.

usage: bench/fleet/merge_scale.py BUILD_DIR [--before OLD_SMCOMPAT] [N ...]
       (default N: 1000 10000)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    before = None
    if "--before" in args:
        k = args.index("--before")
        before = os.path.abspath(args[k + 1])
        del args[k:k + 2]
    build = os.path.abspath(args[0] if args else "build")
    sizes = [int(n) for n in args[1:]] or [1000, 10000]
    cli = os.path.join(build, "bin", "smcompat")
    clis = [("after" if before else "", cli)] + ([("before", before)] if before else [])
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
    print(f"{'reports':>8} {'bytes':>12} {'output':>9} {'build':>7} {'wall s':>8} "
          f"{'CPU s':>7} {'peak RSS MiB':>13} {'out bytes':>11}")
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
            for mode, extra in (("text", []), ("-o JSON", ["-o", "fleet.out"]),
                                ("--json", ["--json"])):
                outputs = []
                for label, binary in clis:
                    out_path = os.path.join(d, "fleet.out")  # the same argv for both builds
                    argv = [a if a != "fleet.out" else out_path for a in extra]
                    stdout_path = os.path.join(d, f"stdout.{label or 'out'}")
                    t0 = time.perf_counter()
                    with open(stdout_path, "wb") as stdout:
                        # argv[0] "smcompat" for both, so the documents' "argv" fields agree.
                        proc = subprocess.Popen(["smcompat", "fleet", "merge", d, "--fail-on",
                                                 "never"] + argv, executable=binary, stdout=stdout)
                        _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak RSS
                    wall = time.perf_counter() - t0
                    if os.waitstatus_to_exitcode(status) != 0:
                        sys.exit(f"fleet merge exited {os.waitstatus_to_exitcode(status)}")
                    cpu = usage.ru_utime + usage.ru_stime
                    written = out_path if "-o" in extra else stdout_path
                    print(f"{n + 1:>8} {total:>12} {mode:>9} {label:>7} {wall:>8.2f} {cpu:>7.2f} "
                          f"{usage.ru_maxrss / 1024:>13.0f} {os.path.getsize(written):>11}")
                    with open(written, "rb") as f:
                        outputs.append(f.read())
                    os.unlink(written)
                if mode != "text" and len(outputs) == 2 and outputs[0] != outputs[1]:
                    for name, data in zip(("after", "before"), outputs):
                        with open(f"/tmp/merge_scale.{name}", "wb") as f:
                            f.write(data)
                    sys.exit(f"{mode}: the outputs of the two builds differ "
                             "(kept in /tmp/merge_scale.after and .before)")
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
