"""Parsers by name: the names users give validators (docs/configuration.md) and toolchains refer to.

Each built-in language declares its own (`LanguageSpec.parsers`, in its folder); the parsers that belong to no
language (shellcheck, a validator's; `custom`, the fallback) are declared here.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from lintel.languages.parsers.base import Parser, ParserFamily, ToolOutput, never_raises
from lintel.languages.parsers.custom import parse_custom


def _shell() -> Mapping[str, Parser]:
    from lintel.languages.parsers import shellcheck

    return {"shellcheck": shellcheck.parse_shellcheck}


def _fallback() -> Mapping[str, Parser]:
    return {"custom": parse_custom}


# Parsers no language owns: shellcheck runs as a validator on any project's shell scripts.
SHARED_FAMILIES = (ParserFamily(("shellcheck",), _shell), ParserFamily(("custom",), _fallback))

ALIASES: dict[str, str] = {
    "basedpyright": "pyright",
    "go vet": "go-vet",
    "govet": "go-vet",
    "gotest": "go-test",
    "cargotest": "cargo-test",
    "junit": "pytest",
}


def families() -> tuple[ParserFamily, ...]:
    """Every parser family: the built-in languages' (from the registry), then the shared ones."""
    # Imported here: the registry imports the language folders, which import this package's modules.
    from lintel.languages import LANGUAGES

    return (*(spec.parsers for spec in LANGUAGES if spec.parsers is not None), *SHARED_FAMILIES)


@functools.cache
def _names() -> Mapping[str, ParserFamily]:
    """Each parser name and its family, read from the families' declared names (nothing is imported)."""
    return {name: family for family in families() for name in family.names}


@functools.cache
def _loaded(family: ParserFamily) -> Mapping[str, Parser]:
    return family.load()


def parser_names() -> list[str]:
    return sorted(_names())


def get_parser(name: str | None) -> Parser:
    """The parser registered under `name`; unknown or absent names fall back to `custom` (docs/configuration.md,
    Validators)."""
    key = (name or "custom").strip().lower()
    key = ALIASES.get(key, key)
    family = _names().get(key)
    return never_raises(_loaded(family)[key] if family is not None else parse_custom)


def is_known_parser(name: str) -> bool:
    key = name.strip().lower()
    return ALIASES.get(key, key) in _names()


__all__ = ["Parser", "ToolOutput", "families", "get_parser", "is_known_parser", "parser_names"]
