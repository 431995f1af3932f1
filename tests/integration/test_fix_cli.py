"""`lintel check --fix` / `--diff` on tests/workspaces/fix-cli with the real ruff: what lintel writes is byte for byte
what `ruff check --fix` writes on a copy, `--diff` writes nothing and its diff applied with `patch -p1` gives the
same files, and a PATH inside the project fixes only there."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import WORKSPACES, copy_workspace, require_tool, run_lintel, run_tool, tool_path

FIXTURE = WORKSPACES / "fix-cli"


def tree(root: Path) -> dict[str, str]:
    """Every file under `root` (relative path -> sha256 of its bytes): a change to any byte shows."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def ruff_fixed(tmp_path: Path, *extra: str, name: str = "by-ruff", target: str = ".") -> Path:
    """A copy of the fixture fixed by ruff's own fix mode, run by hand."""
    require_tool("ruff")
    copy = copy_workspace("fix-cli", tmp_path / name)
    proc = run_tool(["ruff", "check", "--fix", "--no-cache", *extra, target], cwd=copy)
    assert proc.returncode in (0, 1), proc.stderr
    return copy


def diff_bytes(*args: str) -> tuple[int, bytes, str]:
    """`lintel check --diff …`'s exit code, stdout as bytes (a file's \r\n must reach `patch` as it is) and stderr."""
    env = {**os.environ, "PATH": tool_path()}
    proc = subprocess.run(
        [sys.executable, "-m", "lintel", "check", "--diff", *args], capture_output=True, env=env, check=False
    )
    return proc.returncode, proc.stdout, proc.stderr.decode()


@pytest.fixture
def work(tmp_path: Path) -> Path:
    require_tool("ruff")
    return copy_workspace("fix-cli", tmp_path / "by-lintel")


def test_the_fixture_has_safe_unsafe_and_unfixable_findings() -> None:
    require_tool("ruff")
    proc = run_tool(["ruff", "check", "--output-format=json", "--no-cache", "."], cwd=FIXTURE)
    found = json.loads(proc.stdout)
    kinds = [f["fix"]["applicability"] if f["fix"] else None for f in found]
    assert kinds.count("safe") >= 5, kinds
    assert kinds.count("unsafe") >= 3, kinds
    assert kinds.count(None) >= 3, kinds


def test_fix_writes_what_ruff_fix_writes(work: Path, tmp_path: Path) -> None:
    proc = run_lintel("check", str(work), "--fix", "--only", "lint")
    expected = ruff_fixed(tmp_path)
    assert tree(work) == tree(expected)
    assert tree(work) != tree(FIXTURE)
    # What is left is reported (ruff's F821 is an error), with the count of what was fixed.
    assert proc.returncode == 1, proc.stderr
    assert "F821" in proc.stdout
    assert "F401" not in proc.stdout
    assert "lintel: fixed 9 findings in 2 files" in proc.stderr


def test_fix_unsafe_writes_what_ruff_fix_unsafe_writes(work: Path, tmp_path: Path) -> None:
    run_lintel("check", str(work), "--fix", "--unsafe-fixes", "--only", "lint")
    assert tree(work) == tree(ruff_fixed(tmp_path, "--unsafe-fixes"))
    assert tree(work) != tree(ruff_fixed(tmp_path, name="safe-only"))


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_diff_writes_nothing_and_patches_to_the_fix_result(work: Path, tmp_path: Path, unsafe: bool) -> None:
    flags = ("--unsafe-fixes",) if unsafe else ()
    before = tree(work)
    code, diff, stderr = diff_bytes(str(work), *flags)
    assert tree(work) == before
    assert code == 1, stderr
    assert diff.startswith(b"--- a/src/shop/cart.py\n+++ b/src/shop/cart.py\n"), diff[:200]
    assert b"\r\n" in diff  # stock.py's line ends, kept
    patched = copy_workspace("fix-cli", tmp_path / "patched")
    applied = subprocess.run(["patch", "-p1"], input=diff, cwd=patched, capture_output=True, check=False)
    assert applied.returncode == 0, applied.stdout
    assert tree(patched) == tree(ruff_fixed(tmp_path, *flags))


def test_diff_of_a_clean_project_is_empty_and_exits_0(tmp_path: Path) -> None:
    require_tool("ruff")
    clean = copy_workspace("fix-cli", tmp_path / "clean")
    for name in ("cart.py", "stock.py", "broken.py"):
        (clean / "src" / "shop" / name).unlink()
    code, diff, stderr = diff_bytes(str(clean))
    assert (code, diff) == (0, b"")
    assert "would fix 0 findings in 0 files" in stderr


def test_a_path_inside_the_project_fixes_only_that_file(work: Path, tmp_path: Path) -> None:
    run_lintel("check", str(work / "src" / "shop" / "stock.py"), "--fix")
    by_ruff = ruff_fixed(tmp_path, target="src/shop/stock.py")
    assert tree(work) == tree(by_ruff)
    assert tree(work)["src/shop/cart.py"] == tree(FIXTURE)["src/shop/cart.py"]


def test_unsafe_fixes_without_fix_is_a_usage_error(work: Path) -> None:
    before = tree(work)
    proc = run_lintel("check", str(work), "--unsafe-fixes")
    assert proc.returncode == 2
    assert "lintel: --unsafe-fixes goes with --fix or --diff" in proc.stderr
    assert tree(work) == before


def test_fix_never_writes_through_a_symlink_out_of_the_workspace(work: Path, tmp_path: Path) -> None:
    """A file of the project that is a symlink to a file outside the workspace is left alone (ruff's own fix mode
    would write through it, so the project is fixed file by file); the other files are fixed as ruff fixes them."""
    outside = tmp_path / "outside.py"
    shutil.copy(FIXTURE / "src" / "shop" / "cart.py", outside)
    link = work / "src" / "shop" / "linked.py"
    link.symlink_to(outside)
    before = outside.read_bytes()
    run_lintel("check", str(work), "--fix")
    assert outside.read_bytes() == before
    assert link.is_symlink()
    link.unlink()
    assert tree(work) == tree(ruff_fixed(tmp_path))


REVIEWDOG_HINT = "run scripts/setup-dev: scripts/setup.d/10-go.sh builds it"


def reviewdog(lines: str, *flags: str) -> subprocess.CompletedProcess[str]:
    argv = [require_tool("reviewdog", REVIEWDOG_HINT), "-f=rdjsonl", "-reporter=local", "-filter-mode=nofilter"]
    return subprocess.run([*argv, *flags], input=lines, capture_output=True, text=True, cwd=FIXTURE, check=False)


def test_rdjsonl_is_read_by_reviewdog() -> None:
    """reviewdog itself reads every line (it refuses the whole input on one it cannot unmarshal) and sees the
    severities: with -fail-level=error it fails on ruff's errors."""
    proc = run_lintel("check", str(FIXTURE), "--format", "rdjsonl", "--only", "lint")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout
    read = reviewdog(lines)
    assert read.returncode == 0, read.stderr
    assert len(read.stdout.splitlines()) == len(lines.splitlines()) > 10
    failed = reviewdog(lines, "-fail-level=error")
    assert failed.returncode == 1
    assert "found at least one issue with severity" in failed.stderr


def test_rdjsonl_suggestions_are_read_by_reviewdog(tmp_path: Path) -> None:
    from lintel.frontends.report import RENDERERS

    from tests.unit.test_fix_reports import SOURCE, report_of

    (tmp_path / "a.py").write_text(SOURCE, encoding="utf-8")
    lines = RENDERERS["rdjsonl"](report_of(tmp_path))
    assert '"suggestions"' in lines
    read = reviewdog(lines)
    assert read.returncode == 0, read.stderr
    assert "parse error" not in read.stderr
