"""The corpus venvs of scripts/fetch-corpus.sh for Python tests: whether a venv's own interpreter
can run what the venv holds. The locked wheels are CPython 3.11 builds, installed into
lib/python3.11/site-packages by whatever pip filled the cache; the venv's interpreter is a CPython
3.11 only where the machine had one (pyvenv.cfg records its version). The C++ twin is
venv_interpreter_skip_reason() in tests/support/corpus.hpp."""
import os


def interpreter_skip_reason(venv: str) -> str:
    """Empty when VENV/bin/python is a CPython 3.11 (it imports the locked torch); else why not."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        return "corpus cache missing: %s (run scripts/fetch-corpus.sh, or set SMCOMPAT_CORPUS)" % python
    version = ""
    try:
        with open(os.path.join(venv, "pyvenv.cfg"), encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() == "version":
                    version = value.strip()
    except OSError as e:
        return "%s/pyvenv.cfg: %s" % (venv, e)
    if version.split(".")[:2] != ["3", "11"]:
        return ("%s is CPython %s: the corpus holds CPython 3.11 wheels, and no CPython 3.11 was "
                "found when the cache was filled (SMCOMPAT_CORPUS_PYTHON311)" % (python, version or "?"))
    return ""
