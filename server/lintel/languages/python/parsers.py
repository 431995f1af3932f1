"""Parsers for Python's lint, format and type checkers: ruff (lint JSON, format diffs), mypy (text), pyright (JSON).
pytest's reports are read by `pytests`.

Positions follow docs/architecture.md, Records: 1-based lines and columns; end columns are 1-based and exclusive (ruff's
convention), so mypy's inclusive ends and pyright's 0-based ranges are converted here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from lintel.core.fixes import Applicability, Edit, Fix, make_fix
from lintel.core.issues import Issue, ParseContext, ParseResult, Severity, make_issue, severity_from
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import (
    MAX_HINT,
    MalformedJson,
    clean,
    json_array_items,
    json_int,
    json_object,
    json_value,
    split_message,
)

# --------------------------------------------------------------------------------------------- ruff check

# `pkg/a.py:3:8: F401 [*] `os` imported but unused` (concise) — also `invalid-syntax: msg` after the column.
_RUFF_CONCISE = re.compile(
    r"^(?P<file>(?:[A-Za-z]:)?[^:\n]+):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<code>[A-Za-z][\w-]*):?(?: \[\*\])? (?P<msg>.+)$"
)
# ruff's `full` format: a header `E711 Comparison ...` / `invalid-syntax: ...`, then ` --> file:line:col`.
_RUFF_FULL_HEADER = re.compile(r"^(?P<code>[A-Za-z][\w-]*):?(?: \[\*\])? (?P<msg>\S.*)$")
_RUFF_FULL_LOCATION = re.compile(r"^\s*--> (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)$")
_RUFF_SUMMARY = re.compile(r"^(Found \d+ errors?\.|All checks passed!)")


def parse_ruff(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`ruff check --output-format=json`: an array of violations (also JSON lines, concise and full text).

        [{"code": "F401", "message": "`os` imported but unused", "severity": "error",
          "filename": "/w/src/pkg/models.py", "location": {"row": 3, "column": 8},
          "end_location": {"row": 3, "column": 10},
          "fix": {"applicability": "safe", "message": "Remove unused import: `os`", "edits": [...]}, ...}]

    ruff's columns are 1-based with exclusive ends, as lintel's. Syntax errors come with code
    `invalid-syntax` (null in older ruff). `[]` is a clean run; exit 2 prints `ruff failed` to stderr and
    no JSON, which is not recognised.
    """
    stdout = clean(output.stdout)
    elements = json_array_items(stdout)
    if elements is not None:
        try:
            issues = [i for i in (_ruff_json_issue(item, ctx) for item in elements) if i is not None]
        except MalformedJson:
            pass  # not ruff's JSON after all: the other formats below
        else:
            return ParseResult(issues=issues, recognized=True)
    lines = [line for line in stdout.splitlines() if line.strip()]
    if lines and all(line.lstrip().startswith("{") for line in lines):
        items = [json_value(line, "{") for line in lines]
        if all(isinstance(item, dict) for item in items):
            issues = [i for i in (_ruff_json_issue(item, ctx) for item in items) if i is not None]
            return ParseResult(issues=issues, recognized=True)
    return _parse_ruff_text(stdout, output.exit_code, ctx)


def _ruff_json_issue(item: Any, ctx: ParseContext) -> Issue | None:
    if not isinstance(item, dict) or not isinstance(item.get("filename"), str):
        return None
    location, end = json_object(item.get("location")), json_object(item.get("end_location"))
    fix = json_object(item.get("fix"))
    applicability = RUFF_APPLICABILITY.get(str(fix.get("applicability")).lower())
    hint = None
    if isinstance(fix.get("message"), str):  # display-only fixes too read "(unsafe fix)": the hint predates them
        hint = fix["message"] if applicability == "safe" else f"{fix['message']} (unsafe fix)"
    code = item.get("code")
    file = ctx.relpath(item["filename"])
    rule = code if isinstance(code, str) else None
    url = item.get("url")
    # A notebook's findings count lines within their cell (`cell`), not in the file: no edit applies to its text.
    in_cell = item.get("cell") is not None
    return make_issue(
        kind="lint",
        message=str(item.get("message") or ""),
        source="ruff",
        # ruff exits 1 for every violation, so a missing severity (older ruff has none) means error.
        severity=severity_from(item.get("severity"), default="error"),
        file=file,
        line=json_int(location.get("row")),
        column=json_int(location.get("column")),
        end_line=json_int(end.get("row")),
        end_column=json_int(end.get("column")),
        rule=rule,
        hint=hint,
        fixes=() if in_cell or not fix else (_ruff_fix(fix, file, rule or item.get("name")),),
        url=url if isinstance(url, str) else None,
    )


# ruff's `fix.applicability`: `safe`, `unsafe`, `displayonly` (0.17; `display` in 0.1). Before 0.1, `--fix` applied
# every fix but the `Manual` ones (measured, ruff 0.0.291: a `Suggested` E711 fix is applied), so those are safe.
RUFF_APPLICABILITY: Mapping[str, Applicability] = {
    "safe": "safe",
    "unsafe": "unsafe",
    "displayonly": "display",
    "display-only": "display",
    "display": "display",
    "automatic": "safe",
    "suggested": "safe",
    "unspecified": "safe",
    "manual": "display",
}


def _ruff_fix(fix: Mapping[str, Any], file: str, rule: Any) -> Fix | None:
    """The Fix of one finding from ruff's JSON `fix` ({applicability, message, edits: [{content, location,
    end_location}]}): ruff's rows and columns are lintel's (1-based, characters, end exclusive). None when it
    is not one lintel can read whole."""
    applicability = RUFF_APPLICABILITY.get(str(fix.get("applicability")).lower())
    raw_edits = fix.get("edits")
    if applicability is None or not isinstance(raw_edits, list):
        return None
    edits = [_ruff_edit(edit, file) for edit in raw_edits]
    if not all(edits):
        return None
    message = fix.get("message")
    title = message if isinstance(message, str) and message.strip() else f"Fix {rule or 'this finding'}"
    return make_fix(title, applicability, (edit for edit in edits if edit is not None))


def _ruff_edit(edit: Any, file: str) -> Edit | None:
    data = json_object(edit)
    start, end = json_object(data.get("location")), json_object(data.get("end_location"))
    numbers = [json_int(start.get("row")), json_int(start.get("column")), json_int(end.get("row"))]
    numbers.append(json_int(end.get("column")))
    content = data.get("content")
    if not isinstance(content, str) or any(n is None or n < 1 for n in numbers):
        return None
    line, column, end_line, end_column = (n for n in numbers if n is not None)
    return Edit(file, line, column, end_line, end_column, content)


def _parse_ruff_text(stdout: str, exit_code: int | None, ctx: ParseContext) -> ParseResult:
    issues: list[Issue] = []
    summary = False
    previous = ""
    for line in stdout.splitlines():
        concise = _RUFF_CONCISE.match(line)
        location = _RUFF_FULL_LOCATION.match(line)
        # In the full format the header is the line right above `-->`; `help:`/`note:` lines never are.
        header = _RUFF_FULL_HEADER.match(previous) if location else None
        if concise:
            issues.append(_ruff_text_issue(concise, concise, ctx))
        elif location and header:
            issues.append(_ruff_text_issue(header, location, ctx))
        summary = summary or bool(_RUFF_SUMMARY.match(line))
        previous = line
    clean = exit_code == 0 and not stdout.strip()
    return ParseResult(issues=issues, recognized=bool(issues) or summary or clean)


def _ruff_text_issue(what: re.Match[str], where: re.Match[str], ctx: ParseContext) -> Issue:
    return make_issue(
        kind="lint",
        message=what.group("msg"),
        source="ruff",
        severity="error",
        file=ctx.relpath(where.group("file")),
        line=int(where.group("line")),
        column=int(where.group("col")),
        rule=what.group("code"),
    )


# -------------------------------------------------------------------------------------------- ruff format

_FORMAT_MESSAGE = "ruff format would reformat this code"
_DIFF_OLD = re.compile(r"^--- (?P<file>.+?)(?:\t.*)?$")
_DIFF_NEW = re.compile(r"^\+\+\+ (?P<file>.+?)(?:\t.*)?$")
_HUNK = re.compile(r"^@@ -(?P<old>\d+)(?:,(?P<old_count>\d+))? \+\d+(?:,(?P<new_count>\d+))? @@")
# `error: Failed to parse pkg/broken.py:3:12: Expected a parameter or the end of the parameter list`
_FORMAT_PARSE_ERROR = re.compile(r"^error: Failed to parse (?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+)$")
# `ruff format --check`: `Would reformat: pkg/a.py` (older ruff) or the full format's ` --> pkg/a.py:1:8`.
_WOULD_REFORMAT = re.compile(r"^Would reformat: (?P<file>.+)$")


@dataclass
class _ChangeBlock:
    file: str
    start: int
    removed: int = 0
    lines: list[str] = field(default_factory=list)


def parse_ruff_format(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`ruff format --diff`: a unified diff per file that would change; one issue per block of changes.

        --- src/pkg/report.py
        +++ src/pkg/report.py
        @@ -4,9 +4,9 @@
         def report(items: list[Item]) -> str:
        -    lines = [ f"{item.name}"   for item in items ]
        +    lines = [f"{item.name}" for item in items]

    The issue sits at the first old line a block removes (or, for pure insertions, the line it goes
    before). Exit 1 means something would be reformatted; a file ruff cannot parse is reported on stderr
    (`error: Failed to parse path:line:col: message`, exit 2) and becomes an error-level issue. Also reads
    `ruff format --check` (`Would reformat: path`, or the full format's `--> path:line:col`).
    """
    stdout, stderr = clean(output.stdout), clean(output.stderr)
    issues = [_format_block_issue(block, ctx) for block in _change_blocks(stdout)]
    check_mode = not issues
    for line in (stdout + "\n" + stderr).splitlines():
        parse_error = _FORMAT_PARSE_ERROR.match(line)
        if parse_error:
            issues.append(
                make_issue(
                    kind="format",
                    message=f"cannot format: {parse_error.group('msg')}",
                    source="ruff",
                    severity="error",
                    file=ctx.relpath(parse_error.group("file")),
                    line=int(parse_error.group("line")),
                    column=int(parse_error.group("col")),
                )
            )
            continue
        if not check_mode:
            continue
        located = _RUFF_FULL_LOCATION.match(line)
        named = located or _WOULD_REFORMAT.match(line)
        if named:
            issues.append(
                make_issue(
                    kind="format",
                    message=_FORMAT_MESSAGE,
                    source="ruff",
                    severity="warning",
                    file=ctx.relpath(named.group("file")),
                    line=int(located.group("line")) if located else None,
                )
            )
    failed = "ruff failed" in stderr
    return ParseResult(issues=issues, recognized=not failed and (bool(issues) or output.exit_code == 0))


def _change_blocks(diff: str) -> Iterator[_ChangeBlock]:
    """Runs of `-`/`+` lines in each hunk. The hunk header's counts say where its body ends, so a removed
    line that itself starts with `--` is not mistaken for the next file's header."""
    file: str | None = None
    old_header: str | None = None
    old_line = old_left = new_left = 0
    block: _ChangeBlock | None = None
    for line in diff.splitlines():
        if file is not None and (old_left > 0 or new_left > 0):
            tag = line[:1]
            if tag == "\\":  # `\ No newline at end of file`
                continue
            if tag in ("-", "+"):
                if block is None:
                    block = _ChangeBlock(file=file, start=max(old_line, 1))
                block.lines.append(line)
                if tag == "-":
                    block.removed += 1
                    old_line += 1
                    old_left -= 1
                else:
                    new_left -= 1
                continue
            if block is not None:
                yield block
                block = None
            old_line += 1  # context; an empty line is context whose single space was stripped
            old_left -= 1
            new_left -= 1
            continue
        if block is not None:
            yield block
            block = None
        hunk = _HUNK.match(line)
        if hunk and file is not None:
            old_line = int(hunk.group("old"))
            old_left = int(hunk.group("old_count") or 1)
            new_left = int(hunk.group("new_count") or 1)
            continue
        new = _DIFF_NEW.match(line) if old_header is not None else None
        if new:
            file = old_header if new.group("file") == "/dev/null" else new.group("file")
            old_header = None
            continue
        old = _DIFF_OLD.match(line)
        old_header = old.group("file") if old else None
    if block is not None:
        yield block


def _format_block_issue(block: _ChangeBlock, ctx: ParseContext) -> Issue:
    return make_issue(
        kind="format",
        message=_FORMAT_MESSAGE,
        source="ruff",
        # Matches the other languages' format checks: style, not breakage.
        severity="warning",
        file=ctx.relpath(block.file),
        line=block.start,
        end_line=block.start + block.removed - 1 if block.removed > 1 else None,
        hint="\n".join(block.lines)[:MAX_HINT] or None,
    )


# ------------------------------------------------------------------------------------------------- mypy

# `src/pkg/models.py:21:12:21:29: error: Incompatible return value type (got "str", expected "int")  [return-value]`
# Line, column and end are each optional (they depend on mypy's flags); a path must contain `.` or `/`
# so `mypy: error: Missing target ...` (a usage error) is not taken for a finding in a file named `mypy`.
_MYPY_LINE = re.compile(
    r"^(?P<file>(?:[A-Za-z]:)?[^:\n]*[./\\][^:\n]*?)"
    r":(?:(?P<line>-?\d+):(?:(?P<col>\d+):(?:(?P<end_line>\d+):(?P<end_col>\d+):)?)?)?"
    r" (?P<severity>error|warning|note): (?P<msg>.*?)(?:  \[(?P<code>[\w-]+)\])?$"
)
_MYPY_SUMMARY = re.compile(r"^(Success: no issues found|Found \d+ errors? in \d+ files?)")
# What mypy says about its configuration file rather than the code: `pyproject.toml: note: unused section(s):
# module = ['legacy.*']` (warn_unused_configs), printed on a clean run too, with exit 0.
_MYPY_CONFIG_FILE = re.compile(r"\.(?:toml|ini|cfg)$")


@dataclass
class _MypyRecord:
    file: str
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    severity: str
    message: str
    code: str | None
    hints: list[str] = field(default_factory=list)


def parse_mypy(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """mypy's text output with `--show-column-numbers --show-error-end --show-error-codes --no-pretty`
    (also plain `file:line: error: ...`, file-level `file: error: ...`, and `-O json` lines).

        src/pkg/models.py:21:12:21:29: error: Incompatible return value type (got "str", expected "int")  [return-value]
        shapes.py:7:20:7:29: note: This violates the Liskov substitution principle
        use.py:4:13:4:18: note: Revealed type is "shapes.Square"

    Notes join the most recent error at the same file, line and column as its hint (mypy's own JSON output
    does the same); a note with no error there (reveal_type) is an info issue; a note about the configuration
    file (`pyproject.toml: note: unused section(s): ...`) is no finding in the code: it stays in the run's
    output only, so a run that found nothing is clean. mypy's end column is inclusive, so it gains one. Both
    streams are read: configuration errors go to stderr. A crash (`error: INTERNAL ERROR`) is not recognised,
    whatever was printed before it.
    """
    text = clean(output.stdout) + "\n" + clean(output.stderr)
    if "error: INTERNAL ERROR" in text:
        return ParseResult(recognized=False)
    records: list[_MypyRecord] = []
    latest_error: dict[tuple[str, int | None, int | None], _MypyRecord] = {}
    understood = False
    for line in text.splitlines():
        record = _mypy_json_record(line) if line.startswith("{") else _mypy_text_record(line)
        if record is None:
            understood = understood or bool(_MYPY_SUMMARY.match(line))
            continue
        if record.severity == "note" and record.line is None and _MYPY_CONFIG_FILE.search(record.file):
            understood = True
            continue
        key = (record.file, record.line, record.column)
        if record.severity == "note" and key in latest_error:
            latest_error[key].hints.append(record.message)
            continue
        records.append(record)
        if record.severity != "note":
            latest_error[key] = record
    issues = [_mypy_issue(record, ctx) for record in records]
    # Exit 0 is a clean run even when mypy warned about its config (`mypy.ini: [mypy]: Unrecognized option`).
    return ParseResult(issues=issues, recognized=bool(records) or understood or output.exit_code == 0)


def _mypy_text_record(line: str) -> _MypyRecord | None:
    match = _MYPY_LINE.match(line.rstrip())
    if not match:
        return None

    def number(name: str) -> int | None:
        value = match.group(name)
        return int(value) if value is not None else None

    end_column = number("end_col")
    return _MypyRecord(
        file=match.group("file"),
        line=number("line"),
        column=number("col"),
        end_line=number("end_line"),
        end_column=end_column + 1 if end_column is not None else None,
        severity=match.group("severity"),
        message=match.group("msg"),
        code=match.group("code"),
    )


def _mypy_json_record(line: str) -> _MypyRecord | None:
    """`mypy -O json`: 0-based columns, end column exclusive and 0-based; notes are already in `hint`."""
    data = json_value(line, "{")
    if not isinstance(data, dict) or not isinstance(data.get("file"), str):
        return None
    column, end_column = json_int(data.get("column")), json_int(data.get("end_column"))
    hint = data.get("hint")
    return _MypyRecord(
        file=data["file"],
        line=json_int(data.get("line")),
        column=column + 1 if column is not None and column >= 0 else None,
        end_line=json_int(data.get("end_line")),
        end_column=end_column + 1 if end_column is not None and end_column >= 0 else None,
        severity=str(data.get("severity") or "error"),
        message=str(data.get("message") or ""),
        code=data["code"] if isinstance(data.get("code"), str) else None,
        hints=[hint] if isinstance(hint, str) and hint else [],
    )


def _mypy_issue(record: _MypyRecord, ctx: ParseContext) -> Issue:
    return make_issue(
        kind="typecheck",
        message=record.message,
        source="mypy",
        severity=severity_from(record.severity, default="error"),
        file=ctx.relpath(record.file),
        line=record.line,
        column=record.column,
        end_line=record.end_line,
        end_column=record.end_column,
        rule=record.code,
        hint="\n".join(record.hints)[:MAX_HINT] or None,
    )


# ---------------------------------------------------------------------------------------------- pyright

_PYRIGHT_SEVERITY: Mapping[str, Severity] = {"error": "error", "warning": "warning", "information": "info"}


def parse_pyright(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`pyright --outputjson` / `basedpyright --outputjson`: one document with every diagnostic.

        {"version": "1.40.2", "generalDiagnostics": [
            {"file": "/w/shapes/area.py", "severity": "error", "rule": "reportReturnType",
             "message": "Type \\"float\\" is not assignable to return type \\"int\\"\\n  ...",
             "range": {"start": {"line": 16, "character": 11}, "end": {"line": 16, "character": 21}}}],
         "summary": {"errorCount": 1, "warningCount": 0, "informationCount": 0, ...}}

    Ranges are LSP positions (0-based), so each gains one. The message's first line is the message, the
    indented explanation below it the hint. Issue.source is `pyright` for pyright's own 1.1.x versions
    and `basedpyright` otherwise (the JSON does not name the tool).
    """
    document = json_value(clean(output.stdout), "{")
    if not isinstance(document, dict) or not isinstance(document.get("generalDiagnostics"), list):
        return ParseResult(recognized=False)
    version = str(document.get("version") or "")
    source = "pyright" if not version or version.startswith("1.1.") else "basedpyright"
    issues = [
        issue for issue in (_pyright_issue(d, source, ctx) for d in document["generalDiagnostics"]) if issue is not None
    ]
    return ParseResult(issues=issues, recognized=True)


def _pyright_issue(diagnostic: Any, source: str, ctx: ParseContext) -> Issue | None:
    if not isinstance(diagnostic, dict):
        return None
    message, hint = split_message(str(diagnostic.get("message") or ""))
    file = diagnostic.get("file")
    span = json_object(diagnostic.get("range"))
    start, end = json_object(span.get("start")), json_object(span.get("end"))

    def one_based(position: Mapping[str, Any], key: str) -> int | None:
        value = json_int(position.get(key))
        return value + 1 if value is not None and value >= 0 else None

    rule = diagnostic.get("rule")
    return make_issue(
        kind="typecheck",
        message=message,
        source=source,
        severity=_PYRIGHT_SEVERITY.get(str(diagnostic.get("severity")), severity_from(diagnostic.get("severity"))),
        file=ctx.relpath(file) if isinstance(file, str) and file else None,
        line=one_based(start, "line"),
        column=one_based(start, "character"),
        end_line=one_based(end, "line"),
        end_column=one_based(end, "character"),
        rule=rule if isinstance(rule, str) else None,
        hint=hint,
    )
