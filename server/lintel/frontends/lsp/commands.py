"""`workspace/executeCommand` (docs/design.md): lintel.runTests, typecheck, lint, format, lastTestFailures, detect,
validate; runTests {tests}, runFailingTests and runScript are `agentcommands`'.

Each takes zero arguments or one object `{language?, path?, timeout?}` and returns a RunResult; failing tests
are a result (`ok: false`), bad arguments and undetectable projects are ResponseErrors.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lintel.engine import actions
from lintel.engine.actions import ActionError, CommandArgs, parse_args
from lintel.engine.coverage import CoverageStore
from lintel.engine.detect import normalize_language
from lintel.engine.validators import run_validators
from lintel.engine.validators import select as select_validators
from lintel.frontends.lsp.advertised import (
    COMMANDS,
    COVERAGE,
    DETECT,
    FIX_ALL,
    FORMAT,
    LAST_TEST_FAILURES,
    LINT,
    RESTART_SERVERS,
    RUN_FAILING_TESTS,
    RUN_SCRIPT,
    RUN_TESTS,
    TESTS_COVERING,
    TYPECHECK,
    VALIDATE,
)
from lintel.frontends.lsp.agentcommands import AgentCommands
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.pyglscompat import forget_progress, progress_cancelled
from lintel.frontends.lsp.session import Folder
from lintel.frontends.lsp.shared import NOT_FORWARDED, ForwardCommand, RestartServers
from lintel.languages import CheckName, Project

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

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
    def __init__(
        self, server: LintelServer, diagnostics: Diagnostics, forward: ForwardCommand, restart: RestartServers
    ) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.forward = forward
        self.restart = restart
        agent = AgentCommands(self, invalid, failed, Progress)
        # The last coverage run of each project, for testsCovering (kept on disk too: lintel.engine.coverage.store).
        self.coverage_store = CoverageStore()
        self.handlers: dict[str, Callable[[types.ExecuteCommandParams, CommandArgs], Awaitable[Any]]] = {
            RUN_TESTS: agent.run_tests,
            TYPECHECK: lambda p, a: self.run(p, a, "typecheck"),
            LINT: lambda p, a: self.run(p, a, "lint"),
            FORMAT: lambda p, a: self.run(p, a, "format"),
            LAST_TEST_FAILURES: self.last_test_failures,
            DETECT: self.detect,
            VALIDATE: self.validate,
            RESTART_SERVERS: self.restart_servers,
            RUN_SCRIPT: agent.run_script,
            RUN_FAILING_TESTS: agent.run_failing_tests,
            COVERAGE: self.coverage,
            TESTS_COVERING: self.tests_covering,
            FIX_ALL: self.fix_all,
        }
        # Commands whose arguments are not the `{language?, path?, …}` object (codeactions.py adds its own).
        self.own_arguments: dict[str, Callable[[types.ExecuteCommandParams], Awaitable[Any]]] = {}

    async def execute(self, params: types.ExecuteCommandParams) -> Any:
        own = self.own_arguments.get(params.command)
        if own is not None:
            return await own(params)
        handler = self.handlers.get(params.command)
        if handler is None:
            # A language server's command (a completion item's, say): run by the server that offers it.
            forwarded = await self.forward(params.command, params.arguments)
            if forwarded is not NOT_FORWARDED:
                return forwarded
            offered = sorted({*self.handlers, *self.own_arguments})
            raise invalid(f"unknown command {params.command!r}; lintel offers: {', '.join(offered)}")
        try:
            args = parse_args(params.command, params.arguments)
            return await handler(params, args)
        except ActionError as exc:  # the engine's refusal, as the LSP error of its kind
            raise lsp_error(exc) from exc

    # -- target resolution (lintel.engine.actions; the same for the MCP tools) --------------------------------

    def folder(self, args: CommandArgs) -> tuple[Folder, Path]:
        """The workspace folder a command acts on and the path inside it it names (path confinement)."""
        return actions.target(self.server.session.folders, args)

    def project(self, args: CommandArgs) -> tuple[Folder, Project]:
        """The project a command acts on (actions.project: the polyglot and multi-project rules)."""
        return actions.project(self.server.session.folders, args)

    # -- commands ------------------------------------------------------------------------------------

    async def run(
        self, params: types.ExecuteCommandParams, args: CommandArgs, check: CheckName, *, scope: str | None = None
    ) -> Any:
        folder, project = self.project(args)
        actions.require_trust(self.server.session.trusted)
        actions.require_check(params.command, project, check)
        async with Progress(self.server, params.work_done_token, f"lintel: {project.language} {check}") as progress:
            result = await actions.run_project_check(
                params.command,
                folder,
                project,
                check,
                args,
                trusted=self.server.session.trusted,
                on_start=lambda pid: progress.started(pid),
            )
        result.scope = scope
        channel = "test" if check == "test" else check
        self.diagnostics.publish_run(folder, result, channel, project.root)
        return result.result_json()

    async def last_test_failures(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        folder, project = self.project(args)
        return actions.last_test_failures(folder, project)

    async def detect(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        folder, target = self.folder(args)
        return actions.detect(folder, target)

    async def validate(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """Run configured validators (all, or `ids`); publish their issues under the validator's id."""
        folder, _ = self.folder(args)
        actions.require_trust(self.server.session.trusted)
        try:
            chosen = select_validators(folder.config.validators, args.ids)
        except ValueError as exc:
            raise invalid(f"{VALIDATE}: {exc}") from exc
        async with Progress(self.server, params.work_done_token, "lintel: validators"):
            results = await run_validators(chosen, folder.root, concurrency=folder.config.validator_concurrency)
        for result in results:
            self.diagnostics.publish_validation(folder, result)
        return [r.to_json() for r in results]

    async def coverage(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """The project's tests run with coverage: a RunResult with a `coverage` summary; the index is kept for
        lintel.testsCovering."""
        folder, project = self.project(args)
        actions.require_trust(self.server.session.trusted)
        async with Progress(self.server, params.work_done_token, f"lintel: {project.language} coverage") as progress:
            result = await actions.run_coverage(
                params.command,
                folder,
                project,
                args,
                self.coverage_store,
                trusted=self.server.session.trusted,
                on_start=progress.started,
            )
        return result.result_json()

    async def tests_covering(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """`{file, line}` -> the tests that run that line, from the project's last coverage run (run first when
        there is none, or the file changed since)."""
        folder, project, target = actions.covering_target(params.command, self.server.session.folders, args)
        actions.require_trust(self.server.session.trusted)
        async with Progress(
            self.server, params.work_done_token, f"lintel: tests covering {target.name}:{args.line}"
        ) as progress:
            return await actions.covering_tests(
                params.command,
                folder,
                project,
                target,
                args,
                self.coverage_store,
                trusted=self.server.session.trusted,
                on_start=progress.started,
            )

    async def fix_all(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """`{path, unsafe?}` (and apply_fixes' other arguments): the linters' fixes written (lintel.engine.fixrun), then
        the lint findings left published; `{applied, files, remaining, dryRun}`."""
        named = args.file if args.file is not None else args.path
        if named is None:
            raise invalid(f"{FIX_ALL}: path: Field required")
        async with Progress(self.server, params.work_done_token, "lintel: fix all"):
            outcome = await actions.fix_findings(
                params.command, self.server.session.folders, args, trusted=self.server.session.trusted
            )
        if not outcome.dry_run and outcome.files:
            folder, project = self.project(CommandArgs(path=named, language=args.language))
            for run in outcome.runs:
                self.diagnostics.publish_run(folder, run, "lint", project.root)
        return outcome.to_json()

    async def restart_servers(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """The language servers navigation goes to (of `language`, or all), restarted — a given-up one too."""
        if not self.server.session.trusted:
            raise failed("this workspace is not trusted: lintel runs no language server here")
        return await self.restart(normalize_language(args.language))


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
        # pygls keeps a future per token forever (with the callback that holds this run's task): ~12 KB a command.
        forget_progress(self.server, self.token)


def setup(server: LintelServer, diagnostics: Diagnostics, forward: ForwardCommand, restart: RestartServers) -> Commands:
    """The commands; wiring.py routes workspace/executeCommand to `Commands.execute` (advertised.ROUTES lists
    OFFERED as its options)."""
    return Commands(server, diagnostics, forward, restart)
