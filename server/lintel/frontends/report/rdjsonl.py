"""`check --format rdjsonl`: reviewdog's Diagnostic Format as JSON lines (`reviewdog -f=rdjsonl`), one line per
issue, with the tool's fix as reviewdog `suggestions`.

reviewdog counts columns in UTF-8 bytes (its Position: "byte count in UTF-8"); an issue's columns are in its
tool's unit (lintel.languages.sources), so non-ASCII lines are re-counted from the file's text."""

from __future__ import annotations

import json
from typing import Any

from lintel.core.fixes import Edit, Fix, chosen_fix
from lintel.core.fsnames import json_text
from lintel.core.issues import Issue, SourceLines
from lintel.core.positions import convert_column
from lintel.frontends.report.model import CheckReport
from lintel.languages.sources import unit_for

_SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO", "hint": "INFO"}


class _Columns:
    """An issue's 1-based columns in reviewdog's unit (UTF-8 bytes), from the file's lines."""

    def __init__(self, lines: SourceLines) -> None:
        self._lines = lines

    def position(self, issue: Issue, line: int, column: int | None) -> dict[str, int]:
        if column is None:
            return {"line": line}
        text = self._lines(issue.file, line) if issue.file is not None else None
        return {"line": line, "column": convert_column(text, column - 1, unit_for(issue.source), "utf-8") + 1}


def _suggested(issue: Issue) -> Fix | None:
    """What reviewdog suggests: the first safe fix, else an unsafe one of a single edit (a reviewer applies it by
    hand); only a fix whose edits are all in the issue's own file (a suggestion has no path of its own)."""
    fix = chosen_fix(issue.fixes) or next(
        (f for f in issue.fixes if f.applicability == "unsafe" and len(f.edits) == 1), None
    )
    if fix is None or fix.files != {issue.file}:
        return None
    return fix


def _suggestion(issue: Issue, edit: Edit, columns: _Columns) -> dict[str, Any]:
    start = columns.position(issue, edit.line, edit.column)
    end = columns.position(issue, edit.end_line, edit.end_column)
    return {"range": {"start": start, "end": end}, "text": edit.new_text}


def diagnostic(issue: Issue, columns: _Columns) -> dict[str, Any]:
    """One issue as a reviewdog Diagnostic."""
    out: dict[str, Any] = {
        "message": issue.message if issue.hint is None else f"{issue.message}\n{issue.hint}",
        "severity": _SEVERITY[issue.severity],
        "source": {"name": issue.source},
    }
    location: dict[str, Any] = {"path": issue.file or ""}
    if issue.line is not None:
        rng: dict[str, Any] = {"start": columns.position(issue, issue.line, issue.column)}
        if issue.end_line is not None and issue.end_column is not None:
            rng["end"] = columns.position(issue, issue.end_line, issue.end_column)
        location["range"] = rng
    out["location"] = location
    if issue.rule is not None:
        out["code"] = {"value": issue.rule, **({"url": issue.url} if issue.url else {})}
    fix = _suggested(issue)
    if fix is not None:
        out["suggestions"] = [_suggestion(issue, edit, columns) for edit in fix.edits]
    return out


def render_rdjsonl(report: CheckReport) -> str:
    columns = _Columns(SourceLines(report.root))
    lines = [json_text(json.dumps(diagnostic(i, columns), ensure_ascii=False)) for i in report.issues]
    return "".join(f"{line}\n" for line in lines)
