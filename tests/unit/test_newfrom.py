"""Hold the line against a ref (lintel.engine.newfrom) on small git repositories: the merge base and its errors,
the temporary worktree (always removed), changed lines from `git diff -U0`, and the base's issues renamed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lintel.core.issues import Issue, SourceLines, finalize_issues, make_issue
from lintel.engine.config import LintelConfig
from lintel.engine.discover import discover
from lintel.engine.newfrom import (
    BaseCheck,
    MergeBase,
    NewFromError,
    as_working_tree,
    base_checkout,
    base_scope,
    changed_lines,
    merge_base,
    on_changed_lines,
    renamed_files,
)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def commit(root: Path, files: dict[str, str], message: str = "next") -> None:
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def worktrees(root: Path) -> int:
    return git(root, "worktree", "list", "--porcelain").count("worktree ")


def test_the_merge_base_of_a_branch_is_where_it_forked(tmp_path: Path) -> None:
    root = repo(tmp_path / "r", {"a.py": "1\n"})
    fork = git(root, "rev-parse", "HEAD").strip()
    commit(root, {"a.py": "2\n"})
    git(root, "checkout", "-q", "-b", "feature", fork)
    commit(root, {"b.py": "3\n"})
    base = merge_base(root / ".", "main")
    assert base.commit == fork
    assert base.top == root.resolve()
    assert merge_base(root, "HEAD~1").commit == fork


def test_errors_say_what_is_wrong(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NewFromError, match="is not in a git repository"):
        merge_base(plain, "main")
    root = repo(tmp_path / "r", {"a.py": "1\n"})
    with pytest.raises(NewFromError, match="git does not know 'nope'"):
        merge_base(root, "nope")
    with pytest.raises(NewFromError, match="git does not know '--all'"):
        merge_base(root, "--all")
    git(root, "checkout", "-q", "--orphan", "other")
    commit(root, {"b.py": "2\n"})
    with pytest.raises(NewFromError, match="no merge base of main and HEAD"):
        merge_base(root, "main")


def test_the_worktree_is_removed_after_use_and_on_error(tmp_path: Path) -> None:
    root = repo(tmp_path / "r", {"a.py": "old\n"})
    (root / "node_modules").mkdir()
    (root / "node_modules/keep.txt").write_text("the working tree's\n")
    commit(root, {"a.py": "new\n", ".gitignore": "node_modules/\n"})
    hook = root / ".git/hooks/post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch '{tmp_path / 'hook ran'}'\n")
    hook.chmod(0o755)
    base = merge_base(root, "HEAD~1")
    with base_checkout(base) as checkout:
        assert (checkout.top / "a.py").read_text() == "old\n"
        assert checkout.top.name == root.name
        checkout.borrow_installs(base.top, [root.resolve()])
        assert (checkout.top / "node_modules/keep.txt").read_text() == "the working tree's\n"
        assert worktrees(root) == 2
    assert not checkout.top.exists()
    assert not checkout.top.parent.exists()
    assert worktrees(root) == 1
    assert (root / "node_modules/keep.txt").exists()  # removing the checkout never reached through the link
    assert not (tmp_path / "hook ran").exists()
    with pytest.raises(RuntimeError), base_checkout(base) as failing:
        raise RuntimeError("a check crashed")
    assert not failing.top.parent.exists()
    assert worktrees(root) == 1


def test_changed_lines_are_the_diff_hunks_and_untracked_files_whole(tmp_path: Path) -> None:
    lines = "".join(f"line {n}\n" for n in range(1, 11))
    root = repo(
        tmp_path / "r", {"pkg/a.py": lines, "pkg/gone.py": "x\n", "pkg/old name.py": lines, 'pkg/say "hi".py': lines}
    )
    base = merge_base(root, "HEAD")
    edited = lines.replace("line 3\n", "line three\n").replace("line 7\n", "").replace("line 9\n", "line 9\nnew\n")
    commit(root, {"pkg/a.py": edited, 'pkg/say "hi".py': lines + "end\n"})
    (root / "pkg/gone.py").unlink()
    git(root, "mv", "pkg/old name.py", "pkg/café.py")
    write(root, {"pkg/café.py": lines.replace("line 5\n", "line five\n"), "pkg/untracked.py": "u\n"})
    changed = changed_lines(base, root / "pkg")
    # line 7's deletion marks nothing; the renamed file counts its edit only; the untracked file is whole.
    assert changed == {
        "a.py": frozenset({3, 9}),
        "café.py": frozenset({5}),
        'say "hi".py': frozenset({11}),
        "untracked.py": None,
    }
    assert renamed_files(base, root) == {"pkg/old name.py": "pkg/café.py"}


def issue(file: str | None, line: int | None, rule: str = "F401") -> Issue:
    return make_issue(kind="lint", message=f"{rule} here", source="ruff", file=file, line=line, rule=rule)


def test_only_changed_lines_keeps_issues_on_them_and_what_cannot_be_placed() -> None:
    changed = {"a.py": frozenset({3}), "new.py": None}
    issues = [issue("a.py", 3), issue("a.py", 4), issue("new.py", 9), issue("b.py", 1), issue(None, None)]
    kept = on_changed_lines(issues, changed)
    assert [(i.file, i.line) for i in kept] == [("a.py", 3), ("new.py", 9), (None, None)]
    assert on_changed_lines([issue("a.py", None)], changed) == [issue("a.py", None)]


def test_base_issues_take_the_working_tree_names_and_match_by_fingerprint(tmp_path: Path) -> None:
    head, checkout = tmp_path / "head", tmp_path / "base"
    write(head, {"new.py": "\n\nimport os\n", "b.py": "import re\n"})
    write(checkout, {"old.py": "import os\n", "b.py": "import sys\nimport re\n"})
    found_at_base = [
        issue("old.py", 1),
        issue("b.py", 2),
        make_issue(kind="lint", message=f"cannot read {checkout}/x.py", source="ruff", rule="E902"),
    ]
    renamed = as_working_tree(found_at_base, checkout, checkout, head, {"old.py": "new.py"})
    assert [i.file for i in renamed] == ["new.py", "b.py", None]
    assert renamed[2].message == f"cannot read {head}/x.py"
    now = [
        issue("new.py", 3),  # moved and renamed: the same finding
        issue("b.py", 1),  # the same line text, moved up
        make_issue(kind="lint", message=f"cannot read {head}/x.py", source="ruff", rule="E902"),
        issue("b.py", 1, rule="E401"),  # another rule on that line: new
    ]
    fresh = BaseCheck(MergeBase("main", "0" * 40, head), issues=renamed).new_issues(
        finalize_issues(now, SourceLines(head))
    )
    assert [(i.file, i.rule) for i in fresh] == [("b.py", "E401")]


def test_the_base_checks_the_same_projects_and_names_the_new_ones(tmp_path: Path) -> None:
    files = {"a/pyproject.toml": "", "b/go.mod": "module b\n", "c/package.json": "{}"}
    root = repo(tmp_path / "r", files)
    write(root, {"d/Cargo.toml": '[package]\nname = "d"\n'})
    head = discover(root).narrowed(lambda f: f.root.name != "c")
    with base_checkout(merge_base(root, "HEAD")) as checkout:
        found, _, notes = base_scope(head, LintelConfig(), checkout.top)
        assert [(found.relative(f.root), f.language) for f in found.found] == [("a", "python"), ("b", "go")]
    assert notes == ["projects new since the merge base (all their findings count as new): d: rust"]
