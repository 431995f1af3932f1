"""The Rust parsers against output captured from the real cargo, clippy, rustfmt and libtest (Rust 1.95).

Captures live in tests/captures/{clippy,cargo-check,cargo-test,rustfmt}/; their meta.json records the command
and the directory it ran in. `fixture` is tests/workspaces/rust; the other cases are scratch crates in /tmp.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.issues import Issue, ParseContext
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.rust.parsers import parse_cargo_messages, parse_cargo_test, parse_rustfmt_check

from tests.helpers import load_capture, truncated_capture

CTX = ParseContext(cwd="/ws", root="/ws")

# (file, line, rule) of every finding clippy reports on the fixture, each once although cargo prints the
# lib's findings twice (lib and lib test).
CLIPPY_FIXTURE = Counter(
    {
        ("src/lib.rs", 11, "clippy::needless_return"): 1,
        ("src/lib.rs", 16, "clippy::len_zero"): 1,
        ("src/lib.rs", 21, "unused_variables"): 1,
        ("src/lib.rs", 25, "dead_code"): 1,
        ("src/shapes.rs", 10, "clippy::redundant_field_names"): 2,  # `x: x` and `y: y`
        ("src/shapes.rs", 14, "clippy::manual_range_contains"): 1,
        ("src/shapes.rs", 18, "clippy::bool_comparison"): 1,
        ("src/shapes.rs", 24, "unused_variables"): 1,
        ("src/main.rs", 4, "clippy::useless_vec"): 1,
    }
)
CHECK_FIXTURE = Counter(
    {
        ("src/lib.rs", 21, "unused_variables"): 1,
        ("src/lib.rs", 25, "dead_code"): 1,
        ("src/shapes.rs", 24, "unused_variables"): 1,
    }
)


def keys(issues: list[Issue]) -> Counter[tuple[str | None, int | None, str | None]]:
    return Counter((i.file, i.line, i.rule) for i in issues)


def only(issues: list[Issue], rule: str, file: str) -> Issue:
    [issue] = [i for i in issues if i.rule == rule and i.file == file]
    return issue


# --- clippy / cargo check -------------------------------------------------------------------------


def test_clippy_fixture_findings_with_rules_and_duplicates_removed() -> None:
    output, ctx, meta = load_capture("clippy", "fixture")
    assert meta["exit_code"] == 0  # clippy exits 0 with warnings
    result = parse_cargo_messages(output, ctx)
    assert result.recognized
    assert keys(result.issues) == CLIPPY_FIXTURE
    assert {i.severity for i in result.issues} == {"warning"}
    assert {i.kind for i in result.issues} == {"lint"}
    raw = [json.loads(line) for line in output.stdout.splitlines()]
    # every finding came twice: lib and lib test, bin and bin test
    assert sum(r["reason"] == "compiler-message" for r in raw) == 2 * len(result.issues)


def test_clippy_source_follows_the_lint() -> None:
    output, ctx, _ = load_capture("clippy", "fixture")
    issues = parse_cargo_messages(output, ctx).issues
    assert {i.source for i in issues if (i.rule or "").startswith("clippy::")} == {"clippy"}
    assert {i.source for i in issues if not (i.rule or "").startswith("clippy::")} == {"rustc"}


def test_clippy_positions_messages_and_hints() -> None:
    output, ctx, _ = load_capture("clippy", "fixture")
    issues = parse_cargo_messages(output, ctx).issues
    needless = only(issues, "clippy::needless_return", "src/lib.rs")
    assert (needless.line, needless.column, needless.end_line, needless.end_column) == (11, 5, 11, 17)
    assert needless.message == "unneeded `return` statement"
    assert needless.hint is not None
    assert needless.hint.startswith("remove `return`")
    assert needless.hint.endswith("#needless_return")
    assert needless.signature == "lint:src/lib.rs:11:unneeded `return` statement"
    unused = only(issues, "unused_variables", "src/lib.rs")
    assert unused.hint == "if this is intentional, prefix it with an underscore: `_unused`"


def test_columns_are_characters_on_a_line_with_non_ascii_text() -> None:
    output, ctx, _ = load_capture("clippy", "fixture")
    spare = only(parse_cargo_messages(output, ctx).issues, "unused_variables", "src/shapes.rs")
    # `let accent = "é"; let spare` — é is two bytes, one column.
    assert (spare.line, spare.column, spare.end_column) == (24, 59, 64)
    assert spare.message == "unused variable: `spare`"


def test_cargo_check_fixture_reports_rustc_warnings_only() -> None:
    output, ctx, meta = load_capture("cargo-check", "fixture")
    assert meta["exit_code"] == 0
    result = get_parser("cargo-check")(output, ctx)
    assert result.recognized
    assert keys(result.issues) == CHECK_FIXTURE
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("lint", "rustc", "warning")}


def test_rustc_warning_has_the_same_signature_from_clippy_and_cargo_check() -> None:
    clippy = parse_cargo_messages(*load_capture("clippy", "fixture")[:2]).issues
    check = parse_cargo_messages(*load_capture("cargo-check", "fixture")[:2]).issues
    assert {i.signature for i in check} <= {i.signature for i in clippy}


@pytest.mark.parametrize("tool", ["clippy", "cargo-check"])
def test_clean_crate_is_recognized_and_clean(tool: str) -> None:
    output, ctx, _ = load_capture(tool, "clean")
    result = get_parser(tool)(output, ctx)
    assert result.recognized
    assert result.issues == []


@pytest.mark.parametrize("tool", ["clippy", "cargo-check"])
def test_compile_error_is_a_build_error(tool: str) -> None:
    output, ctx, meta = load_capture(tool, "compile-error")
    assert meta["exit_code"] == 101
    result = get_parser(tool)(output, ctx)
    assert result.recognized
    errors = [i for i in result.issues if i.severity == "error"]
    assert [(i.kind, i.source, i.file, i.line, i.column, i.rule, i.message) for i in errors] == [
        ("build", "rustc", "src/lib.rs", 21, 23, "E0308", "mismatched types")
    ]
    # failure-notes ("For more information about this error ...") are not findings
    assert not any("rustc --explain" in i.message for i in result.issues)


def test_compile_error_run_keeps_the_warnings_it_got_to() -> None:
    output, ctx, _ = load_capture("clippy", "compile-error")
    assert keys(parse_cargo_messages(output, ctx).issues) == Counter(
        {
            ("src/lib.rs", 21, "E0308"): 1,
            ("src/shapes.rs", 10, "clippy::redundant_field_names"): 2,
            ("src/shapes.rs", 24, "unused_variables"): 1,
        }
    )


def test_broken_manifest_is_a_located_cargo_error() -> None:
    output, ctx, meta = load_capture("clippy", "bad-manifest")
    assert meta["exit_code"] == 101
    assert output.stdout == ""
    result = parse_cargo_messages(output, ctx)
    assert result.recognized
    [issue] = result.issues
    assert (issue.kind, issue.source, issue.file, issue.line, issue.severity) == (
        "build",
        "cargo",
        "Cargo.toml",
        3,
        "error",
    )


def test_failure_without_any_error_is_not_recognized() -> None:
    finished = '{"reason":"build-finished","success":false}\n'
    result = parse_cargo_messages(ToolOutput(finished, "error: failed to run custom build command\n", 101), CTX)
    assert not result.recognized
    assert not parse_cargo_messages(ToolOutput("", "", 0), CTX).recognized
    assert not parse_cargo_messages(ToolOutput("Compiling foo\n", "", 101), CTX).recognized


def _message(file_name: str, *, manifest: str, src_path: str, code: str = "dead_code") -> str:
    span = {"file_name": file_name, "is_primary": True, "line_start": 3, "column_start": 1}
    return json.dumps(
        {
            "reason": "compiler-message",
            "manifest_path": manifest,
            "target": {"src_path": src_path},
            "message": {"level": "warning", "message": "m", "code": {"code": code}, "spans": [span], "children": []},
        }
    )


def test_paths_of_a_workspace_member_are_relative_to_the_workspace_root() -> None:
    # cargo runs rustc from the workspace root /w even when invoked in the member /w/crates/foo.
    line = _message("crates/foo/src/a.rs", manifest="/w/crates/foo/Cargo.toml", src_path="/w/crates/foo/src/lib.rs")
    [issue] = parse_cargo_messages(ToolOutput(line, "", 0), ParseContext(cwd="/w/crates/foo", root="/w")).issues
    assert issue.file == "crates/foo/src/a.rs"
    [issue] = parse_cargo_messages(ToolOutput(line, "", 0), ParseContext(cwd="/w", root="/w/crates/foo")).issues
    assert issue.file == "src/a.rs"


def test_src_path_settles_a_package_directory_named_like_a_source_folder() -> None:
    line = _message("src/lib.rs", manifest="/x/src/Cargo.toml", src_path="/x/src/src/lib.rs")
    [issue] = parse_cargo_messages(ToolOutput(line, "", 0), ParseContext(cwd="/x/src", root="/x/src")).issues
    assert issue.file == "src/lib.rs"


def test_span_in_a_foreign_macro_follows_the_expansion_to_user_code() -> None:
    record = {
        "reason": "compiler-message",
        "manifest_path": "/ws/Cargo.toml",
        "message": {
            "level": "error",
            "message": "boom",
            "code": None,
            "children": [],
            "spans": [
                {
                    "file_name": "/rustc/abc/library/core/src/macros/mod.rs",
                    "is_primary": True,
                    "line_start": 40,
                    "column_start": 1,
                    "expansion": {"span": {"file_name": "src/lib.rs", "line_start": 7, "column_start": 5}},
                }
            ],
        },
    }
    [issue] = parse_cargo_messages(ToolOutput(json.dumps(record), "", 101), CTX).issues
    assert (issue.file, issue.line, issue.column, issue.kind) == ("src/lib.rs", 7, 5, "build")


# --- cargo test -----------------------------------------------------------------------------------


def test_cargo_test_fixture_failures_unit_and_integration() -> None:
    output, ctx, meta = load_capture("cargo-test", "fixture")
    assert meta["exit_code"] == 101
    result = parse_cargo_test(output, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == [
        ("tests::adds_wrong", "src/lib.rs", 40),
        ("addition_is_wrong_here", "tests/integration.rs", 10),
    ]
    unit = result.failures[0]
    assert unit.message == "assertion `left == right` failed: add(2, 2) should be 5\n  left: 4\n right: 5"
    assert unit.output is not None
    assert "panicked at src/lib.rs:40:9" in unit.output
    assert [(i.kind, i.source, i.severity, i.file, i.line) for i in result.issues] == [
        ("test", "cargo test", "error", "src/lib.rs", 40),
        ("test", "cargo test", "error", "tests/integration.rs", 10),
    ]
    assert result.issues[1].message == (
        "addition_is_wrong_here failed: "
        "assertion `left == right` failed: integration: 1 + 2 should be 4 left: 3 right: 4"
    )


def test_cargo_test_message_stops_before_a_backtrace() -> None:
    output, ctx, _ = load_capture("cargo-test", "fixture-backtrace")
    assert "stack backtrace:" in output.stdout
    plain = parse_cargo_test(*load_capture("cargo-test", "fixture")[:2])
    traced = parse_cargo_test(output, ctx)
    assert [(f.name, f.file, f.line, f.message) for f in traced.failures] == [
        (f.name, f.file, f.line, f.message) for f in plain.failures
    ]
    assert [i.signature for i in traced.issues] == [i.signature for i in plain.issues]


def test_cargo_test_clean_is_recognized() -> None:
    result = parse_cargo_test(*load_capture("cargo-test", "clean")[:2])
    assert result.recognized
    assert result.issues == []
    assert result.failures == []


@pytest.mark.parametrize("case", ["zero-tests", "no-test-targets"])
def test_cargo_test_of_a_crate_without_tests_is_clean(case: str) -> None:
    """/tmp/lintel-rust-zero-tests (a lib without tests: `running 0 tests`, `test result: ok. 0 passed` for the
    unit tests and the doc tests) and the same crate with `[lib] test = false`, `doctest = false` (cargo builds,
    runs nothing, and prints only `Finished`)."""
    output, ctx, meta = load_capture("cargo-test", case)
    assert meta["exit_code"] == 0
    result = parse_cargo_test(output, ctx)
    assert result.recognized  # clean (0 tests), not `passed (output not parsed)`
    assert (result.issues, result.failures) == ([], [])


def test_cargo_test_that_ran_nothing_but_failed_or_printed_what_is_not_libtests_is_not_understood() -> None:
    output, ctx, _ = load_capture("cargo-test", "no-test-targets")
    assert not parse_cargo_test(ToolOutput(output.stdout, output.stderr, 101), ctx).recognized
    # A custom test harness (`harness = false`) printing its own report: not libtest's, not read.
    assert not parse_cargo_test(ToolOutput("all 3 checks fine\n", output.stderr, 0), ctx).recognized


def test_cargo_test_compile_error_is_a_build_issue_and_warnings_are_left_out() -> None:
    output, ctx, _ = load_capture("cargo-test", "compile-error")
    result = parse_cargo_test(output, ctx)
    assert result.recognized
    assert result.failures == []
    [issue] = result.issues
    assert (issue.kind, issue.source, issue.file, issue.line, issue.column, issue.rule, issue.message) == (
        "build",
        "rustc",
        "src/lib.rs",
        21,
        23,
        "E0308",
        "mismatched types",
    )
    # the same compile error seen by cargo check has the same signature
    check = parse_cargo_messages(*load_capture("cargo-check", "compile-error")[:2]).issues
    assert issue.signature in {i.signature for i in check}


def test_cargo_test_edge_cases() -> None:
    result = parse_cargo_test(*load_capture("cargo-test", "edge-cases")[:2])
    assert result.recognized
    got = {f.name: (f.file, f.line, f.message) for f in result.failures}
    assert got == {
        "tests::plain_panic": ("src/lib.rs", 28, "multi\nline é"),
        # the spawned thread's panic is the root cause, not the test thread's unwrap of it
        "tests::panics_in_thread": ("src/lib.rs", 23, "boom in thread"),
        "tests::prints_then_fails": ("src/lib.rs", 34, "assertion failed: 1 + 1 == 3"),
        "tests::returns_err": (None, None, 'Error: "nope"'),
        "tests::should_have_panicked": ("src/lib.rs", 14, "test did not panic as expected"),
        # doc tests point at their code block
        "src/lib.rs - double (line 3)": (
            "src/lib.rs",
            3,
            "assertion `left == right` failed: doc says so\n  left: 4\n right: 5",
        ),
    }
    assert len(result.issues) == 6


def test_cargo_test_older_panic_format() -> None:
    stdout = (
        "\nrunning 2 tests\ntest tests::ok ... ok\ntest tests::bad ... FAILED\n\nfailures:\n\n"
        "---- tests::bad stdout ----\n"
        "thread 'tests::bad' panicked at 'assertion failed: `(left == right)`\n  left: `1`,\n right: `2`: "
        "numbers differ', src/lib.rs:12:5\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\n"
        "failures:\n    tests::bad\n\n"
        "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"
    )
    result = parse_cargo_test(ToolOutput(stdout, "", 101), CTX)
    [failure] = result.failures
    assert (failure.name, failure.file, failure.line) == ("tests::bad", "src/lib.rs", 12)
    assert failure.message == "assertion failed: `(left == right)`\n  left: `1`,\n right: `2`: numbers differ"


def test_cargo_test_nocapture_panics_inline() -> None:
    stdout = (
        "\nrunning 1 test\n"
        "thread 'it_fails' panicked at tests/api.rs:8:5:\nexpected a reply\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
        "test it_fails ... FAILED\n\nfailures:\n\nfailures:\n    it_fails\n\n"
        "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"
    )
    [failure] = parse_cargo_test(ToolOutput(stdout, "", 101), CTX).failures
    assert (failure.name, failure.file, failure.line, failure.message) == (
        "it_fails",
        "tests/api.rs",
        8,
        "expected a reply",
    )


def test_cargo_test_failure_without_anything_understood() -> None:
    output, ctx, _ = load_capture("cargo-test", "bad-manifest")
    result = parse_cargo_test(output, ctx)
    [issue] = result.issues  # cargo's own located error
    assert (issue.source, issue.file, issue.line) == ("cargo", "Cargo.toml", 3)
    unexplained = ToolOutput("", "error: linking with `cc` failed: exit status: 1\n", 101)
    assert not parse_cargo_test(unexplained, CTX).recognized
    assert not parse_cargo_test(ToolOutput("", "", 0), CTX).recognized


# --- rustfmt --------------------------------------------------------------------------------------


def test_rustfmt_fixture_points_at_the_first_changed_line() -> None:
    output, ctx, meta = load_capture("rustfmt", "fixture")
    assert meta["exit_code"] == 1
    result = parse_rustfmt_check(output, ctx)
    assert result.recognized
    assert [(i.file, i.line, i.end_line) for i in result.issues] == [
        ("src/shapes.rs", 24, 24),  # header says :21 — three lines of context before it
        ("src/main.rs", 5, 5),
        ("tests/integration.rs", 5, 5),
    ]
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("format", "rustfmt", "warning")}
    assert result.issues[1].hint == (
        "-    let total = add(values.len() as i32,1);\n+    let total = add(values.len() as i32, 1);"
    )


def test_rustfmt_clean_and_unparseable() -> None:
    clean = parse_rustfmt_check(*load_capture("rustfmt", "clean")[:2])
    assert clean.recognized
    assert clean.issues == []
    output, ctx, meta = load_capture("rustfmt", "syntax-error")
    assert meta["exit_code"] == 1
    broken = parse_rustfmt_check(output, ctx)
    assert not broken.recognized
    assert broken.issues == []


def test_rustfmt_hunk_with_two_separate_changes_spans_both() -> None:
    stdout = "Diff in /ws/src/lib.rs:10:\n a\n-b\n+B\n c\n d\n-e\n f\n"
    [issue] = parse_rustfmt_check(ToolOutput(stdout, "", 1), CTX).issues
    assert (issue.line, issue.end_line) == (11, 14)


def test_rustfmt_older_header_and_colours() -> None:
    stdout = "\x1b[1mDiff in /ws/src/lib.rs at line 7:\x1b(B\x1b[m\n fn a() {\n\x1b[31m-    let x=1;\x1b(B\x1b[m\n"
    [issue] = parse_rustfmt_check(ToolOutput(stdout, "", 1), CTX).issues
    assert (issue.file, issue.line, issue.hint) == ("src/lib.rs", 8, "-    let x=1;")


# --- robustness -----------------------------------------------------------------------------------

PARSERS = (parse_cargo_messages, parse_cargo_test, parse_rustfmt_check)
CAPTURES = [
    ("clippy", "fixture"),
    ("clippy", "fix-rust"),
    ("clippy", "compile-error"),
    ("cargo-check", "fixture"),
    ("cargo-test", "fixture"),
    ("cargo-test", "edge-cases"),
    ("cargo-test", "compile-error"),
    ("rustfmt", "fixture"),
]


@given(st.text(), st.text(), st.one_of(st.none(), st.integers(-300, 300)))
def test_random_text_never_raises(stdout: str, stderr: str, code: int | None) -> None:
    for parse in PARSERS:  # unwrapped: an exception here is a bug even though get_parser would catch it
        parse(ToolOutput(stdout, stderr, code), CTX)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CAPTURES), st.floats(0, 1), st.floats(0, 1), st.sampled_from([0, 1, 101, None]))
def test_truncated_captures_never_raise(
    case: tuple[str, str], cut_out: float, cut_err: float, code: int | None
) -> None:
    truncated, ctx = truncated_capture(case, cut_out, cut_err, code)
    for parse in PARSERS:
        parse(truncated, ctx)


FRAGMENTS = [
    "running 1 test",
    "running 2 tests",
    "test tests::a ... FAILED",
    "test tests::a - should panic ... FAILED",
    "test b ... ok",
    "failures:",
    "---- tests::a stdout ----",
    "---- src/lib.rs - f (line 3) stdout ----",
    "thread 'tests::a' (12) panicked at src/lib.rs:4:5:",
    "thread 'tests::a' panicked at 'boom', src/lib.rs:4:5",
    "thread 'b' panicked at '",
    "note: test did not panic as expected at src/lib.rs:1:1",
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    "stack backtrace:",
    "Error: Custom",
    "test result: FAILED. 1 passed; 1 failed; 0 ignored",
    "error[E0308]: mismatched types",
    "error: could not compile `x`",
    "  --> src/lib.rs:3:5",
    " --> Cargo.toml:0:0",
    "Diff in /ws/src/lib.rs:0:",
    "Diff in /ws/src/lib.rs at line 7:",
    "-old",
    "+new",
    " context",
    '{"reason":"build-finished","success":false}',
    '{"reason":"compiler-message","message":{"level":"error","message":"m","spans":[]}}',
    "",
]


@given(
    st.lists(st.sampled_from(FRAGMENTS), max_size=40),
    st.lists(st.sampled_from(FRAGMENTS), max_size=10),
    st.sampled_from([0, 1, 101, None]),
)
def test_shuffled_real_lines_never_raise(out: list[str], err: list[str], code: int | None) -> None:
    for parse in PARSERS:
        result = parse(ToolOutput("\n".join(out), "\n".join(err), code), CTX)
        assert all(i.line is None or i.line >= 1 for i in result.issues)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
def test_any_json_shape_never_raises(value: object) -> None:
    lines = [json.dumps(value), json.dumps({"reason": "compiler-message", "message": value})]
    lines.append(json.dumps({"reason": "compiler-message", "message": {"spans": value, "children": value}}))
    parse_cargo_messages(ToolOutput("\n".join(lines), "", 101), CTX)
