"""Parsers by name: the names users give validators (docs/design.md) and toolchains refer to.

Each family lives in its own module; the tables below are the one place that maps a name to a function.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from lintel.languages.parsers.base import Parser, ToolOutput, never_raises
from lintel.languages.parsers.custom import parse_custom

# Each family is imported on first use, so a server that never runs a go tool never pays for go's parsers
# (all of them at once cost ~40 ms of every start); the imports are plain ones, visible to mypy.


@functools.cache
def _python() -> Mapping[str, Parser]:
    from lintel.languages.parsers import pytests, python

    return {
        "ruff": python.parse_ruff,
        "ruff-format": python.parse_ruff_format,
        "mypy": python.parse_mypy,
        "pyright": python.parse_pyright,
        "pytest": pytests.parse_pytest_junit,
    }


@functools.cache
def _node() -> Mapping[str, Parser]:
    from lintel.languages.parsers import node, nodetests, tap

    return {
        "eslint": node.parse_eslint,
        "eslint-compact": node.parse_eslint_compact,
        "tsc": node.parse_tsc,
        "jest": nodetests.parse_jest,
        "vitest": nodetests.parse_vitest,
        "node-test": tap.parse_node_tap,
        "tap": tap.parse_tap,
        "node-test-auto": nodetests.parse_node_test_auto,
        "node-lint-auto": node.parse_node_lint_auto,
        "prettier": node.parse_prettier_check,
    }


@functools.cache
def _go() -> Mapping[str, Parser]:
    from lintel.languages.parsers import go, gotests

    return {
        "golangci-lint": go.parse_golangci_lint,
        "go-vet": go.parse_go_vet,
        "go-test": gotests.parse_go_test,
        "gofmt": go.parse_gofmt_list,
    }


@functools.cache
def _rust() -> Mapping[str, Parser]:
    from lintel.languages.parsers import rust

    return {
        "clippy": rust.parse_cargo_messages,
        "cargo-check": rust.parse_cargo_messages,
        "cargo-test": rust.parse_cargo_test,
        "rustfmt": rust.parse_rustfmt_check,
    }


@functools.cache
def _shell() -> Mapping[str, Parser]:
    from lintel.languages.parsers import shellcheck

    return {"shellcheck": shellcheck.parse_shellcheck}


def _fallback() -> Mapping[str, Parser]:
    return {"custom": parse_custom}


_FAMILIES: tuple[Callable[[], Mapping[str, Parser]], ...] = (_python, _node, _go, _rust, _shell, _fallback)
# Every parser name and its family; tests/unit/test_parsers_custom.py checks it against the families' own tables.
_NAMES: dict[str, Callable[[], Mapping[str, Parser]]] = {
    **dict.fromkeys(("ruff", "ruff-format", "mypy", "pyright", "pytest"), _python),
    **dict.fromkeys(
        (
            "eslint",
            "eslint-compact",
            "tsc",
            "jest",
            "vitest",
            "node-test",
            "tap",
            "node-test-auto",
            "node-lint-auto",
            "prettier",
        ),
        _node,
    ),
    **dict.fromkeys(("golangci-lint", "go-vet", "go-test", "gofmt"), _go),
    **dict.fromkeys(("clippy", "cargo-check", "cargo-test", "rustfmt"), _rust),
    "shellcheck": _shell,
    "custom": _fallback,
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
    return sorted(_NAMES)


def get_parser(name: str | None) -> Parser:
    """The parser registered under `name`; unknown or absent names fall back to `custom` (docs/design.md)."""
    key = (name or "custom").strip().lower()
    key = ALIASES.get(key, key)
    family = _NAMES.get(key)
    return never_raises(family()[key] if family is not None else parse_custom)


def is_known_parser(name: str) -> bool:
    key = name.strip().lower()
    return ALIASES.get(key, key) in _NAMES


__all__ = ["Parser", "ToolOutput", "get_parser", "is_known_parser", "parser_names"]
