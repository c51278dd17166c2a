#!/usr/bin/env bash
# Rebuilds the shipped wheel index, data/wheel_index.json (schema smcompat.index/1,
# docs/json-schema.md), from PyPI: `smcompat index build` lists each package's releases with pip,
# downloads the wheels of the newest ones for the Linux x86-64 and aarch64 GPU machines' platform
# tags, scans each wheel and records what could not be done.
#
# The builds are chained: the first resumes from the current index, the second from the first's
# output, and the result replaces the index. A build's output is the index it resumed plus its new
# wheels, so releases which have left the newest N stay indexed, and a wheel already indexed (same
# sha256) is neither downloaded nor scanned again: a refresh costs only the new releases. Chaining
# rather than merging two builds of the old index matters for failures: a build drops the old
# failures of what it has now redone, while `smcompat index merge` of old and new would bring back
# a `list` failure that no longer holds (no wheel settles it). The final `index merge` of the one
# result is the canonical form only (sorted, each wheel once, CUDA runtimes re-inferred).
#
# Wheels are downloaded to a cache directory and deleted once scanned. The whole set is hundreds
# of GB; docs/index-scale.md splits the work over many machines with --shard K/N.
#
# Usage: scripts/refresh-wheel-index.sh [--dry-run] [--rescan] [EXTRA BUILD OPTIONS...]
#   --dry-run   print the commands instead of running them
#   --rescan    download and scan every wheel again (after a change to what a scan records, such
#               as the kernel-less image count): the first build starts from the index's failures
#               only, so no wheel is reused
#   extra options are passed to every `smcompat index build` (for example --jobs 4, or
#   --index-url URL for a PyPI mirror)
# Environment:
#   SMCOMPAT             the smcompat binary (default: build/bin/smcompat of this checkout)
#   SMCOMPAT_INDEX_CACHE where wheels are downloaded (default: ~/.cache/smcompat-index)
#   SMCOMPAT_INDEX_OUT   the index to write (default: data/wheel_index.json of this checkout)
# Exit status: 0 when the index was rewritten (failures recorded in it are not errors), non-zero
# when a build or the merge could not run at all. `smcompat index build` exits 1 when it wrote
# its index but something failed (a package without wheels for aarch64, a download): that is
# recorded in the index and the refresh goes on; 2 is a real error and stops it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
smcompat="${SMCOMPAT:-$root/build/bin/smcompat}"
cache="${SMCOMPAT_INDEX_CACHE:-$HOME/.cache/smcompat-index}"
index="${SMCOMPAT_INDEX_OUT:-$root/data/wheel_index.json}"
say() { echo "refresh-wheel-index: $*" >&2; }

dry_run=0
rescan=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=1 ;;
    --rescan) rescan=1 ;;
    *) break ;;
  esac
  shift
done
extra=("$@")

# The packages of issue 11 (names checked with `pip index versions NAME`, 2026-11-25). Three of
# them end as recorded failures, which is the answer for them: flash-attn (sdists only on PyPI),
# flashinfer-jit-cache (not on PyPI: https://flashinfer.ai/whl/cu12X/), and xformers for aarch64.
# flashinfer-python is a wheel without device code (it compiles kernels at run time); its prebuilt
# kernels are flashinfer-cubin.
frameworks=(
  torchvision torchaudio xformers triton vllm sgl-kernel flashinfer-python flashinfer-cubin
  flashinfer-jit-cache flash-attn cupy-cuda12x cupy-cuda13x onnxruntime-gpu
  jax-cuda12-plugin jax-cuda12-pjrt jax-cuda13-plugin jax-cuda13-pjrt
)
nvidia_libraries=(
  nvidia-cublas-cu12 nvidia-cublas nvidia-cudnn-cu12 nvidia-cudnn-cu13
  nvidia-cuda-runtime-cu12 nvidia-cuda-runtime nvidia-nccl-cu12 nvidia-nccl-cu13
  nvidia-cusparselt-cu12 nvidia-cufft-cu12 nvidia-cuda-nvrtc-cu12
)
# bitsandbytes and torch go further back: bitsandbytes' first release with sm_120 SASS (0.45.3)
# and torch's first PyPI wheel with it (2.8.0; 2.7.x were CUDA 12.6 builds) must be inside.
long_history=(bitsandbytes)
torch_history=13

run() {
  if ((dry_run)); then
    printf '%q ' "$@" >&2
    echo >&2
  else
    "$@"
  fi
}
# A build: exit 1 (written, with failures recorded in it) is fine.
build() {
  local status=0
  run "$smcompat" index build "$@" || status=$?
  if ((status > 1)); then
    say "smcompat index build failed (exit $status)"
    exit "$status"
  fi
}

if ((!dry_run)); then
  [ -x "$smcompat" ] || { say "no smcompat at $smcompat (build it, or set SMCOMPAT)"; exit 2; }
  [ -f "$index" ] || { say "no index at $index to resume from"; exit 2; }
fi
mkdir -p "$cache"
work="$(mktemp -d "${TMPDIR:-/tmp}/smcompat-refresh.XXXXXX")"
trap 'rm -rf "$work"' EXIT

start="$index"
if ((rescan)); then
  start="$work/failures-only.json"
  say "rescan: starting from $index without its wheels"
  if ((!dry_run)); then
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["wheels"] = []
json.dump(d, open(sys.argv[2], "w"))' "$index" "$start"
  fi
fi

# Both platform sets (linux_x86_64, linux_aarch64) are the build's default.
say "building ${#frameworks[@]} + ${#nvidia_libraries[@]} packages (newest 8 releases each)"
build "${frameworks[@]}" "${nvidia_libraries[@]}" --last 8 \
  --resume "$start" --cache "$cache" -o "$work/recent.json" "${extra[@]}"
say "building ${long_history[*]} (newest 16 releases)"
build "${long_history[@]}" --last 16 \
  --resume "$work/recent.json" --cache "$cache" -o "$work/long.json" "${extra[@]}"

say "building torch (newest $torch_history releases)"
build torch --last "$torch_history" \
  --resume "$work/long.json" --cache "$cache" -o "$work/torch.json" "${extra[@]}"
run "$smcompat" index merge "$work/torch.json" -o "$work/merged.json"
if ((!dry_run)); then
  mv "$work/merged.json" "$index"
  say "wrote $index"
fi
