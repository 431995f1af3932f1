"""What `lintel detect --json` and the `lintel.detect` command show: the projects under a folder, the command each
check would run with its binaries resolved, and the languages lintel knows there (docs/design.md, Detection)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lintel.engine.checks import plan_check
from lintel.engine.config import LintelConfig
from lintel.engine.discover import discover
from lintel.engine.registry import registry_for
from lintel.engine.servers import resolve_command
from lintel.languages import LanguageSpec, Project


def _navigation_server(project: Project, config: LintelConfig, root: Path) -> dict[str, Any]:
    """The language server the editor's navigation would go to for this project, and whether it was found."""
    settings = config.languages.get(project.language)
    command = resolve_command(
        project.spec,
        project_root=project.root,
        workspace_root=root,
        override=settings.server,
        binaries=settings.binaries,
    )
    return {
        "name": command.display,
        "argv": list(command.argv) if command.argv is not None else None,
        "found": command.argv is not None,
        "reason": None if command.argv is not None else command.missing_message,
    }


def detect_document(root: Path, config: LintelConfig) -> dict[str, Any]:
    """What `lintel detect --json` and the `lintel.detect` command show: every project under `root` (its own
    markers, nested project roots, workspace members) with argv and binaries."""
    projects = []
    languages = registry_for(config)
    discovery = discover(root, languages, exclude=config.projects.exclude, examples=config.projects.examples)
    for found in discovery.found:
        project = found.project
        checks: dict[str, Any] = {}
        for check in project.spec.checks:
            planned = plan_check(project, check, config, root)
            checks[check] = {
                "tool": planned.spec.tool,
                "argv": list(planned.spec.argv),
                "binaries": [
                    {"name": b.name, "found": b.found, "path": b.path, "via": b.via} for b in planned.binaries
                ],
            }
            if planned.not_configured:
                checks[check]["notConfigured"] = planned.not_configured
        entry: dict[str, Any] = {
            "language": project.language,
            "root": project.relative_root(discovery.root),
            "markers": list(project.markers),
            "checks": checks,
            "navigation": _navigation_server(project, config, root),
        }
        if project.package_manager is not None:
            entry["packageManager"] = project.package_manager
            entry["scripts"] = dict(project.scripts)
        if project.problem is not None:
            entry["problem"] = project.problem
        if found.member_of is not None:
            entry["workspace"] = discovery.relative(found.member_of)
        if found.workspace is not None:
            entry["members"] = [discovery.relative(m) for m in found.workspace.members]
            entry["covers"] = sorted(found.workspace.covers)
        projects.append(entry)
    return {
        "version": 1,
        "root": str(discovery.root),
        "projects": projects,
        "languages": languages_document(languages),
    }


def languages_document(languages: Iterable[LanguageSpec]) -> list[dict[str, Any]]:
    """The languages lintel knows in a workspace (built-in and declared), for editors to pick their files by."""
    return [
        {
            "name": spec.name,
            "builtin": spec.builtin,
            "markers": list(spec.markers),
            "extensions": list(spec.extensions),
            # A declared language's ids all count (`shellscript`, `sh`); a built-in one's extras are Neovim's.
            "languageIds": list(dict.fromkeys([*spec.language_ids, *(() if spec.builtin else spec.extra_filetypes)])),
            "checks": list(spec.checks),
            "navigation": spec.server is not None,
        }
        for spec in languages
    ]
