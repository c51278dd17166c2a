"""The implementation behind the functions of ``smcompat`` (loaded on first use)."""

from __future__ import annotations

import json
import os
import sys

from . import _native
from . import _types
from ._errors import SmcompatError

_LEVELS = ("error", "warning", "info")


def _call(fn, *args):
    try:
        return fn(*args)
    except _native.Failure as e:
        a = tuple(e.args) + (None, None, None)
        raise SmcompatError(str(a[0]) if a[0] is not None else "smcompat failed", a[1], a[2]) from None


def _parse(text: str) -> dict:
    try:
        return json.loads(text)
    except ValueError as e:  # a bug, not a user error; still the one documented type
        raise SmcompatError("the native module returned no valid JSON: %s" % e) from None


def _report(cls, text: str):
    """A top-level report from the native module's JSON text (kept for to_dict())."""
    return cls(_parse(text), text)


def _path_list(paths, what="paths") -> list:
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    try:
        items = list(paths)
    except TypeError:
        raise SmcompatError("%s: expected a path or a list of paths, got %s" % (what, type(paths).__name__)) from None
    out = []
    for p in items:
        try:
            p = os.fspath(p)
        except TypeError:
            raise SmcompatError("%s: expected a path (str or os.PathLike), got %s" % (what, type(p).__name__)) from None
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        out.append(p)
    return out


def _names(values, what) -> list:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values:
        if not isinstance(v, str) or not v:
            raise SmcompatError("%s: expected non-empty strings, got %r" % (what, v))
        out.append(v)
    return out


def _opt(value, what) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or not value:
        raise SmcompatError("%s: expected a non-empty string or None, got %r" % (what, value))
    return value


def scan(paths, *, gpu, target, driver, deep, verbose, probe, jobs, strict):
    plist = _path_list(paths)
    if not plist:
        raise SmcompatError("scan: no paths given")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise SmcompatError("scan: jobs must be an int >= 0 (0: all cores), got %r" % (jobs,))
    text = _call(_native.scan, plist, _opt(gpu, "gpu"), _opt(target, "target"), _opt(driver, "driver"),
                 bool(deep), bool(verbose), bool(probe), jobs, bool(strict))
    return _report(_types.ScanReport, text)


def doctor(gpus, python, *, active, scan_code):
    text = _call(_native.doctor, _names(gpus, "gpus"), _path_list(python or [], "python"), bool(active),
                 bool(scan_code))
    return _report(_types.DoctorReport, text)


def explain(text, *, doctor, gpus, python, active):
    if not isinstance(text, str):
        raise SmcompatError("explain: text must be a str, got %s" % type(text).__name__)
    out = _call(_native.explain, text, bool(doctor), _names(gpus, "gpus"), _path_list(python or [], "python"),
                 bool(active))
    return _report(_types.Explanation, out)


def gpus(name):
    return _report(_types.GpuCatalog, _call(_native.gpus, _opt(name, "name")))


def probe(*, nvml):
    return _report(_types.ProbeReport, _call(_native.probe, bool(nvml)))


# ---------------------------------------------------------------- check


def torch_info(mode="auto"):
    """What an imported PyTorch says about itself and the GPU in use, as the dict the native
    check takes; ``None`` when PyTorch is not imported (``mode="auto"``) or not wanted. Never
    raises for a PyTorch without CUDA or a machine without a GPU: those fields stay ``None``."""
    if mode is None or mode is False:
        return None
    if isinstance(mode, dict):
        return dict(mode)
    if mode == "import":
        try:
            import importlib
            importlib.import_module("torch")
        except Exception as e:
            raise SmcompatError("check: torch='import' but PyTorch cannot be imported: %s" % e) from None
    elif mode != "auto":
        raise SmcompatError("check: torch must be 'auto', 'import', None or a dict, got %r" % (mode,))
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    info = {"version": None, "cuda": None, "arch_list": [], "capability": None, "device": None,
            "device_name": None}
    try:
        info["version"] = str(torch.__version__)
    except Exception:
        pass
    try:
        cuda = torch.version.cuda
        info["cuda"] = str(cuda) if cuda else None
    except Exception:
        pass
    cuda_mod = getattr(torch, "cuda", None)
    try:
        archs = list(cuda_mod.get_arch_list())
        if not archs:  # get_arch_list() is [] without a GPU; the build's list is still known
            flags = torch._C._cuda_getArchFlags()
            archs = flags.split() if flags else []
        info["arch_list"] = [str(a) for a in archs]
    except Exception:
        pass
    try:
        if cuda_mod.is_available():
            device = int(cuda_mod.current_device())
            info["device"] = device
            major, minor = cuda_mod.get_device_capability(device)
            info["capability"] = [int(major), int(minor)]
            info["device_name"] = str(cuda_mod.get_device_name(device))
    except Exception:
        pass
    return info


def check_documents(*, gpus=(), torch="auto", pid=0, text=False):
    """(the smcompat.check/1 JSON text, the report for people or "" unless ``text``) of one check."""
    if isinstance(pid, bool) or not isinstance(pid, int) or pid < 0:
        raise SmcompatError("check: pid must be an int >= 0 (0: this process), got %r" % (pid,))
    info = torch_info(torch) if pid == 0 or isinstance(torch, dict) else None
    payload = "" if info is None else json.dumps(info, sort_keys=True)
    document, rendered = _call(_native.check, pid, _names(gpus, "gpus"), payload, bool(text))
    return document, rendered


def check(*, gpus, torch, raise_on, pid):
    if raise_on is not None and raise_on not in _LEVELS:
        raise SmcompatError("check: raise_on must be None, 'error', 'warning' or 'info', got %r" % (raise_on,))
    report = _report(_types.CheckReport, check_documents(gpus=gpus, torch=torch, pid=pid)[0])
    if raise_on is not None:
        report.raise_for_findings(raise_on)
    return report
