"""lintel.engine.fixrun's file-by-file path: the findings' own fixes applied (one round) when `rules` narrows the run,
what counts as inside the workspace, and writes that refuse a file that moved on or lies outside."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lintel.core.fixes import Edit, Fix
from lintel.core.issues import Issue, make_issue
from lintel.engine.config import LintelConfig
from lintel.engine.fixrun import FixedFile, FixScope, _fix_file, _Target, inside_workspace, write_text

from tests.helpers import make_project, require_tool

SOURCE = "import os\nimport sys\n\nprint(undefined)\n"


def unused(name: str, line: int) -> Issue:
    remove = Fix(f"Remove unused import: `{name}`", "safe", (Edit("a.py", line, 1, line + 1, 1, ""),))
    return make_issue(
        kind="lint", message=f"`{name}` imported but unused", source="ruff", file="a.py", line=line, column=8,
        rule="F401", fixes=[remove],
    )  # fmt: skip


def target(root: Path) -> _Target:
    (root / "pyproject.toml").write_text('[project]\nname = "a"\nversion = "0"\n', encoding="utf-8")
    path = root / "a.py"
    path.write_text(SOURCE, encoding="utf-8")
    undefined = make_issue(kind="lint", message="undefined", source="ruff", file="a.py", line=4, rule="F821")
    project = make_project("python", root, ("pyproject.toml",))
    return _Target(project, "a.py", path.resolve(), [unused("os", 1), unused("sys", 2), undefined])


def fix_file(
    root: Path, scope_target: _Target, *, dry_run: bool = False
) -> tuple[dict[str, FixedFile], dict[str, list[Issue]]]:
    files: dict[str, FixedFile] = {}
    rechecked: dict[str, list[Issue]] = {}
    fix_scope = FixScope([scope_target.project], rules={"F401"}, dry_run=dry_run)
    asyncio.run(_fix_file(scope_target, fix_scope, root.resolve(), LintelConfig(), files, rechecked))
    return files, rechecked


def test_rules_apply_the_findings_own_fixes_and_write_them(tmp_path: Path) -> None:
    files, _ = fix_file(tmp_path, target(tmp_path))
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "\nprint(undefined)\n"
    assert files["a.py"].fixes == 2
    assert files["a.py"].diff.startswith("--- a/a.py\n+++ b/a.py\n")


def test_a_dry_run_writes_nothing_and_checks_the_new_text_again(tmp_path: Path) -> None:
    require_tool("ruff")
    files, rechecked = fix_file(tmp_path, target(tmp_path), dry_run=True)
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == SOURCE
    assert files["a.py"].new == "\nprint(undefined)\n"
    assert rechecked["a.py"] == []  # ruff, given the new text, finds no F401 left


def test_a_fix_that_does_not_fit_the_text_is_dropped(tmp_path: Path) -> None:
    stale = target(tmp_path)
    # The findings describe another text: this one has no line 2 for their edits to end on.
    (tmp_path / "a.py").write_text("x = 1", encoding="utf-8")
    files, _ = fix_file(tmp_path, stale)
    assert files == {}
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "x = 1"


def test_inside_the_workspace_means_after_symlinks(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "x.py").write_text("x = 1\n", encoding="utf-8")
    (root / "own.py").write_text("y = 1\n", encoding="utf-8")
    (root / "link.py").symlink_to(outside / "x.py")
    (root / "dir").symlink_to(outside, target_is_directory=True)
    assert inside_workspace(root, "own.py") == root / "own.py"
    for name in ("link.py", "dir/x.py", "../outside/x.py", str(outside / "x.py"), "missing.py"):
        assert inside_workspace(root, name) is None, name


def test_a_write_is_refused_outside_the_workspace_or_over_a_changed_file(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "x.py"
    outside.write_text("a\n", encoding="utf-8")
    (root / "link.py").symlink_to(outside)
    assert not write_text(root / "link.py", root, "a\n", "b\n")
    assert outside.read_text(encoding="utf-8") == "a\n"
    mine = root / "mine.py"
    mine.write_bytes(b"a\r\n")
    assert not write_text(mine, root, "a\n", "b\n")  # the file is not what was read
    assert write_text(mine, root, "a\r\n", "b\r\n")
    assert mine.read_bytes() == b"b\r\n"


def test_only_files_with_a_fix_to_apply_get_a_fix_run(tmp_path: Path) -> None:
    """A file whose findings carry fixes, none of them allowed, is not run; a tool whose parser gave no fix at all
    is run anyway (its own fix mode decides)."""
    from lintel.engine.checks import RunResult
    from lintel.engine.fixrun import _fixable

    project = make_project("python", tmp_path, ("pyproject.toml",))
    unsafe_only = Fix("Maybe", "unsafe", (Edit("b.py", 1, 1, 1, 2, "y"),))
    b = make_issue(kind="lint", message="b", source="ruff", file="b.py", line=1, rule="B1", fixes=[unsafe_only])
    c = make_issue(kind="lint", message="c", source="ruff", file="c.py", line=1, rule="C1")
    d = make_issue(kind="lint", message="d", source="other", file="d.py", line=1, rule="D1")
    targets = [_Target(project, i.file or "", tmp_path / (i.file or ""), [i]) for i in (unused("os", 1), b, c, d)]
    run = RunResult("python", "lint", "ruff", [], tmp_path, "findings", issues=[t.issues[0] for t in targets])
    assert [t.rel for t in _fixable(targets, [run], unsafe=False)] == ["a.py", "d.py"]
    assert [t.rel for t in _fixable(targets, [run], unsafe=True)] == ["a.py", "b.py", "d.py"]
