"""The shellcheck parser against ShellCheck 0.11's real output (tests/captures/shellcheck/, the scripts and commands
in tests/captures/README.md), and against the real binary on a temporary script."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.issues import Issue, ParseContext
from lintel.languages.parsers import get_parser, is_known_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.shellcheck import parse_shellcheck

from tests.helpers import load_capture, run_tool, tool_path, truncated_capture

CTX = ParseContext(cwd="/ws", root="/ws")

# What ShellCheck finds in the scratch project's deploy.sh and broken.sh: (file, line, column, severity, rule).
SCRATCH = [
    ("broken.sh", 2, 1, "error", "SC1073"),
    ("broken.sh", 3, 14, "warning", "SC1010"),
    ("broken.sh", 4, 1, "error", "SC1050"),
    ("broken.sh", 4, 1, "error", "SC1072"),
    ("deploy.sh", 4, 24, "info", "SC2086"),
    ("deploy.sh", 5, 1, "warning", "SC2034"),
    ("deploy.sh", 5, 7, "info", "SC2006"),
    ("deploy.sh", 5, 11, "info", "SC2035"),
    ("deploy.sh", 6, 1, "warning", "SC2164"),
    ("deploy.sh", 6, 4, "info", "SC2086"),
    ("deploy.sh", 7, 6, "warning", "SC2154"),
    ("deploy.sh", 7, 6, "info", "SC2086"),
]


def keys(issues: list[Issue]) -> list[tuple[str | None, int | None, int | None, str, str | None]]:
    return sorted((i.file, i.line, i.column, i.severity, i.rule) for i in issues)


def test_registered_as_shellcheck() -> None:
    assert is_known_parser("shellcheck")
    assert get_parser("shellcheck").__wrapped__ is parse_shellcheck  # type: ignore[attr-defined]


def test_json1_findings() -> None:
    output, ctx, meta = load_capture("shellcheck", "scratch-json1")
    assert meta["command"][:3] == ["shellcheck", "-f", "json1"]
    result = parse_shellcheck(output, ctx)
    assert result.recognized
    assert keys(result.issues) == sorted(SCRATCH)
    assert {(i.kind, i.source) for i in result.issues} == {("lint", "shellcheck")}
    cd = next(i for i in result.issues if i.rule == "SC2164")
    assert cd.message == "Use 'cd ... || exit' or 'cd ... || return' in case cd fails."
    assert (cd.end_line, cd.end_column) == (6, 11)


def test_json1_columns_count_a_tab_and_an_emoji_as_one_each() -> None:
    # deploy.sh line 4 is `\techo "🚀 deploying to" $target`: `$target` is the 24th code point (UTF-16 would say
    # 25, UTF-8 27), and ShellCheck's exclusive end is the 31st, as Issue (ruff's convention) wants.
    output, ctx, _ = load_capture("shellcheck", "scratch-json1")
    [quote] = [i for i in parse_shellcheck(output, ctx).issues if (i.file, i.line) == ("deploy.sh", 4)]
    line = '\techo "🚀 deploying to" $target'
    assert line[quote.column - 1 : quote.end_column - 1] == "$target"  # type: ignore[operator]


def test_gcc_format_fallback() -> None:
    output, ctx, _ = load_capture("shellcheck", "scratch-gcc")
    result = parse_shellcheck(output, ctx)
    assert result.recognized
    # gcc prints info and style both as `note`, with json1's columns and no end.
    assert keys(result.issues) == sorted(SCRATCH)
    assert all(i.end_column is None for i in result.issues)


def test_legacy_json_keeps_lines_and_drops_tab_expanded_columns() -> None:
    output, ctx, _ = load_capture("shellcheck", "scratch-json")
    assert '"line":4,"endLine":4,"column":31' in output.stdout  # the tab counted as 8
    result = parse_shellcheck(output, ctx)
    assert result.recognized
    assert sorted((i.file, i.line, i.rule) for i in result.issues) == sorted(
        (f, line, rule) for f, line, _, _, rule in SCRATCH if f == "deploy.sh"
    )
    assert all(i.column is None and i.end_column is None for i in result.issues)


@pytest.mark.parametrize("case", ["clean-json1", "clean-gcc"])
def test_clean_runs(case: str) -> None:
    output, ctx, meta = load_capture("shellcheck", case)
    assert meta["exit_code"] == 0
    result = parse_shellcheck(output, ctx)
    assert result.recognized
    assert result.issues == []


def test_empty_output_with_exit_0_is_clean() -> None:
    result = parse_shellcheck(ToolOutput("", "", 0), CTX)
    assert result.recognized
    assert result.issues == []


@pytest.mark.parametrize("case", ["missing-file", "bad-option"])
def test_failed_runs_without_findings_are_not_recognized(case: str) -> None:
    output, ctx, meta = load_capture("shellcheck", case)
    assert meta["exit_code"] in (2, 4)
    result = parse_shellcheck(output, ctx)
    assert not result.recognized
    assert result.issues == []


@pytest.mark.parametrize("code", [0, 1])
def test_garbage_is_not_recognized(code: int) -> None:
    result = get_parser("shellcheck")(ToolOutput("Segmentation fault\nsomething else\n", "", code), CTX)
    assert not result.recognized
    assert result.issues == []


@pytest.mark.tool("shellcheck")
def test_real_shellcheck_on_a_temporary_script(tmp_path: Path) -> None:
    script = tmp_path / "scripts" / "greet.sh"
    script.parent.mkdir()
    line = '\tprintf "👋 %s\\n" $1'
    script.write_text(f"#!/bin/sh\n{line}\n", encoding="utf-8")
    binary = shutil.which("shellcheck", path=tool_path())
    assert binary is not None
    proc = run_tool([binary, "-f", "json1", "scripts/greet.sh"], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    result = get_parser("shellcheck")(
        ToolOutput(proc.stdout, proc.stderr, proc.returncode), ParseContext(cwd=str(tmp_path), root=str(tmp_path))
    )
    assert result.recognized
    [issue] = result.issues
    # `$1` after a tab and an emoji: counted in code points (Python's str), the tab as one, the end exclusive.
    start = line.index("$1") + 1
    assert (issue.file, issue.line, issue.column, issue.end_line, issue.end_column) == (
        "scripts/greet.sh",
        2,
        start,
        2,
        start + 2,
    )
    assert (issue.rule, issue.severity, issue.kind, issue.source) == ("SC2086", "info", "lint", "shellcheck")
    assert issue.message == "Double quote to prevent globbing and word splitting."


CAPTURES = ["scratch-json1", "scratch-gcc", "scratch-json", "clean-json1", "missing-file", "fix-shell-json1"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CAPTURES), st.floats(0, 1), st.sampled_from([0, 1, 2, None]))
def test_truncated_captures_never_raise(case: str, cut_out: float, code: int | None) -> None:
    truncated, ctx = truncated_capture(("shellcheck", case), cut_out, 1.0, code)
    result = parse_shellcheck(truncated, ctx)  # unwrapped: an exception is a bug even though get_parser catches it
    assert all(isinstance(issue, Issue) for issue in result.issues)


@settings(deadline=None)
@given(st.text(), st.one_of(st.none(), st.integers(-300, 300)))
def test_random_text_never_raises(stdout: str, code: int | None) -> None:
    parse_shellcheck(ToolOutput(stdout, "", code), CTX)
