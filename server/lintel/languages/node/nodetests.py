"""Parsers for the node ecosystem's test reports: jest's and vitest's JSON, and whatever a `test` script printed
(a JSON report, mocha's, node's TAP, or the runners' default reporters, read by `jstests`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lintel.core.issues import ParseContext, ParseResult, TestFailure
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.jscommon import (
    both_streams,
    clean_exit,
    failure_issue,
    find_json,
    frame_line,
    loose_int,
    script_text,
    squeeze,
)
from lintel.languages.parsers.jstests import (
    NAME_SEPARATOR,
    is_mocha_report,
    jest_failures,
    mocha_report_failures,
    mocha_spec_failures,
    mocha_tally,
    node_spec_failures,
    vitest_failures,
)
from lintel.languages.parsers.tap import parse_node_tap

# --------------------------------------------------------------------------------------------------
# jest and vitest JSON reports

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
    found = find_json(output, "{", _is_jest_report)
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
    issues = [failure_issue(failure, source) for failure in failures]
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
        messages = [script_text(str(m)) for m in raw] if isinstance(raw, list) else []
        full = "\n\n".join(messages)
        location = assertion.get("location")
        fallback = loose_int(location.get("line")) if isinstance(location, dict) else None
        failures.append(
            TestFailure(
                name=_test_name(assertion),
                message=_without_stack(full) or "test failed",
                file=file,
                line=frame_line(full, file, ctx) or fallback,
                output=full or None,
            )
        )
    message = script_text(str(suite.get("message") or suite.get("testExecError") or ""))
    if not failures and suite.get("status") == "failed" and message.strip():
        failures.append(
            TestFailure(
                name=file or "test suite",
                message=_suite_message(message) or "test suite failed to run",
                file=file,
                line=frame_line(message, file, ctx),
                output=message.strip(),
            )
        )
    return failures


def _test_name(assertion: Mapping[str, Any]) -> str:
    ancestors = assertion.get("ancestorTitles")
    parts = [str(a) for a in ancestors] if isinstance(ancestors, list) else []
    title = assertion.get("title") or assertion.get("fullName") or "test"
    return NAME_SEPARATOR.join([*parts, str(title)])


def _without_stack(text: str) -> str:
    lines = [line for line in text.splitlines() if not _STACK_LINE.match(line)]
    return squeeze("\n".join(lines))


def _suite_message(text: str) -> str:
    """jest's suite error without its bullet header, code frame and stack."""
    kept: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("●") or _STACK_LINE.match(line) or _CODE_FRAME.match(line):
            continue
        kept.append(stripped)
    return squeeze("\n".join(kept))


# --------------------------------------------------------------------------------------------------
# package.json scripts: whatever a test script printed


def parse_node_test_auto(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """A `test` script's output: a jest, vitest or mocha JSON report if there is one, else node's TAP and the
    runners' default reporters.

    A failing exit must be explained by failures lintel found; a passing one is understood when the output
    is only chatter or ends with a runner's tally (mocha's `3 passing` / `1 pending`): else it is a pass lintel
    could not read (`passed`).
    """
    found = find_json(output, "{", _is_jest_report)
    if found is not None:
        report = found.document.value
        return _test_report_result(report, output, ctx, _jest_or_vitest(report))
    mocha = find_json(output, "{", is_mocha_report)
    if mocha is not None:
        failures = mocha_report_failures(mocha.document.value, ctx)
        recognized = bool(failures) or output.exit_code in (0, None)
        return ParseResult([failure_issue(f, "mocha") for f in failures], failures, recognized=recognized)
    result = parse_node_tap(output, ctx)
    # A script that chains steps before its runner (`lint && build && vitest run`) gets no JSON reporter: the
    # runners' default output is read from the mixed stream.
    text = both_streams(output)
    for source, failures in (
        ("vitest", vitest_failures(text, ctx)),
        ("jest", jest_failures(text, ctx)),
        ("mocha", mocha_spec_failures(text, ctx)),
        ("node --test", node_spec_failures(text, ctx)),
    ):
        result.failures.extend(failures)
        result.issues.extend(failure_issue(failure, source) for failure in failures)
    if result.failures:
        result.recognized = True
    elif not result.recognized and clean_exit(output, text):
        result.recognized = True  # a passing script that printed nothing but chatter
    elif not result.recognized and output.exit_code == 0:
        # mocha's spec reporter on a passing run: its tally says what ran (pending tests are not failures).
        tally = mocha_tally(text)
        result.recognized = tally is not None and tally.failing == 0
    return result
