"""A check the project does not use, asked for by name: `lintel.typecheck` and MCP `run_typecheck`
on mono-services/web (JavaScript, no TypeScript, no prettier) answer a `not_configured` result, `ok: true`, with the
reason and nothing run — not an error, not a missing tool (docs/architecture.md, "Checks the project does not use")."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path

from tests.e2e.conftest import Start, tool_env
from tests.helpers import copy_workspace, missing_tool

NO_TYPESCRIPT = "no TypeScript in this project (no tsconfig.json, no typescript dependency)"
NO_PRETTIER = "no prettier in this project (no prettier config, no prettier dependency or script)"


async def test_lintel_typecheck_on_a_project_without_typescript(start: Start) -> None:
    editor = await start("mono-services")
    result = await editor.execute("lintel.typecheck", {"path": "web"})
    assert {k: result[k] for k in ("ok", "language", "check", "status", "reason", "argv", "exitCode", "issues")} == {
        "ok": True,
        "language": "node",
        "check": "typecheck",
        "status": "not_configured",
        "reason": NO_TYPESCRIPT,
        "argv": [],
        "exitCode": None,
        "issues": [],
    }
    result = await editor.execute("lintel.format", {"path": "web/src"})
    assert (result["ok"], result["status"], result["reason"]) == (True, "not_configured", NO_PRETTIER)


def test_mcp_run_typecheck_on_a_project_without_typescript(tmp_path: Path, cargo_target_dir: Path) -> None:
    if importlib.util.find_spec("mcp") is None:
        missing_tool("the MCP SDK is not installed (pip install -e '.[dev]', or run scripts/setup-dev)", module=True)
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp_types import TextContent

    root = copy_workspace("mono-services", tmp_path / "mono-services")

    async def call() -> tuple[bool, str, dict[str, object] | None]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "lintel", "mcp", "--root", str(root)], env=tool_env(cargo_target_dir)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 60)
            answer = await asyncio.wait_for(session.call_tool("run_typecheck", {"path": "web"}), 120)
            summary = answer.content[0]
            assert isinstance(summary, TextContent)
            return answer.is_error, summary.text, answer.structured_content

    is_error, summary, structured = asyncio.run(call())
    assert not is_error
    assert summary == f"tsc: not configured — {NO_TYPESCRIPT}; nothing ran"
    assert structured is not None
    assert (structured["ok"], structured["status"], structured["reason"]) == (True, "not_configured", NO_TYPESCRIPT)
    assert json.dumps(structured)  # the same JSON an agent parses
