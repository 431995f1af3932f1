"""The projects that depend on others in one discovery, as the ecosystems state it (workspace dependencies,
go.work requires, path dependencies, uv sources): a reverse dependency graph, and everything a change reaches
through it (`--changed-since`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lintel.engine.discover import Found
from lintel.languages.requires import Requires, RequiresReader

# The projects that depend directly on each project, by index into the list the graph was built from.
Graph = list[frozenset[int]]

Reader = Callable[[Found], Requires]


def workspace_of(found: Found) -> Path | None:
    """The root of the workspace `found` belongs to: the one declaring it a member, or its own if it is one."""
    if found.member_of is not None:
        return found.member_of
    return found.root if found.workspace is not None else None


def reverse_graph(found: Sequence[Found], read: Reader | None = None) -> Graph:
    """For each project, the projects whose manifest depends on it: by path (a folder that is a project of the
    same language), or by name among the projects of the same workspace (npm, pnpm and yarn workspaces, go.work,
    uv workspaces link members by name; outside a workspace a name comes from a registry). `read` stands in
    for the manifests (tests)."""
    if read is None:
        manifests = RequiresReader()
        requires = [manifests(f.language, f.root, workspace_of(f)) for f in found]
    else:
        requires = [read(f) for f in found]
    folders = _Folders(found)
    by_name: dict[tuple[str, Path, str], list[int]] = {}
    for i, f in enumerate(found):
        workspace, name = workspace_of(f), requires[i].name
        if workspace is not None and name:
            by_name.setdefault((f.language, workspace, name), []).append(i)
    dependents: list[set[int]] = [set() for _ in found]
    for i, f in enumerate(found):
        workspace = workspace_of(f)
        targets = [folders.project(f.language, folder) for folder in requires[i].paths]
        if workspace is not None:
            targets += [t for name in requires[i].names for t in by_name.get((f.language, workspace, name), [])]
        for target in targets:
            if target is not None and target != i:
                dependents[target].add(i)
    return [frozenset(d) for d in dependents]


class _Folders:
    """The project rooted at a folder: compared as written (normalized) first, with symlinks resolved only when
    that misses (resolving every root costs a system call per path component)."""

    def __init__(self, found: Sequence[Found]) -> None:
        self._found = found
        self._written = {(f.language, Path(os.path.normpath(f.root.absolute()))): i for i, f in enumerate(found)}
        self._real: dict[tuple[str, Path], int] | None = None

    def project(self, language: str, folder: Path) -> int | None:
        index = self._written.get((language, folder))
        if index is not None:
            return index
        if self._real is None:
            self._real = {(f.language, f.root.resolve()): i for i, f in enumerate(self._found)}
        return self._real.get((language, folder.resolve()))


def reach(graph: Graph, start: Iterable[int]) -> set[int]:
    """The projects that depend on any of `start`, directly or through others (`start` itself not included unless
    a cycle leads back to it). Each project is visited once, so cycles end."""
    seen: set[int] = set()
    queue = list(dict.fromkeys(start))
    while queue:
        for dependent in graph[queue.pop()]:
            if dependent not in seen:
                seen.add(dependent)
                queue.append(dependent)
    return seen
