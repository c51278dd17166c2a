#!/usr/bin/env python3
"""Writes the seeds of fuzz/corpus/image/: small OCI and docker-save image tars (tarfile, gzip,
hashlib) with a whiteout, an opaque directory, a hard link, a symlink and a `..` entry. The
layer's "library" is a few bytes of ELF magic: the reader, not the ELF parser, is under test."""
import gzip, hashlib, io, json, os, sys, tarfile

def tar(entries, gz=False):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, kind, data in entries:
            ti = tarfile.TarInfo(name)
            ti.mtime = 0
            if kind == "file":
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            elif kind == "dir":
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            elif kind == "sym":
                ti.type, ti.linkname = tarfile.SYMTYPE, data
                t.addfile(ti)
            elif kind == "hard":
                ti.type, ti.linkname = tarfile.LNKTYPE, data
                t.addfile(ti)
    raw = buf.getvalue()
    return gzip.compress(raw, mtime=0) if gz else raw

def sha(b): return hashlib.sha256(b).hexdigest()

elf = b"\x7fELF\x02\x01\x01" + b"\0" * 57
l1 = tar([("opt/", "dir", None), ("opt/lib/libkeep.so", "file", elf), ("opt/lib/libgone.so", "file", elf),
          ("opt/old/x.so", "file", elf), ("../escape.so", "file", elf),
          ("usr/site/demo-1.0.dist-info/RECORD", "file", b"../../opt/lib/libkeep.so,,\n"),
          ("usr/site/demo-1.0.dist-info/METADATA", "file", b"Name: demo\nVersion: 1.0\n\n")], gz=True)
l2 = tar([("opt/lib/.wh.libgone.so", "file", b""), ("opt/old/.wh..wh..opq", "file", b""),
          ("opt/lib/link.so", "hard", "opt/lib/libkeep.so"), ("opt/lib/evil", "sym", "../../../../etc/passwd")])
config = json.dumps({"os": "linux", "architecture": "amd64",
                     "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha(l1), "sha256:" + sha(l2)]}}).encode()
manifest = json.dumps({"schemaVersion": 2, "config": {"digest": "sha256:" + sha(config), "size": len(config)},
                       "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "sha256:" + sha(l1), "size": len(l1)},
                                  {"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": "sha256:" + sha(l2), "size": len(l2)}]}).encode()
index = json.dumps({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "digest": "sha256:" + sha(manifest), "size": len(manifest),
                    "annotations": {"org.opencontainers.image.ref.name": "demo:1"}}]}).encode()
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "image")
os.makedirs(out, exist_ok=True)
blobs = [(f"blobs/sha256/{sha(b)}", "file", b) for b in (l1, l2, config, manifest)]
with open(os.path.join(out, "oci-archive.tar"), "wb") as f:
    f.write(tar(blobs + [("oci-layout", "file", b'{"imageLayoutVersion":"1.0.0"}'), ("index.json", "file", index)]))
docker = json.dumps([{"Config": "config.json", "RepoTags": ["demo:1"], "Layers": ["a/layer.tar", "b/layer.tar"]}]).encode()
with open(os.path.join(out, "docker-archive.tar"), "wb") as f:
    f.write(tar([("a/layer.tar", "file", l1), ("b/layer.tar", "file", l2), ("config.json", "file", config),
                 ("manifest.json", "file", docker)]))
