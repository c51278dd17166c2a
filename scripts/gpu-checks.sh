#!/usr/bin/env bash
# Runs every pending GPU check of docs/gpu-checks/README.md that an H100/H200 can settle, in one
# call, on a machine with a GPU: from the repository root, with gpu-kit/ (scripts/gpu-kit.sh)
# beside it. Installs nothing; each step has its own time budget and the run goes on past any
# failure; the whole run stays under 8 minutes.
#   scripts/gpu-checks.sh [OUT_DIR]      (default: $OUT when set, else ./gpu-checks-out)
# Writes OUT_DIR/gpu-checks.md (summary), OUT_DIR/results.json (smcompat.gpu-checks/1) and
# OUT_DIR/gpu-checks-logs.tar.gz (every command's output). Exit 0 when no step failed, 1 when one
# did (a disagreement, an error or a timeout), 2 when the kit is missing.
# SMCOMPAT_GPU_KIT=DIR uses another kit; SMCOMPAT_GPU_CHECKS_SYNTHETIC=1 marks a run against the
# test suite's fake driver (CI): results say "synthetic" and prove only that the script works.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$PWD/gpu-checks-out}}
kit=${SMCOMPAT_GPU_KIT:-$src/gpu-kit}
steps_dir=$src/tests/gpu-checks/steps
if [ ! -x "$kit/bin/smcompat" ]; then
  echo "gpu-checks.sh: no kit at $kit (run scripts/gpu-kit.sh where the project builds, and carry gpu-kit/)" >&2
  exit 2
fi
mkdir -p "$out" || exit 2
synthetic=()
[ "${SMCOMPAT_GPU_CHECKS_SYNTHETIC:-0}" = 1 ] && synthetic=(--synthetic)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-checks.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# The kit's programs find the CUDA runtime they carry; the real driver comes from the system.
export PATH="$kit/bin:$PATH:/usr/local/cuda/bin"

# id budget_seconds: in this order (machine first: the others read what it found). The budgets
# add up to 440 s; a global deadline of 450 s for the steps keeps the run under 8 minutes. (On
# the H200 of 2026-11-27 matrix took 35 s and bench 57 s: they gave 15 s each to lower.)
steps=("machine 30" "probe 40" "matrix 85" "ptx 25" "lower 30" "smem 15" "bench 105" "frameworks 70" "fleet 40")
deadline=$((SECONDS + 450))
start=$SECONDS
for spec in "${steps[@]}"; do
  read -r id budget <<<"$spec"
  left=$((deadline - SECONDS))
  ((budget > left)) && budget=$left
  mkdir -p "$work/$id"
  if ((budget < 5)); then
    echo "gpu-checks: $id not run: the 450 s deadline is reached" | tee "$work/$id/not-run"
    echo 125 >"$work/$id/exit_status"
    continue
  fi
  t0=$SECONDS
  # The step plans within its budget (GPU_CHECKS_BUDGET_S); -B: no __pycache__ in the checkout.
  GPU_CHECKS_BUDGET_S=$budget timeout -k 5 "$budget" python3 -B "$steps_dir/step_$id.py" --kit "$kit" --work "$work/$id" \
    --result "$work/$id/result.json" "${synthetic[@]}" >"$work/$id/step.log" 2>&1
  rc=$?
  echo "$rc" >"$work/$id/exit_status"
  echo "$budget" >"$work/$id/budget_s"
  printf 'gpu-checks: %-10s exit %-3s %4d s (budget %d s)\n' "$id" "$rc" $((SECONDS - t0)) "$budget"
done

python3 -B "$steps_dir/summarize.py" --work "$work" --out "$out" --kit "$kit" \
  --wall $((SECONDS - start)) "${synthetic[@]}"
summary_rc=$?
tar -czf "$out/gpu-checks-logs.tar.gz" -C "$work" . || summary_rc=2
echo "gpu-checks: $out/gpu-checks.md, $out/results.json, $out/gpu-checks-logs.tar.gz ($((SECONDS - start)) s)"
((summary_rc != 0)) && exit 2
# 1 when a step failed, errored or ran out of time; a skipped step (no torch, say) is not a failure.
python3 -c 'import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
sys.exit(1 if any(s["status"] not in ("pass", "skip") for s in steps) else 0)' "$out/results.json"
