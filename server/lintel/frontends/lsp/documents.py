"""Lint and format-check files as they are opened, changed and saved; format documents. Runs are scheduled per
(uri, check), so a newer one supersedes the older; their diagnostics go out through diagnostics.py.

Linting ahead: with warm workers, a changed buffer goes to its tool's worker as the change arrives (one run per
document at a time, the newest text next), and nothing is published; the save whose file on disk is that text
takes the answer (finalized from the saved file, exactly as its own run), so that a save does not wait for a lint
that could start before it. A different text, configuration, or worker means the save lints itself."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from lsprotocol import types

from lintel.core.issues import Issue
from lintel.engine.checks import RunResult, plan_spec, run_file_check, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.engine.detect import nearest_project
from lintel.engine.validators import run_validators
from lintel.engine.workers.base import LintWorker
from lintel.engine.workers.pool import WorkerPool
from lintel.engine.workers.warm import WarmTarget, read_as_tool, warm_issues, warm_issues_now, warm_result, warm_target
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.session import Folder
from lintel.frontends.lsp.shared import uri_path
from lintel.languages import Project

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)

FileCheck = Literal["lint", "format"]

# Configuration re-read from every source (lifecycle.py's reload).
Reload = Callable[[], Awaitable[None]]


@dataclass
class _Ahead:
    """A buffer's lint started on its change: the text, what it was linted with, and the answer (the findings
    and the worker that gave them; None when the worker could not answer)."""

    text: str
    config: LintelConfig
    target: WarmTarget
    started: float
    answer: asyncio.Future[tuple[list[Issue], LintWorker] | None]


class Documents:
    """The open documents' checks: scheduled on the editor's document messages, published through `diagnostics`."""

    def __init__(self, server: LintelServer, diagnostics: Diagnostics, reload: Reload, workers: WorkerPool) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.reload = reload
        self.workers = workers
        self.ahead: dict[str, _Ahead] = {}  # by uri: the last lint ahead of each open document
        self._ahead_busy: set[str] = set()  # a lint ahead under way
        self._ahead_again: set[str] = set()  # changed since: lint the newest text when it ends
        # by uri: (the folder's generation and configuration then, the folder, the lint target)
        self._located: dict[str, tuple[int, LintelConfig, Folder, WarmTarget | None]] = {}
        self._too_big_told: set[str] = set()  # uris said to be above editor.maxLintFileKb

    def locate(self, uri: str) -> tuple[Folder, Project, Path] | None:
        """The folder and nearest project owning a file, or None (outside the workspace, no marker)."""
        path = uri_path(uri)
        folder = self.folder(uri)
        if path is None or folder is None or not self.readable(path):
            return None
        project = nearest_project(path, folder.root, languages=folder.languages)
        if project is None:
            return None
        return folder, project, path

    def readable(self, path: Path) -> bool:
        """Whether lintel may look at `path` (a file not saved yet may); one it may not (in a folder of another
        user's) is not checked, and the user is told why once."""
        try:
            path.stat()
        except FileNotFoundError:
            return True
        except OSError as exc:
            self.server.notifier.once(
                f"unreadable:{path}", f"cannot read {path}: {exc.strerror or exc}; lintel does not check it"
            )
            return False
        return True

    def folder(self, uri: str) -> Folder | None:
        path = uri_path(uri)
        return self.server.session.folder_for(path) if path else None

    def too_big(self, uri: str, folder: Folder, path: Path, text: str | None) -> bool:
        """Whether the file (`text`, else the file on disk) is above editor.maxLintFileKb: then it is not linted or
        format-checked on open, change or save, and that is said once per file: a huge generated file costs the tool
        seconds and lintel several copies of its text (the worker's request, the lines of its diagnostics)."""
        limit = folder.config.editor.max_lint_file_kb * 1024
        if not limit:
            return False
        if text is not None:
            # UTF-8 takes 1 to 4 bytes a character: encode only when the count of characters cannot tell.
            size = len(text) if len(text) * 4 <= limit or len(text) > limit else len(text.encode("utf-8", "replace"))
        else:
            try:
                size = path.stat().st_size
            except OSError:
                return False
        if size <= limit:
            self._too_big_told.discard(uri)
            return False
        if uri not in self._too_big_told:
            self._too_big_told.add(uri)
            self.server.notifier.once(
                f"too-big-lint:{uri}",
                f"lint: {path.name} is {size / 2**20:.1f} MiB, more than editor.maxLintFileKb ({limit // 1024} KiB): "
                "it is not linted or format-checked on open, change or save (lintel.lint still checks it)",
            )
        return True

    def tell_not_checked(self, result: RunResult) -> None:
        """A tool that could not run is not silence: say so once per cause, keep the old diagnostics."""
        reason = result.reason or f"{result.tool} did not run"
        cause = f"not_checked:{result.language}:{result.check}:{reason.split(':', 2)[:2]}"
        self.server.notifier.once(cause, reason)

    async def check_file(self, uri: str, check: FileCheck, use_buffer: bool) -> None:
        if not self.server.session.trusted:
            return
        if check == "lint" and not use_buffer:
            saved = await self.saved_as_linted_ahead(uri)
            if saved is not None:
                self.diagnostics.put(uri, check, self.diagnostics.of_issues(uri, saved.issues), publish_unchanged=True)
                return
        located = self.locate(uri)
        if located is None:
            return
        folder, project, path = located
        document = self.server.workspace.text_documents.get(uri)
        text = document.source if use_buffer and document is not None else None
        if text is None and not path.is_file():
            return  # an unsaved buffer: nothing on disk to check until it is saved
        if self.too_big(uri, folder, path, text):
            # Answered (a client may wait on its save), and no findings of an older, smaller text are left.
            self.diagnostics.put(uri, check, [], publish_unchanged=True)
            return
        result: RunResult | None = None
        if check == "lint" and folder.config.editor.warm_workers:
            # None when the tool has no worker, or its worker could not answer: then exactly the CLI run below.
            result = await self.warm_lint(uri, folder, project, path, text)
        if result is None:
            result = await run_file_check(
                project, check, path, workspace=folder.root, config=folder.config, text=text, require_stdin=use_buffer
            )
        if result is None:
            return
        if check == "format" and not folder.config.editor.format_check:
            return  # turned off while it ran (the reload has cleared what it found before)
        if result.status == "not_checked":
            self.tell_not_checked(result)
            return
        # Published after every completed run, changed or not: a client waiting on its save gets an answer.
        self.diagnostics.put(uri, check, self.diagnostics.of_issues(uri, result.issues), publish_unchanged=True)

    async def warm_lint(
        self, uri: str, folder: Folder, project: Project, path: Path, buffer: str | None
    ) -> RunResult | None:
        """The lint from the warm worker of `path` with content `buffer` (None: the file on disk), taken from the
        lint ahead when that linted this very text with the same configuration and worker; None when the CLI
        must run (no worker for the tool, or it could not answer)."""
        target = warm_target(
            self.workers, project, path, workspace=folder.root, config=folder.config, from_buffer=buffer is not None
        )
        if target is None:
            return None
        disk = read_as_tool(path) if buffer is None else None
        text = buffer if buffer is not None else disk
        if text is None:
            return None
        ahead = self.ahead.get(uri)
        if ahead is not None and ahead.text == text and ahead.config is folder.config and ahead.target.same_run(target):
            taken = await self._ahead_result(ahead, target, disk)
            if taken is not None:
                return taken
        started = time.monotonic()
        issues = await warm_issues(self.workers, target, text)
        if issues is None:
            return None
        return warm_result(target, issues, started=started, text=disk)

    async def saved_as_linted_ahead(self, uri: str) -> RunResult | None:
        """The save's lint, when the file on disk is the text its buffer was linted ahead with, by the worker
        and configuration the buffer's located target names (the lint ahead's, located since the files it was
        found from last changed: a save after its change does not locate again), the worker still current; None
        otherwise, and the save lints as any save does."""
        ahead = self.ahead.get(uri)
        fresh = self._fresh_location(uri)
        path = uri_path(uri)
        if ahead is None or fresh is None or path is None:
            return None
        folder, target = fresh
        if target is None or target is not ahead.target or ahead.config is not folder.config:
            return None
        disk = read_as_tool(path)
        return await self._ahead_result(ahead, target, disk) if disk == ahead.text else None

    async def _ahead_result(self, ahead: _Ahead, target: WarmTarget, disk: str | None) -> RunResult | None:
        """The lint ahead's answer as the save's result (`disk`: the file's text, just read, when it is the file
        that is linted), if its worker is still current; None when it cannot be taken."""
        await asyncio.wait({ahead.answer})  # never cancelled from here: the run ahead is not this task's
        answer = None if ahead.answer.cancelled() else ahead.answer.result()
        if answer is None or not self.workers.still_current(target.key, answer[1]):
            return None
        return warm_result(target, answer[0], started=ahead.started, text=disk)

    def lint_ahead(self, uri: str) -> None:
        """Send the buffer's text to its worker for the save to come; called as the change arrives (before any
        later message is read: the save that follows finds the request under way). One run per document at a
        time: a change during a run is linted when it ends, the newest text only."""
        if uri in self._ahead_busy:
            self._ahead_again.add(uri)
            return
        document = self.server.workspace.text_documents.get(uri)
        found = self._ahead_target(uri)
        if document is None or found is None or not self.server.session.trusted:
            return
        folder, target = found
        editor = folder.config.editor
        if not (editor.lint_on_save and editor.warm_workers):
            return
        text = document.source
        path = uri_path(uri)
        if target is None or path is None or self.too_big(uri, folder, path, text):
            self.ahead.pop(uri, None)
            return
        last = self.ahead.get(uri)
        if last is not None and last.text == text and last.config is folder.config:
            return  # linted, or being linted
        sent = warm_issues_now(self.workers, target, text)
        answer = sent if sent is not None else asyncio.ensure_future(self._ahead_answer(target, text))
        self.ahead[uri] = _Ahead(text, folder.config, target, time.monotonic(), answer)
        self._ahead_busy.add(uri)
        answer.add_done_callback(lambda done: self._ahead_ended(uri, done))

    def _fresh_location(self, uri: str) -> tuple[Folder, WarmTarget | None] | None:
        """The document's folder and lint target as located, while the folder, its configuration and the files
        they were found from (its generation) stay; None when it must be located again."""
        known = self._located.get(uri)
        if known is None:
            return None
        generation, config, folder, target = known
        if folder.generation != generation or folder.config is not config:
            return None
        return (folder, target) if folder in self.server.session.folders else None

    def _ahead_target(self, uri: str) -> tuple[Folder, WarmTarget | None] | None:
        """The document's folder and where its lint ahead goes (None: not to a worker; the save will lint it as
        it lints it, from the file on disk), remembered while the folder's configuration and watched files stay
        (lifecycle.Lifecycle.files_changed): a lint ahead runs on every change, and the save that follows it takes
        the same target."""
        fresh = self._fresh_location(uri)
        if fresh is not None:
            return fresh
        located = self.locate(uri)
        if located is None:
            self._located.pop(uri, None)
            return None
        folder, project, path = located
        config = folder.config
        target = warm_target(self.workers, project, path, workspace=folder.root, config=config, from_buffer=False)
        self._located[uri] = (folder.generation, config, folder, target)
        return folder, target

    def _ahead_ended(self, uri: str, answer: asyncio.Future[tuple[list[Issue], LintWorker] | None]) -> None:
        self._ahead_busy.discard(uri)
        if not answer.cancelled() and answer.exception() is not None:
            log.error("linting %s ahead failed", uri, exc_info=answer.exception())
        if uri in self._ahead_again:
            self._ahead_again.discard(uri)
            self.lint_ahead(uri)

    async def _ahead_answer(self, target: WarmTarget, text: str) -> tuple[list[Issue], LintWorker] | None:
        issues = await warm_issues(self.workers, target, text)
        worker = self.workers.worker(target.key)  # the one that answered: no other task ran since
        return None if issues is None or worker is None else (issues, worker)

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
        path = uri_path(uri)
        if path is not None:
            self.server.session.forget_paths(path)  # its folder as the file is now (a symlink may have moved)
        folder = self.folder(uri)
        await self.server.session.watch.check(folder, path)
        if folder is not None and folder.config.editor.lint_on_open:
            self.schedule(uri, "lint", use_buffer=False, delay_ms=0)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """Synchronous (pygls then calls it without a task of its own): one comes with every keystroke."""
        uri = params.text_document.uri
        folder = self.folder(uri)
        if folder is None:
            return
        editor = folder.config.editor
        if editor.lint_on_change:
            self.schedule(uri, "lint", use_buffer=True, delay_ms=editor.change_debounce_ms)

    async def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is not None and path.name in ("lintel.toml", "pyproject.toml"):
            await self.reload()
        folder = self.folder(uri)
        await self.server.session.watch.check(folder, path)
        if folder is None:
            return
        editor = folder.config.editor
        if editor.lint_on_save:
            # A lint a running warm worker answers is a request, not a process: a save storm needs no debounce.
            fresh = self._fresh_location(uri)
            target = fresh[1] if fresh is not None else None
            warm = target is not None and self.workers.running(target.key)
            busy_delay_ms = 0 if warm else editor.save_debounce_ms
            self.schedule(uri, "lint", use_buffer=False, delay_ms=0, busy_delay_ms=busy_delay_ms)
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
        uri = params.text_document.uri
        self.server.session.scheduler.cancel((uri, "lint"))
        self.ahead.pop(uri, None)
        self._ahead_again.discard(uri)
        self._located.pop(uri, None)

    def formats(self, uri: str) -> bool:
        """Whether lintel formats the document with a formatter of its own; where it has none, the child server's
        formatting answers (navigation.py)."""
        located = self.locate(uri)
        return located is not None and located[1].spec.formatter_for(located[1], located[2]) is not None

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


class DocumentSync(Protocol):
    """Told of each document message in the reader, after the document changed and before any later message is
    read (the child servers' manager, lintel.frontends.relay.manager: they get the messages in the editor's order)."""

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None: ...
    def did_change(self, params: types.DidChangeTextDocumentParams) -> None: ...
    def did_save(self, params: types.DidSaveTextDocumentParams) -> None: ...
    def did_close(self, params: types.DidCloseTextDocumentParams) -> None: ...


def setup(server: LintelServer, diagnostics: Diagnostics, reload: Reload, workers: WorkerPool) -> Documents:
    return Documents(server, diagnostics, reload, workers)


# A formatting request relayed to the document's child server (where lintel has no formatter of its own).
Relay = Callable[[str, Any, str], Awaitable[Any]]


def handlers(documents: Documents, follower: DocumentSync, relay: Relay | None = None) -> dict[str, Callable[..., Any]]:
    """The document routes (advertised.ROUTES): inline, each changes the document as pygls's built-in would, tells
    `follower`, and returns the check's coroutine to finish as a task; a change starts its lint ahead first (its
    request goes out soonest). Formatting runs as a task."""
    server = documents.server

    def tell(method: str, call: Callable[[Any], None], params: Any) -> None:
        try:
            call(params)
        except Exception:  # the document's own checks still run
            log.exception("the child servers could not be told of %s", method)

    def did_open(params: types.DidOpenTextDocumentParams) -> Awaitable[None]:
        server.workspace.put_text_document(params.text_document)
        tell(types.TEXT_DOCUMENT_DID_OPEN, follower.did_open, params)
        return documents.did_open(params)

    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        for change in params.content_changes:
            server.workspace.update_text_document(params.text_document, change)
        documents.lint_ahead(params.text_document.uri)
        tell(types.TEXT_DOCUMENT_DID_CHANGE, follower.did_change, params)
        documents.did_change(params)

    def did_save(params: types.DidSaveTextDocumentParams) -> Awaitable[None]:
        tell(types.TEXT_DOCUMENT_DID_SAVE, follower.did_save, params)
        return documents.did_save(params)

    def did_close(params: types.DidCloseTextDocumentParams) -> Awaitable[None]:
        server.workspace.remove_text_document(params.text_document.uri)
        tell(types.TEXT_DOCUMENT_DID_CLOSE, follower.did_close, params)
        return documents.did_close(params)

    async def formatting(params: types.DocumentFormattingParams) -> Any:
        uri = params.text_document.uri
        if relay is not None and not documents.formats(uri):
            return await relay(types.TEXT_DOCUMENT_FORMATTING, params, uri)
        return await documents.format_document(uri)

    return {
        types.TEXT_DOCUMENT_DID_OPEN: did_open,
        types.TEXT_DOCUMENT_DID_CHANGE: did_change,
        types.TEXT_DOCUMENT_DID_SAVE: did_save,
        types.TEXT_DOCUMENT_DID_CLOSE: did_close,
        types.TEXT_DOCUMENT_FORMATTING: formatting,
    }
