#!/usr/bin/env bash
# Fills the real-world corpus: pinned wheels from PyPI with GPU code (scripts/corpus/*.txt),
# NVIDIA's cuobjdump from its PyPI wheel, and real virtual environments installed from those
# wheels. Everything goes into a cache outside the checkout and is reused between runs:
#   $SMCOMPAT_CORPUS (default ~/.cache/smcompat-corpus)
#     wheels/             the downloaded wheels, exactly as PyPI serves them
#     wheels-foreign/     wheels for other machines (scripts/corpus/foreign.txt: aarch64 for GB10)
#     heldout/            held-out wheels never tuned on (scripts/corpus/heldout.txt; issue 26's
#                         hand-written verdicts in tests/heldout/expected.json)
#     bin/cuobjdump       NVIDIA's cuobjdump, unpacked from nvidia-cuda-cuobjdump (this machine's
#                         architecture; bin-wheel/ holds that wheel when it is not x86_64)
#     venvs/torch         torch and torchvision, the lock in scripts/corpus/torch-cu13.txt, installed
#                         by pip into lib/python3.11/site-packages (no pip inside the venv)
#     venvs/torch-bnb-0.45.2, venvs/torch-bnb-0.50.2
#                         venvs/torch plus one bitsandbytes release (hard-linked copies of venvs/torch)
#     venvs/torch-vllm    venvs/torch plus vllm (no dependencies): a serving engine's own kernels
#                         beside torch, triton and NVSHMEM (`smcompat plan --python`)
#     venvs/cupy          cupy-cuda12x with numpy
#     READY               written last; names what a complete cache holds
# The corpus tests read the same variable and skip, naming the missing path, when it is not filled.
# Runs with any CPython >= 3.9 that has pip, on any Linux architecture: the files are the same
# everywhere (below). SMCOMPAT_CORPUS_PYTHON: the interpreter whose pip fetches (default python3);
# SMCOMPAT_CORPUS_PYTHON311: the CPython 3.11 the venvs run (default: found; "none": no interpreter).
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

# The locks pin CPython 3.11 wheels for manylinux x86_64, chosen as pip on glibc 2.36 chooses.
# Any CPython >= 3.9 with pip fills the same cache on any Linux machine: pip is told that target
# (version, implementation, platform tags in pip's own order of preference) instead of reading it
# from the interpreter that runs it, so every machine holds the same files and the tests' exact
# values hold everywhere. (pip expands only manylinux2014/2010 by itself, so the list is explicit.)
pyver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null ||
  ! "$python" -m pip --version >/dev/null 2>&1; then
  say "needs CPython >= 3.9 with pip ($python: '${pyver:-not found}'; set SMCOMPAT_CORPUS_PYTHON): not filled"
  exit 1
fi
manylinux_tags() {  # arch: pip's --platform arguments, one per line, in pip's order on glibc 2.36
  local v
  for v in $(seq 36 -1 5); do
    printf -- '--platform\nmanylinux_2_%s_%s\n' "$v" "$1"
    [ "$v" != 17 ] || printf -- '--platform\nmanylinux2014_%s\n' "$1"
    [ "$v" != 12 ] || printf -- '--platform\nmanylinux2010_%s\n' "$1"
    [ "$v" != 5 ] || printf -- '--platform\nmanylinux1_%s\n' "$1"
  done
}
mapfile -t target < <(printf -- '--python-version\n3.11\n--implementation\ncp\n'; manylinux_tags x86_64)
# NVIDIA's cuobjdump runs here, so its wheel is this machine's: the x86_64 one is in wheels/
# (single.txt); another architecture gets its own into bin-wheel/.
arch="$(uname -m)"
# A CPython 3.11 gives the venvs an interpreter (bin/python) that imports the locked torch; on a
# machine without one the venvs hold the same files and only the tests that run that interpreter
# skip, saying so (SMCOMPAT_CORPUS_PYTHON311 names one; "none" forces that route).
py311="${SMCOMPAT_CORPUS_PYTHON311:-}"
if [ -z "$py311" ]; then
  if [ "$pyver" = "3.11" ]; then py311="$(command -v "$python")"
  else py311="$(command -v python3.11 || true)"; fi
fi
[ "$py311" = none ] && py311=""
say "pip of $python (CPython $pyver, $arch); venv interpreter: ${py311:-none (no CPython 3.11 found)}"

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
download() {  # pip download for the locks' target, retried once; pinned, so no resolution
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    "${target[@]}" -d "$cache/wheels" "$@" ||
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      "${target[@]}" -d "$cache/wheels" "$@"
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
    "${target[@]}" -d "$cache/heldout" "$pin" || { say "pip download $pin failed (is PyPI reachable?)"; exit 1; }
done < <(pins "$heldout")

# NVIDIA's cuobjdump, the oracle the corpus tests compare with, from the wheel of this machine's
# architecture (the same pinned release).
if [ ! -x "$cache/bin/cuobjdump" ]; then
  cuobjdump_wheels="$cache/wheels"
  if [ "$arch" != x86_64 ]; then
    cuobjdump_wheels="$cache/bin-wheel"
    pin="$(pins "$single" | grep '^nvidia-cuda-cuobjdump==')"
    mapfile -t here_tags < <(manylinux_tags "$arch")
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.11 --implementation cp "${here_tags[@]}" -d "$cuobjdump_wheels" "$pin" ||
      { say "pip download $pin ($arch) failed"; exit 1; }
  fi
  tmp="$(mktemp -d)"
  "$python" -m zipfile -e "$cuobjdump_wheels"/nvidia_cuda_cuobjdump-*.whl "$tmp"
  install -m 0755 "$(find "$tmp" -type f -name cuobjdump | head -1)" "$cache/bin/cuobjdump"
  rm -rf "$tmp"
fi
"$cache/bin/cuobjdump" --version >/dev/null || { say "cuobjdump from the wheel does not run"; exit 1; }

# Real environments, installed by pip from the downloaded wheels only, into
# lib/python3.11/site-packages whatever the interpreter that runs pip. The venv's interpreter is
# a CPython 3.11 where one is found (it imports the locked torch); otherwise the host's, whose
# version pyvenv.cfg records, and the tests that run the venv's python skip, saying why.
venv_python="${py311:-$(command -v "$python")}"
pip_into() {  # venv, pip install arguments...
  local venv="$1"; shift
  local site="$venv/lib/python3.11/site-packages"
  PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check \
    --no-index --no-deps --only-binary=:all: --ignore-requires-python "${target[@]}" --find-links "$cache/wheels" \
    --no-compile --target "$site" "$@"
  # --target leaves console scripts in site-packages/bin, with the shebang of pip's interpreter.
  if [ -d "$site/bin" ]; then
    local script
    for script in "$site"/bin/*; do
      sed "1s|^#!.*python.*$|#!$venv/bin/python|" "$script" >"$venv/bin/${script##*/}"
      chmod 0755 "$venv/bin/${script##*/}"
    done
    rm -rf "${site:?}/bin"
  fi
  # ... and data files (share/man/...) beside the packages instead of in the prefix.
  if [ -d "$site/share" ]; then
    cp -a "$site/share" "$venv/" && rm -rf "${site:?}/share"
  fi
}
make_venv() {  # name, pip install arguments... (rebuilt from scratch unless complete)
  local name="$1"; shift
  local venv="$cache/venvs/$name"
  [ -f "$venv/.complete" ] && grep -qx "$stamp" "$venv/.complete" && return 0
  rm -rf "$venv"
  say "building venvs/$name"
  "$venv_python" -m venv --without-pip "$venv"
  # Another interpreter's empty lib/pythonX.Y would be a second, empty environment.
  find "$venv/lib" -mindepth 1 -maxdepth 1 ! -name python3.11 -exec rm -rf {} +
  mkdir -p "$venv/lib/python3.11/site-packages"
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
