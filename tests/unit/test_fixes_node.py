"""eslint's fixes and suggestions read from its JSON (tests/captures/eslint/fix-node-findings: real eslint 9.39
`--format json-with-metadata` on tests/workspaces/fix-node), the rules' pages, oxlint's pages, and the fix modes of
the JavaScript linters' ToolSpecs. The same fixes against eslint's own fix mode: tests/integration/test_fixes_eslint.py.
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from lintel.core.fixes import apply_edits
from lintel.core.issues import Issue, ParseContext
from lintel.languages.base import FILE_PLACEHOLDER
from lintel.languages.node.parsers import parse_eslint, parse_node_lint_auto
from lintel.languages.parsers.base import ToolOutput

from tests.helpers import WORKSPACES, column_in, load_capture, make_project, tool_for

CASE = ("eslint", "fix-node-findings")


def capture() -> tuple[dict[str, Any], ParseContext]:
    output, ctx, _ = load_capture(*CASE)
    return json.loads(output.stdout), ctx


def parsed(report: Any, ctx: ParseContext) -> list[Issue]:
    result = parse_eslint(ToolOutput(json.dumps(report), "", 1, None), ctx)
    assert result.recognized
    return list(result.issues)


def issue_at(issues: list[Issue], file: str, line: int, rule: str) -> Issue:
    (found,) = [i for i in issues if (i.file, i.line, i.rule) == (file, line, rule)]
    return found


def test_fixes_suggestions_and_pages_from_the_capture() -> None:
    report, ctx = capture()
    issues = parsed(report, ctx)
    messages = [m for result in report["results"] for m in result["messages"]]
    assert len(issues) == len(messages) == 39
    # One safe fix per eslint `fix`, one unsafe fix per suggestion, nothing else.
    safe = [f for i in issues for f in i.fixes if f.applicability == "safe"]
    unsafe = [f for i in issues for f in i.fixes if f.applicability == "unsafe"]
    assert len(safe) == sum(1 for m in messages if "fix" in m) == 31
    assert len(unsafe) == sum(len(m.get("suggestions", [])) for m in messages) == 7
    assert all(i.url == f"https://eslint.org/docs/latest/rules/{i.rule}" for i in issues)
    escape = issue_at(issues, "src/cart.js", 17, "no-useless-escape")
    assert [(f.title, f.applicability) for f in escape.fixes] == [
        ("Remove the `\\`. This maintains the current functionality.", "unsafe"),
        ("Replace the `\\` with `\\\\` to include the actual backslash character.", "unsafe"),
    ]
    assert issue_at(issues, "src/cart.js", 2, "no-var").fixes[0].title == "Fix this no-var problem"


def test_edits_count_utf16_after_emoji_cjk_and_tabs() -> None:
    """unicode.js line 2: `var` after CJK and an emoji (2 UTF-16 units); the edit's columns are UTF-16 columns,
    counted here by the test's own arithmetic, and the edit lands on `var` in the file's text."""
    report, ctx = capture()
    text = (WORKSPACES / "fix-node" / "src" / "unicode.js").read_bytes().decode("utf-8")
    line = text.split("\n")[1]
    (edit,) = issue_at(parsed(report, ctx), "src/unicode.js", 2, "no-var").fixes[0].edits
    start = line.index("var")
    assert (edit.line, edit.column, edit.end_column) == (
        2,
        column_in(line, start, "utf-16") + 1,
        column_in(line, start + 3, "utf-16") + 1,
    )
    assert edit.column != start + 1  # the emoji before it: characters and UTF-16 units differ
    fixed = apply_edits(text, [edit], "utf-16")
    assert fixed is not None
    assert fixed.split("\n")[1] == line.replace("var", "let")


def test_plain_json_reads_the_same_fixes_without_pages() -> None:
    report, ctx = capture()
    with_pages = parsed(report, ctx)
    plain = parsed(report["results"], ctx)
    assert [i.fixes for i in plain] == [i.fixes for i in with_pages]
    assert all(i.url is None for i in plain)


def test_a_lint_scripts_json_with_metadata_is_read() -> None:
    output, ctx, _ = load_capture(*CASE)
    banner = ToolOutput(f"> fixture@1.0.0 lint\n> eslint .\n\n{output.stdout}\n", "", 1, None)
    result = parse_node_lint_auto(banner, ctx)
    assert result.recognized
    assert [(i.fixes, i.url) for i in result.issues] == [(i.fixes, i.url) for i in parse_eslint(output, ctx).issues]


def without_source(report: dict[str, Any], file_path: str) -> list[dict[str, Any]]:
    (result,) = [copy.deepcopy(r) for r in report["results"] if r["filePath"].endswith("/src/crlf.js")]
    del result["source"]
    result["filePath"] = file_path
    return [result]


def test_without_source_the_file_is_read_from_disk(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    report, ctx = capture()
    (tmp_path / "src").mkdir()
    crlf = (WORKSPACES / "fix-node" / "src" / "crlf.js").read_bytes()
    (tmp_path / "src" / "crlf.js").write_bytes(crlf)
    here = ParseContext(cwd=str(tmp_path), root=str(tmp_path))
    from_disk = parsed(without_source(report, str(tmp_path / "src" / "crlf.js")), here)
    in_report = [i for i in parsed(report, ctx) if i.file == "src/crlf.js"]
    assert [i.fixes for i in from_disk] == [i.fixes for i in in_report]
    assert sum(len(i.fixes) for i in from_disk) == 8
    # A file that changed since eslint read it: fixes whose ranges no longer fit are dropped, with a log line.
    (tmp_path / "src" / "crlf.js").write_bytes(crlf[:40])
    with caplog.at_level(logging.INFO, logger="lintel.languages.node.eslintfix"):
        shorter = parsed(without_source(report, str(tmp_path / "src" / "crlf.js")), here)
    assert 0 < sum(len(i.fixes) for i in shorter) < 8
    assert "does not fit" in caplog.text
    # No file at all: the findings stay, without fixes.
    (tmp_path / "src" / "crlf.js").unlink()
    gone = parsed(without_source(report, str(tmp_path / "src" / "crlf.js")), here)
    assert len(gone) == len(in_report)
    assert not any(i.fixes for i in gone)


def one_message(source: str, **message: Any) -> list[dict[str, Any]]:
    base = {"ruleId": "r", "severity": 2, "message": "m", "line": 1, "column": 1}
    return [{"filePath": "/w/a.js", "messages": [{**base, **message}], "source": source}]


def test_a_range_inside_a_surrogate_pair_or_past_the_end_is_dropped() -> None:
    ctx = ParseContext(cwd="/w", root="/w")
    source = "x = '😀';\n"  # the emoji is UTF-16 units 5 and 6
    (inside,) = parsed(one_message(source, fix={"range": [6, 7], "text": ""}), ctx)
    (past,) = parsed(one_message(source, fix={"range": [3, 99], "text": ""}), ctx)
    (whole,) = parsed(one_message(source, fix={"range": [5, 7], "text": "ok"}), ctx)
    assert inside.fixes == past.fixes == ()
    assert apply_edits(source, whole.fixes[0].edits, "utf-16") == "x = 'ok';\n"


def test_ranges_count_without_the_byte_order_mark() -> None:
    """eslint's ranges, lines and columns leave a BOM out (its SourceCode strips it); `source` keeps it."""
    ctx = ParseContext(cwd="/w", root="/w")
    (issue,) = parsed(one_message("\ufeffvar a = 1;\n", fix={"range": [0, 3], "text": "let"}), ctx)
    (edit,) = issue.fixes[0].edits
    assert (edit.line, edit.column, edit.end_column, edit.new_text) == (1, 1, 4, "let")


@pytest.mark.parametrize(
    "message",
    [
        {"fix": {"range": "0,1", "text": "a"}},
        {"fix": {"range": [0], "text": "a"}},
        {"fix": {"range": [True, 1], "text": "a"}},
        {"fix": {"range": [2, 1], "text": "a"}},
        {"fix": {"range": [0, 1], "text": None}},
        {"fix": None, "suggestions": "no"},
        {"suggestions": [None, 3, {"desc": 5, "fix": "x"}, {"fix": {"range": [-1, 0], "text": ""}}]},
    ],
)
def test_malformed_fixes_never_raise_and_give_no_fix(message: dict[str, Any]) -> None:
    (issue,) = parsed(one_message("abc\n", **message), ParseContext(cwd="/w", root="/w"))
    assert issue.fixes == ()


def test_a_suggestion_without_desc_is_titled_by_its_rule() -> None:
    (issue,) = parsed(
        one_message("abc\n", suggestions=[{"fix": {"range": [0, 1], "text": "A"}}]), ParseContext("/w", "/w")
    )
    assert [(f.title, f.applicability) for f in issue.fixes] == [("Suggestion for r", "unsafe")]


def test_oxlint_json_gives_each_rules_page() -> None:
    output, ctx, _ = load_capture("oxlint", "findings-json")
    issues = parse_node_lint_auto(output, ctx).issues
    assert issues
    assert all(i.url and i.url.startswith("https://oxc.rs/docs/guide/usage/linter/rules/") for i in issues)
    assert not any(i.fixes for i in issues)  # oxlint's JSON carries no fix


# --- fix modes ---------------------------------------------------------------------------------------

NPX = ("npx", "--no-install")
ESLINT_STDIN = (*NPX, "eslint", "--fix-dry-run", "--stdin", "--stdin-filename", FILE_PLACEHOLDER, "--format", "json")


def test_eslints_fix_mode_on_the_default_run(tmp_path: Path) -> None:
    project = make_project("node", tmp_path, ("package.json",), package_manager="npm")
    mode = tool_for(project, "lint").fix_mode
    assert mode is not None
    assert mode.argv == (*NPX, "eslint", "--fix", ".")
    assert (mode.unsafe_args, mode.stdin_argv, mode.stdin_unsafe_args, mode.stdin_output) == (
        (),
        ESLINT_STDIN,
        (),
        "eslint-json",
    )


@pytest.mark.parametrize(
    ("manager", "script", "argv", "unsafe", "stdin"),
    [
        ("npm", "eslint src", ("npm", "run", "--silent", "lint", "--", "--fix"), (), ESLINT_STDIN),
        ("pnpm", "eslint .", ("pnpm", "run", "lint", "--fix"), (), ESLINT_STDIN),
        ("npm", "oxlint src", ("npm", "run", "--silent", "lint", "--", "--fix"), ("--fix-suggestions",), ()),
        (
            "yarn",
            "biome lint src",
            ("yarn", "--silent", "run", "lint", "--write"),
            ("--unsafe",),
            (*NPX, "biome", "lint", "--write", "--stdin-file-path", FILE_PLACEHOLDER),
        ),
        (
            "npm",
            "biome check --reporter=json .",
            ("npm", "run", "--silent", "lint", "--", "--write"),
            ("--unsafe",),
            (*NPX, "biome", "check", "--write", "--stdin-file-path", FILE_PLACEHOLDER),
        ),
    ],
)
def test_a_bare_linter_script_is_fixed_through_the_script(
    tmp_path: Path, manager: str, script: str, argv: tuple[str, ...], unsafe: tuple[str, ...], stdin: tuple[str, ...]
) -> None:
    project = make_project("node", tmp_path, ("package.json",), package_manager=manager, scripts={"lint": script})
    mode = tool_for(project, "lint").fix_mode
    assert mode is not None
    assert (mode.argv, mode.unsafe_args, mode.stdin_argv) == (argv, unsafe, stdin)


@pytest.mark.parametrize("script", ["biome ci .", "eslint . && prettier -c src", "xo", "node lint.js"])
def test_no_fix_mode_where_the_script_cannot_fix(tmp_path: Path, script: str) -> None:
    project = make_project("node", tmp_path, ("package.json",), package_manager="npm", scripts={"lint": script})
    assert tool_for(project, "lint").fix_mode is None


def test_a_test_script_has_no_fix_mode(tmp_path: Path) -> None:
    project = make_project("node", tmp_path, ("package.json",), package_manager="npm", scripts={"test": "eslint ."})
    assert tool_for(project, "test").fix_mode is None
