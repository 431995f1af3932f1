#!/usr/bin/env python3
"""An agent's loop over MCP: `lintel mcp` driven by the official MCP SDK's client (pip install 'lintel-lsp[mcp]').

After "writing" a file it asks for the file's diagnostics, then which tests run a line of it, runs just those
tests, reads the failures back, and reruns what failed — the loop an agent goes through around an edit:

    python examples/mcp_agent.py tests/workspaces/python src/inventory/models.py 16

`examples/agent_client.py` does the same over LSP with the standard library only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, TextContent


def default_server() -> list[str]:
    return [sys.executable, "-m", "lintel", "mcp"]


async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """Call a tool, print its summary; a refusal (isError) ends the example with its message."""
    answer: CallToolResult = await session.call_tool(tool, arguments)
    text = "\n".join(block.text for block in answer.content[:1] if isinstance(block, TextContent))
    print(f"> {tool} {arguments or ''}".rstrip())
    print("  " + text.replace("\n", "\n  "))
    if answer.is_error:
        raise SystemExit(f"{tool} refused: {text}")
    structured: dict[str, Any] | None = answer.structured_content
    return structured


async def loop(root: Path, file: str, line: int, server: list[str]) -> None:
    # The agent's own environment: lintel finds the project's tools on its PATH.
    params = StdioServerParameters(
        command=server[0], args=[*server[1:], "--root", str(root)], cwd=root, env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await call(session, "diagnostics", {"file": file})  # what the editor would show after the save
        covering = await call(session, "tests_covering", {"file": file, "line": line})
        tests = covering["tests"] if covering else []
        if not tests:
            print("no test runs that line: nothing to run")
            return
        await call(session, "run_tests", {"tests": tests})
        last = await call(session, "last_test_failures", {})
        for failure in (last or {}).get("failures", []):
            print(f"  FAILED {failure['name']}: {failure['message'].splitlines()[0]}")
        # …the agent fixes the code here…
        await call(session, "run_failing_tests", {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("file", help="the file just written, relative to the workspace")
    parser.add_argument("line", type=int, help="a line of it (1-based) whose tests to run")
    parser.add_argument("--server", help="server command (default: python -m lintel mcp)")
    args = parser.parse_args(argv)
    server = shlex.split(args.server) if args.server else default_server()
    asyncio.run(loop(args.workspace.resolve(), args.file, args.line, server))
    return 0


if __name__ == "__main__":
    sys.exit(main())
