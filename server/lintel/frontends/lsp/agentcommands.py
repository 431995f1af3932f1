"""The agent's loop over LSP (issue 16): lintel.runTests {tests}, lintel.runFailingTests and lintel.runScript, thin
wrappers around lintel.engine.actions (which `lintel mcp` calls too): the project, trust, refusals, the run and the
record
are the engine's; progress and publishing are the editor's, added here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lintel.engine import actions
from lintel.engine.testruns import nothing_to_rerun
from lintel.frontends.lsp.session import Folder
from lintel.languages import Project
from lintel.languages.testselect import Selection

if TYPE_CHECKING:
    from pygls.exceptions import JsonRpcException

    from lintel.frontends.lsp.app import LintelServer
    from lintel.frontends.lsp.commands import CommandArgs, Commands, Progress

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

    @property
    def trusted(self) -> bool:
        return self.commands.server.session.trusted

    async def run_tests(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """runTests: with `tests`, or a `path` naming a test file or folder, only those tests (their files' test
        diagnostics replaced, the record too); otherwise the whole suite. `scope` in the result says which."""
        folder, project = self._project(args)
        _, where = self.commands.folder(args)
        scope = actions.test_scope(params.command, folder, project, args, where)
        if scope.selection is None:
            return await self.commands.run(params, args, "test", scope=scope.text)
        return await self._run_tests(params, args, folder, project, scope.selection, scope.text)

    async def run_failing_tests(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        """The failures of the project's last test run, rerun; the record becomes this run's."""
        folder, project = self._project(args)
        selection = actions.failing_tests_selection(params.command, folder, project)
        if selection is None:  # the last run passed: nothing runs, the record stays
            last = actions.last_test_run(folder, project)
            assert last is not None  # without a record the selection was refused
            return nothing_to_rerun(project, last).result_json()
        return await self._run_tests(params, args, folder, project, selection, None)

    async def run_script(self, params: types.ExecuteCommandParams, args: CommandArgs) -> Any:
        folder, project = self._project(args)
        script = actions.check_script(params.command, project, args)  # refused before any progress is shown
        title = f"lintel: {project.language} script {script}"
        async with self.progress(self.commands.server, params.work_done_token, title) as progress:
            result = await actions.run_package_script(
                params.command, folder, project, args, trusted=self.trusted, on_start=progress.started
            )
        return result.result_json()

    # -- shared ------------------------------------------------------------------------------------------

    def _project(self, args: CommandArgs) -> tuple[Folder, Project]:
        folder, project = self.commands.project(args)
        actions.require_trust(self.trusted)
        return folder, project

    async def _run_tests(
        self,
        params: types.ExecuteCommandParams,
        args: CommandArgs,
        folder: Folder,
        project: Project,
        selection: Selection,
        scope: str | None,
    ) -> Any:
        title = f"lintel: {project.language} test (subset)"
        async with self.progress(self.commands.server, params.work_done_token, title) as progress:
            result = await actions.run_test_selection(folder, project, selection, args, on_start=progress.started)
        result.scope = scope
        # Only the files the subset covers (and those it mentions) get their test diagnostics replaced.
        scopes: list[Path] = list(selection.files)
        self.commands.diagnostics.publish_run(folder, result, "test", scopes)
        return result.result_json()
