"""``python -m smcompat``: ``check`` runs here (it checks this Python process); every other
command is the bundled command-line tool (``python -m smcompat scan ...`` = ``smcompat scan ...``).

    python -m smcompat check [--import MODULE]... [--gpu NAME]... [--json] [--fail-on error|warning|info]

Exit codes as ``smcompat check``: 0 done, 1 a finding at or above ``--fail-on`` (default: error),
2 usage error or failure (a module that cannot be imported included).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys


def _check_main(argv) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m smcompat check",
        description="Check this Python process: import the named modules (so that their GPU "
                    "libraries load), then report the GPU libraries loaded and whether each has "
                    "code for the GPU in use.")
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import this module first (repeatable), e.g. torch, cupy, a ctypes loader")
    parser.add_argument("--gpu", dest="gpus", action="append", default=[], metavar="NAME",
                        help='judge for this GPU too (repeatable), e.g. "RTX 5090"')
    parser.add_argument("--json", action="store_true", help="JSON output (schema smcompat.check/1)")
    parser.add_argument("--fail-on", choices=("error", "warning", "info"), default="error",
                        help="exit 1 if a finding is at least this severe (default: error)")
    args = parser.parse_args(argv)

    for name in args.imports:
        try:
            importlib.import_module(name)
        except BaseException as e:  # SystemExit from a module is a failure to import it too
            sys.stderr.write("smcompat: cannot import %s: %s: %s\n" % (name, type(e).__name__, e))
            return 2

    from . import _api, _types
    from ._errors import SmcompatError
    try:
        doc, text = _api.check_documents(gpus=args.gpus, torch="auto", pid=0, text=not args.json)
        report = _api._report(_types.CheckReport, doc)
        # As the command line prints it: indented by 2, keys in the document's order.
        out = json.dumps(report.to_dict(), indent=2, ensure_ascii=False) if args.json else text
    except SmcompatError as e:
        sys.stderr.write("smcompat: %s\n" % e)
        return 2
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    sys.stdout.flush()
    if report.findings_at_least(args.fail_on):
        return 1
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "check":
        return _check_main(argv[1:])
    from ._cli import exec_binary
    exec_binary(argv)
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
