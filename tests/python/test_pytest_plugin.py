"""The pytest plugin (--smcompat-gpu, smcompat_gpus, smcompat_assert_runs_on) and
smcompat.testing.assert_runs_on, on real corpus wheels."""

from __future__ import annotations

import sys

import pytest

import smcompat
from conftest import corpus_wheel
from smcompat.testing import assert_runs_on


def _entry_point_registered() -> bool:
    if sys.version_info >= (3, 10):
        from importlib.metadata import entry_points
        eps = entry_points(group="pytest11")
    else:  # pragma: no cover
        from importlib.metadata import entry_points
        eps = entry_points().get("pytest11", [])
    return any(ep.name == "smcompat" and ep.value == "smcompat.pytest_plugin" for ep in eps)


def _plugin_args():
    # installed from the wheel, pytest loads the plugin through its entry point; from a source
    # tree it is named explicitly
    return [] if _entry_point_registered() else ["-p", "smcompat.pytest_plugin"]


def test_entry_point_is_registered():
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        distribution("smcompat")
    except PackageNotFoundError:
        pytest.skip("smcompat is not installed as a distribution (source tree on PYTHONPATH): no entry points")
    assert _entry_point_registered()


@pytest.fixture
def wheels(corpus):
    return {
        "native": corpus_wheel(corpus, "cupy_cuda12x-"),      # sm_120 SASS in every module
        "ptx-only": corpus_wheel(corpus, "nvidia_cufile-"),   # sm_75..sm_90 SASS + compute_90 PTX
    }


def _write_test(pytester, wheel, allow_jit=False):
    pytester.makepyfile(test_wheel="""
        def test_wheel(smcompat_assert_runs_on):
            reports = smcompat_assert_runs_on(%r, allow_jit=%r)
            assert [r.target.cc for r in reports] == ["12.0"] * len(reports)
    """ % (str(wheel), allow_jit))


def test_plugin_passes_a_wheel_with_sm120_code(pytester, wheels):
    _write_test(pytester, wheels["native"])
    result = pytester.runpytest(*_plugin_args(), "--smcompat-gpu", "RTX 5090")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["smcompat GPUs: RTX 5090"])


def test_plugin_fails_a_wheel_without_sm120_code(pytester, wheels):
    _write_test(pytester, wheels["ptx-only"])
    result = pytester.runpytest(*_plugin_args(), "--smcompat-gpu", "RTX 5090")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*does not run natively on GeForce RTX 5090 (12.0):*",
        "*ptx-jit*nvidia/cu13/lib/libcufile.so.0 [[]package nvidia_cufile[]]: needs PTX JIT*offers*compute_90*",
        "*packages: nvidia_cufile 1.17.1.22 (ptx-jit)*",
    ])


def test_plugin_allow_jit_accepts_ptx(pytester, wheels):
    _write_test(pytester, wheels["ptx-only"], allow_jit=True)
    result = pytester.runpytest(*_plugin_args(), "--smcompat-gpu", "RTX 5090")
    result.assert_outcomes(passed=1)


def test_plugin_fails_for_one_of_two_gpus(pytester, wheels):
    # cufile has sm_90 SASS: native on an H100, JIT on an RTX 5090
    pytester.makepyfile(test_wheel="""
        def test_wheel(smcompat_assert_runs_on):
            smcompat_assert_runs_on(%r)
    """ % str(wheels["ptx-only"]))
    result = pytester.runpytest(*_plugin_args(), "--smcompat-gpu", "H100", "--smcompat-gpu", "RTX 5090")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*does not run natively on GeForce RTX 5090 (12.0):*"])
    result.stdout.no_fnmatch_line("*does not run natively on *H100*")
    assert_runs_on(wheels["ptx-only"], "H100")


def test_fixture_skips_without_a_gpu(pytester, wheels):
    _write_test(pytester, wheels["native"])
    result = pytester.runpytest(*_plugin_args(), "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*no GPU named; pass --smcompat-gpu NAME*"])


def test_ini_option_and_command_line_override(pytester, monkeypatch):
    pytester.makeini("""
        [pytest]
        smcompat_gpus =
            RTX 5090
            H100 SXM
    """)
    pytester.makepyfile(test_names="""
        import os
        def test_names(smcompat_gpus):
            assert smcompat_gpus == os.environ["EXPECTED"].split(",")
    """)
    monkeypatch.setenv("EXPECTED", "RTX 5090,H100 SXM")
    pytester.runpytest(*_plugin_args()).assert_outcomes(passed=1)
    monkeypatch.setenv("EXPECTED", "B200")
    pytester.runpytest(*_plugin_args(), "--smcompat-gpu", "B200").assert_outcomes(passed=1)


def test_assert_runs_on_messages(corpus):
    ptx = corpus_wheel(corpus, "nvidia_cufile-")
    with pytest.raises(AssertionError) as info:
        assert_runs_on(ptx, "RTX 5090")
    text = str(info.value)
    assert text.splitlines()[0] == "%s does not run natively on GeForce RTX 5090 (12.0):" % ptx
    assert "nvidia/cu13/lib/libcufile.so.0" in text
    report = assert_runs_on(ptx, "RTX 5090", allow_jit=True)
    assert report.packages[0].verdict == "ptx-jit"
    # a wheel without device code is not a pass
    nocode = corpus_wheel(corpus, "nvidia_nvjitlink-")
    with pytest.raises(AssertionError, match="no GPU device code found"):
        assert_runs_on(nocode, "RTX 5090")
    # relocatable objects of static libraries are link inputs, never loaded: not judged, and
    # they do not decide the package verdict (the libraries that load do: sm_120 SASS)
    nvshmem = corpus_wheel(corpus, "nvidia_nvshmem_cu13-")
    assert assert_runs_on(nvshmem, "RTX 5090").packages[0].verdict == "native"
    # a bad GPU name is an error of the call, not a failed assertion
    with pytest.raises(smcompat.SmcompatError):
        assert_runs_on(ptx, "RTX 9999")
