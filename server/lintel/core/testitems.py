"""The tests a project declares, found without running them: one record per test, suite and test file, with the
identity `lintel.runTests {tests}` accepts (docs/editors.md, Tests in the editor)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

TestKind = Literal["file", "suite", "test"]


@dataclass(frozen=True)
class FoundTest:
    """A test (or a suite of them, or a test file) where its source declares it.

    `id` is what runTests accepts and what the runner itself lists (pytest's node id, go's `Test` name with its
    package, libtest's module path, the JS runner's full name); `parent` is the id of the suite or file around it.
    Positions are 1-based, columns in characters, the end exclusive; the range covers the declaration from its first
    line (decorators and attributes included) through its body."""

    __test__ = False  # not a pytest test class

    id: str
    label: str
    file: Path  # resolved
    line: int
    column: int
    end_line: int
    end_column: int
    kind: TestKind = "test"
    parent: str | None = None
