"""Running a subset of a project's tests: each built-in language's runner turns test identities into its own
filters (docs/agents.md, Running a subset of tests), declared as its LanguageSpec's `tests`
(`lintel.languages.<name>.testselect`). A language without one (a declared one) cannot run a subset."""

from __future__ import annotations

from lintel.languages.testselect.base import (
    PathSelector,
    Selection,
    Selector,
    TestRef,
    TestSelection,
    parse_identity,
    recorded_ref,
)

__all__ = [
    "PathSelector",
    "Selection",
    "Selector",
    "TestRef",
    "TestSelection",
    "parse_identity",
    "recorded_ref",
]
