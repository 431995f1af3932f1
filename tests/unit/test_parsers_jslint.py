"""oxlint and biome, read by the node auto parser from output captured from the real tools on
tests/workspaces/node-linters (tests/captures/{oxlint,biome}): their JSON reports, and their default output as a
`lint` script that chains steps leaves it — both must give the same findings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lintel.core.issues import Issue
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput

from tests.helpers import load_capture

auto = get_parser("node-lint-auto")


def keys(issues: list[Issue]) -> list[tuple[Any, ...]]:
    return sorted((i.file, i.line, i.column, i.rule, i.severity, i.source) for i in issues)


def test_oxlint_json_report() -> None:
    output, ctx, meta = load_capture("oxlint", "findings-json")
    result = auto(output, ctx)
    assert result.recognized
    raw = json.loads(output.stdout)["diagnostics"]
    assert len(result.issues) == len(raw) == 3
    assert keys(result.issues) == [
        ("src/cart.js", 2, 10, "eslint(no-unused-vars)", "warning", "oxlint"),
        ("src/cart.js", 8, 7, "eslint(no-debugger)", "error", "oxlint"),  # -D no-debugger
        ("src/cart.js", 16, 9, "eslint(no-unused-vars)", "warning", "oxlint"),
    ]
    assert meta["exit_code"] == 1


def test_biome_json_report() -> None:
    output, ctx, _ = load_capture("biome", "findings-json")
    result = auto(output, ctx)
    assert result.recognized
    assert keys(result.issues) == [
        ("src/cart.js", 2, 8, "lint/correctness/noUnusedImports", "warning", "biome"),
        ("src/cart.js", 8, 7, "lint/suspicious/noDebugger", "error", "biome"),
        ("src/cart.js", 16, 9, "lint/correctness/noUnusedVariables", "warning", "biome"),
        ("src/cart.js", 17, 10, "lint/style/useTemplate", "info", "biome"),
        ("src/util.js", 2, 22, "lint/suspicious/noDoubleEquals", "error", "biome"),
    ]
    debugger = next(i for i in result.issues if i.rule == "lint/suspicious/noDebugger")
    assert debugger.message == "This is an unexpected use of the debugger statement."
    assert (debugger.end_line, debugger.end_column) == (8, 16)


@pytest.mark.parametrize("tool", ["oxlint", "biome"])
def test_the_default_output_gives_what_the_json_report_gives(tool: str) -> None:
    text, ctx, _ = load_capture(tool, "findings")
    report, _, _ = load_capture(tool, "findings-json")
    from_text, from_json = auto(text, ctx), auto(report, ctx)
    assert from_text.recognized
    assert keys(from_text.issues) == keys(from_json.issues)
    assert {i.message for i in from_text.issues} == {i.message for i in from_json.issues}


def test_a_script_chaining_both_gives_both() -> None:
    oxlint, ctx, _ = load_capture("oxlint", "findings")
    biome, _, _ = load_capture("biome", "findings")
    # `oxlint src && biome lint src` as a package manager runs it: one stdout, one stderr.
    chained = ToolOutput(oxlint.stdout + biome.stdout, biome.stderr or "", 1)
    result = auto(chained, ctx)
    assert result.recognized
    assert {i.source for i in result.issues} == {"oxlint", "biome"}
    assert len(result.issues) == 3 + 5


def test_exit_zero_with_output_in_no_known_format_is_not_recognised() -> None:
    """An unknown linter's warnings with exit 0: the check then says passed (output not parsed), never clean."""
    output = ToolOutput("src/a.js\n  3 | warn  no-console  Unexpected console statement\n1 warning\n", "", 0)
    _, ctx, _ = load_capture("oxlint", "findings")
    assert not auto(output, ctx).recognized
    quiet = ToolOutput("", 'npm warn Unknown user config "nodedir".\n', 0)
    assert auto(quiet, ctx).recognized  # silence (and npm's chatter) is a clean run


def test_xos_default_output_gives_what_its_eslint_json_gives() -> None:
    text, ctx, meta = load_capture("xo", "findings")
    report, _, _ = load_capture("xo", "findings-json")
    assert meta["exit_code"] == 1
    from_text, from_json = auto(text, ctx), auto(report, ctx)
    assert from_text.recognized
    assert len(from_text.issues) == 24
    # The JSON is eslint's (source `eslint`); xo's own format drops eslint's quotes from the messages.
    assert [k[:5] for k in keys(from_text.issues)] == [k[:5] for k in keys(from_json.issues)]
    assert {i.source for i in from_text.issues} == {"xo"}
    debugger = next(i for i in from_text.issues if i.rule == "no-debugger")
    assert (debugger.file, debugger.line, debugger.column, debugger.message) == (
        "src/cart.js",
        8,
        7,
        "Unexpected debugger statement.",
    )


def test_oxlints_output_when_ci_is_set() -> None:
    """With CI set oxlint draws its frames in Unicode (`╭─[src/cart.js:2:10]`) and in colour, NO_COLOR or not."""
    output, ctx, meta = load_capture("oxlint", "findings-ci")
    assert "CI=true" in meta["command"]
    assert "╭─[" in output.stdout
    report, _, _ = load_capture("oxlint", "findings-json")
    assert keys(auto(output, ctx).issues) == keys(auto(report, ctx).issues)
