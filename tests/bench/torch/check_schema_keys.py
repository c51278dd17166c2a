# Checks that the torch script's document has exactly the fields docs/json-schema.md lists for
# smcompat.bench/1 (top level, device, method, result, time summary), no more and no fewer: the
# C++ reader ignores unknown fields, so a misspelt key would otherwise pass unnoticed. Runs the
# script with --device cpu (its testing aid) under the corpus venv's python
# ($SMCOMPAT_CORPUS/venvs/torch, default ~/.cache/smcompat-corpus); exit 77 (skip) without it.
# Usage: check_schema_keys.py SOURCE_DIR
import json
import os
import re
import subprocess
import sys

source_dir = sys.argv[1]
corpus = os.environ.get("SMCOMPAT_CORPUS") or os.path.join(
    os.environ.get("HOME", "/root"), ".cache/smcompat-corpus")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from corpus_venv import interpreter_skip_reason  # noqa: E402
why = interpreter_skip_reason(os.path.join(corpus, "venvs", "torch"))
if why:
    print("SKIP: " + why)
    sys.exit(77)
python = os.path.join(corpus, "venvs/torch/bin/python")

with open(os.path.join(source_dir, "data/bench/torch_bench.py"), encoding="utf-8") as f:
    script = f.read()
out = subprocess.run(
    [python, "-", "--device", "cpu", "--quick", "--rows", "gemm,softmax", "--min-samples", "2",
     "--min-time", "0.001", "--timeout", "0.1"],
    input=script, capture_output=True, text=True, timeout=120, check=True).stdout
doc = json.loads(out)

with open(os.path.join(source_dir, "docs/json-schema.md"), encoding="utf-8") as f:
    md = f.read()
section = md[md.index("## `smcompat.bench/1`"):]
nxt = section.find("\n## ", 5)
section = section if nxt < 0 else section[:nxt]


def table_keys(text: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))


def braced(field: str) -> set[str]:
    """The {a, b, c} list given for `field` in the schema's tables."""
    m = re.search(r"^\| `" + field + r"` \|[^|]*\|[^{]*\{([^}]*)\}", section, re.M)
    assert m, f"no field list for {field} in docs/json-schema.md"
    return {k.strip() for k in m.group(1).split(",")}


top = table_keys(section[:section.index("A **result**")])
result = table_keys(section[section.index("A **result**"):section.index("A **state**")])
failures = []


def same(what: str, got: set[str], want: set[str]) -> None:
    if got != want:
        failures.append(
            f"{what}: missing {sorted(want - got)}, not in the schema {sorted(got - want)}")


same("document", set(doc), top)
same("method", set(doc["method"]), braced("method"))
for d in doc["devices"]:
    same("device", set(d), braced("devices"))
assert doc["results"], "no results"
for r in doc["results"]:
    same(f"result {r['name']}", set(r), result)
    if r["time"] is not None:
        same(f"time of {r['name']}", set(r["time"]), braced("time"))
    assert all(isinstance(v, str) for v in r["params"].values()), r["params"]
    assert r["origin"] == "torch", r["origin"]
assert doc["schema"] == "smcompat.bench/1"
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(doc['results'])} results, every field as docs/json-schema.md lists it")
