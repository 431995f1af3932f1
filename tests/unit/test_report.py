from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lintel.core.issues import make_issue
from lintel.engine.checks import RunResult, compose_output
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry
from lintel.frontends.report.json import indented
from lintel.frontends.report.text import SHORT_REASON_CHARS, short_reason

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


# What pytest's exit 4 leaves as the reason (captured: a conftest.py importing a module that is not installed).
CONFTEST_REASON = (
    "pytest failed (exit 4): ImportError while loading conftest '/tmp/pcx/tests/conftest.py'.\n"
    "tests/conftest.py:1: in <module>\n    import not_a_module\n"
    "E   ModuleNotFoundError: No module named 'not_a_module'"
)


def test_a_not_checked_reason_is_one_line_in_the_text_report_and_whole_in_json(tmp_path: Path) -> None:
    checked = report(tmp_path, not_checked=True)
    checked.runs[1].reason = CONFTEST_REASON
    text = RENDERERS["text"](checked)
    [line] = [line for line in text.splitlines() if line.startswith("not checked:")]
    assert line == (
        "not checked: python typecheck: pytest failed (exit 4): ImportError while loading conftest "
        "'/tmp/pcx/tests/conftest.py'. … E ModuleNotFoundError: No module named 'not_a_module' (whole: --format json)"
    )
    assert "import not_a_module" not in text
    [run] = [r for r in json.loads(RENDERERS["json"](checked))["runs"] if r["status"] == "not_checked"]
    assert run["reason"] == CONFTEST_REASON


@pytest.mark.parametrize(
    ("reason", "short"),
    [
        ("mypy missing", "mypy missing"),
        (None, "no reason given"),
        ("x failed (exit 2):\n=====\n!!!!! Interrupted: 1 error during collection !!!!!\n", None),
        ("word " * 100, None),
    ],
)
def test_short_reasons(reason: str | None, short: str | None) -> None:
    shown = short_reason(reason)
    assert "\n" not in shown
    assert len(shown) <= SHORT_REASON_CHARS + len(" (whole: --format json)")
    if short is not None:
        assert shown == short
    else:
        assert shown.endswith("(whole: --format json)")
    if reason and "Interrupted" in reason:
        assert shown == "x failed (exit 2): … Interrupted: 1 error during collection (whole: --format json)"


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


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(_json_values, st.integers(min_value=0, max_value=3))
def test_the_json_report_lays_out_an_issue_as_json_dumps_with_an_indent(value: Any, depth: int) -> None:
    expected = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)
    assert indented(value, depth) == expected
