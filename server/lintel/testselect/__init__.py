"""Running a subset of a project's tests: each built-in language's runner turns test identities into its own
filters (docs/design.md, Running a subset of tests). A static table, by language: a language without an entry
(a declared one) cannot run a subset."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from lintel.languages import Project, ToolSpec
from lintel.testselect import go, node, python, rust
from lintel.testselect.base import Selection, TestRef, parse_identity, recorded_ref

Selector = Callable[[Project, Sequence[TestRef], ToolSpec, Path], Selection]

SELECTORS: Mapping[str, Selector] = {
    "python": python.select,
    "go": go.select,
    "rust": rust.select,
    "node": node.select,
}

__all__ = ["SELECTORS", "Selection", "Selector", "TestRef", "parse_identity", "recorded_ref"]
