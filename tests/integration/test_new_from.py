"""`lintel check --new-from REF` and `--only-changed-lines` on real git repositories built from the python fixture,
with the real ruff and mypy: a commit that adds findings on changed lines, causes findings on unchanged lines and
only moves or renames old ones; and the errors for a folder outside git, an unknown ref and a shallow clone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import WORKSPACES, copy_workspace, require_path, require_tool, run_lintel, tool_path

STOCK = '"""Stock levels."""\n\nimport json\n\nfrom inventory.models import Item\n\n\ndef dump(items: list[Item]) -> str:\n    return json.dumps([item.name for item in items])\n'  # noqa: E501
REBATE = "\n\ndef rebate(item: Item) -> float:\n    return item.price * unknown_rate\n"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def two_commits(root: Path) -> Path:
    """The fixture (and a stock.py using json) committed, then a commit that: adds `rebate` using an undefined
    name (ruff F821 and mypy name-defined on the new line); stops using json in stock.py (F401 on its unchanged
    import line); gives total_value a second parameter (mypy call-arg in labels.py and tests/test_models.py,
    files it did not touch);
    inserts lines above models.py's old findings (moved, not new); and renames tests/test_pricing.py."""
    copy_workspace("python", root)
    src = root / "src/inventory"
    (src / "stock.py").write_text(STOCK)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    with (src / "pricing.py").open("a") as handle:
        handle.write(REBATE)
    edit(src / "stock.py", "json.dumps([item.name for item in items])", '",".join(item.name for item in items)')
    edit(
        src / "models.py",
        '"""Items in stock and what they are worth."""\n',
        '"""Items in stock."""\n\n# Prices in cents,\n# quantities in units.\n',
    )
    edit(
        src / "models.py",
        "def total_value(items: list[Item]) -> float:",
        "def total_value(items: list[Item], rate: float) -> float:",
    )
    git(root, "mv", "tests/test_pricing.py", "tests/test_prices.py")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "head")
    return root


def check(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    proc = run_lintel("check", str(root), "--only", "lint,typecheck", "--format", "json", *args, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def found(report: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(i["file"], i.get("rule", ""), i["line"]) for i in report["issues"]}


NEW_ON_CHANGED_LINES = {
    ("src/inventory/pricing.py", "F821", 23),
    ("src/inventory/pricing.py", "name-defined", 23),
}
NEW_ON_UNCHANGED_LINES = {
    ("src/inventory/stock.py", "F401", 3),
    ("src/inventory/labels.py", "call-arg", 7),
    ("tests/test_models.py", "call-arg", 13),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("ruff")
    require_tool("mypy")
    return two_commits(tmp_path_factory.mktemp("newfrom") / "repo")


def test_new_from_reports_exactly_what_the_commit_introduced(repo: Path, tmp_path: Path) -> None:
    _, everything, _ = check(repo)
    moved = {("src/inventory/models.py", "F401", 6), ("tests/test_prices.py", "F401", 1)}
    assert moved <= found(everything)  # still there, at other lines or in a renamed file
    temp = tmp_path / "tmp"
    temp.mkdir()
    code, report, stderr = check(repo, "--new-from", "HEAD~1", env={"TMPDIR": str(temp)})
    assert found(report) == NEW_ON_CHANGED_LINES | NEW_ON_UNCHANGED_LINES
    assert code == 1
    assert "checking the merge base" in stderr
    base = git(repo, "rev-parse", "HEAD~1")[:12]
    assert f"new since the merge base {base} of HEAD~1: 5 of {len(everything['issues'])} issues" in stderr
    # The runs reported are the working tree's; the temporary worktree is gone from disk and from git.
    assert {r["cwd"] for r in report["runs"]} == {"."}
    assert list(temp.iterdir()) == []
    assert len(git(repo, "worktree", "list", "--porcelain").split("worktree ")) == 2


def test_nothing_is_new_against_head_of_a_clean_tree(repo: Path) -> None:
    code, report, stderr = check(repo, "--new-from", "HEAD")
    assert report["issues"] == []
    assert code == 0
    assert ": 0 of 14 issues (the others were there already)" in stderr


def test_only_changed_lines_misses_what_a_change_causes_elsewhere(repo: Path) -> None:
    code, report, stderr = check(repo, "--new-from", "HEAD~1", "--only-changed-lines")
    assert found(report) == NEW_ON_CHANGED_LINES
    assert code == 1
    assert "on lines changed since the merge base" in stderr
    assert ": 2 of 14 issues" in stderr


def test_uncommitted_and_untracked_changes_count(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (clone / "src/inventory/scratch.py").write_text("import sys\n")
    edit(clone / "src/inventory/report.py", '"""A plain-text stock report."""\n', '"""Report."""\nimport re\n')
    _, report, _ = check(clone, "--only", "lint", "--new-from", "HEAD")
    assert found(report) == {("src/inventory/scratch.py", "F401", 1), ("src/inventory/report.py", "F401", 2)}
    _, lines, _ = check(clone, "--only", "lint", "--new-from", "HEAD", "--only-changed-lines")
    assert found(lines) == found(report)


def usage_error(*args: str, cwd: Path | None = None) -> str:
    proc = run_lintel("check", *args, "--only", "lint", cwd=cwd)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    return proc.stderr


def test_errors_name_the_problem_and_the_fix(repo: Path, tmp_path: Path) -> None:
    plain = copy_workspace("python", tmp_path / "plain")
    assert "is not in a git repository" in usage_error(str(plain), "--new-from", "main")
    assert "git does not know 'no-such-branch'" in usage_error(str(repo), "--new-from", "no-such-branch")
    assert "goes with --new-from REF" in usage_error(str(repo), "--only-changed-lines")


def test_a_shallow_clone_without_the_base_says_fetch_depth_0(repo: Path, tmp_path: Path) -> None:
    # A branch off the first commit, and a one-commit-deep clone of it that fetched main one commit deep too.
    git(repo, "branch", "-f", "side", "HEAD~1")
    git(repo, "branch", "-f", "trunk", "HEAD")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "trunk", f"file://{repo}", str(shallow))
    stderr = usage_error(str(shallow), "--new-from", "HEAD~1")
    assert "shallow" in stderr
    assert "fetch-depth: 0" in stderr
    git(shallow, "fetch", "-q", "--depth", "1", "origin", "side:side")
    stderr = usage_error(str(shallow), "--new-from", "side")
    assert "merge base of side and HEAD is not in this shallow clone" in stderr
    assert "fetch-depth: 0" in stderr


def test_a_subfolder_of_the_repository_is_compared_with_the_same_subfolder(tmp_path: Path) -> None:
    require_tool("ruff")
    outer = tmp_path / "mono"
    copy_workspace("python", outer / "py")
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "one")
    with (outer / "py/src/inventory/pricing.py").open("a") as handle:
        handle.write("\n\ndef late() -> None:\n    unused = 1\n")
    _, report, _ = check(outer / "py", "--only", "lint", "--new-from", "HEAD")
    assert found(report) == {("src/inventory/pricing.py", "F841", 23)}


def test_a_cancelled_run_leaves_no_worktree_behind(tmp_path: Path) -> None:
    """SIGTERM (a CI job cancelled) while the merge base's lint runs: the worktree is removed all the same."""
    root = copy_workspace("python", tmp_path / "repo")
    started = tmp_path / "started"
    slow_at_base = f'case "$PWD" in *lintel-base-*) touch "{started}"; exec sleep 300;; esac'
    (root / "lintel.toml").write_text(f"[languages.python]\nlint = {json.dumps(['sh', '-c', slow_at_base])}\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "PATH": tool_path(), "TMPDIR": str(temp)}
    command = [sys.executable, "-m", "lintel", "check", str(root), "--only", "lint", "--new-from", "HEAD"]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        while proc.poll() is None and not started.exists():  # until the base's lint runs (or lintel ended)
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        assert len(list(temp.glob("lintel-base-*"))) == 1
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0, stderr
    assert git(root, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert list(temp.iterdir()) == []


TOTAL = "export function total(items) {\n  const count = items.length;\n  return count;\n}\n"


def test_eslint_at_the_base_runs_with_the_working_trees_node_modules(tmp_path: Path) -> None:
    """node_modules is never committed: the base's checkout borrows the working tree's, or eslint could not run
    there and every finding would count as new."""
    require_path(WORKSPACES / "node/node_modules")
    root = copy_workspace("node", tmp_path / "web")
    (root / ".gitignore").write_text("node_modules\n")
    (root / "src/total.js").write_text(TOTAL)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    edit(root / "src/total.js", "  return count;", "  return items.length;")  # `count` now unused, on line 2
    edit(root / "src/util.js", "// Helpers", "// Moved down a line.\n// Helpers")
    with (root / "src/math.js").open("a") as handle:
        handle.write("\nexport function same(a, b) {\n  return a == b;\n}\n")
    git(root, "commit", "-q", "-am", "head")
    code, report, stderr = check(root, "--only", "lint", "--new-from", "HEAD~1")
    assert found(report) == {("src/math.js", "eqeqeq", 16), ("src/total.js", "no-unused-vars", 2)}
    assert code == 1
    assert "not checked" not in stderr


TODO_VALIDATOR = """[[validators]]
id = "todo"
parser = "mypy"
run = "grep -rn TODO src | sed 's/:\\\\([0-9]*\\\\):.*/:\\\\1: error: a TODO  [todo]/'; exit 1"
"""


def test_validators_run_at_the_merge_base_too(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "v"\nversion = "0"\n')
    (root / "lintel.toml").write_text(TODO_VALIDATOR)
    (root / "src/a.py").write_text("x = 1  # TODO old\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "src/a.py").write_text("y = 0\nx = 1  # TODO old\nz = 2  # TODO new\n")  # uncommitted: still new
    code, report, stderr = check(root, "--only", "validators", "--new-from", "HEAD")
    assert found(report) == {("src/a.py", "todo", 3)}
    assert code == 1
    assert ": 1 of 2 issues" in stderr


MAIN = """package main

import (
\t"fmt"

\t"example.com/api/auth"
)

func main() {
\tfmt.Printf("%d\\n", "x")
\tif auth.OK() {
\t\tfmt.Println("ok")
\t}
}
"""


def test_go_a_changed_signature_breaks_an_unchanged_caller(tmp_path: Path) -> None:
    require_tool("go")
    root = tmp_path / "api"
    (root / "auth").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/api\n\ngo 1.22\n")
    (root / "main.go").write_text(MAIN)
    (root / "auth/auth.go").write_text("package auth\n\nfunc OK() bool { return true }\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "auth/auth.go").write_text('package auth\n\nfunc OK(user string) bool { return user != "" }\n')
    code, report, _ = check(root, "--only", "typecheck", "--new-from", "HEAD")
    # go vet's Printf finding at the base is old news; the build error in main.go, which the commit did not touch,
    # is new.
    assert {(f, line) for f, _, line in found(report)} == {("main.go", 11)}
    assert code == 1


def test_the_merge_base_replays_what_the_change_left_alone(tmp_path: Path) -> None:
    """Two copies of the fixture, one edited since the merge base: at the base, the other one's lint and
    typecheck are replayed from the cache the working tree's check just filled (the keys name paths relative to
    the checkout, and the base's worktree is another checkout); the findings are those of a run without it."""
    require_tool("ruff")
    require_tool("mypy")
    outer = tmp_path / "mono"
    for name in ("left", "edited"):
        copy_workspace("python", outer / name)
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-q", "-m", "one")
    with (outer / "edited/src/inventory/pricing.py").open("a") as handle:
        handle.write("\n\ndef late() -> None:\n    unused = 1\n")
    cache = tmp_path / "cache"
    _, report, stderr = check(outer, "--new-from", "HEAD", "--cache-dir", str(cache))
    assert "lintel: cache: 0 of 4 cacheable runs replayed" in stderr
    assert "lintel: merge base: cache: 2 of 4 cacheable runs replayed" in stderr
    _, uncached, _ = check(outer, "--new-from", "HEAD", "--no-cache")
    assert found(report) == found(uncached) == {("edited/src/inventory/pricing.py", "F841", 23)}
    _, again, stderr = check(outer, "--new-from", "HEAD", "--cache-dir", str(cache))
    assert "lintel: merge base: cache: 4 of 4 cacheable runs replayed" in stderr
    assert found(again) == found(report)
