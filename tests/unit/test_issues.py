from __future__ import annotations

from pathlib import Path

import pytest
from lintel.core.issues import (
    Issue,
    ParseContext,
    SourceLines,
    finalize_issues,
    make_fingerprint,
    make_issue,
    severity_from,
    sha256_hex,
)


def test_signature_is_kind_file_line_message() -> None:
    issue = make_issue(kind="typecheck", message="Type error", source="tsc", file="src/api.ts", line=42)
    assert issue.signature == "typecheck:src/api.ts:42:Type error"


def test_signature_without_location_hashes_message() -> None:
    issue = make_issue(kind="custom", message="boom\nexit 3", source="custom")
    assert issue.signature == "custom:" + sha256_hex("boom\nexit 3")
    assert len(issue.signature) == len("custom:") + 64


def test_same_failure_same_signature_across_runs() -> None:
    a = make_issue(kind="lint", message="x", source="ruff", file="a.py", line=3, rule="F401")
    b = make_issue(kind="lint", message="x", source="ruff", file="a.py", line=3, rule="F401")
    assert a == b


@pytest.mark.parametrize(
    ("word", "expected"),
    [("error", "error"), ("Warning", "warning"), (2, "error"), (1, "warning"), ("note", "info"), ("help", "hint")],
)
def test_severity_mapping(word: str | int, expected: str) -> None:
    assert severity_from(word) == expected


def test_unknown_severity_uses_default() -> None:
    assert severity_from("bogus", "info") == "info"
    assert severity_from(None) == "warning"


def test_to_json_is_camel_case_and_omits_absent() -> None:
    issue = make_issue(
        kind="lint", message="m", source="eslint", file="a.js", line=1, column=2, end_line=1, end_column=5
    )
    data = issue.to_json()
    assert data["endLine"] == 1
    assert data["endColumn"] == 5
    assert "rule" not in data
    assert "hint" not in data
    assert Issue.from_json(data) == issue


def test_invalid_positions_dropped() -> None:
    issue = make_issue(kind="lint", message="m", source="x", file="a", line=0, column=-1)
    assert issue.line is None
    assert issue.column is None


@pytest.mark.parametrize(
    ("cwd", "printed", "expected"),
    [
        ("/ws", "src/a.py", "src/a.py"),
        ("/ws/web", "src/a.ts", "web/src/a.ts"),
        ("/ws", "/ws/pkg/x.go", "pkg/x.go"),
        ("/ws", "./pkg/../pkg/x.go", "pkg/x.go"),
        ("/ws", "file:///ws/a.rs", "a.rs"),
        ("/ws", "C:\\ws\\a.py", "C:/ws/a.py"),
        ("/ws", "/elsewhere/a.py", "/elsewhere/a.py"),
    ],
)
def test_relpath(cwd: str, printed: str, expected: str) -> None:
    assert ParseContext(cwd=cwd, root="/ws").relpath(printed) == expected


def test_fingerprint_survives_inserted_lines_and_whitespace(tmp_path: Path) -> None:
    source = tmp_path / "a.py"
    source.write_text("import os\nx = 1\n")
    before = make_issue(kind="lint", message="unused", source="ruff", file="a.py", line=1, rule="F401")
    [first] = finalize_issues([before], SourceLines(tmp_path))
    source.write_text("\n" * 10 + "import   os\nx = 1\n")
    after = make_issue(kind="lint", message="unused", source="ruff", file="a.py", line=11, rule="F401")
    [second] = finalize_issues([after], SourceLines(tmp_path))
    assert first.fingerprint == second.fingerprint
    assert first.signature != second.signature


def test_fingerprint_differs_by_rule_and_text(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\nimport sys\n")
    issues = [
        make_issue(kind="lint", message="m", source="ruff", file="a.py", line=1, rule="F401"),
        make_issue(kind="lint", message="m", source="ruff", file="a.py", line=2, rule="F401"),
        make_issue(kind="lint", message="m", source="ruff", file="a.py", line=1, rule="E401"),
    ]
    prints = {i.fingerprint for i in finalize_issues(issues, SourceLines(tmp_path))}
    assert len(prints) == 3


def test_fingerprint_without_readable_source_uses_message(tmp_path: Path) -> None:
    issue = make_issue(kind="custom", message="boom", source="custom")
    [done] = finalize_issues([issue], SourceLines(tmp_path))
    [again] = finalize_issues([issue], SourceLines(tmp_path))
    assert done.fingerprint
    assert done.fingerprint == again.fingerprint


def test_the_findings_of_one_long_line_read_and_hash_it_once_per_rule() -> None:
    """A 20 MB one-line file gives ruff an E702 every 7 bytes; each finding normalised and hashed the
    whole line again. Same fingerprints, one read per (kind, file, rule, line)."""
    line = "x = 1; " * 10_000
    reads: list[tuple[str, int]] = []

    def read_line(file: str, number: int) -> str | None:
        reads.append((file, number))
        return line if number == 1 else None

    issues = [
        make_issue(kind="lint", message=f"E702 at {c}", source="ruff", file="a.py", line=1, column=c, rule="E702")
        for c in range(1, 2_000)
    ]
    issues.append(make_issue(kind="lint", message="unused", source="ruff", file="a.py", line=1, rule="F401"))
    missing = [make_issue(kind="lint", message=m, source="ruff", file="a.py", line=2, rule="E1") for m in "ab"]
    done = finalize_issues([*issues, *missing], read_line)
    assert reads == [("a.py", 1), ("a.py", 1), ("a.py", 2), ("a.py", 2)]
    assert {i.fingerprint for i in done[:-3]} == {make_fingerprint("lint", "a.py", "E702", line)}
    assert done[-3].fingerprint == make_fingerprint("lint", "a.py", "F401", line)
    # Without the line, each finding's message stands in: two messages, two fingerprints.
    assert done[-2].fingerprint != done[-1].fingerprint
