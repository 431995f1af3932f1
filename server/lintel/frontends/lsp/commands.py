"""`workspace/executeCommand`: lintel's commands (lintel.engine.commandtable: runTests, typecheck, lint, format,
lastTestFailures, detect, validate, runScript, runFailingTests, coverage, testsCovering, discoverTests, fixAll,
restartServers) run
for the editor, with work-done progress and their results published as diagnostics.

Each takes zero arguments or one object `{language?, path?, timeout?}` and returns its report's JSON (a RunResult
mostly); failing tests are a result (`ok: false`), bad arguments and undetectable projects are ResponseErrors.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lintel.core.budget import Budget, budget_json
from lintel.engine import actions
from lintel.engine.actions import ActionError, CommandArgs, Folder, parse_args
from lintel.engine.checks import RunResult
from lintel.engine.commandtable import LSP_COMMANDS, Command, CommandRequest, OnStart
from lintel.engine.coverage import CoverageStore
from lintel.engine.editcheck import OpenDocument, Servers
from lintel.engine.testdiscovery import TestIndex
from lintel.engine.validators import ValidateResult
from lintel.frontends.lsp import session
from lintel.frontends.lsp.advertised import COMMANDS
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.pyglscompat import forget_progress, progress_cancelled
from lintel.frontends.lsp.shared import NOT_FORWARDED, ForwardCommand, RestartServers, uri_path

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer
    from lintel.frontends.lsp.testresults import TestPublisher

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803  # LSP: the request was valid but could not be carried out

# lintel's own commands (named in advertised.py, so `initialize` lists them before this module is loaded).
OFFERED = COMMANDS

__all__ = ["OFFERED", "CommandArgs", "Commands", "Progress", "failed", "invalid", "parse_args", "setup"]


def lsp_error(error: ActionError) -> JsonRpcException:
    return JsonRpcException(message=error.message, code=INVALID_PARAMS if error.invalid else REQUEST_FAILED)


def invalid(message: str) -> JsonRpcException:
    return lsp_error(actions.invalid(message))


def failed(message: str) -> JsonRpcException:
    return lsp_error(actions.failed(message))


class Commands:
    """The handler table (lintel.engine.commandtable's commands by their LSP names) and `execute`, the one entry
    the dispatcher calls for `workspace/executeCommand`."""

    def __init__(
        self,
        server: LintelServer,
        diagnostics: Diagnostics,
        forward: ForwardCommand,
        restart: RestartServers,
        servers: Servers | None = None,
    ) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.forward = forward
        self.restart = restart
        self.servers = servers  # the child language servers, asked for their diagnostics of a proposed text
        # The last coverage run of each project, for testsCovering (kept on disk too: lintel.engine.coverage.store).
        self.coverage_store = CoverageStore()
        self.handlers: dict[str, Command] = dict(LSP_COMMANDS)
        # A test run's outcomes and failures, published by testresults.py (the test lenses show them).
        self.test_runs: TestPublisher | None = None
        # Commands whose arguments are not the `{language?, path?, …}` object (codeactions.py adds its own).
        self.own_arguments: dict[str, Callable[[types.ExecuteCommandParams], Awaitable[Any]]] = {}

    async def execute(self, params: types.ExecuteCommandParams) -> Any:
        own = self.own_arguments.get(params.command)
        if own is not None:
            return await own(params)
        command = self.handlers.get(params.command)
        if command is None:
            # A language server's command (a completion item's, say): run by the server that offers it.
            forwarded = await self.forward(params.command, params.arguments)
            if forwarded is not NOT_FORWARDED:
                return forwarded
            offered = sorted({*self.handlers, *self.own_arguments})
            raise invalid(f"unknown command {params.command!r}; lintel offers: {', '.join(offered)}")
        try:
            # An editor may send every command the same object (`{language, path, timeout}`): each takes all fields.
            args = command.arguments.parse(params.command, params.arguments, only_listed=False)
            report = await command.action(EditorCall(self, params), CommandRequest(params.command, args))
            answer = report.to_json()
            # The whole answer unless the call set a budget (`max_issues`, `severity`), as MCP calls do.
            budget = Budget(args.max_issues, args.severity or "hint")
            return budget_json(answer, budget) if isinstance(answer, dict) else answer
        except ActionError as exc:  # the engine's refusal, as the LSP error of its kind
            raise lsp_error(exc) from exc


class EditorCall:
    """lintel.engine.commandtable.Front for one `workspace/executeCommand`: the session's folders and trust,
    progress on the client's token, results published as diagnostics."""

    def __init__(self, commands: Commands, params: types.ExecuteCommandParams) -> None:
        self.commands = commands
        self.params = params

    @property
    def folders(self) -> Sequence[Folder]:
        return self.commands.server.session.folders

    @property
    def trusted(self) -> bool:
        return self.commands.server.session.trusted

    @property
    def coverage(self) -> CoverageStore:
        return self.commands.coverage_store

    @property
    def tests(self) -> TestIndex:
        return self.commands.server.session.tests

    @property
    def fixes_need_a_target(self) -> bool:
        return True

    def progress(self, title: str) -> AbstractAsyncContextManager[OnStart]:
        return self._progress(title)

    @asynccontextmanager
    async def _progress(self, title: str) -> AsyncIterator[OnStart]:
        async with Progress(self.commands.server, self.params.work_done_token, title) as progress:
            yield progress.started

    def publish(self, folder: Folder, result: RunResult, channel: str, scope: Path | Sequence[Path]) -> None:
        # The folders are the session's (self.folders): the engine hands one of them back.
        runs = self.commands.test_runs
        if channel == "test" and runs is not None:
            runs.publish(cast(session.Folder, folder), result, scope, self.params.command, self.params.arguments)
            return
        self.commands.diagnostics.publish_run(cast(session.Folder, folder), result, channel, scope)

    def publish_validation(self, folder: Folder, result: ValidateResult) -> None:
        self.commands.diagnostics.publish_validation(cast(session.Folder, folder), result)

    async def restart_servers(self, language: str | None) -> Any:
        return await self.commands.restart(language)

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None:
        servers = self.commands.servers
        return await servers.server_diagnostics(folder, file, text) if servers is not None else None

    def open_document(self, file: Path) -> OpenDocument | None:
        documents = self.commands.server.workspace.text_documents
        document = documents.get(file.as_uri())
        if document is None:
            document = next((d for uri, d in documents.items() if _names(uri, file)), None)
        if document is None or document.version is None:
            return None
        return OpenDocument(document.source, document.version)


def _names(uri: str, file: Path) -> bool:
    """Whether the editor's `uri` is `file` (resolved), however the editor spelled it (a symlink, escapes)."""
    path = uri_path(uri)
    try:
        return path is not None and path.resolve() == file
    except (OSError, ValueError):
        return False


class Progress:
    """Work-done progress on the client's token (if it gave one): the tool's name and elapsed time, from entering
    `async with` to leaving it, however it is left."""

    def __init__(self, server: LintelServer, token: types.ProgressToken | None, title: str) -> None:
        self.server = server
        self.token = token
        self.title = title
        self.started_at = time.monotonic()
        self._ticker: asyncio.Task[None] | None = None

    async def begin(self) -> None:
        if self.token is None:
            return
        # A token string the client reuses starts afresh: an earlier run's cancelled future would cancel this
        # run at once.
        forget_progress(self.server, self.token)
        self.server.work_done_progress.begin(
            self.token, types.WorkDoneProgressBegin(title=self.title, cancellable=True, message="starting")
        )
        self._ticker = asyncio.ensure_future(self._tick())
        # window/workDoneProgress/cancel from the client cancels this future: stop the run with it.
        task = asyncio.current_task()
        cancelled = progress_cancelled(self.server, self.token)
        if cancelled is not None and task is not None:
            cancelled.add_done_callback(lambda f: task.cancel() if f.cancelled() else None)

    async def __aenter__(self) -> Progress:
        await self.begin()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.end()

    def started(self, pid: int) -> None:
        if self.token is not None:
            self.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=f"running (pid {pid})")
            )

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            elapsed = time.monotonic() - self.started_at
            self.server.work_done_progress.report(
                self.token,  # type: ignore[arg-type]
                types.WorkDoneProgressReport(message=f"{elapsed:.0f}s elapsed"),
            )

    def end(self) -> None:
        if self.token is None:
            return
        if self._ticker is not None:
            self._ticker.cancel()
        elapsed = time.monotonic() - self.started_at
        self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=f"done in {elapsed:.1f}s"))
        # pygls keeps a future per token forever (with the callback that holds this run's task): memory kept on every
        # command.
        forget_progress(self.server, self.token)


def setup(
    server: LintelServer,
    diagnostics: Diagnostics,
    forward: ForwardCommand,
    restart: RestartServers,
    servers: Servers | None = None,
) -> Commands:
    """The commands; wiring.py routes workspace/executeCommand to `Commands.execute` (advertised.ROUTES lists
    OFFERED as its options)."""
    return Commands(server, diagnostics, forward, restart, servers)
