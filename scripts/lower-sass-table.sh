#!/usr/bin/env bash
# Static cost of `ptx lower` (docs/ptx.md): SASS instructions, shared-memory loads and MMAs of each
# Triton fixture kernel lowered for sm_120 (from its sm_90a or sm_100a build) against Triton's own
# sm_120a build of the same kernel. Needs ptxas (CUDA_BIN, default /usr/local/cuda/bin) and
# cuobjdump (CUOBJDUMP, default: the one in the Triton wheel of the corpus cache).
# Usage: scripts/lower-sass-table.sh BUILD_DIR sm_90|sm_100
set -euo pipefail
build=${1:?build dir}; from=${2:?sm_90 or sm_100}
ptxas=${CUDA_BIN:-/usr/local/cuda/bin}/ptxas
cuobjdump=${CUOBJDUMP:-$HOME/.cache/smcompat-corpus/venvs/triton/lib/python3.11/site-packages/triton/backends/nvidia/bin/cuobjdump}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
count() {  # file.cubin -> "SASS shared-loads MMA"
  "$cuobjdump" -sass "$1" | grep -E '^\s+/\*[0-9a-f]{4}\*/' > "$work/sass"
  printf '%s %s %s' "$(wc -l < "$work/sass")" "$(grep -cE ' LDS(M)?[ .]' "$work/sass" || true)" \
    "$(grep -cE ' (HMMA|QMMA|IMMA|OMMA)[ .]' "$work/sass" || true)"
}
echo "| kernel | lowered: SASS | shared loads | MMA | Triton sm_120a: SASS | shared loads | MMA |"
echo "|---|---|---|---|---|---|---|"
for f in tests/ptx/data/triton/*."$from".ptx; do
  k=$(basename "$f" ."$from".ptx)
  "$build/bin/smcompat" ptx lower "$f" --to sm_120 -o "$work/$k.ptx" 2>/dev/null
  "$ptxas" -arch=sm_120 "$work/$k.ptx" -o "$work/$k.low.cubin"
  "$ptxas" -arch=sm_120a "tests/ptx/data/triton/$k.sm_120.ptx" -o "$work/$k.nat.cubin"
  read -r a b c <<< "$(count "$work/$k.low.cubin")"
  read -r d e g <<< "$(count "$work/$k.nat.cubin")"
  echo "| $k | $a | $b | $c | $d | $e | $g |"
done
