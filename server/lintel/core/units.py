"""The unit each tool counts columns in (1-based), by the `source` of its issues: Go tools count bytes; JavaScript
tools (and pyright, written in TypeScript) count UTF-16 code units; rustc, ruff, mypy and shellcheck count characters.

An Issue's columns, and its fixes' edits, are in its tool's unit; the LSP edge re-counts them in the editor's
encoding (lintel.frontends.lsp.convert)."""

from __future__ import annotations

from lintel.core.positions import Unit

_TOOL_UNITS: dict[str, Unit] = {
    "golangci-lint": "utf-8",
    "go vet": "utf-8",
    "go test": "utf-8",
    "go build": "utf-8",
    "gofmt": "utf-8",
    "gopls": "utf-8",
    "eslint": "utf-16",
    "tsc": "utf-16",
    "prettier": "utf-16",
    "pyright": "utf-16",
    "basedpyright": "utf-16",
    "node --test": "utf-16",
    "jest": "utf-16",
    "vitest": "utf-16",
}


def unit_for(source: str) -> Unit:
    """The column unit of the issues whose `source` this is (characters for a tool not listed)."""
    return _TOOL_UNITS.get(source, "utf-32")
