"""`check --format text`: one line per issue, `file:line:col: severity rule message [tool]`, then a summary."""

from __future__ import annotations

import re

from lintel.issues import Issue
from lintel.report.model import CheckReport

_WS = re.compile(r"\s+")


def issue_line(issue: Issue) -> str:
    location = issue.file or "."
    if issue.line is not None:
        location += f":{issue.line}"
        if issue.column is not None:
            location += f":{issue.column}"
    rule = f" {issue.rule}" if issue.rule else ""
    message = _WS.sub(" ", issue.message).strip()
    return f"{location}: {issue.severity}{rule} {message} [{issue.source}]"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_text(report: CheckReport) -> str:
    # A timeout is told by its run's "not checked" line, like every check that did not run; it is not an error
    # the summary would then fail to count.
    lines = [issue_line(i) for i in report.counted()]
    for run in report.not_checked:
        lines.append(f"not checked: {run.language} {run.check}: {run.reason}")
    for run in report.runs:
        if run.status == "passed":  # a success whose findings, if any, lintel could not read
            lines.append(f"passed (output not parsed): {run.language} {run.check}: {run.tool}")
    summary = report.summary()
    ran = len(report.runs) - summary["notChecked"]
    lines.append(
        f"lintel: {_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}, "
        f"{_plural(summary['infos'], 'info')} from {_plural(ran, 'check')}"
        + (f"; {summary['notChecked']} not checked" if summary["notChecked"] else "")
    )
    return "\n".join(lines) + "\n"
