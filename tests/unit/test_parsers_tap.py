"""The `tap` parser on TAP that node did not write: a plain shell test script and bats 1.13 (captured in
tests/captures/tap/ and tests/captures/bats/, the commands in tests/captures/README.md), and TAP 13's YAML
diagnostics. node's own TAP is covered in test_parsers_node.py."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.issues import Issue, ParseContext
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.tap import parse_node_tap

from tests.helpers import load_capture, truncated_capture

CTX = ParseContext(cwd="/ws", root="/ws")

# Exactly what a shell test script prints (tests/captures/tap/shell-script is a real run of one).
SHELL_TAP = """\
TAP version 13
1..3
ok 1 - adds
not ok 2 - subtracts
#   expected 1 got 2
ok 3 - skip me # SKIP reason
"""


def test_plain_tap_failure_is_explained_by_the_comment_after_it() -> None:
    result = get_parser("tap")(ToolOutput(SHELL_TAP, "", 1), CTX)
    assert result.recognized
    assert [(f.name, f.message) for f in result.failures] == [("subtracts", "expected 1 got 2")]
    assert [i.message for i in result.issues] == ["subtracts failed: expected 1 got 2"]
    assert all(i.kind == "test" and i.severity == "error" for i in result.issues)


def test_plain_tap_from_a_real_shell_script() -> None:
    output, ctx, meta = load_capture("tap", "shell-script")
    assert output.stdout == SHELL_TAP
    result = get_parser("tap")(output, ctx)
    assert meta["exit_code"] == 1
    assert result.recognized
    assert [(f.name, f.message) for f in result.failures] == [("subtracts", "expected 1 got 2")]


def test_passing_plain_tap_is_clean() -> None:
    text = "TAP version 14\n1..2\nok 1 - adds\nok 2 - skip me # SKIP no network\n"
    result = get_parser("tap")(ToolOutput(text, "", 0), CTX)
    assert result.recognized
    assert result.failures == []


def test_yaml_block_with_message_and_at_locates_the_failure() -> None:
    text = """\
TAP version 13
1..2
ok 1 - adds
not ok 2 - multiplies
  ---
  message: 'expected 6 got 5'
  severity: fail
  at: tests/math.sh:12
  data:
    got: 5
    expect: 6
  ...
"""
    result = get_parser("tap")(ToolOutput(text, "", 1), CTX)
    assert result.recognized
    [failure] = result.failures
    assert (failure.name, failure.message, failure.file, failure.line) == (
        "multiplies",
        "expected 6 got 5",
        "tests/math.sh",
        12,
    )
    [issue] = result.issues
    assert (issue.file, issue.line, issue.message) == ("tests/math.sh", 12, "multiplies failed: expected 6 got 5")


def test_absolute_at_path_is_made_root_relative() -> None:
    text = "TAP version 13\nnot ok 1 - divides\n  ---\n  at: /ws/tests/math.sh:20\n  ...\n1..1\n"
    [failure] = get_parser("tap")(ToolOutput(text, "", 1), CTX).failures
    assert (failure.file, failure.line, failure.message) == ("tests/math.sh", 20, "test failed")


def test_comments_before_the_next_point_belong_to_the_failure_only() -> None:
    text = "1..3\nnot ok 1 - first\n# first broke\nok 2 - second\n# a note for nobody\nnot ok 3 - third\n"
    failures = get_parser("tap")(ToolOutput(text, "", 1), CTX).failures
    assert [(f.name, f.message) for f in failures] == [("first", "first broke"), ("third", "test failed")]


def test_bats_tap_failure_is_placed_where_bats_says() -> None:
    output, ctx, _ = load_capture("bats", "tap")
    result = get_parser("tap")(output, ctx)
    assert result.recognized
    [failure] = result.failures
    assert (failure.name, failure.file, failure.line) == ("subtracts", "test/math.bats", 10)
    assert failure.message == '`[ "$result" -eq 2 ]\' failed'


def test_bats_tap13_yaml_message_and_not_ok_skip() -> None:
    output, ctx, _ = load_capture("bats", "tap13")
    assert "not ok 3 skips # SKIP not today" in output.stdout  # bats 1.13 prints a skip as `not ok`
    result = get_parser("tap")(output, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line, f.message) for f in result.failures] == [
        ("subtracts", "test/math.bats", 10, '`[ "$result" -eq 2 ]\' failed')
    ]


CAPTURES = [("tap", "shell-script"), ("bats", "tap"), ("bats", "tap13")]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CAPTURES), st.floats(0, 1), st.sampled_from([0, 1, None]))
def test_truncated_captures_never_raise(case: tuple[str, str], cut_out: float, code: int | None) -> None:
    truncated, ctx = truncated_capture(case, cut_out, 1.0, code)
    result = parse_node_tap(truncated, ctx)  # unwrapped: an exception is a bug even though get_parser catches it
    assert all(isinstance(issue, Issue) for issue in result.issues)
