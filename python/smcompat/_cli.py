"""The ``smcompat`` console script: runs the command-line tool bundled in this package."""

from __future__ import annotations

import os
import sys


def binary_path() -> str:
    """Path of the bundled ``smcompat`` executable (``smcompat/bin/smcompat``)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "smcompat")


def exec_binary(args) -> None:
    """Replace this process with the bundled binary run with ``args`` (never returns); exits 2
    with a message when the binary is missing or cannot run."""
    binary = binary_path()
    if not os.path.isfile(binary):
        sys.stderr.write(
            "smcompat: the bundled command-line tool is missing: %s\n"
            "smcompat: this installation of the smcompat package is incomplete; reinstall it "
            "(pip install --force-reinstall smcompat)\n" % binary)
        sys.exit(2)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(binary, [binary] + list(args))
    except OSError as e:
        sys.stderr.write("smcompat: cannot run %s: %s\n" % (binary, e))
        sys.exit(2)


def main() -> None:
    exec_binary(sys.argv[1:])


if __name__ == "__main__":
    main()
