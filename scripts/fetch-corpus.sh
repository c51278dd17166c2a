#!/usr/bin/env bash
# Fills the real-world corpus: pinned wheels from PyPI with GPU code (scripts/corpus/*.txt),
# NVIDIA's cuobjdump from its PyPI wheel, and real virtual environments installed from those
# wheels. Everything goes into a cache outside the checkout and is reused between runs:
#   $SMCOMPAT_CORPUS (default ~/.cache/smcompat-corpus)
#     wheels/             the downloaded wheels, exactly as PyPI serves them
#     wheels-foreign/     wheels for other machines (scripts/corpus/foreign.txt: aarch64 for GB10)
#     heldout/            held-out wheels never tuned on (scripts/corpus/heldout.txt; issue 26's
#                         hand-written verdicts in tests/heldout/expected.json)
#     bin/cuobjdump       NVIDIA's cuobjdump, unpacked from nvidia-cuda-cuobjdump
#     venvs/torch         `pip install torch torchvision` (the lock in scripts/corpus/torch-cu13.txt)
#     venvs/torch-bnb-0.45.2, venvs/torch-bnb-0.50.2
#                         venvs/torch plus one bitsandbytes release (hard-linked copies of venvs/torch)
#     venvs/torch-vllm    venvs/torch plus vllm (no dependencies): a serving engine's own kernels
#                         beside torch, triton and NVSHMEM (`smcompat plan --python`)
#     venvs/cupy          cupy-cuda12x with numpy
#     READY               written last; names what a complete cache holds
# The corpus tests read the same variable and skip, naming the missing path, when it is not filled.
# Usage: scripts/fetch-corpus.sh [--print-dir]      Exit 0 when the cache is complete, 1 otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${SMCOMPAT_CORPUS:-$HOME/.cache/smcompat-corpus}"
if [ "${1:-}" = "--print-dir" ]; then echo "$cache"; exit 0; fi

python="${SMCOMPAT_CORPUS_PYTHON:-python3}"
lock="$here/corpus/torch-cu13.txt"
single="$here/corpus/single.txt"
foreign="$here/corpus/foreign.txt"
heldout="$here/corpus/heldout.txt"
say() { echo "fetch-corpus: $*" >&2; }

# The locks pin CPython 3.11 wheels for manylinux x86_64.
pyver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
if [ "$pyver" != "3.11" ] || [ "$(uname -m)" != "x86_64" ]; then
  say "the corpus is pinned for CPython 3.11 on x86_64 Linux; found '${pyver:-no python}' on $(uname -m): not filled"
  exit 1
fi

# The cache is complete for exactly these locks (and this script): a change rebuilds what differs.
stamp="$(cat "$lock" "$single" "$foreign" "$heldout" "$0" | sha256sum | cut -c1-16)"
if [ -f "$cache/READY" ] && grep -qx "stamp $stamp" "$cache/READY"; then
  say "cache complete: $cache"
  exit 0
fi
mkdir -p "$cache/wheels" "$cache/wheels-foreign" "$cache/heldout" "$cache/bin" "$cache/venvs"
rm -f "$cache/READY"

pins() { grep -v '^\s*#' "$1" | grep -v '^\s*$'; }
have_wheel() {  # name==version already in wheels/ (wheel names use _ for - and keep the version)
  local name="${1%%==*}" ver="${1##*==}"
  compgen -G "$cache/wheels/$(echo "$name" | tr '-' '_')-$ver-*.whl" >/dev/null ||
    compgen -G "$cache/wheels/$name-$ver-*.whl" >/dev/null
}
download() {  # pip download, retried once; the wheels are pinned, so no dependency resolution
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$cache/wheels" "$@" ||
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      -d "$cache/wheels" "$@"
}

missing=()
while read -r pin; do have_wheel "$pin" || missing+=("$pin"); done < <(pins "$lock")
if ((${#missing[@]})); then
  say "downloading ${#missing[@]} wheels of the torch lock"
  download "${missing[@]}" || { say "pip download failed (is PyPI reachable?)"; exit 1; }
fi
while read -r pin; do
  have_wheel "$pin" && continue
  say "downloading $pin"
  download "$pin" || { say "pip download $pin failed (is PyPI reachable?)"; exit 1; }
done < <(pins "$single")

# Wheels for other machines: pip picks the wheel of that platform and Python, nothing installed.
while read -r platform pyver pin; do
  name="${pin%%==*}" ver="${pin##*==}"
  compgen -G "$cache/wheels-foreign/$(echo "$name" | tr '-' '_')-$ver-*.whl" >/dev/null && continue
  say "downloading $pin for $platform"
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "$platform" --python-version "$pyver" --implementation cp \
    -d "$cache/wheels-foreign" "$pin" || { say "pip download $pin ($platform) failed"; exit 1; }
done < <(pins "$foreign")

# Held-out wheels: kept apart from wheels/ so that nothing tuned on the corpus sees them.
while read -r pin; do
  name="${pin%%==*}" ver="${pin##*==}"
  compgen -G "$cache/heldout/$(echo "$name" | tr '-' '_')-$ver-*.whl" >/dev/null && continue
  say "downloading held-out $pin"
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$cache/heldout" "$pin" || { say "pip download $pin failed (is PyPI reachable?)"; exit 1; }
done < <(pins "$heldout")

# NVIDIA's cuobjdump, the oracle the corpus tests compare with.
if [ ! -x "$cache/bin/cuobjdump" ]; then
  tmp="$(mktemp -d)"
  "$python" -m zipfile -e "$cache"/wheels/nvidia_cuda_cuobjdump-*.whl "$tmp"
  install -m 0755 "$(find "$tmp" -type f -name cuobjdump | head -1)" "$cache/bin/cuobjdump"
  rm -rf "$tmp"
fi
"$cache/bin/cuobjdump" --version >/dev/null || { say "cuobjdump from the wheel does not run"; exit 1; }

# Real environments, installed by pip from the downloaded wheels only.
pip_into() {  # venv, pip install arguments...
  local venv="$1"; shift
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
    --find-links "$cache/wheels" --no-deps "$@"
}
make_venv() {  # name, pip install arguments... (rebuilt from scratch unless complete)
  local name="$1"; shift
  local venv="$cache/venvs/$name"
  [ -f "$venv/.complete" ] && grep -qx "$stamp" "$venv/.complete" && return 0
  rm -rf "$venv"
  say "building venvs/$name"
  "$python" -m venv "$venv"
  pip_into "$venv" "$@"
  echo "$stamp" >"$venv/.complete"
}
clone_venv_with() {  # name, base venv, pip install arguments...: a hard-linked copy plus packages
  local name="$1" base="$2"; shift 2
  local venv="$cache/venvs/$name"
  [ -f "$venv/.complete" ] && grep -qx "$stamp" "$venv/.complete" && return 0
  rm -rf "$venv"
  say "building venvs/$name (hard links into venvs/$base)"
  cp -al "$cache/venvs/$base" "$venv"
  rm -f "$venv/.complete"
  # pip only adds files here; it never rewrites the hard-linked ones of the base.
  pip_into "$venv" "$@"
  echo "$stamp" >"$venv/.complete"
}

mapfile -t torch_pins < <(pins "$lock")
make_venv torch "${torch_pins[@]}"
clone_venv_with torch-bnb-0.45.2 torch bitsandbytes==0.45.2 packaging==26.3
clone_venv_with torch-bnb-0.50.2 torch bitsandbytes==0.50.2 packaging==26.3
clone_venv_with torch-vllm torch vllm==0.33.0
make_venv cupy cupy-cuda12x==14.2.0 numpy==2.4.6 cuda-pathfinder==1.9.0

{
  echo "stamp $stamp"
  echo "wheels $(ls "$cache/wheels" | wc -l)"
  echo "wheels-foreign $(ls "$cache/wheels-foreign" | wc -l)"
  echo "heldout $(ls "$cache/heldout" | wc -l)"
  echo "venvs torch torch-bnb-0.45.2 torch-bnb-0.50.2 torch-vllm cupy"
} >"$cache/READY"
say "cache complete: $cache ($(du -sh "$cache" | cut -f1))"
