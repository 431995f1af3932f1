"""Which projects a workspace holds, from its marker files (docs/architecture.md, Detection). Pure apart from
stat/reads.

Which markers mean which language is the registry's (`lintel.languages`); the built-in one is the default,
and a workspace's configuration may add languages (`lintel.engine.registry.registry_for`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from lintel.core.fsstat import is_dir
from lintel.languages import LANGUAGES, LanguageSpec, Project, Registry

log = logging.getLogger(__name__)


class DetectionError(ValueError):
    """A detection outcome the user must act on; the message is the contract's wording."""


def detect(root: Path, languages: Registry = LANGUAGES) -> list[Project]:
    """Every project type whose marker is in `root`, in the registry's order (go, rust, node, python, then
    the user's)."""
    root = root.resolve()
    try:
        names = [entry.name for entry in root.iterdir() if entry.is_file()]
    except OSError:
        names = []
    found: list[Project] = []
    for spec in languages:
        present = spec.markers_in(root, names)
        if present:
            found.append(spec.inspect(spec, root, present))
    return found


def normalize_language(language: str | None) -> str | None:
    if language is None:
        return None
    text = language.strip().lower()
    return text or None


def choose_project(
    projects: Sequence[Project], language: str | None = None, languages: Registry = LANGUAGES
) -> Project:
    """The one project a command acts on, or a DetectionError with the contract's message."""
    wanted = normalize_language(language)
    detected = ", ".join(p.language for p in projects)
    if not projects:
        raise DetectionError(
            "no supported project detected in workspace root (found markers: none) "
            f"— lintel supports {', '.join(languages.names)}"
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


def select_projects(
    projects: Sequence[Project], language: str | None = None, languages: Registry = LANGUAGES
) -> list[Project]:
    """For whole-workspace checks: every project, or just the named one (errors as choose_project)."""
    if normalize_language(language) is None:
        if not projects:
            choose_project(projects, languages=languages)
        return list(projects)
    return [choose_project(projects, language, languages)]


def is_inside(path: Path, root: Path) -> bool:
    """Whether `path` resolves (after symlinks) to `root` or below it."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def language_of_file(path: Path, languages: Registry = LANGUAGES) -> LanguageSpec | None:
    return languages.for_file(path)


def nearest_project(
    file: Path, workspace: Path, language: str | None = None, languages: Registry = LANGUAGES
) -> Project | None:
    """The closest project root above `file` (inside the workspace) whose markers match the file's language.

    A `web/package.json` inside a Go repository owns `web/src/app.ts`; a file outside the workspace has none.
    """
    workspace = workspace.resolve()
    target = file.resolve()
    if not target.is_relative_to(workspace):  # both resolved: is_inside would resolve them again
        return None
    spec = languages.get(language) if language is not None else languages.for_file(target)
    if spec is None:
        return None
    directory = target if is_dir(target) else target.parent
    while True:
        present = spec.markers_in(directory)
        if present:
            return spec.inspect(spec, directory, present)
        if directory == workspace:
            return None
        directory = directory.parent
