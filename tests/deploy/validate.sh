#!/bin/bash
# The deployment files in deploy/ pass their validators (ctest: deploy_validate, label deploy):
#  1. every shell script (deploy/**/*.sh, *.sbatch, the Slurm prolog/epilog, the loop inside the
#     Kubernetes ConfigMap, this script and the stubs) passes `bash -n` and `shellcheck` with no
#     finding of any severity;
#  2. every YAML document in deploy/kubernetes validates against the Kubernetes $K8S_VERSION
#     OpenAPI schemas with kubernetes-validate --strict (unknown fields are errors), and the
#     deliberately broken manifests in tests/deploy/broken are rejected (so a validator that passes
#     everything fails this test); check_manifests.py then checks what the manifests promise;
#  3. the Slurm prolog, epilog, gather/merge jobs and the DaemonSet's loop run against a stub
#     smcompat (tests/deploy/stub) with fake Slurm variables and write the files they should; the
#     prolog and epilog exit 0 when smcompat fails, the prolog exits 1 only when asked to drain.
# kubernetes-validate lives in a venv outside the checkout, created on first use (pip, PyPI):
#   ${SMCOMPAT_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/smcompat-corpus}/venvs/kubernetes-validate
# Without it and without PyPI, everything else still runs and the test exits 77 (skipped), naming
# what is missing. Exit 0 all passed, 1 a check failed, 77 skipped.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
deploy="$root/deploy"
K8S_VERSION=1.37.0                # the newest schema set kubernetes-validate 1.37.0 ships
KV_PIN="kubernetes-validate==1.37.0"
cache="${SMCOMPAT_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/smcompat-corpus}"
venv="$cache/venvs/kubernetes-validate"

failures=0
skipped=""
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...: passes when COMMAND succeeds
  local what="$1"
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# ---- 1. bash -n and shellcheck ------------------------------------------------------------------
# The DaemonSet's loop is a block scalar in the ConfigMap: extract it (4-space indented lines after
# the key) to check it like the other scripts.
awk '/^  smcompat-loop.sh: \|/ {on=1; next} on && /^    / {print substr($0, 5); next}
     on && /^[^ ]/ {on=0} on && /^  [^ ]/ {on=0}' "$deploy/kubernetes/configmap.yaml" \
  >"$tmp/smcompat-loop.sh"
check "the ConfigMap holds the loop script" grep -q '^while :; do' "$tmp/smcompat-loop.sh"

mapfile -t scripts < <(
  find "$deploy" -type f \( -name '*.sh' -o -name '*.sbatch' -o -name 'prolog*' -o -name 'epilog*' \) | sort
)
scripts+=("$here/validate.sh" "$here/stub/smcompat" "$here/stub/srun" "$here/stub/sbatch" "$tmp/smcompat-loop.sh")
check "found the Slurm prolog, epilog and sbatch scripts" \
  test -f "$deploy/slurm/prolog.sh" -a -f "$deploy/slurm/epilog.sh" -a -f "$deploy/slurm/gather.sbatch"
for s in "${scripts[@]}"; do
  check "bash -n ${s#"$root"/}" bash -n "$s"
done
if command -v shellcheck >/dev/null 2>&1; then
  echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
  for s in "${scripts[@]}"; do
    # --severity=style: infos and style notes count too; -x follows sourced files.
    check "shellcheck ${s#"$root"/}" shellcheck -x --severity=style --shell=bash "$s"
  done
else
  fail "shellcheck is not installed (scripts/install-deps.sh installs the Debian package)"
fi

# ---- 2. Kubernetes schemas ----------------------------------------------------------------------
kv_ready() {  # the venv exists and holds the pinned version
  [ -x "$venv/bin/kubernetes-validate" ] && [ "$("$venv/bin/python" -c \
    'import importlib.metadata as m; print(m.version("kubernetes-validate"))' 2>/dev/null)" = "${KV_PIN#*==}" ]
}
ensure_kv() {
  kv_ready && return 0
  mkdir -p "$(dirname "$venv")" || return 1
  (
    flock 9  # one ctest at a time creates it
    kv_ready && exit 0
    echo "creating $venv ($KV_PIN from PyPI)"
    rm -rf "$venv"
    python3 -m venv "$venv" &&
      "$venv/bin/pip" install --quiet --disable-pip-version-check "$KV_PIN"
  ) 9>"$venv.lock" && kv_ready
}
if ensure_kv; then
  kv=("$venv/bin/kubernetes-validate" --strict --kubernetes-version "$K8S_VERSION")
  echo "kubernetes-validate $("$venv/bin/kubernetes-validate" --version 2>&1), schemas of Kubernetes $K8S_VERSION, --strict"
  mapfile -t manifests < <(find "$deploy/kubernetes" -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)
  check "deploy/kubernetes has manifests (${#manifests[@]})" test "${#manifests[@]}" -ge 4
  for m in "${manifests[@]}"; do
    if out="$("${kv[@]}" "$m" 2>&1)" && ! grep -qv '^INFO .* passed for resource ' <<<"$out"; then
      pass "kubernetes-validate ${m#"$root"/}: $(grep -c passed <<<"$out") documents"
    else
      fail "kubernetes-validate ${m#"$root"/}"
      echo "$out"
    fi
  done
  # The validator must be able to fail: each broken manifest is rejected, for the reason it was
  # broken for (named in the message).
  for broken in "unknown-field.yaml:imagePullPolicyy" "wrong-type.yaml:backoffLimit"; do
    file="${broken%%:*}" reason="${broken#*:}"
    out="$("${kv[@]}" "$here/broken/$file" 2>&1)"
    rc=$?
    if [ "$rc" -ne 0 ] && grep -q "$reason" <<<"$out"; then
      pass "kubernetes-validate rejects tests/deploy/broken/$file ($reason)"
    else
      fail "kubernetes-validate accepted tests/deploy/broken/$file (exit $rc, expected a complaint about $reason)"
      echo "$out"
    fi
  done
  check "the manifests keep their promises (check_manifests.py)" \
    "$venv/bin/python" "$here/check_manifests.py" "$deploy/kubernetes"
else
  skipped="kubernetes-validate is missing: no venv at $venv and '$KV_PIN' could not be installed from PyPI (offline?)"
  echo "SKIP $skipped"
fi

# ---- 3. the scripts at work, against the stub smcompat ------------------------------------------
export PATH="$here/stub:$PATH" SMCOMPAT_STUB_LOG="$tmp/smcompat.log" FAKE_SLURM_LOG="$tmp/slurm.log"
export SMCOMPAT_CONF=/nonexistent   # no /etc/default/smcompat of this machine
unset SMCOMPAT_BIN SMCOMPAT_STUB_MODE SMCOMPAT_HOSTNAME SMCOMPAT_SCAN_PATHS SMCOMPAT_PYTHONS SMCOMPAT_GPUS
: >"$SMCOMPAT_STUB_LOG"
calls() { wc -l <"$SMCOMPAT_STUB_LOG"; }
no_leftovers() { [ -z "$(find "$1" -name '*.XXXXXX' -o -name '.*.json.*' -o -name '*.json.??????' | head -1)" ]; }

# Prolog
spool="$tmp/spool"
prolog() { env SLURMD_NODENAME=gpu-node-07 SLURM_JOB_ID=4242 SMCOMPAT_SPOOL="$spool" "$@" "$deploy/slurm/prolog.sh"; }
check "prolog: exit 0" prolog
check "prolog: writes <spool>/\$SLURMD_NODENAME.json" test -s "$spool/gpu-node-07.json"
check "prolog: the report is probe's, for the node" \
  grep -q '"schema":"smcompat.probe/1","hostname":"gpu-node-07"' "$spool/gpu-node-07.json"
check "prolog: called 'smcompat probe --json' with SMCOMPAT_HOSTNAME=node" \
  grep -qx 'gpu-node-07|probe|--json' "$SMCOMPAT_STUB_LOG"
check "prolog: no temporary files left" no_leftovers "$spool"
n="$(calls)"
check "prolog: a fresh report is not redone" prolog
check "prolog: ... smcompat not called again" test "$(calls)" -eq "$n"
cp "$spool/gpu-node-07.json" "$tmp/before.json"
check "prolog: exit 0 when smcompat crashes (fail-soft)" prolog SMCOMPAT_MIN_AGE=0 SMCOMPAT_STUB_MODE=crash
check "prolog: ... the previous report is kept" cmp -s "$spool/gpu-node-07.json" "$tmp/before.json"
check "prolog: ... no temporary files left" no_leftovers "$spool"
check "prolog: exit 0 when smcompat is missing" prolog SMCOMPAT_MIN_AGE=0 SMCOMPAT_BIN=/nonexistent/smcompat
start=$SECONDS
check "prolog: exit 0 when smcompat hangs past SMCOMPAT_TIMEOUT" prolog SMCOMPAT_MIN_AGE=0 SMCOMPAT_TIMEOUT=1 SMCOMPAT_STUB_MODE=hang
check "prolog: ... and returns within the timeout" test $((SECONDS - start)) -lt 10
check "prolog: exit 0 when the spool cannot be created" prolog SMCOMPAT_SPOOL=/proc/smcompat-nope
rm -f "$spool/gpu-node-07.json"
check "prolog: exit 0 on a probe finding (probe exit 1)" prolog SMCOMPAT_STUB_MODE=finding
check "prolog: ... whose document is kept" grep -q '"hostname":"gpu-node-07"' "$spool/gpu-node-07.json"
prolog SMCOMPAT_MIN_AGE=0 SMCOMPAT_STUB_MODE=finding SMCOMPAT_PROLOG_DRAIN_ON_FINDING=1 2>/dev/null
check "prolog: exit 1 on a finding only with SMCOMPAT_PROLOG_DRAIN_ON_FINDING=1 (drains the node)" test $? -eq 1
prolog SMCOMPAT_MIN_AGE=0 SMCOMPAT_STUB_MODE=crash SMCOMPAT_PROLOG_DRAIN_ON_FINDING=1 2>/dev/null
check "prolog: ... but exit 0 when smcompat itself fails, even then" test $? -eq 0
check "prolog: with SMCOMPAT_DOCTOR_PYTHON also runs the doctor" prolog SMCOMPAT_MIN_AGE=0 SMCOMPAT_DOCTOR_PYTHON=/opt/py/bin/python3
check "prolog: ... into <node>.doctor.json" grep -q '"schema":"smcompat.doctor/1","hostname":"gpu-node-07"' "$spool/gpu-node-07.doctor.json"
check "prolog: ... as 'doctor --json --python PY'" grep -qx 'gpu-node-07|doctor|--json|--python|/opt/py/bin/python3' "$SMCOMPAT_STUB_LOG"

# Epilog
prom="$tmp/textfile/smcompat.prom"
epilog() {
  env SLURMD_NODENAME=gpu-node-07 SMCOMPAT_TEXTFILE="$prom" "$@" "$deploy/slurm/epilog.sh"
}
check "epilog: exit 0" epilog SMCOMPAT_SCAN_PATHS=$'/opt/apps\n/shared/sw with space\n' SMCOMPAT_GPUS=$'H100\nRTX PRO 6000' SMCOMPAT_PYTHONS=/opt/py/bin/python3
check "epilog: writes the textfile" grep -q 'smcompat_stub_info{hostname="gpu-node-07"} 1' "$prom"
check "epilog: passes one --scan/--gpu/--python per configured line" grep -qx \
  "gpu-node-07|export|prometheus|--textfile|$prom|--scan|/opt/apps|--scan|/shared/sw with space|--python|/opt/py/bin/python3|--gpu|H100|--gpu|RTX PRO 6000" \
  "$SMCOMPAT_STUB_LOG"
check "epilog: exit 0 when smcompat crashes (fail-soft)" epilog SMCOMPAT_STUB_MODE=crash
check "epilog: ... the previous metrics stay" grep -q smcompat_stub_info "$prom"
check "epilog: exit 0 when smcompat is missing" epilog SMCOMPAT_BIN=/nonexistent/smcompat

# gather.sbatch, the per-node step alone, then the batch step through a fake srun
out="$tmp/gather"
check "gather --node: exit 0" env SLURMD_NODENAME=gpu-a01 SLURM_JOB_ID=77 SLURM_ARRAY_TASK_ID=0 \
  bash "$deploy/slurm/gather.sbatch" --node "$out"
check "gather --node: writes OUTDIR/\$SLURMD_NODENAME.json for that node" \
  grep -q '"hostname":"gpu-a01"' "$out/gpu-a01.json"
check "gather --node: keeps probe's document on a finding" env SLURMD_NODENAME=gpu-a02 SMCOMPAT_STUB_MODE=finding \
  bash "$deploy/slurm/gather.sbatch" --node "$out"
check "gather --node: ... for gpu-a02" grep -q '"hostname":"gpu-a02"' "$out/gpu-a02.json"
! env SLURMD_NODENAME=gpu-a03 SMCOMPAT_STUB_MODE=crash bash "$deploy/slurm/gather.sbatch" --node "$out" 2>/dev/null
check "gather --node: fails when smcompat fails" test $? -eq 0
check "gather --node: ... and writes nothing for that node" test ! -e "$out/gpu-a03.json"
check "gather --node: no temporary files left" no_leftovers "$out"
out2="$tmp/gather2"
check "gather.sbatch (batch step, fake srun over 3 nodes): exit 0" \
  env FAKE_SLURM_NODES="gpu-b01 gpu-b02 gpu-b03" SLURM_JOB_ID=78 bash "$deploy/slurm/gather.sbatch" "$out2"
check "gather.sbatch: one report per node" test "$(find "$out2" -name 'gpu-b0?.json' | wc -l)" -eq 3
check "gather.sbatch: each names its node" grep -q '"hostname":"gpu-b03"' "$out2/gpu-b03.json"
check "gather.sbatch: srun one task per node" grep -q 'srun .*--ntasks-per-node=1' "$FAKE_SLURM_LOG"

# merge.sbatch and submit-gather.sh (fake sbatch)
fleet="$tmp/fleet"
check "merge.sbatch: exit 0" bash "$deploy/slurm/merge.sbatch" "$out2" "$fleet"
check "merge.sbatch: fleet merge of every node report, -o fleet.json --markdown" grep -qx \
  "|fleet|merge|$out2/gpu-b01.json|$out2/gpu-b02.json|$out2/gpu-b03.json|-o|$fleet/fleet.json|--markdown" "$SMCOMPAT_STUB_LOG"
check "merge.sbatch: writes fleet.json and fleet.md" grep -q '3 reports' "$fleet/fleet.md"
check "merge.sbatch: ... fleet.json" grep -q '"reports":3' "$fleet/fleet.json"
! bash "$deploy/slurm/merge.sbatch" "$tmp/empty" "$fleet" 2>/dev/null
check "merge.sbatch: fails when there is no report" test $? -eq 0
: >"$FAKE_SLURM_LOG"
check "submit-gather.sh: exit 0" bash "$deploy/slurm/submit-gather.sh" "$tmp/run" --partition=gpu --nodes=4
check "submit-gather.sh: submits the gather job with the user's options" \
  grep -qx "sbatch|--parsable|--partition=gpu|--nodes=4|$deploy/slurm/gather.sbatch|$tmp/run/nodes" "$FAKE_SLURM_LOG"
check "submit-gather.sh: then the merge job after it (--dependency=afterany:<gather id>)" \
  grep -q "^sbatch|--parsable|--dependency=afterany:1001|.*merge.sbatch|$tmp/run/nodes|$tmp/run/fleet$" "$FAKE_SLURM_LOG"

# The DaemonSet's loop, once
check "smcompat-loop.sh (ConfigMap): one round exits 0" env SMCOMPAT_ONESHOT=1 SMCOMPAT_HOSTNAME=k8s-gpu-3 \
  SMCOMPAT_TEXTFILE="$tmp/k8s/smcompat.prom" SMCOMPAT_SCAN_PATHS=/host/opt SMCOMPAT_GPUS=$'B200\nRTX PRO 6000' \
  SMCOMPAT_EXTRA_ARGS="--fail-on warning" bash -c "mkdir -p '$tmp/k8s' && bash '$tmp/smcompat-loop.sh'"
check "smcompat-loop.sh: writes the textfile for the node" grep -q 'hostname="k8s-gpu-3"' "$tmp/k8s/smcompat.prom"
check "smcompat-loop.sh: builds the command from the ConfigMap's settings" grep -qx \
  "k8s-gpu-3|export|prometheus|--textfile|$tmp/k8s/smcompat.prom|--scan|/host/opt|--gpu|B200|--gpu|RTX PRO 6000|--fail-on|warning" \
  "$SMCOMPAT_STUB_LOG"
env SMCOMPAT_ONESHOT=1 SMCOMPAT_STUB_MODE=crash SMCOMPAT_TEXTFILE="$tmp/k8s/x.prom" bash "$tmp/smcompat-loop.sh" 2>/dev/null
check "smcompat-loop.sh: reports smcompat's failure (exit 2) in one-shot mode" test $? -eq 2

echo
if ((failures)); then
  echo "deploy_validate: $failures check(s) FAILED"
  exit 1
fi
if [ -n "$skipped" ]; then
  echo "deploy_validate: everything else passed; SKIPPED because $skipped"
  exit 77
fi
echo "deploy_validate: all checks passed"
