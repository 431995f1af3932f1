"""`lintel mcp`: the MCP SDK's low-level server over stdio, serving the tools of tools.py.

Each call: the arguments validated as the LSP command validates them, the engine call, and a result with the
summary text, the JSON as a text block (clients without structured output) and the JSON as structured content,
which matches the tool's listed outputSchema (schemas.py).
A refusal (bad argument, no project, not trusted, missing tool) is a tool error (`isError`) with the LSP
command's message; the server stays up. A cancelled call cancels its run, which kills the tool's process group
(lintel.process). Progress goes to a client that asked for it (a progress token): the tool's pid, then the
seconds elapsed."""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from lintel import __version__
from lintel.core.fsnames import backslashed, utf8_only
from lintel.core.results import RunResult
from lintel.engine import actions
from lintel.engine.actions import ActionError, Folder
from lintel.frontends.mcp.navtools import NAV_BY_NAME, NAV_TOOLS
from lintel.frontends.mcp.tools import BY_NAME, TOOLS, Answer, find
from lintel.frontends.mcp.wire import CheckedLines, wire_stdin
from lintel.frontends.mcp.workspace import Host, Workspace
from lintel.runtime.process import KILL_GRACE

if TYPE_CHECKING:
    from lintel.frontends.mcp.servers import AgentServers

log = logging.getLogger(__name__)

TICK_SECONDS = 2.0
INSTRUCTIONS = (
    "lintel runs a workspace's own linters, type checkers, formatters and test runners (Go, Rust, Node, Python, "
    "and languages lintel.toml declares) and returns their findings as structured issues. Before writing a file, "
    "`check_edit` gives what the new text would add or fix without writing it; after writing one, call "
    "`diagnostics` on it (an answer whose first line starts with `partial:` is incomplete, not clean); run "
    "`run_tests`, `run_lint`, `run_typecheck` for the project. In a workspace with "
    "several projects pass `path` (a file or folder in the project you mean). To navigate code, use the language "
    "servers: `find_definition`, `find_references`, `hover`, `document_symbols`, `workspace_symbols`, and "
    "`rename_symbol` (`dry_run` shows the diff); positions are 1-based, columns in characters, or name a `symbol`."
)


def answer_result(answer: Answer) -> types.CallToolResult:
    # The JSON text keeps a file name that is not UTF-8 exact (\udcXX); the SDK's serializer refuses lone
    # surrogates, so the summary and structured content write it with \xNN escapes (lintel.core.fsnames).
    content: list[types.ContentBlock] = [types.TextContent(text=backslashed(answer.summary))]
    content.append(types.TextContent(text=json.dumps(answer.structured)))
    return types.CallToolResult(content=content, structured_content=utf8_only(answer.structured))


def error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


class Progress:
    """notifications/progress for one call: the pid at start, then a tick (the SDK sends them only when the
    client gave a progress token)."""

    def __init__(self, ctx: ServerRequestContext[Any], title: str) -> None:
        self.ctx = ctx
        self.title = title
        self.started_at = time.monotonic()
        self._pending: set[asyncio.Task[None]] = set()

    def _send(self, message: str) -> None:
        elapsed = time.monotonic() - self.started_at
        task = asyncio.ensure_future(self.ctx.session.report_progress(elapsed, None, f"{self.title}: {message}"))
        self._pending.add(task)  # a reference until it is sent (asyncio keeps only weak ones)
        task.add_done_callback(self._pending.discard)

    def started(self, pid: int) -> None:
        self._send(f"running (pid {pid})")

    async def tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            self._send(f"{time.monotonic() - self.started_at:.0f}s elapsed")


class Calls:
    """The tool calls in flight. A client ends its server with SIGTERM once closing stdin did not end it (a tool
    still running): every call is cancelled then, which kills its tool's process group, and lintel exits — at
    once, without the interpreter's shutdown, which would wait forever for the SDK's thread blocked reading stdin.
    (The orphan watchdog is only the last resort.)"""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[Any]] = set()
        self._stopping: asyncio.Task[None] | None = None
        self.servers: Navigation | None = None  # the child language servers, killed on the way out

    def stop_on_signal(self, sig: signal.Signals) -> None:
        log.info("%s received: stopping %d running call(s)", sig.name, len(self.running))
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop_and_exit())

    async def _stop_and_exit(self) -> None:
        for task in self.running:
            task.cancel()
        if self.running:
            await asyncio.wait(self.running, timeout=KILL_GRACE + 5)
        if self.servers is not None:
            self.servers.kill_all()
        logging.shutdown()
        os._exit(0)


class Listed(Protocol):
    """A tool as tools/list shows it: the command table's (tools.py) and navigation's (navtools.py)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def input_schema(self) -> dict[str, Any]: ...

    def output_schema(self) -> dict[str, Any]: ...


class Navigation:
    """The child language servers (lintel.frontends.mcp.servers.AgentServers), made on first use: the relay and
    lsprotocol load with the first navigation tool or proposed text, not before `initialize` is answered."""

    def __init__(self, host: Host, made: AgentServers | None = None) -> None:
        self._host = host
        self._made = made

    def get(self) -> AgentServers:
        if self._made is None:
            from lintel.frontends.mcp.servers import AgentServers

            self._made = AgentServers(self._host)
        return self._made

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None:
        return await self.get().server_diagnostics(folder, file, text)

    def kill_all(self) -> None:
        if self._made is not None:
            self._made.kill_all()

    async def stop(self) -> None:
        if self._made is not None:
            await self._made.stop()


def build(host: Host, calls: Calls, servers: AgentServers | Navigation | None = None) -> Server[Any]:
    navigation = servers if isinstance(servers, Navigation) else Navigation(host, servers)
    calls.servers = navigation
    host.servers = navigation

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed: list[Listed] = [*TOOLS, *NAV_TOOLS]
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.input_schema(),
                    output_schema=t.output_schema(),
                )
                for t in listed
            ]
        )

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        task = asyncio.current_task()
        if task is not None:
            calls.running.add(task)
        try:
            nav = NAV_BY_NAME.get(params.name)
            if nav is not None:
                nav_args = nav.parse(params.arguments)
                host.refresh()
                return answer_result(await nav.call(navigation.get(), nav_args))
            if params.name not in BY_NAME:
                offered = ", ".join(sorted({*BY_NAME, *NAV_BY_NAME}))
                raise actions.invalid(f"unknown tool {params.name!r}; lintel offers: {offered}")
            tool = find(params.name)
            args = tool.parse(params.arguments)
            host.refresh()
            progress = Progress(ctx, f"lintel {tool.name}")
            ticker = asyncio.ensure_future(progress.tick())
            try:
                answer = await tool.call(host, args, progress.started)
            finally:
                ticker.cancel()
        except ActionError as exc:
            log.info("%s refused: %s", params.name, exc.message)
            return error_result(exc.message)
        except Exception as exc:  # one broken call must not take the server down
            log.exception("%s crashed", params.name)
            return error_result(f"internal error in lintel: {exc!r}")
        finally:
            calls.running.discard(task)
        return answer_result(answer)

    return Server(
        "lintel",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve(root: Path, *, trusted: bool) -> None:
    workspace = Workspace(root)
    workspace.refresh()
    host = Host([workspace], trusted=trusted)
    if not trusted:
        log.warning("%s is not trusted (--untrusted): lintel runs no tools there", root)
    calls = Calls()
    servers = Navigation(host)
    atexit.register(servers.kill_all)  # no child outlives lintel, however it ends
    server = build(host, calls, servers)
    loop = asyncio.get_running_loop()
    for stop in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        loop.add_signal_handler(stop, calls.stop_on_signal, stop)
    lines = CheckedLines(wire_stdin())
    # The SDK reads only `async for line in stdin` of what it is given.
    async with stdio_server(stdin=cast("Any", lines)) as (read_stream, write_stream):

        async def reply(error: dict[str, Any]) -> None:
            await write_stream.send(SessionMessage(types.JSONRPCError.model_validate(error)))

        lines.reply = reply
        try:
            await server.run(read_stream, write_stream, server.create_initialization_options())
        finally:
            await servers.stop()
