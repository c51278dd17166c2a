#!/usr/bin/env python3
"""The end of scripts/test.sh: one table of what ran, per CTest label (tests run / passed /
failed / skipped), then every skipped test with its reason, from CTest's JUnit output and its
test list (`ctest --show-only=json-v1`, for the labels). A test with several labels counts under
each. Usage: ci-summary.py TITLE JUNIT_XML SHOW_ONLY_JSON"""
import collections
import json
import re
import sys
import xml.etree.ElementTree as ET

# The line of a test's output that says why it skipped: GoogleTest's GTEST_SKIP message (the line
# after "Skipped" or a "... skip..." sentence), a script's "SKIP: ..." line, pytest's summary.
REASON = re.compile(r"^(SKIP\b.*|.*\bskip(?:s|ped|ping)?\b.*|.*\bmissing\b.*|.*not found.*)$",
                    re.IGNORECASE | re.MULTILINE)


def reason_of(out: str) -> str:
    return first_reason(out).removeprefix("SKIP: ")


def first_reason(out: str) -> str:
    lines = [l.strip() for l in out.splitlines()]
    for i, line in enumerate(lines):  # GoogleTest: "path:line: Skipped" then the message
        if line.endswith(": Skipped") and i + 1 < len(lines) and lines[i + 1]:
            return lines[i + 1]
    for m in REASON.finditer(out):
        text = m.group(0).strip()
        if "[  SKIPPED ]" not in text and not text.startswith("[=") and text:
            return text[:200]
    return "(no reason printed)"


def main() -> int:
    title, junit, show = sys.argv[1:4]
    labels = {}
    for t in json.load(open(show)).get("tests", []):
        names = []
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                names = p.get("value", [])
        labels[t["name"]] = names or ["(no label)"]
    rows = collections.defaultdict(lambda: [0, 0, 0, 0])  # run, passed, failed, skipped
    skips = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        status = case.get("status", "run")
        out = (case.findtext("system-out") or "")
        failed = case.find("failure") is not None or status == "fail"
        skipped = (case.find("skipped") is not None or status in ("notrun", "disabled")) and not failed
        for label in labels.get(name, ["(no label)"]):
            r = rows[label]
            r[0] += 1
            r[1] += not failed and not skipped
            r[2] += failed
            r[3] += skipped
        if skipped:
            skips.append((name, reason_of(out), labels.get(name, [])))
    width = max([len(l) for l in rows] + [5])
    print(f"\n== {title}: tests per label")
    print(f"{'label':<{width}}  {'run':>5}  {'passed':>6}  {'failed':>6}  {'skipped':>7}")
    for label in sorted(rows):
        run, ok, bad, skip = rows[label]
        print(f"{label:<{width}}  {run:>5}  {ok:>6}  {bad:>6}  {skip:>7}")
    if skips:
        print(f"-- {len(skips)} skipped, with the reason each printed:")
        for name, why, _ in skips:
            print(f"   {name}: {why}")
    else:
        print("-- nothing skipped")
    # The oracle layer (real wheels, cuobjdump, real venvs) is what a green run is trusted for:
    # when any of it did not run, say so where nobody can miss it, once per reason.
    oracle = collections.Counter(why for _, why, names in skips if "corpus" in names)
    if oracle:
        total = sum(oracle.values())
        print(f"!! {total} oracle test{'s' if total != 1 else ''} (label corpus) did not run:")
        for why, n in oracle.most_common():
            print(f"!!   {n} x {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
