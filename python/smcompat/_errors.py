"""The exceptions of the smcompat Python API (kept tiny: imported by ``import smcompat``)."""

from __future__ import annotations


class SmcompatError(Exception):
    """Every error the smcompat API raises: usage errors, unreadable paths, malformed files.

    ``reason`` says what went wrong; ``file`` and ``offset`` (a byte offset in that file) are set
    when the problem has a place, else ``None``. ``str(err)`` is ``"FILE: offset 0x1a2b: REASON"``
    with the unknown parts left out.
    """

    def __init__(self, reason: str, file: str | None = None, offset: int | None = None) -> None:
        super().__init__(reason, file, offset)
        self.reason = reason
        self.file = file
        self.offset = offset

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.offset is not None:
            parts.append("offset 0x%x" % self.offset)
        parts.append(str(self.reason))
        return ": ".join(parts)

    def __repr__(self) -> str:
        return "%s(%r, file=%r, offset=%r)" % (type(self).__name__, self.reason, self.file, self.offset)


class CheckFailed(SmcompatError):
    """Raised by ``check(raise_on=...)`` and ``CheckReport.raise_for_findings()``.

    ``report`` is the ``CheckReport``; ``findings`` the findings at or above the level asked for.
    """

    def __init__(self, reason: str, report=None, findings=()) -> None:
        super().__init__(reason)
        self.report = report
        self.findings = list(findings)

    def __reduce__(self):
        return (type(self), (self.reason, self.report, self.findings))
