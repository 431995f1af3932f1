"""The member folders a workspace file declares (go.work `use`, Cargo and uv `members`, pnpm `packages`,
package.json `workspaces`): its paths and globs expanded relative to the workspace root.

Shared by the language modules' `workspace` readers; pure apart from listing folders.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from pathlib import Path

from lintel.languages.base import SKIPPED_DIRS

# A wildcard never descends into or matches the folders discovery never enters (SKIPPED_DIRS). Hidden folders
# are skipped too unless the pattern's own segment starts with a dot. A member named outright (`use ./build`)
# is taken as declared.
_MAGIC = frozenset("*?[")


def expand_members(
    root: Path,
    include: Iterable[str],
    exclude: Iterable[str] = (),
    *,
    manifest: str | None = None,
    globs: bool = True,
) -> tuple[Path, ...]:
    """The folders `include` names (paths or globs, relative to `root`, or absolute), minus those at or below a
    folder `exclude` names; each glob's matches sorted, in declared order, once each. With `globs=False` the
    paths are taken literally (go.work names folders, never patterns).

    A member must lie inside `root` (the root itself allowed) and, with `manifest`, hold that file: the
    ecosystems count only folders with their manifest as members (npm and pnpm pass over others; go, cargo and
    uv refuse the workspace, which their own run then reports).
    """
    root = Path(root).resolve()
    excluded = [folder for pattern in exclude for folder in _expand(root, pattern, globs)]
    found: dict[Path, None] = {}
    for pattern in include:
        for folder in _expand(root, pattern, globs):
            if manifest is not None and not (folder / manifest).is_file():
                continue
            if any(folder == ex or ex in folder.parents for ex in excluded):
                continue
            found.setdefault(folder, None)
    return tuple(found)


def _expand(root: Path, pattern: str, globs: bool) -> list[Path]:
    """The existing folders inside `root` that `pattern` matches, sorted."""
    text = pattern.strip().replace("\\", "/")
    if not text:
        return []
    base = Path("/") if text.startswith("/") else root
    segments = [s for s in text.split("/") if s not in ("", ".")]
    if globs:
        found = list(_match(base, segments))
    else:
        literal = base.joinpath(*segments)
        found = [literal] if literal.is_dir() else []
    matches: set[Path] = set()
    for folder in found:
        resolved = folder.resolve()
        if resolved == root or root in resolved.parents:
            matches.add(resolved)
    return sorted(matches)


def _match(folder: Path, segments: list[str]) -> Iterator[Path]:
    if not segments:
        if folder.is_dir():
            yield folder
        return
    head, rest = segments[0], segments[1:]
    if head == "**":
        yield from _match(folder, rest)  # `**` matches no folder at all, too
        for child in _children(folder, head):
            if not child.is_symlink():  # a link back up would never end
                yield from _match(child, segments)
        return
    if not _MAGIC & set(head):
        yield from _match(folder / head, rest)  # a literal segment, `..` included
        return
    for child in _children(folder, head):
        if fnmatch.fnmatchcase(child.name, head):
            yield from _match(child, rest)


def _children(folder: Path, segment: str) -> list[Path]:
    """The sub-folders a wildcard segment may match: not skipped ones, nor hidden ones unless it asks for them."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        child
        for child in entries
        if child.is_dir()
        and child.name not in SKIPPED_DIRS
        and (not child.name.startswith(".") or segment.startswith("."))
    ]
