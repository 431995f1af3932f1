"""The workspace files of each ecosystem, read (docs/architecture.md, Projects): go.work's `use` paths, a Cargo
`[workspace]`, a uv `[tool.uv.workspace]`, pnpm-workspace.yaml's `packages` and package.json's `workspaces`;
and go.mod's module, requires and local replacements (what `--changed-since` follows to a module's dependents).

Each reader gives the member folders (expanded by `lintel.languages.members`) or the declared patterns; a file
its own tool would refuse is logged once and read as no workspace. The languages turn these into `Workspace`s.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from lintel.core.tomlread import read_toml
from lintel.languages.members import expand_members

log = logging.getLogger(__name__)

GO_WORK = "go.work"
PNPM_WORKSPACE = "pnpm-workspace.yaml"


@dataclass(frozen=True)
class Members:
    """The member folders a workspace file declares (absolute, existing), and whether its root is a project of
    its own besides (a `[package]` beside Cargo's `[workspace]`, a `[project]` beside uv's)."""

    members: tuple[Path, ...]
    own: bool


# --- go.work ----------------------------------------------------------------------------------------------------


def go_work_uses(root: Path) -> tuple[str, ...] | None:
    """The `use` paths of `root`/go.work in order; None when there is none or go would not read it."""
    path = root / GO_WORK
    if not path.is_file():
        return None
    try:
        return parse_go_work(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None


def go_work_members(root: Path) -> tuple[Path, ...]:
    """The module folders `root`/go.work uses (none without a readable go.work)."""
    uses = go_work_uses(root)
    return expand_members(root, uses, manifest="go.mod", globs=False) if uses is not None else ()


# A go.mod-syntax token: a `//` comment (anywhere, `./a//x` is `./a`), a double-quoted string with Go's escapes,
# a parenthesis, or a bare word.
_GO_TOKEN = re.compile(r'\s*(?://.*|"(?:[^"\\]|\\.)*"|[()]|(?:[^\s()"/]|/(?!/))+|.)')
_GO_ESCAPE = re.compile(r"\\(?:([abfnrtv\\\"])|x([0-9a-fA-F]{2})|([0-7]{3})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))")
_GO_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"'}


def parse_go_work(text: str) -> tuple[str, ...]:
    """The paths of a go.work's `use` directives, one per line (`use ./a`, or a `use (` … `)` block), in order.
    Raises ValueError where go itself refuses the file (measured, go 1.26): two paths on one `use` line, an
    unterminated block or string, a `/* */` comment."""
    uses: list[str] = []
    block: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        words = _go_words(line, number)
        if block is not None:
            if words == [")"]:
                block = None
            elif block == "use" and words:
                uses.append(_one_path(words, number))
            continue
        if len(words) >= 2 and words[1] == "(":
            if len(words) > 2:
                raise ValueError(f"line {number}: a block starts a line of its own: {line.strip()}")
            block = words[0]
        elif words and words[0] == "use":
            uses.append(_one_path(words[1:], number))
    if block is not None:
        raise ValueError(f"unterminated {block} block")
    return tuple(uses)


@dataclass(frozen=True)
class GoMod:
    """What a go.mod says about other modules: its own path, the module paths it requires, and the folders its
    `replace` directives point at (`=> ../lib`, as written)."""

    module: str | None
    requires: tuple[str, ...]
    local_replaces: tuple[str, ...]


def parse_go_mod(text: str) -> GoMod:
    """The module, requires and local replacements of a go.mod (single lines and `( … )` blocks). Raises
    ValueError where the tokens do not read (see `parse_go_work`)."""
    module: str | None = None
    requires: list[str] = []
    replaces: list[str] = []
    block: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        words = _go_words(line, number)
        if block is not None:
            if words == [")"]:
                block = None
                continue
            directive, args = block, words
        elif len(words) >= 2 and words[1] == "(":
            block = words[0]
            continue
        elif words:
            directive, args = words[0], words[1:]
        else:
            continue
        if not args:
            continue
        if directive == "module":
            module = args[0]
        elif directive == "require":
            requires.append(args[0])
        elif directive == "replace" and "=>" in args:
            target = args[args.index("=>") + 1 :]
            # go's own test for a folder rather than a module path: `.`/`..` or a `./`, `../` or absolute path
            if len(target) == 1 and (target[0] in (".", "..") or target[0].startswith(("./", "../", "/"))):
                replaces.append(target[0])
    return GoMod(module, tuple(requires), tuple(replaces))


def _one_path(words: list[str], number: int) -> str:
    if len(words) != 1 or words[0] in ("(", ")"):
        raise ValueError(f"line {number}: usage: use local/dir")
    return words[0]


def _go_words(line: str, number: int) -> list[str]:
    """The tokens of one line, strings unquoted, comments dropped."""
    words: list[str] = []
    for match in _GO_TOKEN.finditer(line):
        token = match.group().strip()
        if not token or token.startswith("//"):
            continue
        if token.startswith("/*"):
            raise ValueError(f"line {number}: mod files must use // comments")
        if token.startswith('"'):
            if len(token) < 2 or not token.endswith('"'):
                raise ValueError(f"line {number}: unterminated string")
            token = _GO_ESCAPE.sub(_unescape, token[1:-1])
        elif any(c in token for c in "\"'`"):
            raise ValueError(f"line {number}: unquoted string cannot contain quote: {token}")
        words.append(token)
    return words


def _unescape(match: re.Match[str]) -> str:
    simple, hex2, octal, hex4, hex8, bad = match.groups()
    if bad is not None:
        raise ValueError(f"unknown escape sequence \\{bad}")
    if simple is not None:
        return _GO_ESCAPES[simple]
    return chr(int(hex2 or hex4 or hex8, 16)) if octal is None else chr(int(octal, 8))


# --- Cargo [workspace] ------------------------------------------------------------------------------------------


def is_cargo_workspace(root: Path) -> bool:
    """Whether `root`/Cargo.toml is a workspace of several crates: a `[workspace]` table with members, or a
    virtual manifest (no `[package]`). Run in such a root, cargo checks only the root package unless told
    `--workspace` (a virtual manifest checks its default members). An empty `[workspace]` in a package only
    stops cargo from looking for an enclosing workspace: one crate, no flag."""
    manifest = read_toml(root / "Cargo.toml")
    if manifest is None:
        return False
    workspace = manifest.get("workspace")
    if not isinstance(workspace, Mapping):
        return False
    return bool(workspace.get("members")) or not isinstance(manifest.get("package"), Mapping)


def cargo_workspace(root: Path) -> Members | None:
    """The Cargo workspace `root`/Cargo.toml declares: `[workspace] members` (globs) minus `exclude`, and the
    path dependencies inside the root, which cargo makes members too; the root is a crate of its own only with a
    `[package]`. An empty `[workspace]` in a package declares no members (see `is_cargo_workspace`)."""
    path = root / "Cargo.toml"
    manifest = read_toml(path)
    if manifest is None or not is_cargo_workspace(root):
        return None
    table = manifest["workspace"]
    members = _strings(table.get("members", []))
    exclude = _strings(table.get("exclude", []))
    if members is None or exclude is None:
        log.warning("cannot read %s: [workspace] members and exclude must be lists of paths", path)
        return None
    declared = expand_members(root, members, exclude, manifest="Cargo.toml")
    found = dict.fromkeys(declared)
    queue = [root.resolve(), *declared]
    while queue:  # a member's path dependency inside the root is a member, and so are its own
        for dependency in _path_dependencies(root, queue.pop(0), exclude):
            if dependency not in found:
                found[dependency] = None
                queue.append(dependency)
    found.pop(root.resolve(), None)  # the root's own package is the root project, not a member
    return Members(tuple(found), own=isinstance(manifest.get("package"), Mapping))


def _strings(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


_DEPENDENCY_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


def _path_dependencies(root: Path, crate: Path, exclude: list[str]) -> tuple[Path, ...]:
    """The crates `crate`'s manifest depends on by `path` that lie inside the workspace root and are not
    excluded."""
    manifest = read_toml(crate / "Cargo.toml") or {}
    tables: list[Any] = [manifest.get(name) for name in _DEPENDENCY_TABLES]
    targets = manifest.get("target")
    if isinstance(targets, Mapping):
        tables += [t.get(name) for t in targets.values() if isinstance(t, Mapping) for name in _DEPENDENCY_TABLES]
    paths = [
        (crate / dep["path"]).as_posix()
        for table in tables
        if isinstance(table, Mapping)
        for dep in table.values()
        if isinstance(dep, Mapping) and isinstance(dep.get("path"), str)
    ]
    return expand_members(root, paths, exclude, manifest="Cargo.toml", globs=False)


# --- uv [tool.uv.workspace] -------------------------------------------------------------------------------------


def uv_workspace(root: Path) -> Members | None:
    """A uv workspace: `[tool.uv.workspace]` `members` (globs) minus `exclude` in the root's pyproject.toml.
    The root is a project of its own when it has a `[project]` table (else a virtual workspace root)."""
    path = root / "pyproject.toml"
    document = read_toml(path)
    tool = document.get("tool") if document is not None else None
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    table = uv.get("workspace") if isinstance(uv, Mapping) else None
    if document is None or table is None:
        return None
    members = table.get("members", []) if isinstance(table, Mapping) else None
    exclude = table.get("exclude", []) if isinstance(table, Mapping) else None
    if not _paths(members) or not _paths(exclude):
        log.warning("cannot read %s: [tool.uv.workspace] members and exclude must be lists of paths", path)
        return None
    found = expand_members(root, members, exclude, manifest="pyproject.toml")
    return Members(found, own=isinstance(document.get("project"), Mapping))


def _paths(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# --- pnpm-workspace.yaml and package.json `workspaces` -----------------------------------------------------------


def pnpm_workspace_packages(path: Path) -> list[str] | None:
    """The `packages` list of a pnpm-workspace.yaml; None when the file is absent, unreadable or has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    try:
        return parse_pnpm_packages(text)
    except ValueError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None


def parse_pnpm_packages(text: str) -> list[str] | None:
    """The items of the top-level `packages:` sequence of a pnpm-workspace.yaml (its first document), or None when
    it has none. Raises ValueError for YAML that does not parse and for a `packages` value that is not a list of
    strings (pnpm refuses the file too)."""
    import yaml  # here, not at the top: only a pnpm workspace needs it, and detection is on the start's path

    try:
        document = next(yaml.safe_load_all(text), None)
    except yaml.YAMLError as exc:
        raise ValueError(f"not valid YAML: {_yaml_problem(exc)}") from exc
    if not isinstance(document, dict) or "packages" not in document:
        return None
    packages = document["packages"]
    if packages is None:
        return []
    if not isinstance(packages, list):
        raise ValueError(f"`packages` is not a list: {packages!r}")
    if not all(isinstance(item, str) for item in packages):
        raise ValueError(f"`packages` is not a list of paths: {packages!r}")
    return packages


def _yaml_problem(exc: Exception) -> str:
    """PyYAML's own words for what is wrong and where (1-based line), on one line."""
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        what = ": ".join(part for part in (exc.context, exc.problem) if part)
        return f"{what}{where}"
    return str(exc)


def package_json_workspaces(root: Path) -> list[str] | None:
    """package.json's `workspaces` patterns (npm, yarn, bun), yarn 1's `{"packages": [...]}` form included; None
    for a package without them, or a file or value that cannot be read (logged)."""
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("cannot read %s: %s", root / "package.json", exc)
        return None
    declared = data.get("workspaces") if isinstance(data, dict) else None
    if declared is None:
        return None
    if isinstance(declared, dict):  # yarn 1's `{"packages": [...], "nohoist": [...]}`
        declared = declared.get("packages", [])
    if not isinstance(declared, list) or not all(isinstance(p, str) for p in declared):
        log.warning("cannot read %s: `workspaces` is not a list of paths", root / "package.json")
        return None
    return declared
