"""The fixes the Rust, Go and shell parsers read from real tool output (tests/captures, the `fix-*` cases), and what
they drop: spans outside the root, offsets that do not fall on the file's text, a file changed since the run."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.fixes import apply_edits
from lintel.core.issues import Issue, ParseContext
from lintel.languages.go.gofix import golangci_fixes
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.rust.rustfix import compiler_fixes

from tests.helpers import WORKSPACES, load_capture


def read_from(folder: Path) -> Any:
    return lambda file: (folder / file).read_bytes().decode("utf-8") if (folder / file).is_file() else None


def parsed(tool: str, case: str, texts: Path | None = None) -> list[Issue]:
    output, ctx, _ = load_capture(tool, case)
    if texts is not None:
        ctx = ParseContext(cwd=ctx.cwd, root=ctx.root, read_text=read_from(texts))
    return get_parser(tool)(output, ctx).issues


def applied(issue: Issue, folder: Path, unit: Any) -> str | None:
    [fix] = issue.fixes
    text = (folder / fix.edits[0].file).read_bytes().decode("utf-8")
    return apply_edits(text, fix.edits, unit)


# --- rustc / clippy ------------------------------------------------------------------------------------------


def test_clippy_children_become_fixes_with_their_applicability_and_the_rule_page() -> None:
    issues = {(i.rule, i.line): i for i in parsed("clippy", "fix-rust")}
    needless = issues[("clippy::needless_return", 18)]
    [fix] = needless.fixes
    assert (fix.title, fix.applicability, [e.new_text for e in fix.edits]) == (
        "remove `return`",
        "safe",
        ["value * 2", ""],
    )
    assert needless.url == "https://rust-lang.github.io/rust-clippy/rust-1.95.0/index.html#needless_return"
    assert [f.applicability for f in issues[("clippy::ptr_arg", 21)].fixes] == ["display"]
    assert issues[("unused_variables", 52)].url is None  # rustc's own lints name no page
    assert [e.new_text for e in issues[("unused_variables", 52)].fixes[0].edits] == ["_unused"]


def test_clippy_edits_count_characters_past_an_emoji_and_a_tab() -> None:
    folder = WORKSPACES / "fix-rust"
    issues = {(i.rule, i.file, i.line): i for i in parsed("clippy", "fix-rust")}
    len_zero = applied(issues[("clippy::len_zero", "src/lib.rs", 26)], folder, "utf-32")
    assert len_zero is not None
    assert 'let label = "héllo 🚀 wörld"; if s.is_empty() {' in len_zero
    contains = applied(issues[("clippy::manual_range_contains", "src/ranges.rs", 4)], folder, "utf-32")
    assert contains is not None
    assert '\tlet _note = "ünïcödé 🚀"; (1..10).contains(&x)\n' in contains


def _span(file: str, applicability: str | None, replacement: str | None = "x") -> dict[str, Any]:
    return {
        "file_name": file,
        "line_start": 2,
        "column_start": 1,
        "line_end": 2,
        "column_end": 4,
        "suggested_replacement": replacement,
        "suggestion_applicability": applicability,
    }


def _locate(span: Mapping[str, Any]) -> str | None:
    name = str(span.get("file_name"))
    return None if name.startswith("<") else ParseContext(cwd="/w", root="/w").relpath(name)


def test_rustc_applicabilities_map_to_lintels_and_a_fix_takes_its_weakest_span() -> None:
    children = [
        {"message": "a", "spans": [_span("src/a.rs", "MaybeIncorrect")]},
        {"message": "b", "spans": [_span("src/a.rs", "HasPlaceholders")]},
        {"message": "c", "spans": [_span("src/a.rs", "MachineApplicable"), {**_span("src/b.rs", "MaybeIncorrect")}]},
        {"message": "d", "spans": [_span("src/a.rs", None)]},
        {"message": "no replacement", "spans": [_span("src/a.rs", "MachineApplicable", None)]},
    ]
    fixes = compiler_fixes(children, _locate)
    assert [(f.title, f.applicability) for f in fixes] == [
        ("a", "unsafe"),
        ("b", "display"),
        ("c", "unsafe"),
        ("d", "display"),
    ]
    assert fixes[2].files == {"src/a.rs", "src/b.rs"}  # another file of the workspace is fine


def test_a_rustc_fix_reaching_outside_the_root_or_into_a_pseudo_file_is_dropped_whole() -> None:
    children = [
        {
            "message": "std",
            "spans": [_span("src/a.rs", "MachineApplicable"), _span("/rustc/1/lib.rs", "MachineApplicable")],
        },
        {"message": "macro", "spans": [_span("<anon>", "MachineApplicable")]},
        {"message": "kept", "spans": [_span("src/a.rs", "MachineApplicable")]},
    ]
    assert [f.title for f in compiler_fixes(children, _locate)] == ["kept"]


# --- golangci-lint -------------------------------------------------------------------------------------------


def test_golangci_fixes_are_byte_edits_that_give_what_the_linter_suggests() -> None:
    folder = WORKSPACES / "fix-go"
    issues = {(i.rule, i.file, i.line): i for i in parsed("golangci-lint", "fix-go", folder)}
    godot = issues[("godot", "greet.go", 10)]
    [edit] = godot.fixes[0].edits
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (10, 1, 10, 60)  # 55 characters, 59 bytes
    assert applied(godot, folder, "utf-8") is not None
    whitespace = applied(issues[("whitespace", "greet.go", 11)], folder, "utf-8")
    assert whitespace is not None
    # whitespace's edit takes the blank line and the next line's tab: `run --fix` gofmts the file after its edits.
    assert "func Greet(name string) string {\nreturn fmt.Sprintf" in whitespace
    gofmt = applied(issues[("gofmt", "sub/sub.go", 6)], folder, "utf-8")
    assert gofmt is not None
    assert "\tif n > 0 {\n\t\treturn n\n\t}\n" in gofmt
    assert all(f.applicability == "safe" for i in issues.values() for f in i.fixes)
    assert all(i.url is None for i in issues.values())
    assert len([i for i in issues.values() if i.fixes]) == len(issues) == 8


def test_golangci_fixes_need_the_files_text() -> None:
    assert not any(i.fixes for i in parsed("golangci-lint", "fix-go"))


def _raw(case: str, rule: str, line: int) -> dict[str, Any]:
    output, _, _ = load_capture("golangci-lint", case)
    issues: list[dict[str, Any]] = json.loads(output.stdout)["Issues"]
    [raw] = [i for i in issues if i["FromLinter"] == rule and i["Pos"]["Line"] == line]
    return copy.deepcopy(raw)


GO_TEXT = (WORKSPACES / "fix-go" / "greet.go").read_bytes()
GO_CTX = ParseContext(cwd="/w", root="/w", read_text=read_from(WORKSPACES / "fix-go"))


def test_a_golangci_fix_that_does_not_apply_cleanly_is_dropped() -> None:
    raw = _raw("fix-go", "godot", 10)
    assert golangci_fixes(raw, "greet.go", GO_CTX)
    inside = copy.deepcopy(raw)
    inside["SuggestedFixes"][0]["TextEdits"][0]["Pos"] = GO_TEXT.index("🚀".encode()) + 1  # the emoji's 2nd byte
    assert golangci_fixes(inside, "greet.go", GO_CTX) == ()
    past = copy.deepcopy(raw)
    past["SuggestedFixes"][0]["TextEdits"][0]["End"] = 10**6
    assert golangci_fixes(past, "greet.go", GO_CTX) == ()
    elsewhere = copy.deepcopy(raw)
    elsewhere["SuggestedFixes"][0]["TextEdits"][0].update(Pos=0, End=2)  # line 1, not the flagged line 10
    assert golangci_fixes(elsewhere, "greet.go", GO_CTX) == ()
    not_base64 = copy.deepcopy(raw)
    not_base64["SuggestedFixes"][0]["TextEdits"][0]["NewText"] = "%%%"
    assert golangci_fixes(not_base64, "greet.go", GO_CTX) == ()


def test_golangci_fixes_of_a_file_changed_since_the_run_are_left_out() -> None:
    raw = _raw("fix-go", "godot", 10)
    raw["SourceLines"] = ["// Greet says something else"]
    assert golangci_fixes(raw, "greet.go", GO_CTX) == ()


def test_a_deletion_has_null_new_text() -> None:
    raw = _raw("fix-go", "perfsprint", 13)
    raw["SuggestedFixes"][0]["TextEdits"][0]["NewText"] = None
    [fix] = golangci_fixes(raw, "greet.go", GO_CTX)
    assert fix.edits[0].new_text == ""


REVIVE_A = (
    'package rev\n\nimport (\n\t"errors"\n\t"fmt"\n)\n\n// Fa loops.\nfunc Fa(xs []int, s string) error {\n'
    '\tfor i, _ := range xs {\n\t\t_ = i\n\t}\n\treturn errors.New(fmt.Sprintf("x %s", s))\n}\n'
)


def test_reviews_whole_line_edits_printed_past_the_line_start_are_dropped() -> None:
    output, ctx, _ = load_capture("golangci-lint", "revive-fixes")
    raw = json.loads(output.stdout)["Issues"][0]
    assert raw["SuggestedFixes"][0]["TextEdits"][0]["Pos"] == REVIVE_A.index("\tfor") + 1
    reading = ParseContext(cwd=ctx.cwd, root=ctx.root, read_text=lambda file: REVIVE_A if file == "a.go" else None)
    issues = get_parser("golangci-lint")(output, reading).issues
    assert len(issues) == 6
    assert not any(i.fixes for i in issues)
    # The same edit starting at the line is kept: the check is on where it starts, not on revive as such.
    raw["SuggestedFixes"][0]["TextEdits"][0]["Pos"] -= 1
    [fix] = golangci_fixes(raw, "a.go", reading)
    assert apply_edits(REVIVE_A, fix.edits, "utf-8") == REVIVE_A.replace("for i, _ :=", "for i :=")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**4) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200)
@given(
    pos=st.integers(-3, 700),
    end=st.integers(-3, 700),
    new=st.one_of(st.none(), st.text(max_size=5), st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode())),
    line=_JSON,
    junk=_JSON,
)
def test_golangci_fixes_never_raise(pos: int, end: int, new: Any, line: Any, junk: Any) -> None:
    raw = _raw("fix-go", "godot", 10)
    raw["SuggestedFixes"][0]["TextEdits"][0].update(Pos=pos, End=end, NewText=new)
    raw["SuggestedFixes"].append(junk)
    raw["Pos"]["Line"] = line
    raw["LineRange"] = junk
    for fix in golangci_fixes(raw, "greet.go", GO_CTX):
        assert apply_edits(GO_TEXT.decode("utf-8"), fix.edits, "utf-8") is not None


@settings(max_examples=200)
@given(children=_JSON)
def test_rustc_fixes_never_raise(children: Any) -> None:
    compiler_fixes(children, _locate)


# --- shellcheck ----------------------------------------------------------------------------------------------


def test_shellcheck_replacements_become_one_fix_per_comment_in_characters() -> None:
    folder = WORKSPACES / "fix-shell"
    issues = [i for i in parsed("shellcheck", "fix-shell-json1") if i.fixes]
    assert len(issues) == 7
    by_place = {(i.rule, i.line, i.column): i for i in issues}
    quoted = applied(by_place[("SC2086", 5, 28)], folder, "utf-32")  # after a tab and an emoji
    assert quoted is not None
    assert '\techo "🚀 déploiement vers" "$target" $2\n' in quoted
    backticks = applied(by_place[("SC2006", 6, 35)], folder, "utf-32")
    assert backticks is not None
    assert "then echo $(date); fi" in backticks


_AT_3 = {"line": 1, "column": 3, "endLine": 1, "endColumn": 3}


def test_shellchecks_insertions_at_one_place_keep_its_order() -> None:
    comment = {
        "file": "a.sh",
        "line": 1,
        "column": 1,
        "endLine": 1,
        "endColumn": 3,
        "level": "info",
        "code": 1,
        "message": "m",
        "fix": {
            "replacements": [
                {
                    "line": 1,
                    "column": 3,
                    "endLine": 1,
                    "endColumn": 3,
                    "insertionPoint": "beforeStart",
                    "replacement": "B",
                },
                {
                    "line": 1,
                    "column": 3,
                    "endLine": 1,
                    "endColumn": 3,
                    "insertionPoint": "afterEnd",
                    "replacement": "A",
                },
            ]
        },
    }
    output = ToolOutput(json.dumps({"comments": [comment]}), "", 1)
    [issue] = get_parser("shellcheck")(output, ParseContext(cwd="/w", root="/w")).issues
    assert apply_edits("xy z", issue.fixes[0].edits, "utf-32") == "xyAB z"


def test_the_older_json_format_carries_no_fixes() -> None:
    assert not any(i.fixes for i in parsed("shellcheck", "scratch-json"))
