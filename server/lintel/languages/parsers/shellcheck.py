"""ShellCheck's findings: `shellcheck -f json1` (also the older `-f json` array and the plain `-f gcc` lines).

Columns, measured with ShellCheck 0.11 (tests/captures/shellcheck/): json1 and gcc count 1-based Unicode code
points with a tab as one column — in `\techo "🚀 deploying to" $target`, `$target` is at column 24, where
UTF-16 would say 25 and UTF-8 27 — and json1's endColumn is exclusive. Parsers keep a tool's own unit and the
server converts by source (server/convert.py), code points being the default, as for ruff and rustc: so
the columns are kept as printed. The older `-f json` expands each tab to the next multiple of 8 (`$target` at
31), which cannot be undone without the source line: its columns are dropped, its lines kept.

json1's `fix.replacements` count in the same unit as its comments (a tab one column: `cd $1` after a tab puts
`$1` at 5..7): each becomes an edit as printed, a comment's replacements one `safe` fix (what `shellcheck -f diff`
applies). Two insertions at one place go in ShellCheck's order: the one that ends the text before it
(`afterEnd`) first, then the one that starts the text after it (`beforeStart`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lintel.core.fixes import Edit, Fix, make_fix
from lintel.core.issues import Issue, ParseContext, ParseResult, Severity, make_issue, severity_from
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import clean, json_int, json_value

# `deploy.sh:4:24: note: Double quote to prevent globbing and word splitting. [SC2086]`; gcc prints json1's
# info and style levels both as `note`.
_GCC_LINE = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>error|warning|note|info|style): "
    r"(?P<message>.*) \[(?P<code>SC\d+)\]$"
)


def parse_shellcheck(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`shellcheck -f json1 FILES...`: one document with every finding, paths as given on the command line.

        {"comments":[{"file":"deploy.sh","line":6,"endLine":6,"column":1,"endColumn":11,"level":"warning",
          "code":2164,"message":"Use 'cd ... || exit' or 'cd ... || return' in case cd fails.",
          "fix":{"replacements":[...]}}]}

    rule is `SC<code>` (what `# shellcheck disable=SC2164` names); kind is `lint`, parse errors (SC1xxx)
    included. ShellCheck exits 0 clean, 1 with findings, 2 when a file could not be read (it still prints
    what it found in the others), 3 and 4 for bad options. A failing run is understood only with findings;
    with `-f gcc` a clean run prints nothing at all.
    """
    stdout = clean(output.stdout)
    document = json_value(stdout, "{")
    if isinstance(document, dict) and isinstance(document.get("comments"), list):
        issues = _json_issues(document["comments"], ctx, columns=True)
    else:
        legacy = json_value(stdout, "[")
        if isinstance(legacy, list) and all(_is_comment(item) for item in legacy):
            issues = _json_issues(legacy, ctx, columns=False)
        else:
            issues = _gcc_issues(stdout, ctx)
            if not issues and stdout.strip():
                return ParseResult(recognized=False)
    return ParseResult(issues=issues, recognized=bool(issues) or output.exit_code in (0, None))


def _is_comment(item: Any) -> bool:
    return isinstance(item, dict) and "code" in item and "level" in item


def _json_issues(comments: Iterable[Any], ctx: ParseContext, *, columns: bool) -> list[Issue]:
    issues: list[Issue] = []
    for comment in comments:
        if not _is_comment(comment) or not isinstance(comment.get("file"), str):
            continue
        code = json_int(comment.get("code"))
        file = ctx.relpath(comment["file"])
        issues.append(
            make_issue(
                kind="lint",
                message=str(comment.get("message") or ""),
                source="shellcheck",
                severity=_severity(comment.get("level")),
                file=file,
                line=json_int(comment.get("line")),
                column=json_int(comment.get("column")) if columns else None,
                end_line=json_int(comment.get("endLine")),
                end_column=json_int(comment.get("endColumn")) if columns else None,
                rule=f"SC{code}" if code is not None else None,
                fixes=(_fix(comment, file),) if columns else (),
            )
        )
    return issues


def _fix(comment: dict[str, Any], file: str) -> Fix | None:
    """A json1 comment's replacements as one fix; None without any, or with one that is not a clean edit."""
    fix = comment.get("fix")
    replacements = fix.get("replacements") if isinstance(fix, dict) else None
    if not isinstance(replacements, list) or not replacements or file.startswith("/"):
        return None
    placed: list[tuple[int, int, int, Edit]] = []
    for item in replacements:
        where = [json_int(item.get(key)) if isinstance(item, dict) else None for key in _WHERE]
        if not isinstance(item, dict) or not isinstance(item.get("replacement"), str) or None in where:
            return None
        line, column, end_line, end_column = (value or 0 for value in where)
        if min(line, column, end_line, end_column) < 1:
            return None
        edit = Edit(file, line, column, end_line, end_column, item["replacement"])
        placed.append((line, column, 0 if item.get("insertionPoint") == "afterEnd" else 1, edit))
    placed.sort(key=lambda entry: entry[:3])  # make_fix's own sort is stable: the order at one place stays
    return make_fix(str(comment.get("message") or ""), "safe", [edit for *_, edit in placed])


_WHERE = ("line", "column", "endLine", "endColumn")


def _gcc_issues(text: str, ctx: ParseContext) -> list[Issue]:
    issues: list[Issue] = []
    for line in text.splitlines():
        match = _GCC_LINE.match(line.rstrip())
        if match is None:
            continue
        issues.append(
            make_issue(
                kind="lint",
                message=match.group("message"),
                source="shellcheck",
                severity=_severity(match.group("level")),
                file=ctx.relpath(match.group("file")),
                line=int(match.group("line")),
                column=int(match.group("col")),
                rule=match.group("code"),
            )
        )
    return issues


def _severity(level: Any) -> Severity:
    """error, warning and info as they are; style (and gcc's `note`) is info, as the house table maps them: advice
    like info, not a `hint`, which `--severity info` would hide."""
    return severity_from(level if isinstance(level, str) else None, default="warning")
