"""One problem, one diagnostic: when lintel's own tools and a relayed language server report the same problem at
the same place (ruff F401 and basedpyright's reportUnusedImport, eslint's no-unused-vars and tsserver's 6133,
rustc's warning from clippy and from rust-analyzer's cargo check), the editor is shown lintel's, which carries
the finding's fingerprint and comes from the tool the project configured.

The same problem means: the same start line, overlapping ranges, and the same code, the same message, or codes
that the table below names as one problem. Pure functions over lsprotocol Diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lsprotocol import types

_UNUSED_JS = frozenset({("eslint", "no-unused-vars"), ("eslint", "@typescript-eslint/no-unused-vars")})
_UNUSED_IMPORT_PY = frozenset({("ruff", "F401")})
_UNUSED_VARIABLE_PY = frozenset({("ruff", "F841")})
_UNDEFINED_PY = frozenset({("ruff", "F821"), ("mypy", "name-defined")})

# (a language server's source, its code) -> (lintel source, rule) pairs that report the same problem.
EQUIVALENT: Mapping[tuple[str, str], frozenset[tuple[str, str]]] = {
    **{
        (server, code): rules
        for server in ("basedpyright", "Pyright", "pyright")
        for code, rules in (
            ("reportUnusedImport", _UNUSED_IMPORT_PY),
            ("reportUnusedVariable", _UNUSED_VARIABLE_PY),
            ("reportUndefinedVariable", _UNDEFINED_PY),
            ("reportRedeclaration", frozenset({("ruff", "F811")})),
        )
    },
    # tsserver: 6133 "'x' is declared but its value is never read", 6196 "'X' is declared but never used",
    # 6192 "All imports in import declaration are unused", 6198 "All destructured elements are unused".
    **{("typescript", code): _UNUSED_JS for code in ("6133", "6196", "6192", "6198")},
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
    return (own.source or "", own_code) in EQUIVALENT.get((relayed.source or "", relayed_code), frozenset())


def without_duplicates(own: Sequence[types.Diagnostic], relayed: Iterable[types.Diagnostic]) -> list[types.Diagnostic]:
    """The relayed diagnostics that report no problem `own` already reports."""
    return [d for d in relayed if not any(same_problem(d, o) for o in own)]
