"""smcompat._native: the native library, lib/libsmcompat_py.so, through its C ABI (ctypes).

Each function sends one JSON request to ``smcompat_call`` and returns the JSON text of the document
the CLI prints with ``--json``. ctypes releases the GIL for the duration of the call, so other
Python threads go on during a scan. Errors raise ``Failure(what, file, offset)``, which the Python
layer re-raises as ``smcompat.SmcompatError``. Loaded on first use (``import smcompat`` stays cheap).
"""

from __future__ import annotations

import ctypes
import json
import os

_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libsmcompat_py.so")


class Failure(Exception):
    """args: (what, file or None, offset or None)"""


def _load():
    try:
        lib = ctypes.CDLL(_LIBRARY)
    except OSError as e:
        raise Failure("the native library cannot be loaded: %s" % e, _LIBRARY, None) from None
    lib.smcompat_call.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.POINTER(ctypes.POINTER(ctypes.c_char)),
                                  ctypes.POINTER(ctypes.c_size_t)]
    lib.smcompat_call.restype = ctypes.c_int
    lib.smcompat_free.argtypes = [ctypes.POINTER(ctypes.c_char)]
    lib.smcompat_free.restype = None
    return lib


_lib = _load()


def _call(function: str, **arguments) -> str:
    """The response text of one request; raises Failure for the library's error object."""
    arguments["function"] = function
    request = json.dumps(arguments).encode("utf-8")
    response = ctypes.POINTER(ctypes.c_char)()
    size = ctypes.c_size_t()
    status = _lib.smcompat_call(request, len(request), ctypes.byref(response), ctypes.byref(size))
    if not response:
        raise MemoryError("smcompat: out of memory")
    try:
        # The library writes valid UTF-8 (invalid bytes in names become U+FFFD).
        text = ctypes.string_at(response, size.value).decode("utf-8", "replace")
    finally:
        _lib.smcompat_free(response)
    if status != 0:
        error = json.loads(text)
        raise Failure(error.get("what"), error.get("file"), error.get("offset"))
    return text


def version() -> str:
    return json.loads(_call("version"))["version"]


def scan(paths, gpu, target, driver, deep, verbose, probe, jobs, strict) -> str:
    return _call("scan", paths=paths, gpu=gpu, target=target, driver=driver, deep=deep,
                 verbose=verbose, probe=probe, jobs=jobs, strict=strict)


def doctor(gpus, pythons, discover_active, scan_code) -> str:
    return _call("doctor", gpus=gpus, pythons=pythons, discover_active=discover_active,
                 scan_code=scan_code)


def explain(text, doctor, gpus, pythons, discover_active) -> str:
    return _call("explain", text=text, doctor=doctor, gpus=gpus, pythons=pythons,
                 discover_active=discover_active)


def gpus(query) -> str:
    return _call("gpus", query=query)


def probe(use_nvml) -> str:
    return _call("probe", use_nvml=use_nvml)


def check(pid, gpus, torch, text):
    """(the smcompat.check/1 JSON text, the text report or "" unless text)"""
    both = json.loads(_call("check", pid=pid, gpus=gpus, torch=torch, text=text))
    return json.dumps(both["check"], ensure_ascii=False, separators=(",", ":")), both["text"]
