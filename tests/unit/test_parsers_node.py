"""The node parsers against output captured from the real eslint 9.39, tsc 5.9, prettier 3.10, node 20's
test runner, jest 30 and vitest 3.2.

Captures live in tests/captures/{eslint,eslint-compact,eslint-stylish,tsc,prettier,node-test,jest,vitest}/;
`node-*` cases ran on tests/workspaces/node, `polyglot-*` on tests/workspaces/polyglot (its yarn 1 scripts),
the rest in scratch projects under /tmp described in tests/captures/README.md.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.issues import Issue, ParseContext
from lintel.languages.node.nodetests import parse_jest, parse_node_test_auto, parse_vitest
from lintel.languages.node.parsers import (
    PRETTIER_MESSAGE,
    parse_eslint,
    parse_eslint_compact,
    parse_node_lint_auto,
    parse_prettier_check,
    parse_tsc,
)
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.tap import parse_node_tap, parse_tap

from tests.helpers import load_capture, truncated_capture

CTX = ParseContext(cwd="/ws", root="/ws")

# What eslint reports on tests/workspaces/node: (file, line, rule).
ESLINT_FIXTURE = Counter(
    {
        ("src/api.ts", 21, "@typescript-eslint/no-unused-vars"): 1,
        ("src/api.ts", 36, "eqeqeq"): 1,
        ("src/util.js", 4, "eqeqeq"): 1,
        ("src/util.js", 8, "prefer-const"): 1,
        ("src/util.js", 9, "no-unused-vars"): 1,
        ("src/util.js", 10, "no-console"): 1,
        ("src/util.js", 11, "no-undef"): 1,
    }
)
TSC_FIXTURE = Counter(
    {("src/api.ts", 26, "TS2322"): 1, ("src/api.ts", 31, "TS2741"): 1, ("src/api.ts", 47, "TS2322"): 1}
)


def keys(issues: list[Issue]) -> Counter[tuple[str | None, int | None, str | None]]:
    return Counter((i.file, i.line, i.rule) for i in issues)


def at(issues: list[Issue], file: str, line: int) -> Issue:
    [issue] = [i for i in issues if i.file == file and i.line == line]
    return issue


# --- eslint ---------------------------------------------------------------------------------------


def test_eslint_json_fixture_findings() -> None:
    output, ctx, meta = load_capture("eslint", "node-findings")
    assert meta["exit_code"] == 1
    result = parse_eslint(output, ctx)
    assert result.recognized
    assert keys(result.issues) == ESLINT_FIXTURE
    assert {i.kind for i in result.issues} == {"lint"}
    assert {i.source for i in result.issues} == {"eslint"}
    assert Counter(i.severity for i in result.issues) == Counter({"error": 6, "warning": 1})
    assert at(result.issues, "src/util.js", 10).severity == "warning"  # no-console is "warn" (1)


def test_eslint_json_positions_and_messages() -> None:
    output, ctx, _ = load_capture("eslint", "node-findings")
    issue = at(parse_eslint(output, ctx).issues, "src/util.js", 4)
    assert (issue.line, issue.column, issue.end_line, issue.end_column) == (4, 12, 4, 14)
    assert issue.message == "Expected '===' and instead saw '=='."
    assert issue.signature == "lint:src/util.js:4:Expected '===' and instead saw '=='."
    undefined = at(parse_eslint(output, ctx).issues, "src/util.js", 11)
    assert undefined.message == "'missingSuffix' is not defined."


def test_eslint_json_clean_run() -> None:
    output, ctx, meta = load_capture("eslint", "node-clean")
    assert meta["exit_code"] == 0
    result = parse_eslint(output, ctx)
    assert result.recognized
    assert result.issues == []


def test_eslint_fatal_parse_error_has_no_rule() -> None:
    output, ctx, meta = load_capture("eslint", "parse-error")
    assert meta["exit_code"] == 1
    result = parse_eslint(output, ctx)
    assert result.recognized
    assert keys(result.issues) == Counter({("bad.js", 5, None): 1, ("good.js", 2, "eqeqeq"): 1})
    fatal = at(result.issues, "bad.js", 5)
    assert fatal.severity == "error"
    assert fatal.message == "Parsing error: Unexpected token ;"
    assert fatal.column == 28


def test_eslint_config_error_is_not_recognized() -> None:
    output, ctx, meta = load_capture("eslint", "config-error")
    assert meta["exit_code"] == 2
    assert "Oops! Something went wrong" in output.stdout + output.stderr
    result = parse_eslint(output, ctx)
    assert not result.recognized
    assert result.issues == []
    assert not parse_node_lint_auto(output, ctx).recognized


def test_eslint_json_after_npm_banner() -> None:
    output, ctx, _ = load_capture("eslint", "polyglot-npm-banner")
    assert output.stdout.lstrip().startswith("> lintel-fixture-polyglot-ui")
    for parse in (parse_eslint, parse_node_lint_auto):
        result = parse(output, ctx)
        assert result.recognized
        assert keys(result.issues) == Counter({("ui/cart.js", 8, "eqeqeq"): 1})


def test_eslint_json_through_yarn_script() -> None:
    output, ctx, meta = load_capture("eslint", "polyglot-yarn-script")
    assert meta["command"][:4] == ["yarn", "-s", "run", "lint"]
    result = parse_node_lint_auto(output, ctx)
    assert result.recognized
    assert keys(result.issues) == Counter({("ui/cart.js", 8, "eqeqeq"): 1})
    assert result.issues[0].kind == "lint"


def test_eslint_compact_matches_json() -> None:
    output, ctx, meta = load_capture("eslint-compact", "node-findings")
    assert meta["exit_code"] == 1
    result = parse_eslint_compact(output, ctx)
    assert result.recognized
    assert keys(result.issues) == ESLINT_FIXTURE
    json_issues = parse_eslint(*load_capture("eslint", "node-findings")[:2]).issues
    as_json = {(i.file, i.line, i.column, i.rule, i.severity, i.message) for i in json_issues}
    assert {(i.file, i.line, i.column, i.rule, i.severity, i.message) for i in result.issues} == as_json
    # lint-auto reads compact too
    assert keys(parse_node_lint_auto(output, ctx).issues) == ESLINT_FIXTURE


def test_eslint_compact_fatal_line_without_rule() -> None:
    text = "/ws/bad.js: line 5, col 28, Error - Parsing error: Unexpected token ;\n\n1 problem\n"
    result = parse_eslint_compact(ToolOutput(text, "", 1), CTX)
    assert result.recognized
    [issue] = result.issues
    assert (issue.file, issue.line, issue.column, issue.rule) == ("bad.js", 5, 28, None)


def test_eslint_stylish_through_lint_auto() -> None:
    output, ctx, meta = load_capture("eslint-stylish", "node-findings")
    assert meta["exit_code"] == 1
    result = parse_node_lint_auto(output, ctx)
    assert result.recognized
    assert keys(result.issues) == ESLINT_FIXTURE
    assert at(result.issues, "src/util.js", 10).severity == "warning"
    # stylish drops the trailing period eslint's messages have in JSON
    assert at(result.issues, "src/util.js", 8).message == "'prefix' is never reassigned. Use 'const' instead"


# --- tsc ------------------------------------------------------------------------------------------


def test_tsc_fixture_errors() -> None:
    output, ctx, meta = load_capture("tsc", "node-errors")
    assert meta["exit_code"] == 2  # tsc --noEmit exits 2 with errors
    result = parse_tsc(output, ctx)
    assert result.recognized
    assert keys(result.issues) == TSC_FIXTURE
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("typecheck", "tsc", "error")}
    first = at(result.issues, "src/api.ts", 26)
    assert first.column == 9
    assert first.message == "Type 'string' is not assignable to type 'number'."
    assert first.signature == "typecheck:src/api.ts:26:Type 'string' is not assignable to type 'number'."


def test_tsc_continuation_lines_join_the_message() -> None:
    output, ctx, _ = load_capture("tsc", "node-errors")
    chained = at(parse_tsc(output, ctx).issues, "src/api.ts", 47)
    assert chained.message == (
        "Type 'Page<string>' is not assignable to type 'Page<User>'.\n  Type 'string' is not assignable to type 'User'."
    )


def test_tsc_pretty_format_matches_plain() -> None:
    output, ctx, _ = load_capture("tsc", "node-pretty")
    assert "\x1b[" in output.stdout
    pretty = parse_tsc(output, ctx)
    plain = parse_tsc(*load_capture("tsc", "node-errors")[:2])
    assert pretty.recognized
    assert [(i.file, i.line, i.column, i.rule, i.message) for i in pretty.issues] == [
        (i.file, i.line, i.column, i.rule, i.message) for i in plain.issues
    ]


def test_tsc_clean_run() -> None:
    output, ctx, meta = load_capture("tsc", "clean")
    assert meta["exit_code"] == 0
    result = parse_tsc(output, ctx)
    assert result.recognized
    assert result.issues == []


def test_tsc_config_error_is_a_finding_in_tsconfig() -> None:
    output, ctx, meta = load_capture("tsc", "config-error")
    assert meta["exit_code"] == 2
    result = parse_tsc(output, ctx)
    assert result.recognized
    assert keys(result.issues) == Counter({("a.ts", 1, "TS2322"): 1, ("tsconfig.json", 1, "TS5023"): 1})


def test_tsc_error_without_location() -> None:
    output, ctx, meta = load_capture("tsc", "no-inputs")
    assert meta["exit_code"] == 2
    result = parse_tsc(output, ctx)
    assert result.recognized
    [issue] = result.issues
    assert (issue.file, issue.line, issue.rule) == (None, None, "TS18003")
    assert issue.message.startswith("No inputs were found in config file")
    assert issue.signature.startswith("custom:")  # no file and no line (CONTRACT §3)


def test_tsc_without_tsconfig_prints_help_and_is_not_recognized() -> None:
    output, ctx, meta = load_capture("tsc", "no-tsconfig")
    assert meta["exit_code"] == 1
    assert "Version 5" in output.stdout
    result = parse_tsc(output, ctx)
    assert not result.recognized
    assert result.issues == []


def test_tsc_through_yarn_script() -> None:
    output, ctx, meta = load_capture("tsc", "polyglot-yarn-script")
    assert meta["exit_code"] == 2  # yarn 1 passes tsc's exit code through
    for parse in (parse_tsc, parse_node_lint_auto):
        result = parse(output, ctx)
        assert result.recognized
        assert keys(result.issues) == Counter({("ui/price.ts", 9, "TS2322"): 1})
        assert result.issues[0].kind == "typecheck"


# --- prettier -------------------------------------------------------------------------------------


def test_prettier_check_fixture() -> None:
    output, ctx, meta = load_capture("prettier", "node-check")
    assert meta["exit_code"] == 1
    result = parse_prettier_check(output, ctx)
    assert result.recognized
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.severity, issue.source) == (
        "format",
        "src/messy.js",
        None,
        "warning",
        "prettier",
    )
    assert issue.message == PRETTIER_MESSAGE


def test_prettier_syntax_error_is_located() -> None:
    output, ctx, meta = load_capture("prettier", "syntax-error")
    assert meta["exit_code"] == 2
    result = parse_prettier_check(output, ctx)
    assert result.recognized
    assert keys(result.issues) == Counter({("broken.js", 1, None): 1, ("ugly.js", None, None): 1})
    broken = at(result.issues, "broken.js", 1)
    assert (broken.column, broken.severity, broken.message) == (14, "error", "SyntaxError: Unexpected token")


def test_prettier_clean() -> None:
    output, ctx, meta = load_capture("prettier", "clean")
    assert meta["exit_code"] == 0
    result = parse_prettier_check(output, ctx)
    assert result.recognized
    assert result.issues == []


def test_prettier_failure_without_a_file_is_not_recognized() -> None:
    text = '[error] No files matching the pattern were found: "nothing/**".\n'
    assert not parse_prettier_check(ToolOutput("Checking formatting...\n", text, 2), CTX).recognized


# --- node --test (TAP) ----------------------------------------------------------------------------


def test_node_tap_fixture_failure() -> None:
    output, ctx, meta = load_capture("node-test", "node-tap")
    assert meta["exit_code"] == 1
    result = parse_node_tap(output, ctx)
    assert result.recognized
    [failure] = result.failures
    assert failure.name == "multiply multiplies two numbers"
    # the assertion's line from the stack; the test's own `location` is line 10
    assert (failure.file, failure.line) == ("src/math.test.js", 11)
    assert failure.message == "multiply(3, 4) should be 12\n\n13 !== 12"
    [issue] = result.issues
    assert (issue.kind, issue.source, issue.severity, issue.file, issue.line) == (
        "test",
        "node --test",
        "error",
        "src/math.test.js",
        11,
    )
    assert issue.message == "multiply multiplies two numbers failed: multiply(3, 4) should be 12 13 !== 12"


def test_node_tap_through_npm_test() -> None:
    output, ctx, meta = load_capture("node-test", "node-npm-test")
    assert meta["command"] == ["npm", "test", "--silent"]
    result = parse_node_test_auto(output, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == [
        ("multiply multiplies two numbers", "src/math.test.js", 11)
    ]


def test_node_tap_nested_failure_through_yarn() -> None:
    output, ctx, meta = load_capture("node-test", "polyglot-yarn-script")
    assert meta["exit_code"] == 1
    result = parse_node_test_auto(output, ctx)
    assert result.recognized
    # its two parents (`discounts`, `cart`) fail only because of it and are not reported again
    [failure] = result.failures
    assert failure.name == "cart > discounts > takes the percentage off"
    assert (failure.file, failure.line) == ("ui/cart.test.js", 17)
    assert failure.message.startswith("10% off 200 is 180")
    assert len(result.issues) == 1


def test_node_tap_subtests_load_errors_skip_and_todo() -> None:
    output, ctx, meta = load_capture("node-test", "scratch-subtests")
    assert meta["exit_code"] == 1
    result = parse_node_tap(output, ctx)
    assert result.recognized
    by_name = {f.name: f for f in result.failures}
    assert set(by_name) == {"broken.test.js", "parent with subtests > child throws"}
    broken = by_name["broken.test.js"]
    assert (broken.file, broken.line) == ("broken.test.js", 1)
    assert broken.message.startswith("Error [ERR_MODULE_NOT_FOUND]: Cannot find module")
    assert broken.output is not None
    assert "node:internal/modules/esm/resolve" in broken.output
    child = by_name["parent with subtests > child throws"]
    assert (child.file, child.line) == ("sub.test.js", 9)  # the throw, not the t.test() call on line 8
    assert child.message == "boom: something broke\nsecond line"


def test_tap_without_node_failure_types_skips_parents_of_failures() -> None:
    text = (
        "TAP version 13\n"
        "    not ok 1 - inner\n"
        "      ---\n"
        "      error: 'boom'\n"
        "      ...\n"
        "    1..1\n"
        "not ok 1 - outer\n"
        "ok 2 - other \\# with hash\n"
        "not ok 3 - plain \\# fails # TODO later\n"
        "1..3\n"
    )
    result = parse_node_tap(ToolOutput(text, "", 1), CTX)
    assert result.recognized
    # without node's `# Subtest:` comments the parent's name is only known after its children
    assert [(f.name, f.message) for f in result.failures] == [("inner", "boom")]


def test_tap_failing_exit_without_failures_is_not_recognized() -> None:
    text = "TAP version 13\nok 1 - fine\n1..1\n"
    assert parse_node_tap(ToolOutput(text, "", 0), CTX).recognized
    assert not parse_node_tap(ToolOutput(text, "", 1), CTX).recognized


# --- jest and vitest ------------------------------------------------------------------------------

JEST_FAILURES = [
    ("discount > takes the percentage off", "src/cart.test.js", 9),
    ("discount > edge cases > zero percent keeps the total", "src/cart.test.js", 14),
    ("parse reads JSON", "src/cart.test.js", 20),
    ("src/broken.test.js", "src/broken.test.js", 1),
]
VITEST_FAILURES = [
    ("src/broken.test.js", "src/broken.test.js", None),
    ("discount > takes the percentage off", "src/cart.test.js", 10),
    ("discount > edge cases > zero percent keeps the total", "src/cart.test.js", 15),
    ("parse reads JSON", "src/cart.test.js", 21),
]


def test_jest_failures_with_file_and_line() -> None:
    output, ctx, meta = load_capture("jest", "scratch-failures")
    assert meta["exit_code"] == 1
    result = parse_jest(output, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == JEST_FAILURES
    assert [(i.file, i.line) for i in result.issues] == [(f, line) for _, f, line in JEST_FAILURES]
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("test", "jest", "error")}
    first = result.failures[0]
    assert first.message == (
        "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 180\nReceived: 181"
    )
    assert first.output is not None
    assert "cart.test.js:9:31" in first.output
    # a thrown error deep in the code under test still points at the test file's line
    assert result.failures[2].message == "SyntaxError: Expected property name or '}' in JSON at position 1"
    suite = result.failures[3]
    assert suite.message == "Cannot find module './does-not-exist' from 'src/broken.test.js'"


def test_vitest_failures_with_file_and_line() -> None:
    output, ctx, meta = load_capture("vitest", "scratch-failures")
    assert meta["exit_code"] == 1
    result = parse_vitest(output, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == VITEST_FAILURES
    assert {(i.kind, i.source) for i in result.issues} == {("test", "vitest")}
    assert result.failures[1].message == "AssertionError: expected 181 to be 180 // Object.is equality"
    assert result.failures[0].message.startswith("Cannot find module './does-not-exist.js'")


@pytest.mark.parametrize(("tool", "expected"), [("jest", JEST_FAILURES), ("vitest", VITEST_FAILURES)])
def test_test_auto_tells_jest_from_vitest(tool: str, expected: list[tuple[str, str, int | None]]) -> None:
    output, ctx, _ = load_capture(tool, "scratch-failures")
    result = parse_node_test_auto(output, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == expected
    assert {i.source for i in result.issues} == {tool}


def test_jest_report_after_other_stdout() -> None:
    output, ctx, _ = load_capture("jest", "scratch-failures")
    noisy = ToolOutput("console.log from a test {not json}\n[1/4] stuff\n" + output.stdout, "", 1)
    result = parse_jest(noisy, ctx)
    assert result.recognized
    assert len(result.failures) == 4


def test_jest_location_is_the_fallback_line() -> None:
    report = {
        "success": False,
        "numFailedTests": 1,
        "testResults": [
            {
                "name": "/ws/a.test.js",
                "status": "failed",
                "message": "",
                "assertionResults": [
                    {
                        "ancestorTitles": [],
                        "title": "t",
                        "status": "failed",
                        "location": {"line": 7, "column": 1},
                        "failureMessages": ["Error: boom\n    at helper (/ws/other.js:3:9)"],
                    }
                ],
            }
        ],
    }
    result = parse_jest(ToolOutput(json.dumps(report), "", 1), CTX)
    [failure] = result.failures
    assert (failure.file, failure.line, failure.message) == ("a.test.js", 7, "Error: boom")


def test_passing_report_with_failing_exit_is_not_recognized() -> None:
    report = {"success": False, "numFailedTests": 0, "testResults": []}
    assert not parse_jest(ToolOutput(json.dumps(report), "", 1), CTX).recognized
    assert parse_jest(ToolOutput(json.dumps(report), "", 0), CTX).recognized


# --- auto parsers and the registry ----------------------------------------------------------------


def test_script_exit_zero_in_an_unknown_format_is_not_taken_for_clean() -> None:
    """The script's exit 0 is its pass, but output lintel cannot read may hold warnings: not recognised, so the
    check reports `passed` (output not parsed), never `clean` (CONTRACT §8)."""
    out = ToolOutput("3 tests passed\n", "", 0)
    assert not parse_node_test_auto(out, CTX).recognized
    # mocha's tally is read (tests/unit/test_parsers_jstests.py): all passing, none failing, is clean.
    assert parse_node_test_auto(ToolOutput("  3 passing (12ms)\n", "", 0), CTX).recognized
    assert not parse_node_lint_auto(ToolOutput("all good\n", "", 0), CTX).recognized
    chatter = ToolOutput("", 'npm warn Unknown user config "nodedir".\n', 0)
    assert parse_node_test_auto(chatter, CTX).recognized  # nothing but the package manager's chatter: clean
    assert parse_node_lint_auto(chatter, CTX).recognized
    assert not parse_node_test_auto(ToolOutput("  1 failing\n", "", 1), CTX).recognized
    assert not parse_node_lint_auto(ToolOutput("something broke\n", "", 1), CTX).recognized


def test_lint_auto_keeps_eslint_json_and_chained_tsc() -> None:
    eslint_out, _, _ = load_capture("eslint", "node-findings")
    tsc_out, _, _ = load_capture("tsc", "node-errors")
    ctx = ParseContext(cwd="/work/main/tests/workspaces/node", root="/work/main/tests/workspaces/node")
    combined = ToolOutput(eslint_out.stdout + "\n" + tsc_out.stdout, "", 2)
    result = parse_node_lint_auto(combined, ctx)
    assert result.recognized
    assert keys(result.issues) == ESLINT_FIXTURE + TSC_FIXTURE


@pytest.mark.parametrize(
    ("name", "func"),
    [
        ("eslint", parse_eslint),
        ("eslint-compact", parse_eslint_compact),
        ("tsc", parse_tsc),
        ("jest", parse_jest),
        ("vitest", parse_vitest),
        ("node-test", parse_node_tap),
        ("tap", parse_tap),
        ("node-test-auto", parse_node_test_auto),
        ("node-lint-auto", parse_node_lint_auto),
        ("prettier", parse_prettier_check),
    ],
)
def test_registry_names(name: str, func: object) -> None:
    assert get_parser(name).__wrapped__ is func  # type: ignore[attr-defined]


# --- robustness -----------------------------------------------------------------------------------

PARSERS = [
    parse_eslint,
    parse_eslint_compact,
    parse_tsc,
    parse_prettier_check,
    parse_jest,
    parse_vitest,
    parse_node_tap,
    parse_node_test_auto,
    parse_node_lint_auto,
]
CAPTURES = [
    ("eslint", "node-findings"),
    ("eslint", "parse-error"),
    ("eslint", "polyglot-npm-banner"),
    ("eslint", "fix-node-findings"),
    ("eslint-compact", "node-findings"),
    ("eslint-stylish", "node-findings"),
    ("tsc", "node-errors"),
    ("tsc", "node-pretty"),
    ("prettier", "syntax-error"),
    ("node-test", "node-tap"),
    ("node-test", "scratch-subtests"),
    ("node-test", "polyglot-yarn-script"),
    ("jest", "scratch-failures"),
    ("vitest", "scratch-failures"),
]


@settings(deadline=None)
@given(st.text(), st.text(), st.one_of(st.none(), st.integers(-300, 300)))
def test_random_text_never_raises(stdout: str, stderr: str, code: int | None) -> None:
    for parse in PARSERS:  # unwrapped: an exception here is a bug even though get_parser would catch it
        parse(ToolOutput(stdout, stderr, code), CTX)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CAPTURES), st.floats(0, 1), st.floats(0, 1), st.sampled_from([0, 1, 2, None]))
def test_truncated_captures_never_raise(
    case: tuple[str, str], cut_out: float, cut_err: float, code: int | None
) -> None:
    truncated, ctx = truncated_capture(case, cut_out, cut_err, code)
    for parse in PARSERS:
        result = parse(truncated, ctx)
        assert all(isinstance(issue, Issue) for issue in result.issues)


FRAGMENTS = [line for case in CAPTURES for line in (load_capture(*case)[0].stdout.splitlines()[:80]) if len(line) < 400]


@settings(deadline=None)
@given(
    st.lists(st.sampled_from(FRAGMENTS), max_size=40),
    st.lists(st.sampled_from(FRAGMENTS), max_size=10),
    st.sampled_from([0, 1, 2, None]),
)
def test_shuffled_real_lines_never_raise(out: list[str], err: list[str], code: int | None) -> None:
    for parse in PARSERS:
        parse(ToolOutput("\n".join(out), "\n".join(err), code), CTX)


@settings(deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    )
)
def test_any_json_shape_never_raises(value: object) -> None:
    documents = [
        value,
        [{"filePath": "/ws/a.js", "messages": value}],
        [{"filePath": "/ws/a.js", "messages": [value]}],
        [
            {
                "filePath": "/ws/a.js",
                "source": "a = 1;",
                "messages": [{"ruleId": "r", "fix": value, "suggestions": value}],
            }
        ],
        [
            {
                "filePath": "/ws/a.js",
                "source": value,
                "messages": [{"ruleId": "r", "fix": {"range": [0, 1], "text": "b"}}],
            }
        ],
        {"results": [{"filePath": "/ws/a.js", "messages": []}], "metadata": value},
        {"results": [{"filePath": "/ws/a.js", "messages": []}], "metadata": {"rulesMeta": value}},
        {"success": False, "testResults": value},
        {"success": False, "testResults": [value]},
        {"success": False, "testResults": [{"name": value, "status": "failed", "assertionResults": [value]}]},
        {
            "numFailedTests": 1,
            "testResults": [{"name": "/ws/a.js", "assertionResults": [{"status": "failed", "failureMessages": value}]}],
        },
    ]
    for document in documents:
        text = json.dumps(document, default=str)
        for parse in PARSERS:
            parse(ToolOutput(text, "", 1), CTX)


def test_eslint_ignored_file_notice_is_not_a_finding() -> None:
    from lintel.core.issues import ParseContext
    from lintel.languages.node.parsers import parse_eslint
    from lintel.languages.parsers.base import ToolOutput

    report = (
        '[{"filePath":"/w/package.json","messages":[{"ruleId":null,"severity":1,'
        '"message":"File ignored because no matching configuration was supplied."}],'
        '"errorCount":0,"warningCount":1}]'
    )
    result = parse_eslint(ToolOutput(report, "", 0), ParseContext(cwd="/w", root="/w"))
    assert result.recognized
    assert result.issues == []


def test_lint_auto_reads_a_chained_prettier_check_only_when_prettier_printed_it() -> None:
    """`eslint . && prettier -c src`: prettier's `[warn] file` lines are format issues of the lint run; a
    `[warn] …` line of another tool, without prettier's summary, is not."""
    output, ctx, _ = load_capture("npm-script", "chained-lint")
    result = parse_node_lint_auto(output, ctx)
    assert {(i.source, i.kind, i.file) for i in result.issues} == {
        ("eslint", "lint", "src/cart.js"),
        ("prettier", "format", "src/labels.js"),
    }
    other = ToolOutput("[warn] cache is stale, rebuilding\n", "", 0)
    assert not parse_node_lint_auto(other, CTX).issues
