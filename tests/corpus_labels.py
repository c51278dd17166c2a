#!/usr/bin/env python3
"""CTest corpus_labels: every test source that reads the real-world corpus of
scripts/fetch-corpus.sh is built into a binary labelled `corpus`, so that `ctest -L corpus` and
`-LE corpus` select exactly the tests that need it. A C++ test reads the corpus when it names the
cache (corpus_dir(), SMCOMPAT_CORPUS, ~/.cache/smcompat-corpus); it is labelled `corpus` when it
is a tests/<module>/*_corpus_test.cpp (tests/CMakeLists.txt builds those into
<module>_corpus_tests) or lives in a directory whose CMakeLists labels all of its tests `corpus`.
Usage: corpus_labels.py SOURCE_DIR"""
import pathlib
import re
import sys

READS_CORPUS = re.compile(r"corpus_dir\(|SMCOMPAT_CORPUS|smcompat-corpus")
# Directories whose every test carries the corpus label (their CMakeLists.txt say so).
CORPUS_DIRS = ("tests/corpus/", "tests/doctor/corpus/", "tests/bench/torch/")
# Not tests: the helpers that locate the cache.
HELPERS = ("tests/support/corpus.hpp", "tests/fixtures/support.hpp")


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    wrong = []
    checked = 0
    for path in sorted((root / "tests").rglob("*")):
        if path.suffix not in (".cpp", ".hpp"):
            continue
        rel = path.relative_to(root).as_posix()
        if rel in HELPERS or not READS_CORPUS.search(path.read_text(errors="replace")):
            continue
        checked += 1
        if rel.startswith(CORPUS_DIRS) or rel.endswith("_corpus_test.cpp"):
            continue
        wrong.append(rel)
    # The directories above must still label their tests `corpus`.
    for d in CORPUS_DIRS:
        cmake = root / d / "CMakeLists.txt"
        parent = root / d.rstrip("/").rsplit("/", 1)[0] / "CMakeLists.txt"
        text = (cmake if cmake.exists() else parent).read_text()
        if "LABELS corpus" not in text:
            wrong.append(f"{d} (its CMakeLists.txt no longer labels its tests corpus)")
    if "_corpus_test\\\\.cpp$" not in (root / "tests/CMakeLists.txt").read_text():
        wrong.append("tests/CMakeLists.txt (no *_corpus_test.cpp rule)")
    for w in wrong:
        print(f"corpus_labels: {w} reads the corpus but its tests are not labelled corpus: "
              f"name it *_corpus_test.cpp")
    print(f"corpus_labels: {checked} test sources read the corpus, {len(wrong)} not labelled")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
