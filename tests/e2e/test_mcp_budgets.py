"""`lintel mcp` through the official SDK client: every tool lists an outputSchema and its structured content
validates against it, a budget (max_issues, severity) cuts the answer, and a run_tests call that gave a progress
token receives progress notifications."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import copy_workspace, missing_tool, require_tool

if importlib.util.find_spec("mcp") is None:
    missing_tool("the MCP SDK is not installed (pip install -e '.[dev]', or run scripts/setup-dev)", module=True)

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs in the dev dependencies

from tests.e2e.conftest import Start
from tests.e2e.test_mcp import PRICING, Agent, agent, text_of

# Every tool with arguments that answer on the python fixture (the test run first, for the two after it).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("last_test_failures", {}),  # nothing recorded yet
    ("run_tests", {}),
    ("last_test_failures", {}),
    ("run_failing_tests", {}),
    ("run_lint", {}),
    ("run_typecheck", {}),
    ("run_format_check", {}),
    ("detect", {}),
    ("list_tests", {"path": "tests"}),
    ("diagnostics", {"file": PRICING}),
    ("apply_fixes", {"dry_run": True}),
    ("check_edit", {"file": PRICING, "edits": [{"oldText": "previous = item.price\n", "newText": ""}]}),
    ("find_definition", {"file": PRICING, "line": 19, "column": 13}),
    ("find_references", {"file": PRICING, "symbol": "discounted"}),
    ("hover", {"file": PRICING, "symbol": "label"}),
    ("document_symbols", {"file": PRICING}),
    ("workspace_symbols", {"query": "discounted"}),
    ("rename_symbol", {"file": PRICING, "symbol": "clearance", "new_name": "sale", "dry_run": True}),
]


async def structured(client: Agent, tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A call's structured content, validated against the tool's listed outputSchema (the SDK's client checks
    it too, and raises on a mismatch)."""
    answer = await client.call(tool, arguments)
    assert not answer.is_error, (tool, answer.content)
    content = answer.structured_content
    assert isinstance(content, dict), (tool, content)
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(content)]
    assert not errors, (tool, errors)
    return content


async def test_every_tool_lists_an_output_schema_its_answers_match(tmp_path: Path, server_env: dict[str, str]) -> None:
    for name in ("pytest", "mypy", "ruff", "basedpyright-langserver"):
        require_tool(name)
    root = copy_workspace("python", tmp_path / "python")
    async with agent(root, server_env) as client:
        listed = {t.name: t for t in (await client.session.list_tools()).tools}
        schemas: dict[str, dict[str, Any]] = {}
        for listing in listed.values():
            assert listing.output_schema is not None, listing.name
            assert listing.output_schema["type"] == "object", listing.name
            Draft202012Validator.check_schema(listing.output_schema)
            schemas[listing.name] = listing.output_schema
        budgeted = {name for name, t in listed.items() if "max_issues" in t.input_schema["properties"]}
        assert {"run_lint", "run_tests", "diagnostics", "apply_fixes", "last_test_failures"} <= budgeted
        assert {"detect", "tests_covering"}.isdisjoint(budgeted)

        answers = [(tool, await structured(client, tool, arguments, schemas[tool])) for tool, arguments in CALLS]
        if importlib.util.find_spec("pytest_cov") is not None:
            covering = {"file": "src/inventory/models.py", "line": 20}
            answers.append(
                ("tests_covering", await structured(client, "tests_covering", covering, schemas["tests_covering"]))
            )
        await client.alive()

    assert {tool for tool, _ in answers} >= set(listed) - {"run_script", "tests_covering"}
    assert answers[0][1] == {"recorded": False, "language": "python", "root": "."}
    assert answers[2][1]["failures"], "the fixture has a failing test"


async def test_a_budget_cuts_the_answer_and_says_what_it_left_out(tmp_path: Path, server_env: dict[str, str]) -> None:
    require_tool("ruff")
    root = copy_workspace("python", tmp_path / "python")
    async with agent(root, server_env) as client:
        whole = await client.call("run_lint", {})
        one = await client.call("run_lint", {"max_issues": 1})
        errors = await client.call("run_lint", {"severity": "error"})
        refused = await client.error("run_lint", {"max_issues": 0})
    assert whole.structured_content is not None
    assert one.structured_content is not None
    assert errors.structured_content is not None
    total = len(whole.structured_content["issues"])
    assert total > 1, "the fixture has several lint findings"
    assert "issuesTotal" not in whole.structured_content  # under the default cap nothing is left out
    [kept] = one.structured_content["issues"]
    assert (one.structured_content["issuesTotal"], one.structured_content["issuesOmitted"]) == (total, total - 1)
    head, line, more = text_of(one).splitlines()
    assert head.rsplit(" in ", 1)[0] == text_of(whole).splitlines()[0].rsplit(" in ", 1)[0]  # counts of all
    assert line.startswith(f"{kept['file']}:{kept['line']}:")
    assert more == f"… and {total - 1} more (max_issues 1, most severe first) not shown"
    assert all(i["severity"] == "error" for i in errors.structured_content["issues"])
    assert refused.startswith("run_lint: max_issues: "), refused


async def test_run_tests_sends_progress_to_a_client_that_asked(tmp_path: Path, server_env: dict[str, str]) -> None:
    require_tool("pytest")
    root = copy_workspace("python", tmp_path / "python")
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with agent(root, server_env) as client:
        answer = await client.call("run_tests", {}, progress_callback=on_progress)
        assert not answer.is_error
        await client.alive()
    assert progress, "no progress notification arrived"
    assert any(m and m.startswith("lintel run_tests: running (pid ") for _, m in progress), progress
    values = [v for v, _ in progress]
    assert values == sorted(values)  # elapsed seconds: never backwards


@pytest.fixture
def client_name() -> str:
    return "neovim"


async def test_the_lsp_commands_answer_whole_unless_a_budget_is_given(start: Start) -> None:
    require_tool("ruff")
    editor = await start("python")
    whole = await editor.execute("lintel.lint")
    one = await editor.execute("lintel.lint", {"max_issues": 1})
    assert "issuesTotal" not in whole
    assert len(whole["issues"]) > 1
    assert (len(one["issues"]), one["issuesTotal"]) == (1, len(whole["issues"]))


@pytest.fixture
def server_env(cargo_target_dir: Path, tmp_path: Path) -> dict[str, str]:
    from tests.e2e.conftest import tool_env

    return {**tool_env(cargo_target_dir), "XDG_CACHE_HOME": str(tmp_path / "cache")}
