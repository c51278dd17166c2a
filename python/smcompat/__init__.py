"""smcompat: which GPU code your libraries carry, and whether it runs on your GPU.

The Python API over the smcompat toolkit. Every call runs the same code as the command line
(``smcompat scan|doctor|explain|gpus|probe ... --json``) inside this process and returns a typed
report whose ``to_dict()`` equals the command's ``--json`` document.

    import smcompat
    smcompat.check(raise_on="error")      # at the top of a training script

``import smcompat`` is kept cheap: the native module, ``json`` and the report classes load on
first use.
"""

from __future__ import annotations

from ._errors import CheckFailed, SmcompatError

__all__ = [
    "SmcompatError",
    "CheckFailed",
    "scan",
    "doctor",
    "explain",
    "gpus",
    "probe",
    "check",
    "__version__",
    # report classes (loaded on first access)
    "ScanReport",
    "ScannedFile",
    "ScannedPackage",
    "ImageEntry",
    "LoadingUnit",
    "ReadError",
    "ScanTarget",
    "DoctorReport",
    "Finding",
    "DriverInfo",
    "PythonEnv",
    "PackageVerdict",
    "Explanation",
    "ExplainMatch",
    "Gpu",
    "GpuCatalog",
    "ProbeReport",
    "ProbeDevice",
    "CheckReport",
    "LoadedLibrary",
]

_TYPES = frozenset(__all__[9:])


def scan(paths, *, gpu=None, target=None, driver=None, deep=False, verbose=False, probe=True,
         jobs=0, strict=False):
    """Inventory the GPU code in files, directories, archives and wheels (``smcompat scan``).

    ``paths``: a path (str or os.PathLike) or a list of them. ``gpu`` ("RTX 5090", "H100 SXM")
    or ``target`` ("12.0", "sm_120") picks what to judge for (not both); ``driver`` (a CUDA
    version or driver build) judges PTX against that driver and needs ``target``. Without either,
    ``probe=True`` judges for this machine's GPU when there is one. ``strict=True`` raises
    ``SmcompatError`` (with file and offset) for the first read error inside any file instead of
    listing it in the report. Returns a ``ScanReport``.
    """
    from . import _api
    return _api.scan(paths, gpu=gpu, target=target, driver=driver, deep=deep, verbose=verbose,
                     probe=probe, jobs=jobs, strict=strict)


def doctor(gpus=(), python=(), *, active=True, scan_code=True):
    """Check driver, toolkits, Python environments and variables (``smcompat doctor``).

    ``gpus``: GPU names to judge the environments for; ``python``: interpreters, environment
    prefixes or site-packages to check. ``active=False`` skips $VIRTUAL_ENV, $CONDA_PREFIX and
    python3 on PATH; ``scan_code=False`` does not read installed libraries' device code.
    Returns a ``DoctorReport``.
    """
    from . import _api
    return _api.doctor(gpus, python, active=active, scan_code=scan_code)


def explain(text, *, doctor=False, gpus=(), python=(), active=True):
    """What a GPU error text means and how to fix it (``smcompat explain``).

    With ``doctor=True`` the matches also carry what the doctor found on this machine
    (``gpus``/``python``/``active`` are passed to it as to ``doctor()``). Returns an
    ``Explanation``.
    """
    from . import _api
    return _api.explain(text, doctor=doctor, gpus=gpus, python=python, active=active)


def gpus(name=None):
    """The GPU catalog, or the GPUs matching ``name`` ("RTX 5090", "5090", "B200").

    Returns a ``GpuCatalog`` (a sequence of ``Gpu``); raises ``SmcompatError`` when nothing
    matches ``name``.
    """
    from . import _api
    return _api.gpus(name)


def probe(*, nvml=True):
    """Ask the installed NVIDIA driver about this machine's GPUs (``smcompat probe``).

    Never fails for a missing driver: the report's ``status`` says what was found. Returns a
    ``ProbeReport``.
    """
    from . import _api
    return _api.probe(nvml=nvml)


def check(*, gpus=(), torch="auto", raise_on=None, pid=0):
    """Check this live process: the GPU libraries it has loaded and whether each has code for
    the GPU it runs on. Returns a ``CheckReport``.

    ``torch``: ``"auto"`` (default) reports on PyTorch when it is already imported (never
    imports it); ``"import"`` imports it; ``None`` leaves it out; a dict is passed as is.
    ``gpus``: GPU names to judge for as well as (or, without a GPU, instead of) the one in use.
    ``raise_on="error"`` (or ``"warning"``) raises ``CheckFailed`` listing the findings at or
    above that severity and their fixes. ``pid``: another process to check (0: this one).

        import smcompat; smcompat.check(raise_on="error")
    """
    from . import _api
    return _api.check(gpus=gpus, torch=torch, raise_on=raise_on, pid=pid)


def __getattr__(name):
    if name == "__version__":
        from . import _native
        value = _native.version()
        globals()["__version__"] = value
        return value
    if name in _TYPES:
        from . import _types
        value = getattr(_types, name)
        globals()[name] = value
        return value
    raise AttributeError("module 'smcompat' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
