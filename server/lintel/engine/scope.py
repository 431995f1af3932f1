"""Which of a workspace's projects one `lintel check` covers: `--project GLOB`, `--changed-since REF` (with the
projects depending on a changed one), `--shard K/N` (docs/architecture.md, Projects). Each narrows a Discovery; a
shard takes a workspace and its members together, so a member never loses the run its root makes for it.
"""

from __future__ import annotations

import fnmatch
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lintel.engine.dependents import reach, reverse_graph
from lintel.engine.discover import Discovery, Found

CONFIG_FILES = ("lintel.toml",)


class ScopeError(ValueError):
    """A selection the user must fix (a bad --shard, a REF git does not know): exit code 2."""


def matching(discovery: Discovery, patterns: Sequence[str]) -> Discovery:
    """The projects whose root (relative, `.` for the workspace's own) matches one of the shell patterns;
    `services/*` matches `services/api`, and a pattern naming a folder matches the projects below it too."""
    wanted = [p.strip().strip("/") or "." for p in patterns if p.strip()]

    def keep(found: Found) -> bool:
        rel = discovery.relative(found.root)
        return any(fnmatch.fnmatchcase(rel, p) or rel.startswith(f"{p}/") for p in wanted if p != ".") or (
            "." in wanted and rel == "."
        )

    return discovery.narrowed(keep)


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` with 1 <= K <= N."""
    index, sep, total = text.partition("/")
    if not sep or not index.strip().isdigit() or not total.strip().isdigit():
        raise ScopeError(f"--shard: expected K/N (for example 2/4), got {text!r}")
    k, n = int(index), int(total)
    if n < 1 or not 1 <= k <= n:
        raise ScopeError(f"--shard: K must be between 1 and N, got {text!r}")
    return k, n


def shard(discovery: Discovery, k: int, n: int) -> Discovery:
    """Shard K of N: the groups (a workspace with its members, or one project) dealt out largest first to the
    shard with the least work so far (by files), ties to the lower shard. The same tree gives the same shards on
    every machine: nothing depends on time, disk order or hashing."""
    groups = discovery.groups()
    weights = [max(1, sum(f.files for f in group)) for group in groups]
    order = sorted(range(len(groups)), key=lambda i: (-weights[i], discovery.relative(groups[i][0].root)))
    loads = [0] * n
    mine: set[int] = set()
    for i in order:
        target = min(range(n), key=lambda s: (loads[s], s))
        loads[target] += weights[i]
        if target == k - 1:
            mine.add(i)
    chosen = {id(f) for i in mine for f in groups[i]}
    return discovery.narrowed(lambda f: id(f) in chosen)


@dataclass(frozen=True)
class Affected:
    """What `--changed-since` selects: the narrowed discovery, the changed paths (relative to the workspace), how
    many projects hold a change and how many more were selected because they depend on one."""

    discovery: Discovery
    paths: list[str]
    changed: int
    dependents: int


def affected(discovery: Discovery, ref: str) -> Affected:
    """The projects holding a file changed since REF (committed since the merge base with REF, staged, unstaged or
    untracked), every member of a workspace whose root holds one (the root's manifest, lock file and
    configuration are its members' too), and the projects that depend on those, transitively, as their manifests
    state (`lintel.engine.dependents`). A changed lintel.toml at the workspace root changes every project."""
    paths = changed_paths(discovery.root, ref)
    if any(p in CONFIG_FILES for p in paths):
        return Affected(discovery, paths, len(discovery.found), 0)
    index = {id(f): i for i, f in enumerate(discovery.found)}
    changed: set[int] = set()
    for rel in paths:
        owner = _owner(discovery, discovery.root / rel)
        if owner is not None:
            changed.add(index[id(owner)])
    heads = [discovery.found[i] for i in changed if discovery.found[i].workspace is not None]
    for i, found in enumerate(discovery.found):
        if any(found.member_of == h.root and found.language == h.language for h in heads):
            changed.add(i)
    reached = reach(reverse_graph(discovery.found), changed) - changed if changed else set()
    keep = {id(discovery.found[i]) for i in changed | reached}
    return Affected(discovery.narrowed(lambda f: id(f) in keep), paths, len(changed), len(reached))


def changed_since(discovery: Discovery, ref: str) -> tuple[Discovery, list[str]]:
    """`affected`'s projects and the changed paths."""
    result = affected(discovery, ref)
    return result.discovery, result.paths


def _owner(discovery: Discovery, path: Path) -> Found | None:
    """The project whose root is the nearest folder above `path` (the first language there)."""
    best: Found | None = None
    for found in discovery.found:
        if path.is_relative_to(found.root) and (best is None or len(found.root.parts) > len(best.root.parts)):
            best = found
    return best


def changed_paths(root: Path, ref: str) -> list[str]:
    """Files changed since `ref`, relative to `root`, from git."""
    top = Path(_git(root, "rev-parse", "--show-toplevel").strip())
    base = _git(root, "merge-base", ref, "HEAD").strip()
    listed = _git(root, "diff", "--name-only", "--no-renames", "-z", base, "--")
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z", "--full-name")
    out: list[str] = []
    for name in [*listed.split("\0"), *untracked.split("\0")]:
        if not name:
            continue
        try:
            out.append((top / name).relative_to(root.resolve()).as_posix())
        except ValueError:
            continue  # outside the checked folder
    return sorted(set(out))


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=120)
    except FileNotFoundError as exc:
        raise ScopeError("--changed-since needs git, which was not found on PATH") from exc
    except subprocess.TimeoutExpired as exc:
        raise ScopeError(f"--changed-since: git {args[0]} did not finish in 120s") from exc
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        raise ScopeError(f"--changed-since: git {args[0]} failed: {message}")
    return done.stdout
