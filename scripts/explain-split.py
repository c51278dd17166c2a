#!/usr/bin/env python3
"""Applies the mined corpus's split rule (tests/explain/corpus/README.md) to every entry of
tests/explain/corpus/mined/*.jsonl, in place: the key is owner/repo (lower case) for a github.com
URL and the host name otherwise; an entry is "heldout" when the first hex digit of sha256(key) is
0-4, else "tune". Run it after adding entries; the corpus test checks the rule."""
import hashlib
import json
import pathlib
import sys
import urllib.parse


def split_key(url: str) -> str:
    u = urllib.parse.urlparse(url)
    host = (u.hostname or "").lower()
    if host == "github.com":
        parts = [p for p in u.path.split("/") if p]
        return "/".join(parts[:2]).lower()
    return host


def split_of(url: str) -> str:
    digit = hashlib.sha256(split_key(url).encode()).hexdigest()[0]
    return "heldout" if digit in "01234" else "tune"


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent / "tests/explain/corpus/mined"
    for path in sorted(root.glob("*.jsonl")):
        entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for e in entries:
            e["split"] = split_of(e["url"])
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))
        held = sum(e["split"] == "heldout" for e in entries)
        print(f"{path.name}: {len(entries)} entries, {held} held out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
