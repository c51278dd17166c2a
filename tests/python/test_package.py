"""The package around the API: lazy imports, the console script, python -m smcompat, stubs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import smcompat
from conftest import canon, cli_json, python_env, run_python

PKG = Path(smcompat.__file__).resolve().parent


def test_import_is_lazy():
    # a fresh interpreter: nothing heavy is imported by `import smcompat`
    p = run_python("import sys, smcompat; print(sorted(m for m in sys.modules))")
    assert p.returncode == 0, p.stderr
    base = run_python("import sys; print(sorted(m for m in sys.modules))")
    mods = set(eval(p.stdout)) - set(eval(base.stdout))  # what importing smcompat added
    for heavy in ("smcompat._native", "smcompat._api", "smcompat._types", "json", "subprocess",
                  "dataclasses", "torch", "inspect", "copy"):
        assert heavy not in mods, heavy
    assert {"smcompat", "smcompat._errors"} <= mods


def test_version_loads_the_native_module_on_demand():
    p = run_python("import sys, smcompat; v = smcompat.__version__; print(v, 'smcompat._native' in sys.modules)")
    assert p.returncode == 0, p.stderr
    version, loaded = p.stdout.split()
    assert loaded == "True" and version == smcompat.__version__


def test_public_names():
    for name in smcompat.__all__:
        assert getattr(smcompat, name) is not None, name
    assert smcompat.ScanReport.__module__ == "smcompat._types"
    with pytest.raises(AttributeError):
        smcompat.no_such_name


def test_stubs_and_marker_are_shipped():
    assert (PKG / "py.typed").is_file()
    assert (PKG / "__init__.pyi").is_file()
    assert (PKG / "_native.pyi").is_file()
    stub = (PKG / "__init__.pyi").read_text()
    for name in smcompat.__all__:
        if name != "__version__":
            assert ("class %s(" % name in stub) or ("def %s(" % name in stub), name


def test_python_m_forwards_to_the_bundled_cli(cli):
    p = run_python(["-m", "smcompat", "gpus", "RTX 5090", "--json"])
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    if doc.get("argv"):
        doc["argv"][0] = "smcompat"
    assert canon(doc) == canon(cli_json(cli, ["gpus", "RTX 5090", "--json"]))


def test_python_m_passes_exit_codes_through(tmp_path):
    p = run_python(["-m", "smcompat", "scan", str(tmp_path / "missing.so"), "--json", "-q"])
    assert p.returncode == 2


def test_console_script_runs_the_bundled_binary(cli):
    p = subprocess.run([cli, "--version"], capture_output=True, text=True)
    assert p.returncode == 0
    assert p.stdout.split()[-1] == smcompat.__version__


def test_console_script_without_the_binary(tmp_path):
    # a copy of the installed package without bin/: the entry point says what is missing
    copy = tmp_path / "site" / "smcompat"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("bin", "__pycache__"))
    env = python_env()
    env["PYTHONPATH"] = str(tmp_path / "site")
    p = run_python("from smcompat._cli import main; main()", env=env)
    assert p.returncode == 2
    assert "bundled command-line tool is missing: %s" % (copy / "bin" / "smcompat") in p.stderr


def test_the_wheel_ships_the_package_files():
    import os
    import zipfile
    wheel = os.environ.get("SMCOMPAT_WHEEL")
    if not wheel:
        pytest.skip("the wheel under test: set SMCOMPAT_WHEEL to its path")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("__init__.py", "__init__.pyi", "_native.pyi", "py.typed", "_api.py", "_types.py",
                 "_errors.py", "_cli.py", "__main__.py", "testing.py", "pytest_plugin.py",
                 "bin/smcompat", "lib/libsmcompat_trace.so", "_native.py", "lib/libsmcompat_py.so"):
        assert "smcompat/" + name in names, name
    # the native part is a C ABI library loaded with ctypes, not a CPython extension: no
    # interpreter-specific module (_native.cpython-311-x86_64-linux-gnu.so, *.abi3.so) is shipped
    assert not any(n.endswith(".so") and ("cpython-" in n or ".abi3." in n) for n in names)
    assert not any(n.startswith("smcompat/_native.") and n.endswith(".so") for n in names)
    # the smcompat wheel itself carries no GPU code: assert_runs_on says so
    from smcompat.testing import assert_runs_on
    with pytest.raises(AssertionError, match="no GPU device code found"):
        assert_runs_on(wheel, "RTX 5090")


# The newest glibc the repaired wheel may need, as docs/python.md documents it: smcompat's own
# code and the libraries auditwheel vendors need GLIBC_2.34 at most (libarchive is linked
# statically, without Debian 12's arc4random_buf reference, GLIBC_2.36: python/CMakeLists.txt).
DOCUMENTED_GLIBC = (2, 34)


def test_the_wheel_tag_is_the_documented_manylinux_policy():
    import os
    import platform
    import re
    wheel = os.environ.get("SMCOMPAT_WHEEL")
    if not wheel:
        pytest.skip("the wheel under test: set SMCOMPAT_WHEEL to its path")
    # name-version-python-abi-platform.whl; the platform part may be a dotted set of tags
    python_tag, abi_tag, platform_tags = Path(wheel).name[:-len(".whl")].split("-")[-3:]
    # one wheel for every CPython: no interpreter or ABI in the tag
    assert (python_tag, abi_tag) == ("py3", "none"), Path(wheel).name
    platforms = platform_tags.split(".")
    for tag in platforms:
        m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
        assert m, "%s: not a manylinux_X_Y tag (auditwheel repair did not run?)" % tag
        assert (int(m.group(1)), int(m.group(2))) <= DOCUMENTED_GLIBC, tag
        assert m.group(3) == platform.machine(), tag
