"""Python parsers against output captured from the real tools (tests/captures/<tool>/), plus robustness properties."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.fixes import Edit, Fix, apply_edits
from lintel.core.issues import Issue, ParseContext, ParseResult
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import Parser, ToolOutput
from lintel.languages.python.parsers import parse_mypy, parse_pyright, parse_ruff, parse_ruff_format
from lintel.languages.python.pytests import parse_pytest_junit

from tests.helpers import CAPTURES, WORKSPACES, load_capture

MODELS = "src/inventory/models.py"
PRICING = "src/inventory/pricing.py"
REPORT = "src/inventory/report.py"

# The raw functions, not the never_raises-wrapped ones: robustness must come from the parsers themselves.
PARSERS: dict[str, Parser] = {
    "ruff": parse_ruff,
    "ruff-format": parse_ruff_format,
    "mypy": parse_mypy,
    "pyright": parse_pyright,
    "pytest": parse_pytest_junit,
}


def parse(tool: str, case: str) -> ParseResult:
    output, ctx, _ = load_capture(tool, case)
    return PARSERS[tool](output, ctx)


def where(issues: list[Issue]) -> list[tuple[str | None, int | None, int | None, str | None]]:
    return [(i.file, i.line, i.column, i.rule) for i in issues]


def test_registry_names_resolve_to_these_functions() -> None:
    output, ctx, _ = load_capture("ruff", "fixture")
    for name in (*PARSERS, "basedpyright", "junit"):
        assert get_parser(name)(output, ctx) is not None


# ------------------------------------------------------------------------------------------------ ruff

RUFF_FIXTURE = [
    (MODELS, 3, 8, "F401"),
    (MODELS, 24, 27, "B006"),
    (PRICING, 8, 5, "F841"),
    (PRICING, 13, 40, "E711"),
    ("tests/test_pricing.py", 1, 8, "F401"),
]


def test_ruff_json_fixture() -> None:
    result = parse("ruff", "fixture")
    assert result.recognized
    assert where(result.issues) == RUFF_FIXTURE
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("lint", "ruff", "error")}
    unused = result.issues[0]
    assert (unused.end_line, unused.end_column) == (3, 10)  # `os`: 1-based, end exclusive
    assert unused.message == "`os` imported but unused"
    assert unused.hint == "Remove unused import: `os`"
    assert result.issues[1].hint == "Replace with `None`; initialize within function (unsafe fix)"
    assert unused.signature == f"lint:{MODELS}:3:`os` imported but unused"


@pytest.mark.parametrize("case", ["fixture-json-lines", "fixture-concise", "fixture-full"])
def test_ruff_other_output_formats_give_the_same_findings(case: str) -> None:
    result = parse("ruff", case)
    assert result.recognized
    assert where(result.issues) == RUFF_FIXTURE
    assert [i.message for i in result.issues] == [i.message for i in parse("ruff", "fixture").issues]


def test_ruff_fixes_and_rule_pages() -> None:
    """Each finding's `fix` becomes its Fix (ruff's 1-based character columns, end exclusive, as lintel's) and its
    `url` the Issue's; a finding without a fix has none."""
    unused, mutable, *_ = parse("ruff", "fixture").issues
    assert unused.url == "https://docs.astral.sh/ruff/rules/unused-import"
    assert unused.fixes == (Fix("Remove unused import: `os`", "safe", (Edit(MODELS, 3, 1, 4, 1, ""),)),)
    assert mutable.fixes == (
        Fix(
            "Replace with `None`; initialize within function",
            "unsafe",
            (
                Edit(MODELS, 24, 27, 24, 29, "None"),
                Edit(MODELS, 25, 1, 25, 1, "    if extra is None:\n        extra = []\n"),
            ),
        ),
    )
    assert unused.hint == unused.fixes[0].title  # kept: reports without fixes (text, SARIF) show it


CORE = "src/fixme/core.py"


def test_ruff_fix_columns_are_characters_on_multibyte_lines() -> None:
    """On `\t\treturn f"👋 {'世界'}" if loud == True else f"こんにちは"` the F541 fix replaces exactly the f-string:
    its columns count characters (the emoji is one, where UTF-16 counts two and UTF-8 four)."""
    result = parse("ruff", "fixes")
    text = (WORKSPACES / "fix-python" / CORE).read_text(encoding="utf-8")
    f541 = next(i for i in result.issues if i.rule == "F541" and i.file == CORE)
    (edit,) = f541.fixes[0].edits
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (9, 43, 9, 51)
    assert text.splitlines()[8][edit.column - 1 : edit.end_column - 1] == 'f"こんにちは"'
    assert apply_edits(text, f541.fixes[0].edits, "utf-32") == text.replace('f"こんにちは"', '"こんにちは"')


def test_ruff_applicability() -> None:
    """safe, unsafe, displayonly (0.17), display (0.1); before 0.1 `--fix` applied every fix but the `Manual` ones."""
    kinds = {(i.rule, i.fixes[0].applicability if i.fixes else None) for i in parse("ruff", "fixes").issues}
    assert {("F401", "safe"), ("E711", "unsafe"), ("ERA001", "display"), ("F821", None)} <= kinds
    for case in ("fixes-0.1.0", "fixes-0.0.291"):
        issues = parse("ruff", case).issues
        found = {i.rule: (i.fixes[0].applicability, i.url) for i in issues if i.rule != "W191"}
        safe_e711 = "safe" if case == "fixes-0.0.291" else "unsafe"
        assert found == {
            "F401": ("safe", "https://docs.astral.sh/ruff/rules/unused-import"),
            "E711": (safe_e711, "https://docs.astral.sh/ruff/rules/none-comparison"),
            "E712": (safe_e711, "https://docs.astral.sh/ruff/rules/true-false-comparison"),
            "F541": ("safe", "https://docs.astral.sh/ruff/rules/f-string-missing-placeholders"),
            "ERA001": ("display", "https://docs.astral.sh/ruff/rules/commented-out-code"),
        }, case


def test_ruff_notebook_findings_carry_no_fix() -> None:
    """A notebook's edits count lines within a cell: applied to the .ipynb file they would land elsewhere."""
    issues = parse("ruff", "notebook").issues
    assert [i.rule for i in issues] == ["F401", "F401", "F541"]
    assert all(i.fixes == () and i.url for i in issues)


def test_ruff_unreadable_fix_is_dropped_not_guessed() -> None:
    ctx = ParseContext(cwd="/w", root="/w")
    edit = '{"content": "x", "location": {"row": 1, "column": 1}, "end_location": {"row": 1, "column": 2}}'
    bad_edit = '{"content": 3, "location": {"row": 1, "column": 1}, "end_location": {"row": 1, "column": 2}}'
    overlapping = f"{edit}, {edit}"

    def fixes(fix: str) -> tuple[Fix, ...]:
        item = (
            '[{"code": "F1", "message": "m", "filename": "/w/a.py", "location": {"row": 1, "column": 1}, '
            f'"end_location": {{"row": 1, "column": 2}}, "fix": {fix}}}]'
        )
        (issue,) = parse_ruff(ToolOutput(item, "", 1, None), ctx).issues
        return issue.fixes

    assert fixes(f'{{"applicability": "safe", "message": null, "edits": [{edit}]}}') == (
        Fix("Fix F1", "safe", (Edit("a.py", 1, 1, 1, 2, "x"),)),
    )
    assert fixes(f'{{"applicability": "sometimes", "message": "m", "edits": [{edit}]}}') == ()
    assert fixes(f'{{"applicability": "safe", "message": "m", "edits": [{bad_edit}]}}') == ()
    assert fixes(f'{{"applicability": "safe", "message": "m", "edits": [{overlapping}]}}') == ()
    assert fixes('{"applicability": "safe", "message": "m", "edits": []}') == ()
    assert fixes("null") == ()


def test_ruff_clean_run_is_recognized() -> None:
    result = parse("ruff", "clean-select")
    assert result.recognized
    assert result.issues == []


def test_ruff_syntax_errors_are_findings() -> None:
    result = parse("ruff", "syntax-error")
    assert result.recognized
    assert where(result.issues) == [
        ("pkg/broken.py", 3, 12, "invalid-syntax"),
        ("pkg/broken.py", 3, 13, "invalid-syntax"),
        ("pkg/broken.py", 7, 1, "invalid-syntax"),
    ]


def test_ruff_failure_is_not_recognized() -> None:
    result = parse("ruff", "bad-rule")
    assert not result.recognized
    assert result.issues == []


# ----------------------------------------------------------------------------------------- ruff format


def test_ruff_format_diff_gives_one_issue_per_changed_block() -> None:
    result = parse("ruff-format", "fixture")
    assert result.recognized
    assert [(i.file, i.line, i.end_line) for i in result.issues] == [(REPORT, 7, None), (REPORT, 12, None)]
    assert {(i.kind, i.source, i.severity, i.rule) for i in result.issues} == {("format", "ruff", "warning", None)}
    assert result.issues[0].hint is not None
    assert '+    lines = [f"{item.name}: {item.quantity}" for item in items]' in result.issues[0].hint


def test_ruff_format_check_output() -> None:
    result = parse("ruff-format", "check-full")
    assert result.recognized
    assert [(i.file, i.line) for i in result.issues] == [(REPORT, 7)]


def test_ruff_format_clean() -> None:
    result = parse("ruff-format", "clean")
    assert result.recognized
    assert result.issues == []


def test_ruff_format_parse_failure_is_an_error_beside_the_diffs() -> None:
    result = parse("ruff-format", "syntax-error")
    assert result.recognized
    assert [(i.file, i.line, i.column, i.severity) for i in result.issues] == [
        ("pkg/fine.py", 1, None, "warning"),
        ("pkg/broken.py", 3, 12, "error"),
    ]
    assert result.issues[1].message.startswith("cannot format: Expected a parameter")


def test_ruff_format_diff_edge_cases() -> None:
    ctx = ParseContext(cwd="/w", root="/w")
    diff = "\n".join(
        [
            "--- a.py",
            "+++ a.py",
            "@@ -1,3 +1,4 @@",
            "--- x",  # a removed line that itself starts with `--` inside the hunk
            "+-- x",
            " keep",
            "+",
            " tail",
            "\\ No newline at end of file",
            "--- b.py",
            "+++ b.py",
            "@@ -3 +3 @@",
            "-y=1",
            "+y = 1",
        ]
    )
    result = parse_ruff_format(ToolOutput(diff, exit_code=1), ctx)
    assert [(i.file, i.line) for i in result.issues] == [("a.py", 1), ("a.py", 3), ("b.py", 3)]


# ------------------------------------------------------------------------------------------------ mypy

MYPY_FIXTURE = [
    (MODELS, 21, 12, "return-value"),
    (PRICING, 9, 38, "attr-defined"),
    (PRICING, 13, 65, "arg-type"),
    (PRICING, 19, 30, "arg-type"),
]


def test_mypy_fixture() -> None:
    result = parse("mypy", "fixture")
    assert result.recognized
    assert where(result.issues) == MYPY_FIXTURE
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("typecheck", "mypy", "error")}
    attr = result.issues[1]
    # mypy prints `9:38:9:46` for `item.cost` (columns 38-46 inclusive); lintel's end is exclusive.
    assert (attr.end_line, attr.end_column) == (9, 47)
    assert attr.message == '"Item" has no attribute "cost"'


@pytest.mark.parametrize("case", ["fixture-json", "fixture-plain"])
def test_mypy_json_and_plain_output_agree(case: str) -> None:
    result = parse("mypy", case)
    assert result.recognized
    assert [(f, line, rule) for f, line, _, rule in where(result.issues)] == [
        (f, line, rule) for f, line, _, rule in MYPY_FIXTURE
    ]
    if case == "fixture-json":
        assert [(i.column, i.end_column) for i in result.issues] == [
            (i.column, i.end_column) for i in parse("mypy", "fixture").issues
        ]


def test_mypy_notes_join_their_error_or_stand_alone() -> None:
    result = parse("mypy", "notes")
    assert result.recognized
    assert [(i.file, i.line, i.rule, i.severity) for i in result.issues] == [
        ("shapes.py", 7, "override", "error"),
        ("use.py", 3, "call-arg", "error"),
        ("use.py", 4, None, "info"),
        ("use.py", 5, "assignment", "error"),
        ("use.py", 5, "arg-type", "error"),
    ]
    override = result.issues[0]
    assert override.hint is not None
    assert override.hint.splitlines()[0] == "This violates the Liskov substitution principle"
    assert result.issues[1].hint == '"make" defined in "shapes"'
    assert result.issues[2].message == 'Revealed type is "shapes.Square"'


def test_mypy_clean_run() -> None:
    result = parse("mypy", "clean")
    assert result.recognized
    assert result.issues == []


@pytest.mark.parametrize("case", ["config-note", "config-note-ini"])
def test_mypys_note_about_its_configuration_is_no_finding(case: str) -> None:
    """`warn_unused_configs` with an override section that matches no module: mypy 2.4 prints
    `pyproject.toml: note: unused section(s): module = ['legacy.*']` (`mypy.ini: note: ... [mypy-legacy.*]`) and
    exits 0, with lintel's flags (`--no-error-summary`) nothing else: a clean run."""
    output, ctx, meta = load_capture("mypy", case)
    assert meta["exit_code"] == 0
    assert ": note: unused section(s): " in output.stdout
    result = get_parser("mypy")(output, ctx)
    assert result.recognized
    assert result.issues == []
    # Beside findings, the note is still no issue of its own; an error placed in the configuration is one.
    errors = (
        output.stdout + "pkg/__init__.py:2:12:2:16: error: Bad  [misc]\npyproject.toml:1:1: error: Bad config  [misc]\n"
    )
    found = get_parser("mypy")(ToolOutput(errors, "", 1), ctx)
    assert [(i.file, i.line) for i in found.issues] == [("pkg/__init__.py", 2), ("pyproject.toml", 1)]


def test_mypy_blocking_errors_are_still_read() -> None:
    syntax = parse("mypy", "syntax-error")
    assert syntax.recognized
    assert where(syntax.issues) == [("bad.py", 1, 8, "syntax"), ("bad.py", 1, 9, "syntax")]
    config = parse("mypy", "plugin-missing")  # printed on stderr
    assert config.recognized
    assert where(config.issues) == [("pyproject.toml", 1, 1, "misc")]


@pytest.mark.parametrize("case", ["crash", "no-target"])
def test_mypy_crash_and_usage_error_are_not_recognized(case: str) -> None:
    result = parse("mypy", case)
    assert not result.recognized
    assert result.issues == []


def test_mypy_file_level_error_and_usage_line() -> None:
    ctx = ParseContext(cwd="/w", root="/w")
    text = (
        'src/a.py: error: Source file found twice under different module names: "x.a" and "a"\n'
        "src/a.py: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html\n"
        "mypy: error: Missing target module, package, files, or command.\n"
    )
    result = parse_mypy(ToolOutput(text, exit_code=2), ctx)
    assert [(i.file, i.line, i.hint) for i in result.issues] == [
        ("src/a.py", None, "See https://mypy.readthedocs.io/en/stable/running_mypy.html")
    ]


# --------------------------------------------------------------------------------------------- pyright


def test_pyright_fixture() -> None:
    result = parse("pyright", "fixture")
    assert result.recognized
    area = "shapes/area.py"
    assert [(i.file, i.line, i.column, i.rule, i.severity) for i in result.issues] == [
        (area, 4, 8, "reportUnusedImport", "warning"),
        (area, 12, 5, "reportUnusedVariable", "info"),
        (area, 13, 12, "reportOperatorIssue", "error"),
        (area, 17, 12, "reportReturnType", "error"),
        (area, 20, 14, "reportArgumentType", "error"),
        (area, 20, 29, "reportAttributeAccessIssue", "error"),
    ]
    assert {(i.kind, i.source) for i in result.issues} == {("typecheck", "basedpyright")}
    returned = result.issues[3]
    assert (returned.end_line, returned.end_column) == (17, 22)
    assert returned.message == 'Type "float" is not assignable to return type "int"'
    assert returned.hint == '"float" is not assignable to "int"'


def test_pyright_clean_and_bad_config() -> None:
    clean = parse("pyright", "clean")
    assert clean.recognized
    assert clean.issues == []
    # An unparsable pyrightconfig.json is a warning on stderr; basedpyright still checks with defaults.
    bad = parse("pyright", "bad-config")
    assert bad.recognized
    assert where(bad.issues) == [("pkg/a.py", 1, 10, "reportAssignmentType")]


def test_pyright_source_follows_the_version() -> None:
    ctx = ParseContext(cwd="/w", root="/w")
    doc = '{"version": "1.1.414", "generalDiagnostics": [{"file": "/w/a.py", "severity": "error", "message": "m"}]}'
    result = parse_pyright(ToolOutput(doc, exit_code=1), ctx)
    assert [(i.source, i.file, i.line) for i in result.issues] == [("pyright", "a.py", None)]
    assert not parse_pyright(ToolOutput("Error: no config", exit_code=3), ctx).recognized


# ---------------------------------------------------------------------------------------------- pytest


def test_pytest_fixture_failure_points_at_the_failing_line() -> None:
    result = parse("pytest", "fixture")
    assert result.recognized
    assert len(result.failures) == 1
    failure = result.failures[0]
    assert failure.name == "tests/test_models.py::test_total_value_counts_quantity"
    assert (failure.file, failure.line) == ("tests/test_models.py", 13)
    assert failure.message.splitlines()[0] == "AssertionError: stock of 2 items should be worth 2.5"
    assert failure.output is not None
    assert "E   assert 0.75 == 2.5" in failure.output
    [issue] = result.issues
    assert (issue.kind, issue.source, issue.severity, issue.rule) == ("test", "pytest", "error", None)
    assert (issue.file, issue.line) == ("tests/test_models.py", 13)
    assert issue.message == "test_total_value_counts_quantity: AssertionError: stock of 2 items should be worth 2.5"


SCENARIOS = [
    ("tests/sub/test_b.py", "tests/sub/test_b.py", 1),  # collection error: the import line
    ("tests/test_a.py::test_helper_raises", "tests/test_a.py", 11),  # raised in a helper: the call in the test
    ("tests/test_a.py::test_assert", "tests/test_a.py", 15),
    ("tests/test_a.py::test_fixture_error", "tests/conftest.py", 5),  # the fixture that raised
    ("tests/test_a.py::test_xpass", "tests/test_a.py", 27),  # no traceback: the definition (xunit1)
    ("tests/test_a.py::TestGroup::test_method", "tests/test_a.py", 33),
    ("tests/test_a.py::TestGroup::test_param[2]", "tests/test_a.py", 38),
]


def test_pytest_scenarios_xunit1() -> None:
    result = parse("pytest", "scenarios")
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == SCENARIOS
    assert [(i.file, i.line) for i in result.issues] == [(file, line) for _, file, line in SCENARIOS]
    messages = [i.message for i in result.issues]
    assert messages[0] == "collection failed: ModuleNotFoundError: No module named 'does_not_exist'"
    assert messages[1] == "test_helper_raises: ValueError: négatif: -1"
    assert messages[3] == 'test_fixture_error: failed on setup with "RuntimeError: fixture exploded"'


def test_pytest_xunit2_long_tracebacks() -> None:
    """Without `file`/`line` attributes and with long tracebacks, the traceback still places each failure;
    failures without a traceback get their file from a neighbour and no line."""
    result = parse("pytest", "scenarios-xunit2-long")
    assert result.recognized
    expected = [(n, f, None if n.endswith(("test_xpass", "test_method")) else line) for n, f, line in SCENARIOS]
    assert [(f.name, f.file, f.line) for f in result.failures] == expected


def test_pytest_terminal_output_without_report() -> None:
    result = parse("pytest", "scenarios-text")
    assert result.recognized
    got = sorted((f.name, f.file, f.line) for f in result.failures)
    expected = sorted((n, f, None if n.endswith(("test_xpass", "test_method")) else line) for n, f, line in SCENARIOS)
    assert got == expected


@pytest.mark.parametrize("case", ["collection-interrupted-xunit2", "collection-interrupted-text"])
def test_pytest_interrupted_collection(case: str) -> None:
    result = parse("pytest", case)
    assert result.recognized
    assert [(f.name, f.file, f.line, f.message) for f in result.failures] == [
        ("tests/sub/test_b.py", "tests/sub/test_b.py", 1, "ModuleNotFoundError: No module named 'does_not_exist'")
    ]


def test_pytest_clean_and_empty_runs() -> None:
    clean = parse("pytest", "clean")
    assert clean.recognized
    assert (clean.issues, clean.failures) == ([], [])
    # Exit 5 (no tests) is read fine; the toolchain's exit codes make it not_checked, never clean.
    empty = parse("pytest", "no-tests")
    assert empty.recognized
    assert (empty.issues, empty.failures) == ([], [])


@pytest.mark.parametrize(("case", "library_line"), [("unraisable", 18), ("unraisable-text", None)])
def test_pytest_failures_raised_by_pytest_itself_sit_in_the_project(case: str, library_line: int | None) -> None:
    """`filterwarnings = ["error"]` turns an exception raised in `__del__` into a PytestUnraisableExceptionWarning
    that pytest raises from .venv/lib/python3.11/site-packages/_pytest/ (the venv inside the project, as usual):
    the failure sits at the project's code that raised (src/shop/store.py), or, when that was a library's
    (a module in the venv's site-packages), at the test's own definition (the junit report's line)."""
    result = parse("pytest", case)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == [
        ("tests/test_store.py::test_connection_is_dropped", "src/shop/store.py", 8),
        ("tests/test_store.py::test_library_handle_is_dropped", "tests/test_store.py", library_line),
    ]
    assert all(".venv" not in (i.file or "") for i in result.issues)


def test_pytest_usage_error_is_not_recognized() -> None:
    result = parse("pytest", "usage-error")
    assert not result.recognized


def test_pytest_native_tracebacks() -> None:
    ctx = ParseContext(cwd="/w", root="/w")
    report = (
        '<testsuite><testcase classname="tests.test_x" name="test_y">'
        '<failure message="ZeroDivisionError: division by zero">Traceback (most recent call last):\n'
        '  File "/w/tests/test_x.py", line 7, in test_y\n    1 / 0\n'
        "ZeroDivisionError: division by zero</failure></testcase></testsuite>"
    )
    result = parse_pytest_junit(ToolOutput("", exit_code=1, report=report), ctx)
    assert [(f.name, f.file, f.line) for f in result.failures] == [("tests/test_x.py::test_y", "tests/test_x.py", 7)]


# -------------------------------------------------------------------------------------------- robustness


def _captures() -> list[tuple[str, str]]:
    return sorted(
        (tool, meta.name[: -len(".meta.json")]) for tool in PARSERS for meta in (CAPTURES / tool).glob("*.meta.json")
    )


def test_every_python_parser_has_captures() -> None:
    assert {tool for tool, _ in _captures()} == set(PARSERS)


@pytest.mark.parametrize(("tool", "case"), _captures())
def test_every_prefix_of_every_capture_parses(tool: str, case: str) -> None:
    """Every truncation of each stream (a tool killed mid-write, a capped stream), alone and, more sparsely,
    beside the other streams as captured."""
    output, ctx, _ = load_capture(tool, case)
    parser = PARSERS[tool]
    for field in ("stdout", "stderr", "report"):
        text = getattr(output, field)
        if not text:
            continue
        for end in range(len(text) + 1):
            alone = ToolOutput(stdout="", stderr="", exit_code=output.exit_code, report=None)
            assert isinstance(parser(replace(alone, **{field: text[:end]}), ctx), ParseResult)
            if end % 97 == 0 or end == len(text):
                assert isinstance(parser(replace(output, **{field: text[:end]}), ctx), ParseResult)


# Fragments of the formats the parsers look for, so random input reaches past the first check.
_FRAGMENTS = [
    *"abc/._-:[]{}<>\"'=, \n\t0123456789éE@+-",
    "a.py:1:2:1:3: error: x  [c]\n",
    "a.py: note: n\n",
    "--- a.py\n",
    "+++ a.py\n",
    "@@ -1,2 +1,2 @@\n",
    "  --> a.py:1:2\n",
    "tests/a.py:3: in t\n",
    "E   AssertionError\n",
    '<testcase classname="tests.a" name="t" line="x">',
    '<failure message="m">',
    "</failure></testcase>",
    '{"generalDiagnostics": [{"file": 1, "range": {"start": {"line": -1}}}',
    '[{"filename": "a.py", "location": {"row": "1"}}',
    "FAILED tests/a.py::t - boom\n",
    "_____ t _____\n",
    "INTERNAL ERROR",
]
_TEXTISH = st.lists(st.sampled_from(_FRAGMENTS), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    tool=st.sampled_from(sorted(PARSERS)),
    stdout=st.one_of(st.text(max_size=300), _TEXTISH),
    stderr=st.text(max_size=100),
    report=st.one_of(st.none(), st.text(max_size=300), _TEXTISH.map(lambda t: f"<testsuite>{t}</testsuite>")),
    exit_code=st.one_of(st.none(), st.integers(min_value=-9, max_value=256)),
)
def test_random_output_never_raises(
    tool: str, stdout: str, stderr: str, report: str | None, exit_code: int | None
) -> None:
    ctx = ParseContext(cwd="/w/proj", root="/w")
    result = PARSERS[tool](ToolOutput(stdout, stderr, exit_code, report), ctx)
    assert isinstance(result, ParseResult)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mangled_captures_never_raise(data: st.DataObject) -> None:
    tool, case = data.draw(st.sampled_from(_captures()))
    output, ctx, _ = load_capture(tool, case)
    source = output.report if output.report else output.stdout
    start = data.draw(st.integers(min_value=0, max_value=len(source)))
    insert = data.draw(st.text(max_size=20))
    mangled = source[:start] + insert + source[start + data.draw(st.integers(0, 20)) :]
    cut = ToolOutput(
        stdout=output.stdout if output.report else mangled,
        stderr=output.stderr,
        exit_code=output.exit_code,
        report=mangled if output.report else None,
    )
    assert isinstance(PARSERS[tool](cut, ctx), ParseResult)


def test_paths_outside_the_root_stay_absolute() -> None:
    ctx = ParseContext(cwd="/w/proj", root="/w/proj")
    text = "/elsewhere/lib.py:3:1:3:2: error: boom  [misc]\n"
    result = parse_mypy(ToolOutput(text, exit_code=1), ctx)
    assert [i.file for i in result.issues] == ["/elsewhere/lib.py"]


# -- many findings --------------------------------------------------------------------------------------------------


def test_ruff_json_is_read_one_finding_at_a_time_and_all_are_kept() -> None:
    """100,000 findings (tens of MB of JSON) are all reported; the array is decoded element by element,
    so a cut-short report is not mistaken for findings."""
    item = (
        '{{"code": "F821", "message": "Undefined name `u{n}`", "filename": "/w/m.py", '
        '"location": {{"row": {n}, "column": 5}}, "end_location": {{"row": {n}, "column": 9}}, "fix": null}}'
    )
    report = "[\n" + ",\n".join(item.format(n=n) for n in range(1, 3001)) + "\n]"
    ctx = ParseContext(cwd="/w", root="/w")
    parsed = parse_ruff(ToolOutput(report, "", 1, None), ctx)
    assert parsed.recognized
    assert [i.line for i in parsed.issues] == list(range(1, 3001))
    assert {i.rule for i in parsed.issues} == {"F821"}

    cut = parse_ruff(ToolOutput(report[: len(report) // 2], "", 1, None), ctx)
    assert cut.issues == []  # not a partial list passed off as the whole
    assert parse_ruff(ToolOutput("[]\n", "", 0, None), ctx).recognized
    assert parse_ruff(ToolOutput("  \n[ ]", "", 0, None), ctx).issues == []
