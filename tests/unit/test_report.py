from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintel.checks import RunResult, compose_output
from lintel.issues import make_issue
from lintel.report import RENDERERS, CheckReport, ProjectEntry

from tests.helpers import make_project


def report(tmp_path: Path, *, not_checked: bool = False) -> CheckReport:
    project = make_project("python", tmp_path, ("pyproject.toml",))
    issues = [
        make_issue(kind="lint", message="unused\n  import", source="ruff", file="a.py", line=3, column=1, rule="F401"),
        make_issue(kind="typecheck", message="bad type", source="mypy", file="b.py", line=9, severity="warning"),
        make_issue(kind="custom", message="boom", source="custom", severity="info"),
    ]
    runs = [
        RunResult("python", "lint", "ruff", ["ruff"], tmp_path, "findings", exit_code=1),
        RunResult(
            "python",
            "typecheck",
            "mypy",
            ["mypy"],
            tmp_path,
            "not_checked" if not_checked else "findings",
            reason="mypy missing" if not_checked else None,
        ),
    ]
    return CheckReport(root=tmp_path, projects=[ProjectEntry.of(project, tmp_path)], runs=runs, issues=issues)


def test_text_lines(tmp_path: Path) -> None:
    lines = RENDERERS["text"](report(tmp_path)).splitlines()
    assert lines[0] == "a.py:3:1: error F401 unused import [ruff]"
    assert lines[1] == "b.py:9: warning bad type [mypy]"
    assert lines[2] == ".: info boom [custom]"
    assert lines[-1] == "lintel: 1 error, 1 warning, 1 info from 2 checks"


def test_text_names_checks_that_did_not_run(tmp_path: Path) -> None:
    text = RENDERERS["text"](report(tmp_path, not_checked=True))
    assert "not checked: python typecheck: mypy missing" in text
    assert text.rstrip().endswith("from 1 check; 1 not checked")


def test_json_document(tmp_path: Path) -> None:
    data = json.loads(RENDERERS["json"](report(tmp_path)))
    assert data["version"] == 1
    summary = {"errors": 1, "warnings": 1, "infos": 1, "notChecked": 0}
    assert data["projects"] == [{"language": "python", "root": ".", "markers": ["pyproject.toml"], "summary": summary}]
    assert data["runs"][0] == {
        "check": "lint",
        "language": "python",
        "tool": "ruff",
        "argv": ["ruff"],
        "cwd": ".",
        "status": "findings",
        "reason": None,
        "exitCode": 1,
        "timedOut": False,
        "durationMs": 0,
        "project": ".",
    }
    assert data["summary"] == summary
    assert data["issues"][0]["rule"] == "F401"


@pytest.mark.parametrize(
    ("level", "not_checked", "code"),
    [("error", False, 1), ("warning", False, 1), ("info", False, 1), ("error", True, 1)],
)
def test_exit_codes(tmp_path: Path, level: str, not_checked: bool, code: int) -> None:
    assert report(tmp_path, not_checked=not_checked).exit_code(level) == code  # type: ignore[arg-type]


def test_exit_code_three_when_nothing_reaches_level_but_a_check_did_not_run(tmp_path: Path) -> None:
    rep = report(tmp_path, not_checked=True)
    rep.issues = [i for i in rep.issues if i.severity == "info"]
    assert rep.exit_code("error") == 3
    assert rep.exit_code("info") == 1
    rep.runs = rep.runs[:1]
    assert rep.exit_code("error") == 0


def test_timeout_issue_does_not_count_as_a_finding(tmp_path: Path) -> None:
    rep = report(tmp_path, not_checked=True)
    rep.issues = [make_issue(kind="timeout", message="lint: ruff timed out after 1s", source="ruff")]
    assert rep.summary()["errors"] == 0
    assert rep.exit_code("error") == 3


def test_a_timeout_is_shown_as_a_check_that_did_not_run_not_as_an_uncounted_error(tmp_path: Path) -> None:
    rep = report(tmp_path, not_checked=True)
    rep.runs[1].reason = "mypy timed out after 1s"
    rep.issues = [make_issue(kind="timeout", message="typecheck: mypy timed out after 1s", source="mypy")]
    text = RENDERERS["text"](rep)
    assert text.splitlines() == [
        "not checked: python typecheck: mypy timed out after 1s",
        "lintel: 0 errors, 0 warnings, 0 infos from 1 check; 1 not checked",
    ]
    github = RENDERERS["github"](rep)
    assert "::error" not in github
    assert github.count("mypy timed out after 1s") == 1
    assert "0 annotated" in github
    assert json.loads(RENDERERS["json"](rep))["issues"][0]["kind"] == "timeout"  # the record stays (CONTRACT §5)


def test_compose_output_order() -> None:
    assert compose_output("out\n", "err\n", 124, True, 5) == "out\n--- stderr ---\nerr\ntimed out after 5s\nexit: 124"
    assert compose_output("", "", 0, False, 5) == "exit: 0"
    assert compose_output("x", "  \n", 1, False, 5) == "x\nexit: 1"
