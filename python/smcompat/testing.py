"""Test helpers for library maintainers: does my wheel / build run natively on a GPU?

    from smcompat.testing import assert_runs_on
    assert_runs_on("dist/mylib-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", "RTX 5090")

With the pytest plugin (``--smcompat-gpu NAME``), the fixture ``smcompat_assert_runs_on`` does
the same for every GPU named on the command line or in the ini file.
"""

from __future__ import annotations

_RUNS = ("native", "compatible-sass")
_JIT = ("ptx-jit",)


def _loading_units(f) -> int:
    counts = f.unit_counts or {}
    return sum(v for v in counts.values() if isinstance(v, int))


def problems(report, *, allow_jit: bool = False) -> list:
    """The lines an ``assert_runs_on`` failure lists for a ``ScanReport`` (empty when it passes)."""
    ok = _RUNS + (_JIT if allow_jit else ())
    lines = []
    for e in report.errors:
        lines.append("  unreadable  %s" % e)
    judged = 0
    link_only = 0
    for f in report.files:
        for e in f.errors:
            lines.append("  read error  %s" % e)
        if f.verdict is None:
            continue
        if _loading_units(f) == 0 and not (f.jit_link or {}).get("used"):
            # no loading unit: relocatable objects in static libraries are link inputs, never loaded
            link_only += 1
            continue
        judged += 1
        if f.verdict in ok:
            continue
        what = {"ptx-jit": "needs PTX JIT (allow_jit=True accepts it)",
                "unsupported-ptx": "PTX too new for the driver",
                "driver-too-old": "the driver predates this GPU or the CUDA runtime",
                "no-image": "no code for this GPU"}.get(f.verdict, f.verdict)
        targets = ", ".join(f.targets) or "none"
        lines.append("  %-10s  %s [package %s]: %s; offers %s\n              %s" % (
            f.verdict, f.name, f.package, what, targets, f.summary))
    if judged == 0 and not lines:
        if link_only:
            lines.append("  no loadable GPU code found (%d relocatable objects of static libraries: link "
                         "inputs, never loaded)" % link_only)
        else:
            lines.append("  no GPU device code found")
    return lines


def assert_runs_on(paths, gpu: str, *, allow_jit: bool = False):
    """Scan ``paths`` (wheels, directories, .so files, ...) for ``gpu`` ("RTX 5090", "H100 SXM",
    ...) and raise ``AssertionError`` listing every file that has no native code for it (SASS of
    the GPU's architecture, or compatible SASS), every file that would need PTX JIT (unless
    ``allow_jit``), every read error, and the case that no GPU code was found at all. Returns
    the ``ScanReport`` when everything runs."""
    __tracebackhide__ = True  # pytest: the failure points at the caller's line
    from . import scan

    report = scan(paths, gpu=gpu, probe=False)
    lines = problems(report, allow_jit=allow_jit)
    if lines:
        label = report.target.label if report.target else gpu
        shown = paths if isinstance(paths, (list, tuple)) else [paths]
        head = "%s do%s not run natively on %s:" % (
            ", ".join(str(p) for p in shown), "es" if len(shown) == 1 else "", label)
        bad_pkgs = [p for p in report.packages
                    if p.verdict is not None and p.verdict not in _RUNS + (_JIT if allow_jit else ())]
        tail = ["packages: " + ", ".join("%s %s (%s)" % (p.name, p.version, p.verdict) if p.version
                                         else "%s (%s)" % (p.name, p.verdict) for p in bad_pkgs)] if bad_pkgs else []
        raise AssertionError("\n".join([head] + lines + tail))
    return report
