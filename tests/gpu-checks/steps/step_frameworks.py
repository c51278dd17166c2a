#!/usr/bin/env python3
"""Step "frameworks" (checks 8 and 9): the machine's own torch, CuPy and JAX.

(a) check 8: each framework's GPU libraries are scanned (`smcompat scan DIR --json`, for this
    GPU and driver), then one small kernel of the framework runs under `smcompat trace`. Each
    module the driver loaded is matched to the scanned file and container it came from by its
    images (target and stored size of every image: the trace records them, the scan lists them),
    and the scan's predicted verdict for that container is compared with what the driver did
    (native / compatible-sass / ptx-jit / failed). Modules no scanned file holds (NVRTC, XLA or
    Triton output made at run time) are counted, not judged.
(b) check 9: a python3 process imports torch, runs a kernel and waits; `smcompat check --pid`
    runs against it. torch's device name and capability are compared with the probe's, the
    libraries the check lists with /proc/PID/maps. (The kit has no cp312 wheel, so
    `python -m smcompat check` is not available on the GPU machine: the CLI's check is used.)

A framework that is not installed, or cannot initialise CUDA (the fake driver), is skipped with
its reason; when nothing at all could run the step is a skip. No row is invented.
"""

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kitlib import Step, kill_tree, python_exe  # noqa: E402

BUDGET = 70  # seconds, unless $GPU_CHECKS_BUDGET_S says otherwise (scripts/gpu-checks.sh)

# scan verdicts (units) -> the trace's observed outcomes
OUTCOME = {"native": "native", "compatible-sass": "compatible-sass", "ptx-jit": "ptx-jit",
           "unsupported-ptx": "failed", "no-image": "failed"}

# One small kernel of each framework. "ok" is printed only when the work ran on a GPU and gave
# the right answer (float32 sums of 2^20 terms: within 1e-4 relative, the accumulation rounds):
# a framework that silently falls back to the CPU (JAX does when its CUDA plugin cannot start)
# must not count as a kernel run under trace.
KERNELS = {
    "torch": r'''
import json, torch
x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
s = float((x * 2 + 1).sum())
a = torch.ones(256, 256, device="cuda")
mm = float((a @ a).sum())
torch.cuda.synchronize()
n = 1 << 20
print(json.dumps({"ok": abs(s / float(n * n) - 1) < 1e-4 and mm == 256.0 ** 3, "sum": s,
                  "mm": mm, "device": torch.cuda.get_device_name(0)}))
''',
    # CuPy compiles its elementwise and reduction kernels with NVRTC at first use (seconds each
    # on a machine with no kernel cache). This one needs no compiler: host-to-device copies, a
    # sum through CUB (CUPY_ACCELERATORS=cub: the device code CuPy ships in cupy/cuda/cub*.so)
    # and a matmul through cuBLAS. Should CUB be unavailable, the sum falls back to an NVRTC
    # kernel: slower, still correct.
    "cupy": r'''
import json, numpy as np, cupy as cp
n = 1 << 20
a = cp.asarray(np.arange(n, dtype=np.float32))
s = float(a.sum())
m = cp.asarray(np.ones((256, 256), dtype=np.float32))
mm = float(cp.asnumpy(m @ m).sum())
cp.cuda.Device(0).synchronize()
name = cp.cuda.runtime.getDeviceProperties(0).get("name")
name = name.decode(errors="replace") if isinstance(name, bytes) else name
print(json.dumps({"ok": abs(s / float(n * (n - 1) // 2) - 1) < 1e-4 and mm == 256.0 ** 3,
                  "sum": s, "mm": mm, "device": name}))
''',
    # JAX_PLATFORMS=cuda (ENVS): no silent CPU fallback; one jit-compiled function (one XLA
    # compilation) instead of an eager op per compilation.
    "jax": r'''
import json, numpy as np, jax
devs = jax.devices()
n = 1 << 20
x = jax.device_put(np.arange(n, dtype=np.float32), devs[0])
f = jax.jit(lambda v: (v * 2 + 1).sum())
s = float(f(x))
plat = sorted({d.platform for d in devs})
print(json.dumps({"ok": plat == ["gpu"] and abs(s / float(n * n) - 1) < 1e-4, "sum": s,
                  "platforms": plat,
                  "devices": [str(d) for d in devs]}))
''',
}

# check 9: a process that ran a torch kernel and stays until its stdin closes
TORCH_HOLD = r'''
import json, os, sys
import torch
x = torch.ones(1 << 20, device="cuda")
y = float((x * 2).sum())
torch.cuda.synchronize()
print(json.dumps({"pid": os.getpid(), "device_name": torch.cuda.get_device_name(0),
                  "capability": "%d.%d" % torch.cuda.get_device_capability(0),
                  "torch": torch.__version__, "cuda": torch.version.cuda,
                  "arch_list": torch.cuda.get_arch_list(), "result": y}), flush=True)
sys.stdin.read()
'''

# JAX: no preallocation of 75 % of the GPU's memory, the CUDA backend or an error (never the
# CPU), less logging. CuPy: CUB for reductions (no NVRTC compile).
ENVS = {"jax": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "JAX_PLATFORMS": "cuda",
                "TF_CPP_MIN_LOG_LEVEL": "2"},
        "cupy": {"CUPY_ACCELERATORS": "cub"}}


def scan_dirs(name, packages):
    """The directories holding a framework's own GPU libraries."""
    if name == "torch":
        return [os.path.join(p, "lib") for p in packages.get("torch", [])
                if os.path.isdir(os.path.join(p, "lib"))]
    if name == "cupy":
        return packages.get("cupy", []) + packages.get("cupy_backends", [])
    if name == "jax":
        return packages.get("jaxlib", []) + packages.get("jax_plugins", [])
    return []


# -- matching loads to scanned containers ----------------------------------------------------

class ScanIndex:
    """A scan document reduced to what matching needs (the documents are tens of MB)."""

    def __init__(self):
        self.files = {}   # key -> {"verdict", "package", "containers": n}
        self.fp = {}      # fingerprint -> [(key, unit verdict)]
        self.target = None

    def add(self, doc):
        self.target = self.target or doc.get("target")
        for f in doc.get("files") or []:
            key = f["path"] + ("!" + f["member"] if f.get("member") else "")
            units = {u.get("offset"): u.get("verdict") for u in f.get("units") or []}
            groups = {}
            for e in f.get("entries") or []:
                groups.setdefault(e.get("container_offset"), []).append(
                    (e.get("target"), e.get("stored_size")))
            self.files[key] = {"verdict": f.get("verdict"), "package": f.get("package"),
                               "containers": len(groups), "path": f["path"]}
            for off, imgs in groups.items():
                fp = tuple(sorted(imgs))
                self.fp.setdefault(fp, []).append((key, units.get(off)))


def read_load_records(path):
    """(pid, id) -> fingerprint of the load's images, from the shim's raw records."""
    out = {}
    try:
        with open(path, errors="replace") as fh:
            for line in fh:
                if '"ev":"load"' not in line:
                    continue
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                imgs = tuple(sorted((i.get("target"), i.get("stored_size"))
                                    for i in j.get("images") or []))
                out[(j.get("pid"), j.get("id"))] = (imgs, j.get("path"))
    except OSError:
        pass
    return out


def attribute(trace, records, index):
    """-> ({file key: [(predicted outcome or None, observed outcome)]}, unattributed outcomes,
    ambiguous count)."""
    per_file, unattributed, ambiguous = {}, {}, 0
    for ld in trace.get("loads") or []:
        obs = ld.get("outcome") or "unknown"
        fp, path = records.get((ld.get("pid"), ld.get("id")), ((), None))
        cands = index.fp.get(fp, []) if fp else []
        if path and not cands:  # loaded from a file: the file itself
            cands = [(k, None) for k, v in index.files.items() if v["path"] == path]
        keys = {k for k, _ in cands}
        if not keys:
            unattributed[obs] = unattributed.get(obs, 0) + 1
            continue
        verdicts = {v for _, v in cands}
        pred = OUTCOME.get(verdicts.pop()) if len(verdicts) == 1 else None
        if len(keys) > 1:
            ambiguous += 1
            key = "(identical containers in %d files)" % len(keys)
        else:
            key = keys.pop()
        per_file.setdefault(key, []).append((pred, obs))
    return per_file, unattributed, ambiguous


def counts(items):
    c = {}
    for x in items:
        c[x] = c.get(x, 0) + 1
    return ", ".join("%s %d" % (k, v) for k, v in sorted(c.items(), key=lambda kv: str(kv[0])))


# -- the step --------------------------------------------------------------------------------

class Frameworks:
    """Runs first (scans, traced kernels, the check-9 process) and judges last, so that every
    traced load is matched against every scan made within the budget."""

    def __init__(self, step):
        self.step = step
        m = step.machine()
        self.m = m
        self.py = m.get("python_exe") or python_exe()
        self.packages = m.get("packages")
        if self.packages is None:  # the machine step did not run: locate them here
            from step_machine import LOCATE
            r = step.run("python-locate", [self.py, step.script("locate.py", LOCATE)], timeout=15)
            try:
                self.packages = json.loads(r.stdout.strip().splitlines()[-1])["packages"]
            except (ValueError, IndexError, KeyError):
                self.packages = {}
        gpu = (m.get("gpus") or [{}])[0]
        self.target = []
        if gpu.get("catalog_name"):
            self.target = ["--gpu", gpu["catalog_name"]]
            if m.get("driver"):
                self.target += ["--driver", m["driver"]]
        self.gpu = gpu
        self.indexes = {}   # scan label -> ScanIndex
        self.traces = {}    # framework -> (trace report, records path)
        self.check9 = None  # (mapped files, listed libraries) of the check --pid run
        self.ran = 0

    # -- running ---------------------------------------------------------------------------
    def scan(self, label, dirs, timeout):
        timeout = max(3, timeout)
        out = self.step.path("scan-%s.json" % label)
        r = self.step.run("scan-" + label, [self.step.smcompat, "scan", *dirs, *self.target,
                                            "--json", "-q"],
                          timeout=timeout, stdout_path=out)
        try:
            doc = json.loads(out.read_text())
        except (OSError, ValueError):
            self.step.note("scan of %s gave no document (%s)" % (
                label, "timed out after %.0f s" % timeout if r.timed_out else "exit %d" % r.rc))
            self.step.shrink(out)
            return
        index = ScanIndex()
        index.add(doc)
        summary = {"target": doc.get("target"), "stats": doc.get("stats"), "dirs": dirs,
                   "files": {k: v["verdict"] for k, v in index.files.items()},
                   "packages": [{k: p.get(k) for k in ("name", "version", "verdict", "files")}
                                for p in doc.get("packages") or []]}
        self.step.path("scan-%s.summary.json" % label).write_text(json.dumps(summary, indent=1))
        del doc
        self.step.shrink(out)
        self.indexes[label] = index

    def usable(self, name):
        step = self.step
        root = {"torch": "torch", "cupy": "cupy", "jax": "jax"}[name]
        if root not in self.packages:
            step.note("%s: not installed for %s: skipped" % (name, self.py))
            return False
        if name == "torch" and self.m.get("torch_cuda_available") is False:
            step.note("torch: torch.cuda.is_available() is False here%s: skipped" % (
                " (the fake driver cannot serve the CUDA runtime)" if step.synthetic else ""))
            return False
        imp = (self.m.get("imports") or {}).get(name) or {}
        if imp.get("error") and (not imp.get("timed_out") or imp.get("seconds", 0) >= 15):
            # it failed, or hung for 15 s, in the machine step: it would here too, and cost
            # the other frameworks their time
            step.note("%s: import %s failed in the machine step (%s): skipped" % (
                name, name, imp["error"]))
            return False
        return True

    def run(self, name, budget):
        """Scan the framework's libraries, then run its kernel under trace."""
        step = self.step
        t_end = time.monotonic() + budget
        dirs = scan_dirs(name, self.packages)
        if dirs:
            self.scan(name, dirs, max(5, min(20, budget * 0.35)))
        else:
            step.note("%s: no library directory found to scan" % name)
        left = t_end - time.monotonic()
        if left < 8:
            step.note("%s: no time left for the traced kernel" % name)
            return
        report = step.path("trace-%s.json" % name)
        records = step.path("trace-%s.jsonl" % name)
        # the records are turned into a report after the run: keep a few seconds for that
        r = step.run("trace-" + name, [step.smcompat, "trace", "--json", "-o", report,
                                       "--records", records, "--", self.py,
                                       step.script("kernel_%s.py" % name, KERNELS[name])],
                     env=ENVS.get(name), timeout=max(5, left - 3))
        if (r.timed_out or not report.exists()) and records.exists():
            step.run("trace-from-" + name, [step.smcompat, "trace", "--from", records, "--json",
                                            "-o", report],
                     timeout=max(3, min(15, t_end - time.monotonic() + 3)))
        try:
            trace = json.loads(report.read_text())
        except (OSError, ValueError):
            trace = None
        out = None
        for line in reversed(r.stdout.splitlines()):
            if line.startswith("{"):
                try:
                    out = json.loads(line)
                    break
                except ValueError:
                    pass
        if out and not out.get("ok"):
            step.note("%s: the kernel ran but not as asked (wrong result or not on a GPU): %s" % (
                name, json.dumps(out)[:300]))
            if not trace or not trace.get("loads"):
                step.shrink(records)
                return
        elif not out:
            err = (r.stderr.strip().splitlines() or ["?"])
            why = "timed out" if r.timed_out else "exit %s: %s" % (
                (trace or {}).get("exit_status", r.rc), err[-1][:300])
            step.note("%s: the kernel did not run under trace (%s)%s" % (
                name, why, "" if trace and trace.get("loads") else
                "; nothing observed to compare"))
            if not trace or not trace.get("loads"):
                step.shrink(records)
                return
        self.ran += 1
        self.traces[name] = (trace or {}, records, bool(out and out.get("ok")))

    def check_pid(self, budget):
        """Check 9: smcompat check --pid against a live torch process."""
        step = self.step
        step.note("`python -m smcompat check --import torch` needs the smcompat wheel, and the "
                  "kit carries no cp312 wheel: `smcompat check --pid` (the same check) is used")
        t_end = time.monotonic() + budget
        p = step.spawn([self.py, step.script("torch_hold.py", TORCH_HOLD)],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=open(step.path("torch_hold.err"), "w"))
        info = None
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        while time.monotonic() < t_end - 5 and info is None and p.poll() is None:
            if sel.select(timeout=1):
                line = p.stdout.readline()
                if not line:
                    break
                if line.startswith("{"):
                    try:
                        info = json.loads(line)
                    except ValueError:
                        pass
        if info is None:
            rc = p.poll()
            kill_tree(p)
            step.note("check 9: the torch process %s (see torch_hold.err)" % (
                "did not report a kernel run within %.0f s" % budget if rc is None else
                "exited with status %s before reporting a kernel run" % rc))
            return
        pid = info["pid"]
        try:
            maps_text = Path("/proc/%d/maps" % pid).read_text()
        except OSError as e:
            maps_text = ""
            step.note("check 9: cannot read /proc/%d/maps: %s" % (pid, e))
        step.path("torch_hold.maps").write_text(maps_text)
        r = step.run("check-pid", [step.smcompat, "check", "--pid", pid, "--json"],
                     timeout=max(5, t_end - time.monotonic()))
        try:
            p.stdin.close()
            p.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            kill_tree(p)
        step.path("torch_hold.json").write_text(json.dumps(info, indent=1))
        doc = r.json()
        n0 = len(step.rows)
        if not isinstance(doc, dict):
            step.row("check 9: smcompat check --pid --json", "a smcompat.check/1 document", None,
                     False, "exit %d: %s" % (r.rc, r.stderr.strip()[-300:]))
        else:
            step.path("check.json").write_text(r.stdout)
            self.ran += 1
            self.check9_rows(info, doc, maps_text)
        for row in step.rows[n0:]:
            row["check"] = 9  # the rest of this step is check 8

    def check9_rows(self, info, doc, maps_text):
        step, g = self.step, self.gpu
        step.row("check 9: torch device name vs probe (GPU 0)", g.get("name"),
                 info.get("device_name"), info.get("device_name") == g.get("name")
                 if g.get("name") else None)
        step.row("check 9: torch capability vs probe (GPU 0)", g.get("cc"), info.get("capability"),
                 info.get("capability") == g.get("cc") if g.get("cc") else None)
        gcc = (doc.get("gpu") or {}).get("cc")
        step.row("check 9: the check's GPU capability vs torch's", gcc, info.get("capability"),
                 gcc == info.get("capability") if gcc else None)
        # /proc/PID/maps names files by their resolved path; compare resolved paths on every
        # side (a venv's lib64 -> lib link, a symlinked site-packages)
        mapped = set()
        for line in maps_text.splitlines():
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/"):
                mapped.add(os.path.realpath(parts[5].replace(" (deleted)", "")))
        libs = doc.get("libraries") or []
        listed = {os.path.realpath(lib["path"]) for lib in libs if lib.get("path")}
        missing = sorted(x for x in listed if x not in mapped)
        step.row("check 9: libraries the check lists are mapped (/proc/PID/maps)",
                 "%d libraries with device code" % len(listed),
                 "all mapped" if not missing else "not mapped: " + ", ".join(missing[:5]),
                 not missing if maps_text and listed else None,
                 "%d files mapped%s" % (len(mapped), "" if listed else
                                        "; the check lists no library: nothing to judge"))
        self.check9 = (mapped, listed)
        jit = [lib for lib in libs if lib.get("fit") == "ptx-jit"]
        if jit:
            step.row("check 9: libraries the check calls ptx-jit", "ptx-jit",
                     ", ".join(os.path.basename(lib["path"]) for lib in jit[:5]), None,
                     "the torch trace rows show what the driver did for these")
        else:
            step.note("check 9: no library in the torch process is ptx-jit on this GPU, so the "
                      "'ptx-jit library shows a JIT under trace' part has nothing to test here")

    # -- judging ---------------------------------------------------------------------------
    def merged_index(self):
        merged = ScanIndex()
        for ix in self.indexes.values():
            merged.files.update(ix.files)
            for k, v in ix.fp.items():
                merged.fp.setdefault(k, []).extend(v)
        return merged

    def judge(self):
        step = self.step
        merged = self.merged_index()
        scanned = ", ".join(sorted(self.indexes)) or "nothing"
        for name, (trace, records, ran_ok) in self.traces.items():
            summ = trace.get("summary") or {}
            status = trace.get("exit_status")
            step.row("%s: kernel ran under smcompat trace" % name,
                     "exit status 0, the kernel's result right", "exit status %s, %s" % (
                         status, "result right" if ran_ok else "no right result printed"),
                     (status == 0 and ran_ok) if "exit_status" in trace else None,
                     "loads by outcome: " + json.dumps(summ.get("loads_by_outcome"),
                                                       sort_keys=True))
            dis, nloads = summ.get("disagreements"), summ.get("loads")
            step.row("%s: driver vs smcompat's model of each loaded module (trace)" % name,
                     "0 disagreements", "%s disagreements in %s loads" % (dis, nloads),
                     None if dis is None or not nloads else dis == 0,
                     "trace's own prediction from the images offered vs BINARY_VERSION/"
                     "PTX_VERSION" + ("" if nloads else "; no load was recorded (the shim saw "
                                      "no module load): nothing to judge"))
            per_file, unattributed, ambiguous = attribute(trace, read_load_records(records),
                                                          merged)
            for key, pairs in sorted(per_file.items()):
                judged = [(p, o) for p, o in pairs if p is not None and o != "unknown"]
                f = merged.files.get(key, {})
                step.row("%s: %s" % (name, key.split("site-packages/")[-1]),
                         "file %s; loaded containers predicted: %s" % (
                             f.get("verdict"), counts(p or "?" for p, _ in pairs)),
                         counts(o for _, o in pairs),
                         all(p == o for p, o in judged) if judged else None,
                         "scan's unit verdict vs the driver's choice, %d load(s) matched by "
                         "their images%s" % (len(pairs), "" if len(judged) == len(pairs) else
                                             "; %d not judged (unknown outcome or no unit "
                                             "verdict)" % (len(pairs) - len(judged))))
            if unattributed:
                step.row("%s: modules from no scanned file (scanned: %s)" % (name, scanned), None,
                         counts(o for o, n in unattributed.items() for _ in range(n)), None,
                         "recorded, not judged: made at run time (NVRTC, XLA, Triton) or from "
                         "libraries outside the scanned directories")
            if ambiguous:
                step.note("%s: %d load(s) matched identical containers in several files" % (
                    name, ambiguous))
            step.shrink(records)
            step.shrink(step.path("trace-%s.json" % name))
        if self.check9 is not None and self.indexes:
            mapped, listed = self.check9
            with_code = set()
            for ix in self.indexes.values():
                with_code |= {v["path"] for v in ix.files.values()}
            real = {os.path.realpath(x) for x in with_code}
            expected = sorted(x for x in mapped if x in real)
            unlisted = [x for x in expected if x not in listed]
            step.row("check 9: mapped files with device code (per the scans) are listed",
                     "%d listed" % len(listed), "%d mapped files with device code%s" % (
                         len(expected), "; not listed: " + ", ".join(unlisted[:5]) if unlisted
                         else ""), not unlisted if expected else None,
                     "only files under the scanned directories (%s) can be judged%s" % (
                         scanned, "" if expected else "; none of them is mapped: nothing to "
                                                      "judge"),
                     check=9)


def main():
    step = Step("frameworks", "the machine's torch, CuPy and JAX: scan vs trace; check --pid",
                checks=[8, 9])
    budget = step.budget(BUDGET)
    reserve = 6  # seconds kept for judging and writing the result
    fw = Frameworks(step)
    if not any(n in fw.packages for n in ("torch", "cupy", "jax")):
        step.skip("no torch, CuPy or JAX installed for %s" % fw.py)
    if not fw.target:
        step.note("no catalog GPU from the machine step: scans judge for the probed GPU")

    def left():
        return step.left(budget) - reserve

    # torch first and its check-9 process, then CuPy and JAX, then the nvidia-* libraries
    # they share (the biggest scan, so it gets what is left)
    if fw.usable("torch"):
        fw.run("torch", min(35, left() * 0.5))
        if left() > 15:
            fw.check_pid(min(25, left() * 0.5))
        else:
            step.note("check 9: skipped, the step's %d s budget is used up" % budget)
    elif "torch" in fw.packages:
        step.note("check 9 (check --pid on a torch process): skipped, torch with CUDA is not "
                  "usable here")
    for name, share in (("cupy", 0.45), ("jax", 0.8)):
        if not fw.usable(name):
            continue
        if left() < 12:
            step.note("%s: skipped, the step's %d s budget is used up" % (name, budget))
            continue
        fw.run(name, left() * share)
    if fw.packages.get("nvidia") and fw.traces:
        if left() > 8:
            fw.scan("nvidia", fw.packages["nvidia"], left() - 2)
        else:
            step.note("the nvidia-* wheels' libraries were not scanned (no time left): their "
                      "loads count as from no scanned file")
    fw.judge()
    for r in step.rows:
        r.setdefault("check", 8)  # check_pid tagged its rows 9
    if fw.ran == 0:
        step.skip("no framework kernel could run here (see the notes)")
    if step.synthetic:
        # whatever ran, the driver under it was the fake: nothing here is evidence
        for r in step.rows:
            if r["agree"] is not None:
                r["agree"] = None
                r["note"] = "; ".join(x for x in (r["note"], "synthetic: not judged") if x)
    step.finish()


if __name__ == "__main__":
    main()
