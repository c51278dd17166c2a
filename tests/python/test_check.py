"""smcompat.check() and `python -m smcompat check` on a live process that has loaded
nvcc-built libraries with ctypes, the fake driver serving an RTX 5090.

SMCOMPAT_CHECK_FIXTURES holds libsm120.so (sm_120 SASS), libsm90.so (sm_90 SASS only) and
libptx.so (compute_90 PTX only); SMCOMPAT_FAKE_DRIVER_DIR the fake libcuda.so.1."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import types

import pytest

from conftest import corpus_venv, python_env, run_python

FIXTURE_NAMES = ("libsm120.so", "libsm90.so", "libptx.so")


@pytest.fixture
def env(fake_driver_dir, check_fixtures):
    return python_env({"LD_LIBRARY_PATH": str(fake_driver_dir), "SMCOMPAT_FAKE_GPUS": "RTX 5090"})


def _child(check_fixtures, env, libs, body):
    code = textwrap.dedent("""
        import ctypes, json, os, sys
        for name in %r:
            ctypes.CDLL(os.path.join(%r, name))
        import smcompat
    """ % (list(libs), str(check_fixtures))) + textwrap.dedent(body)
    p = run_python(code, env=env)
    assert p.returncode == 0, "child failed:\nstdout: %s\nstderr: %s" % (p.stdout[-3000:], p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def _fixture_libraries(doc, check_fixtures):
    """{basename: library row} of the rows that are fixture libraries."""
    root = os.path.realpath(check_fixtures)
    out = {}
    for lib in doc["libraries"]:
        if os.path.dirname(os.path.realpath(lib["path"])) == root:
            out[os.path.basename(lib["path"])] = lib
    return out


def _fixtures_named_in(findings):
    text = json.dumps(findings)
    return {n for n in FIXTURE_NAMES if n in text}


CHECK_BODY = """
    r = smcompat.check()
    print(json.dumps({"pid": os.getpid(), "ok": r.ok, "doc": r.to_dict(),
                      "libs": [l.path for l in r.libraries], "ids": [f.id for f in r.findings]}))
"""


def test_check_names_exactly_the_loaded_files(check_fixtures, env):
    out = _child(check_fixtures, env, ["libsm90.so", "libptx.so"], CHECK_BODY)
    doc = out["doc"]
    assert doc["schema"] == "smcompat.check/1"
    assert doc["argv"][0] == "smcompat"
    assert doc["pid"] == out["pid"]
    assert "RTX 5090" in json.dumps(doc["gpu"])
    libs = _fixture_libraries(doc, check_fixtures)
    assert sorted(libs) == ["libptx.so", "libsm90.so"]          # libsm120.so is in the directory, not loaded
    # Nothing else this process mapped (the interpreter, ctypes, smcompat's own extension and the
    # libraries vendored with it) carries device code.
    assert sorted(os.path.basename(l["path"]) for l in doc["libraries"]) == ["libptx.so", "libsm90.so"]
    assert libs["libsm90.so"]["fit"] == "no-image"
    assert libs["libsm90.so"]["targets"] == ["sm_90"]
    assert libs["libptx.so"]["fit"] == "ptx-jit"
    assert libs["libptx.so"]["targets"] == ["compute_90"]
    assert libs["libptx.so"]["best_image"] == "compute_90"
    assert _fixtures_named_in(doc["findings"]) == {"libsm90.so", "libptx.so"}
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert _fixtures_named_in(errors) == {"libsm90.so"}
    assert out["ok"] is False
    assert out["libs"] == [l["path"] for l in doc["libraries"]]


def test_check_passes_when_only_sm120_is_loaded(check_fixtures, env):
    out = _child(check_fixtures, env, ["libsm120.so"], CHECK_BODY)
    libs = _fixture_libraries(out["doc"], check_fixtures)
    assert sorted(libs) == ["libsm120.so"]
    assert libs["libsm120.so"]["fit"] == "native"
    assert libs["libsm120.so"]["best_image"] == "sm_120"
    assert _fixtures_named_in(out["doc"]["findings"]) == set()
    assert out["ok"] is True


def test_check_raise_on_error(check_fixtures, env):
    out = _child(check_fixtures, env, ["libsm90.so", "libsm120.so"], """
        try:
            smcompat.check(raise_on="error")
            print(json.dumps({"raised": False}))
        except smcompat.CheckFailed as e:
            print(json.dumps({"raised": True, "text": str(e), "is_error": isinstance(e, smcompat.SmcompatError),
                              "findings": [f.to_dict() for f in e.findings],
                              "report_findings": [f.to_dict() for f in e.report.findings]}))
    """)
    assert out["raised"] is True and out["is_error"] is True
    assert out["findings"] == [f for f in out["report_findings"] if f["severity"] == "error"]
    assert "libsm90.so" in out["text"] and "libsm120.so" not in out["text"]
    for f in out["findings"]:
        assert f["fix"] in out["text"]


def test_check_raise_on_error_passes_with_sm120(check_fixtures, env):
    out = _child(check_fixtures, env, ["libsm120.so"], """
        r = smcompat.check(raise_on="error")
        print(json.dumps({"raised": False, "n": len(r.libraries)}))
    """)
    assert out == {"raised": False, "n": out["n"]} and out["n"] >= 1


@pytest.fixture
def loader(tmp_path, check_fixtures):
    """A module that loads libsm90.so and libptx.so when imported."""
    (tmp_path / "load_gpu_libs.py").write_text(textwrap.dedent("""
        import ctypes, os
        for name in ("libsm90.so", "libptx.so"):
            ctypes.CDLL(os.path.join(%r, name))
    """ % str(check_fixtures)))
    return tmp_path


def _m_check(env, loader, *args):
    env = dict(env)
    env["PYTHONPATH"] = str(loader) + os.pathsep + env["PYTHONPATH"]
    return run_python(["-m", "smcompat", "check"] + list(args), env=env)


def test_python_m_check_json(env, loader, check_fixtures):
    p = _m_check(env, loader, "--import", "load_gpu_libs", "--json")
    assert p.returncode == 1, p.stderr          # an error finding: --fail-on error is the default
    doc = json.loads(p.stdout)
    assert doc["schema"] == "smcompat.check/1"
    assert sorted(_fixture_libraries(doc, check_fixtures)) == ["libptx.so", "libsm90.so"]
    assert _fixtures_named_in(doc["findings"]) == {"libsm90.so", "libptx.so"}


def test_python_m_check_text_and_exit_codes(env, loader):
    p = _m_check(env, loader, "--import", "load_gpu_libs")
    assert p.returncode == 1, p.stderr
    assert "libsm90.so" in p.stdout and "libptx.so" in p.stdout and "libsm120.so" not in p.stdout
    assert not p.stdout.lstrip().startswith("{")
    assert _m_check(env, loader, "--import", "load_gpu_libs", "--fail-on", "error").returncode == 1
    assert _m_check(env, loader).returncode == 0                                 # nothing loaded
    assert _m_check(env, loader, "--fail-on", "error").returncode == 0
    bad = _m_check(env, loader, "--import", "no_such_module_smcompat")
    assert bad.returncode == 2 and "no_such_module_smcompat" in bad.stderr
    assert _m_check(env, loader, "--fail-on", "fatal").returncode == 2


# ------------------------------------------------------------------ torch facts


def _fake_torch(*, cuda="12.8", archs=("sm_90", "sm_120"), available=True):
    torch = types.ModuleType("torch")
    torch.__version__ = "2.7.0+cu128"
    torch.version = types.SimpleNamespace(cuda=cuda)
    calls = []

    def no_gpu(*a):
        raise RuntimeError("Found no NVIDIA driver on your system")

    torch.cuda = types.SimpleNamespace(
        get_arch_list=lambda: list(archs),
        is_available=lambda: available,
        current_device=(lambda: 0) if available else no_gpu,
        get_device_capability=(lambda d=None: (12, 0)) if available else no_gpu,
        get_device_name=(lambda d=None: "NVIDIA GeForce RTX 5090") if available else no_gpu,
    )
    torch._C = types.SimpleNamespace(_cuda_getArchFlags=lambda: " ".join(archs) or None)
    torch.calls = calls
    return torch


def test_torch_facts_from_an_imported_torch(monkeypatch):
    from smcompat import _api
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    assert _api.torch_info("auto") == {
        "version": "2.7.0+cu128", "cuda": "12.8", "arch_list": ["sm_90", "sm_120"],
        "capability": [12, 0], "device": 0, "device_name": "NVIDIA GeForce RTX 5090"}


def test_torch_facts_without_a_gpu(monkeypatch):
    from smcompat import _api
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(available=False))
    assert _api.torch_info("auto") == {
        "version": "2.7.0+cu128", "cuda": "12.8", "arch_list": ["sm_90", "sm_120"],
        "capability": None, "device": None, "device_name": None}


def test_torch_facts_cpu_build(monkeypatch):
    from smcompat import _api
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(cuda=None, archs=(), available=False))
    assert _api.torch_info("auto") == {
        "version": "2.7.0+cu128", "cuda": None, "arch_list": [], "capability": None, "device": None,
        "device_name": None}


def test_torch_is_never_imported_by_auto(monkeypatch):
    from smcompat import _api
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert _api.torch_info("auto") is None
    assert "torch" not in sys.modules
    assert _api.torch_info(None) is None


def test_real_torch_facts_in_the_corpus_venv(corpus):
    venv = corpus_venv(corpus, "torch", run=True)
    code = "import json, torch, smcompat._api as a; print(json.dumps(a.torch_info('auto')))"
    import subprocess
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                       env=python_env({"CUDA_VISIBLE_DEVICES": ""}))
    # An ImportError of smcompat there is this build's failure, not a missing subject.
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {
        "version": "2.15.0+cu132", "cuda": "13.2",
        "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
        "capability": None, "device": None, "device_name": None}


FAKE_TORCH_CHILD = """
    import types
    torch = types.ModuleType("torch")
    torch.__version__ = "2.7.0+cu128"
    torch.version = types.SimpleNamespace(cuda="12.8")
    gpu = %r
    def no_gpu(*a):
        raise RuntimeError("no GPU")
    torch.cuda = types.SimpleNamespace(
        get_arch_list=lambda: ["sm_90", "sm_120"], is_available=lambda: gpu,
        current_device=(lambda: 0) if gpu else no_gpu,
        get_device_capability=(lambda d=None: (12, 0)) if gpu else no_gpu,
        get_device_name=(lambda d=None: "NVIDIA GeForce RTX 5090") if gpu else no_gpu)
    sys.modules["torch"] = torch
    r = smcompat.check()
    print(json.dumps(r.to_dict()))
"""


def test_check_reports_an_imported_torch(check_fixtures, env):
    doc = _child(check_fixtures, env, ["libsm120.so"], FAKE_TORCH_CHILD % True)
    t = doc["torch"]
    assert (t["version"], t["cuda"], t["arch_list"], t["device"], t["device_name"]) == (
        "2.7.0+cu128", "12.8", ["sm_90", "sm_120"], 0, "NVIDIA GeForce RTX 5090")
    assert t["capability"] in ("12.0", [12, 0])


def test_check_accepts_a_torch_without_gpu(check_fixtures, env):
    # the facts a torch without a usable GPU gives: capability, device and name unknown (null)
    doc = _child(check_fixtures, env, ["libsm120.so"], FAKE_TORCH_CHILD % False)
    t = doc["torch"]
    assert (t["version"], t["cuda"], t["arch_list"]) == ("2.7.0+cu128", "12.8", ["sm_90", "sm_120"])
    assert t["capability"] is None


def test_check_without_torch(check_fixtures, env):
    doc = _child(check_fixtures, env, [], "print(json.dumps(smcompat.check().to_dict()))")
    assert doc["torch"] is None
    assert "torch" not in json.dumps(doc["libraries"])


def test_check_of_another_process_equals_cli(cli, check_fixtures, env):
    """check(pid=P) from one process against `smcompat check --pid P --json` on the same live child."""
    import subprocess
    help_ = subprocess.run([cli, "check", "--help"], capture_output=True, text=True)
    # The console script is this build's: a missing `check --pid` or a failing --help fails.
    assert help_.returncode == 0, help_.stderr
    assert "--pid" in help_.stdout, help_.stdout
    child = subprocess.Popen(
        [sys.executable, "-c", "import ctypes, os, sys\n"
         "for n in ('libsm90.so', 'libptx.so'): ctypes.CDLL(os.path.join(%r, n))\n"
         "print('ready', flush=True)\nsys.stdin.read()" % str(check_fixtures)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "ready"
        p = run_python("import json, smcompat; print(json.dumps(smcompat.check(pid=%d).to_dict()))" % child.pid,
                       env=env)
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        assert doc["pid"] == child.pid
        assert sorted(_fixture_libraries(doc, check_fixtures)) == ["libptx.so", "libsm90.so"]
        from conftest import canon, cli_json
        by_argv = cli_json(cli, doc["argv"][1:], env=env)
        assert canon(by_argv) == canon(doc)
        by_spec = cli_json(cli, ["check", "--pid", str(child.pid), "--json"], env=env)
        by_spec.pop("argv")
        doc.pop("argv")
        assert canon(by_spec) == canon(doc)
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_real_torch_on_the_fake_rtx5090(corpus, fake_driver_dir):
    """PyPI's torch 2.15.0+cu132 (corpus venv) imported, then `python -m smcompat check`: its
    CUDA libraries are loaded and judged for the RTX 5090 the fake driver serves. torch's arch list
    names less than libtorch_cuda.so carries (sm_89, sm_90a, ... come from single-architecture
    kernels): that is not a contradiction, so no torch-* finding; the one warning is NVIDIA's
    cuFile, which ships no sm_120 SASS."""
    venv = corpus_venv(corpus, "torch", run=True)
    import subprocess
    env = python_env({"LD_LIBRARY_PATH": str(fake_driver_dir), "SMCOMPAT_FAKE_GPUS": "RTX 5090"})
    p = subprocess.run([str(venv / "bin" / "python"), "-m", "smcompat", "check", "--import", "torch",
                        "--json"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    assert doc["torch"]["version"] == "2.15.0+cu132"
    assert doc["torch"]["arch_list"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    site = os.path.realpath(venv / "lib" / "python3.11" / "site-packages")
    fits = {os.path.relpath(os.path.realpath(l["path"]), site): l["fit"] for l in doc["libraries"]}
    assert all(not rel.startswith("..") for rel in fits), fits   # only the venv's libraries
    assert fits["torch/lib/libtorch_cuda.so"] == "native"
    assert fits["nvidia/cu13/lib/libcufile.so.0"] == "ptx-jit"
    assert {f for f, v in fits.items() if v != "native"} == {"nvidia/cu13/lib/libcufile.so.0"}
    assert [(f["severity"], f["id"]) for f in doc["findings"] if f["severity"] != "info"] == [
        ("warning", "package-ptx-jit")]
    assert "nvidia-cufile" in doc["findings"][0]["title"]
