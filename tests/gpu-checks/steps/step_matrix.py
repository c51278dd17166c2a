"""Step "matrix" (pending checks 2, 3 and 6): which image the driver chooses, predicted versus observed.

For every fatbin variant the kit carries (checks/fatbin, built by nvcc from one kernel), loaded
through cuModuleLoadData and cuLibraryLoadData under `smcompat trace`: the prediction is
`smcompat scan`'s verdict and chosen image for this GPU, the observation the driver's
(BINARY_VERSION/PTX_VERSION as trace classifies them) and whether the kernel computed the right
values. The same for the CUDA runtime (checks/rt: one shared library per variant, -rdc ones
included: check 6), lazy and eager; CUDA_FORCE_PTX_JIT=1; and --report-cc as the runtime and
torch see it (check 3).

Under the fake driver (--synthetic) the driver-API rows still compare: the fake chooses images by
the documented rules, so they test the step, not the rules. The runtime cannot start on the fake
(no export tables), and the fake runs no kernels: those rows are recorded with agree null.
"""

import json
from pathlib import Path

from kitlib import Step

step = Step("matrix", "image selection: fatbin variants through the driver API and the runtime", [2, 3, 6])
checks = step.kit / "checks"
kit_driver = str(checks / "kit_driver")
kit_rt = str(checks / "kit_rt")
FAILED = {"no-image", "unsupported-ptx"}
BUDGET = step.budget(100)


def scan(directory):
    """{file name: (verdict, chosen image target, [ptx targets that can JIT])} from smcompat scan."""
    r = step.run("scan-" + directory.name, [step.smcompat, "scan", str(directory), "--json"], timeout=60)
    doc = r.json()
    if not doc:
        step.note("scan of %s failed (exit %d): %s" % (directory, r.rc, r.stderr.strip()[:300]))
        return {}, None
    out = {}
    for f in doc.get("files", []):
        entries = f.get("entries", [])
        chosen = None
        for u in f.get("units", []):
            if u.get("chosen") is not None and u["chosen"] < len(entries):
                chosen = entries[u["chosen"]].get("target")
        jit = [e["target"] for e in entries if e.get("kind") == "ptx" and e.get("verdict") == "ptx-jit"]
        out[Path(f["path"]).name] = (f.get("verdict"), chosen, jit)
    return out, doc.get("target")


def trace(name, argv, env=None, extra=()):
    """Runs argv under smcompat trace; returns (trace document or None, the program's JSON lines,
    the run, the shim's raw records: the JIT link's cuLink* events are only there)."""
    report = step.path(name + ".trace.json")
    records = step.path(name + ".records.jsonl")
    r = step.run(name, [step.smcompat, "trace", "--json", "-o", str(report), "--records", str(records),
                        *extra, "--"] + argv, env=env, timeout=60)
    try:
        doc = json.loads(report.read_text())
    except (OSError, ValueError):
        doc = None
    events = []
    try:
        for line in records.read_text(errors="replace").splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
    except OSError:
        pass
    return doc, r.json_lines(), r, events


def observed_text(load):
    if not load:
        return "no load recorded"
    text = load.get("outcome", "?")
    if load.get("chosen"):
        text += " " + load["chosen"]
    if load.get("outcome") == "failed":
        first = load.get("first_use_error")
        if first:  # a library that loaded and failed at its first kernel lookup
            text += " (%s at %s)" % (first.get("error") or first.get("result"), first.get("api"))
        else:
            text += " (%s)" % load.get("error", load.get("result"))
    if load.get("from_outside"):
        text += " (code the container did not offer)"
    if load.get("jit_wall_ms") is not None and load.get("outcome") == "ptx-jit":
        text += ", JIT %.1f ms" % load["jit_wall_ms"]
    return text


def expected_outcome(verdict):
    return "failed" if verdict in FAILED else verdict


# -- the driver API --------------------------------------------------------------------------
fatbins, target = scan(checks / "fatbin")
if target:
    step.note("predicted for %s" % target.get("label"))
if not fatbins:
    step.fail("smcompat scan gave no prediction for checks/fatbin")

for name in sorted(fatbins):
    verdict, chosen, _ = fatbins[name]
    for api in ("module", "library"):
        doc, lines, r, events = trace("%s-%s" % (Path(name).stem, api), [kit_driver, api, str(checks / "fatbin" / name)])
        loads = (doc or {}).get("loads", [])
        load = loads[0] if loads else None
        line = lines[0] if lines else {}
        outcome = load.get("outcome") if load else None
        agree = outcome == expected_outcome(verdict) and (outcome == "failed" or load.get("chosen") == chosen)
        note = []
        if load and load.get("disagrees"):
            note.append("trace marks it DISAGREES")
        ran = line.get("verified")
        if outcome not in (None, "failed"):
            if step.synthetic:
                note.append("the fake driver runs no kernels: output not checked")
            elif not ran:
                agree = False
                note.append("kernel output wrong or launch failed: %s" % line.get("launch"))
            else:
                note.append("output verified")
        if load:
            note.append("load %.1f ms, first use %.1f ms" % (load.get("load_ms") or 0, load.get("first_use_ms") or 0))
        step.row("%s via %s" % (name, "cuModuleLoadData" if api == "module" else "cuLibraryLoadData"),
                 ("%s %s" % (verdict, chosen or "")).strip(), observed_text(load), agree, "; ".join(note))

# CUDA_FORCE_PTX_JIT=1: the driver ignores SASS and JIT-compiles PTX; without usable PTX the load
# fails (compatibility-rules.md §7).
for name in ("sm90.fatbin", "sm90_ptx80.fatbin", "sm90a_ptx90.fatbin", "sm80_ptx80.fatbin", "ptx90a.fatbin"):
    if name not in fatbins:
        continue
    verdict, chosen, jit = fatbins[name]
    expected = "ptx-jit" if jit else "failed"
    doc, lines, r, events = trace(Path(name).stem + "-forcejit", [kit_driver, "module", str(checks / "fatbin" / name)],
                          env={"CUDA_FORCE_PTX_JIT": "1"})
    loads = (doc or {}).get("loads", [])
    load = loads[0] if loads else None
    outcome = load.get("outcome") if load else None
    agree = outcome == expected
    note = "JIT from %s" % ", ".join(jit) if jit else "no PTX the GPU can JIT"
    if step.synthetic:
        agree, note = None, note + "; the fake driver ignores CUDA_FORCE_PTX_JIT"
    step.row("%s with CUDA_FORCE_PTX_JIT=1" % name, expected, observed_text(load), agree, note)

# -- the CUDA runtime ------------------------------------------------------------------------
rt_libs, _ = scan(checks / "rt")
runtime_apis = set()
skipped = []
for name in sorted(n for n in rt_libs if n.startswith("librt_")):
    verdict, chosen, _ = rt_libs[name]
    # Eager loading moves a JIT from the first launch to the load: compared where there is one.
    for loading in ("LAZY", "EAGER") if verdict == "ptx-jit" else ("LAZY",):
        if step.left(BUDGET) < 12:  # every process opens a context: keep time for the rest
            skipped.append("%s (%s)" % (name, loading))
            continue
        doc, lines, r, events = trace("%s-%s" % (Path(name).stem, loading.lower()), [kit_rt, str(checks / "rt" / name)],
                              env={"CUDA_MODULE_LOADING": loading})
        loads = (doc or {}).get("loads", [])
        line = lines[0] if lines else {}
        ok = line.get("rc") == 0
        # The variant's fatbin is the load that offers images; -rdc libraries may add a JIT link.
        load = next((l for l in loads if l.get("images")), loads[0] if loads else None)
        for l in loads:
            runtime_apis.add(l.get("api"))
        links = [e for e in events if e.get("ev") == "link_complete"]
        obs = observed_text(load)
        if links:
            obs += "; JIT link (%d cuLinkComplete)" % len(links)
        obs += "; kernel: %s" % (line.get("message") or line.get("error") or "did not run")
        jit_linked = name.startswith("librt_rdc_") and verdict == "ptx-jit"
        if step.synthetic:
            agree, note = None, "the CUDA runtime cannot start on the fake driver (no export tables)"
        elif verdict in FAILED:
            agree, note = not ok, "a kernel with no image must not run"
        elif jit_linked:
            # scan predicts the runtime's JIT link of the pre-link code (docs/scan.md): the kernel
            # must run, JIT-compiled from code the device-linked container did not offer. The CUDA
            # 13 runtime hands the link to the driver inside cuLibraryLoadData (observed on an
            # H200, driver 580: no cuLink* call); older runtimes call cuLinkComplete.
            linked = bool(links) or bool(load and load.get("outcome") == "ptx-jit" and load.get("from_outside"))
            agree, note = ok and linked, "predicted: the runtime JIT-links the -rdc pre-link code"
        else:
            agree = ok and (load is None or load.get("outcome") == verdict)
            note = "" if load else "the shim saw no load: only the kernel's result is compared"
        if load:
            note += ("; " if note else "") + "load %.1f ms, first use %.1f ms, run %.1f ms" % (
                load.get("load_ms") or 0, load.get("first_use_ms") or 0, line.get("run_ms") or 0)
        step.row("%s (runtime, %s)" % (name, loading), "%s %s" % (verdict, chosen or ""), obs, agree, note)
if skipped:
    step.note("not run within the step's %d s: %s" % (BUDGET, ", ".join(skipped)))
step.row("API the runtime registers fatbins with", "cuLibraryLoadData (driver-api.md §9, unverified)",
         ", ".join(sorted(a for a in runtime_apis if a)) or "no load recorded", None,
         "an observation: settles the open question")

# -- --report-cc: what the runtime and torch report ----------------------------------------------
rt_sm90 = checks / "rt" / "librt_sm90.so"
doc, lines, r, events = trace("report-cc-runtime", [kit_rt, str(rt_sm90), "cc"], extra=("--report-cc", "12.0"))
line = lines[0] if lines else {}
seen = "%s.%s" % (line.get("major"), line.get("minor")) if line.get("rc") == 0 else (line.get("name") or r.stderr[-200:])
queries = (doc or {}).get("cc_queries", [])
step.row("cudaGetDeviceProperties under --report-cc 12.0",
         "12.0 if the runtime reads the capability through cuDeviceGetAttribute (unverified)", seen,
         None, "observation; %d cc queries seen by the shim" % len(queries))
torch_prog = "import torch; print(torch.cuda.get_device_capability(0))"
m = step.machine()
if m.get("torch") and not step.synthetic:
    doc, lines, r, events = trace("report-cc-torch", ["python3", "-c", torch_prog], extra=("--report-cc", "12.0"))
    step.row("torch.cuda.get_device_capability under --report-cc 12.0", "(12, 0) if torch's runtime honours it",
             r.stdout.strip()[-100:] or r.stderr.strip()[-200:], None, "observation")
else:
    step.note("torch not importable with CUDA here: --report-cc as torch sees it not checked")

step.finish()
