#!/usr/bin/env bash
# Installs the Debian packages smcompat builds with, only if some are missing. Idempotent.
set -euo pipefail
pkgs=(cmake ninja-build g++ clang pkg-config libzstd-dev liblz4-dev libzip-dev zlib1g-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
      libclang-rt-14-dev clang-format zip ccache libpng-dev libssl-dev
      libjs-chart.js chromium python3-dev python3-venv libarchive-dev libre2-dev prometheus
      shellcheck)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "smcompat: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
