"""Lint and format-check files as they are opened, changed and saved; publish (or serve) diagnostics;
format documents. Runs are scheduled per (uri, check), so a newer one supersedes the older."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from lintel.checks import RunResult, plan_spec, run_file_check, run_planned, timeout_for
from lintel.detect import nearest_project
from lintel.issues import Issue
from lintel.languages import Project
from lintel.server.convert import issue_to_diagnostic, unit_for
from lintel.server.session import Folder
from lintel.validators import ValidateResult, run_validators

if TYPE_CHECKING:
    from lintel.server.app import LintelServer

log = logging.getLogger(__name__)

FileCheck = Literal["lint", "format"]


def _path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def locate(server: LintelServer, uri: str) -> tuple[Folder, Project, Path] | None:
    """The folder and nearest project owning a file, or None (outside the workspace, no marker)."""
    path = _path(uri)
    if path is None:
        return None
    folder = server.session.folder_for(path)
    if folder is None:
        return None
    project = nearest_project(path, folder.root, languages=folder.languages)
    if project is None:
        return None
    return folder, project, path


def line_reader(document: TextDocument | None, path: Path | None) -> Callable[[int], str | None]:
    """0-based line -> text, from the open buffer when there is one, else from disk."""
    lines: Sequence[str] | None = None
    if document is not None:
        try:
            lines = document.lines
        except OSError:
            lines = None
    if lines is None and path is not None:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        except OSError:
            lines = None

    def read(line0: int) -> str | None:
        if lines is None or not 0 <= line0 < len(lines):
            return None
        return lines[line0].rstrip("\r\n")

    return read


def diagnostics_for(server: LintelServer, uri: str, issues: Iterable[Issue]) -> list[types.Diagnostic]:
    path = _path(uri)
    document = server.workspace.text_documents.get(uri)
    read = line_reader(document, path)
    return [
        issue_to_diagnostic(i, read, tool_unit=unit_for(i.source), encoding=server.session.encoding) for i in issues
    ]


def publish(server: LintelServer, uris: Iterable[str]) -> None:
    session = server.session
    if session.pull:
        server.workspace_diagnostic_refresh(None)
        return
    for uri in uris:
        document = server.workspace.text_documents.get(uri)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                diagnostics=session.store.merged(uri, dedupe=_dedupe(server, uri)),
                version=document.version if document else None,
            )
        )


def _dedupe(server: LintelServer, uri: str) -> bool:
    path = _path(uri)
    folder = server.session.folder_for(path) if path is not None else None
    return folder.config.editor.dedupe_server_diagnostics if folder is not None else True


def publish_run(server: LintelServer, folder: Folder, result: RunResult, channel: str, scope: Path) -> None:
    """A project-wide run: every file it mentions gets `channel` replaced, and files under `scope` that
    had `channel` diagnostics but are not mentioned now are cleared (they became clean)."""
    by_uri: dict[str, list[Issue]] = {}
    for issue in result.issues:
        if issue.file is None:
            continue
        path = Path(issue.file) if Path(issue.file).is_absolute() else folder.root / issue.file
        by_uri.setdefault(path.as_uri(), []).append(issue)
    store = server.session.store
    previous = {uri for uri in store.uris_with(channel) if _under(uri, scope)}
    changed = store.replace_channel(
        channel, {uri: diagnostics_for(server, uri, issues) for uri, issues in by_uri.items()}, scope=previous
    )
    publish(server, changed)


def publish_validation(server: LintelServer, folder: Folder, result: ValidateResult) -> None:
    """A validator's issues under its own channel, so each validator replaces only its own diagnostics."""
    publish_run(server, folder, result.as_run_result(folder.root), f"validator:{result.id}", folder.root)


async def run_on_save_validators(server: LintelServer, folder: Folder) -> None:
    chosen = [v for v in folder.config.validators if v.run_on_save]
    if not chosen or not server.session.trusted:
        return
    for result in await run_validators(chosen, folder.root, concurrency=folder.config.validator_concurrency):
        publish_validation(server, folder, result)


def _under(uri: str, root: Path) -> bool:
    path = _path(uri)
    return path is not None and (path == root or root in path.parents)


def tell_not_checked(server: LintelServer, result: RunResult) -> None:
    """A tool that could not run is not silence: say so once per cause, keep the old diagnostics."""
    reason = result.reason or f"{result.tool} did not run"
    cause = f"not_checked:{result.language}:{result.check}:{reason.split(':', 2)[:2]}"
    server.notifier.once(cause, reason)


async def check_file(server: LintelServer, uri: str, check: FileCheck, use_buffer: bool) -> None:
    located = locate(server, uri)
    if located is None or not server.session.trusted:
        return
    folder, project, path = located
    document = server.workspace.text_documents.get(uri)
    text = document.source if use_buffer and document is not None else None
    if text is None and not path.is_file():
        return  # an unsaved buffer: nothing on disk to check until it is saved
    result = await run_file_check(
        project, check, path, workspace=folder.root, config=folder.config, text=text, require_stdin=use_buffer
    )
    if result is None:
        return
    if result.status == "not_checked":
        tell_not_checked(server, result)
        return
    server.session.store.put(uri, check, diagnostics_for(server, uri, result.issues))
    # Published after every completed run, changed or not: a client waiting on its save gets an answer.
    publish(server, [uri])


def schedule(
    server: LintelServer, uri: str, check: FileCheck, *, use_buffer: bool, delay_ms: int, busy_delay_ms: int = 0
) -> None:
    server.session.scheduler.submit(
        (uri, check),
        lambda: check_file(server, uri, check, use_buffer),
        delay=delay_ms / 1000,
        busy_delay=busy_delay_ms / 1000,
    )


def _folder(server: LintelServer, uri: str) -> Folder | None:
    path = _path(uri)
    return server.session.folder_for(path) if path else None


def setup(server: LintelServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LintelServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        folder = _folder(ls, uri)
        if folder is not None and folder.config.editor.lint_on_open:
            schedule(ls, uri, "lint", use_buffer=False, delay_ms=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: LintelServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        folder = _folder(ls, uri)
        if folder is None or not folder.config.editor.lint_on_change:
            return
        schedule(ls, uri, "lint", use_buffer=True, delay_ms=folder.config.editor.change_debounce_ms)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: LintelServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = _path(uri)
        if path is not None and path.name in ("lintel.toml", "pyproject.toml"):
            from lintel.server.lifecycle import reload

            await reload(ls)
        folder = _folder(ls, uri)
        if folder is None:
            return
        editor = folder.config.editor
        if editor.lint_on_save:
            schedule(ls, uri, "lint", use_buffer=False, delay_ms=0, busy_delay_ms=editor.save_debounce_ms)
        if editor.format_check:
            schedule(ls, uri, "format", use_buffer=False, delay_ms=0, busy_delay_ms=editor.save_debounce_ms)
        if any(v.run_on_save for v in folder.config.validators):
            # One run per folder at a time: a newer save supersedes (and kills) the running validators.
            ls.session.scheduler.submit(
                ("validators", folder.uri),
                lambda: run_on_save_validators(ls, folder),
                busy_delay=editor.save_debounce_ms / 1000,
            )

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: LintelServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        # Runs on the buffer are moot now; diagnostics stay (the file on disk still has them).
        ls.session.scheduler.cancel((uri, "lint"))

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    async def formatting(ls: LintelServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        return await format_document(ls, params.text_document.uri)


def enable_pull(server: LintelServer) -> None:
    """Pull diagnostics for clients that can both pull and be told to re-pull (refresh); push otherwise.
    Registered during initialize so it is advertised only to those clients (never both: a client that
    got pushed and pulled lists would show every diagnostic twice)."""

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier="lintel", inter_file_dependencies=True, workspace_diagnostics=False),
    )
    def pull(ls: LintelServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        items = ls.session.store.merged(uri, dedupe=_dedupe(ls, uri))
        result_id = str(hash(tuple((d.range.start.line, d.range.start.character, d.message, d.source) for d in items)))
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)

    server.session.pull = True


async def format_document(server: LintelServer, uri: str) -> list[types.TextEdit] | None:
    """Run the formatter on the buffer (stdin -> stdout); one whole-document edit, None when unchanged."""
    located = locate(server, uri)
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
        tell_not_checked(server, result)
        return None
    if result.exit_code != 0 or result.truncated:
        server.notifier.log(f"format: {result.tool} failed (exit {result.exit_code}); the document is unchanged")
        return None
    formatted = result.stdout
    if formatted == document.source:
        return None
    lines = document.lines
    end = types.Position(line=len(lines), character=0)
    return [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=formatted)]
