"""What `lintel detect --json` and the `lintel.detect` command show: the projects under a folder, the command each
check would run with its binaries resolved, and the languages lintel knows there (docs/architecture.md, Detection).

A typed report (DetectReport); its JSON (`to_json`) is the document editors and agents read, key for key."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lintel.engine.checks import plan_check
from lintel.engine.config import LintelConfig
from lintel.engine.discover import Discovery, Found, discover
from lintel.engine.registry import registry_for
from lintel.engine.servers import resolve_command
from lintel.languages import LanguageSpec, Project


@dataclass(frozen=True)
class BinaryEntry:
    name: str
    found: bool
    path: str | None
    via: str | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "found": self.found, "path": self.path, "via": self.via}


@dataclass(frozen=True)
class CheckEntry:
    """The command a check would run and its binaries; `not_configured` says why it would not run."""

    tool: str
    argv: list[str]
    binaries: list[BinaryEntry]
    not_configured: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool": self.tool,
            "argv": list(self.argv),
            "binaries": [b.to_json() for b in self.binaries],
        }
        if self.not_configured:
            out["notConfigured"] = self.not_configured
        return out


@dataclass(frozen=True)
class Navigation:
    """The language server the editor's navigation would go to, and whether it was found."""

    name: str
    argv: list[str] | None
    reason: str | None

    @property
    def found(self) -> bool:
        return self.argv is not None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "argv": self.argv, "found": self.found, "reason": self.reason}


@dataclass(frozen=True)
class WorkspaceEntry:
    """A project that is a workspace root: its members and the checks it runs for all of them."""

    members: list[str]
    covers: list[str]


@dataclass(frozen=True)
class ProjectEntry:
    language: str
    root: str  # relative to the report's root, `.` for itself
    markers: list[str]
    checks: dict[str, CheckEntry]
    navigation: Navigation
    package_manager: str | None = None
    scripts: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    workspace: str | None = None  # the workspace root this project is a member of
    members: WorkspaceEntry | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "language": self.language,
            "root": self.root,
            "markers": list(self.markers),
            "checks": {check: entry.to_json() for check, entry in self.checks.items()},
            "navigation": self.navigation.to_json(),
        }
        if self.package_manager is not None:
            out["packageManager"] = self.package_manager
            out["scripts"] = dict(self.scripts)
        if self.problem is not None:
            out["problem"] = self.problem
        if self.workspace is not None:
            out["workspace"] = self.workspace
        if self.members is not None:
            out["members"] = list(self.members.members)
            out["covers"] = list(self.members.covers)
        return out


@dataclass(frozen=True)
class LanguageEntry:
    """A language lintel knows in a workspace (built-in or declared), for editors to pick their files by."""

    name: str
    builtin: bool
    markers: list[str]
    extensions: list[str]
    language_ids: list[str]
    checks: list[str]
    navigation: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "builtin": self.builtin,
            "markers": list(self.markers),
            "extensions": list(self.extensions),
            "languageIds": list(self.language_ids),
            "checks": list(self.checks),
            "navigation": self.navigation,
        }


@dataclass(frozen=True)
class DetectReport:
    root: Path
    projects: list[ProjectEntry]
    languages: list[LanguageEntry]
    version: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "root": str(self.root),
            "projects": [p.to_json() for p in self.projects],
            "languages": [lang.to_json() for lang in self.languages],
        }


def _navigation_server(project: Project, config: LintelConfig, root: Path) -> Navigation:
    settings = config.languages.get(project.language)
    command = resolve_command(
        project.spec,
        project_root=project.root,
        workspace_root=root,
        override=settings.server,
        binaries=settings.binaries,
    )
    found = command.argv is not None
    argv = list(command.argv) if command.argv is not None else None
    return Navigation(command.display, argv, None if found else command.missing_message)


def _project_entry(found: Found, discovery: Discovery, config: LintelConfig, root: Path) -> ProjectEntry:
    project = found.project
    checks: dict[str, CheckEntry] = {}
    for check in project.spec.checks:
        planned = plan_check(project, check, config, root)
        binaries = [BinaryEntry(b.name, b.found, b.path, b.via) for b in planned.binaries]
        checks[check] = CheckEntry(planned.spec.tool, list(planned.spec.argv), binaries, planned.not_configured)
    workspace = found.workspace
    return ProjectEntry(
        language=project.language,
        root=project.relative_root(discovery.root),
        markers=list(project.markers),
        checks=checks,
        navigation=_navigation_server(project, config, root),
        package_manager=project.package_manager,
        scripts=dict(project.scripts),
        problem=project.problem,
        workspace=discovery.relative(found.member_of) if found.member_of is not None else None,
        members=None
        if workspace is None
        else WorkspaceEntry([discovery.relative(m) for m in workspace.members], sorted(workspace.covers)),
    )


def detect_report(root: Path, config: LintelConfig) -> DetectReport:
    """Every project under `root` (its own markers, nested project roots, workspace members) with argv and
    binaries, and the languages lintel knows there."""
    languages = registry_for(config)
    discovery = discover(root, languages, exclude=config.projects.exclude, examples=config.projects.examples)
    projects = [_project_entry(found, discovery, config, root) for found in discovery.found]
    return DetectReport(discovery.root, projects, languages_report(languages))


def detect_document(root: Path, config: LintelConfig) -> dict[str, Any]:
    """detect_report as JSON: what `lintel detect --json` prints and the `lintel.detect` command answers."""
    return detect_report(root, config).to_json()


def languages_report(languages: Iterable[LanguageSpec]) -> list[LanguageEntry]:
    return [
        LanguageEntry(
            name=spec.name,
            builtin=spec.builtin,
            markers=list(spec.markers),
            extensions=list(spec.extensions),
            # A declared language's ids all count (`shellscript`, `sh`); a built-in one's extras are Neovim's.
            language_ids=list(dict.fromkeys([*spec.language_ids, *(() if spec.builtin else spec.extra_filetypes)])),
            checks=list(spec.checks),
            navigation=spec.server is not None,
        )
        for spec in languages
    ]
