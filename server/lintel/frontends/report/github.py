"""GitHub Actions workflow commands. GitHub keeps only 10 annotations of each type a step and 50 a job, so the
most severe come first, and a last line says what was not annotated, listed after it in the log."""

from __future__ import annotations

from dataclasses import dataclass

from lintel.core.fsnames import backslashed
from lintel.core.issues import SEVERITY_RANK, Issue
from lintel.engine.checks import RunResult
from lintel.frontends.report.limits import ANNOTATIONS_PER_JOB, ANNOTATIONS_PER_TYPE
from lintel.frontends.report.model import CheckReport

_COMMAND = {"error": "error", "warning": "warning", "info": "notice", "hint": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(issue: Issue) -> str:
    props: list[str] = []
    if issue.file is not None:
        # Workflow commands are UTF-8 text: a name that is not UTF-8 is written with \xNN escapes.
        props.append(f"file={_escape_property(backslashed(issue.file))}")
        if issue.line is not None:
            props.append(f"line={issue.line}")
            if issue.column is not None:
                props.append(f"col={issue.column}")
            if issue.end_line is not None:
                props.append(f"endLine={issue.end_line}")
    title = f"{issue.source}: {issue.rule}" if issue.rule else issue.source
    props.append(f"title={_escape_property(title)}")
    return f"::{_COMMAND[issue.severity]} {','.join(props)}::{_escape_data(issue.message)}"


@dataclass(frozen=True)
class Annotations:
    """The workflow commands and log lines of a report, and how many annotations they hold."""

    text: str
    printed: int
    not_annotated: int


@dataclass(frozen=True)
class _Line:
    kind: str  # the workflow command: error, warning or notice
    command: str  # the annotation
    plain: str  # the same in the log, when it is not annotated
    finding: bool = True  # else a check that did not run, or one the project does not use


def _finding(issue: Issue) -> _Line:
    first = issue.message.splitlines()[0] if issue.message else ""
    plain = f"  {issue.file or '.'}:{issue.line or ''}: {issue.severity} {issue.rule or ''} {first}"
    return _Line(_COMMAND[issue.severity], annotation(issue), plain)


def _run(run: RunResult, kind: str, title: str) -> _Line:
    what = f"{run.language or run.tool} {run.check}: {run.reason}"
    command = f"::{kind} title=lintel%3A {title}::{_escape_data(what)}"
    return _Line(kind, command, f"  {title}: {what.splitlines()[0]}", finding=False)


def _candidates(report: CheckReport) -> list[_Line]:
    """Most severe first: errors, then warnings (a check that did not run before the findings: it says the
    others may be incomplete), then notices (a check the project does not use last: nothing to act on)."""
    ordered = sorted(report.counted(), key=lambda i: -SEVERITY_RANK[i.severity])  # a timeout is its run's warning
    findings = [_finding(i) for i in ordered]
    return [
        *(line for line in findings if line.kind == "error"),
        *(_run(r, "warning", "not checked") for r in report.not_checked),
        *(line for line in findings if line.kind == "warning"),
        *(line for line in findings if line.kind == "notice"),
        *(_run(r, "notice", "not configured") for r in report.not_configured),
    ]


def github_annotations(report: CheckReport, job_left: int = ANNOTATIONS_PER_JOB) -> Annotations:
    """At most ANNOTATIONS_PER_TYPE of each type and `job_left` in all (what the job has left of GitHub's
    ANNOTATIONS_PER_JOB): GitHub drops the rest without a word, so those are listed in the log instead."""
    shown: dict[str, int] = {}
    lines: list[str] = []
    skipped: list[_Line] = []
    for line in _candidates(report):
        if shown.get(line.kind, 0) >= ANNOTATIONS_PER_TYPE or sum(shown.values()) >= job_left:
            skipped.append(line)
            continue
        shown[line.kind] = shown.get(line.kind, 0) + 1
        lines.append(line.command)
    summary = report.summary()
    findings = sum(1 for line in skipped if line.finding)  # the counts are of findings, as the errors' are
    tail = (
        f"lintel: {summary['errors']} errors, {summary['warnings']} warnings, {summary['infos']} infos; "
        f"{len(report.counted()) - findings} annotated"
    )
    if skipped:
        checks = len(skipped) - findings
        tail += f", {findings} not annotated"
        if checks:
            tail += f", {checks} check{'' if checks == 1 else 's'} not annotated"
        tail += f" (GitHub shows {ANNOTATIONS_PER_TYPE} per type a step, {ANNOTATIONS_PER_JOB} a job):"
    lines.append(tail)
    lines.extend(line.plain for line in skipped)
    return Annotations("\n".join(lines) + "\n", sum(shown.values()), len(skipped))


def render_github(report: CheckReport) -> str:
    return github_annotations(report).text
