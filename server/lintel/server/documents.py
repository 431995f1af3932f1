"""Lint and format-check files as they are opened, changed and saved; format documents. Runs are scheduled per
(uri, check), so a newer one supersedes the older; their diagnostics go out through diagnostics.py."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lsprotocol import types

from lintel.checks import RunResult, plan_spec, run_file_check, run_planned, timeout_for
from lintel.detect import nearest_project
from lintel.languages import Project
from lintel.server.diagnostics import Diagnostics
from lintel.server.session import Folder
from lintel.server.shared import uri_path
from lintel.validators import run_validators
from lintel.workers.pool import WorkerPool
from lintel.workers.warm import warm_file_lint

if TYPE_CHECKING:
    from lintel.server.app import LintelServer

log = logging.getLogger(__name__)

FileCheck = Literal["lint", "format"]

# Configuration re-read from every source (lifecycle.py's reload).
Reload = Callable[[], Awaitable[None]]


class Documents:
    """The open documents' checks: scheduled on the editor's document messages, published through `diagnostics`."""

    def __init__(self, server: LintelServer, diagnostics: Diagnostics, reload: Reload, workers: WorkerPool) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.reload = reload
        self.workers = workers

    def locate(self, uri: str) -> tuple[Folder, Project, Path] | None:
        """The folder and nearest project owning a file, or None (outside the workspace, no marker)."""
        path = uri_path(uri)
        folder = self.folder(uri)
        if path is None or folder is None:
            return None
        project = nearest_project(path, folder.root, languages=folder.languages)
        if project is None:
            return None
        return folder, project, path

    def folder(self, uri: str) -> Folder | None:
        path = uri_path(uri)
        return self.server.session.folder_for(path) if path else None

    def tell_not_checked(self, result: RunResult) -> None:
        """A tool that could not run is not silence: say so once per cause, keep the old diagnostics."""
        reason = result.reason or f"{result.tool} did not run"
        cause = f"not_checked:{result.language}:{result.check}:{reason.split(':', 2)[:2]}"
        self.server.notifier.once(cause, reason)

    async def check_file(self, uri: str, check: FileCheck, use_buffer: bool) -> None:
        located = self.locate(uri)
        if located is None or not self.server.session.trusted:
            return
        folder, project, path = located
        document = self.server.workspace.text_documents.get(uri)
        text = document.source if use_buffer and document is not None else None
        if text is None and not path.is_file():
            return  # an unsaved buffer: nothing on disk to check until it is saved
        result: RunResult | None = None
        if check == "lint" and folder.config.editor.warm_workers:
            # None when the tool has no worker, or its worker could not answer: then exactly the CLI run below.
            result = await warm_file_lint(
                self.workers, project, path, workspace=folder.root, config=folder.config, text=text
            )
        if result is None:
            result = await run_file_check(
                project, check, path, workspace=folder.root, config=folder.config, text=text, require_stdin=use_buffer
            )
        if result is None:
            return
        if result.status == "not_checked":
            self.tell_not_checked(result)
            return
        # Published after every completed run, changed or not: a client waiting on its save gets an answer.
        self.diagnostics.put(uri, check, self.diagnostics.of_issues(uri, result.issues), publish_unchanged=True)

    def schedule(self, uri: str, check: FileCheck, *, use_buffer: bool, delay_ms: int, busy_delay_ms: int = 0) -> None:
        self.server.session.scheduler.submit(
            (uri, check),
            lambda: self.check_file(uri, check, use_buffer),
            delay=delay_ms / 1000,
            busy_delay=busy_delay_ms / 1000,
        )

    async def run_on_save_validators(self, folder: Folder) -> None:
        chosen = [v for v in folder.config.validators if v.run_on_save]
        if not chosen or not self.server.session.trusted:
            return
        for result in await run_validators(chosen, folder.root, concurrency=folder.config.validator_concurrency):
            self.diagnostics.publish_validation(folder, result)

    # -- the editor's messages -------------------------------------------------------------------------

    async def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        folder = self.folder(uri)
        if folder is not None and folder.config.editor.lint_on_open:
            self.schedule(uri, "lint", use_buffer=False, delay_ms=0)

    async def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        folder = self.folder(uri)
        if folder is None or not folder.config.editor.lint_on_change:
            return
        self.schedule(uri, "lint", use_buffer=True, delay_ms=folder.config.editor.change_debounce_ms)

    async def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is not None and path.name in ("lintel.toml", "pyproject.toml"):
            await self.reload()
        folder = self.folder(uri)
        if folder is None:
            return
        editor = folder.config.editor
        if editor.lint_on_save:
            self.schedule(uri, "lint", use_buffer=False, delay_ms=0, busy_delay_ms=editor.save_debounce_ms)
        if editor.format_check:
            self.schedule(uri, "format", use_buffer=False, delay_ms=0, busy_delay_ms=editor.save_debounce_ms)
        if any(v.run_on_save for v in folder.config.validators):
            # One run per folder at a time: a newer save supersedes (and kills) the running validators.
            self.server.session.scheduler.submit(
                ("validators", folder.uri),
                lambda: self.run_on_save_validators(folder),
                busy_delay=editor.save_debounce_ms / 1000,
            )

    async def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        # Runs on the buffer are moot now; diagnostics stay (the file on disk still has them).
        self.server.session.scheduler.cancel((params.text_document.uri, "lint"))

    async def format_document(self, uri: str) -> list[types.TextEdit] | None:
        """Run the formatter on the buffer (stdin -> stdout); one whole-document edit, None when unchanged."""
        server = self.server
        located = self.locate(uri)
        document = server.workspace.text_documents.get(uri)
        if located is None or document is None or not server.session.trusted:
            return None
        folder, project, path = located
        spec = project.spec.formatter_for(project, path)
        if spec is None:
            return None
        result = await run_planned(
            plan_spec(project, spec, folder.config, folder.root),
            workspace=folder.root,
            timeout=timeout_for("format", folder.config, None),
            stdin=document.source.encode("utf-8"),
        )
        if result.status == "not_checked":
            self.tell_not_checked(result)
            return None
        if result.exit_code != 0 or result.truncated:
            server.notifier.log(f"format: {result.tool} failed (exit {result.exit_code}); the document is unchanged")
            return None
        formatted = result.stdout
        if formatted == document.source:
            return None
        end = types.Position(line=len(document.lines), character=0)
        start = types.Position(line=0, character=0)
        return [types.TextEdit(range=types.Range(start=start, end=end), new_text=formatted)]


def setup(server: LintelServer, diagnostics: Diagnostics, reload: Reload, workers: WorkerPool) -> Documents:
    documents = Documents(server, diagnostics, reload, workers)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(params: types.DidOpenTextDocumentParams) -> None:
        await documents.did_open(params)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(params: types.DidChangeTextDocumentParams) -> None:
        await documents.did_change(params)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        await documents.did_save(params)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(params: types.DidCloseTextDocumentParams) -> None:
        await documents.did_close(params)

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    async def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        return await documents.format_document(params.text_document.uri)

    return documents
