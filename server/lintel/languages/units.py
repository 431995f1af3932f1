"""The unit each tool counts columns in (1-based), by the `source` of its issues, as each built-in language
declares it (`LanguageSpec.units`): Go tools count bytes; JavaScript tools (and pyright, written in TypeScript)
count UTF-16 code units; rustc, ruff, mypy, shellcheck and any tool not declared count characters.

An Issue's columns, and its fixes' edits, are in its tool's unit; the LSP edge re-counts them in the editor's
encoding (lintel.frontends.lsp.convert)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from lintel.core.positions import Unit
from lintel.languages import LANGUAGES


@functools.cache
def _units() -> Mapping[str, Unit]:
    return {source: unit for spec in LANGUAGES for source, unit in spec.units.items()}


def unit_for(source: str) -> Unit:
    """The column unit of the issues whose `source` this is (characters for a tool not listed)."""
    return _units().get(source, "utf-32")
