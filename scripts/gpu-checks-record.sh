#!/usr/bin/env bash
# Records what a GPU-checks run brought back (scripts/gpu-checks.sh's output directory:
# results.json, gpu-checks.md, gpu-checks-logs.tar.gz) as docs/gpu-checks/<date>-<gpu>.md and
# updates the pending-checks table of docs/gpu-checks/README.md.
#
#   scripts/gpu-checks-record.sh OUT_DIR [-o FILE] [--allow-synthetic] [--readme PATH]
#
# A synthetic (fake-driver) run is refused unless --allow-synthetic, and then nothing is written
# under docs/ (the record goes to -o FILE or stdout). Idempotent. The work is
# tests/gpu-checks/steps/record.py (python3, standard library only).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  [[ $# -lt 1 ]] && exit 2 || exit 0
fi
exec python3 "$here/tests/gpu-checks/steps/record.py" "$@"
