"""The languages lintel knows: one module per built-in language declares it whole (markers, files, checks,
language server), and `LANGUAGES` lists them. Users add more in lintel.toml (`lintel.engine.registry`).

A new built-in language is its module here, one line below, its parsers (`lintel.languages.parsers`) and its tests.
"""

from __future__ import annotations

from lintel.languages import go, node, python, rust
from lintel.languages.base import (
    CHECKS,
    FILES_PLACEHOLDER,
    NPX_NO_INSTALL,
    REPORT_PLACEHOLDER,
    CheckName,
    FileCheckName,
    FileScope,
    LanguageSpec,
    Project,
    Registry,
    ScriptStep,
    ServerSpec,
    ToolSpec,
    Workspace,
    project_relpath,
)

# The built-in languages, in their default order (go, rust, node, python).
LANGUAGES = Registry([go.LANGUAGE, rust.LANGUAGE, node.LANGUAGE, python.LANGUAGE])

__all__ = [
    "CHECKS",
    "FILES_PLACEHOLDER",
    "LANGUAGES",
    "NPX_NO_INSTALL",
    "REPORT_PLACEHOLDER",
    "CheckName",
    "FileCheckName",
    "FileScope",
    "LanguageSpec",
    "Project",
    "Registry",
    "ScriptStep",
    "ServerSpec",
    "ToolSpec",
    "Workspace",
    "project_relpath",
]
