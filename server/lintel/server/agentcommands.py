"""The agent's loop over LSP (issue 16): lintel.runTests {tests}, lintel.runFailingTests and lintel.runScript, thin
wrappers around the engine's `lintel.testruns` and `lintel.scripts` (which `lintel mcp` calls too): resolve the
project as every command does, refuse in an untrusted workspace, show progress, publish, keep the record."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from lintel.checks import RunResult
from lintel.errors import BadArgument, NothingToRun, NotSupported
from lintel.languages import Project
from lintel.scripts import run_script, script_command
from lintel.server.session import Folder
from lintel.testruns import failing_selection, nothing_to_rerun, run_selection, select_tests
from lintel.testselect import Selection

if TYPE_CHECKING:
    from pygls.exceptions import JsonRpcException

    from lintel.server.app import LintelServer
    from lintel.server.commands import CommandArgs, Commands, Progress

T = TypeVar("T")
ErrorFactory = Callable[[str], "JsonRpcException"]
ProgressFactory = Callable[["LintelServer", "types.ProgressToken | None", str], "Progress"]


class AgentCommands:
    """Made by `Commands` with its error and progress helpers (this module cannot import it: no import circle)."""

    def __init__(
        self, commands: Commands, invalid: ErrorFactory, failed: ErrorFactory, progress: ProgressFactory
    ) -> None:
        self.commands = commands
        self.invalid = invalid
        self.failed = failed
        self.progress = progress

    async def run_tests(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """runTests with `tests`: only those tests; their files' test diagnostics replaced, the record too."""
        folder, project = self._project(args)
        tests = [t if isinstance(t, str) else t.model_dump() for t in args.tests or []]
        selection = self._guard(
            lambda: select_tests(project, tests, workspace=folder.root, config=folder.config, command=params.command)
        )
        return await self._run_tests(params, args, folder, project, selection)

    async def run_failing_tests(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """The failures of the project's last test run, rerun; the record becomes this run's."""
        folder, project = self._project(args)
        last = folder.last_tests.get((project.root, project.language))
        selection = self._guard(
            lambda: failing_selection(
                project, last, workspace=folder.root, config=folder.config, command=params.command
            )
        )
        if selection is None:
            assert last is not None
            return nothing_to_rerun(project, last).result_json()
        return await self._run_tests(params, args, folder, project, selection)

    async def run_script(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        folder, project = self._project(args)
        if args.script is None:
            raise self.invalid(f"{params.command}: `script` is required")
        script = args.script
        self._guard(lambda: script_command(project, script, args.args or (), command=params.command))
        progress = self.progress(
            self.commands.server, params.work_done_token, f"lintel: {project.language} script {script}"
        )
        await progress.begin()
        try:
            result = await run_script(
                project,
                script,
                args.args or (),
                workspace=folder.root,
                config=folder.config,
                timeout=args.timeout,
                on_start=progress.started,
                command=params.command,
            )
        finally:
            progress.end()
        self._must_have_started(result)
        return result.result_json()

    # -- shared ------------------------------------------------------------------------------------------

    def _project(self, args: CommandArgs) -> tuple[Folder, Project]:
        folder, project = self.commands.project(args)
        if not self.commands.server.session.trusted:
            raise self.failed("this workspace is not trusted: lintel runs no tools here")
        return folder, project

    def _guard(self, work: Callable[[], T]) -> T:
        """The engine's refusals as ResponseErrors: a bad argument is -32602, the rest -32803."""
        try:
            return work()
        except BadArgument as exc:
            raise self.invalid(str(exc)) from exc
        except (NotSupported, NothingToRun) as exc:
            raise self.failed(str(exc)) from exc

    async def _run_tests(
        self,
        params: types.ExecuteCommandParams,
        args: CommandArgs,
        folder: Folder,
        project: Project,
        selection: Selection,
    ) -> Any:
        title = f"lintel: {project.language} test (subset)"
        progress = self.progress(self.commands.server, params.work_done_token, title)
        await progress.begin()
        try:
            result = await run_selection(
                project,
                selection,
                workspace=folder.root,
                config=folder.config,
                timeout=args.timeout,
                on_start=progress.started,
            )
        finally:
            progress.end()
        self._must_have_started(result)
        # Only the files the subset covers (and those it mentions) get their test diagnostics replaced.
        scopes: list[Path] = list(selection.files)
        self.commands.diagnostics.publish_run(folder, result, "test", scopes)
        folder.last_tests[(project.root, project.language)] = result
        return result.result_json()

    def _must_have_started(self, result: RunResult) -> None:
        if result.status == "not_checked" and result.exit_code is None and not result.timed_out:
            raise self.failed(result.reason or f"{result.check}: could not run")
