#!/usr/bin/env python3
"""Prints docs/explain.md's failure-mode table from data/failure_modes.json (id, title, the
labels of its tool-specific fixes, its first four sources). Usage: scripts/explain-modes-table.py"""
import json
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
modes = json.loads((root / "data/failure_modes.json").read_text())["modes"]
print("| id | title | tool-specific fixes | sources |")
print("|---|---|---|---|")
for m in modes:
    fixes = "; ".join(f["label"] for f in m.get("fixes", [])) or "—"
    refs = m.get("refs") or [m.get("reference", "")]
    shown = ", ".join(refs[:4]) + (", …" if len(refs) > 4 else "")
    harmless = " (harmless: listed after real errors)" if m.get("harmless") else ""
    print(f"| `{m['id']}` | {m['title']}{harmless} | {fixes} | {shown} |")
