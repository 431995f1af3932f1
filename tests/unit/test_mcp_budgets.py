"""The MCP answers' budgets (max_issues, severity) and output schemas, without the SDK: each tool's answer of
each kind validates against the outputSchema it lists, and a budget cuts the text, the JSON and its runs alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs in the dev dependencies
from lintel.core.budget import OUTPUT_CHARS, Budget, budget_json
from lintel.core.fixes import Edit, Fix
from lintel.core.issues import Issue, Severity, TestFailure, make_issue
from lintel.core.testitems import FoundTest
from lintel.engine.actions import CommandArgs, FileDiagnostics
from lintel.engine.checks import RunResult
from lintel.engine.commandtable import CommandReport, Covering, LastTestRun, Ran
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.detect_report import detect_report
from lintel.engine.editcheck import EditCheck
from lintel.engine.fixrun import FixedFile, FixOutcome
from lintel.engine.testdiscovery import ProjectTests
from lintel.engine.testlist import AGENT_MAX_TESTS, FolderTests, TestList
from lintel.frontends.mcp import schemas, tools
from lintel.frontends.mcp.tools import Answer

from tests.helpers import copy_workspace

SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info", "hint")
# The tools whose answers hold issues: each takes max_issues and severity.
BUDGETED = {
    "check_edit",
    "run_tests",
    "run_failing_tests",
    "last_test_failures",
    "run_lint",
    "run_typecheck",
    "run_format_check",
    "run_script",
    "diagnostics",
    "apply_fixes",
}


def issue(n: int, severity: Severity = "warning", file: str = "src/a.py") -> Issue:
    fix = Fix("Remove", "safe", (Edit(file, n, 1, n, 4, ""),))
    return make_issue(
        kind="lint", message=f"m{n}", source="ruff", severity=severity, file=file, line=n, column=1, fixes=[fix]
    )


def many(count: int) -> list[Issue]:
    return [issue(n, SEVERITIES[n % 4], f"src/f{n % 3}.py") for n in range(1, count + 1)]


def run(check: str = "lint", issues: list[Issue] | None = None, **fields: Any) -> RunResult:
    out = RunResult("python", check, "ruff", ["ruff", "check"], Path("/w"), "findings", exit_code=1)
    out.issues = issues or []
    for name, value in fields.items():
        setattr(out, name, value)
    return out


def reports(tmp_path: Path) -> dict[str, list[CommandReport]]:
    """Reports of every kind the table's tools answer, made by the engine's own records."""
    root = copy_workspace("python", tmp_path / "python")
    [project] = detect(root)
    tests = run(
        "test",
        [issue(1, "error")],
        failures=[TestFailure("tests/test_a.py::test_x", "boom", "tests/test_a.py", 3)],
        scope="the whole suite",
    )
    covering = {
        "file": "src/a.py",
        "line": 3,
        "granularity": "test",
        "tests": ["t"],
        "covered": True,
        "executable": True,
        "source": "coverage.py",
        "measuredAt": "now",
        "ranCoverage": True,
    }
    diagnostics = FileDiagnostics(
        "src/a.py", "python", [run(issues=many(7)), run("format", [issue(9)])], content_hash="sha256:0", version=3
    )
    fixes = FixOutcome([FixedFile("src/a.py", "a\n", "b\n", 2)], many(5), dry_run=True, problems=["x"])
    test_file = root / "tests" / "test_models.py"
    found = [
        FoundTest("tests/test_models.py", "test_models.py", test_file, 1, 1, 14, 1, "file"),
        *(
            FoundTest(
                f"tests/test_models.py::test_{n}", f"test_{n}", test_file, n, 1, n, 9, "test", "tests/test_models.py"
            )
            for n in range(AGENT_MAX_TESTS + 5)
        ),
    ]
    listed: list[CommandReport] = [TestList([FolderTests(root, [ProjectTests(project, found)])]), TestList([])]
    runs: list[CommandReport] = [
        Ran(run(issues=many(60))),
        Ran(run(status="clean")),
        Ran(run(status="not_checked", reason="mypy timed out", timed_out=True)),
    ]
    return {
        **{name: runs for name in ("run_lint", "run_typecheck", "run_format_check", "run_script")},
        "run_tests": [Ran(tests)],
        "run_failing_tests": [Ran(tests)],
        "last_test_failures": [LastTestRun(project, ".", None), LastTestRun(project, ".", tests)],
        "list_tests": listed,
        "tests_covering": [Covering(covering), Covering({**covering, "tests": [], "note": "no test runs it"})],
        "detect": [detect_report(root, LintelConfig())],
        "diagnostics": [diagnostics],
        "apply_fixes": [fixes, FixOutcome([], [], dry_run=False)],
        "check_edit": [
            EditCheck("src/a.py", "python", "sha256:1", "sha256:0", many(9), many(4), 3, [run()], [run()]),
            EditCheck("src/b.py", "python", "sha256:1", None, [], [], 0, [run(status="clean")], []),
        ],
    }


def test_every_tool_has_a_schema_of_its_own_and_a_budget_where_it_answers_issues() -> None:
    for tool in tools.TOOLS:
        schema = tool.output_schema()
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object", tool.name  # structured content is an object
        assert schema is not schemas.ANY_OBJECT, tool.name
        assert ({"max_issues", "severity"} <= set(tool.fields)) == (tool.name in BUDGETED), tool.name
    assert {t.name for t in tools.TOOLS if "max_issues" in t.input_schema()["properties"]} == BUDGETED


@pytest.mark.parametrize("budget", [None, Budget(1), Budget(3, "warning"), Budget(None, "error")])
def test_each_answer_validates_against_its_tools_schema(tmp_path: Path, budget: Budget | None) -> None:
    made = reports(tmp_path)
    assert set(made) == set(tools.BY_NAME)
    for name, answered in made.items():
        validator = Draft202012Validator(tools.find(name).output_schema())
        for report in answered:
            found = tools.answer(report, budget)
            errors = [e.message for e in validator.iter_errors(found.structured)]
            assert not errors, (name, report, errors)


def lines_of(found: Answer) -> list[str]:
    return found.summary.splitlines()[1:]


def test_the_default_cap_keeps_the_most_severe_and_says_how_many_more() -> None:
    sixty = many(60)
    found = tools.answer(Ran(run(issues=sixty)))
    assert len(found.structured["issues"]) == tools.DEFAULT_MAX_ISSUES
    assert (found.structured["issuesTotal"], found.structured["issuesOmitted"]) == (60, 10)
    assert found.structured["ok"] is False  # of the whole run, not of what is shown
    *shown, more = lines_of(found)
    assert len(shown) == tools.DEFAULT_MAX_ISSUES
    assert more == "… and 10 more (max_issues 50, most severe first) not shown"
    ranks = [SEVERITIES.index(line.split(": ")[1].split()[0]) for line in shown]
    assert ranks == sorted(ranks)  # most severe first
    assert found.summary.splitlines()[0].startswith("ruff: 15 errors, 15 warnings, 15 infos, 15 hints")
    kept = {i["signature"] for i in found.structured["issues"]}
    dropped = [i for i in sixty if i.signature not in kept]
    assert {i.severity for i in dropped} == {"hint"}  # the least severe went
    order = [i.signature for i in sixty if i.signature in kept]
    assert [i["signature"] for i in found.structured["issues"]] == order  # the JSON keeps the tool's order


def test_the_severity_floor_comes_before_the_cap() -> None:
    found = tools.answer(Ran(run(issues=many(20))), Budget(3, "warning"))
    assert [i["severity"] for i in found.structured["issues"]] == ["error"] * 3
    assert (found.structured["issuesTotal"], found.structured["issuesOmitted"]) == (20, 17)
    assert lines_of(found)[-1] == "… and 7 more (max_issues 3, most severe first); 10 below severity warning not shown"
    floor_only = tools.answer(Ran(run(issues=many(8))), Budget(None, "error"))
    assert lines_of(floor_only)[-1] == "… and 6 below severity error not shown"
    assert len(floor_only.structured["issues"]) == 2


def test_nothing_left_out_adds_no_field_and_no_line() -> None:
    small = run(issues=many(4))
    found = tools.answer(Ran(small))
    assert found.structured == small.result_json()
    assert len(lines_of(found)) == 4


def test_per_file_runs_keep_only_the_issues_the_answer_kept() -> None:
    diagnostics = FileDiagnostics("src/a.py", "python", [run(issues=many(6)), run("format", [issue(9, "warning")])])
    found = tools.answer(diagnostics, Budget(2))
    kept = {i["signature"] for i in found.structured["issues"]}
    assert len(kept) == 2
    lint, fmt = found.structured["runs"]
    assert {i["signature"] for i in lint["issues"] + fmt["issues"]} == kept
    assert (lint["issuesTotal"], lint["issuesOmitted"]) == (6, 5)
    assert len(fmt["issues"]) == 1  # src/a.py's warning is the second most severe: nothing cut
    assert "issuesTotal" not in fmt
    fixes = tools.answer(FixOutcome([], many(9), dry_run=False), Budget(4))
    assert (len(fixes.structured["remaining"]), fixes.structured["remainingOmitted"]) == (4, 5)
    assert fixes.summary.splitlines()[-1] == "… and 5 more (max_issues 4, most severe first) not shown"


def test_budget_arguments_are_checked_and_an_unlimited_budget_changes_nothing() -> None:
    run_lint = tools.find("run_lint")
    assert run_lint.parse({"max_issues": 5, "severity": "warning"}) == CommandArgs(max_issues=5, severity="warning")
    for bad in ({"max_issues": 0}, {"severity": "fatal"}, {"max_issues": "5"}):
        with pytest.raises(tools.ActionError):
            run_lint.parse(bad)
    with pytest.raises(tools.ActionError, match="max_issues: Extra inputs are not permitted"):
        tools.find("detect").parse({"max_issues": 3})
    assert tools.budget_of(CommandArgs()) == Budget(tools.DEFAULT_MAX_ISSUES)
    assert tools.budget_of(CommandArgs(), default=None).unlimited  # the LSP commands: the whole answer
    document = run(issues=many(80)).result_json()
    assert budget_json(document, Budget()) is document


def test_a_capped_answer_keeps_the_end_of_the_tools_output() -> None:
    output = "".join(f"line {n}\n" for n in range(4000)) + "exit: 1"
    found = tools.answer(Ran(run(issues=many(3), output=output)))
    kept = found.structured["output"]
    assert len(kept) <= OUTPUT_CHARS
    assert kept.startswith("line ")  # from a line's start
    assert output.endswith(kept)  # its end: where tools print their summary
    assert found.structured["outputOmitted"] == len(output) - len(kept)
    diagnostics = tools.answer(FileDiagnostics("a.py", "python", [run(output=output)]))
    assert diagnostics.structured["runs"][0]["outputOmitted"] == len(output) - len(kept)
    floor_only = tools.answer(Ran(run(output=output)), Budget(None, "error"))
    assert floor_only.structured["output"] == output  # no cap asked for: the whole of it
