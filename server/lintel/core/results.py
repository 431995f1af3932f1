"""One check's outcome, as the CLI, the server and the reports read it: the record every run (a check, a test
subset, a coverage run) gives back, below the engine so each language's coverage reader can fill one in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lintel.core.issues import SEVERITY_RANK, Issue, TestFailure

# clean: the output was understood and says nothing is wrong; passed: the tool said all is well (its exit code)
# but printed what no parser understood (an unknown linter behind a `lint` script) — a success, never "clean";
# not_configured: the project does not use the check's tool (no TypeScript, no prettier), so nothing ran — neither
# a success nor a failure, and no effect on the exit code.

Status = Literal["clean", "passed", "findings", "not_checked", "not_configured"]


@dataclass
class RunResult:
    """One check's outcome: the RunResult of docs/architecture.md, Records, plus the status/reason of the `check` JSON
    runs."""

    language: str | None  # None for a validator, which belongs to no language
    check: str  # a CheckName, or "validators"
    tool: str
    argv: list[str]
    cwd: Path
    status: Status
    reason: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    duration_ms: int = 0
    truncated: bool = False
    # The bulky fields are left out of repr: asyncio formats a finished task's result in places (CPython 3.11's
    # asyncio.run restoring SIGINT did, for a large report: a transient string of all of it).
    output: str = field(default="", repr=False)
    issues: list[Issue] = field(default_factory=list, repr=False)
    failures: list[TestFailure] = field(default_factory=list, repr=False)
    binary: str | None = None
    # The raw stream (formatters print their result here); not part of the wire shapes.
    stdout: str = field(default="", repr=False)
    # A coverage run's totals and per-file percentages (lintel.coverage): an additive field of both shapes.
    coverage: dict[str, Any] | None = field(default=None, repr=False)
    # runTests: what ran ("the tests in tests/test_a.py", "the whole suite of …"), so a `path` that only picked the
    # project is never mistaken for a narrowed run.
    scope: str | None = None
    # The binary that was not found (resolution, or the start failing with ENOENT): nothing ran because the tool is
    # not installed, which run_state tells apart from a tool that ran and failed.
    missing_binary: str | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """Ran (or had nothing to run: not_configured), and found nothing at error level and no failing test. A
        format check is ok when every file is formatted: its findings are warnings (they must not outrank a lint
        error in the editor), yet an unformatted file is exactly what the check is asked about."""
        if self.status == "not_checked" or self.failures:
            return False
        if self.check == "format":
            return not self.issues
        return all(SEVERITY_RANK[i.severity] < SEVERITY_RANK["error"] for i in self.issues)

    def run_json(self, root: Path) -> dict[str, Any]:
        """The `runs[]` entry of `check --format json`."""
        return {
            "check": self.check,
            "language": self.language,
            "tool": self.tool,
            "argv": self.argv,
            "cwd": relative(self.cwd, root),
            "status": self.status,
            "reason": self.reason,
            "exitCode": self.exit_code,
            "timedOut": self.timed_out,
            "durationMs": self.duration_ms,
            **({"coverage": self.coverage} if self.coverage is not None else {}),
        }

    def result_json(self) -> dict[str, Any]:
        """The RunResult the server's commands return."""
        out: dict[str, Any] = {
            "ok": self.ok,
            "language": self.language,
            "check": self.check,
            "argv": self.argv,
            "cwd": str(self.cwd),
            "exitCode": self.exit_code,
            "timedOut": self.timed_out,
            "durationMs": self.duration_ms,
            "truncated": self.truncated,
            "output": self.output,
            "issues": [i.to_json() for i in self.issues],
            "status": self.status,
            "reason": self.reason,
        }
        if self.check in ("test", "coverage"):
            out["failures"] = [f.to_json() for f in self.failures]
        if self.coverage is not None:
            out["coverage"] = self.coverage
        if self.scope is not None:
            out["scope"] = self.scope
        return out


RunState = Literal["complete", "timed_out", "tool_missing", "not_run"]


def run_state(result: RunResult) -> tuple[RunState, str | None]:
    """Whether a run's findings are the whole answer: `complete` (it ran to the end: findings, clean or passed),
    `timed_out`, `tool_missing` (its binary was not found) or `not_run` (not configured, crashed, output not
    understood), with the reason. Anything but `complete` means the answer is partial, never clean."""
    if result.timed_out:
        return "timed_out", result.reason or f"{result.tool} timed out"
    if result.missing_binary is not None:
        return "tool_missing", result.reason or f"{result.missing_binary} not found"
    if result.status in ("clean", "passed", "findings"):
        return "complete", result.reason
    return "not_run", result.reason or f"{result.tool} did not run"


def state_json(result: RunResult) -> dict[str, Any]:
    """A run's `state` and `stateReason`, the fields the diagnostics-like answers add to each run entry."""
    state, reason = run_state(result)
    return {"state": state, "stateReason": reason}


def relative(path: Path, root: Path) -> str:
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return str(path)
    return rel.as_posix() if rel.parts else "."
