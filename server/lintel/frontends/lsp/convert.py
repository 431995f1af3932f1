"""Issue records to LSP diagnostics: 1-based tool positions become 0-based positions in the negotiated encoding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from lintel.core.issues import Issue
from lintel.core.positions import Unit, convert_column

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

LineText = Callable[[int], str | None]  # 0-based line number -> its text, if known


def issue_to_diagnostic(
    issue: Issue, line_text: LineText, *, tool_unit: Unit = "utf-32", encoding: Unit = "utf-16"
) -> types.Diagnostic:
    line0 = (issue.line or 1) - 1
    start_col0 = (issue.column or 1) - 1
    end_line0 = (issue.end_line or issue.line or 1) - 1
    start_text = line_text(line0)
    start = convert_column(start_text, start_col0, tool_unit, encoding)
    if issue.end_column is not None:
        end_text = start_text if end_line0 == line0 else line_text(end_line0)
        end = convert_column(end_text, issue.end_column - 1, tool_unit, encoding)
    elif issue.column is None and start_text is not None:
        # No column: underline the whole line rather than a zero-width mark at its start.
        end_line0, end = line0, convert_column(start_text, len(start_text), "utf-32", encoding)
    else:
        end_line0, end = line0, start
    if (end_line0, end) < (line0, start):
        end_line0, end = line0, start
    message = issue.message if issue.hint is None else f"{issue.message}\n{issue.hint}"
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line0, character=start),
            end=types.Position(line=end_line0, character=end),
        ),
        message=message,
        severity=_SEVERITY[issue.severity],
        code=issue.rule,
        code_description=types.CodeDescription(href=issue.url) if issue.url else None,
        source=issue.source,
        data={"signature": issue.signature, "fingerprint": issue.fingerprint, "kind": issue.kind},
    )


def plain_diagnostic_json(diagnostic: types.Diagnostic) -> dict[str, Any] | None:
    """`diagnostic` as pygls's converter writes it, for one with no tags or related information (every diagnostic
    lintel makes of an Issue): written field by field, several times faster than the converter on every
    save's publish. None for another (a child server's may have them): the converter writes that one."""
    if diagnostic.tags is not None or diagnostic.related_information is not None:
        return None
    start, end = diagnostic.range.start, diagnostic.range.end
    written: dict[str, Any] = {
        "range": {
            "start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character},
        },
        "message": diagnostic.message,
    }
    if diagnostic.severity is not None:
        written["severity"] = int(diagnostic.severity)
    if diagnostic.code is not None:
        written["code"] = diagnostic.code
    if diagnostic.code_description is not None:
        written["codeDescription"] = {"href": diagnostic.code_description.href}
    if diagnostic.source is not None:
        written["source"] = diagnostic.source
    if diagnostic.data is not None:
        written["data"] = diagnostic.data
    return written
