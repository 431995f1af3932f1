"""lintel.discoverTests for Rust: the tests `testscan` reads in each file, as records named as
`cargo test -- --list` names them (`shapes::tests::makes_points`); the inline modules holding tests are suites,
the file (relative to the project root, as runTests accepts it) their parent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from lintel.core.testitems import FoundTest
from lintel.languages.base import Project
from lintel.languages.rust.testscan import Crate, Span, crates, place, scan_file
from lintel.languages.testselect.base import relative


def discover(project: Project, files: Sequence[Path], texts: Mapping[Path, str]) -> list[FoundTest]:
    known = sorted(crates(project), key=lambda c: len(c.root.parts), reverse=True)
    found: list[FoundTest] = []
    for file in files:
        if file.suffix == ".rs":
            found.extend(file_tests(project, known, file, texts.get(file)))
    return found


def file_tests(project: Project, known: Sequence[Crate], file: Path, text: str | None) -> list[FoundTest]:
    """The file's record, then each suite before the tests in it (source order)."""
    crate = next((c for c in known if file.is_relative_to(c.root)), None)
    placed = place(crate, file) if crate is not None else None
    if crate is None or placed is None:
        return []
    tests = scan_file(crate.package, placed[0], file, placed[1], text)
    if not tests:
        return []
    file_id = relative(project, file)
    last = max(t.span for t in tests)
    out = [_record(file_id, file.name, file, (1, 1, last[2], last[3]), "file", None)]
    suites: set[str] = set()
    for test in tests:
        parent = file_id
        for suite in test.suites:
            if suite.name not in suites:
                suites.add(suite.name)
                out.append(_record(suite.name, suite.name.rsplit("::", 1)[-1], file, suite.span, "suite", parent))
            parent = suite.name
        out.append(_record(test.name, test.name.rsplit("::", 1)[-1], file, test.span, "test", parent))
    return out


def _record(id: str, label: str, file: Path, span: Span, kind: str, parent: str | None) -> FoundTest:
    assert kind in ("file", "suite", "test")
    return FoundTest(id, label, file, span[0], span[1], span[2], span[3], kind, parent)  # type: ignore[arg-type]
