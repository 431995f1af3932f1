"""Parsers for the node ecosystem: eslint (JSON, compact, stylish), tsc, prettier --check, and test reports
(jest and vitest JSON, node --test TAP).

The `*_auto` parsers read what a package.json script printed, which lintel does not control: they find
whichever of these formats is there, after a package manager's banner or other chatter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lintel.issues import (
    Issue,
    ParseContext,
    ParseResult,
    Severity,
    TestFailure,
    make_issue,
    severity_from,
)
from lintel.parsers.base import ToolOutput
from lintel.parsers.jslint import (
    biome_report_issues,
    biome_text_issues,
    is_biome_report,
    is_oxlint_report,
    oxlint_report_issues,
    oxlint_text_issues,
    xo_text_issues,
)
from lintel.parsers.jstests import (
    is_mocha_report,
    jest_failures,
    mocha_report_failures,
    mocha_spec_failures,
    node_spec_failures,
    vitest_failures,
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# How many places a JSON document may start at before we give up looking (a flood of `[`-lines is not eslint).
_MAX_JSON_STARTS = 200
_LINE_START_JSON = re.compile(r"^[ \t]*([\[{])", re.MULTILINE)
_MAX_MESSAGE = 4000
_NAME_SEPARATOR = " > "


# pnpm's banner for each script it runs (`> pkg@1.0.0 test /w`, then `> vitest run`), at the start of a line.
_PNPM_BANNER = re.compile(r"^> .*\n?", re.MULTILINE)
# pnpm running several scripts at once announces each (`. test:unit$ vitest run`, `packages/a test$ jest`) and
# puts `<dir> <script>: ` before every line the script prints.
_PNPM_ANNOUNCED = re.compile(r"^(?P<prefix>\S+ [^\s$]+)\$ ", re.MULTILINE)


def _clean(text: str) -> str:
    """Colours off, `\n` line ends, pnpm's banners out and its per-script line prefixes taken off."""
    text = _PNPM_BANNER.sub("", _ANSI.sub("", text).replace("\r\n", "\n"))
    prefixes = {f"{m.group('prefix')}: " for m in _PNPM_ANNOUNCED.finditer(text)}
    if not prefixes:
        return text
    return "\n".join(_unprefixed(line, prefixes) for line in text.split("\n"))


def _unprefixed(line: str, prefixes: set[str]) -> str:
    for prefix in prefixes:
        if line.startswith(prefix):
            return line[len(prefix) :]
        if line == prefix.rstrip():
            return ""
    return line


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _both_streams(output: ToolOutput) -> str:
    return _clean("\n".join(part for part in (output.stdout, output.stderr) if part))


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


@dataclass(frozen=True)
class _Json:
    value: Any
    start: int
    end: int


def _json_documents(text: str, opener: str) -> Iterator[_Json]:
    """JSON values starting with `opener` at the start of a line, in order, skipping text around them.

    Package managers print banners (`> pkg@1.0.0 lint`) before a script's output and tests may print to
    stdout before jest's report, so the document is found rather than assumed to be the whole stream.
    """
    decoder = json.JSONDecoder()
    position = 0
    for attempt, match in enumerate(_LINE_START_JSON.finditer(text)):
        if attempt >= _MAX_JSON_STARTS:
            return
        start = match.start(1)
        if match.group(1) != opener or start < position:
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # truncated, not JSON, or absurdly nested
            continue
        yield _Json(value, start, end)
        position = end


@dataclass(frozen=True)
class _Found:
    document: _Json
    text: str  # the stream it was found in, cleaned
    other: str  # the other stream, cleaned


def _find_json(output: ToolOutput, opener: str, accept: Callable[[Any], bool]) -> _Found | None:
    """The first document `accept` recognises, from stdout and then stderr."""
    stdout, stderr = _clean(output.stdout), _clean(output.stderr)
    for text, other in ((stdout, stderr), (stderr, stdout)):
        for document in _json_documents(text, opener):
            if accept(document.value):
                return _Found(document, text, other)
    return None


# --------------------------------------------------------------------------------------------------
# eslint


def _is_eslint_report(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict) and "filePath" in item and isinstance(item.get("messages"), list) for item in value
    )


def parse_eslint(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """eslint's `--format json`: one object per linted file, its messages with 1-based positions.

        [{"filePath":"/w/src/util.js","messages":[
            {"ruleId":"eqeqeq","severity":2,"message":"Expected '===' and instead saw '=='.",
             "line":4,"column":12,"endLine":4,"endColumn":14},
            {"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token ;",
             "line":5,"column":28}], "errorCount":2, ...}]

    Severity 2 is an error, 1 a warning. A fatal message (the file does not parse) has no rule.
    eslint exits 0 clean, 1 with findings, 2 when it failed (bad config, crash: no JSON is printed then).
    """
    found = _find_json(output, "[", _is_eslint_report)
    if found is None:
        return ParseResult(recognized=False)
    return ParseResult(issues=_eslint_issues(found.document.value, ctx), recognized=True)


def _is_ignored_notice(message: Mapping[str, Any]) -> bool:
    """eslint's note for a file named on its command line that its config ignores ("File ignored because of
    a matching ignore pattern…", "File ignored by default…"): not a finding, and `eslint .` never says it."""
    text = str(message.get("message") or "")
    return message.get("ruleId") is None and not message.get("fatal") and text.startswith("File ignored")


def _eslint_issues(report: Sequence[Mapping[str, Any]], ctx: ParseContext) -> list[Issue]:
    issues: list[Issue] = []
    for result in report:
        file = ctx.relpath(str(result["filePath"]))
        for message in result["messages"]:
            if not isinstance(message, dict):
                continue
            fatal = bool(message.get("fatal"))
            rule = message.get("ruleId")
            if _is_ignored_notice(message):
                continue
            issues.append(
                make_issue(
                    kind="lint",
                    message=str(message.get("message") or ""),
                    source="eslint",
                    severity="error" if fatal else _eslint_severity(message.get("severity")),
                    file=file,
                    line=_int(message.get("line")),
                    column=_int(message.get("column")),
                    end_line=_int(message.get("endLine")),
                    end_column=_int(message.get("endColumn")),
                    rule=str(rule) if isinstance(rule, str) and not fatal else None,
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
    text = _both_streams(output)
    issues = list(_compact_issues(text, ctx))
    recognized = bool(issues) or _clean_exit(output, text) or any(_PROBLEMS.match(line) for line in text.splitlines())
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
    text = _both_streams(output)
    issues = list(_tsc_issues(text, ctx))
    return ParseResult(issues=issues, recognized=bool(issues) or _clean_exit(output, text))


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


def _clean_exit(output: ToolOutput, text: str) -> bool:
    """Silence with exit 0 is how these tools say 'nothing found'."""
    return output.exit_code == 0 and not _meaningful(text)


def _meaningful(text: str) -> bool:
    """Whether text holds more than package-manager chatter (npm's config warnings, yarn's banner)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("npm warn", "npm WARN", "yarn run v", "Done in ")):
            continue
        if stripped.startswith("$ ") or stripped.startswith("> "):
            continue
        return True
    return False


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
    text = _both_streams(output)
    issues: list[Issue] = []
    started = False
    for line in text.splitlines():
        line = line.rstrip()
        if _PRETTIER_SUMMARY.match(line):
            started = True
            continue
        warn = _PRETTIER_WARN.match(line)
        if warn and not _PRETTIER_SUMMARY.match(warn.group("file")):
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
                    line=_int(error.group("line")),
                    column=_int(error.group("col")),
                )
            )
    if output.exit_code == 0:
        recognized = started and not issues
    elif output.exit_code == 1:
        recognized = bool(issues)
    elif output.exit_code is None:
        recognized = started or bool(issues)
    else:
        recognized = any(issue.severity == "error" for issue in issues)
    return ParseResult(issues=issues, recognized=recognized)


# --------------------------------------------------------------------------------------------------
# jest and vitest JSON reports

# A stack frame's location: `at fn (/w/src/a.test.js:9:31)`, `at /w/a.test.js:10:31`, `(file:///w/a.js:9:11)`.
_FRAME = re.compile(r"(?:^|[\s(])(?P<file>(?:file://)?[^\s()]+?):(?P<line>\d+):(?P<col>\d+)\)?\s*$", re.MULTILINE)
_STACK_LINE = re.compile(r"^\s+at\s")
# jest's code frame (`>  9 |     expect(...)`, `    |     ^`) inside suite errors.
_CODE_FRAME = re.compile(r"^\s*>?\s*\d*\s+\|")


def _is_jest_report(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("testResults"), list)
        and ("numFailedTests" in value or "success" in value)
    )


def parse_jest(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """jest's `--json` report (best with `--testLocationInResults`), printed on stdout:

        {"success":false,"numFailedTests":1,"testResults":[{"name":"/w/src/cart.test.js","status":"failed",
          "message":"  ● discount › takes ...","assertionResults":[{"ancestorTitles":["discount"],
          "title":"takes the percentage off","status":"failed","location":{"line":8,"column":3},
          "failureMessages":["Error: expect(received).toBe(expected) ...\\n    at Object.toBe
          (/w/src/cart.test.js:9:31)\\n ..."]}]}]}

    A failure's line is the stack frame in the test file (the failing assertion), else the test's own
    location. A suite that failed to run (an import error) has no assertions, only its message.
    """
    return _parse_test_report(output, ctx, "jest")


def parse_vitest(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """vitest's `--reporter=json`, jest's shape with vitest's stack frames (`at /w/src/cart.test.js:10:31`).

        {"success":false,"testResults":[{"name":"/w/src/cart.test.js","status":"failed","message":"",
          "assertionResults":[{"ancestorTitles":["discount"],"title":"takes the percentage off",
          "status":"failed","failureMessages":["AssertionError: expected 181 to be 180 ..."]}]}]}

    Without `--includeTaskLocation` there is no `location`: the line comes from the stack only.
    """
    return _parse_test_report(output, ctx, "vitest")


def _parse_test_report(output: ToolOutput, ctx: ParseContext, source: str) -> ParseResult:
    found = _find_json(output, "{", _is_jest_report)
    if found is None:
        return ParseResult(recognized=False)
    return _test_report_result(found.document.value, output, ctx, source)


def _jest_or_vitest(report: Mapping[str, Any]) -> str:
    # Only jest reports open handles and runtime-error suites; vitest's imitation leaves them out.
    return "jest" if "openHandles" in report or "numRuntimeErrorTestSuites" in report else "vitest"


def _test_report_result(report: Mapping[str, Any], output: ToolOutput, ctx: ParseContext, source: str) -> ParseResult:
    failures: list[TestFailure] = []
    for suite in report["testResults"]:
        if isinstance(suite, dict):
            failures.extend(_suite_failures(suite, ctx))
    issues = [_failure_issue(failure, source) for failure in failures]
    # A failed run must be explained by a failure; a passing report with a failing exit (coverage
    # thresholds, open handles) is not something lintel can show, so it is not understood.
    recognized = bool(failures) or output.exit_code in (0, None) or report.get("success") is True
    return ParseResult(issues=issues, failures=failures, recognized=recognized)


def _suite_failures(suite: Mapping[str, Any], ctx: ParseContext) -> list[TestFailure]:
    name = suite.get("name")
    file = ctx.relpath(name) if isinstance(name, str) and name else None
    failures: list[TestFailure] = []
    assertions = suite.get("assertionResults")
    for assertion in assertions if isinstance(assertions, list) else []:
        if not isinstance(assertion, dict) or assertion.get("status") != "failed":
            continue
        raw = assertion.get("failureMessages")
        messages = [_clean(str(m)) for m in raw] if isinstance(raw, list) else []
        full = "\n\n".join(messages)
        location = assertion.get("location")
        fallback = _int(location.get("line")) if isinstance(location, dict) else None
        failures.append(
            TestFailure(
                name=_test_name(assertion),
                message=_without_stack(full) or "test failed",
                file=file,
                line=_frame_line(full, file, ctx) or fallback,
                output=full or None,
            )
        )
    message = _clean(str(suite.get("message") or suite.get("testExecError") or ""))
    if not failures and suite.get("status") == "failed" and message.strip():
        failures.append(
            TestFailure(
                name=file or "test suite",
                message=_suite_message(message) or "test suite failed to run",
                file=file,
                line=_frame_line(message, file, ctx),
                output=message.strip(),
            )
        )
    return failures


def _test_name(assertion: Mapping[str, Any]) -> str:
    ancestors = assertion.get("ancestorTitles")
    parts = [str(a) for a in ancestors] if isinstance(ancestors, list) else []
    title = assertion.get("title") or assertion.get("fullName") or "test"
    return _NAME_SEPARATOR.join([*parts, str(title)])


def _frame_line(text: str, file: str | None, ctx: ParseContext) -> int | None:
    """The line of the first stack frame inside `file` (jest prints absolute and root-relative paths)."""
    if file is None:
        return None
    for match in _FRAME.finditer(text):
        if ctx.relpath(match.group("file")) == file:
            return int(match.group("line"))
    return None


def _without_stack(text: str) -> str:
    lines = [line for line in text.splitlines() if not _STACK_LINE.match(line)]
    return _squeeze("\n".join(lines))


def _suite_message(text: str) -> str:
    """jest's suite error without its bullet header, code frame and stack."""
    kept: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("●") or _STACK_LINE.match(line) or _CODE_FRAME.match(line):
            continue
        kept.append(stripped)
    return _squeeze("\n".join(kept))


def _squeeze(text: str) -> str:
    """Strip the ends and collapse runs of blank lines, capping the length."""
    squeezed = re.sub(r"\n\s*\n+", "\n\n", text.strip())
    return squeezed[:_MAX_MESSAGE]


def _failure_issue(failure: TestFailure, source: str) -> Issue:
    return make_issue(
        kind="test",
        message=f"{failure.name} failed: {_one_line(failure.message)}",
        source=source,
        severity="error",
        file=failure.file,
        line=failure.line,
    )


# --------------------------------------------------------------------------------------------------
# node --test (TAP)

_TAP_VERSION = re.compile(r"^TAP version \d+")
_TAP_POINT = re.compile(r"^(?P<indent> *)(?P<status>ok|not ok)\b(?: (?P<number>\d+))?(?: -)? ?(?P<description>.*)$")
_TAP_PLAN = re.compile(r"^ *\d+\.\.\d+")
_TAP_SUBTEST = re.compile(r"^(?P<indent> *)# Subtest: (?P<name>.*)$")
_TAP_COMMENT = re.compile(r"^ *# ?(?P<text>.*)$")
_TAP_SUMMARY = re.compile(r"^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$")
_TAP_DIRECTIVE = re.compile(r"\s+#\s*(?P<word>TODO|SKIP)\b.*$", re.IGNORECASE)
_YAML_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):(?: (?P<value>.*))?$")
_ERROR_LINE = re.compile(r"^(?:\w+)?Error\b.*:")
_LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?$")


def parse_node_tap(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """node's test runner with `--test-reporter=tap` (the default reporter when stdout is not a TTY in node 20).

        # Subtest: cart
            # Subtest: takes the percentage off
            not ok 1 - takes the percentage off
              ---
              location: '/w/ui/cart.test.js:16:5'
              failureType: 'testCodeFailure'
              error: |-
                10% off 200 is 180

                181 !== 180
              stack: |-
                TestContext.<anonymous> (file:///w/ui/cart.test.js:17:14)
              ...
            1..1
        not ok 1 - cart
          ---
          failureType: 'subtestsFailed'
          ...

    Subtests are indented four spaces per level; a parent whose only failure is its failing children is
    not reported again, nor is a failing `# TODO` test. A failure's line is the first stack frame in the
    test's file (the assertion that failed), else the test's `location`. A file that fails to load is one
    failure named after the file, with the error node printed as `#` comments before it.
    """
    text = _clean(output.stdout)
    lines = text.splitlines()
    failures: list[TestFailure] = []
    names: dict[int, str] = {}
    child_failed: dict[int, bool] = {}
    comments: list[str] = []
    recognized = False
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if _TAP_VERSION.match(line) or _TAP_PLAN.match(line):
            recognized = True
            continue
        subtest = _TAP_SUBTEST.match(line)
        if subtest:
            depth = len(subtest.group("indent"))
            names = {d: n for d, n in names.items() if d < depth}
            names[depth] = _tap_unescape(subtest.group("name"))
            continue
        point = _TAP_POINT.match(line)
        if point is None:
            comment = _TAP_COMMENT.match(line)
            if comment and not _TAP_SUMMARY.match(comment.group("text")):
                comments.append(comment.group("text"))
            continue
        recognized = True
        depth = len(point.group("indent"))
        yaml, index = _tap_yaml(lines, index, depth)
        had_failing_children = child_failed.pop(depth, False)
        description = point.group("description")
        directive = _TAP_DIRECTIVE.search(description)
        if directive:
            description = description[: directive.start()]
        if point.group("status") == "ok" or (directive and directive.group("word").upper() == "TODO"):
            comments = []
            continue
        # node says why a test failed; other producers only nest, so a parent of failures is theirs.
        failure_type = yaml.get("failureType")
        if failure_type == "subtestsFailed" or (failure_type is None and had_failing_children):
            comments = []
            continue
        ancestors = [names[d] for d in sorted(names) if d < depth]
        own = _tap_unescape(description.strip()) or "test"
        if own.startswith("/"):  # a file that failed as a whole is named by its absolute path
            own = ctx.relpath(own)
        name = _NAME_SEPARATOR.join([*ancestors, own])
        failures.append(_tap_failure(name, yaml, comments, ctx))
        comments = []
        for level in range(depth):
            child_failed[level] = True
    issues = [_failure_issue(failure, "node --test") for failure in failures]
    if output.exit_code not in (0, None) and not failures:
        recognized = False
    return ParseResult(issues=issues, failures=failures, recognized=recognized)


def _tap_unescape(text: str) -> str:
    return text.replace("\\#", "#").replace("\\\\", "\\")


def _tap_yaml(lines: list[str], index: int, depth: int) -> tuple[dict[str, str], int]:
    """The YAML diagnostics block after a test point (`---` ... `...`), as flat key -> text."""
    if index >= len(lines) or lines[index].strip() != "---":
        return {}, index
    body: list[str] = []
    index += 1
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.strip() == "..." and len(line) - len(line.lstrip(" ")) <= depth + 2:
            break
        body.append(line)
    return _flat_yaml(body), index


def _flat_yaml(body: list[str]) -> dict[str, str]:
    """Just enough YAML for node's diagnostics: top-level scalars, quoted scalars and `|`/`|-` blocks."""
    if not body:
        return {}
    base = min(len(line) - len(line.lstrip(" ")) for line in body if line.strip())
    out: dict[str, str] = {}
    index = 0
    while index < len(body):
        line = body[index]
        index += 1
        if len(line) - len(line.lstrip(" ")) != base:
            continue
        match = _YAML_KEY.match(line[base:])
        if not match:
            continue
        value = (match.group("value") or "").strip()
        if value[:1] in ("|", ">"):
            block: list[str] = []
            while index < len(body) and (
                not body[index].strip() or len(body[index]) - len(body[index].lstrip(" ")) > base
            ):
                block.append(body[index])
                index += 1
            indents = [len(b) - len(b.lstrip(" ")) for b in block if b.strip()]
            cut = min(indents) if indents else 0
            joined = "\n".join(b[cut:] for b in block)
            out[match.group("key")] = joined.rstrip() if value.endswith("-") else joined
        else:
            out[match.group("key")] = _yaml_scalar(value)
    return out


def _yaml_scalar(value: str) -> str:
    if value == "~":
        return ""
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value[1:-1]
        return decoded if isinstance(decoded, str) else value[1:-1]
    return value


def _tap_failure(name: str, yaml: Mapping[str, str], comments: list[str], ctx: ParseContext) -> TestFailure:
    file: str | None = None
    line: int | None = None
    location = _LOCATION.match(yaml.get("location", "").strip())
    if location:
        file = ctx.relpath(location.group("file"))
        line = int(location.group("line"))
    line = _frame_line(yaml.get("stack", ""), file, ctx) or line
    message = yaml.get("error", "").strip()
    details = "\n".join(f"{key}: {value}" for key, value in yaml.items() if key != "duration_ms")
    # A file that crashed before its tests ran says only 'test failed'; node printed the cause as comments.
    if "exitCode" in yaml and comments:
        cause = next((c.strip() for c in comments if _ERROR_LINE.match(c.strip())), None)
        message = cause or message
        details = "\n".join([*comments, details])
    return TestFailure(
        name=name,
        message=_squeeze(message) or "test failed",
        file=file,
        line=line,
        output=details or None,
    )


# --------------------------------------------------------------------------------------------------
# package.json scripts: whatever the script printed


def parse_node_test_auto(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """A `test` script's output: a jest or vitest JSON report if there is one, else node's TAP.

    A script is the project's own verdict: exit 0 is a pass even when its reporter is one lintel cannot
    read (mocha's spec reporter), while a failing exit must be explained by failures lintel found.
    """
    found = _find_json(output, "{", _is_jest_report)
    if found is not None:
        report = found.document.value
        return _test_report_result(report, output, ctx, _jest_or_vitest(report))
    mocha = _find_json(output, "{", is_mocha_report)
    if mocha is not None:
        failures = mocha_report_failures(mocha.document.value, ctx)
        recognized = bool(failures) or output.exit_code in (0, None)
        return ParseResult([_failure_issue(f, "mocha") for f in failures], failures, recognized=recognized)
    result = parse_node_tap(output, ctx)
    # A script that chains steps before its runner (`lint && build && vitest run`) gets no JSON reporter: the
    # runners' default output is read from the mixed stream.
    text = _both_streams(output)
    for source, failures in (
        ("vitest", vitest_failures(text, ctx)),
        ("jest", jest_failures(text, ctx)),
        ("mocha", mocha_spec_failures(text, ctx)),
        ("node --test", node_spec_failures(text, ctx)),
    ):
        result.failures.extend(failures)
        result.issues.extend(_failure_issue(failure, source) for failure in failures)
    if result.failures:
        result.recognized = True
    elif not result.recognized and _clean_exit(output, text):
        result.recognized = True  # a passing script that printed nothing but chatter
    return result


def parse_node_lint_auto(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """A `lint` or `typecheck` script's output: the JSON reports of eslint, oxlint and biome, and the text of
    tsc, eslint's compact and stylish formats, and the default output of oxlint, biome and xo.

    A script may chain tools (`eslint . && tsc`, `oxlint && biome lint`), so every format found is kept. Exit 0
    with nothing but package-manager chatter is a clean run; exit 0 with output in no known format is not
    recognised (the check reports it as passed, never clean); a failing exit needs findings.
    """
    issues: list[Issue] = []
    text = _both_streams(output)
    found_any = False
    for opener, accept, read in (
        ("[", _is_eslint_report, _eslint_issues),
        ("{", is_oxlint_report, oxlint_report_issues),
        ("{", is_biome_report, biome_report_issues),
    ):
        document = next((d for d in _json_documents(text, opener) if accept(d.value)), None)
        if document is None:
            continue
        found_any = True
        issues.extend(read(document.value, ctx))
        # The rest of the text may hold a chained tool's output.
        text = text[: document.start] + text[document.end :]
    issues.extend(_tsc_issues(text, ctx))
    issues.extend(_compact_issues(text, ctx))
    issues.extend(_stylish_issues(text, ctx))
    issues.extend(oxlint_text_issues(text, ctx))
    issues.extend(biome_text_issues(text, ctx))
    issues.extend(xo_text_issues(text, ctx))
    recognized = found_any or bool(issues) or _clean_exit(output, text)
    return ParseResult(issues=issues, recognized=recognized)
