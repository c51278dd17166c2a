"""The frame every GPU-check step runs in (scripts/gpu-checks.sh runs one step per process).

A step is a small Python program (stdlib only: the GPU machine has python3 and nothing we can
install) that runs the kit's programs, compares what smcompat predicts with what the machine
shows, and writes one JSON result. The orchestrator enforces the step's time budget and goes on
past any failure, so a step only has to record what it saw.

    step = Step("probe", "probe, doctor and export against nvidia-smi and torch", checks=[1, 10])
    r = step.run("probe", [step.smcompat, "probe", "--json"])
    step.row("GPU 0 name", predicted=..., observed=..., agree=...)
    step.finish()

Result (one per step, merged by summarize.py into results.json, schema smcompat.gpu-checks/1):
  {"id", "title", "checks": [pending-check numbers], "status": "pass|fail|skip|error|timeout",
   "reason", "synthetic", "seconds", "commands": [...], "notes": [...],
   "rows": [{"item", "predicted", "observed", "agree": true|false|null, "note", "check"?}]}
agree null = not comparable here (the row is a recorded observation, or the fake driver cannot
show it); a row with agree false makes the step fail.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

SCHEMA = "smcompat.gpu-checks/1"


class Completed:
    def __init__(self, argv, rc, stdout, stderr, seconds, timed_out=False):
        self.argv, self.rc, self.stdout, self.stderr = argv, rc, stdout, stderr
        self.seconds, self.timed_out = seconds, timed_out

    def json(self):
        """stdout parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    def json_lines(self):
        """Every stdout line that is a JSON object (programs print one per observation)."""
        out = []
        for line in self.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out


class Step:
    def __init__(self, step_id, title, checks):
        p = argparse.ArgumentParser(description=title)
        p.add_argument("--kit", required=True, help="the gpu-kit directory")
        p.add_argument("--work", required=True, help="this step's scratch and log directory")
        p.add_argument("--result", required=True, help="where to write the result JSON")
        p.add_argument("--synthetic", action="store_true",
                       help="running against the test suite's fake driver: rows the fake cannot "
                            "show are recorded with agree null")
        a = p.parse_args()
        self.id, self.title, self.checks = step_id, title, list(checks)
        self.kit = Path(a.kit).resolve()
        self.work = Path(a.work).resolve()
        self.work.mkdir(parents=True, exist_ok=True)
        self.result_path = Path(a.result)
        self.synthetic = a.synthetic
        self.smcompat = str(self.kit / "bin" / "smcompat")
        self.rows, self.commands, self.notes = [], [], []
        self.status, self.reason = None, ""
        self.started = time.monotonic()
        self._count = 0
        self._active = set()  # running children (Popen), killed when the step is stopped
        # The orchestrator's `timeout` sends SIGTERM: kill what runs and keep the rows so far.
        signal.signal(signal.SIGTERM, self._stopped)
        # A step that crashes on real data keeps the rows it had (a lent GPU's minutes are few).
        sys.excepthook = self._crashed

    # -- running things -------------------------------------------------------------------
    def run(self, name, argv, env=None, timeout=120, cwd=None, input=None, stdout_path=None):
        """Run argv, keep its stdout/stderr as <work>/<nn>-<name>.out/.err, never raise.
        stdout_path: send stdout straight to that file instead (large JSON documents: nothing
        held in memory, no copy in the .out log); Completed.stdout is then ""."""
        self._count += 1
        stem = self.work / ("%02d-%s" % (self._count, name))
        full_env = dict(os.environ)
        if env:
            full_env.update({k: str(v) for k, v in env.items() if v is not None})
            for k, v in env.items():
                if v is None:
                    full_env.pop(k, None)
        shown = " ".join(shlex.quote(str(x)) for x in argv)
        if env:
            shown = " ".join("%s=%s" % (k, shlex.quote(str(v))) for k, v in env.items()
                             if v is not None) + " " + shown
        if stdout_path:
            shown += " > " + shlex.quote(str(stdout_path))
        self.commands.append(shown)
        t0 = time.monotonic()
        try:
            # A session of its own, so that a timeout kills the whole tree (a traced python and
            # its children), not only the direct child: nothing may outlive its step.
            sink = open(stdout_path, "w") if stdout_path else subprocess.PIPE
            stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
            try:
                p = subprocess.Popen([str(x) for x in argv], env=full_env, cwd=cwd, text=True,
                                     errors="replace", start_new_session=True, stdin=stdin,
                                     stdout=sink, stderr=subprocess.PIPE)
            finally:
                if stdout_path:
                    sink.close()
        except OSError as e:
            c = Completed(argv, 127, "", "%s: %s\n" % (argv[0], e), time.monotonic() - t0)
        else:
            self._active.add(p)
            try:
                out, err = p.communicate(input=input, timeout=timeout)
                c = Completed(argv, p.returncode, out or "", err, time.monotonic() - t0)
            except subprocess.TimeoutExpired:
                kill_tree(p)
                try:
                    out, err = p.communicate(timeout=10)
                except subprocess.TimeoutExpired:  # a grandchild left its group and holds a pipe
                    out, err = "", ""
                c = Completed(argv, 124, out or "", err or "", time.monotonic() - t0,
                              timed_out=True)
            finally:
                self._active.discard(p)
        stem.with_suffix(".out").write_text(c.stdout if not stdout_path else
                                            "(stdout written to %s)\n" % stdout_path)
        stem.with_suffix(".err").write_text("$ %s\n# exit %d after %.2f s%s\n%s" % (
            shown, c.rc, c.seconds, " (timed out)" if c.timed_out else "", c.stderr))
        return c

    def spawn(self, argv, env=None, **kw):
        """Popen for a process the step talks to while it runs (check --pid); the step kills it
        when stopped. The caller must wait for it or call kill_tree(); the command is recorded."""
        full_env = dict(os.environ)
        full_env.update({k: str(v) for k, v in (env or {}).items()})
        self.commands.append(" ".join(shlex.quote(str(x)) for x in argv) + "   # (kept running)")
        p = subprocess.Popen([str(x) for x in argv], env=full_env, text=True, errors="replace",
                             start_new_session=True, **kw)
        self._active.add(p)
        return p

    def shrink(self, path, limit=4 << 20):
        """Keeps the logs small (the work dir comes back as one tarball): a file over `limit`
        bytes is gzipped, and removed with a note when even that is over the limit."""
        import gzip
        path = Path(path)
        try:
            if path.stat().st_size <= limit:
                return path
            gz = path.with_name(path.name + ".gz")
            with open(path, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
                while True:
                    block = src.read(1 << 20)
                    if not block:
                        break
                    dst.write(block)
            size = path.stat().st_size
            path.unlink()
            if gz.stat().st_size > limit:
                gz.unlink()
                self.note("%s (%d bytes) removed from the logs: too large even compressed" % (
                    path.name, size))
                return None
            return gz
        except OSError:
            return None

    def budget(self, default):
        """The step's time budget in seconds: $GPU_CHECKS_BUDGET_S when the orchestrator exports
        it (the time `timeout` will really allow), else the step's own default."""
        try:
            return max(1, int(float(os.environ["GPU_CHECKS_BUDGET_S"])))
        except (KeyError, ValueError):
            return default

    def elapsed(self):
        return time.monotonic() - self.started

    def left(self, budget):
        """Seconds left of a budget of `budget` seconds counted from the step's start."""
        return budget - self.elapsed()

    def _stopped(self, signum, frame):
        if self._active and self.commands:
            self.note("running when stopped: %s" % self.commands[-1])
        for p in list(self._active):
            kill_tree(p)
        self.status = "timeout"
        self.reason = "stopped by signal %d after %.0f s (the orchestrator's time limit); rows " \
                      "recorded so far are kept" % (signum, self.elapsed())
        self.finish()

    def path(self, name):
        return self.work / name

    def script(self, name, text):
        """Writes a helper script (python run in a subprocess) into the work dir and returns its
        path, so that the recorded command stays one readable line and the script is in the logs."""
        p = self.work / name
        p.write_text(text)
        return p

    def machine(self):
        """The facts step 'machine' recorded (GPU names, CC, driver), or {} before it ran."""
        p = self.work.parent / "machine" / "machine.json"
        try:
            return json.loads(p.read_text())
        except (OSError, ValueError):
            return {}

    # -- recording ------------------------------------------------------------------------
    def row(self, item, predicted, observed, agree=None, note="", check=None):
        """check: the pending-check number this row settles, when the step covers several
        (gpu-checks-record.sh counts rows per check; without it a row counts for all of them)."""
        r = {"item": str(item), "predicted": _plain(predicted), "observed": _plain(observed),
             "agree": agree, "note": note}
        if check is not None:
            r["check"] = check
        self.rows.append(r)

    def note(self, text):
        self.notes.append(text)

    def skip(self, reason):
        """Nothing here can be checked (no torch, no nvidia-smi...): say why and stop."""
        self.status, self.reason = "skip", reason
        self.finish()

    def fail(self, reason):
        self.status, self.reason = "fail", reason
        self.finish()

    def _crashed(self, etype, value, tb):
        import traceback
        self.notes.append("".join(traceback.format_exception(etype, value, tb))[-3000:])
        self.status, self.reason = "error", "the step crashed: %s: %s" % (etype.__name__, value)
        try:
            self.finish()
        except SystemExit:
            pass

    def finish(self):
        for p in list(self._active):  # a spawned process the step did not end itself
            kill_tree(p)
        self._active.clear()
        if self.status is None:
            if any(r["agree"] is False for r in self.rows):
                n = sum(r["agree"] is False for r in self.rows)
                self.status, self.reason = "fail", "%d disagreement(s)" % n
            elif not self.rows:
                self.status, self.reason = "error", "the step recorded nothing"
            else:
                self.status = "pass"
        doc = {"id": self.id, "title": self.title, "checks": self.checks, "status": self.status,
               "reason": self.reason, "synthetic": self.synthetic,
               "seconds": round(time.monotonic() - self.started, 2),
               "commands": self.commands, "notes": self.notes, "rows": self.rows}
        tmp = self.result_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False))
        tmp.replace(self.result_path)
        sys.exit(0)


def kill_tree(p):
    """SIGKILL the process group a child started (start_new_session) and reap the child."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def python_exe():
    """The interpreter whose torch/CuPy/JAX are checked: $GPU_CHECKS_PYTHON, else python3 on
    PATH, else the one running the step."""
    import shutil
    return os.environ.get("GPU_CHECKS_PYTHON") or shutil.which("python3") or sys.executable


def last_json(text):
    """The JSON document a program printed: the whole text when it is one (pretty-printed), else
    the last line that parses as an object (a program that logs before its result)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def _plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return json.dumps(v, ensure_ascii=False, sort_keys=True)
