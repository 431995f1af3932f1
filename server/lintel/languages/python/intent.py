"""Which Python type checkers and formatters a project uses (docs/architecture.md, "Checks the project does not use"):
read from its files and its own environment, never from lintel's (a mypy on lintel's PATH says nothing about the
project).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lintel.core.tomlread import read_toml
from lintel.languages.base import CheckName, Project
from lintel.languages.evidence import folders_up, lines_of

TYPE_CHECKERS = ("mypy", "basedpyright", "pyright")
# `ruff format` is what lintel checks formatting with; black's style is the one it implements, so a black project's
# files are checked as black leaves them.
FORMATTERS = ("ruff", "black")
_WORD = r"(basedpyright|pyright|mypy|ruff|black)"
# A requirement's name at the start of a requirement string (`mypy>=1.11`, `pyright[nodejs]`).
_REQUIREMENT = re.compile(rf"^\s*{_WORD}(?![\w.-])", re.IGNORECASE)
# Files a project runs its tools from: a mention of the tool there is the project running it.
_RUNNER_FILES = (".pre-commit-config.yaml", "tox.ini", "noxfile.py", "Makefile", "justfile", "setup.cfg")
_MENTION = re.compile(rf"(?<!\w){_WORD}(?![\w-])")
_CONFIG_FILES = {
    "mypy": ("mypy.ini", ".mypy.ini"),
    "pyright": ("pyrightconfig.json",),
    "ruff": ("ruff.toml", ".ruff.toml"),
}
_ENVIRONMENTS = (".venv", "venv")


def typecheckers_used(root: Path) -> set[str]:
    """The type checkers the project at `root` configures, depends on, runs from its tool files, or has
    installed in its own environment (`.venv`, `venv`)."""
    return tools_used(root) & set(TYPE_CHECKERS)


def tools_used(root: Path) -> set[str]:
    """Which of mypy, pyright, basedpyright, ruff and black the project at `root` configures (a `[tool.<name>]`
    table, the tool's own config file), depends on (pyproject's requirement lists, `requirements*.txt`), runs from its
    tool files (pre-commit, tox, nox, make, just), or has installed in its own environment (`.venv`, `venv`)."""
    document = read_toml(root / "pyproject.toml") or {}
    tool = document.get("tool")
    tool = tool if isinstance(tool, Mapping) else {}
    names = (*TYPE_CHECKERS, *FORMATTERS)
    found = {name for name in names if name in tool}
    found |= {name for name, files in _CONFIG_FILES.items() if any((root / f).is_file() for f in files)}
    found |= {name.lower() for req in _requirements(document, tool) if (name := _requirement_name(req))}
    for path in _requirement_files(root):
        found |= {m.group(1).lower() for line in lines_of(path) if (m := _REQUIREMENT.match(line))}
    for name in _RUNNER_FILES:
        found |= {m.group(1) for line in lines_of(root / name) for m in _MENTION.finditer(line)}
    for env in _ENVIRONMENTS:
        found |= {name for name in names if (root / env / "bin" / name).is_file()}
    return found


def not_configured(project: Project, check: CheckName) -> str | None:
    """Python's checks the project does not use: the type check (no mypy or pyright) and the format check (no ruff
    or black); ruff lints every Python project, pytest runs its tests."""
    if check == "typecheck" and not typecheckers_used(project.root):
        return "no type checker in this project (no mypy or pyright config, dependency or pre-commit hook)"
    if check == "format" and not any(tools_used(folder) & set(FORMATTERS) for folder in folders_up(project.root)):
        return "no formatter in this project (no ruff or black config, dependency or pre-commit hook)"
    return None


def _requirement_name(requirement: str) -> str | None:
    match = _REQUIREMENT.match(requirement)
    return match.group(1) if match else None


def _requirements(document: Mapping[str, Any], tool: Mapping[str, Any]) -> Iterable[str]:
    """Every requirement string of pyproject.toml: `[project]` dependencies and extras, `[dependency-groups]`,
    and the dev dependencies of poetry, pdm and uv (poetry's are names as keys)."""
    project = document.get("project")
    project = project if isinstance(project, Mapping) else {}
    yield from _strings(project.get("dependencies"))
    yield from _strings(project.get("optional-dependencies"))
    yield from _strings(document.get("dependency-groups"))
    poetry = tool.get("poetry")
    if isinstance(poetry, Mapping):
        for table in (poetry.get("dependencies"), poetry.get("dev-dependencies")):
            yield from (str(k) for k in table) if isinstance(table, Mapping) else ()
        groups = poetry.get("group")
        for group in groups.values() if isinstance(groups, Mapping) else ():
            deps = group.get("dependencies") if isinstance(group, Mapping) else None
            yield from (str(k) for k in deps) if isinstance(deps, Mapping) else ()
    for owner in ("pdm", "uv"):
        table = tool.get(owner)
        if isinstance(table, Mapping):
            yield from _strings(table.get("dev-dependencies"))


def _strings(value: object) -> Iterable[str]:
    """The strings in a list, or in the lists of a table of lists."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)


def _requirement_files(root: Path) -> list[Path]:
    files = sorted(root.glob("requirements*.txt")) + sorted(root.glob("requirements/*.txt"))
    return [f for f in files if f.is_file()]
