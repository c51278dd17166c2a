# Walks the torch script's CUDA code paths on a machine without a GPU: torch.cuda is faked (an
# "H100" with events timed by the host clock, a counted _sleep, no-op synchronize) and the
# script's two seams put the rows' tensors on the CPU at the testing aid's tiny sizes. This does
# not measure anything; it catches what only a GPU run would otherwise reveal: a misspelt name, a
# wrong call in a CUDA-only branch, a document field the CUDA path forgets. Runs under the corpus
# venv's python ($SMCOMPAT_CORPUS/venvs/torch); exit 77 (skip) without it.
# Usage: fake_cuda_run.py SOURCE_DIR  (re-executes itself under the venv's python)
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
import types

source_dir = sys.argv[1]
if len(sys.argv) == 2:  # the launcher: find the venv and run the check there
    corpus = os.environ.get("SMCOMPAT_CORPUS") or os.path.join(
        os.environ.get("HOME", "/root"), ".cache/smcompat-corpus")
    sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
    from corpus_venv import interpreter_skip_reason
    why = interpreter_skip_reason(os.path.join(corpus, "venvs", "torch"))
    if why:
        print("SKIP: " + why)
        sys.exit(77)
    python = os.path.join(corpus, "venvs/torch/bin/python")
    sys.exit(subprocess.run([python, __file__, source_dir, "--in-venv"], timeout=240).returncode)

import torch  # noqa: E402

spec = importlib.util.spec_from_file_location("torch_bench",
                                              os.path.join(source_dir, "data/bench/torch_bench.py"))
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)


class FakeEvent:
    def __init__(self, enable_timing: bool = False) -> None:
        self.t = 0.0

    def record(self, stream=None) -> None:
        self.t = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end: "FakeEvent") -> float:
        return (end.t - self.t) * 1e3


props = types.SimpleNamespace(name="NVIDIA H100 80GB HBM3", major=9, minor=0,
                              L2_cache_size=1 << 20, clock_rate=1980000,
                              uuid="58a5c1e0-1111-2222-3333-444455556666")
sleeps = []
fake = {
    "is_available": lambda: True, "device_count": lambda: 1, "set_device": lambda i: None,
    "get_device_properties": lambda d=None: props, "get_device_capability": lambda d=None: (9, 0),
    "synchronize": lambda d=None: None, "Event": FakeEvent, "_sleep": sleeps.append,
    "empty_cache": lambda: None,
}
for name, f in fake.items():
    setattr(torch.cuda, name, f)
torch.backends.cudnn.version = lambda: 91002


class FakeNvmlLib:
    """libnvidia-ml as CtypesNvml calls it: out-parameters are ctypes pointers. Every third
    clocks-event query reports sw_power_cap, so some samples are flagged as throttled."""

    def __init__(self) -> None:
        self.queries = 0

    def nvmlInit_v2(self) -> int:
        return 0

    def nvmlDeviceGetHandleByUUID(self, uuid: bytes, out) -> int:
        if uuid != b"GPU-" + props.uuid.encode():
            return 13  # NVML_ERROR_NOT_FOUND
        out.contents.value = 0x1234
        return 0

    def nvmlSystemGetDriverVersion(self, buf, length) -> int:
        buf.value = b"580.95.05"
        return 0

    def nvmlDeviceGetClockInfo(self, h, kind, out) -> int:
        out.contents.value = 1980 if kind.value == 1 else 2619
        return 0 if h.value == 0x1234 else 999

    def nvmlDeviceGetTemperature(self, h, sensor, out) -> int:
        out.contents.value = 45
        return 0

    def nvmlDeviceGetPowerUsage(self, h, out) -> int:
        out.contents.value = 350000
        return 0

    def nvmlDeviceGetCurrentClocksEventReasons(self, h, out) -> int:
        self.queries += 1
        out.contents.value = 0x4 if self.queries % 3 == 0 else 0x1
        return 0


tb.load_nvml_library = FakeNvmlLib
tb.tensor_device = lambda args: "cpu"
tb.tiny_sizes = lambda args: True

rows = "gemm,gemm_batched,conv2d_depthwise,sdpa,layernorm"  # the rest share these code paths
out = io.StringIO()
real_stdout = sys.stdout
sys.stdout = out
try:
    rc = tb.main(["--device", "cuda", "--quick", "--rows", rows, "--min-samples", "2",
                  "--min-time", "0.0001", "--timeout", "0.05"])
finally:
    sys.stdout = real_stdout
doc = json.loads(out.getvalue())
failures = []


def check(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)


check(rc == 0, f"exit status {rc}")
check(doc["method"]["blocking_kernel"] is True and doc["method"]["l2_flush"] is True,
      f"method {doc['method']}")
d = doc["devices"][0]
check(d["name"] == "NVIDIA H100 80GB HBM3" and d["cc"] == "9.0", f"device {d}")
check(d["uuid"] == "GPU-58a5c1e0-1111-2222-3333-444455556666", f"uuid {d['uuid']}")
check(doc["libraries"].get("cudnn") == "9.10.2", f"libraries {doc['libraries']}")
check(not any("NVML" in w for w in doc["warnings"]), f"warnings {doc['warnings']}")
check(doc["driver_version"] == "580.95.05", f"driver {doc['driver_version']}")
check(doc["libraries"].get("nvml") == "libnvidia-ml (ctypes)", f"libraries {doc['libraries']}")
check(d["state_at_start"] is not None and d["state_at_start"]["sm_clock_mhz"] == 1980
      and d["state_at_start"]["memory_clock_mhz"] == 2619
      and d["state_at_start"]["power_w"] == 350.0 and d["state_at_start"]["temperature_c"] == 45,
      f"state_at_start {d['state_at_start']}")
measured = [r for r in doc["results"] if r["value"] is not None]
check(all(r["state"] is not None for r in measured), "a measured row without a state")
check(any(r["time"]["throttled"] > 0 for r in measured), "no sample flagged as throttled")
check(len(sleeps) > 0 and all(isinstance(c, int) and c > 0 for c in sleeps),
      f"_sleep calls {sleeps[:3]}")
bugs = ("NameError", "AttributeError", "UnboundLocalError", "KeyError", "TypeError",
        "ValueError", "IndexError")
kinds = set()
for r in doc["results"]:
    kinds.add(r["suite"])
    check(r["value"] is not None or r["skip_reason"], f"{r['name']}: no value, no reason")
    check(not r["skip_reason"].startswith(bugs), f"{r['suite']} {r['name']}: {r['skip_reason']}")
    if r["suite"] in ("torch.gemm", "torch.gemm_batched") and r["params"]["dtype"] == "tf32":
        check(r["value"] is not None, f"tf32 on 'cuda' skipped: {r['skip_reason']}")
check(kinds == {"torch." + k for k in rows.split(",")}, f"kinds {sorted(kinds)}")
skips = [f"{r['suite']} {r['name']}: {r['skip_reason']}"
         for r in doc["results"] if r["skip_reason"]]
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(doc['results'])} rows through the CUDA paths, {len(sleeps)} blocking spins; "
      f"skips: {skips or 'none'}")
