"""What the manifests in deploy/kubernetes promise, beyond schema validity (run by validate.sh with
the kubernetes-validate venv's Python, which has PyYAML):
  - the DaemonSet runs on GPU nodes (nvidia.com/gpu.present=true), tolerates nvidia.com/gpu taints,
    uses runtimeClassName nvidia with NVIDIA_VISIBLE_DEVICES=all and
    NVIDIA_DRIVER_CAPABILITIES=utility,compute, and requests no nvidia.com/gpu (takes no GPU);
  - SMCOMPAT_HOSTNAME comes from spec.nodeName; the loop it runs is the ConfigMap's key, and the
    textfile the ConfigMap names lies in the hostPath the DaemonSet mounts;
  - every container has resource limits, a read-only root file system and no privilege escalation;
  - the image-scan Job fails on error findings for the H100 and RTX PRO 6000 (one scan container
    per GPU) and never retries.
Usage: check_manifests.py DIR  (exit 1 and one line per broken promise)."""
import pathlib
import sys

import yaml

problems = []


def expect(cond, what):
    if not cond:
        problems.append(what)


docs = {}
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.yaml")):
    for doc in yaml.safe_load_all(path.read_text()):
        if doc:
            docs[(doc["kind"], doc["metadata"]["name"])] = doc

ds = docs.get(("DaemonSet", "smcompat-node"))
cm = docs.get(("ConfigMap", "smcompat-node"))
job = docs.get(("Job", "smcompat-scan-image"))
expect(ds and cm and job, "DaemonSet, ConfigMap or Job smcompat-* missing")
if not (ds and cm and job):
    print("\n".join(problems))
    sys.exit(1)

for doc in docs.values():
    if doc["kind"] in ("DaemonSet", "Job", "CronJob"):
        spec = doc["spec"]["template"]["spec"] if doc["kind"] != "CronJob" else \
            doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        for c in spec.get("initContainers", []) + spec["containers"]:
            name = f'{doc["kind"]}/{doc["metadata"]["name"]}/{c["name"]}'
            limits = c.get("resources", {}).get("limits", {})
            expect("cpu" in limits and "memory" in limits, f"{name}: no cpu/memory limits")
            expect(not any("nvidia.com/gpu" in r for r in
                           list(limits) + list(c.get("resources", {}).get("requests", {}))),
                   f"{name}: requests a GPU")
            sc = c.get("securityContext", {})
            expect(sc.get("readOnlyRootFilesystem") is True, f"{name}: root file system writable")
            expect(sc.get("allowPrivilegeEscalation") is False, f"{name}: privilege escalation")
            expect(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{name}: capabilities kept")

pod = ds["spec"]["template"]["spec"]
expect(pod.get("runtimeClassName") == "nvidia", "DaemonSet: runtimeClassName is not nvidia")
expect(pod.get("nodeSelector", {}).get("nvidia.com/gpu.present") == "true",
       "DaemonSet: not restricted to nvidia.com/gpu.present=true")
expect(any(t.get("key") == "nvidia.com/gpu" and t.get("operator") == "Exists"
           for t in pod.get("tolerations", [])), "DaemonSet: no toleration for nvidia.com/gpu")
ctr = pod["containers"][0]
env = {e["name"]: e for e in ctr.get("env", [])}
expect(env.get("NVIDIA_VISIBLE_DEVICES", {}).get("value") == "all", "NVIDIA_VISIBLE_DEVICES != all")
expect(env.get("NVIDIA_DRIVER_CAPABILITIES", {}).get("value") == "utility,compute",
       "NVIDIA_DRIVER_CAPABILITIES != utility,compute")
expect(env.get("SMCOMPAT_HOSTNAME", {}).get("valueFrom", {}).get("fieldRef", {})
       .get("fieldPath") == "spec.nodeName", "SMCOMPAT_HOSTNAME not from spec.nodeName")
expect(any(r.get("configMapRef", {}).get("name") == "smcompat-node"
           for r in ctr.get("envFrom", [])), "DaemonSet: settings not from the ConfigMap")
mounts = {m["name"]: m["mountPath"] for m in ctr["volumeMounts"]}
vols = {v["name"]: v for v in pod["volumes"]}
loop = ctr["command"][-1]
expect(loop.startswith(mounts.get("config", "?") + "/") and
       loop.rsplit("/", 1)[1] in cm["data"], f"DaemonSet runs {loop}, not the ConfigMap's loop")
textfile = cm["data"]["SMCOMPAT_TEXTFILE"]
tdir = textfile.rsplit("/", 1)[0]
expect(any(mp == tdir and "hostPath" in vols[n] for n, mp in mounts.items()),
       f"{tdir} (SMCOMPAT_TEXTFILE) is not a mounted hostPath")
expect(vols.get("textfile", {}).get("hostPath", {}).get("path") == tdir,
       "the textfile hostPath is not the node_exporter directory")
expect(int(cm["data"]["SMCOMPAT_INTERVAL_SECONDS"]) > 0, "interval not a positive number")

jpod = job["spec"]["template"]["spec"]
expect(job["spec"].get("backoffLimit") == 0, "Job: backoffLimit is not 0")
expect(jpod.get("securityContext", {}).get("runAsNonRoot") is True, "Job: may run as root")
fetch = " ".join(jpod["initContainers"][0]["command"])
expect("skopeo copy" in fetch and "docker://$IMAGE" in fetch and "oci-archive:/work/image.tar" in fetch,
       "Job: the initContainer does not copy docker://$IMAGE to oci-archive:/work/image.tar")
scans = {}
for c in jpod["containers"]:
    cmd = c["command"]
    expect(cmd[:3] == ["smcompat", "scan", "/work/image.tar"], f"Job/{c['name']}: does not scan /work/image.tar")
    expect(cmd.count("--gpu") == 1, f"Job/{c['name']}: smcompat scan takes one --gpu")
    expect(any(cmd[i] == "--fail-on" and cmd[i + 1] == "error" for i in range(len(cmd) - 1)),
           f"Job/{c['name']}: no --fail-on error")
    expect("--json" in cmd, f"Job/{c['name']}: no --json")
    if "--gpu" in cmd:
        scans[cmd[cmd.index("--gpu") + 1]] = c["name"]
expect(sorted(scans) == ["H100", "RTX PRO 6000"], f"Job: scans for {sorted(scans)}, not H100 and RTX PRO 6000")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"check_manifests: {len(docs)} documents keep their promises")
