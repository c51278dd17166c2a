"""Typed, read-only views of the smcompat JSON documents.

Every object keeps the dict it was built from; ``to_dict()`` returns a deep copy of it, so it is
equal to the command line's ``--json`` document (or the matching part of it) by construction.
Typed attributes are read from that dict; fields a newer smcompat adds do not break construction
(they are in ``to_dict()``), and fields an older one lacks read as ``None``.
"""

from __future__ import annotations

import json

from ._errors import CheckFailed, SmcompatError

_SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}
_MISSING = object()


def _copy(value):
    """A copy of parsed JSON (dicts, lists and scalars only): several times faster than
    copy.deepcopy, which a 20 MB scan document would otherwise spend seconds in."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value


class _Record:
    """Base: ``_FIELDS`` are copied as is, ``_LISTS``/``_ONE`` become typed objects,
    ``_RENAME`` maps attribute names to JSON keys, ``_REPR`` chooses the repr's fields.

    Attributes are built on first access and kept: a scan of a CUDA toolkit has tens of thousands
    of entries and units, and most programs read a few of them."""

    _FIELDS: tuple = ()
    _LISTS: dict = {}
    _ONE: dict = {}
    _RENAME: dict = {}
    _REPR: tuple = ()
    _NULLABLE: tuple = ()

    def __init__(self, data: dict, text: str = None) -> None:
        if not isinstance(data, dict):
            raise SmcompatError("%s: expected a JSON object, got %s" % (type(self).__name__, type(data).__name__))
        object.__setattr__(self, "_data", data)
        # The JSON text a top-level report was parsed from: to_dict() parses it again, which is
        # faster than copying the parsed document.
        object.__setattr__(self, "_text", text)

    def __getattr__(self, name):
        cls = type(self)
        if name in cls._FIELDS:
            value = _copy(self._data.get(cls._RENAME.get(name, name)))
        elif name in cls._LISTS:
            item_cls = cls._LISTS[name]
            raw = self._data.get(cls._RENAME.get(name, name))
            if raw is None:
                value = None if name in cls._NULLABLE else []
            else:
                value = [item_cls(item) if isinstance(item, dict) else _copy(item) for item in raw]
        elif name in cls._ONE:
            raw = self._data.get(cls._RENAME.get(name, name))
            value = cls._ONE[name](raw) if isinstance(raw, dict) else _copy(raw)
        else:
            raise AttributeError("%r object has no attribute %r" % (cls.__name__, name))
        object.__setattr__(self, name, value)
        return value

    def to_dict(self) -> dict:
        """The JSON object this was built from (a new copy on every call)."""
        if self._text is not None:
            return json.loads(self._text)
        return _copy(self._data)

    def __setattr__(self, name, value):
        raise AttributeError("%s is read-only" % type(self).__name__)

    def __delattr__(self, name):
        raise AttributeError("%s is read-only" % type(self).__name__)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = []
        for name in self._REPR:
            value = getattr(self, name)
            if isinstance(value, list):
                parts.append("%s=[%d]" % (name, len(value)))
            else:
                text = repr(value)
                if len(text) > 60:
                    text = text[:57] + "..."
                parts.append("%s=%s" % (name, text))
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))

    def __dir__(self):
        cls = type(self)
        return sorted(set(object.__dir__(self)) | set(cls._FIELDS) | set(cls._LISTS) | set(cls._ONE))

    def __reduce__(self):
        return (type(self), (self._data,))


def _at_least(findings, level):
    if level not in _SEVERITY_RANK:
        raise SmcompatError("severity level must be one of error, warning, info; got %r" % (level,))
    rank = _SEVERITY_RANK[level]
    return [f for f in findings if _SEVERITY_RANK.get(f.severity, 2) >= rank]


# ---------------------------------------------------------------- scan


class ReadError(_Record):
    """A problem while reading: ``{what, file, offset}`` (offset ``None`` when it has no place)."""

    _FIELDS = ("what", "file", "offset")
    _REPR = ("what", "file", "offset")

    def __str__(self) -> str:
        return str(SmcompatError(self.what, self.file, self.offset))


class ScanTarget(_Record):
    """What a scan judged for: ``label``, ``cc`` ("12.0"), ``gpu``, ``driver_cuda``, ``driver``."""

    _FIELDS = ("label", "cc", "gpu", "driver_cuda", "driver")
    _REPR = ("label",)


class ImageEntry(_Record):
    """One image of device code (SASS, PTX or LTO-IR) in a file."""

    _FIELDS = ("kind", "target", "section", "container_offset", "entry_offset", "in_container",
               "compression", "stored_size", "uncompressed_size", "ptx_version", "relocatable",
               "debug", "identifier", "options", "verdict", "reason", "kernels", "ptx_target",
               "ptx_entries")
    _ONE = {"decode_error": ReadError}
    _REPR = ("kind", "target", "verdict")


class LoadingUnit(_Record):
    """What the driver loads as one (a fatbin container or a bare cubin), with its verdict.
    ``images`` and ``chosen`` index the file's ``entries``."""

    _FIELDS = ("section", "offset", "verdict", "bare", "specialized_elsewhere", "loadable",
               "reason", "images", "chosen")
    _REPR = ("section", "offset", "verdict")


class ScannedFile(_Record):
    """A file (or archive/zip member) with device code or errors."""

    _FIELDS = ("path", "member", "package", "format", "size", "containers", "verdict",
               "unit_counts", "specialized_elsewhere", "prelink_units", "jit_link", "summary",
               "resource_warnings")
    _LISTS = {"entries": ImageEntry, "units": LoadingUnit, "errors": ReadError,
              "warnings": ReadError}
    _REPR = ("name", "verdict")

    @property
    def name(self) -> str:
        """``path`` or ``path!member``."""
        return self.path + "!" + self.member if self.member else self.path

    @property
    def targets(self) -> list:
        """The distinct image targets, in file order (``sm_120``, ``compute_90``, ...)."""
        seen = []
        for entry in self.entries or ():
            if entry.target not in seen:
                seen.append(entry.target)
        return seen


class ScannedPackage(_Record):
    """A package (Python distribution, wheel, directory or file) with its worst verdict."""

    _FIELDS = ("name", "version", "kind", "files", "images", "errors", "sass", "ptx", "lto",
               "verdict", "resource_warnings")
    _REPR = ("name", "version", "verdict")


class ScanReport(_Record):
    """``smcompat.scan/2``: the result of ``smcompat.scan()``."""

    _FIELDS = ("schema", "tool_version", "argv", "prediction", "stats")
    _ONE = {"target": ScanTarget}
    _LISTS = {"files": ScannedFile, "packages": ScannedPackage, "errors": ReadError}
    _REPR = ("target", "files", "packages", "errors")

    @property
    def verdict(self):
        """The worst package verdict (``None`` without a target or without device code)."""
        order = ["native", "compatible-sass", "ptx-jit", "unsupported-ptx", "driver-too-old",
                 "no-image"]
        worst = None
        for p in self.packages:
            if p.verdict in order and (worst is None or order.index(p.verdict) > order.index(worst)):
                worst = p.verdict
        return worst

    def __str__(self) -> str:
        lines = ["scan for %s: %d files with device code or errors, %d packages, %d errors" % (
            self.target.label if self.target else "no target", len(self.files), len(self.packages),
            len(self.errors))]
        for f in self.files:
            if f.verdict is not None or f.errors:
                lines.append("  %-16s %s: %s" % (f.verdict or "error", f.name, f.summary))
        for e in self.errors:
            lines.append("  error            %s" % e)
        return "\n".join(lines)


# ---------------------------------------------------------------- doctor


class Finding(_Record):
    """A finding of the doctor or of ``check()``: ``severity`` (error, warning, info), ``id``,
    ``title``, ``evidence``, ``fix`` and, when the fix is a command, ``fix_commands``."""

    _FIELDS = ("severity", "id", "title", "evidence", "fix", "fix_commands", "subject")
    _REPR = ("severity", "id", "title")

    def __getattr__(self, name):
        value = super().__getattr__(name)
        if value is None and name in ("evidence", "fix_commands"):
            value = []
            object.__setattr__(self, name, value)
        return value

    def __str__(self) -> str:
        lines = ["%s [%s] %s" % (self.severity, self.id, self.title)]
        lines += ["    %s" % e for e in self.evidence]
        if self.fix:
            lines.append("  fix: %s" % self.fix)
        lines += ["    $ %s" % c for c in self.fix_commands]
        return "\n".join(lines)


class DriverInfo(_Record):
    """The driver as the doctor saw it: ``state`` (ok, no-driver, ...), ``version``, ``cuda``..."""

    _FIELDS = ("state", "detail", "observed", "version", "cuda", "kernel_module",
               "kernel_module_line", "gpus")
    _REPR = ("state", "version", "cuda")


class PythonEnv(_Record):
    """A Python environment the doctor looked at, with its GPU packages."""

    _FIELDS = ("prefix", "site_packages", "python_version", "kind", "found_by", "package_count",
               "gpu_packages", "torch", "warnings")
    _REPR = ("prefix", "kind", "python_version")


class PackageVerdict(_Record):
    """One package of one environment judged for one GPU (``fit``: native ... no-image)."""

    _FIELDS = ("env", "package", "version", "gpu", "cc", "fit", "predicted", "targets",
               "libraries", "runtime_variant")
    _REPR = ("package", "version", "gpu", "fit")


class _FindingsMixin:
    findings: list

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity == "error" for f in self.findings)

    def findings_at_least(self, level: str = "warning") -> list:
        """The findings at or above ``level`` (error > warning > info)."""
        return _at_least(self.findings, level)


class DoctorReport(_FindingsMixin, _Record):
    """``smcompat.doctor/1``: the result of ``smcompat.doctor()``."""

    _FIELDS = ("schema", "tool_version", "argv", "targets", "toolkits", "libraries", "env_vars",
               "host", "summary", "usage_errors")
    _ONE = {"driver": DriverInfo}
    _LISTS = {"findings": Finding, "envs": PythonEnv, "verdicts": PackageVerdict}
    _RENAME = {"envs": "python_envs"}
    _REPR = ("driver", "envs", "findings")

    def __str__(self) -> str:
        if not self.findings:
            return "doctor: no findings"
        return "\n".join(str(f) for f in self.findings)


# ---------------------------------------------------------------- explain


class ExplainMatch(_Record):
    """A failure mode found in the text: cause, how to confirm, the fix; ``on_this_machine`` is
    the doctor's related findings (``None`` when the doctor was not consulted)."""

    _FIELDS = ("id", "title", "line", "line_text", "matched", "cause", "confirm", "fix", "fix_for",
               "refs", "reference")
    _LISTS = {"on_this_machine": Finding}
    _NULLABLE = ("on_this_machine",)
    _REPR = ("id", "line")


class Explanation(_Record):
    """``smcompat.explain/1``: the result of ``smcompat.explain()``."""

    _FIELDS = ("schema", "tool_version", "argv", "doctor_consulted")
    _LISTS = {"matches": ExplainMatch}
    _REPR = ("matches", "doctor_consulted")

    def __bool__(self) -> bool:
        return bool(self.matches)

    def __str__(self) -> str:
        if not self.matches:
            return "explain: no known failure mode in the text"
        out = []
        for m in self.matches:
            out.append("line %s: %s\n  cause: %s\n  fix: %s" % (m.line, m.title, m.cause, m.fix))
        return "\n".join(out)


# ---------------------------------------------------------------- gpus


class Gpu(_Record):
    """A GPU of the catalog: ``name``, ``cc``, ``sms``, memory, bandwidth, peak TFLOPS..."""

    _FIELDS = ("name", "aliases", "cc", "sms", "boost_mhz", "tensor_mhz", "memory", "memory_gib",
               "bus_width_bits", "bandwidth_gbs", "l2_mb", "nvlink_gbs", "peak_tflops", "tags",
               "source")
    _REPR = ("name", "cc")

    @property
    def sm(self):
        """``sm_120`` for cc ``12.0``."""
        return "sm_" + self.cc.replace(".", "") if self.cc else None


class GpuCatalog(_Record):
    """``smcompat.gpus/1``: a sequence of ``Gpu``."""

    _FIELDS = ("schema", "tool_version", "argv")
    _LISTS = {"gpus": Gpu}
    _REPR = ("gpus",)

    def __len__(self) -> int:
        return len(self.gpus)

    def __iter__(self):
        return iter(self.gpus)

    def __getitem__(self, index):
        return self.gpus[index]

    def __str__(self) -> str:
        return "\n".join("%-28s %s" % (g.name, g.cc) for g in self.gpus)


# ---------------------------------------------------------------- probe


class ProbeDevice(_Record):
    """One GPU as the driver reports it (CUDA attributes joined with NVML)."""

    _FIELDS = ("ordinal", "name", "uuid", "pci_bus_id", "cc", "nvml_cc", "nvml_index", "masquerade",
               "sms", "memory_bytes", "smem_per_block", "smem_per_block_optin", "smem_per_sm",
               "reserved_smem_per_block", "l2_bytes", "clock_khz", "memory_clock_khz",
               "bus_width_bits", "bandwidth_gbs", "threads_per_sm", "regs_per_sm", "blocks_per_sm",
               "cluster_launch", "arch", "catalog_gpu", "nvlink", "warnings")
    _REPR = ("ordinal", "name", "cc")


class ProbeReport(_Record):
    """``smcompat.probe/1``: the result of ``smcompat.probe()``."""

    _FIELDS = ("schema", "tool_version", "argv", "observed", "status", "explanation", "cuda_error",
               "libcuda", "nvml", "driver_version", "driver_version_source", "cuda_driver_version",
               "nvml_cuda_driver_version", "kernel_module", "kernel_module_line",
               "cuda_visible_devices", "topology", "warnings")
    _LISTS = {"devices": ProbeDevice}
    _REPR = ("status", "driver_version", "devices")

    def __str__(self) -> str:
        lines = ["probe: %s: %s" % (self.status, self.explanation)]
        for d in self.devices:
            lines.append("  %s: %s (%s)" % (d.ordinal, d.name, d.cc))
        return "\n".join(lines)


# ---------------------------------------------------------------- check


class LoadedLibrary(_Record):
    """A GPU library loaded in the checked process, with its fit for the GPU in use."""

    _FIELDS = ("path", "package", "version", "fit", "best_image", "targets", "deleted", "no_kernels")
    _REPR = ("path", "fit")


class CheckReport(_FindingsMixin, _Record):
    """``smcompat.check/1``: the result of ``smcompat.check()``."""

    _FIELDS = ("schema", "tool_version", "argv", "pid", "maps", "maps_read", "mapped_files", "gpu",
               "what_if", "driver", "torch", "summary", "errors")
    _LISTS = {"libraries": LoadedLibrary, "findings": Finding}
    _REPR = ("pid", "libraries", "findings")

    def raise_for_findings(self, level: str = "error") -> "CheckReport":
        """Raise ``CheckFailed`` when a finding is at or above ``level`` (error, warning or
        info); return the report otherwise."""
        found = _at_least(self.findings, level)
        if found:
            head = "smcompat check: %d finding%s at or above %s in process %s" % (
                len(found), "" if len(found) == 1 else "s", level, self.pid)
            raise CheckFailed("\n".join([head] + [str(f) for f in found]), self, found)
        return self

    def __str__(self) -> str:
        gpu = (self.gpu.get("label") or self.gpu.get("gpu")) if isinstance(self.gpu, dict) else None
        lines = ["check of process %s on %s: %d GPU libraries loaded, %d findings" % (
            self.pid, gpu or "no GPU", len(self.libraries), len(self.findings))]
        lines += [str(f) for f in self.findings]
        return "\n".join(lines)
