"""lintel.frontends.mcp.tools without the SDK: the tool table, its schemas, argument checking and the summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintel.core.budget import Budget
from lintel.core.issues import TestFailure, make_issue
from lintel.engine import actions
from lintel.engine.actions import ActionError, CommandArgs
from lintel.engine.checks import RunResult
from lintel.frontends import cli
from lintel.frontends.mcp import tools

# CONTRACT §8 and §9: the MCP tool names.
CONTRACT_TOOLS = {
    "apply_fixes",
    "run_tests",
    "run_failing_tests",
    "last_test_failures",
    "run_lint",
    "run_typecheck",
    "run_format_check",
    "run_script",
    "tests_covering",
    "list_tests",
    "detect",
    "diagnostics",
    "check_edit",
}


def test_the_tools_are_the_contracts() -> None:
    assert {t.name for t in tools.TOOLS} == CONTRACT_TOOLS
    assert len(tools.TOOLS) == len(tools.BY_NAME)


@pytest.mark.parametrize("tool", tools.TOOLS, ids=lambda t: t.name)
def test_each_schema_stands_alone_and_describes_every_argument(tool: tools.AgentTool) -> None:
    schema = tool.input_schema()
    assert set(schema["properties"]) == set(tool.fields)
    assert set(tool.fields) <= set(CommandArgs.model_fields)
    assert set(schema.get("required", [])) == set(tool.required)
    assert schema["additionalProperties"] is False
    assert "$ref" not in json.dumps(schema)  # no shared $defs to resolve
    for name, field in schema["properties"].items():
        assert field["description"], (tool.name, name)
        assert "anyOf" not in field or name == "tests", field  # optional fields are their plain type


def test_arguments_are_checked_as_the_lsp_command_checks_them() -> None:
    run_lint = tools.find("run_lint")
    for arguments in ({"timeout": "soon"}, {"bogus": 1}, {"timeout": 0}, {"path": ["a"]}):
        with pytest.raises(ActionError) as over_mcp:
            run_lint.parse(arguments)
        with pytest.raises(ActionError) as over_lsp:
            actions.parse_args("lintel.lint", [arguments])
        assert over_mcp.value.invalid
        assert over_mcp.value.message == over_lsp.value.message.replace("lintel.lint: ", "run_lint: ", 1)

    assert run_lint.parse(None) == CommandArgs()
    assert run_lint.parse({"language": "python", "timeout": 3}) == CommandArgs(language="python", timeout=3)


def test_a_field_the_tool_does_not_take_or_a_missing_one_is_refused() -> None:
    with pytest.raises(ActionError, match=r"^detect: timeout: Extra inputs are not permitted$"):
        tools.find("detect").parse({"timeout": 5})
    with pytest.raises(ActionError, match=r"^tests_covering: line: Field required$"):
        tools.find("tests_covering").parse({"file": "a.py"})
    with pytest.raises(ActionError, match=r"^run_script: script: Field required$"):
        tools.find("run_script").parse({})
    offers = "unknown tool 'run_everything'; lintel offers: apply_fixes, check_edit, detect, diagnostics"
    with pytest.raises(ActionError, match=offers):
        tools.find("run_everything")


def result(check: str, tool: str, status: str = "findings", **fields: object) -> RunResult:
    out = RunResult(language="python", check=check, tool=tool, argv=[tool], cwd=Path("/w"), status=status)  # type: ignore[arg-type]
    for name, value in fields.items():
        setattr(out, name, value)
    return out


def test_a_test_run_summary_names_the_failures() -> None:
    failures = [TestFailure(name=f"tests/test_x.py::test_{i}", message="boom") for i in range(7)]
    issue = make_issue(kind="build", message="cannot import", source="pytest", severity="error", file="a.py", line=3)
    summary = tools.run_summary(
        result("test", "pytest", failures=failures, issues=[issue], duration_ms=1234, exit_code=1)
    )
    head, *lines = summary.splitlines()
    assert head == (
        "pytest: 7 failed (tests/test_x.py::test_0, tests/test_x.py::test_1, tests/test_x.py::test_2,"
        " tests/test_x.py::test_3, tests/test_x.py::test_4, …); 1 error in 1.2 s"
    )
    assert lines == ["a.py:3: error cannot import [pytest]"]
    passed = tools.run_summary(result("test", "pytest", status="clean", duration_ms=80, exit_code=0))
    assert passed == "pytest: tests passed in 80 ms"


def test_a_check_summary_counts_by_severity_and_lists_the_first_issues() -> None:
    issues = [
        make_issue(kind="lint", message=f"m{i}", source="ruff", severity="error" if i % 2 else "warning", file="f.py")
        for i in range(12)
    ]
    summary = tools.run_summary(result("lint", "ruff", issues=issues, duration_ms=2000), Budget(10))
    head, *lines = summary.splitlines()
    assert head == "ruff: 6 errors, 6 warnings in 2.0 s"
    assert len(lines) == 10 + 1
    assert lines[-1] == "… and 2 more (max_issues 10, most severe first) not shown"
    assert all(": error " in line for line in lines[:6])  # the most severe first
    assert len(tools.run_summary(result("lint", "ruff", issues=issues)).splitlines()) == 1 + 12  # the default cap
    assert tools.run_summary(result("lint", "ruff", status="clean")) == "ruff: no issues in 0 ms"
    assert tools.run_summary(result("lint", "lint", status="passed")) == "lint: passed (output not parsed) in 0 ms"
    not_run = tools.run_summary(result("typecheck", "mypy", status="not_checked", reason="mypy timed out after 1s"))
    assert not_run == "mypy: not checked — mypy timed out after 1s"


def test_a_script_summary_gives_its_exit_code_and_command() -> None:
    ran = result("script", "npm run build", status="clean", exit_code=0, duration_ms=1500)
    ran.argv = ["npm", "run", "--silent", "build", "--", "a b"]
    assert tools.run_summary(ran) == "npm run build: ok in 1.5 s (`npm run --silent build -- 'a b'`)"
    ran.exit_code = 3
    assert tools.run_summary(ran).startswith("npm run build: failed (exit 3) in 1.5 s")


def test_covering_and_detect_summaries() -> None:
    answer = {
        "file": "src/m.py",
        "line": 20,
        "granularity": "test",
        "tests": ["tests/test_m.py::test_a"],
        "source": "coverage.py, measured 2026-01-01T00:00:00+00:00 by this call",
    }
    assert tools.covering_summary(answer) == (
        "src/m.py:20: run by 1 test: tests/test_m.py::test_a\n(coverage.py, measured 2026-01-01T00:00:00+00:00 by"
        " this call)"
    )
    none = {**answer, "tests": [], "note": "no test runs this line"}
    assert tools.covering_summary(none).splitlines()[0] == "src/m.py:20: no test runs it (no test runs this line)"
    document = {
        "projects": [
            {
                "language": "go",
                "root": "api",
                "checks": {"lint": {"binaries": [{"name": "golangci-lint", "found": False}]}},
            },
            {"language": "node", "root": "web", "checks": {"lint": {"binaries": [{"name": "npm", "found": True}]}}},
        ]
    }
    assert tools.detect_summary(document) == "2 projects: go (api), node (web); not found: golangci-lint"


def test_lintel_mcp_refuses_a_root_that_is_not_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["mcp", "--root", str(tmp_path / "missing")]) == cli.EXIT_USAGE
    assert "--root: not a directory" in capsys.readouterr().err


def test_lintel_mcp_without_the_sdk_says_how_to_install_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    assert cli.main(["mcp", "--root", str(tmp_path)]) == cli.EXIT_USAGE
    assert "pip install 'lintel-lsp[mcp]'" in capsys.readouterr().err
