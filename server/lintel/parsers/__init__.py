"""Parsers by name: the names users give validators (docs/design.md) and toolchains refer to.

Each family lives in its own module; this table is the one place that maps a name to a function, imported
statically so every link is visible to readers and to mypy.
"""

from __future__ import annotations

from lintel.parsers.base import Parser, ToolOutput, never_raises
from lintel.parsers.custom import parse_custom
from lintel.parsers.go import parse_go_vet, parse_gofmt_list, parse_golangci_lint
from lintel.parsers.gotests import parse_go_test
from lintel.parsers.node import (
    parse_eslint,
    parse_eslint_compact,
    parse_node_lint_auto,
    parse_prettier_check,
    parse_tsc,
)
from lintel.parsers.nodetests import parse_jest, parse_node_test_auto, parse_vitest
from lintel.parsers.pytests import parse_pytest_junit
from lintel.parsers.python import parse_mypy, parse_pyright, parse_ruff, parse_ruff_format
from lintel.parsers.rust import parse_cargo_messages, parse_cargo_test, parse_rustfmt_check
from lintel.parsers.shellcheck import parse_shellcheck
from lintel.parsers.tap import parse_node_tap, parse_tap

_REGISTRY: dict[str, Parser] = {
    # python
    "ruff": parse_ruff,
    "ruff-format": parse_ruff_format,
    "mypy": parse_mypy,
    "pyright": parse_pyright,
    "pytest": parse_pytest_junit,
    # node
    "eslint": parse_eslint,
    "eslint-compact": parse_eslint_compact,
    "tsc": parse_tsc,
    "jest": parse_jest,
    "vitest": parse_vitest,
    "node-test": parse_node_tap,
    "tap": parse_tap,
    "node-test-auto": parse_node_test_auto,
    "node-lint-auto": parse_node_lint_auto,
    "prettier": parse_prettier_check,
    # go
    "golangci-lint": parse_golangci_lint,
    "go-vet": parse_go_vet,
    "go-test": parse_go_test,
    "gofmt": parse_gofmt_list,
    # rust
    "clippy": parse_cargo_messages,
    "cargo-check": parse_cargo_messages,
    "cargo-test": parse_cargo_test,
    "rustfmt": parse_rustfmt_check,
    # shell
    "shellcheck": parse_shellcheck,
    # fallback
    "custom": parse_custom,
}

ALIASES: dict[str, str] = {
    "basedpyright": "pyright",
    "go vet": "go-vet",
    "govet": "go-vet",
    "gotest": "go-test",
    "cargotest": "cargo-test",
    "junit": "pytest",
}


def parser_names() -> list[str]:
    return sorted(_REGISTRY)


def get_parser(name: str | None) -> Parser:
    """The parser registered under `name`; unknown or absent names fall back to `custom` (docs/design.md)."""
    key = (name or "custom").strip().lower()
    key = ALIASES.get(key, key)
    return never_raises(_REGISTRY.get(key, parse_custom))


def is_known_parser(name: str) -> bool:
    key = name.strip().lower()
    return ALIASES.get(key, key) in _REGISTRY


__all__ = ["Parser", "ToolOutput", "get_parser", "is_known_parser", "parser_names"]
