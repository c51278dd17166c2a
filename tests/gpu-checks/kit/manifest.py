"""Writes gpu-kit/MANIFEST.json and checks the kit's promises (scripts/gpu-kit.sh):
every ELF file's glibc symbol versions, that bin/ and lib/ load nothing but glibc and what lib/
carries, and the 48 MiB bound. Exit 1 (with the reason) when a promise is broken.
--vendor first copies into lib/ every library bin/smcompat and the shim load (ldd) that SYSTEM
does not name.
    manifest.py KIT --source SRC [--vendor]
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

LIMIT_BYTES = 48 * 1024 * 1024
GLIBC_LIMIT = (2, 34)
# What every glibc system carries (a CUDA base image included): never vendored.
SYSTEM = re.compile(r"^(linux-vdso|libc|libm|libdl|libpthread|librt|libresolv|libgcc_s|ld-linux-x86-64)\.so")


def is_elf(p):
    with open(p, "rb") as f:
        return f.read(4) == b"\x7fELF"


def glibc_versions(p):
    """The GLIBC_x.y versions the file's dynamic symbols need (objdump -T)."""
    out = subprocess.run(["objdump", "-T", str(p)], capture_output=True, text=True).stdout
    return sorted({tuple(int(x) for x in m.split(".")) for m in re.findall(r"\(GLIBC_([0-9.]+)\)", out)})


def needed(p):
    out = subprocess.run(["readelf", "-d", str(p)], capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def vendor(kit):
    """Copies the libraries the CLI and the shim resolve (ldd) into KIT/lib; a missing one is fatal."""
    lib = kit / "lib"
    for elf in (kit / "bin" / "smcompat", lib / "libsmcompat_trace.so"):
        out = subprocess.run(["ldd", str(elf)], capture_output=True, text=True).stdout
        for name, path in re.findall(r"^\s*(\S+) => (\S+)", out, re.M):
            if SYSTEM.match(name):
                continue
            if path == "not":
                sys.exit("gpu-kit: %s needs %s, not found here" % (elf, name))
            dest = lib / name
            if not dest.exists():
                shutil.copyfile(path, dest)  # follows the soname link to the real file
                dest.chmod(0o755)


def git(src, *args):
    r = subprocess.run(["git", "-C", src] + list(args), capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def main():
    a = argparse.ArgumentParser()
    a.add_argument("kit")
    a.add_argument("--source", required=True)
    a.add_argument("--vendor", action="store_true")
    args = a.parse_args()
    kit = Path(args.kit)
    if args.vendor:
        vendor(kit)
    problems, files = [], []
    carried = {p.name for p in (kit / "lib").iterdir()}
    total = 0
    for p in sorted(kit.rglob("*")):
        if not p.is_file() or p.name == "MANIFEST.json":
            continue
        rel = p.relative_to(kit).as_posix()
        size = p.stat().st_size
        total += size
        entry = {"path": rel, "bytes": size,
                 "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        if is_elf(p):
            versions = glibc_versions(p)
            entry["glibc"] = ".".join(map(str, versions[-1])) if versions else None
            entry["needed"] = needed(p)
            portable = rel.startswith(("bin/", "lib/"))
            if portable and versions and versions[-1] > GLIBC_LIMIT:
                problems.append("%s needs GLIBC_%s (limit 2.34)" % (rel, ".".join(map(str, versions[-1]))))
            if portable:
                for n in entry["needed"]:
                    if not SYSTEM.match(n) and n not in carried:
                        problems.append("%s needs %s, which the kit does not carry" % (rel, n))
        files.append(entry)
    if total > LIMIT_BYTES:
        problems.append("the kit is %.1f MiB, over the 48 MiB bound" % (total / 2**20))
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True)
    commit = git(args.source, "rev-parse", "HEAD")
    dirty = bool(git(args.source, "status", "--porcelain", "--untracked-files=no"))
    doc = {"schema": "smcompat.gpu-kit/1",
           "commit": commit, "dirty": dirty,
           "built_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "builder": {"uname": " ".join(os.uname()),
                       "glibc": os.confstr("CS_GNU_LIBC_VERSION"),
                       "nvcc": nvcc.stdout.strip().splitlines()[-1] if nvcc.returncode == 0 else None},
           "total_bytes": total, "limit_bytes": LIMIT_BYTES,
           "max_glibc": max((f["glibc"] for f in files if f.get("glibc") and
                             f["path"].startswith(("bin/", "lib/"))),
                            key=lambda v: tuple(int(x) for x in v.split(".")), default=None),
           "problems": problems, "files": files}
    (kit / "MANIFEST.json").write_text(json.dumps(doc, indent=1) + "\n")
    print("gpu-kit: %s, %d files, %.1f MiB, glibc symbols up to %s, commit %s%s" % (
        kit, len(files), total / 2**20, doc["max_glibc"], (commit or "?")[:12],
        " (with uncommitted changes)" if dirty else ""))
    for p in problems:
        print("gpu-kit: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
