#!/usr/bin/env python3
"""Step "machine" (check 1, runs first): what this machine is, for every later step.

Writes <work>/machine.json:
  {"gpus": [{"index", "name", "catalog_name", "cc", "uuid", "pci_bus_id"}], "driver",
   "cuda_driver", "nvcc", "python", "torch", "cupy", "jax", "nvidia_smi", "synthetic", ...}
plus a few fields the other steps use (python_exe, the framework package directories, the torch
CUDA build), rewritten after every phase so that a step stopped by its time limit still leaves
what it found. Every row is a recorded observation (agree null): nothing is compared here.
nvidia-smi's -q -x and topo -m are run (and kept) by the probe step, not here.
"""

import json
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kitlib import Step, last_json, python_exe  # noqa: E402

BUDGET = 30  # seconds, unless $GPU_CHECKS_BUDGET_S says otherwise (scripts/gpu-checks.sh)

# What issue 25 recorded of the lent machines: shown beside what is found, never compared.
EXPECTED = {
    "driver": "580.x (CUDA 13.0)", "nvcc": "13.0", "python": "3.12",
    "torch": "2.11 (cu130)", "cupy": "installed", "jax": "installed", "nvidia_smi": "present",
}

# Locates the framework packages without importing them (find_spec reads no module code) and
# reads their versions from the installed metadata.
LOCATE = r'''
import importlib.util, importlib.metadata as md, json, os, sys
out = {"python": sys.version.split()[0], "executable": sys.executable, "packages": {},
       "versions": {}, "nvidia_dirs": []}
for name in ("torch", "cupy", "cupy_backends", "jax", "jaxlib", "jax_plugins", "nvidia"):
    try:
        spec = importlib.util.find_spec(name)
    except Exception as e:
        spec = None
    if spec is None:
        continue
    locs = list(spec.submodule_search_locations or [])
    if not locs and spec.origin:
        locs = [os.path.dirname(spec.origin)]
    out["packages"][name] = locs
for dist in ("torch", "cupy", "cupy-cuda13x", "cupy-cuda12x", "jax", "jaxlib",
             "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin", "jax-cuda12-pjrt",
             "torchvision", "triton"):
    try:
        out["versions"][dist] = md.version(dist)
    except Exception:
        pass
print(json.dumps(out))
'''

# Each framework imported in its own process (an import that hangs or crashes costs only itself).
IMPORTS = {
    "torch": r'''
import json, torch
d = {"version": torch.__version__, "cuda": torch.version.cuda}
try:
    d["cuda_available"] = bool(torch.cuda.is_available())
except Exception as e:
    d["cuda_available"], d["cuda_error"] = False, "%s: %s" % (type(e).__name__, e)
try:
    d["device_count"] = torch.cuda.device_count()
except Exception as e:
    d["device_count"] = None
print(json.dumps(d))
''',
    "cupy": r'''
import json, cupy
d = {"version": cupy.__version__}
try:
    d["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
except Exception as e:
    d["cuda_error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(d))
''',
    # Only the version: listing devices would start a backend (and JAX preallocates memory).
    "jax": r'''
import json, jax
d = {"version": jax.__version__}
try:
    from jaxlib import version as jaxlib_version  # `import jaxlib` alone does not load it
    d["jaxlib"] = jaxlib_version.__version__
except Exception:
    pass
print(json.dumps(d))
''',
}


def cuda_version_text(v):
    return "%d.%d" % (v // 1000, (v % 1000) // 10) if isinstance(v, int) and v > 0 else None


def main():
    step = Step("machine", "what this machine is: GPUs, driver, toolkit, Python frameworks",
                checks=[1])
    budget = step.budget(BUDGET)
    py = python_exe()
    m = {"gpus": [], "driver": None, "cuda_driver": None, "nvcc": None, "python": None,
         "torch": None, "cupy": None, "jax": None, "nvidia_smi": False,
         "synthetic": step.synthetic, "python_exe": py, "probe_status": None, "hostname": None,
         "kernel_module": None, "torch_cuda": None, "torch_cuda_available": None,
         "packages": {}, "versions": {}, "imports": {}}
    path = step.work / "machine.json"

    def save():
        # Written after every phase, not only at the end: the later steps read it, and a step
        # stopped by its time limit (SIGTERM) or crashing keeps what it found so far.
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(m, indent=1))
        tmp.replace(path)

    def limit(most, keep=2):
        """A command's timeout: at most `most` s and never past the step's budget."""
        return max(1, min(most, step.left(budget) - keep))

    save()
    # smcompat's own view first: the other steps key on its catalog names.
    r = step.run("probe", [step.smcompat, "probe", "--json"], timeout=limit(20))
    probe = r.json()
    if isinstance(probe, dict):
        step.path("probe.json").write_text(r.stdout)
        m["probe_status"] = probe.get("status")
        m["hostname"] = probe.get("hostname")
        m["driver"] = probe.get("driver_version")
        m["cuda_driver"] = cuda_version_text(probe.get("cuda_driver_version"))
        m["kernel_module"] = probe.get("kernel_module")
        for d in probe.get("devices") or []:
            m["gpus"].append({"index": d.get("ordinal"), "name": d.get("name"),
                              "catalog_name": d.get("catalog_gpu"), "cc": d.get("cc"),
                              "uuid": d.get("uuid"), "pci_bus_id": d.get("pci_bus_id"),
                              "nvml_index": d.get("nvml_index"), "nvml_cc": d.get("nvml_cc")})
        step.row("smcompat probe status", None,
                 "%s (%d GPU)" % (probe.get("status"), len(m["gpus"])),
                 note=(probe.get("explanation") or "")[:300])
    else:
        step.row("smcompat probe status", None, None,
                 note="probe --json gave no JSON (exit %d): %s" % (r.rc, r.stderr.strip()[:300]))
    for g in m["gpus"]:
        step.row("GPU %s" % g["index"], None,
                 "%s · catalog %s · CC %s · %s · %s" % (g["name"], g["catalog_name"], g["cc"],
                                                         g["uuid"], g["pci_bus_id"]))
    step.row("driver", EXPECTED["driver"], "%s (CUDA %s, %s kernel module)" % (
        m["driver"], m["cuda_driver"], m["kernel_module"]) if m["driver"] else None)
    save()

    # Python: where the frameworks are, without importing them (the later steps need this most).
    r = step.run("python-locate", [py, step.script("locate.py", LOCATE)], timeout=limit(15))
    loc = last_json(r.stdout)
    if loc:
        m["python"] = loc.get("python")
        m["python_exe"] = loc.get("executable") or py
        m["packages"] = loc.get("packages") or {}
        m["versions"] = loc.get("versions") or {}
    step.row("python", EXPECTED["python"],
             m["python"] and "%s (%s)" % (m["python"], m["python_exe"]),
             note="" if loc else "the interpreter did not answer (%s)" % (
                 "timed out" if r.timed_out else "exit %d" % r.rc))
    save()

    # One import each, in its own process (an import that hangs or crashes costs only itself);
    # torch first: bench and frameworks decide on torch.cuda.is_available(). Importing torch
    # takes seconds and its first CUDA call initialises the driver (seconds more).
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "TF_CPP_MIN_LOG_LEVEL": "2"}
    for name, code in IMPORTS.items():
        if name not in m["packages"]:
            step.row(name, EXPECTED[name], None, note="not installed for %s" % m["python_exe"])
            continue
        if step.left(budget) - 8 < 5:
            step.row(name, EXPECTED[name], None,
                     note="not imported: the step's %d s budget is used up" % budget)
            continue
        r = step.run("import-" + name, [m["python_exe"],
                                        step.script("import_%s.py" % name, code)],
                     env=env, timeout=limit(25 if name == "torch" else 15, keep=8))
        info = last_json(r.stdout)
        if info is None:
            why = "timed out after %.0f s" % r.seconds if r.timed_out else "exit %d: %s" % (
                r.rc, (r.stderr.strip().splitlines() or [""])[-1][:200])
            m["imports"][name] = {"error": why, "timed_out": r.timed_out,
                                  "seconds": round(r.seconds, 1)}
            step.row(name, EXPECTED[name], None, note="installed but the import failed (%s)" % why)
            save()
            continue
        m["imports"][name] = info
        m[name] = info.get("version")
        text = info.get("version")
        if name == "torch":
            m["torch_cuda"] = info.get("cuda")
            m["torch_cuda_available"] = info.get("cuda_available")
            text = "%s (CUDA %s; torch.cuda.is_available() = %s, %s device(s))" % (
                text, info.get("cuda"), info.get("cuda_available"), info.get("device_count"))
        elif name == "jax" and info.get("jaxlib"):
            text = "%s (jaxlib %s)" % (text, info["jaxlib"])
        step.row(name, EXPECTED[name], text, note=info.get("cuda_error", ""))
        save()

    # nvcc (PATH, else the usual toolkit place).
    nvcc = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",)
                                         if Path(p).exists()), None)
    if nvcc and step.left(budget) > 4:
        v = step.run("nvcc-version", [nvcc, "--version"], timeout=limit(10))
        mm = re.search(r"release ([\d.]+), V([\d.]+)", v.stdout)
        m["nvcc"] = mm.group(2) if mm else (v.stdout.strip().splitlines() or [None])[-1]
        m["nvcc_path"] = nvcc
    step.row("nvcc", EXPECTED["nvcc"], m["nvcc"] and "%s (%s)" % (m["nvcc"], nvcc),
             note="" if nvcc else "not found on PATH or in /usr/local/cuda/bin")

    # nvidia-smi: its presence decides which oracles the later steps have. Only its version
    # here: the probe step runs -q -x, topo -m and --query-gpu itself (and keeps their output),
    # and each nvidia-smi run initialises NVML again (seconds without persistence mode).
    smi = shutil.which("nvidia-smi")
    m["nvidia_smi"] = bool(smi)
    if smi:
        m["nvidia_smi_path"] = smi
        first = ""
        if step.left(budget) > 4:
            v = step.run("nvidia-smi-version", [smi, "--version"], timeout=limit(10))
            m["nvidia_smi_version"] = v.stdout.strip() or None
            first = (v.stdout.strip().splitlines() or [""])[0]
        step.row("nvidia-smi", EXPECTED["nvidia_smi"], "%s (%s)" % (smi, first))
    else:
        step.row("nvidia-smi", EXPECTED["nvidia_smi"], None,
                 note="not on PATH: the probe, prometheus and fleet comparisons have no "
                      "nvidia-smi oracle here")
    save()
    step.note("machine.json: %d GPU(s), driver %s, nvidia-smi %s" % (
        len(m["gpus"]), m["driver"], "present" if m["nvidia_smi"] else "absent"))
    if step.synthetic:
        step.note("synthetic: the GPUs above are served by the test suite's fake driver")
    step.finish()


if __name__ == "__main__":
    main()
