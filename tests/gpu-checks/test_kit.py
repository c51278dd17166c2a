"""CI tests of the GPU kit (ctest labels gpu-kit): the kit is assembled from this build, keeps its
promises, runs in a root that holds nothing but glibc, has a step for every pending check, and
scripts/gpu-checks.sh runs end to end against the fake driver with its results marked synthetic.
    test_kit.py assemble|bare-root|steps-cover|synthetic-run  --source SRC --build BUILD --kit KIT
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "kit"))
from manifest import SYSTEM  # noqa: E402  (what a bare glibc system carries)

# glibc and the GCC runtime library: what every glibc base image (Ubuntu, Debian, RHEL) carries.
GLIBC_FILES = ["ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
               "libgcc_s.so.1"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def assemble(a):
    r = subprocess.run([str(a.source / "scripts" / "gpu-kit.sh"), "--no-build", "--build-dir", str(a.build),
                        "--out", str(a.kit)], text=True, capture_output=True)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        fail("gpu-kit.sh exited %d" % r.returncode)
    m = json.loads((a.kit / "MANIFEST.json").read_text())
    total = sum(f["bytes"] for f in m["files"])
    if total != m["total_bytes"] or total > 48 * 2**20:
        fail("kit size %d (manifest %d), bound %d" % (total, m["total_bytes"], 48 * 2**20))
    if m["problems"]:
        fail("manifest problems: %s" % m["problems"])
    if tuple(int(x) for x in m["max_glibc"].split(".")) > (2, 34):
        fail("glibc %s" % m["max_glibc"])
    for must in ("bin/smcompat", "lib/libsmcompat_trace.so", "checks/kit_driver", "checks/kit_rt",
                 "checks/fatbin/sm90a.fatbin", "checks/rt/librt_rdc_sm80_ptx80.so", "checks/smem/smem.sm_90.cubin",
                 "checks/ptx/setmaxnreg.sm_90a.ptx", "checks/ptx/wgmma_kernels.sm_90a.ptx",
                 "checks/ptx/wgmma_kernels.sm_90a.cubin"):
        if not (a.kit / must).exists():
            fail("kit lacks " + must)
    n_fatbins = len(list((a.kit / "checks" / "fatbin").glob("*")))
    if n_fatbins < 24:
        fail("only %d fatbin variants" % n_fatbins)
    print("kit: %.1f MiB, %d files, glibc <= %s, %d driver-API variants, commit %s" % (
        total / 2**20, len(m["files"]), m["max_glibc"], n_fatbins, m["commit"]))


def bare_root(a):
    """The kit's CLI and shim in a root with glibc alone (what a bare CUDA base image has)."""
    root = a.build / "gpu-kit-test" / "bare-root"
    shutil.rmtree(root, ignore_errors=True)
    libdir = root / "lib" / "x86_64-linux-gnu"
    libdir.mkdir(parents=True)
    (root / "lib64").mkdir()
    for name in GLIBC_FILES:
        src = Path("/lib/x86_64-linux-gnu") / name
        if src.exists():
            shutil.copy2(src.resolve(), libdir / name)
    shutil.copy2(libdir / "ld-linux-x86-64.so.2", root / "lib64" / "ld-linux-x86-64.so.2")
    shutil.copytree(a.kit, root / "kit", symlinks=True)
    (root / "tmp").mkdir(mode=0o1777)
    (root / "proc").mkdir()
    print("ldd (host view, LD_LIBRARY_PATH unset):")
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    for elf in ("bin/smcompat", "lib/libsmcompat_trace.so"):
        r = subprocess.run(["ldd", str(a.kit / elf)], text=True, capture_output=True, env=env)
        print("  " + elf + ":\n" + "".join("    " + l + "\n" for l in r.stdout.splitlines()))
        for line in r.stdout.splitlines():
            if "=>" in line and str(a.kit) not in line and not SYSTEM.match(line.split()[0]):
                fail("%s resolves a library outside the kit and glibc: %s" % (elf, line.strip()))
    # A container has /proc mounted (the loader reads /proc/self/exe for $ORIGIN): a mount and
    # PID namespace of its own, /proc mounted inside the root, then chroot.
    chroot = shutil.which("chroot") or "/usr/sbin/chroot"
    prefix = [shutil.which("unshare") or "/usr/bin/unshare"] + ([] if os.geteuid() == 0 else ["-r"]) + [
        "-m", "-p", "-f", "--mount-proc=%s" % (root / "proc"), chroot, str(root)]
    env = {"PATH": "/kit/bin", "HOME": "/tmp", "NO_COLOR": "1", "TMPDIR": "/tmp"}
    runs = [(["/kit/bin/smcompat", "--version"], {0}),
            (["/kit/bin/smcompat", "scan", "/kit/checks/fatbin", "--gpu", "H100 SXM"], {0, 1}),
            (["/kit/bin/smcompat", "ptx", "retarget", "/kit/checks/ptx/setmaxnreg.sm_90a.ptx", "--to", "sm_90",
              "-o", "/tmp/ws.ptx"], {0, 1}),
            (["/kit/bin/smcompat", "probe"], {0, 1, 2}),
            # The shim preloaded into a program with no driver to find: it must load and stay out of the way.
            (["/kit/bin/smcompat", "trace", "--", "/kit/checks/kit_driver", "module", "/kit/checks/fatbin/sm90.fatbin"],
             {0, 1})]
    for argv, ok in runs:
        r = subprocess.run(prefix + argv, text=True, capture_output=True, env=env, timeout=120)
        print("$ %s\n# exit %d\n%s%s" % (" ".join(argv), r.returncode, r.stdout[-1500:], r.stderr[-1500:]))
        if r.returncode not in ok or "error while loading shared libraries" in r.stderr:
            fail("%s exited %d in the bare root" % (" ".join(argv), r.returncode))
    # No driver in the root, so the shim records nothing; the loader's own log shows that it was
    # preloaded, that its libraries resolved inside /kit, and that its initialiser ran.
    r = subprocess.run(prefix + ["/kit/bin/smcompat", "trace", "--", "/kit/checks/kit_driver", "module",
                                 "/kit/checks/fatbin/sm90.fatbin"], text=True, capture_output=True,
                       env=dict(env, LD_DEBUG="files"), timeout=120)
    init = [l.strip() for l in r.stderr.splitlines() if "calling init: /kit/lib/libsmcompat_trace.so" in l]
    print("loader log of the traced program: %s" % (init[:1] or "no init of the shim"))
    if not init or "cannot be preloaded" in r.stderr:
        fail("the shim was not loaded in the bare root")
    if "dlopen libcuda.so.1" not in r.stdout:
        fail("kit_driver under the shim did not report the missing driver: %r" % r.stdout)


def steps_cover(a):
    """Every pending check of docs/gpu-checks/README.md has a step that claims it, and every step
    gpu-checks.sh runs exists."""
    readme = (a.source / "docs" / "gpu-checks" / "README.md").read_text()
    table = readme.split("## Pending checks", 1)[1]
    pending = {int(m) for m in re.findall(r"^\| (\d+) \|", table, re.M)}
    script = (a.source / "scripts" / "gpu-checks.sh").read_text()
    ids = re.findall(r'"(\w+) \d+"', script.split("steps=(", 1)[1].split(")", 1)[0])
    covered = {}
    for sid in ids:
        f = a.source / "tests" / "gpu-checks" / "steps" / ("step_%s.py" % sid)
        if not f.exists():
            fail("gpu-checks.sh runs step %s, but %s does not exist" % (sid, f))
        m = re.search(r'Step\(\s*"%s"\s*,.*?\[([\d,\s]*)\]\s*\)' % sid, f.read_text(), re.S)
        if not m:
            fail("%s does not declare its checks" % f.name)
        for n in re.findall(r"\d+", m.group(1)):
            covered.setdefault(int(n), []).append(sid)
    missing = sorted(pending - set(covered))
    print("pending checks %s; steps %s; coverage %s" % (sorted(pending), ids, covered))
    if not pending:
        fail("no pending checks parsed from the README")
    if missing:
        fail("pending checks without a step: %s" % missing)


def synthetic_run(a):
    out = a.build / "gpu-kit-test" / "synthetic-out"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env.update({"LD_LIBRARY_PATH": str(a.build / "tests" / "fakedriver" / "lib"),
                "SMCOMPAT_FAKE_GPUS": "H100 SXM,H100 SXM", "SMCOMPAT_FAKE_NVLINK": "18",
                "SMCOMPAT_FAKE_PCIE": "5x16", "SMCOMPAT_GPU_KIT": str(a.kit),
                "SMCOMPAT_GPU_CHECKS_SYNTHETIC": "1", "NO_COLOR": "1"})
    env.pop("OUT", None)
    t0 = time.monotonic()
    r = subprocess.run([str(a.source / "scripts" / "gpu-checks.sh"), str(out)], text=True,
                       capture_output=True, env=env, timeout=400)
    wall = time.monotonic() - t0
    print(r.stdout[-6000:] + r.stderr[-3000:])
    print("wall %.1f s" % wall)
    for f in ("gpu-checks.md", "results.json", "gpu-checks-logs.tar.gz"):
        if not (out / f).exists():
            fail("no " + f)
    res = json.loads((out / "results.json").read_text())
    if res.get("schema") != "smcompat.gpu-checks/1" or res.get("synthetic") is not True:
        fail("results.json not marked synthetic: %s" % {k: res.get(k) for k in ("schema", "synthetic")})
    if "SYNTHETIC" not in (out / "gpu-checks.md").read_text():
        fail("the summary does not say synthetic")
    bad = [(s["id"], s["status"], s.get("reason")) for s in res["steps"] if s["status"] not in ("pass", "skip")]
    if bad:
        fail("steps that did not pass under the fake driver: %s" % bad)
    script = (a.source / "scripts" / "gpu-checks.sh").read_text()
    ids = re.findall(r'"(\w+) \d+"', script.split("steps=(", 1)[1].split(")", 1)[0])
    if [s["id"] for s in res["steps"]] != ids:
        fail("steps in results.json %s, expected %s" % ([s["id"] for s in res["steps"]], ids))
    matrix = next(s for s in res["steps"] if s["id"] == "matrix")
    compared = [row for row in matrix["rows"] if row["agree"] is True]
    if len(compared) < 48:
        fail("only %d driver-API matrix rows compared" % len(compared))
    if r.returncode != 0:
        fail("gpu-checks.sh exited %d" % r.returncode)
    # The record script refuses a synthetic run, and with --allow-synthetic writes only where told.
    record = str(a.source / "scripts" / "gpu-checks-record.sh")
    docs_before = sorted(p.name for p in (a.source / "docs" / "gpu-checks").iterdir())
    refused = subprocess.run([record, str(out)], text=True, capture_output=True)
    if refused.returncode != 2:
        fail("gpu-checks-record.sh accepted a synthetic run (exit %d)" % refused.returncode)
    recorded = out / "recorded.md"
    rr = subprocess.run([record, str(out), "--allow-synthetic", "-o", str(recorded)], text=True,
                        capture_output=True)
    if rr.returncode != 0 or not recorded.exists():
        fail("gpu-checks-record.sh --allow-synthetic -o: exit %d %s" % (rr.returncode, rr.stderr[-500:]))
    text = recorded.read_text()
    for needed in ("| item | predicted (smcompat) | observed |", "sm90a.fatbin via cuModuleLoadData"):
        if needed not in text:
            fail("the record lacks %r" % needed)
    # The pending table gains a status per check, the same on a second run (idempotent).
    readme = out / "README.md"
    shutil.copy2(a.source / "docs" / "gpu-checks" / "README.md", readme)
    once = None
    for _ in range(2):
        rr = subprocess.run([record, str(out), "--allow-synthetic", "-o", str(recorded), "--readme", str(readme)],
                            text=True, capture_output=True)
        if rr.returncode != 0:
            fail("gpu-checks-record.sh --readme: exit %d %s" % (rr.returncode, rr.stderr[-500:]))
        if once is not None and readme.read_text() != once:
            fail("a second record changed the README again")
        once = readme.read_text()
    table = once.split("## Pending checks", 1)[1]
    if "| # | check | from | how | status |" not in table or len(re.findall(r"^\| \d+ \|.*run on", table, re.M)) < 10:
        fail("the pending table has no status for every check")
    if sorted(p.name for p in (a.source / "docs" / "gpu-checks").iterdir()) != docs_before:
        fail("the record script wrote under docs/gpu-checks for a synthetic run")
    if wall > 180:
        fail("the synthetic run took %.0f s (bound 180 s)" % wall)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["assemble", "bare-root", "steps-cover", "synthetic-run"])
    p.add_argument("--source", type=Path, required=True)
    p.add_argument("--build", type=Path, required=True)
    p.add_argument("--kit", type=Path, required=True)
    a = p.parse_args()
    {"assemble": assemble, "bare-root": bare_root, "steps-cover": steps_cover,
     "synthetic-run": synthetic_run}[a.what](a)
    print("ok")


if __name__ == "__main__":
    main()
