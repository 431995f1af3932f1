"""JavaScript linters other than eslint that `lint` scripts run: oxlint and biome, in their JSON reports and in
their default (human) output, which a script that chains steps leaves as it is.

Pure functions over text; the node auto parser (node.py) calls them on whatever a script printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from lintel.core.issues import Issue, ParseContext, Severity, make_issue
from lintel.languages.parsers.common import json_int, json_object

# --------------------------------------------------------------------------------------------------
# oxlint (measured: oxlint 1.94)

# `--format json`:
#   { "diagnostics": [{"message": "`debugger` statement is not allowed", "code": "eslint(no-debugger)",
#       "severity": "warning", "url": "https://oxc.rs/docs/guide/usage/linter/rules/eslint/no-debugger.html",
#       "filename": "src/cart.js",
#       "labels": [{"span": {"offset": 219, "length": 9, "line": 8, "column": 7}}]}],
#     "number_of_files": 2, "number_of_rules": 96, ... }
# Default output, a header then the location a few lines below (with CI set: `⚠` and `╭─[`, in colour):
#     ! eslint(no-debugger): `debugger` statement is not allowed
#      ,-[src/cart.js:8:7]
# `x` (or `×`) marks an error, `!` (or `⚠`) a warning. Paths are relative to the cwd. It exits 0 with
# warnings only, 1 with errors.
_OXLINT_HEADER = re.compile(r"^\s*(?P<mark>[x×!⚠]) (?P<code>[\w@/.-]+(?:\([\w@/.-]+\))?): (?P<message>.+)$")
# ASCII frames (`,-[`) in a plain terminal or pipe; Unicode ones (`╭─[`), and colours, when CI is set.
_OXLINT_LOCATION = re.compile(r"^\s*(?:,-|╭─)\[(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\]$")
_OXLINT_LOOKAHEAD = 3  # the location line follows the header at once (a blank line at most in between)


def is_oxlint_report(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("diagnostics"), list) and "number_of_files" in value


def oxlint_report_issues(report: Mapping[str, Any], ctx: ParseContext) -> list[Issue]:
    issues: list[Issue] = []
    for diagnostic in report["diagnostics"]:
        if not isinstance(diagnostic, dict):
            continue
        labels = diagnostic.get("labels")
        span = json_object(json_object(labels[0]).get("span")) if isinstance(labels, list) and labels else {}
        filename = diagnostic.get("filename")
        issues.append(
            _oxlint_issue(
                str(diagnostic.get("code") or ""),
                str(diagnostic.get("message") or ""),
                "error" if diagnostic.get("severity") == "error" else "warning",
                ctx.relpath(filename) if isinstance(filename, str) and filename else None,
                json_int(span.get("line")),
                json_int(span.get("column")),
                url=diagnostic.get("url") if isinstance(diagnostic.get("url"), str) else None,
            )
        )
    return issues


def oxlint_text_issues(text: str, ctx: ParseContext) -> Iterator[Issue]:
    for header, location in _paired(text, _OXLINT_HEADER, _OXLINT_LOCATION, _OXLINT_LOOKAHEAD):
        yield _oxlint_issue(
            header.group("code"),
            header.group("message").strip(),
            "error" if header.group("mark") in "x×" else "warning",
            ctx.relpath(location.group("file")),
            int(location.group("line")),
            int(location.group("col")),
        )


def _oxlint_issue(
    code: str,
    message: str,
    severity: Severity,
    file: str | None,
    line: int | None,
    column: int | None,
    url: str | None = None,
) -> Issue:
    return make_issue(
        kind="lint",
        message=message,
        source="oxlint",
        severity=severity,
        file=file,
        line=line,
        column=column,
        rule=code or None,
        url=url,
    )


# --------------------------------------------------------------------------------------------------
# xo (measured: xo 0.60). `--reporter=json` is eslint's JSON (read as eslint's); its default output is its
# "pretty" format, a file header then one line per problem, the rule last:
#
#   src/cart.js:2:9
#   ✖   2:10  readFileSync is defined but never used. Allowed unused vars must match /^_/u.  no-unused-vars
#   ⚠   9:3   Unexpected console statement.                                                 no-console
#
#   24 errors
# The messages lose eslint's quotes (`'{'` becomes `{`). xo exits 1 when there are errors.
_XO_FILE = re.compile(r"^  (?P<file>[^\s:][^:]*?):\d+:\d+\s*$")
_XO_ENTRY = re.compile(
    r"^  (?P<mark>[✖⚠×‼])\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<message>.+?)(?:\s{2,}(?P<rule>\S+))?\s*$"
)


def xo_text_issues(text: str, ctx: ParseContext) -> Iterator[Issue]:
    file: str | None = None
    for line in text.splitlines():
        header = _XO_FILE.match(line)
        if header is not None:
            file = ctx.relpath(header.group("file"))
            continue
        entry = _XO_ENTRY.match(line) if file is not None else None
        if entry is None:
            if not line.strip():
                continue
            if not line.startswith("  "):
                file = None  # the summary (`24 errors`) or another tool's output
            continue
        yield make_issue(
            kind="lint",
            message=entry.group("message"),
            source="xo",
            severity="warning" if entry.group("mark") in "⚠‼" else "error",
            file=file,
            line=int(entry.group("line")),
            column=int(entry.group("col")),
            rule=entry.group("rule"),
        )


# --------------------------------------------------------------------------------------------------
# biome (measured: biome 2.6)

# `--reporter=json`:
#   {"summary": {...}, "diagnostics": [{"severity": "error", "message": "This is an unexpected use of the
#     debugger statement.", "category": "lint/suspicious/noDebugger", "location": {"path": "src/cart.js",
#     "start": {"line": 8, "column": 7}, "end": {"line": 8, "column": 16}}, "advices": []}], "command": "lint"}
# Default output, a header then the message marked by severity (`×` error, `!` warning, `i` info):
#   src/cart.js:8:7 lint/suspicious/noDebugger  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
#
#     × This is an unexpected use of the debugger statement.
# Paths are relative to the cwd. It exits 1 when there are errors, 0 with warnings and infos only.
_BIOME_HEADER = re.compile(
    r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?P<col>\d+) (?P<category>[\w/-]+)(?:\s+[A-Z]+)*\s+━+\s*$"
)
_BIOME_MESSAGE = re.compile(r"^\s+(?P<mark>[×✖!⚠iℹ]) (?P<message>.+)$")
_BIOME_SEVERITY: Mapping[str, Severity] = {"×": "error", "✖": "error", "!": "warning", "⚠": "warning"}
_BIOME_LOOKAHEAD = 3


def is_biome_report(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("diagnostics"), list) and "summary" in value


def biome_report_issues(report: Mapping[str, Any], ctx: ParseContext) -> list[Issue]:
    issues: list[Issue] = []
    for diagnostic in report["diagnostics"]:
        if not isinstance(diagnostic, dict):
            continue
        location = json_object(diagnostic.get("location"))
        start, end = json_object(location.get("start")), json_object(location.get("end"))
        path = location.get("path")
        severity = diagnostic.get("severity")
        issues.append(
            make_issue(
                kind="lint",
                message=str(diagnostic.get("message") or ""),
                source="biome",
                severity=severity if severity in ("error", "warning", "info") else "error",
                file=ctx.relpath(path) if isinstance(path, str) and path else None,
                line=json_int(start.get("line")),
                column=json_int(start.get("column")),
                end_line=json_int(end.get("line")),
                end_column=json_int(end.get("column")),
                rule=str(diagnostic.get("category") or "") or None,
            )
        )
    return issues


def biome_text_issues(text: str, ctx: ParseContext) -> Iterator[Issue]:
    for header, message in _paired(text, _BIOME_HEADER, _BIOME_MESSAGE, _BIOME_LOOKAHEAD):
        yield make_issue(
            kind="lint",
            message=message.group("message").strip(),
            source="biome",
            severity=_BIOME_SEVERITY.get(message.group("mark"), "info"),
            file=ctx.relpath(header.group("file")),
            line=int(header.group("line")),
            column=int(header.group("col")),
            rule=header.group("category"),
        )


def _paired(
    text: str, header: re.Pattern[str], partner: re.Pattern[str], lookahead: int
) -> Iterator[tuple[re.Match[str], re.Match[str]]]:
    """Each line `header` matches, with the first of the next `lookahead` lines that `partner` matches (both
    linters print a finding as a header and, a line or two below, the rest of what lintel needs)."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        head = header.match(line)
        if head is None:
            continue
        for following in lines[index + 1 : index + 1 + lookahead]:
            found = partner.match(following)
            if found is not None:
                yield head, found
                break
