"""Code actions for the linters that build the project first (clippy, golangci-lint), through a real LSP client:
fix-all, and the safe quick fixes one by one, each followed by a save, reach the text the tool's own `--fix`
reaches, run until it changes nothing more."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import Editor, Start, read_exact, tool_env
from tests.e2e.test_code_actions import apply_lsp_edits, edits_for, fix_all_edit, preferred_fixes_one_by_one
from tests.helpers import copy_workspace, missing_tool, require_tool, run_tool

pytestmark = pytest.mark.timeout(900)
ROUNDS = 6


@dataclass(frozen=True)
class Case:
    workspace: str
    file: str
    source: str
    own_fix: tuple[str, ...]  # the tool's own fix mode, run in a copy until it changes nothing


CASES = {
    "clippy": Case(
        "fix-rust",
        "src/lib.rs",
        "clippy",
        ("cargo", "clippy", "--fix", "--allow-dirty", "--allow-staged", "--allow-no-vcs", "--all-targets"),
    ),
    "golangci-lint": Case("fix-go", "greet.go", "golangci-lint", ("golangci-lint", "run", "--fix")),
}


def require(case: Case, cargo_target_dir: Path) -> None:
    if case.source == "clippy":
        require_tool("cargo", "install Rust with rustup")
        proc = run_tool(["cargo", "clippy", "--version"], cwd=Path.cwd(), env=tool_env(cargo_target_dir), timeout=60)
        if proc.returncode != 0:
            missing_tool("cargo clippy is not installed (rustup component add clippy)")
    else:
        require_tool("go", "install Go from https://go.dev/dl/")
        require_tool("golangci-lint")


def own_fixed_point(case: Case, tmp: Path, cargo_target_dir: Path) -> str:
    """The file once the tool's own fix mode, run again and again in a copy, changes nothing more."""
    copy = copy_workspace(case.workspace, tmp / f"by-hand-{case.source}")
    before = None
    for _ in range(ROUNDS):
        text = read_exact(copy / case.file)
        if text == before:
            return text
        before = text
        run_tool(list(case.own_fix), cwd=copy, env=tool_env(cargo_target_dir), timeout=600)
    raise AssertionError(f"{case.own_fix} still changes {case.file} after {ROUNDS} runs")


def findings(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[int, int, str]]:
    """The lint findings shown, whichever tool's (clippy relays rustc's own lints, with their fixes)."""
    return sorted(
        (d.range.start.line, d.range.start.character, str(d.code))
        for d in diagnostics
        if isinstance(d.data, dict) and d.data.get("kind") == "lint"
    )


async def save_and_relint(editor: Editor, uri: str, text: str) -> list[types.Diagnostic]:
    """Save `text` and wait for the lint of it: a fix takes its finding away, so the tool's findings change."""
    shown = findings(editor.diagnostics(uri))
    editor.save(uri, text)
    return await editor.wait_for_diagnostics(uri, lambda ds: findings(ds) != shown, timeout=300)


async def opened(
    start: Start, tmp_path: Path, cargo_target_dir: Path, tool: str
) -> tuple[Editor, str, str, list[types.Diagnostic]]:
    """The case's file open in a session, its lint shown: the editor, the file's URI, what the tool's own fix
    reaches, the diagnostics."""
    case = CASES[tool]
    require(case, cargo_target_dir)
    expected = own_fixed_point(case, tmp_path, cargo_target_dir)
    editor = await start(case.workspace)
    uri = editor.open(case.file)
    shown = await editor.wait_for_diagnostics(uri, lambda ds: any(d.source == case.source for d in ds), timeout=600)
    return editor, uri, expected, shown


@pytest.mark.parametrize("tool", CASES)
async def test_fix_all_until_stable_reaches_the_tools_own_fix(
    start: Start, tmp_path: Path, cargo_target_dir: Path, tool: str
) -> None:
    editor, uri, expected, _ = await opened(start, tmp_path, cargo_target_dir, tool)
    text = original = read_exact(editor.path(CASES[tool].file))
    for _ in range(ROUNDS):
        edit = await fix_all_edit(editor, uri)
        if edit is None:
            break
        changed = apply_lsp_edits(text, edits_for(edit, uri), editor.encoding)
        if changed == text:
            break
        text = changed
        await save_and_relint(editor, uri, text)
    assert text != original
    assert text == expected


@pytest.mark.parametrize("tool", CASES)
async def test_safe_quick_fixes_one_by_one_reach_the_tools_own_fix(
    start: Start, tmp_path: Path, cargo_target_dir: Path, tool: str
) -> None:
    editor, uri, expected, diagnostics = await opened(start, tmp_path, cargo_target_dir, tool)
    text = read_exact(editor.path(CASES[tool].file))
    text, applied = await preferred_fixes_one_by_one(editor, uri, text, diagnostics, findings)
    assert applied >= 3
    assert text == expected
    # Nothing fixable is left: fix-all has nothing to do either.
    edit = await fix_all_edit(editor, uri)
    assert edit is None or apply_lsp_edits(text, edits_for(edit, uri), editor.encoding) == text
