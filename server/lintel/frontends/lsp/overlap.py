"""One problem, one diagnostic: when lintel's own tools and a relayed language server report the same problem at
the same place (ruff F401 and basedpyright's reportUnusedImport, eslint's no-unused-vars and tsserver's 6133,
rustc's warning from clippy and from rust-analyzer's cargo check), the editor is shown lintel's, which carries
the finding's fingerprint and comes from the tool the project configured.

The same problem means: the same start line, overlapping ranges, and the same code, the same message, or codes
that a language's server declares as one problem (`ServerSpec.same_problems`). Pure functions over lsprotocol
Diagnostics.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

from lsprotocol import types


@functools.cache
def _equivalent() -> Mapping[tuple[str, str], frozenset[tuple[str, str]]]:
    """(a language server's source, its code) -> (lintel source, rule) pairs that report the same problem, as each
    language's server declares them (`ServerSpec.same_problems`). The registry is read on the first diagnostic:
    the server answers `initialize` before it loads the languages."""
    from lintel.languages import LANGUAGES

    return {
        key: rules for spec in LANGUAGES if spec.server is not None for key, rules in spec.server.same_problems.items()
    }


def _code(diagnostic: types.Diagnostic) -> str:
    return "" if diagnostic.code is None else str(diagnostic.code)


def _normal_code(code: str) -> str:
    """`TS2322` (tsc through lintel) and `2322` (tsserver) are one code; so are `E0308` and `e0308`."""
    lowered = code.lower()
    return lowered[2:] if lowered.startswith("ts") and lowered[2:].isdigit() else lowered


def _normal_message(message: str) -> str:
    return " ".join(message.split())


def _overlap(a: types.Range, b: types.Range) -> bool:
    """Same start line, and the character spans meet (a point range touching the other counts)."""
    if a.start.line != b.start.line:
        return False
    a_end = a.end.character if a.end.line == a.start.line else 1 << 30
    b_end = b.end.character if b.end.line == b.start.line else 1 << 30
    return a.start.character <= b_end and b.start.character <= a_end


def same_problem(relayed: types.Diagnostic, own: types.Diagnostic) -> bool:
    if not _overlap(relayed.range, own.range):
        return False
    relayed_code, own_code = _code(relayed), _code(own)
    if relayed_code and _normal_code(relayed_code) == _normal_code(own_code):
        return True
    if _normal_message(relayed.message) == _normal_message(own.message):
        return True
    return (own.source or "", own_code) in _equivalent().get((relayed.source or "", relayed_code), frozenset())


def without_duplicates(own: Sequence[types.Diagnostic], relayed: Iterable[types.Diagnostic]) -> list[types.Diagnostic]:
    """The relayed diagnostics that report no problem `own` already reports."""
    return [d for d in relayed if not any(same_problem(d, o) for o in own)]
