"""Which project types a workspace holds, from its marker files (CONTRACT §4). Pure apart from stat/reads."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

log = logging.getLogger(__name__)

Language = Literal["go", "rust", "node", "python"]
LANGUAGES: tuple[Language, ...] = get_args(Language)  # also the default order: go, rust, node, python

MARKERS: Mapping[Language, tuple[str, ...]] = {
    "go": ("go.mod",),
    "rust": ("Cargo.toml",),
    "node": ("package.json",),
    "python": ("pyproject.toml", "setup.py"),
}

# Lock file -> package manager, first match wins.
LOCK_FILES: tuple[tuple[str, str], ...] = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
)


class DetectionError(ValueError):
    """A detection outcome the user must act on; the message is the contract's wording."""


@dataclass(frozen=True)
class Project:
    language: Language
    root: Path
    markers: tuple[str, ...]
    package_manager: str | None = None
    scripts: Mapping[str, str] = field(default_factory=dict)

    def relative_root(self, workspace: Path) -> str:
        try:
            rel = self.root.relative_to(workspace)
        except ValueError:
            return str(self.root)
        return rel.as_posix() if rel.parts else "."


def node_package_manager(root: Path) -> str:
    for lock, manager in LOCK_FILES:
        if (root / lock).is_file():
            return manager
    return "npm"


def package_scripts(root: Path) -> dict[str, str]:
    """`package.json#scripts`, or nothing when the file is unreadable or not an object."""
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("cannot read %s: %s", root / "package.json", exc)
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {str(k): v for k, v in scripts.items() if isinstance(v, str)}


def _project(language: Language, root: Path, markers: tuple[str, ...]) -> Project:
    if language == "node":
        return Project(
            language,
            root,
            markers,
            package_manager=node_package_manager(root),
            scripts=package_scripts(root),
        )
    return Project(language, root, markers)


def detect(root: Path) -> list[Project]:
    """Every project type whose marker is in `root`, in the default order go, rust, node, python."""
    root = root.resolve()
    found: list[Project] = []
    for language in LANGUAGES:
        present = tuple(m for m in MARKERS[language] if (root / m).is_file())
        if present:
            found.append(_project(language, root, present))
    return found


def normalize_language(language: str | None) -> str | None:
    if language is None:
        return None
    text = language.strip().lower()
    return text or None


def choose_project(projects: Sequence[Project], language: str | None = None) -> Project:
    """The one project a command acts on, or a DetectionError with the contract's message."""
    wanted = normalize_language(language)
    detected = ", ".join(p.language for p in projects)
    if not projects:
        raise DetectionError(
            "no supported project detected in workspace root (found markers: none) "
            "— lintel supports go, rust, node, python"
        )
    if wanted is None:
        if len(projects) == 1:
            return projects[0]
        raise DetectionError(
            f"polyglot workspace: {len(projects)} project types detected ({detected}) — pass `language` to pick one"
        )
    for project in projects:
        if project.language == wanted:
            return project
    raise DetectionError(f'language "{wanted}" not detected in workspace; detected: {detected or "none"}')


def select_projects(projects: Sequence[Project], language: str | None = None) -> list[Project]:
    """For whole-workspace checks: every project, or just the named one (errors as choose_project)."""
    if normalize_language(language) is None:
        if not projects:
            choose_project(projects)
        return list(projects)
    return [choose_project(projects, language)]


def is_inside(path: Path, root: Path) -> bool:
    """Whether `path` resolves (after symlinks) to `root` or below it."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def language_of_file(path: Path) -> Language | None:
    suffix = path.suffix.lower()
    if suffix == ".go":
        return "go"
    if suffix == ".rs":
        return "rust"
    if suffix in {".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte"}:
        return "node"
    if suffix in {".py", ".pyi"}:
        return "python"
    return None


def nearest_project(file: Path, workspace: Path, language: Language | None = None) -> Project | None:
    """The closest project root above `file` (inside the workspace) whose markers match the file's language.

    A `web/package.json` inside a Go repository owns `web/src/app.ts`; a file outside the workspace has none.
    """
    workspace = workspace.resolve()
    target = file.resolve()
    if not is_inside(target, workspace):
        return None
    wanted = language or language_of_file(target)
    if wanted is None:
        return None
    directory = target if target.is_dir() else target.parent
    while True:
        present = tuple(m for m in MARKERS[wanted] if (directory / m).is_file())
        if present:
            return _project(wanted, directory, present)
        if directory == workspace:
            return None
        directory = directory.parent
