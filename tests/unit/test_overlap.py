"""One problem, one diagnostic: a relayed language server's diagnostic is left out when lintel's own tools
report the same problem at the same place (same code, same message, or a known equivalence)."""

from __future__ import annotations

from lintel.frontends.lsp.overlap import same_problem, without_duplicates
from lintel.frontends.lsp.store import DiagnosticsStore
from lsprotocol import types


def diagnostic(line: int, start: int, end: int, source: str, code: str | int | None, message: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line, character=start), end=types.Position(line=line, character=end)
        ),
        message=message,
        source=source,
        code=code,
    )


RUFF_F401 = diagnostic(2, 7, 9, "ruff", "F401", "`os` imported but unused")
PYRIGHT_UNUSED = diagnostic(2, 7, 9, "basedpyright", "reportUnusedImport", 'Import "os" is not accessed')
ESLINT_UNUSED = diagnostic(4, 6, 12, "eslint", "no-unused-vars", "'unused' is assigned a value but never used.")
TS_6133 = diagnostic(4, 6, 12, "typescript", 6133, "'unused' is declared but its value is never read.")
TSC_2322 = diagnostic(9, 2, 7, "tsc", "TS2322", "Type 'string' is not assignable to type 'number'.")
TS_2322 = diagnostic(9, 2, 7, "typescript", 2322, "Type 'string' is not assignable to type 'number'.")
RUSTC = diagnostic(20, 8, 14, "rustc", "unused_variables", "unused variable: `unused`")
RA_RUSTC = diagnostic(
    20, 8, 14, "rustc", "unused_variables", "unused variable: `unused`\n`#[warn(unused_variables)]` on"
)
GO_VET = diagnostic(11, 4, 4, "go vet", None, "declared and not used: x")
GOPLS = diagnostic(11, 4, 5, "compiler", "UnusedVar", "declared and not used: x")


def test_known_equivalences_same_codes_and_same_messages_are_one_problem() -> None:
    assert same_problem(PYRIGHT_UNUSED, RUFF_F401)  # the table
    assert same_problem(TS_6133, ESLINT_UNUSED)  # the table
    assert same_problem(TS_2322, TSC_2322)  # TS2322 == 2322
    assert same_problem(RA_RUSTC, RUSTC)  # same code
    assert same_problem(GOPLS, GO_VET)  # same message, a point range touching the span


def test_other_problems_on_the_same_line_or_elsewhere_stay() -> None:
    assert not same_problem(PYRIGHT_UNUSED, ESLINT_UNUSED)  # another line
    other_rule = diagnostic(2, 7, 9, "basedpyright", "reportAttributeAccessIssue", "Cannot access attribute")
    assert not same_problem(other_rule, RUFF_F401)
    elsewhere_on_line = diagnostic(2, 20, 25, "basedpyright", "reportUnusedImport", 'Import "sys" is not accessed')
    assert not same_problem(elsewhere_on_line, RUFF_F401)
    assert without_duplicates([RUFF_F401], [PYRIGHT_UNUSED, other_rule, elsewhere_on_line]) == [
        other_rule,
        elsewhere_on_line,
    ]


def test_the_store_leaves_out_relayed_duplicates_unless_told_not_to() -> None:
    store = DiagnosticsStore()
    store.put("file:///a.py", "lint", [RUFF_F401])
    store.put("file:///a.py", "server:python", [PYRIGHT_UNUSED])
    assert store.merged("file:///a.py") == [RUFF_F401]
    assert store.merged("file:///a.py", dedupe=False) == [RUFF_F401, PYRIGHT_UNUSED]
    store.put("file:///a.py", "lint", [])  # ruff's finding fixed or its run cleared: the server's shows again
    assert store.merged("file:///a.py") == [PYRIGHT_UNUSED]
