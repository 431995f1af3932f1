"""Toolchains by language: `tool_for(project, check)` names the command lintel runs (CONTRACT §4 table);
`file_scope` and `formatter_for` name what the server runs for one file (CONTRACT §6)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from lintel.detect import Project
from lintel.toolchains.base import (
    CHECKS,
    REPORT_PLACEHOLDER,
    CheckName,
    FileCheckName,
    FileScope,
    Resolved,
    ToolSpec,
    not_found_message,
    override_argv,
    project_relpath,
    resolve_binary,
)


class Toolchain(Protocol):
    def tool_for(self, project: Project, check: CheckName) -> ToolSpec: ...

    def file_scope(self, project: Project, check: FileCheckName, file: Path, *, use_stdin: bool) -> FileScope: ...

    def formatter_for(self, project: Project, file: Path) -> ToolSpec | None: ...

    def install_dirs(self, env: Mapping[str, str] | None = None) -> tuple[Path, ...]: ...


def toolchain(language: str) -> Toolchain:
    module: Toolchain = importlib.import_module(f"lintel.toolchains.{language}")
    return module


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    return toolchain(project.language).tool_for(project, check)


def file_scope(project: Project, check: FileCheckName, file: Path, *, use_stdin: bool) -> FileScope:
    """How to lint or format-check `file` (absolute, inside `project.root`). With `use_stdin` the scope reads
    the unsaved text from stdin when the tool can; `FileScope.stdin` says whether it does."""
    return toolchain(project.language).file_scope(project, check, file, use_stdin=use_stdin)


def formatter_for(project: Project, file: Path) -> ToolSpec | None:
    """The formatter for `file`: source on stdin, formatted source on stdout, exit 0. None when the project's
    formatter does not handle that kind of file."""
    return toolchain(project.language).formatter_for(project, file)


def install_dirs(language: str) -> tuple[Path, ...]:
    """Folders the language's own installer fills that may not be on PATH (searched after PATH)."""
    return toolchain(language).install_dirs()


__all__ = [
    "CHECKS",
    "REPORT_PLACEHOLDER",
    "CheckName",
    "FileCheckName",
    "FileScope",
    "Resolved",
    "ToolSpec",
    "file_scope",
    "formatter_for",
    "install_dirs",
    "not_found_message",
    "override_argv",
    "project_relpath",
    "resolve_binary",
    "tool_for",
    "toolchain",
]
