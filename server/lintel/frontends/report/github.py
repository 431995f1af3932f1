"""GitHub Actions workflow commands. GitHub shows only 10 annotations of each type per step, so the most severe
come first and a last line says what was not annotated."""

from __future__ import annotations

from lintel.core.fsnames import backslashed
from lintel.core.issues import SEVERITY_RANK, Issue
from lintel.frontends.report.model import CheckReport

ANNOTATIONS_PER_TYPE = 10
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


def render_github(report: CheckReport) -> str:
    counted = report.counted()  # a timeout is annotated as its run's "not checked" warning, once
    ordered = sorted(counted, key=lambda i: -SEVERITY_RANK[i.severity])
    shown: dict[str, int] = {}
    lines: list[str] = []
    skipped: list[Issue] = []
    for issue in ordered:
        kind = _COMMAND[issue.severity]
        if shown.get(kind, 0) >= ANNOTATIONS_PER_TYPE:
            skipped.append(issue)
            continue
        shown[kind] = shown.get(kind, 0) + 1
        lines.append(annotation(issue))
    for run in report.not_checked:
        what = f"{run.language or run.tool} {run.check}: {run.reason}"
        lines.append(f"::warning title=lintel%3A not checked::{_escape_data(what)}")
    for run in report.not_configured:
        # Nothing to act on: a notice in the log, not a warning annotation.
        what = f"{run.language or run.tool} {run.check}: {run.reason}"
        lines.append(f"::notice title=lintel%3A not configured::{_escape_data(what)}")
    summary = report.summary()
    line = (
        f"lintel: {summary['errors']} errors, {summary['warnings']} warnings, {summary['infos']} infos; "
        f"{len(counted) - len(skipped)} annotated"
    )
    if skipped:
        line += f", {len(skipped)} not annotated (GitHub shows {ANNOTATIONS_PER_TYPE} per type):"
        lines.append(line)
        lines.extend(
            f"  {i.file or '.'}:{i.line or ''}: {i.severity} {i.rule or ''} {i.message.splitlines()[0]}"
            for i in skipped
        )
    else:
        lines.append(line)
    return "\n".join(lines) + "\n"
