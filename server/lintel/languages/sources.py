"""What lintel knows of each tool's issues, by their `source`, as the language folders declare it
(`LanguageSpec.sources`): the unit its columns count in (1-based) and the syntax that suppresses one finding.
Go tools count bytes; JavaScript tools (and pyright, written in TypeScript) count UTF-16 code units; rustc, ruff,
mypy, shellcheck and any tool not declared count characters.

An Issue's columns, and its fixes' edits, are in its tool's unit; the LSP edge re-counts them in the editor's
encoding (lintel.frontends.lsp.convert)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from lintel.core.positions import Unit
from lintel.languages import LANGUAGES
from lintel.languages.base import IssueSource, Suppression

# Tools no language owns: shellcheck runs as a validator on any project's shell scripts.
SHARED_SOURCES: Mapping[str, IssueSource] = {"shellcheck": IssueSource(suppression="shellcheck-disable")}


@functools.cache
def _sources() -> Mapping[str, IssueSource]:
    return {**SHARED_SOURCES, **{source: known for spec in LANGUAGES for source, known in spec.sources.items()}}


def unit_for(source: str) -> Unit:
    """The column unit of the issues whose `source` this is (characters for a tool not declared)."""
    known = _sources().get(source)
    return known.unit if known is not None else "utf-32"


def suppression_for(source: str) -> Suppression | None:
    """How a finding whose `source` this is gets suppressed in its file; None when lintel writes no suppression
    for that tool (go vet, a declared language's tools)."""
    known = _sources().get(source)
    return known.suppression if known is not None else None
