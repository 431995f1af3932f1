"""Code actions (docs/fixes.md, In the editor): the tools' own fixes as quick fixes, a rule disabled for one line in
the tool's own syntax, the rule's page, and `source.fixAll.lintel` — every safe fix of the document at once, the
text the tool's own `--fix` leaves.

Each action is made from the Issue behind a diagnostic of lintel's (Diagnostics.issue_for), and only while the
document still holds the text that Issue was found in: after an edit its positions may name other text, so its
fixes wait for the next lint. Fix-all reads the current text and needs no Issue of an older one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

from lintel.core.fixes import Edit, TextPositions
from lintel.core.issues import Issue
from lintel.core.positions import Unit, convert_column, text_edit
from lintel.engine.fixdoc import fixed_document_text
from lintel.engine.suppress import suppression
from lintel.engine.workers.base import WorkerError, WorkerUnsupported
from lintel.engine.workers.warm import warm_target
from lintel.frontends.lsp.advertised import FIX_ALL_KIND, OPEN_DOCUMENTATION
from lintel.frontends.lsp.commands import Commands, invalid
from lintel.frontends.lsp.convert import LineText
from lintel.frontends.lsp.diagnostics import Diagnostics, line_reader
from lintel.frontends.lsp.pyglscompat import converter_of
from lintel.frontends.lsp.session import Folder
from lintel.frontends.lsp.shared import RawJson
from lintel.frontends.relay.marks import marker_of
from lintel.languages import Project
from lintel.languages.sources import unit_for

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer
    from lintel.frontends.lsp.documents import Documents

log = logging.getLogger(__name__)

QUICKFIX = types.CodeActionKind.QuickFix.value


def _asked(only: Sequence[str] | None, kind: str) -> bool:
    """Whether a request whose `only` is this asks for actions of `kind` (a kind covers its sub-kinds)."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(wanted + ".") for wanted in only)


class ChildActions(Protocol):
    """The document's child server, asked for its own actions (navigation.Navigation)."""

    async def relay(self, method: str, params: Any, uri: str) -> Any: ...

    async def follow(self, method: str, params: dict[str, Any]) -> Any: ...


def _own(diagnostic: types.Diagnostic) -> bool:
    """Whether a diagnostic the editor sends back is lintel's (its data names the finding), not a child server's."""
    data = diagnostic.data
    return isinstance(data, dict) and isinstance(data.get("signature"), str)


class CodeActions:
    def __init__(
        self, server: LintelServer, diagnostics: Diagnostics, documents: Documents, children: ChildActions | None
    ) -> None:
        self.server = server
        self.diagnostics = diagnostics
        self.documents = documents
        self.children = children

    # -- capabilities ------------------------------------------------------------------------------------

    def _client(self) -> Any:
        return getattr(self.server.client_capabilities.text_document, "code_action", None)

    def _resolves_edits(self) -> bool:
        support = getattr(self._client(), "resolve_support", None)
        return support is not None and "edit" in (support.properties or [])

    def _document_changes(self) -> bool:
        edit = getattr(self.server.client_capabilities.workspace, "workspace_edit", None)
        return bool(getattr(edit, "document_changes", False))

    # -- textDocument/codeAction --------------------------------------------------------------------------

    async def actions(self, params: types.CodeActionParams) -> list[Any] | None:
        """lintel's own actions and the document's child server's (organize imports, extract function, its quick
        fixes), asked at the same time: the child gets its own diagnostics of the request, lintel keeps its own."""
        child = asyncio.ensure_future(self._child_actions(params)) if self.children is not None else None
        try:
            own = await self._own_actions(params)
        finally:
            theirs = await child if child is not None else []
        if own is None and not theirs:
            return None
        return [*(own or ()), *theirs]

    async def _child_actions(self, params: types.CodeActionParams) -> list[Any]:
        assert self.children is not None
        uri = params.text_document.uri
        raw = converter_of(self.server.protocol).unstructure(params)
        raw["context"]["diagnostics"] = [
            converter_of(self.server.protocol).unstructure(d) for d in params.context.diagnostics if not _own(d)
        ]
        try:
            answer = await self.children.relay(types.TEXT_DOCUMENT_CODE_ACTION, raw, uri)
        except Exception as exc:  # lintel's own actions are still offered
            log.info("code actions of %s's language server failed: %s", uri, exc)
            return []
        items = getattr(answer, "value", answer)
        return [RawJson(item) for item in items] if isinstance(items, list) else []

    async def _own_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        document = self.server.workspace.text_documents.get(uri)
        located = self.documents.locate(uri) if document is not None else None
        if document is None or located is None:
            return None
        only = params.context.only
        out: list[types.CodeAction] = []
        if _asked(only, QUICKFIX):
            edits = _Edits(self.server, located[0].root)  # one per request: each file's lines read once
            for diagnostic in params.context.diagnostics:
                issue = self.diagnostics.issue_for(uri, diagnostic, document.source)
                if issue is not None:
                    out.extend(self._quick_fixes(edits, issue, diagnostic, document.source))
        if _asked(only, FIX_ALL_KIND) and self.server.session.trusted and self._fix_all_offered(only, params):
            action = types.CodeAction(
                title="Fix all auto-fixable problems (lintel)",
                kind=FIX_ALL_KIND,
                data={"uri": uri, "version": document.version, "fixAll": True},
            )
            if not self._resolves_edits():
                action = await self.resolve(action)
            if action.edit is not None or self._resolves_edits():  # computed and empty: nothing to fix, no action
                out.append(action)
        return out

    def _fix_all_offered(self, only: Sequence[str] | None, params: types.CodeActionParams) -> bool:
        """Fix-all runs the linter: offered when asked for by kind (on save, from a menu), or when the user invoked
        the menu, never on the editor's automatic requests as the cursor moves."""
        if only:
            return True
        return params.context.trigger_kind != types.CodeActionTriggerKind.Automatic

    def _quick_fixes(
        self, edits: _Edits, issue: Issue, diagnostic: types.Diagnostic, text: str
    ) -> list[types.CodeAction]:
        out: list[types.CodeAction] = []
        safe = [fix for fix in issue.fixes if fix.applicability == "safe"]
        for fix in issue.fixes:
            edit = self._workspace_edit(edits, issue, fix.edits)
            if edit is None:
                continue
            title = fix.title if fix.applicability == "safe" else f"{fix.title} (unsafe)"
            if fix.applicability == "display":
                title = f"{fix.title} (suggestion: check it)"
            out.append(
                types.CodeAction(
                    title=title,
                    kind=QUICKFIX,
                    diagnostics=[diagnostic],
                    is_preferred=True if len(safe) == 1 and fix is safe[0] else None,
                    edit=edit,
                )
            )
        disable = suppression(issue, text) if issue.rule else None
        if disable is not None:
            edit = self._workspace_edit(edits, issue, disable.edits)
            if edit is not None:
                out.append(types.CodeAction(title=disable.title, kind=QUICKFIX, diagnostics=[diagnostic], edit=edit))
        if issue.url:
            out.append(
                types.CodeAction(
                    title=f"Open the documentation of {issue.rule or issue.source}",
                    kind=QUICKFIX,
                    diagnostics=[diagnostic],
                    command=types.Command(
                        title="Open documentation", command=OPEN_DOCUMENTATION, arguments=[issue.url]
                    ),
                )
            )
        return out

    # -- codeAction/resolve --------------------------------------------------------------------------------

    async def resolve_json(self, params: Any) -> Any:
        """codeAction/resolve on the editor's JSON: a child's action goes back to the child that made it. A raw
        route: the answer is JSON (the dispatcher writes it as it is)."""
        if marker_of(params) is not None and self.children is not None:
            return await self.children.follow(types.CODE_ACTION_RESOLVE, params)
        converter = converter_of(self.server.protocol)
        try:
            action = converter.structure(params, types.CodeAction)
        except Exception as exc:
            raise invalid(f"{types.CODE_ACTION_RESOLVE}: params must be a code action ({exc})") from exc
        return converter.unstructure(await self.resolve(action))

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        if not data.get("fixAll") or not isinstance(uri, str):
            return action
        document = self.server.workspace.text_documents.get(uri)
        located = self.documents.locate(uri)
        if document is None or located is None or document.version != data.get("version"):
            return action  # the document changed since the action was offered: nothing applied on old text
        if not self.server.session.trusted:
            return action
        folder, project, path = located
        text = document.source
        fixed = await self._warm_fixed(folder, project, path, text)
        if fixed is None:
            issues = self.diagnostics.issues_of(uri, text)
            fixed = await fixed_document_text(
                project, path, text, workspace=folder.root, config=folder.config, issues=issues
            )
        current = self.server.workspace.text_documents.get(uri)
        if fixed is None or fixed == text or current is None or current.version != document.version:
            return action
        encoding: Unit = self.server.session.encoding
        start, end_old, end_new = text_edit(text, fixed)
        places = TextPositions(text, encoding)
        (line, column), (end_line, end_column) = places.position(start), places.position(end_old)
        change = types.TextEdit(
            range=types.Range(
                start=types.Position(line=line - 1, character=column - 1),
                end=types.Position(line=end_line - 1, character=end_column - 1),
            ),
            new_text=fixed[start:end_new],
        )
        action.edit = self._edit_of({uri: [change]}, {uri: document.version})
        return action

    async def _warm_fixed(self, folder: Folder, project: Project, path: Path, text: str) -> str | None:
        """The text as the file's running warm worker fixes it (eslint's: a request, where its CLI would start Node
        and load the config); None when there is none, or it could not answer: then the tool's own fix mode runs."""
        if not folder.config.editor.warm_workers:
            return None
        pool = self.documents.workers
        target = warm_target(pool, project, path, workspace=folder.root, config=folder.config, from_buffer=True)
        if target is None:
            return None
        try:
            return await pool.fix(target.key, target.path, text, timeout=target.timeout)
        except WorkerError as exc:
            if not isinstance(exc, WorkerUnsupported):
                log.info("fix-all: the %s worker could not fix %s (%s); its fix mode runs", target.tool, path, exc)
            return None

    # -- edits ---------------------------------------------------------------------------------------------

    def _workspace_edit(self, edits: _Edits, issue: Issue, fix_edits: Sequence[Edit]) -> types.WorkspaceEdit | None:
        """A fix's edits in the editor's positions; None when one would touch a file outside the workspace."""
        unit = unit_for(issue.source)
        encoding: Unit = self.server.session.encoding
        by_uri: dict[str, list[types.TextEdit]] = {}
        versions: dict[str, int | None] = {}
        for edit in fix_edits:
            target = edits.target(edit.file)
            if target is None:
                log.info("a fix of %s would edit %s, outside the workspace: not offered", issue.rule, edit.file)
                return None
            uri, read, version = target
            start = convert_column(read(edit.line - 1), edit.column - 1, unit, encoding)
            end = convert_column(read(edit.end_line - 1), edit.end_column - 1, unit, encoding)
            by_uri.setdefault(uri, []).append(
                types.TextEdit(
                    range=types.Range(
                        start=types.Position(line=edit.line - 1, character=start),
                        end=types.Position(line=edit.end_line - 1, character=end),
                    ),
                    new_text=edit.new_text,
                )
            )
            versions[uri] = version
        return self._edit_of(by_uri, versions)

    def _edit_of(self, by_uri: dict[str, list[types.TextEdit]], versions: dict[str, int | None]) -> types.WorkspaceEdit:
        if not self._document_changes():
            return types.WorkspaceEdit(changes=by_uri)
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=versions.get(uri)),
                    edits=list(edits),
                )
                for uri, edits in by_uri.items()
            ]
        )

    async def open_documentation(self, url: str) -> Any:
        """`lintel.openDocumentation <url>`: the page shown by the editor (window/showDocument), or its address
        told when the client cannot show documents."""
        window = getattr(self.server.client_capabilities, "window", None)
        if getattr(getattr(window, "show_document", None), "support", False):
            await self.server.window_show_document_async(types.ShowDocumentParams(uri=url, external=True))
        else:
            self.server.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=url))
        return {"url": url}


class _Edits:
    """The files one code-action answer's edits go to, each looked up once: its URI, its lines (the open buffer's,
    else the file's on disk) and its document version; None for a file outside the workspace folder."""

    def __init__(self, server: LintelServer, root: Path) -> None:
        self._server = server
        self._root = root
        self._resolved_root = root.resolve()
        self._known: dict[str, tuple[str, LineText, int | None] | None] = {}

    def target(self, file: str) -> tuple[str, LineText, int | None] | None:
        if file not in self._known:
            self._known[file] = self._look_up(file)
        return self._known[file]

    def _look_up(self, file: str) -> tuple[str, LineText, int | None] | None:
        path = Path(file) if Path(file).is_absolute() else self._root / file
        try:
            resolved = path.resolve()
            resolved.relative_to(self._resolved_root)
        except (OSError, ValueError):
            return None
        uri = path.as_uri()
        document = self._server.workspace.text_documents.get(uri)
        return uri, line_reader(document, resolved), document.version if document is not None else None


def setup(
    server: LintelServer,
    diagnostics: Diagnostics,
    documents: Documents,
    commands: Commands,
    children: ChildActions | None = None,
) -> CodeActions:
    actions = CodeActions(server, diagnostics, documents, children)

    async def open_documentation(params: types.ExecuteCommandParams) -> Any:
        url = params.arguments[0] if params.arguments else None
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise invalid(f"{OPEN_DOCUMENTATION} takes the address of a page (https://…)")
        return await actions.open_documentation(url)

    commands.own_arguments[OPEN_DOCUMENTATION] = open_documentation
    return actions


def handlers(actions: CodeActions) -> dict[str, Callable[..., Any]]:
    """The code action routes (advertised.ROUTES)."""
    return {types.TEXT_DOCUMENT_CODE_ACTION: actions.actions, types.CODE_ACTION_RESOLVE: actions.resolve_json}
