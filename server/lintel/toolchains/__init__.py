"""Toolchains by language: `tool_for(project, check)` names the command lintel runs (CONTRACT §4 table)."""

from __future__ import annotations

import importlib
from typing import Protocol

from lintel.detect import Project
from lintel.toolchains.base import (
    CHECKS,
    REPORT_PLACEHOLDER,
    CheckName,
    Resolved,
    ToolSpec,
    not_found_message,
    override_argv,
    resolve_binary,
)


class Toolchain(Protocol):
    def tool_for(self, project: Project, check: CheckName) -> ToolSpec: ...


def toolchain(language: str) -> Toolchain:
    module: Toolchain = importlib.import_module(f"lintel.toolchains.{language}")
    return module


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    return toolchain(project.language).tool_for(project, check)


__all__ = [
    "CHECKS",
    "REPORT_PLACEHOLDER",
    "CheckName",
    "Resolved",
    "ToolSpec",
    "not_found_message",
    "override_argv",
    "resolve_binary",
    "tool_for",
    "toolchain",
]
