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
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcException

from lintel.checks import detect_document, run_check
from lintel.coverage import CoverageFailed, CoverageStore, CoverageUnsupported, Request, coverage, tests_covering
from lintel.detect import DetectionError, choose_project, is_inside, normalize_language
from lintel.discover import Discovery, describe, discover, nearest_above
from lintel.languages import CheckName, Project, Registry
from lintel.server.advertised import (
    COMMANDS,
    COVERAGE,
    DETECT,
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
from lintel.server.agentcommands import AgentCommands
from lintel.server.diagnostics import Diagnostics
from lintel.server.session import Folder
from lintel.server.shared import NOT_FORWARDED, ForwardCommand, RestartServers
from lintel.validators import run_validators
from lintel.validators import select as select_validators

if TYPE_CHECKING:
    from lintel.server.app import LintelServer

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803  # LSP: the request was valid but could not be carried out

# lintel's own commands (named in advertised.py, so `initialize` lists them before this module is loaded).
OFFERED = COMMANDS


class TestIdentity(BaseModel):
    """A test named by a TestFailure object (its other fields ignored), as lastTestFailures returns them."""

    model_config = ConfigDict(extra="ignore", strict=True)

    name: str
    file: str | None = None
    line: int | None = None


class CommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    language: str | None = None
    path: str | None = None
    timeout: float | None = Field(None, gt=0)
    ids: list[str] | None = None  # lintel.validate only
    tests: list[str | TestIdentity] | None = None  # lintel.runTests: a subset (docs/design.md)
    script: str | None = None  # lintel.runScript
    args: list[str] | None = None  # lintel.runScript: the script's arguments
    file: str | None = None  # lintel.testsCovering only, with line (1-based)
    line: int | None = Field(None, ge=1)


def invalid(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=INVALID_PARAMS)


def failed(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=REQUEST_FAILED)


def parse_args(command: str, arguments: Any) -> CommandArgs:
    values = list(arguments or [])
    if not values:
        return CommandArgs()
    if len(values) > 1 or not isinstance(values[0], dict):
        raise invalid(f"{command}: expected no argument or one object {{language?, path?, timeout?}}")
    try:
        return CommandArgs.model_validate(values[0])
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'argument'}: {e['msg']}" for e in exc.errors())
        raise invalid(f"{command}: {problems}") from exc


class Commands:
    def __init__(
        self, server: LintelServer, diagnostics: Diagnostics, forward: ForwardCommand, restart: RestartServers
    ) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.forward = forward
        self.restart = restart
        agent = AgentCommands(self, invalid, failed, Progress)
        # The last coverage run of each project, for testsCovering (kept on disk too: lintel.coverage.store).
        self.coverage_store = CoverageStore()
        self.handlers: dict[str, Callable[[types.ExecuteCommandParams, CommandArgs], Awaitable[Any]]] = {
            RUN_TESTS: lambda p, a: self.run(p, a, "test") if a.tests is None else agent.run_tests(p, a),
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
        }

    async def execute(self, params: types.ExecuteCommandParams) -> Any:
        handler = self.handlers.get(params.command)
        if handler is None:
            # A language server's command (a completion item's, say): run by the server that offers it.
            forwarded = await self.forward(params.command, params.arguments)
            if forwarded is not NOT_FORWARDED:
                return forwarded
            raise invalid(f"unknown command {params.command!r}; lintel offers: {', '.join(sorted(self.handlers))}")
        args = parse_args(params.command, params.arguments)
        return await handler(params, args)

    # -- target resolution -------------------------------------------------------------------------

    def folder(self, args: CommandArgs) -> tuple[Folder, Path]:
        """The workspace folder a command acts on and the path inside it it names (path confinement)."""
        folders = self.server.session.folders
        if not folders:
            raise failed("no workspace folder is open")
        if args.path is None:
            return folders[0], folders[0].root
        shown = args.path if len(args.path) <= 200 else f"{args.path[:200]}…"
        try:
            raw = Path(args.path).expanduser()
            candidate = raw if raw.is_absolute() else folders[0].root / raw
            owner = self.server.session.folder_for(candidate)
            if owner is None or not is_inside(candidate, owner.root):
                raise invalid(f"path {shown!r} is outside the workspace; lintel only runs inside it")
            if not candidate.exists():
                raise invalid(f"path {shown!r} does not exist")
            return owner, candidate.resolve()
        except (OSError, ValueError) as exc:
            # A name too long for the file system, a NUL byte: the argument is wrong, not the server.
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise invalid(f"path {shown!r} cannot be used: {reason}") from exc

    def project(self, args: CommandArgs) -> tuple[Folder, Project]:
        """The project a command acts on: the nearest project root at or above `path` (a file's own language
        first); a folder holding several projects below it, or the workspace without `path`, must hold one."""
        folder, target = self.folder(args)
        languages = folder.languages
        try:
            if args.path is not None:
                near = nearest_above(target, languages, stop=folder.root.resolve())
                if near:
                    return folder, choose_project(near, args.language, languages)
            where = target if target.is_dir() else target.parent
            discovery = discover(where, languages, exclude=folder.config.projects.exclude)
            place = "workspace" if where == folder.root else where.relative_to(folder.root.resolve()).as_posix()
            return folder, one_of(discovery, args.language, languages, place)
        except DetectionError as exc:
            raise failed(str(exc)) from exc

    # -- commands ------------------------------------------------------------------------------------

    async def run(self, params: types.ExecuteCommandParams, args: CommandArgs, check: CheckName) -> Any:
        folder, project = self.project(args)
        if not self.server.session.trusted:
            raise failed("this workspace is not trusted: lintel runs no tools here")
        if check not in project.spec.checks:
            # A language the user declared without a command for this check.
            raise failed(
                f"{params.command} is not supported for {project.language} projects yet "
                f"(set languages.{project.language}.{check} in lintel.toml)"
            )
        progress = Progress(self.server, params.work_done_token, f"lintel: {project.language} {check}")
        await progress.begin()
        try:
            result = await run_check(
                project,
                check,
                workspace=folder.root,
                config=folder.config,
                timeout=args.timeout,
                on_start=lambda pid: progress.started(pid),
            )
        finally:
            progress.end()
        if result.status == "not_checked" and result.exit_code is None and not result.timed_out:
            # The tool is missing or could not start: an error the user must act on (docs/design.md).
            raise failed(result.reason or f"{check}: could not run")
        channel = "test" if check == "test" else check
        self.diagnostics.publish_run(folder, result, channel, project.root)
        if check == "test":
            folder.last_tests[(project.root, project.language)] = result
        return result.result_json()

    async def last_test_failures(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        folder, project = self.project(args)
        last = folder.last_tests.get((project.root, project.language))
        return last.result_json() if last is not None else None

    async def detect(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        folder, target = self.folder(args)
        return detect_document(target if target.is_dir() else target.parent, folder.config)

    async def validate(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """Run configured validators (all, or `ids`); publish their issues under the validator's id."""
        folder, _ = self.folder(args)
        if not self.server.session.trusted:
            raise failed("this workspace is not trusted: lintel runs no tools here")
        try:
            chosen = select_validators(folder.config.validators, args.ids)
        except ValueError as exc:
            raise invalid(f"{VALIDATE}: {exc}") from exc
        progress = Progress(self.server, params.work_done_token, "lintel: validators")
        await progress.begin()
        try:
            results = await run_validators(chosen, folder.root, concurrency=folder.config.validator_concurrency)
        finally:
            progress.end()
        for result in results:
            self.diagnostics.publish_validation(folder, result)
        return [r.to_json() for r in results]

    async def coverage(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """The project's tests run with coverage: a RunResult with a `coverage` summary; the index is kept for
        lintel.testsCovering."""
        folder, project = self.project(args)
        if not self.server.session.trusted:
            raise failed("this workspace is not trusted: lintel runs no tools here")
        progress = Progress(self.server, params.work_done_token, f"lintel: {project.language} coverage")
        await progress.begin()
        try:
            request = Request(project, folder.root, folder.config, args.timeout, progress.started)
            measurement = await coverage(request, self.coverage_store)
        except CoverageUnsupported as exc:
            raise failed(exc.message(params.command)) from exc
        finally:
            progress.end()
        result = measurement.result
        if result.status == "not_checked" and result.exit_code is None and not result.timed_out:
            raise failed(result.reason or "coverage: could not run")
        return result.result_json()

    async def tests_covering(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """`{file, line}` -> the tests that run that line, from the project's last coverage run (run first when
        there is none, or the file changed since)."""
        if args.file is None or args.line is None:
            raise invalid(f"{params.command}: expected {{file, line}} (line 1-based)")
        folder, target = self.folder(CommandArgs(path=args.file))
        if not target.is_file():
            raise invalid(f"{params.command}: {args.file!r} is not a file")
        _, project = self.project(CommandArgs(path=str(target), language=args.language))
        if not self.server.session.trusted:
            raise failed("this workspace is not trusted: lintel runs no tools here")
        progress = Progress(self.server, params.work_done_token, f"lintel: tests covering {target.name}:{args.line}")
        await progress.begin()
        try:
            request = Request(project, folder.root, folder.config, args.timeout, progress.started)
            return await tests_covering(request, target, args.line, self.coverage_store)
        except CoverageUnsupported as exc:
            raise failed(exc.message(params.command)) from exc
        except CoverageFailed as exc:
            raise failed(f"{params.command}: {exc}") from exc
        finally:
            progress.end()

    async def restart_servers(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """The language servers navigation goes to (of `language`, or all), restarted — a given-up one too."""
        if not self.server.session.trusted:
            raise failed("this workspace is not trusted: lintel runs no language server here")
        return await self.restart(normalize_language(args.language))


def one_of(discovery: Discovery, language: str | None, languages: Registry, place: str) -> Project:
    """The one project (a workspace root stands for its members) under a folder, or the contract's error."""
    units = discovery.units()
    at_top = [f.project for f in units if f.root == discovery.root]
    if len(at_top) == len(units):
        # Only the folder's own markers: the polyglot rule (pass `language`) as ever.
        return choose_project(at_top, language, languages)
    wanted = normalize_language(language)
    if wanted is not None:
        detected = ", ".join(dict.fromkeys(f.language for f in units))
        units = [f for f in units if f.language == wanted]
        if not units:
            raise DetectionError(f'language "{wanted}" not detected in {place}; detected: {detected}')
    if len(units) == 1:
        return units[0].project
    raise DetectionError(
        f"{len(units)} projects found in {place} ({describe(units, discovery)}) — pass `path` to pick one"
    )


class Progress:
    """Work-done progress on the client's token (if it gave one): the tool's name and elapsed time."""

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
        self.server.work_done_progress.tokens.pop(self.token, None)
        self.server.work_done_progress.begin(
            self.token, types.WorkDoneProgressBegin(title=self.title, cancellable=True, message="starting")
        )
        self._ticker = asyncio.ensure_future(self._tick())
        # window/workDoneProgress/cancel from the client cancels this future: stop the run with it.
        task = asyncio.current_task()
        cancelled = self.server.work_done_progress.tokens.get(self.token)
        if cancelled is not None and task is not None:
            cancelled.add_done_callback(lambda f: task.cancel() if f.cancelled() else None)

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
        self.server.work_done_progress.tokens.pop(self.token, None)


def setup(server: LintelServer, diagnostics: Diagnostics, forward: ForwardCommand, restart: RestartServers) -> Commands:
    commands = Commands(server, diagnostics, forward, restart)
    server.commands = commands
    for name in OFFERED:
        # Registered with pygls only so executeCommandProvider lists them; LintelProtocol dispatches.
        server.command(name)(_listed_only)
    return commands


async def _listed_only(*args: Any) -> None:  # pragma: no cover - never called, see LintelProtocol
    raise RuntimeError("dispatched by LintelProtocol")
