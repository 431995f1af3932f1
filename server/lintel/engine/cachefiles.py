"""The content of the files a cached check covers, as (path, hash) pairs: git's blob hashes for what the index holds
unchanged, the files' own hashes for what is modified or untracked, for the result cache's key (engine.cachekey)."""

from __future__ import annotations

import bisect
import hashlib
import logging
import os
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

# Folders no cached tool reads its inputs from, or whose content is a tool's own (caches, installed dependencies,
# build output named by its tool): a walk does not enter them.
SKIPPED = frozenset({".git", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "target"})
_GIT_TIMEOUT = 120.0


def blob_hash(data: bytes) -> str:
    """git's object id of a blob with this content: a file hashed directly compares equal to its indexed self."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def file_hash(path: Path) -> str | None:
    try:
        if path.is_symlink():
            return "link:" + os.readlink(path)
        executable = "+x" if path.stat().st_mode & 0o100 else ""
        return blob_hash(path.read_bytes()) + executable
    except OSError:
        return None


@dataclass
class _Listing:
    """One repository's files as git sees them: indexed (with blob ids), modified or deleted since, untracked
    and not ignored, and the ignored paths (folders end in `/`)."""

    root: Path
    indexed: dict[str, str]
    dirty: frozenset[str]
    untracked: list[str]
    ignored: list[str]
    paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.paths = sorted({*self.indexed, *self.untracked})

    def under(self, prefix: str) -> Iterator[str]:
        """The paths below the folder `prefix` (relative, `` for the whole repository), sorted."""
        start = f"{prefix}/" if prefix else ""
        for index in range(bisect.bisect_left(self.paths, start), len(self.paths)):
            path = self.paths[index]
            if not path.startswith(start):
                return
            yield path


class TreeHasher:
    """The content of folders, memoised per repository for one run (a run checks many projects of one tree)."""

    def __init__(self) -> None:
        self._listings: dict[Path, _Listing | None] = {}

    def digest(self, roots: list[Path], *, gitignored_out: bool) -> list[tuple[str, str]] | None:
        """Every file under `roots` (absolute paths, resolved) with its hash; None when one cannot be read. With
        `gitignored_out` the files git ignores are left out (the tool skips them too), else they count as well."""
        out: list[tuple[str, str]] = []
        for root in dict.fromkeys(roots):
            files = self._folder(root, gitignored_out=gitignored_out)
            if files is None:
                return None
            out.extend(files)
        return out

    def _folder(self, root: Path, *, gitignored_out: bool) -> list[tuple[str, str]] | None:
        repo = repository(root)
        listing = self._listing(repo) if repo is not None else None
        if listing is None:
            return _walk(root, root)
        prefix = root.relative_to(listing.root).as_posix()
        prefix = "" if prefix == "." else prefix
        out: list[tuple[str, str]] = []
        for path in listing.under(prefix):
            blob = listing.indexed.get(path)
            if blob is None or path in listing.dirty:
                digest = file_hash(listing.root / path)
                if digest is None:
                    if path in listing.indexed:
                        continue  # deleted from the work tree: not an input any more
                    return None
                blob = digest
            out.append((str(listing.root / path), blob))
        if not gitignored_out:
            for path in listing.ignored:
                if path.rstrip("/") == prefix or path.startswith(f"{prefix}/") or not prefix:
                    out.extend(_walk(listing.root / path, listing.root) or [(path, "unreadable")])
        return out

    def _listing(self, repo: Path) -> _Listing | None:
        if repo not in self._listings:
            self._listings[repo] = _git_listing(repo)
        return self._listings[repo]


def repository(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding `.git` (a directory, or a worktree's file)."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _git(repo: Path, *args: str) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.info("git %s in %s failed: %r; hashing files instead", args[0], repo, exc)
        return None
    if done.returncode != 0:
        log.info("git %s in %s exited %d; hashing files instead", args[0], repo, done.returncode)
        return None
    return [os.fsdecode(part) for part in done.stdout.split(b"\0") if part]


def _git_listing(repo: Path) -> _Listing | None:
    """The repository's files from four git calls, made at once; None when git cannot say (no git, not a work
    tree)."""
    calls = (
        ("ls-files", "-s", "-z"),
        ("ls-files", "-m", "-d", "-z"),
        ("ls-files", "-o", "--exclude-standard", "-z"),
        ("ls-files", "-o", "-i", "--exclude-standard", "--directory", "-z"),
    )
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        staged, dirty, untracked, ignored = pool.map(lambda args: _git(repo, *args), calls)
    if staged is None or dirty is None or untracked is None or ignored is None:
        return None
    indexed: dict[str, str] = {}
    for line in staged:
        meta, _, path = line.partition("\t")
        parts = meta.split()
        if len(parts) < 3 or parts[2] != "0":  # a path with merge conflicts: its stages are not one content
            indexed.pop(path, None)
            continue
        indexed[path] = _indexed_hash(parts[0], parts[1])
    conflicted = {line.partition("\t")[2] for line in staged if line.split()[2:3] != ["0"]}
    return _Listing(repo, indexed, frozenset({*dirty, *conflicted}), untracked, ignored)


def _indexed_hash(mode: str, blob: str) -> str:
    """An indexed file's hash as file_hash gives it for the same file on disk (the executable bit with it)."""
    if mode == "100644":
        return blob
    if mode == "100755":
        return blob + "+x"
    return f"{mode}:{blob}"


def _walk(root: Path, base: Path) -> list[tuple[str, str]] | None:
    """Every file under `root` (a file itself: that file) but the SKIPPED folders, hashed; None if unreadable."""
    if _skipped(root):
        return []
    if not root.is_dir() or root.is_symlink():
        digest = file_hash(root)
        return None if digest is None else [(str(root), digest)]
    out: list[tuple[str, str]] = []
    unreadable: list[OSError] = []
    for folder, dirs, files in os.walk(root, onerror=unreadable.append):
        dirs[:] = sorted(d for d in dirs if not _skipped(Path(folder, d)))
        for name in sorted(files):
            path = Path(folder, name)
            digest = file_hash(path)
            if digest is None:
                return None
            out.append((str(path), digest))
    # A folder that cannot be read is content unknown: no key (the tool runs, and says what it can read).
    return None if unreadable else out


def _skipped(folder: Path) -> bool:
    """A folder a walk does not enter: SKIPPED, or a virtualenv (its installed packages count through the
    interpreter's identity, engine.cachekey). One that cannot be looked into is entered: the walk reports it."""
    if folder.name in SKIPPED:
        return True
    try:
        return (folder / "pyvenv.cfg").is_file()
    except OSError:
        return False
