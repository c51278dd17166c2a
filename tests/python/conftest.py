"""Shared fixtures of the Python API tests.

These tests run against an INSTALLED smcompat (a wheel in a fresh venv). Environment:
  SMCOMPAT_CLI              the console script `smcompat` of that install (default: `smcompat` on PATH)
  SMCOMPAT_CORPUS           the real-world wheel cache (default ~/.cache/smcompat-corpus, filled by
                            scripts/fetch-corpus.sh)
  SMCOMPAT_FAKE_DRIVER_DIR  directory of the fake libcuda.so.1 / libnvidia-ml.so.1 (tests/fakedriver)
  SMCOMPAT_CHECK_FIXTURES   directory with nvcc-built libsm120.so, libsm90.so, libptx.so
Tests that need one of these skip with a message naming what is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CUDA_LIB64 = Path("/usr/local/cuda/lib64")


def canon(doc) -> str:
    """The comparison the JSON promise is about: same document, key order aside."""
    return json.dumps(doc, sort_keys=True)


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("SMCOMPAT_CLI") or shutil.which("smcompat")
    if not path:
        pytest.skip("the smcompat console script: set SMCOMPAT_CLI or put `smcompat` on PATH")
    if not os.access(path, os.X_OK):
        pytest.fail("SMCOMPAT_CLI=%s is not an executable file" % path)
    return path


def run_cli(cli, args, *, env=None, check_rc=(0,)) -> subprocess.CompletedProcess:
    p = subprocess.run([cli] + list(args), capture_output=True, text=True, env=env)
    if check_rc is not None and p.returncode not in check_rc:
        raise AssertionError("%s %s: exit %d\nstdout: %s\nstderr: %s" % (
            cli, " ".join(args), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def cli_json(cli, args, *, env=None) -> dict:
    """Run the console script, parse its --json output, normalise argv[0] to "smcompat".
    Exit 1 is a result (e.g. probe without a driver), not a failure."""
    p = run_cli(cli, args, env=env, check_rc=(0, 1))
    doc = json.loads(p.stdout)
    if isinstance(doc, dict) and doc.get("argv"):
        doc["argv"][0] = "smcompat"
    return doc


@pytest.fixture(scope="session")
def corpus() -> Path:
    root = Path(os.environ.get("SMCOMPAT_CORPUS") or Path.home() / ".cache" / "smcompat-corpus")
    if not (root / "wheels").is_dir():
        pytest.skip("the real-world corpus: %s/wheels is missing (run scripts/fetch-corpus.sh)" % root)
    return root


def corpus_wheel(corpus: Path, prefix: str) -> Path:
    found = sorted((corpus / "wheels").glob(prefix + "*.whl"))
    if not found:
        pytest.skip("corpus wheel %s*.whl is missing in %s/wheels (run scripts/fetch-corpus.sh)" % (prefix, corpus))
    return found[0]


def corpus_venv(corpus: Path, name: str, run: bool = False) -> Path:
    """A corpus venv; with run=True, one whose interpreter a test runs with this smcompat in it."""
    venv = corpus / "venvs" / name
    if not (venv / "bin" / "python").exists():
        pytest.skip("corpus venv %s is missing (run scripts/fetch-corpus.sh)" % venv)
    if run:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
        from corpus_venv import interpreter_skip_reason
        why = interpreter_skip_reason(str(venv))
        if why:
            pytest.skip(why)
    return venv


@pytest.fixture(scope="session")
def toolkit_lib64() -> Path:
    if not CUDA_LIB64.is_dir() or not any(CUDA_LIB64.glob("lib*.so*")):
        pytest.skip("the CUDA toolkit: %s with lib*.so is missing" % CUDA_LIB64)
    return CUDA_LIB64


@pytest.fixture(scope="session")
def fake_driver_dir() -> Path:
    d = os.environ.get("SMCOMPAT_FAKE_DRIVER_DIR")
    if not d:
        pytest.skip("the fake driver: set SMCOMPAT_FAKE_DRIVER_DIR to the directory of the fake libcuda.so.1")
    if not (Path(d) / "libcuda.so.1").exists():
        pytest.fail("SMCOMPAT_FAKE_DRIVER_DIR=%s has no libcuda.so.1" % d)
    return Path(d)


@pytest.fixture(scope="session")
def check_fixtures() -> Path:
    d = os.environ.get("SMCOMPAT_CHECK_FIXTURES")
    if not d:
        pytest.skip("the nvcc-built check fixtures: set SMCOMPAT_CHECK_FIXTURES to the directory of "
                    "libsm120.so, libsm90.so and libptx.so")
    missing = [n for n in ("libsm120.so", "libsm90.so", "libptx.so") if not (Path(d) / n).exists()]
    if missing:
        pytest.fail("SMCOMPAT_CHECK_FIXTURES=%s lacks %s" % (d, ", ".join(missing)))
    return Path(d)


def python_env(extra=None) -> dict:
    """The environment for a child Python that must import the same smcompat as this one."""
    import smcompat
    env = dict(os.environ)
    pkg_parent = str(Path(smcompat.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra or {})
    return env


def run_python(code_or_args, *, env=None, cwd=None) -> subprocess.CompletedProcess:
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else list(code_or_args)
    return subprocess.run([sys.executable] + args, capture_output=True, text=True,
                          env=env if env is not None else python_env(), cwd=cwd)


def pytest_report_header(config):
    import smcompat
    return "smcompat under test: %s (SMCOMPAT_CLI=%s)" % (
        Path(smcompat.__file__).resolve().parent, os.environ.get("SMCOMPAT_CLI") or shutil.which("smcompat"))
