#!/usr/bin/env bash
# Checks that the C++ and CUDA sources follow .clang-format: every tracked *.cpp, *.hpp, *.cu and
# *.h under src include tools tests bench fuzz (files git does not track, such as build outputs,
# are not looked at). Prints the files that differ and exits 1; run with --fix to reformat them.
# The test suite runs it as the CTest test `clang_format` (label `format`, tests/util).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
clang_format="${CLANG_FORMAT:-clang-format}"
if ! command -v "$clang_format" >/dev/null; then
  echo "check-format: $clang_format not found (scripts/install-deps.sh installs clang-format)" >&2
  exit 2
fi
fix=0
[ "${1:-}" = "--fix" ] && fix=1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- src include tools tests bench fuzz |
                       grep -E '\.(cpp|hpp|cu|h)$')
else  # a source tree without git: every such file
  mapfile -t files < <(find src include tools tests bench fuzz -type f \
                       \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.h' \) | sort)
fi
if ((fix)); then
  "$clang_format" -i "${files[@]}"
  exit 0
fi
# One run over all files; each violation is reported as "FILE:LINE:COL: error: ...".
mapfile -t bad < <("$clang_format" --dry-run --Werror "${files[@]}" 2>&1 |
                   grep -oE '^[^:]+:[0-9]+:[0-9]+: (error|warning)' | cut -d: -f1 | sort -u)
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not clang-formatted ($("$clang_format" --version | head -1)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "fix with: scripts/check-format.sh --fix  (or clang-format -i FILE)" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files clang-formatted"
