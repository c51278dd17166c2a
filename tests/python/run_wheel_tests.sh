#!/usr/bin/env bash
# CTest's python_wheel test (tests/python/CMakeLists.txt): what a user does, then pytest.
#   1. scripts/build-wheel.sh builds the wheel the way `pip install .` does and repairs it with
#      auditwheel (vendored codec libraries, manylinux tag); the repaired wheel is what is tested;
#   2. a fresh venv gets that wheel and pytest, and pytest runs tests/python against it.
# Exit 77 (CTest: skipped) with a message when PyPI cannot be reached for the build requirements.
# Usage: run_wheel_tests.sh SOURCE_DIR WORK_DIR PYTHON
set -euo pipefail
src=$1
work=$2
py=$3
mkdir -p "$work"

skip_if_offline() {  # $1: log of a pip run that failed
  if grep -qE "Could not find a version|No matching distribution|Failed to establish|Network is unreachable|Temporary failure in name resolution" "$1"; then
    echo "SKIP: PyPI cannot be reached (see $1)"
    exit 77
  fi
}

echo "== scripts/build-wheel.sh (pip wheel, auditwheel show and repair)"
rc=0
repaired=$(PYTHON=$py "$src/scripts/build-wheel.sh" "$work/dist" | tail -1) || rc=$?
if [ "$rc" = 3 ]; then
  echo "SKIP: PyPI cannot be reached for the wheel's build requirements or auditwheel"
  exit 77
fi
[ "$rc" = 0 ] || exit "$rc"
cat "$work/dist/auditwheel-show.txt"
echo "repaired: $repaired"

echo "== a fresh venv with the wheel"
venv=$work/venv
"$py" -m venv --clear "$venv"
if ! "$venv/bin/pip" install -q "$repaired" pytest >"$work/install.log" 2>&1; then
  skip_if_offline "$work/install.log"
  tail -20 "$work/install.log"
  exit 1
fi

echo "== pytest tests/python"
cd "$work"
export SMCOMPAT_CLI=$venv/bin/smcompat
export SMCOMPAT_WHEEL=$repaired
# The doctor and the API read the environment: keep the venv of this test out of the way of the
# one pytest runs in (both are the same fresh venv, named explicitly where a test needs one).
unset VIRTUAL_ENV CONDA_PREFIX
rc=0
"$venv/bin/python" -m pytest "$src/tests/python" -p no:cacheprovider -q -rs \
  --junitxml="$work/pytest.xml" || rc=$?
# CTest shows one line for the whole run: count pytest's outcomes and print every skip with its
# reason. A skip whose subject is this build (its console script, its wheel, its installation)
# hides a defect, so it fails the test; skips for a missing corpus, toolkit or GPU are listed.
"$venv/bin/python" - "$work/pytest.xml" <<'PY' || rc=1
import sys
import xml.etree.ElementTree as ET
cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase"))
skipped = [(c.get("name"), (c.find("skipped").get("message") or "")) for c in cases
           if c.find("skipped") is not None]
failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
print("python_wheel: %d pytest tests, %d passed, %d failed, %d skipped"
      % (len(cases), len(cases) - len(skipped) - len(failed), len(failed), len(skipped)))
ours = ("console script", "the wheel under test", "not installed as a distribution",
        "cannot be imported")
bad = 0
for name, why in skipped:
    mine = any(w in why for w in ours)
    bad += mine
    print("  %s %s: %s" % ("SKIP OF THIS BUILD (a failure)" if mine else "skipped", name, why))
sys.exit(1 if bad else 0)
PY
exit "$rc"
