"""pytest plugin of smcompat (entry point ``pytest11: smcompat = smcompat.pytest_plugin``).

    pytest --smcompat-gpu "RTX 5090" --smcompat-gpu H100

or in the ini file (one GPU per line)::

    [pytest]
    smcompat_gpus =
        RTX 5090
        H100

Fixtures: ``smcompat_gpus`` (the names; the test is skipped when none is given) and
``smcompat_assert_runs_on`` (``smcompat.testing.assert_runs_on`` for each of them)::

    def test_wheel(smcompat_assert_runs_on):
        smcompat_assert_runs_on("dist/mylib-1.0-cp311-cp311-manylinux_2_28_x86_64.whl")
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("smcompat", "smcompat: GPU code checks")
    group.addoption("--smcompat-gpu", action="append", dest="smcompat_gpus", default=None,
                    metavar="NAME",
                    help='GPU to check built code for (repeatable), e.g. "RTX 5090"; '
                         "overrides the smcompat_gpus ini option")
    parser.addini("smcompat_gpus", 'GPUs to check built code for, one per line (e.g. "RTX 5090")',
                  type="linelist", default=[])


def _configured_gpus(config) -> list:
    names = config.getoption("smcompat_gpus") or config.getini("smcompat_gpus") or []
    return [n.strip() for n in names if n and n.strip()]


def pytest_report_header(config):
    names = _configured_gpus(config)
    if names:
        return "smcompat GPUs: " + ", ".join(names)
    return None


@pytest.fixture
def smcompat_gpus(request) -> list:
    """The GPU names given with --smcompat-gpu (or the smcompat_gpus ini option)."""
    names = _configured_gpus(request.config)
    if not names:
        pytest.skip("smcompat: no GPU named; pass --smcompat-gpu NAME (repeatable) or set "
                    "smcompat_gpus in the ini file")
    return names


@pytest.fixture
def smcompat_assert_runs_on(smcompat_gpus):
    """``f(paths, *, allow_jit=False)``: assert that ``paths`` run natively on every GPU named
    with --smcompat-gpu; one AssertionError lists the problems of all of them."""
    from .testing import assert_runs_on

    def check(paths, *, allow_jit: bool = False):
        __tracebackhide__ = True  # pytest: the failure points at the caller's line
        failures = []
        reports = []
        for gpu in smcompat_gpus:
            try:
                reports.append(assert_runs_on(paths, gpu, allow_jit=allow_jit))
            except AssertionError as e:
                failures.append(str(e))
        if failures:
            raise AssertionError("\n".join(failures))
        return reports

    return check
