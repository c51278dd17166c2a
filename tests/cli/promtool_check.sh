#!/usr/bin/env bash
# `promtool check metrics` on the real output of `smcompat export prometheus` under the fake
# driver (tests/fakedriver): several GPUs with topology, a scanned nvcc-built library in a folder
# whose name needs escaping (and is not UTF-8, which promtool would reject unreplaced), and the
# doctor on a venv made here with `python3 -m venv`. Passes only if promtool exits 0 and prints no
# lint problem (it prints them and exits 1). Also runs the same check on a --textfile write.
# Exits 77 (ctest SKIP_RETURN_CODE) when promtool is missing.
# Usage: promtool_check.sh SMCOMPAT FAKEDRIVER_DIR FIXTURE_SO WORKDIR
set -euo pipefail
smcompat=$1 fakedriver=$2 fixture=$3 work=$4
promtool=${PROMTOOL:-promtool}
if ! command -v "$promtool" >/dev/null; then
  echo "SKIP: promtool not found (Debian package prometheus; scripts/install-deps.sh installs it)"
  exit 77
fi
if [ ! -f "$fixture" ]; then
  echo "FAIL: nvcc fixture $fixture missing (nvcc was not found when CMake ran)" >&2
  exit 1
fi
rm -rf "$work"
mkdir -p "$work"
libs="$work/libs \"q\"\\b"$'\n'"n caf"$'\xe9'  # quote, backslash, newline, Latin-1
mkdir -p "$libs"
cp "$fixture" "$libs/"
python3 -m venv --without-pip "$work/venv"

# promtool really lints: a family without HELP, a counter without _total.
if printf '# TYPE bad counter\nbad 1\n' | "$promtool" check metrics >/dev/null 2>&1; then
  echo "FAIL: promtool accepted metrics with lint problems; this check would prove nothing" >&2
  exit 1
fi

check() {  # FILE: promtool must exit 0 and print nothing
  local out rc=0
  out=$("$promtool" check metrics <"$1" 2>&1) || rc=$?
  if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
    echo "FAIL: promtool check metrics exited $rc on $1:" >&2
    echo "$out" >&2
    exit 1
  fi
}

export LD_LIBRARY_PATH="$fakedriver" SMCOMPAT_FAKE_GPUS="RTX 5090,H100,H100,B200" \
  SMCOMPAT_FAKE_P2P=1 SMCOMPAT_FAKE_NVLINK=2 NO_COLOR=1
args=(export prometheus --scan "$libs" --scan "$fixture" --python "$work/venv" --gpu GB10
      --proc-version /nonexistent --dev-dir "$work")
"$smcompat" "${args[@]}" >"$work/stdout.prom"
check "$work/stdout.prom"
mkdir -p "$work/textfile"
"$smcompat" "${args[@]}" --textfile "$work/textfile/smcompat.prom"
check "$work/textfile/smcompat.prom"
[ "$(ls "$work/textfile")" = "smcompat.prom" ] || { echo "FAIL: $(ls "$work/textfile")" >&2; exit 1; }
for family in smcompat_up smcompat_gpu_info smcompat_gpu_p2p_access smcompat_scan_verdict \
              smcompat_package_verdict smcompat_findings smcompat_run_duration_seconds; do
  grep -q "^# TYPE $family gauge$" "$work/stdout.prom" ||
    { echo "FAIL: no $family in the output" >&2; exit 1; }
done
echo "promtool check metrics: OK ($(grep -vc '^#' "$work/stdout.prom") series)"
