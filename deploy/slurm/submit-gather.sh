#!/bin/bash
# Gathers one smcompat report per node and merges them into a fleet view, as two Slurm jobs:
#   deploy/slurm/submit-gather.sh OUTDIR [sbatch options for the gather job...]
#   e.g. deploy/slurm/submit-gather.sh /shared/smcompat/$(date +%F) --partition=gpu --nodes=16
#        deploy/slurm/submit-gather.sh /shared/smcompat/now --nodelist=gpu[001-016]
# The merge job waits for the gather job with --dependency=afterany:<id> and writes
# OUTDIR/fleet/fleet.json and OUTDIR/fleet/fleet.md. OUTDIR must be on a shared file system.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
outdir="${1:?usage: submit-gather.sh OUTDIR [sbatch options for the gather job...]}"
shift
outdir="$(realpath -m "$outdir")"
mkdir -p "$outdir/nodes" "$outdir/fleet"
gather="$(sbatch --parsable "$@" "$here/gather.sbatch" "$outdir/nodes")"
gather="${gather%%;*}"  # --parsable prints "jobid[;cluster]"
merge="$(sbatch --parsable --dependency="afterany:$gather" --chdir="$outdir" \
  "$here/merge.sbatch" "$outdir/nodes" "$outdir/fleet")"
echo "gather job $gather, merge job ${merge%%;*}: $outdir/fleet/fleet.md when both are done"
