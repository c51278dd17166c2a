#!/usr/bin/env python3
"""Step "probe" (checks 1 and 10): smcompat probe / doctor / export prometheus against the
machine's own oracles, field by field.

Oracles: `nvidia-smi -q -x` (XML), `nvidia-smi --query-gpu` (compute capability, which -q may not
show), `nvidia-smi topo -m` (NVLink and PCIe matrix), `nvidia-smi topo -p2p r` (P2P read matrix),
and torch.cuda.get_device_properties(i) in a python3 subprocess. Each row is one field of one GPU
against one oracle (named in the item); a field no oracle here can show is one row with agree
null and the reason. Unit conversions and tolerances are stated in each row's note.
"""

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kitlib import Step, kill_tree, python_exe  # noqa: E402

BUDGET = 40  # seconds, unless $GPU_CHECKS_BUDGET_S says otherwise (scripts/gpu-checks.sh)
MiB = 1 << 20

# Every attribute this torch's _CudaDeviceProperties has (the set differs between releases:
# pci_bus_id/pci_device_id/pci_domain_id, clock_rate, memory_clock_rate, memory_bus_width exist
# only in newer ones), each read on its own so that one that raises costs only itself. `uuid` is
# a _CUuuid object whose str() is the bare UUID.
TORCH_PROPS = r'''
import json, sys
try:
    import torch
except Exception as e:
    print(json.dumps({"error": "import torch: %s: %s" % (type(e).__name__, e)})); sys.exit(0)
out = {"torch": torch.__version__, "cuda": torch.version.cuda}
try:
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    n = torch.cuda.device_count()
    devs = []
    for i in range(n):
        p = torch.cuda.get_device_properties(i)
        d = {}
        for k in dir(p):
            if k.startswith("_"):
                continue
            try:
                v = getattr(p, k)
            except Exception:
                continue
            if callable(v):
                continue
            d[k] = v if (v is None or isinstance(v, (bool, int, float, str))) else str(v)
        d["capability"] = "%d.%d" % torch.cuda.get_device_capability(i)
        devs.append(d)
    out["devices"] = devs
except Exception as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out), flush=True)
'''

QUERY_FIELDS = ["index", "pci.bus_id", "uuid", "name", "compute_cap", "memory.total",
                "clocks.max.sm", "clocks.max.memory"]


# -- parsing the oracles ---------------------------------------------------------------------

def norm_bus(bus):
    """'00000000:18:00.0' (NVML) and '0000:18:00.0' (CUDA) -> '0000:18:00.0', lower case."""
    if not bus:
        return None
    m = re.match(r"^([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)$", bus.strip())
    if not m:
        return bus.strip().lower()
    d, b, dev, f = (int(x, 16) for x in m.groups())
    return "%04x:%02x:%02x.%x" % (d, b, dev, f)


# What nvidia-smi prints where it has no value (XML and CSV): "N/A", "[N/A]", "Not Supported",
# "[Not Supported]", "Unknown Error", "Insufficient Permissions", "[Unknown Error]"...
NO_VALUE = re.compile(r"^\[?\s*(N/A|Not Supported|Not Available|Unknown Error|Unknown|"
                      r"Insufficient Permissions|GPU requires reset|Not Found)\s*\]?$", re.I)


def value(text):
    """A field's text, or None where nvidia-smi shows no value."""
    if text is None:
        return None
    text = text.strip()
    return None if not text or NO_VALUE.match(text) else text


def number(text):
    """'81559 MiB' -> 81559, '1980 MHz' -> 1980, '16x' -> 16, 'N/A' -> None."""
    if text is None:
        return None
    m = re.match(r"^\s*(\d+(?:\.\d+)?)", text)
    if not m:
        return None
    v = float(m.group(1))
    return int(v) if v.is_integer() else v


def parse_smi_xml(text):
    root = ET.fromstring(text)
    out = {"driver_version": root.findtext("driver_version"),
           "cuda_version": root.findtext("cuda_version"),
           "attached_gpus": number(root.findtext("attached_gpus")), "gpus": []}
    for g in root.findall("gpu"):
        def t(path):
            return value(g.findtext(path))
        out["gpus"].append({
            "bus": norm_bus(t("pci/pci_bus_id") or g.get("id")),
            "mig": t("mig_mode/current_mig"),  # "Enabled" / "Disabled" / None (no MIG)
            "name": t("product_name"), "uuid": t("uuid"),
            "compute_cap": t("compute_cap"),  # present in some driver versions only
            "memory_total_mib": number(t("fb_memory_usage/total")),
            "memory_reserved_mib": number(t("fb_memory_usage/reserved")),
            "max_sm_mhz": number(t("max_clocks/sm_clock")),
            "max_mem_mhz": number(t("max_clocks/mem_clock")),
            "pcie_gen_max": number(t("pci/pci_gpu_link_info/pcie_gen/max_link_gen")),
            "pcie_gen_current": number(t("pci/pci_gpu_link_info/pcie_gen/current_link_gen")),
            "pcie_width_max": number(t("pci/pci_gpu_link_info/link_widths/max_link_width")),
            "pcie_width_current": number(t("pci/pci_gpu_link_info/link_widths/current_link_width")),
        })
    return out


def parse_query(text):
    """--format=csv,noheader,nounits: one line per GPU; "[N/A]" / "[Not Supported]" -> None."""
    rows = []
    for line in text.splitlines():
        cells = [value(c) for c in line.split(",")]
        if len(cells) != len(QUERY_FIELDS):
            continue
        r = dict(zip(QUERY_FIELDS, cells))
        if not r["pci.bus_id"]:
            continue
        r["bus"] = norm_bus(r["pci.bus_id"])
        rows.append(r)
    return rows


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def parse_matrix(text):
    """`nvidia-smi topo -m` / `topo -p2p r`: {"gpus": [0, 1..], "cell": {(i, j): "NV18"},
    "numa": {i: "0"}} with nvidia-smi (NVML) indices."""
    lines = [ANSI.sub("", ln).rstrip("\n") for ln in text.splitlines()]
    header = None
    out = {"gpus": [], "cell": {}, "numa": {}}
    for ln in lines:
        # nvidia-smi separates the cells with tabs; a copy with the tabs expanded to spaces
        # (a pasted sample) is split on runs of 2+ spaces ("CPU Affinity" has one)
        cols = [c.strip() for c in (ln.split("\t") if "\t" in ln else re.split(r" {2,}", ln))]
        if header is None:
            if any(re.fullmatch(r"GPU\d+", c) for c in cols):
                header = [c for c in cols if c]
            continue
        if not cols or not re.fullmatch(r"GPU\d+", cols[0]):
            if ln.strip().startswith("Legend"):
                break
            continue
        i = int(cols[0][3:])
        out["gpus"].append(i)
        # the device columns come first (GPUs, then NICs), then CPU/NUMA affinity
        ndev = 0
        for h in header:
            if h in ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID"):
                break
            ndev += 1
        cells = cols[1:]
        for k, h in enumerate(header[:ndev]):
            if re.fullmatch(r"GPU\d+", h) and k < len(cells):
                out["cell"][(i, int(h[3:]))] = cells[k]
        if "NUMA Affinity" in header and len(cells) > ndev + 1:
            out["numa"][i] = cells[ndev + 1]
    return out


def parse_prom(text):
    """Exposition text -> [(name, {label: value}, value)]."""
    series = []
    for ln in text.splitlines():
        if not ln or ln.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)', ln)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        try:
            v = float(m.group(4))
            v = int(v) if v.is_integer() else v
        except (ValueError, OverflowError):
            v = None
        series.append((m.group(1), labels, v))
    return series


# -- comparing -------------------------------------------------------------------------------

ANCESTOR = {"internal": None, "single": "PIX", "multiple": "PXB", "hostbridge": "PHB",
            "node": "NODE", "system": "SYS"}


class Oracles:
    """What this machine can answer with, and why not where it cannot."""

    def __init__(self):
        self.smi = None           # parsed -q -x, or None
        self.smi_why = ""         # why not
        self.query = {}           # bus -> --query-gpu row
        self.topo = None
        self.p2p = None
        self.torch = None         # list of device dicts
        self.torch_why = ""

    def smi_gpu(self, bus):
        if not self.smi:
            return None
        return next((g for g in self.smi["gpus"] if g["bus"] == bus), None)

    def missing(self, *which):
        parts = []
        if "smi" in which and self.smi is None:
            parts.append("nvidia-smi: %s" % self.smi_why)
        if "torch" in which and self.torch is None:
            parts.append("torch: %s" % self.torch_why)
        return "; ".join(parts)


def field_rows(step, label, predicted, observations, no_oracle_note, note=""):
    """observations: [(oracle, observed, agree, note)], only for oracles that showed the field."""
    if not observations:
        step.row(label, predicted, None, None, "not compared: " + no_oracle_note)
        return
    for oracle, observed, agree, extra in observations:
        step.row("%s (%s)" % (label, oracle), predicted, observed, agree,
                 "; ".join(x for x in (extra, note) if x))


def eq(a, b):
    if a is None or b is None:
        return None
    return a == b


def within(a, b, tol):
    if a is None or b is None:
        return None
    return abs(a - b) <= tol


def mem_obs(pred_bytes, g):
    """smcompat's bytes (cuDeviceTotalMem) against nvidia-smi's FB memory, whole MiB.

    nvidia-smi's Total is NVML's physical total (an H100 80GB HBM3 shows 81559 MiB); CUDA's total
    is smaller by what the driver and firmware keep (torch shows 81089-81090 MiB on H100s, 143156
    MiB against 143771 on an H200), and nvidia-smi's Reserved (328-551 MiB seen on H100s) need not
    be exactly that difference. So: equal to Total or Total - Reserved within 2 MiB (both are
    rounded) agrees; below Total by less than max(2 x Reserved, 1 GiB) is recorded, not judged
    (torch's total_memory, the same driver call, is the exact oracle); anything else disagrees."""
    tot, res = g.get("memory_total_mib"), g.get("memory_reserved_mib")
    if tot is None or pred_bytes is None:
        return None
    mib = pred_bytes / MiB
    seen = "%d MiB total, %s MiB reserved" % (tot, "?" if res is None else res)
    if g.get("mig") == "Enabled":
        return (seen, None, "MIG is enabled: CUDA's device may be one MIG instance; not judged")
    if abs(mib - tot) <= 2:
        return (seen, True, "matches Total within 2 MiB")
    if res is not None and abs(mib - (tot - res)) <= 2:
        return (seen, True, "matches Total - Reserved within 2 MiB")
    slack = max(2 * (res or 0), 1024)
    if tot - slack <= mib < tot:
        return (seen, None, "%.0f MiB below Total, %s Total - Reserved: the driver keeps some "
                "memory that nvidia-smi does not itemise; not judged here (torch's total_memory "
                "is the exact oracle)" % (tot - mib, "not" if res is None else "%+.0f MiB from" % (
                    mib - (tot - res))))
    return (seen, False, "%.0f MiB from Total: more than Total, or far below it" % (mib - tot))


def compare_gpu(step, o, d):
    i = d.get("ordinal")
    bus = norm_bus(d.get("pci_bus_id"))
    g = o.smi_gpu(bus) if o.smi else None
    q = o.query.get(bus)
    t = o.torch[i] if o.torch is not None and i is not None and i < len(o.torch) else None
    gl = "GPU %s" % i
    if o.smi is not None and g is None:
        step.row("%s in nvidia-smi -q" % gl, bus, None, False,
                 "nvidia-smi lists no GPU with this PCI bus id")
    if o.torch is not None and t is None:
        step.row("%s in torch" % gl, i, len(o.torch), False, "torch sees fewer CUDA devices")

    def smi(key):
        return g.get(key) if g else None

    def tp(key):
        return t.get(key) if t else None

    why_smi = o.missing("smi") or ("nvidia-smi has no such GPU" if g is None else "")
    why_t = o.missing("torch") or ("torch has no such device" if t is None else "")
    both = "; ".join(x for x in (why_smi, why_t) if x)

    def obs(*items):
        return [x for x in items if x[1] is not None]

    # name, UUID, PCI bus id
    tu = tp("uuid")
    if tu and not str(tu).startswith("GPU-"):
        tu = "GPU-" + str(tu)  # torch prints the bare UUID
    tbus = None
    if t and all(k in t for k in ("pci_domain_id", "pci_bus_id", "pci_device_id")):
        tbus = "%04x:%02x:%02x.0" % (t["pci_domain_id"], t["pci_bus_id"], t["pci_device_id"])
    field_rows(step, gl + " name", d.get("name"), obs(
        ("nvidia-smi -q", smi("name"), eq(d.get("name"), smi("name")), ""),
        ("torch", tp("name"), eq(d.get("name"), tp("name")), "")), both)
    field_rows(step, gl + " UUID", d.get("uuid"), obs(
        ("nvidia-smi -q", smi("uuid"), eq(d.get("uuid"), smi("uuid")), ""),
        ("torch", tu, eq(d.get("uuid"), tu), "torch's bare UUID prefixed with GPU-")), both)
    field_rows(step, gl + " PCI bus id", bus, obs(
        ("nvidia-smi -q", smi("bus"), eq(bus, smi("bus")),
         "NVML's 8-digit domain normalised to 4 digits"),
        ("torch", tbus, eq(bus, tbus), "from pci_domain_id/pci_bus_id/pci_device_id, function 0")),
        both)
    # compute capability: CUDA's and NVML's, against nvidia-smi (NVML) and torch (runtime)
    qcc = (q or {}).get("compute_cap") or smi("compute_cap")
    field_rows(step, gl + " compute capability", d.get("cc"), obs(
        ("nvidia-smi compute_cap", qcc, eq(d.get("cc"), qcc), ""),
        ("torch", tp("capability"), eq(d.get("cc"), tp("capability")), "")), both)
    if d.get("nvml_cc") is not None and qcc is not None:
        step.row(gl + " NVML compute capability (nvidia-smi compute_cap)", d.get("nvml_cc"), qcc,
                 eq(d.get("nvml_cc"), qcc))
    # sizes
    mo = mem_obs(d.get("memory_bytes"), g) if g else None
    field_rows(step, gl + " memory", "%s B (%.1f MiB)" % (d.get("memory_bytes"),
                                                         (d.get("memory_bytes") or 0) / MiB),
               obs(("nvidia-smi -q fb_memory_usage", mo and mo[0], mo and mo[1], mo and mo[2]),
                   ("torch total_memory", tp("total_memory"),
                    eq(d.get("memory_bytes"), tp("total_memory")), "bytes, exact")), both)
    for key, label, tkey in (("sms", "SM count", "multi_processor_count"),
                             ("smem_per_block", "shared memory per block (B)",
                              "shared_memory_per_block"),
                             ("smem_per_block_optin", "shared memory per block opt-in (B)",
                              "shared_memory_per_block_optin"),
                             ("smem_per_sm", "shared memory per SM (B)",
                              "shared_memory_per_multiprocessor"),
                             ("l2_bytes", "L2 (B)", "L2_cache_size"),
                             ("threads_per_sm", "threads per SM",
                              "max_threads_per_multi_processor"),
                             ("regs_per_sm", "registers per SM", "regs_per_multiprocessor"),
                             ("bus_width_bits", "memory bus width (bits)", "memory_bus_width")):
        if t is None:
            no = (o.missing("torch") or "torch has no such device") + \
                "; nvidia-smi does not show it"
        elif tkey not in t:
            no = "this torch's device properties have no %s; nvidia-smi does not show it" % tkey
        else:
            no = ""
        field_rows(step, "%s %s" % (gl, label), d.get(key),
                   obs(("torch %s" % tkey, tp(tkey), eq(d.get(key), tp(tkey)), "")), no)
    # clocks: CUDA's attributes are kHz, nvidia-smi's maximum clocks MHz
    for key, label, skey, tkey in (("clock_khz", "SM clock", "max_sm_mhz", "clock_rate"),
                                   ("memory_clock_khz", "memory clock", "max_mem_mhz",
                                    "memory_clock_rate")):
        khz = d.get(key)
        pred = "%s kHz (%.0f MHz)" % (khz, khz / 1000) if khz is not None else None
        smhz = smi(skey)
        field_rows(step, "%s %s" % (gl, label), pred, obs(
            ("nvidia-smi -q max_clocks", smhz and "%s MHz" % smhz,
             within(khz / 1000 if khz is not None else None, smhz, 1),
             "kHz / 1000 against MHz, within 1 MHz (rounding)"),
            ("torch %s" % tkey, tp(tkey) and "%s kHz" % tp(tkey), eq(khz, tp(tkey)), "kHz, exact")),
            both)
    # PCIe link (NVML both sides: max_link_gen is nvmlDeviceGetMaxPcieLinkGeneration, the
    # lower of the GPU's and the host's maximum). The current generation is dynamic: an idle
    # GPU drops its link to Gen1/Gen2 and raises it when work arrives (the probe's cuInit, a
    # torch process), so a current generation that differs between the two readings, taken
    # seconds apart, is recorded, not judged; the current width is judged.
    pc = d.get("pcie") or {}
    for which in ("max", "current"):
        gen, wid = pc.get("gen_" + which), pc.get("width_" + which)
        sg, sw = smi("pcie_gen_" + which), smi("pcie_width_" + which)
        pred = "Gen%s x%s" % (gen, wid) if gen is not None or wid is not None else None
        seen = "Gen%s x%s" % (sg, sw) if sg is not None or sw is not None else None
        note = ""
        if seen is None:
            agree = None
        elif pred is None:
            agree, note = False, "NVML answers nvidia-smi but the probe has no link"
        elif which == "current" and gen != sg and wid == sw:
            agree, note = None, ("the current generation differs: it follows the GPU's power "
                                 "state between the two readings (width agrees); not judged")
        else:
            agree = pred == seen
        field_rows(step, "%s PCIe link %s" % (gl, which), pred,
                   obs(("nvidia-smi -q pci_gpu_link_info", seen, agree, note)),
                   o.missing("smi") or "nvidia-smi shows no link (e.g. no PCIe link to the host)")
    # NUMA node: sysfs numa_node against topo -m's NUMA Affinity
    numa = None
    if o.topo and d.get("nvml_index") is not None:
        numa = o.topo["numa"].get(d["nvml_index"])
    if numa is not None:
        if re.fullmatch(r"\d+", numa) and d.get("numa_node") is not None:
            step.row(gl + " NUMA node (nvidia-smi topo -m NUMA Affinity)", d.get("numa_node"),
                     int(numa), d.get("numa_node") == int(numa))
        else:
            step.row(gl + " NUMA node (nvidia-smi topo -m NUMA Affinity)", d.get("numa_node"),
                     numa, None, "not comparable: one side has no single node (sysfs -1 is "
                     "shown as null by the probe)")


def compare_topology(step, o, probe):
    devs = probe.get("devices") or []
    topo = probe.get("topology") or {}
    n = len(devs)
    if o.smi is not None:
        nml = (probe.get("nvml") or {}).get("device_count")
        step.row("GPUs seen by NVML (nvidia-smi -q attached_gpus)", nml, o.smi["attached_gpus"],
                 eq(nml, o.smi["attached_gpus"]))
    if o.torch is not None:
        step.row("GPUs seen by CUDA (torch.cuda.device_count)", n, len(o.torch), n == len(o.torch))
    if n < 2:
        step.note("one GPU: the P2P/NVLink/PCIe matrices have no pair to compare")
        return
    nvml_of = {d["ordinal"]: d.get("nvml_index") for d in devs}
    # NVLink through NVSwitch (HGX H100/H200): each GPU's links end at a switch, so NVML's remote
    # of every link is the switch and the probe counts them as links_to_other, not to the peer,
    # while topo -m shows NV18 for every pair. A 0-vs-NV# row there is smcompat's model of
    # switched NVLink, a finding to keep (the note says so), not a parsing error.
    to_switch = {d["ordinal"]: (d.get("nvlink") or {}).get("links_to_other") or 0 for d in devs}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            a, b = nvml_of.get(i), nvml_of.get(j)
            pair = "GPU %d->%d" % (i, j)
            p2p = (topo.get("p2p_access") or [[None] * n] * n)[i][j]
            nvl = (topo.get("nvlink_links") or [[None] * n] * n)[i][j]
            anc = (topo.get("pcie_common_ancestor") or [[None] * n] * n)[i][j]
            if o.p2p is not None and (a, b) in o.p2p["cell"]:
                cell = o.p2p["cell"][(a, b)]
                step.row(pair + " P2P access (nvidia-smi topo -p2p r)", p2p, cell,
                         eq(p2p, cell == "OK"), "OK = access; CNS/GNS/TNS/NS/U = none")
            else:
                step.row(pair + " P2P access", p2p, None, None,
                         "not compared: " + (o.missing("smi") or "no topo -p2p r cell"))
            cell = o.topo["cell"].get((a, b)) if o.topo else None
            if cell is None:
                step.row(pair + " NVLink links", nvl, None, None,
                         "not compared: " + (o.missing("smi") or "no topo -m cell"))
                continue
            m = re.fullmatch(r"NV(\d+)", cell)
            seen = int(m.group(1)) if m else 0
            note = "NV# = # links; any other cell = 0 links"
            if m and not nvl and to_switch.get(i):
                note += ("; GPU %d has %d links to a non-GPU endpoint (an NVSwitch): topo -m "
                         "counts the links of the switched path, the probe only direct "
                         "GPU-to-GPU links" % (i, to_switch[i]))
            if nvl is None:
                note += "; the probe has no NVLink answer for this pair (NVML did not answer)"
            step.row(pair + " NVLink links (nvidia-smi topo -m)", nvl, cell,
                     eq(nvl, seen), note)
            if not m:
                want = ANCESTOR.get(anc) if anc else None
                step.row(pair + " PCIe common ancestor (nvidia-smi topo -m)",
                         "%s (%s)" % (anc, want), cell, eq(want, cell))


def compare_doctor(step, o, doc):
    drv = doc.get("driver") or {}
    why = o.missing("smi")
    if o.smi is None:
        step.row("doctor driver version", drv.get("version"), None, None, "not compared: " + why)
        step.row("doctor driver CUDA", drv.get("cuda"), None, None, "not compared: " + why)
    else:
        step.row("doctor driver version (nvidia-smi -q)", drv.get("version"),
                 o.smi["driver_version"], eq(drv.get("version"), o.smi["driver_version"]))
        step.row("doctor driver CUDA (nvidia-smi -q cuda_version)", drv.get("cuda"),
                 o.smi["cuda_version"], eq(drv.get("cuda"), o.smi["cuda_version"]))
    for k, g in enumerate(drv.get("gpus") or []):
        bus = norm_bus(g.get("pci_bus_id"))
        s = o.smi_gpu(bus)
        q = o.query.get(bus)
        label = "doctor GPU %d" % k
        if s is None:
            step.row(label + " (%s)" % bus, "%s CC %s" % (g.get("name"), g.get("cc")), None, None,
                     "not compared: " + (why or "nvidia-smi has no GPU at this PCI bus id"))
            continue
        qcc = (q or {}).get("compute_cap") or s.get("compute_cap")
        if qcc is not None:
            step.row(label + " CC (nvidia-smi compute_cap)", g.get("cc"), qcc, eq(g.get("cc"), qcc))
        step.row(label + " model (nvidia-smi product name)", g.get("name"), s.get("name"), None,
                 "recorded: the doctor names the catalog model resolved from the driver's name")


def compare_prometheus(step, o, text, probe):
    series = parse_prom(text)
    up = next((v for n, _, v in series if n == "smcompat_up"), None)
    info = [lab for n, lab, _ in series if n == "smcompat_gpu_info"]
    step.row("prometheus series parsed", "smcompat_up 1, one smcompat_gpu_info per GPU (%d)" %
             len(probe.get("devices") or []), "smcompat_up %s, %d smcompat_gpu_info, %d series" % (
                 up, len(info), len(series)), None, "recorded")
    why = o.missing("smi")
    drv = next((lab for n, lab, _ in series if n == "smcompat_driver_info"), None)
    if drv is not None:
        if o.smi is None:
            step.row("prometheus driver_info", "%s / CUDA %s" % (drv.get("driver_version"),
                     drv.get("cuda_version")), None, None, "not compared: " + why)
        else:
            step.row("prometheus driver_info driver_version (nvidia-smi -q)",
                     drv.get("driver_version"), o.smi["driver_version"],
                     eq(drv.get("driver_version"), o.smi["driver_version"]))
            step.row("prometheus driver_info cuda_version (nvidia-smi -q)", drv.get("cuda_version"),
                     o.smi["cuda_version"], eq(drv.get("cuda_version"), o.smi["cuda_version"]))
    mem = {lab.get("gpu"): v for n, lab, v in series if n == "smcompat_gpu_memory_bytes"}
    for lab in info:
        gpu = lab.get("gpu")
        bus = norm_bus(lab.get("pci_bus_id"))
        s = o.smi_gpu(bus)
        q = o.query.get(bus)
        pre = "prometheus gpu_info{gpu=%s}" % gpu
        if s is None:
            step.row(pre, "uuid %s, name %s, cc %s" % (lab.get("uuid"), lab.get("name"),
                                                         lab.get("cc")), None, None,
                     "not compared: " + (why or "nvidia-smi has no GPU at pci_bus_id %s" % bus))
            continue
        step.row(pre + " uuid (nvidia-smi -q)", lab.get("uuid"), s.get("uuid"),
                 eq(lab.get("uuid"), s.get("uuid")), "joined on pci_bus_id")
        step.row(pre + " name (nvidia-smi -q)", lab.get("name"), s.get("name"),
                 eq(lab.get("name"), s.get("name")))
        qcc = (q or {}).get("compute_cap") or s.get("compute_cap")
        if qcc is not None:
            step.row(pre + " cc (nvidia-smi compute_cap)", lab.get("cc"), qcc,
                     eq(lab.get("cc"), qcc))
        if mem.get(gpu) is not None:
            mo = mem_obs(int(mem[gpu]), s)
            if mo:
                step.row("prometheus gpu_memory_bytes{gpu=%s} (nvidia-smi -q)" % gpu,
                         "%d B (%.1f MiB)" % (mem[gpu], mem[gpu] / MiB), mo[0], mo[1], mo[2])
    # P2P and NVLink series against the topology matrices (labels are CUDA ordinals)
    nvml_of = {d["ordinal"]: d.get("nvml_index") for d in probe.get("devices") or []}
    to_switch = {d["ordinal"]: (d.get("nvlink") or {}).get("links_to_other") or 0
                 for d in probe.get("devices") or []}
    for name, mat, how in (("smcompat_gpu_p2p_access", o.p2p, "topo -p2p r"),
                           ("smcompat_gpu_nvlink_links", o.topo, "topo -m")):
        for n, lab, v in series:
            if n != name:
                continue
            try:
                ga, gb = int(lab["gpu"]), int(lab["peer"])
            except (KeyError, ValueError):
                continue
            a, b = nvml_of.get(ga), nvml_of.get(gb)
            pre = "prometheus %s{gpu=%s,peer=%s}" % (name[9:], lab["gpu"], lab["peer"])
            cell = mat["cell"].get((a, b)) if mat else None
            if cell is None:
                step.row(pre, v, None, None, "not compared: " + (why or "no %s cell" % how))
            elif name.endswith("p2p_access"):
                step.row(pre + " (nvidia-smi %s)" % how, v, cell,
                         None if v is None else eq(v == 1, cell == "OK"))
            else:
                m = re.fullmatch(r"NV(\d+)", cell)
                step.row(pre + " (nvidia-smi %s)" % how, v, cell,
                         eq(v, int(m.group(1)) if m else 0),
                         "links to an NVSwitch are not counted per peer (links_to_other %d)" %
                         to_switch.get(ga) if m and not v and to_switch.get(ga) else "")


def start_torch(step):
    """torch.cuda.get_device_properties in a python3 process started first and read last:
    importing torch and its first CUDA call take seconds, spent while nvidia-smi runs."""
    m = step.machine()
    py = m.get("python_exe") or python_exe()
    if m.get("packages") is not None and "torch" not in m["packages"]:
        return None, None, "torch is not installed for %s" % py
    imp = (m.get("imports") or {}).get("torch") or {}
    if imp.get("error") and (not imp.get("timed_out") or imp.get("seconds", 0) >= 15):
        return None, None, "import torch failed in the machine step (%s)" % imp["error"]
    out = step.path("torch-props.out")
    script = step.script("torch_props.py", TORCH_PROPS)
    try:
        with open(out, "w") as sink, open(step.path("torch-props.err"), "w") as err:
            p = step.spawn([py, script], stdin=subprocess.DEVNULL, stdout=sink, stderr=err)
    except OSError as e:
        return None, None, "%s: %s" % (py, e)
    return p, out, ""


def finish_torch(step, o, p, out, why, wait_s):
    if p is None:
        o.torch_why = why
        return
    try:
        p.wait(timeout=max(0.1, wait_s))
    except subprocess.TimeoutExpired:
        kill_tree(p)
        o.torch_why = "no answer within the step's budget (importing torch and initialising " \
                      "CUDA took longer than %.0f s)" % (step.elapsed())
        return
    doc = None
    try:
        lines = [x for x in out.read_text(errors="replace").splitlines() if x.startswith("{")]
        doc = json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        pass
    if not doc:
        o.torch_why = "no answer (exit %s; see torch-props.err)" % p.returncode
    elif doc.get("error"):
        o.torch_why = doc["error"][:200]
    else:
        o.torch = doc.get("devices") or []
        step.path("torch-props.json").write_text(json.dumps(doc, indent=1))
        step.note("torch %s (CUDA %s) get_device_properties for %d device(s)" % (
            doc.get("torch"), doc.get("cuda"), len(o.torch)))


def main():
    step = Step("probe", "probe, doctor and export prometheus against nvidia-smi and torch",
                checks=[1, 10])
    budget = step.budget(BUDGET)
    o = Oracles()

    def limit(most, keep=3):
        """A command's timeout: at most `most` s and never past the step's budget."""
        return max(1, min(most, step.left(budget) - keep))

    tp, tout, twhy = start_torch(step)

    # smcompat's side
    r = step.run("probe", [step.smcompat, "probe", "--json"], timeout=limit(20))
    probe = r.json()
    if not isinstance(probe, dict):
        step.fail("smcompat probe --json gave no JSON (exit %d): %s" % (r.rc, r.stderr[-300:]))
    step.path("probe.json").write_text(r.stdout)
    if probe.get("status") != "ok":
        step.note("probe status %s: %s" % (probe.get("status"), probe.get("explanation")))

    # nvidia-smi (each run initialises NVML: about a second, more without persistence mode)
    smi = shutil.which("nvidia-smi")
    if not smi:
        o.smi_why = "not on PATH" + (" (the fake driver has none)" if step.synthetic else "")
    else:
        x = step.run("nvidia-smi-q", [smi, "-q", "-x"], timeout=limit(20, keep=12))
        try:
            o.smi = parse_smi_xml(x.stdout)
            step.path("nvidia-smi-q.xml").write_text(x.stdout)
        except ET.ParseError as e:
            o.smi_why = "-q -x gave no XML (%s: %s)" % (
                "timed out" if x.timed_out else "exit %d" % x.rc, e)
        if o.smi is not None:
            qr = step.run("nvidia-smi-query", [smi, "--query-gpu=" + ",".join(QUERY_FIELDS),
                                               "--format=csv,noheader,nounits"],
                          timeout=limit(10, keep=12))
            o.query = {row["bus"]: row for row in parse_query(qr.stdout)} if qr.rc == 0 else {}
            if qr.rc != 0:
                step.note("nvidia-smi --query-gpu failed (exit %d): %s" % (
                    qr.rc, (qr.stdout + qr.stderr).strip()[-200:]))
            t = step.run("nvidia-smi-topo", [smi, "topo", "-m"], timeout=limit(10, keep=12))
            if t.rc == 0:
                o.topo = parse_matrix(t.stdout)
                step.path("nvidia-smi-topo.txt").write_text(t.stdout)
            if len(probe.get("devices") or []) > 1:  # one GPU has no pair to read
                pp = step.run("nvidia-smi-p2p", [smi, "topo", "-p2p", "r"],
                              timeout=limit(10, keep=12))
                if pp.rc == 0:
                    o.p2p = parse_matrix(pp.stdout)
    # torch: what is left, keeping about 8 s for doctor and export
    finish_torch(step, o, tp, tout, twhy, step.left(budget) - 8)
    for why, what in ((o.smi_why, "nvidia-smi"), (o.torch_why, "torch")):
        if why:
            step.note("%s oracle unavailable: %s" % (what, why))

    for d in probe.get("devices") or []:
        compare_gpu(step, o, d)
    if o.smi is not None:
        step.row("driver version (nvidia-smi -q)", probe.get("driver_version"),
                 o.smi["driver_version"], eq(probe.get("driver_version"), o.smi["driver_version"]))
        cv = probe.get("cuda_driver_version")
        cvt = "%d.%d" % (cv // 1000, (cv % 1000) // 10) if cv else None
        step.row("driver CUDA version (nvidia-smi -q cuda_version)", "%s (%s)" % (cvt, cv),
                 o.smi["cuda_version"], eq(cvt, o.smi["cuda_version"]))
    else:
        step.row("driver version", probe.get("driver_version"), None, None,
                 "not compared: " + o.missing("smi"))
    compare_topology(step, o, probe)

    # doctor (driver facts only: --no-scan keeps it to seconds; the frameworks step scans)
    r = step.run("doctor", [step.smcompat, "doctor", "--json", "--no-scan"], timeout=limit(15))
    doc = r.json()
    if isinstance(doc, dict):
        step.path("doctor.json").write_text(r.stdout)
        compare_doctor(step, o, doc)
    else:
        step.row("doctor --json", "a smcompat.doctor/1 document", None,
                 None if r.timed_out else False,
                 "%s: %s" % ("timed out" if r.timed_out else "exit %d" % r.rc,
                             r.stderr.strip()[-300:]))

    # export prometheus (check 10); the exposition file stays in work for promtool
    prom = step.path("node.prom")
    argv = [step.smcompat, "export", "prometheus", "--textfile", prom]
    if (step.kit / "checks").is_dir():
        argv[3:3] = ["--scan", step.kit / "checks"]
    r = step.run("export-prometheus", argv, timeout=limit(20, keep=2))
    n0 = len(step.rows)
    if r.rc == 0 and prom.exists():
        compare_prometheus(step, o, prom.read_text(), probe)
        promtool = shutil.which("promtool")
        if promtool and step.left(budget) > 3:
            pr = step.run("promtool", [promtool, "check", "metrics"], input=prom.read_text(),
                          timeout=limit(10, keep=1))
            step.row("promtool check metrics node.prom", "accepted (exit 0, no lint output)",
                     "exit %d%s" % (pr.rc, (": " + (pr.stdout + pr.stderr).strip()[:300])
                                    if (pr.stdout + pr.stderr).strip() else ""),
                     pr.rc == 0 and not (pr.stdout + pr.stderr).strip())
        else:
            step.note("promtool is not on PATH here: scripts/gpu-checks-record.sh runs it on "
                      "probe/node.prom from the logs")
    else:
        step.row("export prometheus", "exit 0 and node.prom", "exit %d%s" % (
            r.rc, " (timed out)" if r.timed_out else ""), None if r.timed_out else False,
            r.stderr.strip()[-300:])
    for k, row in enumerate(step.rows):
        row["check"] = 10 if k >= n0 else 1  # export prometheus is check 10, the rest check 1
    if step.synthetic:
        step.note("synthetic: smcompat's side is the fake driver's catalog-derived GPU")
    step.finish()


if __name__ == "__main__":
    main()
