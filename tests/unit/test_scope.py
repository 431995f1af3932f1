"""Narrowing a check: --project globs, --shard K/N (disjoint, complete, balanced, stable), --changed-since (git)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lintel.engine.discover import Discovery, discover
from lintel.engine.scope import ScopeError, changed_since, matching, parse_shard, shard

LANGS = ("go.mod", "package.json", "pyproject.toml", "Cargo.toml")


def twelve(root: Path) -> Discovery:
    """12 projects of 4 languages and uneven sizes (1 to 12 source files)."""
    for i in range(12):
        folder = root / ("services" if i % 2 else "libs") / f"p{i:02d}"
        folder.mkdir(parents=True)
        (folder / LANGS[i % 4]).write_text("")
        for j in range(i + 1):
            (folder / f"f{j}.txt").write_text("")
    return discover(root)


def rel(discovery: Discovery) -> list[str]:
    return [discovery.relative(f.root) for f in discovery.found]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_shards_are_disjoint_cover_everything_and_are_balanced(tmp_path: Path, n: int) -> None:
    everything = twelve(tmp_path)
    shards = [rel(shard(everything, k, n)) for k in range(1, n + 1)]
    flat = [r for s in shards for r in s]
    assert sorted(flat) == sorted(rel(everything))
    assert len(flat) == len(set(flat))
    weights = [sum(f.files for f in shard(everything, k, n).found) for k in range(1, n + 1)]
    # Largest first onto the lightest shard: no shard is heavier than another by more than the largest project.
    assert max(weights) - min(weights) <= max(f.files for f in everything.found)
    assert shards == [rel(shard(twelve_again(tmp_path), k, n)) for k in range(1, n + 1)]


def twelve_again(root: Path) -> Discovery:
    return discover(root)  # a second walk of the same tree: the same shards


def test_parse_shard_rejects_nonsense() -> None:
    assert parse_shard("2/4") == (2, 4)
    for bad in ("0/4", "5/4", "2", "a/b", "1/0", "-1/2"):
        with pytest.raises(ScopeError):
            parse_shard(bad)


def test_project_globs_match_roots_and_folders_above_them(tmp_path: Path) -> None:
    everything = twelve(tmp_path)
    assert rel(matching(everything, ["services/*"])) == [f"services/p{i:02d}" for i in range(1, 12, 2)]
    assert rel(matching(everything, ["libs"])) == [f"libs/p{i:02d}" for i in range(0, 12, 2)]
    assert rel(matching(everything, ["libs/p00", "services/p11/"])) == ["libs/p00", "services/p11"]
    assert rel(matching(everything, ["nothing*"])) == []


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_changed_since_selects_exactly_the_projects_a_commit_touched(tmp_path: Path) -> None:
    everything = twelve(tmp_path)
    (tmp_path / "README.md").write_text("top\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    (tmp_path / "libs/p04/f0.txt").write_text("changed\n")
    (tmp_path / "services/p07/new.txt").write_text("new\n")  # untracked files count too
    (tmp_path / "README.md").write_text("outside every project\n")
    git(tmp_path, "add", "libs/p04/f0.txt")
    git(tmp_path, "commit", "-q", "-m", "two")
    narrowed, paths = changed_since(everything, "HEAD~1")
    assert rel(narrowed) == ["libs/p04", "services/p07"]
    assert paths == ["README.md", "libs/p04/f0.txt", "services/p07/new.txt"]

    (tmp_path / "lintel.toml").write_text("")
    assert rel(changed_since(everything, "HEAD")[0]) == rel(everything)
    with pytest.raises(ScopeError, match="git merge-base failed"):
        changed_since(everything, "no-such-ref")
