#!/usr/bin/env python3
"""Scores `smcompat explain` on the mined corpus (tests/explain/corpus/mined/*.jsonl): for each
entry, the first match's printed fix (with its computed specifics) must contain `expect_fix`
(case-insensitive) to "name the thread's fix"; a fix chosen for another tool than the one that
wrote the text (`tool`) counts as "another tool's fix". Usage:
  scripts/explain-score.py SMCOMPAT [--split heldout|tune|all] [--misses] [--files GLOB]
                           [--exclude GLOB]
(--files: only the mined files matching GLOB, e.g. 'round3_*' for a round's new texts; --exclude:
leave out the files matching GLOB, e.g. a round not yet measured)"""
import argparse
import json
import pathlib
import importlib.util
import subprocess
import sys

_spec = importlib.util.spec_from_file_location(
    "explain_split", pathlib.Path(__file__).resolve().parent / "explain-split.py")
_split = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_split)

# Words in a tool-specific fix's label (older JSON without fix_tool) -> tool id.
LABEL_TOOLS = [("llama", "llama.cpp"), ("ggml", "llama.cpp"), ("ollama", "llama.cpp"),
               ("tensorflow", "tensorflow"), ("jax", "jax"), ("xla", "jax"),
               ("onnx", "onnxruntime"), ("tensorrt", "tensorrt"), ("triton", "triton"),
               ("nccl", "nccl"), ("container", "container-toolkit"), ("cupy", "cupy"),
               ("bitsandbytes", "bitsandbytes"), ("xformers", "xformers"), ("flash", "flash-attn"),
               ("vllm", "vllm"), ("sglang", "sglang"), ("comfy", "comfyui"), ("pytorch", "pytorch")]


def fix_tool(match: dict) -> str:
    if match.get("fix_tool"):
        return match["fix_tool"]
    label = (match.get("fix_for") or "").lower()
    for word, tool in LABEL_TOOLS:
        if word in label:
            return tool
    return ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("smcompat")
    ap.add_argument("--split", default="heldout")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--files", default="*")
    ap.add_argument("--exclude", default="")
    a = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent / "tests/explain/corpus/mined"
    total = named = other = 0
    for path in sorted(root.glob(a.files + ".jsonl")):
        if a.exclude and path.match(a.exclude + ".jsonl"):
            continue
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            e = json.loads(line)
            if a.split != "all" and _split.split_of(e["url"]) != a.split:
                continue
            total += 1
            r = subprocess.run([a.smcompat, "explain", "--json", "--no-doctor", "-"],
                               input=e["text"].encode(), capture_output=True, timeout=60)
            try:
                out = json.loads(r.stdout)
            except json.JSONDecodeError:
                out = {"matches": []}
            ms = out.get("matches", [])
            first = ms[0] if ms else None
            text = ""
            if first:
                text = first.get("fix", "") + " " + " ".join(first.get("specifics", []))
            ok = first is not None and e["expect_fix"].lower() in text.lower()
            # A line nvcc or CMake wrote takes the fix of the project the text names (a
            # llama.cpp build's nvcc refusal gets ggml's CMake flags): not another tool's fix.
            build_line = e["tool"] in ("cuda-toolkit", "cmake") and first and first.get("tool") == e["tool"]
            wrong_tool = bool(first) and fix_tool(first) not in ("", e["tool"]) and not build_line
            named += ok
            other += wrong_tool
            if a.misses and (not ok or wrong_tool):
                print(f"  {'OTHER-TOOL ' if wrong_tool else ''}miss: {e['url']} [{e['tool']}/"
                      f"{e['family']}] expect '{e['expect_fix']}' got "
                      f"{first['id'] if first else 'no match'}")
    print(f"{a.split}: {named}/{total} name the thread's fix "
          f"({100.0 * named / max(total, 1):.0f} %), {other} with another tool's fix")
    return 0


if __name__ == "__main__":
    sys.exit(main())
