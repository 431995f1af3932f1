"""What the editor is shown: issues turned into diagnostics, kept per (file, channel) in the session's store, and
published merged per file — pushed, or served when the client pulls. Every feature publishes through here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.workspace import TextDocument

from lintel.core.issues import Issue
from lintel.core.positions import lines_of, split_lines
from lintel.engine.checks import RunResult
from lintel.engine.validators import ValidateResult
from lintel.frontends.lsp.convert import issue_to_diagnostic, plain_diagnostic_json
from lintel.frontends.lsp.session import Folder
from lintel.frontends.lsp.shared import uri_path
from lintel.languages.sources import unit_for

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer


_PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
# A diagnostic completed from the Issue it was made of, in place (a test failure's source and related information).
Finish = Callable[[Issue, types.Diagnostic], None]


def line_reader(document: TextDocument | None, path: Path | None) -> Callable[[int], str | None]:
    """0-based line -> text, from the open buffer when there is one, else from disk."""
    lines: Sequence[str] | None = None
    if document is not None:
        try:
            # Not `document.lines`: pygls splits with str.splitlines, which breaks at \x0c, \u2028 and more.
            lines = lines_of(document.source)
        except OSError:
            lines = None
    if lines is None and path is not None:
        try:
            lines = split_lines(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            lines = None

    def read(line0: int) -> str | None:
        if lines is None or not 0 <= line0 < len(lines):
            return None
        return lines[line0]

    return read


def _key(diagnostic: types.Diagnostic) -> tuple[str, int, int]:
    """A diagnostic of lintel's as the editor sends it back: its Issue's signature (two findings of one rule on one
    line share one) and where it starts."""
    data = diagnostic.data
    signature = data.get("signature") if isinstance(data, dict) else None
    start = diagnostic.range.start
    return (signature if isinstance(signature, str) else "", start.line, start.character)


def _same_text(uri: str, seen: str | None, text: str) -> bool:
    """Whether the text an Issue was found in is `text`: the buffer then (compared, a memcmp), or the file on
    disk when no buffer was open (read now)."""
    if seen is not None:
        return seen is text or seen == text
    path = uri_path(uri)
    try:
        return path is not None and path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def _under(uri: str, root: Path) -> bool:
    path = uri_path(uri)
    return path is not None and (path == root or root in path.parents)


class Diagnostics:
    """The one publisher: every feature's diagnostics reach the editor through these methods."""

    def __init__(self, server: LintelServer) -> None:
        self._server = server
        # The Issues behind the diagnostics of each file, by signature, with the text they were found in (None:
        # the file on disk), for the code actions (codeactions.py).
        self._issues: dict[str, dict[tuple[str, int, int], tuple[Issue, str | None]]] = {}

    def of_issues(self, uri: str, issues: Iterable[Issue], finish: Finish | None = None) -> list[types.Diagnostic]:
        """Issues in `uri` as diagnostics, columns re-counted from the tool's unit to the editor's encoding; each
        one given to `finish` as it is made (a test failure's: testresults.py)."""
        server = self._server
        document = server.workspace.text_documents.get(uri)
        read = line_reader(document, uri_path(uri))
        encoding = server.session.encoding
        issues = list(issues)
        diagnostics = [issue_to_diagnostic(i, read, tool_unit=unit_for(i.source), encoding=encoding) for i in issues]
        if finish is not None:
            for issue, diagnostic in zip(issues, diagnostics, strict=True):
                finish(issue, diagnostic)
        self._remember(uri, diagnostics, issues, document.source if document is not None else None)
        return diagnostics

    def _remember(
        self, uri: str, diagnostics: Sequence[types.Diagnostic], issues: Sequence[Issue], text: str | None
    ) -> None:
        known = self._issues.setdefault(uri, {})
        known.update((_key(d), (issue, text)) for d, issue in zip(diagnostics, issues, strict=True))
        if len(known) > 2 * len(issues) + 64:  # findings of older texts: keep those still shown
            shown = {_key(d) for d in self._server.session.store.merged(uri, dedupe=False)}
            shown.update(_key(d) for d in diagnostics)
            for key in [k for k in known if k not in shown]:
                del known[key]

    def issue_for(self, uri: str, diagnostic: types.Diagnostic, text: str) -> Issue | None:
        """The Issue behind one of lintel's diagnostics, while the document still holds the text it was found in."""
        found = self._issues.get(uri, {}).get(_key(diagnostic))
        if found is None or not _same_text(uri, found[1], text):
            return None
        return found[0]

    def issues_of(self, uri: str, text: str) -> list[Issue]:
        """The Issues of `uri` shown now and found in `text`."""
        shown = {_key(d) for d in self._server.session.store.merged(uri, dedupe=False)}
        return [
            issue
            for key, (issue, seen) in self._issues.get(uri, {}).items()
            if key in shown and _same_text(uri, seen, text)
        ]

    def put(
        self, uri: str, channel: str, diagnostics: Sequence[types.Diagnostic], *, publish_unchanged: bool = False
    ) -> None:
        """One file's `channel` replaced; published when that changed anything (or always, with
        `publish_unchanged`: a client waiting on its save gets an answer)."""
        if self._server.session.store.put(uri, channel, diagnostics) or publish_unchanged:
            self.publish([uri])

    def publish(self, uris: Iterable[str]) -> None:
        server = self._server
        session = server.session
        if session.pull:
            server.workspace_diagnostic_refresh(None)
            return
        for uri in uris:
            document = server.workspace.text_documents.get(uri)
            version = document.version if document else None
            diagnostics = session.store.merged(uri, dedupe=self._dedupe(uri))
            written = [plain_diagnostic_json(d) for d in diagnostics]
            if all(item is not None for item in written):
                params: dict[str, Any] = {"uri": uri, "diagnostics": written}
                if version is not None:
                    params["version"] = version
                server.send_json({"jsonrpc": "2.0", "method": _PUBLISH, "params": params})
                continue
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
            )

    def _dedupe(self, uri: str) -> bool:
        folder = self._folder_of(uri)
        return folder.config.editor.dedupe_server_diagnostics if folder is not None else True

    def publish_run(
        self,
        folder: Folder,
        result: RunResult,
        channel: str,
        scope: Path | Sequence[Path],
        finish: Finish | None = None,
    ) -> None:
        """A project-wide run: every file it mentions gets `channel` replaced, and files under `scope` (a folder,
        or the files a subset of tests covered) that had `channel` diagnostics but are not mentioned now are
        cleared (they became clean)."""
        scopes = [scope] if isinstance(scope, Path) else list(scope)
        by_uri: dict[str, list[Issue]] = {}
        for issue in result.issues:
            if issue.file is None:
                continue
            path = Path(issue.file) if Path(issue.file).is_absolute() else folder.root / issue.file
            by_uri.setdefault(path.as_uri(), []).append(issue)
        store = self._server.session.store
        previous = {uri for uri in store.uris_with(channel) if any(_under(uri, s) for s in scopes)}
        changed = store.replace_channel(
            channel, {uri: self.of_issues(uri, issues, finish) for uri, issues in by_uri.items()}, scope=previous
        )
        self.publish(changed)

    def clear_channel(self, channel: str, folder: Folder) -> None:
        """`channel` taken off every file of `folder` (a check the configuration turned off: what it found
        last is no longer shown)."""
        session = self._server.session
        owned = {uri for uri in session.store.uris_with(channel) if self._folder_of(uri) is folder}
        self.publish(session.store.replace_channel(channel, {}, scope=owned))

    def _folder_of(self, uri: str) -> Folder | None:
        path = uri_path(uri)
        return self._server.session.folder_for(path) if path is not None else None

    def publish_validation(self, folder: Folder, result: ValidateResult) -> None:
        """A validator's issues under its own channel, so each validator replaces only its own diagnostics."""
        self.publish_run(folder, result.as_run_result(folder.root), f"validator:{result.id}", folder.root)

    def enable_pull(self) -> None:
        """Pull diagnostics, for the clients `advertised.wants_pull` picks (the `initialize` answer has told them
        so, and the route table serves them `pull`); the others are pushed their diagnostics."""
        self._server.session.pull = True

    async def pull(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        """textDocument/diagnostic: the document's merged diagnostics, or "unchanged" since the client's result."""
        uri = params.text_document.uri
        items = self._server.session.store.merged(uri, dedupe=self._dedupe(uri))
        result_id = str(hash(tuple((d.range.start.line, d.range.start.character, d.message, d.source) for d in items)))
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)
