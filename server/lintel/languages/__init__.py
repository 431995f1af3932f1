"""The languages lintel knows: one folder per built-in language (`lintel.languages.<name>`) declares it whole
(markers, files, checks, parsers, test selection, coverage, column units and suppressions, language server),
and `LANGUAGES` lists them: the one registry the parser names, the configuration's language keys and the editors'
language lists are derived from. Users add more in lintel.toml (`lintel.engine.registry`).

A new built-in language is its folder, one line below, its tests and its set-up script.
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
from lintel.languages.parsers.base import ParserFamily

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
    "ParserFamily",
    "Project",
    "Registry",
    "ScriptStep",
    "ServerSpec",
    "ToolSpec",
    "Workspace",
    "project_relpath",
]
