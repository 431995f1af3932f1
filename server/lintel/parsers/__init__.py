"""Parsers by name: the names users give validators (CONTRACT §7) and toolchains refer to.

Each family lives in its own module; this table is the one place that maps a name to a function.
"""

from __future__ import annotations

import importlib

from lintel.parsers.base import Parser, ToolOutput, never_raises

# name -> "module:function" (imported lazily, so `lintel detect` never pays for all of them)
_REGISTRY: dict[str, str] = {
    # python
    "ruff": "lintel.parsers.python:parse_ruff",
    "ruff-format": "lintel.parsers.python:parse_ruff_format",
    "mypy": "lintel.parsers.python:parse_mypy",
    "pyright": "lintel.parsers.python:parse_pyright",
    "pytest": "lintel.parsers.python:parse_pytest_junit",
    # node
    "eslint": "lintel.parsers.node:parse_eslint",
    "eslint-compact": "lintel.parsers.node:parse_eslint_compact",
    "tsc": "lintel.parsers.node:parse_tsc",
    "jest": "lintel.parsers.node:parse_jest",
    "vitest": "lintel.parsers.node:parse_vitest",
    "node-test": "lintel.parsers.node:parse_node_tap",
    "node-test-auto": "lintel.parsers.node:parse_node_test_auto",
    "node-lint-auto": "lintel.parsers.node:parse_node_lint_auto",
    "prettier": "lintel.parsers.node:parse_prettier_check",
    # go
    "golangci-lint": "lintel.parsers.go:parse_golangci_lint",
    "go-vet": "lintel.parsers.go:parse_go_vet",
    "go-test": "lintel.parsers.go:parse_go_test",
    "gofmt": "lintel.parsers.go:parse_gofmt_list",
    # rust
    "clippy": "lintel.parsers.rust:parse_cargo_messages",
    "cargo-check": "lintel.parsers.rust:parse_cargo_messages",
    "cargo-test": "lintel.parsers.rust:parse_cargo_test",
    "rustfmt": "lintel.parsers.rust:parse_rustfmt_check",
    # fallback
    "custom": "lintel.parsers.custom:parse_custom",
}

ALIASES: dict[str, str] = {
    "basedpyright": "pyright",
    "go vet": "go-vet",
    "govet": "go-vet",
    "gotest": "go-test",
    "cargotest": "cargo-test",
    "junit": "pytest",
    "tap": "node-test",
}


def parser_names() -> list[str]:
    return sorted(_REGISTRY)


def get_parser(name: str | None) -> Parser:
    """The parser registered under `name`; unknown or absent names fall back to `custom` (CONTRACT §7)."""
    key = (name or "custom").strip().lower()
    key = ALIASES.get(key, key)
    target = _REGISTRY.get(key, _REGISTRY["custom"])
    module_name, func_name = target.split(":")
    func: Parser = getattr(importlib.import_module(module_name), func_name)
    return never_raises(func)


def is_known_parser(name: str) -> bool:
    key = name.strip().lower()
    return ALIASES.get(key, key) in _REGISTRY


__all__ = ["Parser", "ToolOutput", "get_parser", "is_known_parser", "parser_names"]
