"""The server's commands in a monorepo: `path` picks the nearest project above it; without it, several
projects are refused by name — through a real LSP client against `lintel serve` on services side by side."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.conftest import Start
from tests.helpers import require_tool

REFUSAL = "3 projects found in workspace (api: go, tools: python, web: node) — pass `path` to pick one"


async def test_run_tests_with_a_path_runs_that_projects_tests(start: Start) -> None:
    require_tool("node")
    editor = await start("mono-services")

    result = await editor.execute("lintel.runTests", {"path": "web/src/slug.js"})

    assert (result["language"], result["check"]) == ("node", "test")
    assert result["cwd"] == str(editor.root / "web")
    assert result["ok"] is False
    assert [f["name"] for f in result["failures"]] == ["slug drops punctuation"]
    # The last run is kept per project: web's is there, api's (never run) is not.
    last = await editor.execute("lintel.lastTestFailures", {"path": str(editor.root / "web")})
    assert last is not None
    assert last["cwd"] == result["cwd"]
    assert await editor.execute("lintel.lastTestFailures", {"path": "api/server.go"}) is None


async def test_without_a_path_several_projects_are_refused_by_name(start: Start) -> None:
    editor = await start("mono-services")

    with pytest.raises(JsonRpcException, match=REFUSAL.replace("(", r"\(").replace(")", r"\)")):
        await editor.execute("lintel.runTests")
    # `language` narrows the candidates first: one Go project is no longer a guess.
    require_tool("go")
    result = await editor.execute("lintel.typecheck", {"language": "go"})
    assert (result["language"], result["cwd"]) == ("go", str(editor.root / "api"))
    # A folder holding one project is that project.
    detected = await editor.execute("lintel.detect")
    assert [(p["root"], p["language"]) for p in detected["projects"]] == [
        ("api", "go"),
        ("tools", "python"),
        ("web", "node"),
    ]
