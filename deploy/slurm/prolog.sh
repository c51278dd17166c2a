#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/smcompat-prolog.sh): records what this node's
# NVIDIA driver observes, `smcompat probe --json` (optionally `smcompat doctor --json`), in
# $SMCOMPAT_SPOOL/<node>.json before a job starts, for `smcompat fleet merge` to gather later.
#
# Slurm facts this script relies on (https://slurm.schedmd.com/prolog_epilog.html):
#  - slurmd runs the Prolog as SlurmdUser (normally root) on each compute node of the job, at the
#    first job step on that node (PrologFlags=Alloc: at allocation);
#  - prologs get no search path: PATH is set below;
#  - a Prolog that exits non-zero sets the node to DRAIN and requeues the job in a held state
#    (unless SchedulerParameters=nohold_on_prolog_fail); an Epilog that exits non-zero drains the
#    node too (slurm.conf(5), Prolog; the guide's "Failure Handling");
#  - a prolog is expected to finish quickly, in less than MessageTimeout (default 10 s): hence
#    the short default SMCOMPAT_TIMEOUT and SMCOMPAT_MIN_AGE below.
# So this script FAILS SOFT: whatever smcompat does (missing, crashes, times out, finds no GPU) it
# logs and exits 0, keeping the previous report. The one deliberate non-zero exit is opt-in:
# SMCOMPAT_PROLOG_DRAIN_ON_FINDING=1 exits 1 when `smcompat probe` reports a finding about the
# driver or GPU (its exit code 1: no driver, no GPU, no permission, driver error, masquerade), so
# Slurm drains a GPU node that lost its GPU instead of starting jobs on it.
#
# Settings (environment, or /etc/default/smcompat, a shell fragment read when present):
#   SMCOMPAT_BIN         the smcompat binary (default: smcompat on PATH, /usr/local/bin first)
#   SMCOMPAT_SPOOL       directory of the per-node reports (default /var/spool/smcompat)
#   SMCOMPAT_MIN_AGE     seconds a report stays fresh; a younger one is not redone (default 300)
#   SMCOMPAT_TIMEOUT     seconds each smcompat run may take (default 8)
#   SMCOMPAT_DOCTOR_PYTHON  when set, also `smcompat doctor --json --python $it` into <node>.doctor.json
#   SMCOMPAT_PROLOG_DRAIN_ON_FINDING  1: exit 1 (drain the node) on a probe finding (see above)
PATH="${PATH:+$PATH:}/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
export PATH
conf="${SMCOMPAT_CONF:-/etc/default/smcompat}"
# shellcheck source=/dev/null
[ -r "$conf" ] && . "$conf"

bin="${SMCOMPAT_BIN:-smcompat}"
spool="${SMCOMPAT_SPOOL:-/var/spool/smcompat}"
min_age="${SMCOMPAT_MIN_AGE:-300}"
limit="${SMCOMPAT_TIMEOUT:-8}"
node="${SLURMD_NODENAME:-$(hostname -s)}"
report="$spool/$node.json"

log() {  # to slurmd's log (stderr) and to syslog when logger exists
  echo "smcompat-prolog: $*" >&2
  command -v logger >/dev/null 2>&1 && logger -t smcompat-prolog -- "$*"
  return 0
}

# run_json OUT ARGS...: runs smcompat ARGS with $SMCOMPAT_HOSTNAME = the node; keeps its JSON in OUT
# (written to a temporary file and renamed, so readers never see half a report) when smcompat exited
# 0 or 1 (1 = findings, the document is still complete) and printed a JSON object. Returns
# smcompat's exit status, or 3 when smcompat is missing, timed out or printed no document.
run_json() {
  local out="$1" tmp rc
  shift
  tmp="$(mktemp "$out.XXXXXX")" || return 3
  SMCOMPAT_HOSTNAME="$node" timeout "$limit" "$bin" "$@" >"$tmp" 2>"$tmp.err"
  rc=$?
  if { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && [ "$(head -c1 "$tmp")" = "{" ]; then
    chmod 0644 "$tmp" && mv -f "$tmp" "$out"
  else
    log "$bin $* failed (exit $rc): $(head -c 300 "$tmp.err" | tr '\n' ' ')"
    rm -f "$tmp"
    if [ "$rc" -le 1 ]; then rc=3; fi
  fi
  rm -f "$tmp.err"
  return "$rc"
}

if ! mkdir -p "$spool" 2>/dev/null; then
  log "cannot create $spool; nothing recorded"
  exit 0
fi
# Fresh enough: a prolog runs for every job, the driver rarely changes between two of them.
if [ "$min_age" -gt 0 ] && [ -f "$report" ] &&
  [ $(($(date +%s) - $(stat -c %Y "$report"))) -lt "$min_age" ]; then
  exit 0
fi

run_json "$report" probe --json
probe_rc=$?
if [ -n "${SMCOMPAT_DOCTOR_PYTHON:-}" ]; then
  run_json "$spool/$node.doctor.json" doctor --json --python "$SMCOMPAT_DOCTOR_PYTHON"
fi

if [ "$probe_rc" -eq 1 ] && [ "${SMCOMPAT_PROLOG_DRAIN_ON_FINDING:-0}" = "1" ]; then
  log "probe reports a driver/GPU finding on $node (see $report); exiting 1 so Slurm drains it"
  exit 1
fi
exit 0
