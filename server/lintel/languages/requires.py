"""What a project's manifest says it depends on inside the repository (package.json, go.mod, Cargo.toml,
pyproject.toml): the name its siblings depend on it by, the sibling names it depends on, and the folders it names
by path. `--changed-since` follows these to a changed project's dependents; a manifest that cannot be read names
nothing (logged)."""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.core.tomlread import read_toml
from lintel.languages.manifests import parse_go_mod

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Requires:
    """A project's dependencies on other projects. `names` resolve only among the projects of its own workspace
    (outside one, a name comes from a registry); `paths` resolve anywhere."""

    name: str | None = None  # how its siblings name it: package name, module path, normalized Python name
    names: frozenset[str] = frozenset()
    paths: frozenset[Path] = frozenset()  # absolute, normalized folders


# Reads a workspace root's manifest (the tables its members inherit), once per reader.
RootManifest = Callable[[Path], Mapping[str, Any] | None]


class RequiresReader:
    """Reads the dependencies of many projects, parsing each workspace root's manifest (the tables its members
    inherit) once rather than once a member."""

    def __init__(self) -> None:
        self._roots: dict[Path, Mapping[str, Any] | None] = {}

    def __call__(self, language: str, root: Path, workspace_root: Path | None = None) -> Requires:
        """The dependencies `root`'s manifest states; `workspace_root` is the workspace it belongs to (for Cargo's
        and uv's tables a member inherits), None outside one. A language without a reader names nothing."""
        readers = {"node": _node, "go": _go, "rust": _cargo, "python": _python}
        reader = readers.get(language)
        if reader is None:
            return Requires()
        try:
            return reader(root, workspace_root or root, self._root_manifest)
        except FileNotFoundError:
            return Requires()  # a root without a manifest of its own (a go.work folder): it depends on nothing
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("cannot read the dependencies of %s: %s", root, exc)
            return Requires()

    def _root_manifest(self, path: Path) -> Mapping[str, Any] | None:
        if path not in self._roots:
            self._roots[path] = read_toml(path)
        return self._roots[path]


def read_requires(language: str, root: Path, workspace_root: Path | None = None) -> Requires:
    """One project's dependencies (`RequiresReader`)."""
    return RequiresReader()(language, root, workspace_root)


# --- node: package.json ----------------------------------------------------------------------------------------

_NODE_TABLES = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_NODE_PATH_PROTOCOLS = ("file:", "link:", "portal:")


def _node(root: Path, _workspace: Path, _read: RootManifest) -> Requires:
    """Dependencies on a workspace sibling (`workspace:*`, `workspace:^1`, an alias `workspace:other@*`, or a plain
    version range naming it, which npm and yarn link too) and on folders (`file:`, `link:`, `portal:`,
    `workspace:../x`). Registry aliases (`npm:`), git and URL specifiers name nothing here."""
    data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        return Requires()
    names: set[str] = set()
    paths: set[Path] = set()
    for key, spec in _entries(data, _NODE_TABLES):
        if not isinstance(spec, str):
            continue
        if spec.startswith(_NODE_PATH_PROTOCOLS):
            paths.add(_folder(root, spec.partition(":")[2]))
        elif spec.startswith("workspace:"):
            target = spec.removeprefix("workspace:")
            if target.startswith((".", "/")):
                paths.add(_folder(root, target))
            else:
                at = target.rfind("@")
                names.add(target[:at] if at > 0 else key)
        elif ":" not in spec:
            names.add(key)
    name = data.get("name")
    return Requires(name if isinstance(name, str) else None, frozenset(names), frozenset(paths))


# --- go: go.mod ------------------------------------------------------------------------------------------------


def _go(root: Path, _workspace: Path, _read: RootManifest) -> Requires:
    """The module paths it requires (a go.work sibling of that path is what it builds against) and the folders
    its `replace` directives point at."""
    mod = parse_go_mod((root / "go.mod").read_text(encoding="utf-8"))
    paths = frozenset(_folder(root, p) for p in mod.local_replaces)
    return Requires(mod.module, frozenset(mod.requires), paths)


# --- rust: Cargo.toml ------------------------------------------------------------------------------------------

_CARGO_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


def _cargo(root: Path, workspace: Path, read: RootManifest) -> Requires:
    """Path dependencies, target-specific ones too, and `{ workspace = true }` ones whose entry in the workspace's
    `[workspace.dependencies]` has a path (relative to the workspace root). Crates link by path only."""
    manifest = read_toml(root / "Cargo.toml") or {}
    tables: list[Any] = [manifest.get(name) for name in _CARGO_TABLES]
    targets = manifest.get("target")
    if isinstance(targets, Mapping):
        tables += [t.get(name) for t in targets.values() if isinstance(t, Mapping) for name in _CARGO_TABLES]
    shared = _table(read(workspace / "Cargo.toml") if workspace != root else manifest, "workspace", "dependencies")
    paths: set[Path] = set()
    for table in tables:
        if not isinstance(table, Mapping):
            continue
        for key, dep in table.items():
            if not isinstance(dep, Mapping):
                continue
            if isinstance(dep.get("path"), str):
                paths.add(_folder(root, dep["path"]))
            elif dep.get("workspace") is True:
                entry = shared.get(key)
                if isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
                    paths.add(_folder(workspace, entry["path"]))
    package = manifest.get("package")
    name = package.get("name") if isinstance(package, Mapping) else None
    return Requires(name if isinstance(name, str) else None, frozenset(), frozenset(paths))


# --- python: pyproject.toml ------------------------------------------------------------------------------------

_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _python(root: Path, workspace: Path, read: RootManifest) -> Requires:
    """uv sources: `{ workspace = true }` names a workspace member, `{ path = … }` a folder; the workspace root's
    sources apply to a member's dependencies it does not source itself (as uv does). Poetry's path dependencies
    too."""
    document = read_toml(root / "pyproject.toml") or {}
    names: set[str] = set()
    paths: set[Path] = set()
    own = _table(document, "tool", "uv", "sources")
    inherited = _table(read(workspace / "pyproject.toml"), "tool", "uv", "sources") if workspace != root else {}
    wanted = _declared(document) - {_normal(k) for k in own}
    sources = [(root, key, value) for key, value in own.items()]
    sources += [(workspace, key, value) for key, value in inherited.items() if _normal(key) in wanted]
    for base, key, value in sources:
        for entry in value if isinstance(value, list) else [value]:
            if not isinstance(entry, Mapping):
                continue
            if entry.get("workspace") is True:
                names.add(_normal(key))
            elif isinstance(entry.get("path"), str):
                paths.add(_folder(base, entry["path"]))
    poetry = _table(document, "tool", "poetry")
    groups = [g.get("dependencies") for g in _table(poetry, "group").values() if isinstance(g, Mapping)]
    for table in [poetry.get("dependencies"), poetry.get("dev-dependencies"), *groups]:
        for dep in table.values() if isinstance(table, Mapping) else ():
            if isinstance(dep, Mapping) and isinstance(dep.get("path"), str):
                paths.add(_folder(root, dep["path"]))
    project = document.get("project")
    name = project.get("name") if isinstance(project, Mapping) else None
    return Requires(_normal(name) if isinstance(name, str) else None, frozenset(names), frozenset(paths))


def _declared(document: Mapping[str, Any]) -> set[str]:
    """The normalized names of every requirement the project declares: dependencies, optional ones, dependency
    groups, uv's dev-dependencies."""
    project = _table(document, "project")
    lists: list[Any] = [project.get("dependencies"), *_table(project, "optional-dependencies").values()]
    lists += [*_table(document, "dependency-groups").values(), _table(document, "tool", "uv").get("dev-dependencies")]
    found: set[str] = set()
    for items in lists:
        for item in items if isinstance(items, list) else ():
            match = _REQUIREMENT_NAME.match(item) if isinstance(item, str) else None
            if match:
                found.add(_normal(match.group(1)))
    return found


def _normal(name: str) -> str:
    """A Python distribution name as its index compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


# --- shared ----------------------------------------------------------------------------------------------------


def _entries(data: Mapping[str, Any], tables: tuple[str, ...]) -> Iterator[tuple[str, object]]:
    for name in tables:
        table = data.get(name)
        if isinstance(table, Mapping):
            yield from ((str(k), v) for k, v in table.items())


def _table(document: Mapping[str, Any] | None, *keys: str) -> Mapping[str, Any]:
    """The table at `keys`, or an empty one when any step is missing or not a table."""
    current: object = document
    for key in keys:
        current = current.get(key) if isinstance(current, Mapping) else None
    return current if isinstance(current, Mapping) else {}


def _folder(base: Path, relative: str) -> Path:
    """The folder, absolute and normalized as written (`a/../b` is `b`); symlinks are the graph's to follow."""
    return Path(os.path.normpath((base / relative).absolute()))
