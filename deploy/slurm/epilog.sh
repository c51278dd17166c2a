#!/bin/bash
# Slurm Epilog (slurm.conf: Epilog=/etc/slurm/epilog.d/smcompat-epilog.sh): after each job,
# refreshes this node's smcompat metrics for node_exporter's textfile collector with
# `smcompat export prometheus --textfile ...` (which writes the file atomically).
#
# slurmd runs the Epilog as SlurmdUser (normally root) on every node of the job when it ends, with
# no search path; an Epilog that exits non-zero sets the node to DRAIN
# (https://slurm.schedmd.com/prolog_epilog.html, "Failure Handling"). This script therefore always exits 0: a failure is
# logged and the previous metrics file stays (its smcompat_* timestamps show its age).
#
# Settings (environment, or /etc/default/smcompat, a shell fragment read when present):
#   SMCOMPAT_BIN        the smcompat binary (default: smcompat on PATH, /usr/local/bin first)
#   SMCOMPAT_TEXTFILE   the metrics file (default
#                       /var/lib/node_exporter/textfile_collector/smcompat.prom)
#   SMCOMPAT_TIMEOUT    seconds smcompat may run (default 60)
#   SMCOMPAT_SCAN_PATHS newline-separated paths to scan (--scan), e.g. shared software trees
#   SMCOMPAT_PYTHONS    newline-separated Python interpreters to check (--python)
#   SMCOMPAT_GPUS       newline-separated GPU names to judge for (--gpu), besides the probed ones
PATH="${PATH:+$PATH:}/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
export PATH
conf="${SMCOMPAT_CONF:-/etc/default/smcompat}"
# shellcheck source=/dev/null
[ -r "$conf" ] && . "$conf"

bin="${SMCOMPAT_BIN:-smcompat}"
textfile="${SMCOMPAT_TEXTFILE:-/var/lib/node_exporter/textfile_collector/smcompat.prom}"
node="${SLURMD_NODENAME:-$(hostname -s)}"

args=(export prometheus --textfile "$textfile")
add_list() {  # add_list FLAG LIST: one FLAG VALUE pair per non-empty line of LIST
  local flag="$1" line
  while IFS= read -r line; do
    [ -n "$line" ] && args+=("$flag" "$line")
  done <<<"$2"
}
add_list --scan "${SMCOMPAT_SCAN_PATHS:-}"
add_list --python "${SMCOMPAT_PYTHONS:-}"
add_list --gpu "${SMCOMPAT_GPUS:-}"

mkdir -p "$(dirname "$textfile")" 2>/dev/null
err="$(mktemp)" || err=/dev/null
if ! SMCOMPAT_HOSTNAME="$node" timeout "${SMCOMPAT_TIMEOUT:-60}" "$bin" "${args[@]}" >/dev/null 2>"$err"; then
  msg="$bin ${args[*]} failed: $(head -c 300 "$err" | tr '\n' ' ')"
  echo "smcompat-epilog: $msg" >&2
  command -v logger >/dev/null 2>&1 && logger -t smcompat-epilog -- "$msg"
fi
[ "$err" = /dev/null ] || rm -f "$err"
exit 0
