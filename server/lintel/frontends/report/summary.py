"""The job summary of `--format github` (Markdown for `$GITHUB_STEP_SUMMARY`): counts per project and tool, the
most severe findings as a table, and what was left out; every text from a tool or a file name escaped."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lintel.core.issues import SEVERITY_RANK, Issue
from lintel.frontends.report.limits import ANNOTATIONS_PER_JOB, ANNOTATIONS_PER_TYPE, SUMMARY_BUDGET
from lintel.frontends.report.model import CheckReport
from lintel.frontends.report.text import short_reason

TOP_FINDINGS = 30
COUNT_ROWS = 100
NOT_CHECKED_ROWS = 20
MESSAGE_CHARS = 200
# What Markdown or the HTML GitHub allows in it would read: a backslash makes each a literal character.
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&$@-])")
_WS = re.compile(r"\s+")


def escape(text: str) -> str:
    """`text` as one line of literal Markdown text, safe inside a table cell."""
    return _SPECIAL.sub(r"\\\1", _WS.sub(" ", text).strip())


@dataclass(frozen=True)
class _Counts:
    project: str
    tool: str
    errors: int = 0
    warnings: int = 0
    infos: int = 0

    def add(self, issue: Issue) -> _Counts:
        return _Counts(
            self.project,
            self.tool,
            self.errors + (issue.severity == "error"),
            self.warnings + (issue.severity == "warning"),
            self.infos + (issue.severity in ("info", "hint")),
        )


def _counts(report: CheckReport) -> list[_Counts]:
    """Findings per (project, tool), most errors first, then most warnings, infos."""
    rows: dict[tuple[str, str], _Counts] = {}
    for group in report.groups():
        name = "(no project)" if group.project is None else f"{group.project.root} ({group.project.language})"
        for issue in group.issues:
            if issue.kind != "timeout":
                key = (name, issue.source)
                rows[key] = rows.get(key, _Counts(*key)).add(issue)
    return sorted(rows.values(), key=lambda c: (-c.errors, -c.warnings, -c.infos, c.project, c.tool))


def _place(issue: Issue) -> str:
    where = issue.file or "."
    if issue.line is not None:
        where += f":{issue.line}"
    return escape(where)


def _message(issue: Issue) -> str:
    text = _WS.sub(" ", issue.message).strip()
    if len(text) > MESSAGE_CHARS:
        text = text[: MESSAGE_CHARS - 1] + "…"
    return escape(text)


def _headline(report: CheckReport) -> list[str]:
    summary = report.summary()
    projects = len({p.root for p in report.projects})
    line = (
        f"**{summary['errors']:,} errors, {summary['warnings']:,} warnings, {summary['infos']:,} infos** "
        f"in {projects:,} project{'' if projects == 1 else 's'}"
    )
    lines = ["## lintel check", "", line]
    if report.not_checked:
        lines.append("")
    for run in report.not_checked[:NOT_CHECKED_ROWS]:
        what = f"{run.language or run.tool} {run.check}"
        lines.append(f"- not checked: {escape(what)}: {escape(short_reason(run.reason))}")
    if len(report.not_checked) > NOT_CHECKED_ROWS:
        lines.append(f"- {len(report.not_checked) - NOT_CHECKED_ROWS:,} more checks did not run; the log lists them.")
    return lines


def _count_table(rows: list[_Counts], limit: int) -> list[str]:
    if not rows:
        return []
    lines = ["", "### Findings per project and tool", "", "| Project | Tool | Errors | Warnings | Infos |"]
    lines.append("| --- | --- | ---: | ---: | ---: |")
    lines.extend(
        f"| {escape(r.project)} | {escape(r.tool)} | {r.errors:,} | {r.warnings:,} | {r.infos:,} |"
        for r in rows[:limit]
    )
    if len(rows) > limit:
        lines.extend(["", f"_{len(rows) - limit:,} more project and tool pairs with findings are not listed._"])
    return lines


def _top_table(issues: list[Issue], limit: int) -> list[str]:
    if not issues:
        return []
    lines = ["", "### Most severe findings", "", "| Severity | Place | Tool | Rule | Message |"]
    lines.append("| --- | --- | --- | --- | --- |")
    lines.extend(
        f"| {i.severity} | {_place(i)} | {escape(i.source)} | {escape(i.rule or '')} | {_message(i)} |"
        for i in issues[:limit]
    )
    return lines


def _left_out(issues: int, shown: int, not_annotated: int) -> list[str]:
    notes = []
    if issues > shown:
        notes.append(f"{issues - shown:,} findings are not in the table above; the step's log lists every one.")
    if not_annotated:
        notes.append(
            f"{not_annotated:,} findings or checks were not annotated: GitHub keeps {ANNOTATIONS_PER_TYPE} "
            f"annotations of each type a step and {ANNOTATIONS_PER_JOB} a job."
        )
    return ["", *(f"_{note}_" for note in notes)] if notes else []


def job_summary(report: CheckReport, not_annotated: int = 0, budget: int = SUMMARY_BUDGET) -> str:
    """The summary, its tables shortened until it takes at most `budget` bytes (GitHub drops a step's summary
    whole when it is over its limit)."""
    rows = _counts(report)
    ordered = sorted(report.counted(), key=lambda i: -SEVERITY_RANK[i.severity])
    top, count_rows = TOP_FINDINGS, COUNT_ROWS
    while True:
        shown = min(top, len(ordered))
        lines = [
            *_headline(report),
            *_count_table(rows, count_rows),
            *_top_table(ordered, top),
            *_left_out(len(ordered), shown, not_annotated),
        ]
        text = "\n".join(lines) + "\n"
        if len(text.encode("utf-8", "surrogateescape")) <= budget or (top == 0 and count_rows == 0):
            return text
        top, count_rows = top // 2, count_rows // 2
