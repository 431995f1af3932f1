"""Parsers for the node ecosystem's lint, type and format checks: eslint (JSON, compact, stylish), tsc,
prettier --check, and whatever a `lint` script printed. Test reports are read by `nodetests` and `tap`.

The `*_auto` parsers read what a package.json script printed, which lintel does not control: they find
whichever of these formats is there, after a package manager's banner or other chatter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from lintel.core.issues import Issue, ParseContext, ParseResult, Severity, make_issue, severity_from
from lintel.languages.node.eslintfix import ResultText, message_fixes, rule_urls
from lintel.languages.node.jslint import (
    biome_report_issues,
    biome_text_issues,
    is_biome_report,
    is_oxlint_report,
    oxlint_report_issues,
    oxlint_text_issues,
    xo_text_issues,
)
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.jscommon import both_streams, clean_exit, find_json, json_documents, loose_int

# --------------------------------------------------------------------------------------------------
# eslint


def _is_eslint_report(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict) and "filePath" in item and isinstance(item.get("messages"), list) for item in value
    )


def _is_eslint_metadata_report(value: Any) -> bool:
    """`--format json-with-metadata`: `{"results": <the json format's list>, "metadata": {"rulesMeta": ...}}`."""
    return (
        isinstance(value, dict) and isinstance(value.get("metadata"), dict) and _is_eslint_report(value.get("results"))
    )


def _eslint_metadata_issues(report: Mapping[str, Any], ctx: ParseContext) -> list[Issue]:
    return _eslint_issues(report["results"], ctx, rule_urls(report["metadata"]))


def parse_eslint(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """eslint's `--format json`: one object per linted file, its messages with 1-based positions.

        [{"filePath":"/w/src/util.js","messages":[
            {"ruleId":"eqeqeq","severity":2,"message":"Expected '===' and instead saw '=='.",
             "line":4,"column":12,"endLine":4,"endColumn":14,
             "suggestions":[{"desc":"Use '===' instead of '=='.","fix":{"range":[61,63],"text":"==="}}]},
            {"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token ;",
             "line":5,"column":28}], "errorCount":2, ..., "source":"..."}]

    or the same list as `results` of `--format json-with-metadata` (what lintel asks for), whose `metadata`
    gives each rule's page. Severity 2 is an error, 1 a warning. A fatal message (the file does not parse) has
    no rule. A message's `fix` and `suggestions` become its fixes (parsers/eslintfix.py).
    eslint exits 0 clean, 1 with findings, 2 when it failed (bad config, crash: no JSON is printed then).
    """
    found = find_json(output, "[", _is_eslint_report)
    if found is not None:
        return ParseResult(issues=_eslint_issues(found.document.value, ctx), recognized=True)
    found = find_json(output, "{", _is_eslint_metadata_report)
    if found is not None:
        return ParseResult(issues=_eslint_metadata_issues(found.document.value, ctx), recognized=True)
    return ParseResult(recognized=False)


def _is_ignored_notice(message: Mapping[str, Any]) -> bool:
    """eslint's note for a file named on its command line that its config ignores ("File ignored because of
    a matching ignore pattern…", "File ignored by default…"): not a finding, and `eslint .` never says it."""
    text = str(message.get("message") or "")
    return message.get("ruleId") is None and not message.get("fatal") and text.startswith("File ignored")


def _eslint_issues(
    report: Sequence[Mapping[str, Any]], ctx: ParseContext, urls: Mapping[str, str] | None = None
) -> list[Issue]:
    issues: list[Issue] = []
    for result in report:
        file = ctx.relpath(str(result["filePath"]))
        text = ResultText(result, ctx)
        for message in result["messages"]:
            if not isinstance(message, dict):
                continue
            fatal = bool(message.get("fatal"))
            rule = message.get("ruleId")
            if _is_ignored_notice(message):
                continue
            rule = str(rule) if isinstance(rule, str) and not fatal else None
            issues.append(
                make_issue(
                    kind="lint",
                    message=str(message.get("message") or ""),
                    source="eslint",
                    severity="error" if fatal else _eslint_severity(message.get("severity")),
                    file=file,
                    line=loose_int(message.get("line")),
                    column=loose_int(message.get("column")),
                    end_line=loose_int(message.get("endLine")),
                    end_column=loose_int(message.get("endColumn")),
                    rule=rule,
                    fixes=message_fixes(message, text, file, rule),
                    url=(urls or {}).get(rule) if rule else None,
                )
            )
    return issues


def _eslint_severity(value: Any) -> Severity:
    return severity_from(value if isinstance(value, (int, str)) else None, default="warning")


_COMPACT = re.compile(
    r"^(?P<file>.+?): line (?P<line>\d+), col (?P<col>\d+), (?P<sev>Error|Warning) - "
    r"(?P<message>.*?)(?: \((?P<rule>[^()\s]+)\))?$"
)
_PROBLEMS = re.compile(r"^\s*(?:✖\s*)?\d+ problems?\b")


def parse_eslint_compact(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """eslint's compact format (in core until eslint 9, now the `eslint-formatter-compact` package):

        /w/src/util.js: line 4, col 12, Error - Expected '===' and instead saw '=='. (eqeqeq)
        /w/src/bad.js: line 5, col 28, Error - Parsing error: Unexpected token ;

        2 problems

    A fatal message (the file does not parse) has no rule in parentheses.
    """
    text = both_streams(output)
    issues = list(_compact_issues(text, ctx))
    recognized = bool(issues) or clean_exit(output, text) or any(_PROBLEMS.match(line) for line in text.splitlines())
    return ParseResult(issues=issues, recognized=recognized)


def _compact_issues(text: str, ctx: ParseContext) -> Iterator[Issue]:
    for line in text.splitlines():
        match = _COMPACT.match(line.rstrip())
        if not match:
            continue
        yield make_issue(
            kind="lint",
            message=match.group("message"),
            source="eslint",
            severity=severity_from(match.group("sev")),
            file=ctx.relpath(match.group("file")),
            line=int(match.group("line")),
            column=int(match.group("col")),
            rule=match.group("rule"),
        )


_STYLISH_ENTRY = re.compile(
    r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<message>.+?)"
    r"(?:\s{2,}(?P<rule>\S+))?\s*$"
)
# stylish names each file by its absolute path on a line of its own.
_STYLISH_FILE = re.compile(r"^(?:/|[A-Za-z]:[\\/])\S.*$")


def _stylish_issues(text: str, ctx: ParseContext) -> Iterator[Issue]:
    """eslint's default format, which a lint script prints when lintel cannot ask it for JSON:

        /w/src/util.js
           4:12  error    Expected '===' and instead saw '=='  eqeqeq
          10:3   warning  Unexpected console statement         no-console

    Messages lose their final period and are padded to align the rule column.
    """
    file: str | None = None
    for line in text.splitlines():
        entry = _STYLISH_ENTRY.match(line)
        if entry and file is not None:
            message = entry.group("message")
            rule = entry.group("rule")
            if message.startswith("Parsing error:"):
                rule = None
            yield make_issue(
                kind="lint",
                message=message,
                source="eslint",
                severity=severity_from(entry.group("sev")),
                file=file,
                line=int(entry.group("line")),
                column=int(entry.group("col")),
                rule=rule,
            )
        elif not line.strip():
            file = None
        elif _STYLISH_FILE.match(line) and not _PROBLEMS.match(line):
            file = ctx.relpath(line.strip())


# --------------------------------------------------------------------------------------------------
# tsc

_TSC_PLAIN = re.compile(
    r"^(?P<file>[^\s(][^()]*?)\((?P<line>\d+),(?P<col>\d+)\): "
    r"(?P<sev>error|warning|message) (?P<code>TS\d+): (?P<message>.*)$"
)
_TSC_PRETTY = re.compile(
    r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?P<col>\d+) - "
    r"(?P<sev>error|warning|message) (?P<code>TS\d+): (?P<message>.*)$"
)
_TSC_GLOBAL = re.compile(r"^(?P<sev>error|warning|message) (?P<code>TS\d+): (?P<message>.*)$")


def parse_tsc(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """tsc's diagnostics, one per line with `--pretty false`, continuation lines indented:

        src/api.ts(26,9): error TS2322: Type 'string' is not assignable to type 'number'.
        src/api.ts(47,3): error TS2322: Type 'Page<string>' is not assignable to type 'Page<User>'.
          Type 'string' is not assignable to type 'User'.
        error TS18003: No inputs were found in config file '/w/tsconfig.json'. ...

    The pretty format (`src/api.ts:26:9 - error TS2322: ...`, followed by a code frame) is read too, for
    projects that set `pretty` in tsconfig.json. Paths are relative to the cwd. tsc --noEmit exits 0 clean
    and 2 with errors (config errors included); 1 means it did not check anything (no tsconfig: it prints
    its help), which is not understood.
    """
    text = both_streams(output)
    issues = list(_tsc_issues(text, ctx))
    return ParseResult(issues=issues, recognized=bool(issues) or clean_exit(output, text))


def _tsc_issues(text: str, ctx: ParseContext) -> Iterator[Issue]:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = _TSC_PLAIN.match(line) or _TSC_PRETTY.match(line)
        located = match is not None
        match = match or _TSC_GLOBAL.match(line)
        if match is None:
            continue
        message = [match.group("message").rstrip()]
        # The rest of a chained message is indented; the pretty format's code frame follows a blank line.
        for following in lines[index + 1 :]:
            if not following.strip() or not following[:1].isspace():
                break
            message.append(following.rstrip())
        sev = match.group("sev")
        yield make_issue(
            kind="typecheck",
            message="\n".join(message),
            source="tsc",
            severity="info" if sev == "message" else severity_from(sev),
            file=ctx.relpath(match.group("file")) if located else None,
            line=int(match.group("line")) if located else None,
            column=int(match.group("col")) if located else None,
            rule=match.group("code"),
        )


# --------------------------------------------------------------------------------------------------
# prettier --check

_PRETTIER_WARN = re.compile(r"^\[warn\] (?P<file>.+)$")
_PRETTIER_ERROR = re.compile(
    r"^\[error\] (?P<file>[^\s:][^:]*?): (?P<message>\w*Error: .*?)(?: \((?P<line>\d+):(?P<col>\d+)\))?$"
)
_PRETTIER_SUMMARY = re.compile(r"^(Code style issues|Checking formatting|All matched files)")
PRETTIER_MESSAGE = "prettier would reformat this file"


def parse_prettier_check(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`prettier --check`: the unformatted files on stderr, a file prettier cannot parse as an error.

        Checking formatting...
        [warn] src/messy.js
        [warn] Code style issues found in the above file. Run Prettier with --write to fix.
        [error] broken.js: SyntaxError: Unexpected token (1:14)
        [error] > 1 | export const = ;

    prettier exits 0 when everything is formatted, 1 when some file is not, 2 when it failed (a syntax
    error in a file, no file matched, a bad option). Only the first two, or a located syntax error, are
    understood: an exit 2 without a file to blame is prettier's own failure.
    """
    issues, started, _ = _prettier_check_lines(both_streams(output), ctx)
    if output.exit_code == 0:
        recognized = started and not issues
    elif output.exit_code == 1:
        recognized = bool(issues)
    elif output.exit_code is None:
        recognized = started or bool(issues)
    else:
        recognized = any(issue.severity == "error" for issue in issues)
    return ParseResult(issues=issues, recognized=recognized)


def _prettier_check_lines(text: str, ctx: ParseContext) -> tuple[list[Issue], bool, str]:
    """`prettier --check`'s lines in `text`: the issues they give, whether one of its summary lines is there, and
    the text without its lines (a lint script's other steps printed the rest)."""
    issues: list[Issue] = []
    started = False
    rest: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if _PRETTIER_SUMMARY.match(line):
            started = True
            continue
        warn = _PRETTIER_WARN.match(line)
        if warn and _PRETTIER_SUMMARY.match(warn.group("file")):
            started = True  # `[warn] Code style issues found…`: prettier's own words
            continue
        if warn:
            issues.append(
                make_issue(
                    kind="format",
                    message=PRETTIER_MESSAGE,
                    source="prettier",
                    severity="warning",
                    file=ctx.relpath(warn.group("file")),
                )
            )
            continue
        error = _PRETTIER_ERROR.match(line)
        if error:
            issues.append(
                make_issue(
                    kind="format",
                    message=error.group("message"),
                    source="prettier",
                    severity="error",
                    file=ctx.relpath(error.group("file")),
                    line=loose_int(error.group("line")),
                    column=loose_int(error.group("col")),
                )
            )
            continue
        if not (warn or line.startswith("[error] ")):
            rest.append(line)
    return issues, started, "\n".join(rest)


# --------------------------------------------------------------------------------------------------
# package.json scripts: whatever a lint or typecheck script printed


def parse_node_lint_auto(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """A `lint` or `typecheck` script's output: the JSON reports of eslint, oxlint and biome, and the text of
    tsc, eslint's compact and stylish formats, `prettier --check`, and the default output of oxlint, biome and xo.

    A script may chain tools (`eslint . && tsc`, `oxlint && biome lint`), so every format found is kept. Exit 0
    with nothing but package-manager chatter is a clean run; exit 0 with output in no known format is not
    recognised (the check reports it as passed, never clean); a failing exit needs findings.
    """
    issues: list[Issue] = []
    text = both_streams(output)
    found_any = False
    for opener, accept, read in (
        ("[", _is_eslint_report, _eslint_issues),
        ("{", _is_eslint_metadata_report, _eslint_metadata_issues),
        ("{", is_oxlint_report, oxlint_report_issues),
        ("{", is_biome_report, biome_report_issues),
    ):
        document = next((d for d in json_documents(text, opener) if accept(d.value)), None)
        if document is None:
            continue
        found_any = True
        issues.extend(read(document.value, ctx))
        # The rest of the text may hold a chained tool's output.
        text = text[: document.start] + text[document.end :]
    # A format check chained into the lint script (`eslint . && prettier -c src`): its lines are understood,
    # when prettier's own summary says they are its (another tool may print a `[warn] …` line).
    formatting, prettier_ran, rest = _prettier_check_lines(text, ctx)
    if prettier_ran:
        issues.extend(formatting)
        text = rest
    issues.extend(_tsc_issues(text, ctx))
    issues.extend(_compact_issues(text, ctx))
    issues.extend(_stylish_issues(text, ctx))
    issues.extend(oxlint_text_issues(text, ctx))
    issues.extend(biome_text_issues(text, ctx))
    issues.extend(xo_text_issues(text, ctx))
    recognized = found_any or bool(issues) or clean_exit(output, text)
    return ParseResult(issues=issues, recognized=recognized)
