"""Languages users declare in configuration (`[languages.<name>]` with markers and extensions), and the
registry of one workspace: the built-in languages with the user's order, then the user's own.

A declared language is a LanguageSpec like the built-in ones: detected by its markers, checked with the
commands it names (read by the parsers it names), linted on save, navigated through its `server`.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from lintel.engine.config import LanguageSettings, LintelConfig, UserLanguageSettings
from lintel.languages import LANGUAGES
from lintel.languages.base import (
    CHECKS,
    FILES_PLACEHOLDER,
    SKIPPED_DIRS,
    CheckName,
    FileCheckName,
    FileScope,
    LanguageSpec,
    Project,
    Registry,
    ServerSpec,
    ToolSpec,
    project_relpath,
)
from lintel.languages.binaries import command_label

# A declared language comes after the built-in ones unless it says otherwise.
USER_ORDER = 100


class CheckNotDeclared(ValueError):
    """The language has no command for that check."""


def registry_for(config: LintelConfig) -> Registry:
    """The languages of a workspace with this configuration: built-in ones (in the user's order, if given)
    and the ones the user declared."""
    specs: list[LanguageSpec] = []
    for spec in LANGUAGES:
        order = config.languages.get(spec.name).order
        specs.append(spec if order is None else dataclasses.replace(spec, order=order))
    for index, (name, settings) in enumerate(sorted(config.languages.user_defined().items())):
        specs.append(declared_language(name, settings, USER_ORDER + index))
    return Registry(specs)


def declared_language(name: str, settings: UserLanguageSettings, order: int = USER_ORDER) -> LanguageSpec:
    """The LanguageSpec of a language declared in configuration."""
    language_id = (settings.language_ids or [name])[0]

    def tool_for(project: Project, check: CheckName) -> ToolSpec:
        return declared_tool(project.language, settings, check)

    def file_scope(project: Project, check: FileCheckName, file: Path, use_stdin: bool) -> FileScope:
        return scope_to_file(tool_for(project, check), project, file)

    def formatter_for(project: Project, file: Path) -> ToolSpec | None:
        return None  # a declared `format` command checks; it does not format a buffer

    server = None
    if settings.server:
        server = ServerSpec((tuple(settings.server),), settings.install_hint, tuple(settings.markers))
    return LanguageSpec(
        name=name,
        markers=tuple(settings.markers),
        extensions=dict.fromkeys(settings.extensions, language_id),
        tool_for=tool_for,
        file_scope=file_scope,
        formatter_for=formatter_for,
        server=server,
        checks=tuple(check for check in CHECKS if settings.argv_for(check)),
        extra_filetypes=tuple((settings.language_ids or [])[1:]),  # the others editors call its files
        order=settings.order if settings.order is not None else order,
        builtin=False,
    )


def declared_tool(language: str, settings: LanguageSettings, check: CheckName) -> ToolSpec:
    argv = settings.argv_for(check)
    if not argv:
        raise CheckNotDeclared(f"{language} declares no {check} command (set languages.{language}.{check})")
    return ToolSpec(
        check=check,
        tool=command_label(argv),
        argv=tuple(argv),
        parser=settings.parser.get(check, "custom"),
        install_hint=settings.install_hint if isinstance(settings, UserLanguageSettings) else "",
    )


def scope_to_file(spec: ToolSpec, project: Project, file: Path) -> FileScope:
    """A command run for one file: `{files}` becomes that file; without it the command runs whole and the
    caller keeps the file's findings."""
    if FILES_PLACEHOLDER not in spec.argv:
        return FileScope(spec, filter_to_file=True, stdin=False)
    rel = project_relpath(project, file)
    argv = tuple(rel if part == FILES_PLACEHOLDER else part for part in spec.argv)
    return FileScope(dataclasses.replace(spec, argv=argv), filter_to_file=False, stdin=False)


def project_files(project: Project, limit: int = 20_000) -> list[str]:
    """The project's own files of its language (what `{files}` stands for in a project-wide run), relative
    POSIX paths, sorted; hidden folders and those of dependencies and build output are left out."""
    found: list[str] = []
    for folder, dirs, files in os.walk(project.root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        base = Path(folder)
        for name in files:
            if project.spec.owns(Path(name)):
                rel = (base / name).relative_to(project.root).as_posix()
                found.append(f"./{rel}" if rel.startswith("-") else rel)
        if len(found) >= limit:
            break
    return sorted(found)[:limit]
