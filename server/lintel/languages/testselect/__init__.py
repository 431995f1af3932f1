"""Running a subset of a project's tests: each built-in language's runner turns test identities into its own
filters (docs/design.md, Running a subset of tests). A static table, by language: a language without an entry
(a declared one) cannot run a subset."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from lintel.languages import Project, ToolSpec
from lintel.languages.testselect import go, node, python, rust
from lintel.languages.testselect.base import Selection, TestRef, parse_identity, recorded_ref

Selector = Callable[[Project, Sequence[TestRef], ToolSpec, Path], Selection]
# runTests {path}: the tests in a file or under a folder (resolved, inside the project), None when it holds none.
PathSelector = Callable[[Project, Path, ToolSpec, Path], "Selection | None"]

SELECTORS: Mapping[str, Selector] = {
    "python": python.select,
    "go": go.select,
    "rust": rust.select,
    "node": node.select,
}

PATH_SELECTORS: Mapping[str, PathSelector] = {
    "python": python.select_path,
    "go": go.select_path,
    "rust": rust.select_path,
    "node": node.select_path,
}

__all__ = [
    "PATH_SELECTORS",
    "SELECTORS",
    "PathSelector",
    "Selection",
    "Selector",
    "TestRef",
    "parse_identity",
    "recorded_ref",
]
