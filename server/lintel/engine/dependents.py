"""The projects that depend on others in one discovery, as the ecosystems state it (workspace dependencies,
go.work requires, path dependencies, uv sources): a reverse dependency graph, and everything a change reaches
through it (`--changed-since`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lintel.engine.discover import Found
from lintel.languages.requires import Requires, read_requires

# The projects that depend directly on each project, by index into the list the graph was built from.
Graph = list[frozenset[int]]

Reader = Callable[[Found], Requires]


def workspace_of(found: Found) -> Path | None:
    """The root of the workspace `found` belongs to: the one declaring it a member, or its own if it is one."""
    if found.member_of is not None:
        return found.member_of
    return found.root if found.workspace is not None else None


def read_found(found: Found) -> Requires:
    return read_requires(found.language, found.root, workspace_of(found))


def reverse_graph(found: Sequence[Found], read: Reader = read_found) -> Graph:
    """For each project, the projects whose manifest depends on it: by path (a folder that is a project of the
    same language), or by name among the projects of the same workspace (npm, pnpm and yarn workspaces, go.work,
    uv workspaces link members by name; outside a workspace a name comes from a registry)."""
    by_root = {(f.language, f.root.resolve()): i for i, f in enumerate(found)}
    requires = [read(f) for f in found]
    by_name: dict[tuple[str, Path, str], list[int]] = {}
    for i, f in enumerate(found):
        workspace, name = workspace_of(f), requires[i].name
        if workspace is not None and name:
            by_name.setdefault((f.language, workspace, name), []).append(i)
    dependents: list[set[int]] = [set() for _ in found]
    for i, f in enumerate(found):
        workspace = workspace_of(f)
        targets: list[int] = []
        for folder in requires[i].paths:
            index = by_root.get((f.language, folder))
            if index is not None:
                targets.append(index)
        if workspace is not None:
            for name in requires[i].names:
                targets += by_name.get((f.language, workspace, name), [])
        for target in targets:
            if target != i:
                dependents[target].add(i)
    return [frozenset(d) for d in dependents]


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
