"""One wheel for every CPython >= 3.9: the wheel under test (py3-none-manylinux_*) installed into a
fresh venv of each CPython this machine has, and a smoke run there (import, version, gpus(), a scan,
an error with file and offset). Interpreters are found on PATH (python3.X) or under
~/.pyenv/versions; a missing one is a skip naming it. Cheap by design: the venvs get no pip of
their own (this interpreter's pip installs into them with --python), nothing is rebuilt."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import smcompat

SUPPORTED = ["3.9", "3.10", "3.11", "3.12", "3.13"]

SMOKE = r"""
import os, sys, smcompat
version, trace_shim, truncated, fixtures = sys.argv[1:5]
assert smcompat.__version__ == version, (smcompat.__version__, version)
assert "site-packages" in smcompat.__file__, smcompat.__file__   # the venv's copy, not the source
[gpu] = smcompat.gpus("RTX 5090")
assert (gpu.cc, gpu.sm) == ("12.0", "sm_120"), (gpu.cc, gpu.sm)
report = smcompat.scan(trace_shim, gpu="RTX 5090")
assert report.target.label == "GeForce RTX 5090 (12.0)", report.target.label
assert report.to_dict()["files"] == [] or all(not f.entries for f in report.files), report.to_dict()
if fixtures:
    r = smcompat.scan(os.path.join(fixtures, "libsm120.so"), gpu="RTX 5090")
    assert r.verdict == "native", r.verdict
try:
    smcompat.scan(truncated, gpu="RTX 5090", strict=True)
    raise SystemExit("no SmcompatError for a truncated ELF")
except smcompat.SmcompatError as e:
    assert e.file == truncated and e.offset is not None and e.reason, repr(e)
print("smoke ok", "%d.%d" % sys.version_info[:2])
"""


def find_interpreter(version: str) -> str | None:
    name = "python" + version
    candidates = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/%s.*/bin/%s" % (version, name))))
    on_path = shutil.which(name)
    for exe in candidates + ([on_path] if on_path else []):
        p = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip() == version:  # a pyenv shim of an absent version fails
            return exe
    return None


@pytest.fixture(scope="module")
def wheel() -> Path:
    path = os.environ.get("SMCOMPAT_WHEEL")
    if not path:
        pytest.skip("the wheel under test: set SMCOMPAT_WHEEL to its path")
    return Path(path)


@pytest.fixture(scope="module")
def truncated_elf(tmp_path_factory) -> Path:
    # an ELF header whose section header table lies past the end of the file
    shim = Path(smcompat.__file__).resolve().parent / "lib" / "libsmcompat_trace.so"
    out = tmp_path_factory.mktemp("elf") / "truncated.so"
    out.write_bytes(shim.read_bytes()[:64])
    return out


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_one_wheel_installs_and_runs_in_cpython(version, wheel, truncated_elf, tmp_path):
    exe = find_interpreter(version)
    if exe is None:
        pytest.skip("CPython %s: no python%s on PATH or under ~/.pyenv/versions" % (version, version))
    venv = tmp_path / "venv"
    subprocess.run([exe, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    p = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-compile",
                        "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    site = subprocess.run([python, "-c", "import smcompat, os; print(os.path.dirname(smcompat.__file__))"],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert site.returncode == 0, site.stderr
    shim = os.path.join(site.stdout.strip(), "lib", "libsmcompat_trace.so")
    fixtures = os.environ.get("SMCOMPAT_CHECK_FIXTURES", "")
    if fixtures and not os.path.exists(os.path.join(fixtures, "libsm120.so")):
        fixtures = ""
    p = subprocess.run([python, "-c", SMOKE, smcompat.__version__, shim, str(truncated_elf), fixtures],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.split() == ["smoke", "ok", version], p.stdout
