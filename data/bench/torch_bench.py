# The PyTorch view of `smcompat bench` (`smcompat bench --torch`): times the row kinds of the
# published RTX 5090 table (GEMM per precision, batched GEMM, conv2d, depthwise conv, SDPA, linear,
# LayerNorm, softmax, ResNet-50 inference, a transformer encoder, torch.compile) with the method of
# the native suites and prints one `smcompat.bench/1` document (docs/json-schema.md) on stdout.
#
# Shipped inside the smcompat binary and fed to `python -` on stdin; it imports only torch (and
# torchvision for ResNet-50, random weights), never user code. Progress goes to stderr.
#
# Method (as the native suites, after NVIDIA/nvbench): CUDA events; a spin kernel
# (torch.cuda._sleep) holds the stream while the timed work is queued, so launch queueing is not
# timed; warm-up; before each sample the L2 is flushed by writing a buffer of 2x the L2 size that is
# allocated once; samples until the relative standard deviation is <= --max-rel-stddev with at
# least --min-samples samples and --min-time seconds measured, or --timeout seconds of wall time.
# NVML readings (clocks, temperature, power, throttle reasons) come from pynvml when it is
# installed, else from the driver's libnvidia-ml through ctypes, else they are null; samples taken
# while the GPU throttles are flagged and left out of the summary when enough clean ones remain.
#
# `--device cpu` is a testing aid only: tiny sizes, wall-clock timing, no flush. Its figures are
# NOT a benchmark of anything; it exists so that the control flow and the output can be tested on
# a machine without a GPU.
#
# Exit status: 0 document printed; 2 no CUDA device (and no --device cpu); 3 torch cannot be
# imported; 64 bad arguments.
from __future__ import annotations

import argparse
import ctypes
import datetime
import gc
import json
import math
import os
import platform
import socket
import sys
import time
from typing import Any, Callable, Optional

SCHEMA = "smcompat.bench/1"

ROW_KINDS: dict[str, str] = {
    "gemm": "square GEMM per precision (fp32 with TF32 off, tf32, fp16, bf16, fp64, fp8 e4m3 "
            "via torch._scaled_mm), 1024..16384; TFLOPS = 2mnk / time",
    "gemm_batched": "batched GEMM 32 x 1024^3 (fp16, bf16, tf32); TFLOPS",
    "conv2d": "torch.nn.functional.conv2d, fp16, several shapes; ms",
    "conv2d_depthwise": "depthwise conv2d (groups = channels), fp16; ms",
    "sdpa": "torch.nn.functional.scaled_dot_product_attention, fp16, several shapes; ms",
    "linear": "torch.nn.functional.linear [32,128,4096] -> 4096, fp16; ms",
    "layernorm": "torch.nn.functional.layer_norm [32,512,4096], fp16; ms",
    "softmax": "torch.softmax [8,32,2048,2048] over the last dim, fp16; ms",
    "resnet50": "torchvision ResNet-50 (random weights) inference, fp16, batch 64; img/s",
    "transformer": "nn.TransformerEncoder, 6 layers, d=1024, 16 heads, fp16, B=8 S=128; ms",
    "compile": "ResNet-50 batch 1, eager vs torch.compile(mode='reduce-overhead'); ms",
}

# NVML throttle ("clocks event") reason bits and the names the schema uses. Idle and
# application-clock bits are not throttling and are left out.
THROTTLE_BITS: list[tuple[int, str]] = [
    (0x4, "sw_power_cap"), (0x8, "hw_slowdown"), (0x10, "sync_boost"), (0x20, "sw_thermal"),
    (0x40, "hw_thermal"), (0x80, "hw_power_brake"), (0x100, "display_clock")]
THROTTLING = {"sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"}


def exception_text(e: BaseException) -> str:
    """"OutOfMemoryError: CUDA out of memory..." - the type and the first line of the message."""
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def log(msg: str) -> None:
    print(f"[torch-bench] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Statistics: the same summary and stopping rule as src/bench/stats.cpp.

class StopRule:
    def __init__(self, args: argparse.Namespace) -> None:
        self.min_samples: int = args.min_samples
        self.min_time_s: float = args.min_time
        self.max_rel_stddev: float = args.max_rel_stddev
        self.timeout_s: float = args.timeout
        self.max_samples: int = args.max_samples


def summarize(samples: list[float]) -> dict[str, Any]:
    n = len(samples)
    s: dict[str, Any] = {"samples": n, "throttled": 0, "mean_s": 0.0, "median_s": 0.0,
                         "min_s": 0.0, "max_s": 0.0, "stddev_s": 0.0, "rel_stddev": 0.0,
                         "total_s": 0.0, "stop": "converged"}
    if n == 0:
        return s
    xs = sorted(samples)
    s["min_s"], s["max_s"] = xs[0], xs[-1]
    s["median_s"] = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    s["total_s"] = sum(xs)
    mean = s["total_s"] / n
    s["mean_s"] = mean
    if n > 1:
        s["stddev_s"] = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    s["rel_stddev"] = s["stddev_s"] / mean if mean > 0 else 0.0
    return s


class Sampler:
    def __init__(self, rule: StopRule) -> None:
        self.rule = rule
        self.samples: list[float] = []
        self.throttled: list[bool] = []
        self.reason = "timeout"

    def add(self, sample_s: float, throttled: bool) -> None:
        self.samples.append(sample_s)
        self.throttled.append(throttled)

    def summary(self) -> dict[str, Any]:
        clean = [x for x, t in zip(self.samples, self.throttled) if not t]
        n_throttled = len(self.samples) - len(clean)
        drop = n_throttled > 0 and len(clean) >= self.rule.min_samples
        s = summarize(clean if drop else self.samples)
        s["throttled"] = n_throttled
        if drop:
            s["total_s"] = sum(self.samples)
        s["stop"] = self.reason
        return s

    def done(self, wall_elapsed_s: float) -> bool:
        if len(self.samples) >= self.rule.max_samples:
            self.reason = "max_samples"
            return True
        s = self.summary()
        if (len(self.samples) >= self.rule.min_samples and s["total_s"] >= self.rule.min_time_s
                and s["rel_stddev"] <= self.rule.max_rel_stddev):
            self.reason = "converged"
            return True
        if wall_elapsed_s >= self.rule.timeout_s:
            self.reason = "timeout"
            return True
        return False


# ---------------------------------------------------------------------------------------------
# NVML (optional).

class NvmlError(Exception):
    pass


def load_nvml_library() -> Any:
    """libnvidia-ml.so.1 (the driver's); a seam tests/bench/torch/fake_cuda_run.py replaces."""
    return ctypes.CDLL("libnvidia-ml.so.1")


class CtypesNvml:
    """The few pynvml calls the script makes, over libnvidia-ml through ctypes, for when pynvml
    is not installed. Each call raises NvmlError on a non-zero nvmlReturn_t, as pynvml does."""

    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2
    NVML_TEMPERATURE_GPU = 0

    def __init__(self, lib: Any) -> None:
        self.lib = lib

    def _call(self, name: str, *args: Any) -> None:
        rc = getattr(self.lib, name)(*args)  # AttributeError: an older library without it
        if rc != 0:
            raise NvmlError(f"{name}: nvmlReturn_t {rc}")

    def _out(self, name: str, ctype: Any, *args: Any) -> Any:
        p = ctypes.pointer(ctype())
        self._call(name, *args, p)
        return p.contents.value

    def nvmlInit(self) -> None:
        self._call("nvmlInit_v2")

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> Any:
        return self._out("nvmlDeviceGetHandleByUUID", ctypes.c_void_p, uuid.encode())

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        return self._out("nvmlDeviceGetHandleByIndex_v2", ctypes.c_void_p, ctypes.c_uint(index))

    def nvmlSystemGetDriverVersion(self) -> str:
        buf = ctypes.create_string_buffer(96)
        self._call("nvmlSystemGetDriverVersion", buf, ctypes.c_uint(96))
        return buf.value.decode(errors="replace")

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: Any) -> int:
        return self._out("nvmlDeviceGetCurrentClocksEventReasons", ctypes.c_ulonglong,
                         ctypes.c_void_p(h))

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: Any) -> int:
        return self._out("nvmlDeviceGetCurrentClocksThrottleReasons", ctypes.c_ulonglong,
                         ctypes.c_void_p(h))

    def nvmlDeviceGetPowerUsage(self, h: Any) -> int:
        return self._out("nvmlDeviceGetPowerUsage", ctypes.c_uint, ctypes.c_void_p(h))

    def nvmlDeviceGetClockInfo(self, h: Any, kind: int) -> int:
        return self._out("nvmlDeviceGetClockInfo", ctypes.c_uint, ctypes.c_void_p(h),
                         ctypes.c_int(kind))

    def nvmlDeviceGetTemperature(self, h: Any, sensor: int) -> int:
        return self._out("nvmlDeviceGetTemperature", ctypes.c_uint, ctypes.c_void_p(h),
                         ctypes.c_int(sensor))


class Nvml:
    """NVML readings through pynvml when installed, else libnvidia-ml via ctypes; every reading
    is None when neither works."""

    def __init__(self, ordinal: int, uuid: str, enabled: bool) -> None:
        self.nv: Any = None
        self.handle: Any = None
        self.backend = ""
        if not enabled:
            return
        try:
            try:
                import pynvml  # type: ignore
                nv: Any = pynvml
                self.backend = "pynvml"
            except ImportError:
                nv = CtypesNvml(load_nvml_library())
                self.backend = "libnvidia-ml (ctypes)"
            nv.nvmlInit()
            # NVML numbers devices by PCI bus and ignores CUDA_VISIBLE_DEVICES; CUDA may not:
            # match by UUID when torch gives one.
            if uuid:
                self.handle = nv.nvmlDeviceGetHandleByUUID(uuid)
            else:
                self.handle = nv.nvmlDeviceGetHandleByIndex(ordinal)
            self.nv = nv
        except Exception as e:  # noqa: BLE001 - NVML is optional
            log(f"NVML readings unavailable ({type(e).__name__}: {e})")
            self.backend = ""

    def available(self) -> bool:
        return self.nv is not None

    def driver_version(self) -> Optional[str]:
        if self.nv is None:
            return None
        try:
            v = self.nv.nvmlSystemGetDriverVersion()
            return v.decode() if isinstance(v, bytes) else str(v)
        except Exception:  # noqa: BLE001
            return None

    def throttle_reasons(self) -> list[str]:
        if self.nv is None:
            return []
        bits = None
        for f in ("nvmlDeviceGetCurrentClocksEventReasons",
                  "nvmlDeviceGetCurrentClocksThrottleReasons"):
            try:
                bits = getattr(self.nv, f)(self.handle)
                break
            except Exception:  # noqa: BLE001 - older or newer pynvml, or not supported
                continue
        if bits is None:
            return []
        return [name for bit, name in THROTTLE_BITS if bits & bit]

    def state(self) -> Optional[dict[str, Any]]:
        if self.nv is None:
            return None
        nv, h = self.nv, self.handle

        def read(f: Callable[[], Any]) -> Any:
            try:
                return f()
            except Exception:  # noqa: BLE001
                return None

        power_mw = read(lambda: nv.nvmlDeviceGetPowerUsage(h))
        return {
            "sm_clock_mhz": read(lambda: int(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM))),
            "memory_clock_mhz": read(lambda: int(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM))),
            "temperature_c": read(
                lambda: int(nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU))),
            "power_w": power_mw / 1000.0 if power_mw is not None else None,
            "throttle_reasons": self.throttle_reasons(),
        }


# ---------------------------------------------------------------------------------------------
# Timing.

class Timer:
    """Times one callable by the method; one per run (the flush buffer is allocated once)."""

    def __init__(self, torch: Any, device: str, rule: StopRule, nvml: Nvml, cuda: bool) -> None:
        self.torch = torch
        self.device = device
        self.rule = rule
        self.nvml = nvml
        self.cuda = cuda
        self.flush_buf: Any = None
        self.blocking = self.cuda and hasattr(torch.cuda, "_sleep")
        self.cycles_per_s = 2.0e9
        if self.cuda:
            props = torch.cuda.get_device_properties(device)
            l2 = int(getattr(props, "L2_cache_size", 0) or 0) or 64 * 1024 * 1024
            # Two times the L2, in 4-byte words; allocated once (nvbench #100).
            self.flush_buf = torch.empty(2 * l2 // 4, dtype=torch.int32, device=device)
            # The spin is counted in GPU cycles. clock_rate is in kHz; a longer spin only costs
            # wall time, a short one lets queueing into the timing, so never assume < 2 GHz.
            rate_khz = float(getattr(props, "clock_rate", 0) or 0)
            self.cycles_per_s = max(rate_khz * 1000.0, 2.0e9)

    def measure(self, fn: Callable[[], Any], warmup: int = 2) -> dict[str, Any]:
        torch = self.torch
        for _ in range(warmup):
            fn()
        self.sync()
        # Host time to enqueue one call: the spin must outlast it so queueing is not timed.
        t0 = time.perf_counter()
        fn()
        enqueue_s = time.perf_counter() - t0
        self.sync()
        sampler = Sampler(self.rule)
        start_wall = time.perf_counter()
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            spin = int(min(2.0 * enqueue_s + 50e-6, 0.2) * self.cycles_per_s)
        while True:
            if self.cuda:
                self.flush_buf.zero_()
                if self.blocking:
                    torch.cuda._sleep(spin)
                start.record()
                fn()
                end.record()
                end.synchronize()
                sample = start.elapsed_time(end) / 1000.0
                reasons = self.nvml.throttle_reasons() if self.nvml.available() else []
                throttled = any(r in THROTTLING for r in reasons)
            else:
                t0 = time.perf_counter()
                fn()
                sample = time.perf_counter() - t0
                throttled = False
            sampler.add(sample, throttled)
            if sampler.done(time.perf_counter() - start_wall):
                break
        return sampler.summary()

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize(self.device)


# ---------------------------------------------------------------------------------------------
# Rows.

class Bench:
    def __init__(self, torch: Any, args: argparse.Namespace, timer: Timer, nvml: Nvml) -> None:
        self.torch = torch
        self.args = args
        self.device = args.device_str
        self.cuda = timer.cuda
        self.tiny = tiny_sizes(args)
        self.quick: bool = args.quick
        self.timer = timer
        self.nvml = nvml
        self.results: list[dict[str, Any]] = []
        self.ordinal = args.gpu if self.cuda else 0

    # -- helpers --------------------------------------------------------------------------------
    def dtype(self, name: str) -> Any:
        t = self.torch
        return {"fp32": t.float32, "tf32": t.float32, "fp16": t.float16, "bf16": t.bfloat16,
                "fp64": t.float64}[name]

    def act_dtype(self) -> tuple[Any, str]:
        """fp16 for the layer rows on CUDA; fp32 on the CPU testing aid."""
        if self.cuda:
            return self.torch.float16, "fp16"
        return self.torch.float32, "fp32"

    def row(self, suite: str, name: str, params: dict[str, Any]) -> dict[str, Any]:
        r: dict[str, Any] = {
            "suite": f"torch.{suite}", "name": name, "origin": "torch",
            "devices": [self.ordinal], "params": {k: str(v) for k, v in params.items()},
            "value": None, "unit": "", "time": None, "peak": None, "peak_source": "",
            "percent_of_peak": None, "skip_reason": "", "verified": None, "state": None,
            "extra": {}, "notes": []}
        if self.tiny:
            r["notes"].append("--device cpu: a testing aid with tiny sizes, not a benchmark")
        return r

    def run_row(self, suite: str, name: str, params: dict[str, Any], unit: str,
                body: Callable[[dict[str, Any]], None]) -> None:
        """Runs body(row), which measures and fills value/time; any exception becomes a skip."""
        r = self.row(suite, name, params)
        r["unit"] = unit
        log(f"{r['suite']} {name}")
        failed = False
        try:
            body(r)
            r["state"] = self.nvml.state()
        except Exception as e:  # noqa: BLE001 - a failing configuration is a recorded skip
            r["value"] = None
            r["time"] = None
            r["skip_reason"] = exception_text(e)
            log(f"  skipped: {r['skip_reason']}")
            failed = True
        else:
            if r["value"] is not None:
                log(f"  {r['value']:.4g} {unit}")
        if failed and self.cuda:
            # After the except block: the exception's frames (holding the row's tensors) are gone.
            gc.collect()
            self.torch.cuda.empty_cache()
        self.results.append(r)

    def skip(self, suite: str, name: str, params: dict[str, Any], unit: str, reason: str) -> None:
        r = self.row(suite, name, params)
        r["unit"] = unit
        r["skip_reason"] = reason
        log(f"{r['suite']} {name}: skipped: {reason}")
        self.results.append(r)

    def timed_ms(self, r: dict[str, Any], fn: Callable[[], Any]) -> dict[str, Any]:
        s = self.timer.measure(fn)
        r["time"] = s
        r["value"] = s["median_s"] * 1e3
        return s

    def set_tf32(self, on: bool) -> None:
        # "high" lets float32 matmuls use TF32 tensor cores; "highest" keeps IEEE fp32.
        self.torch.set_float32_matmul_precision("high" if on else "highest")
        self.torch.backends.cudnn.allow_tf32 = on

    # -- GEMM -----------------------------------------------------------------------------------
    def gemm_sizes(self) -> list[int]:
        if self.tiny:
            return [64] if self.quick else [64, 128]
        return [4096, 8192] if self.quick else [1024, 2048, 4096, 8192, 16384]

    def verify(self, prec: str) -> Optional[bool]:
        """A 256^3 product in `prec` against a float64 reference on the same operands."""
        t = self.torch
        try:
            n = 256
            g = t.Generator(device="cpu").manual_seed(1)
            a64 = t.randn(n, n, generator=g, dtype=t.float64)
            b64 = t.randn(n, n, generator=g, dtype=t.float64)
            ref = a64 @ b64
            if prec == "fp8_e4m3":
                f8 = t.float8_e4m3fn
                a8, b8 = a64.to(f8), b64.t().contiguous().to(f8)
                ref = a8.to(t.float64) @ b8.t().to(t.float64)
                one = t.tensor(1.0, device=self.device)
                out = t._scaled_mm(a8.to(self.device), b8.to(self.device).t(), scale_a=one,
                                   scale_b=one, out_dtype=t.bfloat16).to(t.float64).cpu()
                tol = 0.02
            else:
                dt = self.dtype(prec)
                self.set_tf32(prec == "tf32")
                a, b = a64.to(dt).to(self.device), b64.to(dt).to(self.device)
                ref = a.to(t.float64).cpu() @ b.to(t.float64).cpu()
                out = (a @ b).to(t.float64).cpu()
                tol = {"fp64": 1e-12, "fp32": 1e-5, "tf32": 5e-3, "fp16": 5e-3,
                       "bf16": 2e-2}[prec]
            err = ((out - ref).abs().max() / ref.abs().max()).item()
            return bool(err <= tol)
        except Exception:  # noqa: BLE001 - the timed rows report the failure
            return None

    def rows_gemm(self) -> None:
        t = self.torch
        for prec in ["fp32", "tf32", "fp16", "bf16", "fp64", "fp8_e4m3"]:
            if prec == "tf32" and not self.cuda:
                for n in self.gemm_sizes():
                    self.skip("gemm", f"{prec} {n}x{n}x{n}", self.gemm_params(prec, n, 1),
                              "TFLOPS", "tf32 is a CUDA tensor-core mode; nothing to time on cpu")
                continue
            if prec == "fp8_e4m3" and self.cuda:
                cc = t.cuda.get_device_capability(self.device)
                if cc < (8, 9):
                    for n in self.gemm_sizes():
                        self.skip("gemm", f"{prec} {n}x{n}x{n}", self.gemm_params(prec, n, 1),
                                  "TFLOPS", f"fp8 matmul needs compute capability >= 8.9 "
                                  f"(device is {cc[0]}.{cc[1]})")
                    continue
            verified = self.verify(prec)
            for n in self.gemm_sizes():
                self.gemm_row(prec, n, n, n, 1, verified)

    def gemm_params(self, prec: str, n: int, batch: int) -> dict[str, Any]:
        p: dict[str, Any] = {"dtype": prec, "m": n, "n": n, "k": n}
        if batch > 1:
            p["batch"] = batch
        return p

    def gemm_row(self, prec: str, m: int, n: int, k: int, batch: int,
                 verified: Optional[bool]) -> None:
        t = self.torch
        suite = "gemm" if batch == 1 else "gemm_batched"
        name = f"{prec} {m}x{n}x{k}" if batch == 1 else f"{prec} {batch}x{m}x{n}x{k}"
        params = self.gemm_params(prec, n, batch)
        if prec == "tf32":
            params["allow_tf32"] = "true"
        elif prec == "fp32":
            params["allow_tf32"] = "false"

        def body(r: dict[str, Any]) -> None:
            r["verified"] = verified
            shape_a = (batch, m, k) if batch > 1 else (m, k)
            shape_b = (batch, k, n) if batch > 1 else (k, n)
            if prec == "fp8_e4m3":
                f8 = t.float8_e4m3fn
                a = t.randn(m, k, device=self.device).to(f8)
                b = t.randn(n, k, device=self.device).to(f8).t()  # column-major k x n
                one = t.tensor(1.0, device=self.device)
                r["params"]["out_dtype"] = "bf16"
                r["notes"].append("torch._scaled_mm, per-tensor scales 1.0, bf16 output")
                fn: Callable[[], Any] = lambda: t._scaled_mm(a, b, scale_a=one, scale_b=one,
                                                             out_dtype=t.bfloat16)
            else:
                dt = self.dtype(prec)
                self.set_tf32(prec == "tf32")
                a = t.randn(*shape_a, device=self.device, dtype=dt)
                b = t.randn(*shape_b, device=self.device, dtype=dt)
                out = t.empty(*(shape_a[:-1] + shape_b[-1:]), device=self.device, dtype=dt)
                mm = t.bmm if batch > 1 else t.mm
                fn = lambda: mm(a, b, out=out)
            s = self.timer.measure(fn)
            r["time"] = s
            flops = 2.0 * m * n * k * batch
            r["value"] = flops / s["median_s"] / 1e12 if s["median_s"] > 0 else None
            r["extra"]["flops"] = flops
            if r["value"] is None:
                r["skip_reason"] = "zero time measured"

        self.run_row(suite, name, params, "TFLOPS", body)
        self.set_tf32(False)

    def rows_gemm_batched(self) -> None:
        n = 1024 if not self.tiny else 32
        batch = 32 if not self.tiny else 4
        for prec in ["fp16", "bf16", "tf32"]:
            if prec == "tf32" and not self.cuda:
                self.skip("gemm_batched", f"{prec} {batch}x{n}x{n}x{n}",
                          self.gemm_params(prec, n, batch), "TFLOPS",
                          "tf32 is a CUDA tensor-core mode; nothing to time on cpu")
                continue
            self.gemm_row(prec, n, n, n, batch, None)

    # -- layers ---------------------------------------------------------------------------------
    def rows_conv2d(self, depthwise: bool = False) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        if depthwise:
            shapes = [(32, 64, 64, 112, 3)] if not self.tiny else [(2, 8, 8, 16, 3)]
        elif not self.tiny:
            shapes = [(32, 3, 64, 224, 3), (32, 64, 128, 56, 3), (8, 3, 64, 512, 7)]
            if self.quick:
                shapes = shapes[:1] + shapes[2:]
        else:
            shapes = [(2, 3, 8, 32, 3)]
        suite = "conv2d_depthwise" if depthwise else "conv2d"
        for b, cin, cout, hw, k in shapes:
            groups = cin if depthwise else 1
            name = (f"B={b} C={cin} {hw}x{hw} k{k}" if depthwise
                    else f"B={b} {cin}->{cout} {hw}x{hw} k{k}")
            params = {"dtype": dname, "batch": b, "c_in": cin, "c_out": cout, "h": hw, "w": hw,
                      "kernel": k, "padding": k // 2, "groups": groups}

            def body(r: dict[str, Any], b=b, cin=cin, cout=cout, hw=hw, k=k,
                     groups=groups) -> None:
                x = t.randn(b, cin, hw, hw, device=self.device, dtype=dt)
                w = t.randn(cout, cin // groups, k, k, device=self.device, dtype=dt)
                with t.inference_mode():
                    self.timed_ms(r, lambda: t.nn.functional.conv2d(x, w, padding=k // 2,
                                                                     groups=groups))

            self.run_row(suite, name, params, "ms", body)

    def rows_conv2d_depthwise(self) -> None:
        self.rows_conv2d(depthwise=True)

    def rows_sdpa(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        if not self.tiny:
            shapes = [(8, 12, s, 64) for s in (128, 512, 1024, 2048)] + [(4, 32, 1024, 128),
                                                                        (4, 32, 4096, 128)]
            if self.quick:
                shapes = [(8, 12, 512, 64), (8, 12, 2048, 64), (4, 32, 1024, 128)]
        else:
            shapes = [(1, 2, 16, 8)]
        for b, h, s, d in shapes:
            params = {"dtype": dname, "batch": b, "heads": h, "seq": s, "head_dim": d,
                      "causal": "false"}

            def body(r: dict[str, Any], b=b, h=h, s=s, d=d) -> None:
                q, k, v = (t.randn(b, h, s, d, device=self.device, dtype=dt) for _ in range(3))
                with t.inference_mode():
                    summ = self.timed_ms(
                        r, lambda: t.nn.functional.scaled_dot_product_attention(q, k, v))
                r["extra"]["tflops"] = 4.0 * b * h * s * s * d / summ["median_s"] / 1e12

            self.run_row("sdpa", f"B={b} H={h} S={s} D={d}", params, "ms", body)

    def rows_linear(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        b, s, fin, fout = (32, 128, 4096, 4096) if not self.tiny else (2, 8, 32, 32)
        params = {"dtype": dname, "batch": b, "seq": s, "in_features": fin,
                  "out_features": fout, "bias": "true"}

        def body(r: dict[str, Any]) -> None:
            x = t.randn(b, s, fin, device=self.device, dtype=dt)
            w = t.randn(fout, fin, device=self.device, dtype=dt)
            bias = t.randn(fout, device=self.device, dtype=dt)
            with t.inference_mode():
                summ = self.timed_ms(r, lambda: t.nn.functional.linear(x, w, bias))
            r["extra"]["tflops"] = 2.0 * b * s * fin * fout / summ["median_s"] / 1e12

        self.run_row("linear", f"[{b},{s},{fin}]->{fout}", params, "ms", body)

    def rows_layernorm(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        shape = (32, 512, 4096) if not self.tiny else (2, 8, 32)
        params = {"dtype": dname, "shape": "x".join(map(str, shape))}

        def body(r: dict[str, Any]) -> None:
            x = t.randn(*shape, device=self.device, dtype=dt)
            w = t.ones(shape[-1], device=self.device, dtype=dt)
            bias = t.zeros(shape[-1], device=self.device, dtype=dt)
            with t.inference_mode():
                summ = self.timed_ms(
                    r, lambda: t.nn.functional.layer_norm(x, shape[-1:], w, bias))
            r["extra"]["gbps"] = 2.0 * x.numel() * x.element_size() / summ["median_s"] / 1e9

        self.run_row("layernorm", "[" + ",".join(map(str, shape)) + "]", params, "ms", body)

    def rows_softmax(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        shape = (8, 32, 2048, 2048) if not self.tiny else (1, 2, 16, 16)
        params = {"dtype": dname, "shape": "x".join(map(str, shape)), "dim": "-1"}

        def body(r: dict[str, Any]) -> None:
            x = t.randn(*shape, device=self.device, dtype=dt)
            with t.inference_mode():
                summ = self.timed_ms(r, lambda: t.softmax(x, dim=-1))
            r["extra"]["gbps"] = 2.0 * x.numel() * x.element_size() / summ["median_s"] / 1e9

        self.run_row("softmax", "[" + ",".join(map(str, shape)) + "]", params, "ms", body)

    # -- models ---------------------------------------------------------------------------------
    def resnet50(self, dt: Any) -> Any:
        import torchvision  # type: ignore  # only here: the other rows need torch alone
        m = torchvision.models.resnet50(weights=None)
        return m.to(device=self.device, dtype=dt).eval()

    def rows_resnet50(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        batch, hw = (64, 224) if not self.tiny else (2, 64)
        params = {"dtype": dname, "batch": batch, "image": f"{hw}x{hw}", "weights": "random"}

        def body(r: dict[str, Any]) -> None:
            model = self.resnet50(dt)
            x = t.randn(batch, 3, hw, hw, device=self.device, dtype=dt)
            with t.inference_mode():
                summ = self.timer.measure(lambda: model(x))
            r["time"] = summ
            r["value"] = batch / summ["median_s"]
            r["extra"]["batch_ms"] = summ["median_s"] * 1e3
            r["notes"].append("torchvision resnet50(weights=None), eval, inference_mode")

        self.run_row("resnet50", f"inference {dname} batch {batch}", params, "img/s", body)

    def rows_transformer(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        layers = 6
        d, heads, b, s = (1024, 16, 8, 128) if not self.tiny else (64, 4, 2, 16)
        params = {"dtype": dname, "layers": layers, "d_model": d, "heads": heads,
                  "ffn": 4 * d, "batch": b, "seq": s}

        def body(r: dict[str, Any]) -> None:
            layer = t.nn.TransformerEncoderLayer(d_model=d, nhead=heads, dim_feedforward=4 * d,
                                                 batch_first=True)
            enc = t.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)
            enc = enc.to(device=self.device, dtype=dt).eval()
            x = t.randn(b, s, d, device=self.device, dtype=dt)
            with t.inference_mode():
                self.timed_ms(r, lambda: enc(x))

        self.run_row("transformer", f"encoder {layers}x d={d} h={heads} B={b} S={s}", params,
                     "ms", body)

    def rows_compile(self) -> None:
        t = self.torch
        dt, dname = self.act_dtype()
        hw = 224 if not self.tiny else 64
        base = {"dtype": dname, "batch": 1, "image": f"{hw}x{hw}", "weights": "random"}
        state: dict[str, Any] = {}

        def eager(r: dict[str, Any]) -> None:
            state["model"] = self.resnet50(dt)
            state["x"] = t.randn(1, 3, hw, hw, device=self.device, dtype=dt)
            with t.inference_mode():
                summ = self.timed_ms(r, lambda: state["model"](state["x"]))
            state["eager_s"] = summ["median_s"]

        self.run_row("compile", "resnet50 b1 eager", dict(base, mode="eager"), "ms", eager)

        def compiled(r: dict[str, Any]) -> None:
            if "model" not in state:
                raise RuntimeError("the eager row failed; nothing to compile")
            cm = t.compile(state["model"], mode="reduce-overhead")
            x = state["x"]
            with t.inference_mode():
                t0 = time.perf_counter()
                cm(x)
                self.timer.sync()
                r["extra"]["first_call_ms"] = (time.perf_counter() - t0) * 1e3
                summ = self.timed_ms(r, lambda: cm(x))
            if state.get("eager_s"):
                r["extra"]["speedup"] = state["eager_s"] / summ["median_s"]
            r["notes"].append("first_call_ms includes compilation")

        self.run_row("compile", "resnet50 b1 compiled", dict(base, mode="reduce-overhead"), "ms",
                     compiled)


# ---------------------------------------------------------------------------------------------
# The document.

def version_of_cudnn(torch: Any) -> Optional[str]:
    try:
        v = torch.backends.cudnn.version()
    except Exception:  # noqa: BLE001
        return None
    if not v:
        return None
    if v >= 90000:  # cuDNN 9: major*10000 + minor*100 + patch
        return f"{v // 10000}.{v // 100 % 100}.{v % 100}"
    return f"{v // 1000}.{v // 100 % 10}.{v % 100}"


def driver_from_proc() -> Optional[str]:
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8", errors="replace") as f:
            words = f.readline().split()
    except OSError:
        return None
    for i, w in enumerate(words):
        if w == "Module" and i + 1 < len(words):
            return words[i + 1]
    return None


def cuda_driver_version() -> Optional[int]:
    """cuDriverGetVersion through ctypes (libcuda is loaded by torch already), e.g. 13000."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        v = ctypes.c_int(0)
        if lib.cuDriverGetVersion(ctypes.byref(v)) == 0 and v.value > 0:
            return int(v.value)
    except (OSError, AttributeError):
        pass
    return None


def device_uuid(torch: Any, ordinal: int) -> str:
    try:
        uuid = str(torch.cuda.get_device_properties(ordinal).uuid or "")
    except Exception:  # noqa: BLE001
        return ""
    return uuid if not uuid or uuid.startswith("GPU-") else "GPU-" + uuid


def describe_devices(torch: Any, args: argparse.Namespace, nvml: Nvml) -> list[dict[str, Any]]:
    if args.device == "cpu":
        return [{"ordinal": 0, "name": f"cpu ({platform.processor() or platform.machine()})",
                 "uuid": "", "cc": "", "catalog_gpu": None, "state_at_start": None}]
    props = torch.cuda.get_device_properties(args.gpu)
    uuid = device_uuid(torch, args.gpu)
    return [{"ordinal": args.gpu, "name": props.name, "uuid": uuid,
             "cc": f"{props.major}.{props.minor}", "catalog_gpu": None,
             "state_at_start": nvml.state()}]


# The two seams tests/bench/torch/fake_cuda_run.py replaces to walk the CUDA code paths with
# torch.cuda faked and tensors on the CPU.
def tensor_device(args: argparse.Namespace) -> str:
    """Where the rows' tensors live: cuda:N, or cpu for --device cpu."""
    return f"cuda:{args.gpu}" if args.device == "cuda" else "cpu"


def tiny_sizes(args: argparse.Namespace) -> bool:
    """The testing aid's tiny shapes (--device cpu) instead of the benchmark's."""
    return args.device == "cpu"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="torch_bench.py",
        description="smcompat's PyTorch benchmark; prints one smcompat.bench/1 JSON document.")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                   help="cpu: a testing aid with tiny sizes, not a benchmark")
    p.add_argument("--gpu", type=int, default=0, help="CUDA ordinal (default 0)")
    p.add_argument("--quick", action="store_true", help="fewer sizes, looser stopping rule")
    p.add_argument("--rows", default="", help="comma-separated row kinds (default: all)")
    p.add_argument("--list", action="store_true", help="print the row kinds and exit")
    p.add_argument("--min-samples", type=int, default=None)
    p.add_argument("--min-time", type=float, default=None, help="seconds measured")
    p.add_argument("--max-rel-stddev", type=float, default=None)
    p.add_argument("--timeout", type=float, default=None, help="per configuration, seconds")
    p.add_argument("--max-samples", type=int, default=None)
    p.add_argument("--tool-version", default="torch-script")
    args = p.parse_args(argv)
    # Defaults: smcompat's StopRule (src/bench/stats.cpp), or StopRule::quick() with --quick.
    defaults = ((5, 0.05, 0.02, 2.0, 100000) if args.quick else (10, 0.5, 0.005, 15.0, 100000))
    for attr, d in zip(["min_samples", "min_time", "max_rel_stddev", "timeout", "max_samples"],
                       defaults):
        if getattr(args, attr) is None:
            setattr(args, attr, d)
    return args


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 64
    if args.list:
        for kind, what in ROW_KINDS.items():
            print(f"{kind}\t{what}")
        return 0
    kinds = [k.strip() for k in args.rows.split(",") if k.strip()] or list(ROW_KINDS)
    unknown = [k for k in kinds if k not in ROW_KINDS]
    if unknown:
        print(f"torch_bench: unknown row kind(s) {', '.join(unknown)}; known: "
              f"{', '.join(ROW_KINDS)}", file=sys.stderr)
        return 64
    try:
        import torch  # type: ignore
    except Exception as e:  # noqa: BLE001
        print(f"torch_bench: cannot import torch in {sys.executable}: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 3
    if args.device == "cuda":
        if not torch.cuda.is_available():
            print(f"torch_bench: no CUDA device visible to torch {torch.__version__} "
                  f"(torch.version.cuda={torch.version.cuda}); nothing to benchmark "
                  f"(--device cpu runs the script's own test, not a benchmark)", file=sys.stderr)
            return 2
        if not 0 <= args.gpu < torch.cuda.device_count():
            print(f"torch_bench: --gpu {args.gpu}: torch sees {torch.cuda.device_count()} "
                  f"device(s)", file=sys.stderr)
            return 2
        torch.cuda.set_device(args.gpu)
    else:
        torch.set_num_threads(1)  # steadier timings on a shared CI machine; still not a benchmark

    # Only the document goes to stdout: anything torch or a library prints on fd 1 while the rows
    # run is sent to stderr instead.
    sys.stdout.flush()
    json_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        doc = run(torch, args, argv, kinds)
    finally:
        sys.stdout.flush()
        os.dup2(json_fd, 1)
        os.close(json_fd)
    json.dump(doc, sys.stdout, indent=1, sort_keys=True, allow_nan=False)
    sys.stdout.write("\n")
    sys.stdout.flush()
    return 0


def run(torch: Any, args: argparse.Namespace, argv: list[str], kinds: list[str]) -> dict[str, Any]:
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    cuda = args.device == "cuda"
    args.device_str = tensor_device(args)
    nvml = Nvml(args.gpu, device_uuid(torch, args.gpu) if cuda else "", cuda)
    rule = StopRule(args)
    timer = Timer(torch, args.device_str, rule, nvml, cuda)
    bench = Bench(torch, args, timer, nvml)
    warnings: list[str] = []
    if args.device == "cpu":
        warnings.append("--device cpu: a testing aid with tiny sizes; these figures are not a "
                        "benchmark")
    elif not nvml.available():
        warnings.append("NVML readings unavailable (neither pynvml nor libnvidia-ml works): "
                        "clocks, temperature, power and throttle reasons are null and no "
                        "sample is flagged as throttled")
    if cuda and not timer.blocking:
        warnings.append("torch.cuda._sleep is missing: no blocking kernel, launch queueing may "
                        "be timed")
    devices = describe_devices(torch, args, nvml)
    torch.manual_seed(0)
    for kind in kinds:
        getattr(bench, f"rows_{kind}")()

    libraries: dict[str, str] = {"torch": torch.__version__, "python": platform.python_version()}
    try:
        import torchvision  # type: ignore
        libraries["torchvision"] = torchvision.__version__
    except Exception:  # noqa: BLE001
        pass
    if nvml.backend:
        libraries["nvml"] = nvml.backend
    if torch.version.cuda:
        libraries["cuda_runtime"] = str(torch.version.cuda)
    cudnn = version_of_cudnn(torch) if args.device == "cuda" else None
    if cudnn:
        libraries["cudnn"] = cudnn
    cuda_driver: Optional[int] = None
    if args.device == "cuda":
        cuda_driver = cuda_driver_version()
    driver = (nvml.driver_version() or driver_from_proc()) if args.device == "cuda" else None

    doc = {
        "schema": SCHEMA,
        "tool_version": args.tool_version,
        "argv": ["torch_bench.py"] + argv,
        "started_utc": started,
        "host": socket.gethostname(),
        "driver_version": driver,
        "cuda_driver_version": cuda_driver,
        "devices": devices,
        "method": {"min_samples": rule.min_samples, "min_time_s": rule.min_time_s,
                   "max_rel_stddev": rule.max_rel_stddev, "timeout_s": rule.timeout_s,
                   "max_samples": rule.max_samples, "blocking_kernel": timer.blocking,
                   "l2_flush": timer.cuda, "quick": args.quick},
        "libraries": libraries,
        "results": bench.results,
        "warnings": warnings,
    }
    for r in doc["results"]:
        for k, v in list(r["extra"].items()):
            if not isinstance(v, (int, float)) or not math.isfinite(v):
                del r["extra"][k]
        if r["value"] is not None and not math.isfinite(r["value"]):
            r["value"] = None
            r["skip_reason"] = "non-finite figure"
    return doc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
