"""Navigation through the real language servers (docs/editors.md, Navigation): definition, references, rename, hover…
are relayed per file to the child server of the file's language and project root (lintel.frontends.relay), whose
diagnostics join lintel's store under `server:<language>`."""

from __future__ import annotations

import asyncio
import atexit
import itertools
import logging
import os
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.uris import to_fs_path

from lintel.engine.config import EditorSettings
from lintel.engine.servers import Command, resolve_command, server_root
from lintel.frontends.lsp.advertised import DOCUMENT_RELAYS
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.pyglscompat import converter_of
from lintel.frontends.lsp.shared import NOT_FORWARDED
from lintel.frontends.relay.client import REQUEST_FAILED, Answer, ChildClient, ChildSpec, child_capabilities
from lintel.frontends.relay.encoding import LineCache, Recoder
from lintel.frontends.relay.manager import Child, ChildKey, Manager
from lintel.frontends.relay.messages import shown
from lintel.frontends.relay.router import Router
from lintel.languages import LANGUAGES
from lintel.runtime.clock import Clock, LoopClock, Timer

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)

EDITOR_TIMEOUT = 10.0  # a child's question relayed to the editor (configuration, applyEdit)


def _path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


class ServerHooks:
    """What the manager needs from the server: trust, where files belong, how to start a child, open
    documents, and the user's ear."""

    def __init__(self, server: LintelServer, own_commands: Collection[str]) -> None:
        self._server = server
        self._own_commands = own_commands  # lintel's, never registered again for a child
        self.child_commands: set[str] = set()  # every command a child offered (registered with the editor)

    def trusted(self) -> bool:
        return self._server.session.trusted

    def locate(self, uri: str) -> tuple[str, Path | None] | None:
        path = _path(uri)
        if path is None:
            return None
        folder = self._server.session.folder_for(path)
        language = (folder.languages if folder is not None else LANGUAGES).for_file(path)
        if language is None or language.server is None:
            return None  # not a language lintel knows, or one declared without a server
        if folder is None:
            return language.name, None
        return language.name, server_root(language, path, folder.root)

    def plan(self, key: ChildKey) -> ChildSpec | Command | None:
        language, root = key
        session = self._server.session
        folder = session.folder_for(root)
        if folder is None:
            return None
        spec = folder.languages.get(language)
        if spec is None or spec.server is None:
            return None
        settings = folder.config.languages.get(language)
        configured = settings is not None and bool(settings.server)
        command = resolve_command(
            spec,
            project_root=root,
            workspace_root=folder.root,
            override=settings.server if settings is not None else None,
            binaries=settings.binaries if settings is not None else None,
        )
        if command.argv is None:
            return command
        return ChildSpec(
            language=language,
            root=root,
            argv=command.argv,
            name=command.display,
            install_hint=command.install_hint,
            encoding=session.encoding,
            capabilities=child_capabilities(self._server.client_capabilities, session.encoding),
            initialization_options=spec.server.initialization_options,
            # A server the user configured is not the one whose load signal lintel knows.
            load_signal=None if configured else spec.server.load_signal,
            chatter=spec.server.chatter,
            env=dict(os.environ),
        )

    def snapshot(self, uri: str) -> types.TextDocumentItem | None:
        document = self._server.workspace.text_documents.get(uri)
        if document is None:
            return None
        path = _path(uri)
        folder = self._server.session.folder_for(path) if path is not None else None
        spec = (folder.languages if folder is not None else LANGUAGES).for_file(path) if path is not None else None
        language_id = document.language_id or (spec.language_id(path) if spec and path else None) or "plaintext"
        return types.TextDocumentItem(
            uri=uri, language_id=language_id, version=document.version or 0, text=document.source
        )

    def tell(self, cause: str, message: str) -> None:
        self._server.notifier.once(cause, message)

    def forward_limit(self, uri: str) -> int:
        path = _path(uri)
        folder = self._server.session.folder_for(path) if path is not None else None
        settings = folder.config.editor if folder is not None else EditorSettings()
        return settings.max_forwarded_file_kb * 1024

    def started(self, child: Child) -> None:
        """The child's commands (a completion item's, a code lens's) registered with an editor that registers
        commands dynamically, so it lets the user run them; lintel forwards them (forward_command). Names
        are registered once: two children of a language offer the same ones."""
        options = child.capabilities.execute_command_provider
        server = self._server
        execute = getattr(server.client_capabilities.workspace, "execute_command", None)
        if options is None or not getattr(execute, "dynamic_registration", False):
            self.child_commands.update(options.commands if options is not None else ())
            return
        new = [c for c in options.commands if c not in self.child_commands and c not in self._own_commands]
        self.child_commands.update(new)
        if not new:
            return
        registration = types.Registration(
            id=f"lintel-commands-{len(self.child_commands)}-{child.spec.id}",
            method=types.WORKSPACE_EXECUTE_COMMAND,
            register_options=types.ExecuteCommandRegistrationOptions(commands=new),
        )

        async def register() -> None:
            try:
                await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
            except Exception as exc:
                log.info("%s: the editor did not register its commands: %s", child.spec.id, exc)

        server.spawn(register())


PROGRESS_DELAY = 0.1  # seconds a child's progress must last before the editor is asked to show it


@dataclass
class _Progress:
    token: str  # as the editor knows it
    state: Literal["pending", "asking", "accepted"] = "pending"
    held: list[Any] = field(default_factory=list)  # values not sent yet
    timer: Timer | None = None  # when the editor is asked to show it


class EditorBridge:
    """The children's requests and notifications, answered by lintel or relayed to the editor."""

    def __init__(self, server: LintelServer, diagnostics: Diagnostics, clock: Clock | None = None) -> None:
        self.clock: Clock = clock if clock is not None else LoopClock()
        self._server = server
        self._diagnostics = diagnostics
        self._progress: dict[tuple[str, str | int], _Progress] = {}  # by (child, child's token)
        self._created = itertools.count(1)
        # Documents' lines as the editor has them (the open buffer, else the file), for re-counting columns.
        self.lines = LineCache(self.open_text)
        self._converter = get_converter()

    def open_text(self, uri: str) -> str | None:
        document = self._server.workspace.text_documents.get(uri)
        return document.source if document is not None else None

    def _editor_can(self, *path: str) -> bool:
        node: Any = self._server.client_capabilities
        for name in path:
            node = getattr(node, name, None)
        return bool(node)

    async def configuration(self, child: ChildClient, params: types.ConfigurationParams) -> list[Any]:
        empty: list[Any] = [None] * len(params.items)
        if not self._editor_can("workspace", "configuration"):
            return empty
        try:
            values = await asyncio.wait_for(self._server.workspace_configuration_async(params), EDITOR_TIMEOUT)
        except Exception as exc:  # the child still gets an answer: its defaults
            log.info("%s: workspace/configuration relay failed: %s", child.spec.id, exc)
            return empty
        return list(values) if isinstance(values, (list, tuple)) and len(values) == len(empty) else empty

    async def apply_edit(self, child: ChildClient, params: dict[str, Any]) -> Any:
        if not self._editor_can("workspace", "apply_edit"):
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="the editor cannot apply edits")
        Recoder(child.encoding, self._server.session.encoding, self.lines).walk(params, "", "")
        typed = self._converter.structure(params, types.ApplyWorkspaceEditParams)
        return await asyncio.wait_for(self._server.workspace_apply_edit_async(typed), EDITOR_TIMEOUT)

    def create_progress(self, child: ChildClient, token: str | int) -> None:
        if not self._editor_can("window", "work_done_progress"):
            return
        key = (child.spec.id, token)
        # A token of the editor's for each creation: children reuse theirs after `end` (rust-analyzer's
        # "rustAnalyzer/Fetching"), and a child's 1 and "1" are two tokens.
        entry = _Progress(f"lintel/{child.spec.id}/{next(self._created)}/{token}")
        previous = self._progress.get(key)
        if previous is not None and previous.timer is not None:
            previous.timer.cancel()  # a token used again: its earlier use no longer counts
        self._progress[key] = entry
        # Most of a child's progress is over in milliseconds (basedpyright reports every references request):
        # the editor hears of it only if it is still going after PROGRESS_DELAY.
        entry.timer = self.clock.call_later(PROGRESS_DELAY, lambda: self._announce(key, entry))

    def progress(self, child: ChildClient, params: dict[str, Any]) -> None:
        # Only tokens the child created: request tokens are not relayed (the router drops them).
        key = (child.spec.id, params["token"])
        entry = self._progress.get(key)
        if entry is None:
            return
        value = params.get("value")
        end = isinstance(value, dict) and value.get("kind") == "end"
        if entry.state == "pending" and end:
            del self._progress[key]  # begun and ended before the editor needed to know
            if entry.timer is not None:
                entry.timer.cancel()
        elif entry.state != "accepted":
            entry.held.append(value)  # not announced yet, or the editor has not accepted the token yet
        else:
            self._send_progress(entry.token, value)
            if end:
                del self._progress[key]

    def _send_progress(self, token: str, value: Any) -> None:
        self._server.send_json({"jsonrpc": "2.0", "method": types.PROGRESS, "params": {"token": token, "value": value}})

    def _announce(self, key: tuple[str, str | int], entry: _Progress) -> None:
        if self._progress.get(key) is not entry or entry.state != "pending":
            return
        entry.state = "asking"

        async def ask_editor() -> None:
            try:
                await asyncio.wait_for(
                    self._server.window_work_done_progress_create_async(
                        types.WorkDoneProgressCreateParams(token=entry.token)
                    ),
                    EDITOR_TIMEOUT,
                )
            except Exception as exc:  # the editor refused or did not answer: drop this token's progress
                log.info("editor did not accept progress token %s: %s", entry.token, exc)
                self._progress.pop(key, None)
                return
            entry.state = "accepted"
            for value in entry.held:
                self._send_progress(entry.token, value)
                if isinstance(value, dict) and value.get("kind") == "end":
                    self._progress.pop(key, None)
            entry.held.clear()

        self._server.spawn(ask_editor())

    def diagnostics(self, child: ChildClient, params: dict[str, Any]) -> None:
        uri = params.get("uri")
        if not isinstance(uri, str):
            return
        server = self._server
        channel = f"server:{child.spec.language}"
        path = _path(uri)
        folder = server.session.folder_for(path) if path is not None else None
        folder = folder or server.session.folder_for(child.spec.root)
        settings = folder.config.editor if folder is not None else EditorSettings()
        diagnostics: list[types.Diagnostic] = []
        if settings.forward_server_diagnostics:
            raw = Recoder(child.encoding, server.session.encoding, self.lines).walk(
                params.get("diagnostics") or [], uri, uri
            )
            diagnostics = self._converter.structure(raw, list[types.Diagnostic])
            if not settings.forward_server_hints:
                diagnostics = [d for d in diagnostics if d.severity != types.DiagnosticSeverity.Hint]
        self._diagnostics.put(uri, channel, diagnostics)

    def show_message(self, child: ChildClient, params: types.ShowMessageParams) -> None:
        """A pop-up at the child's own type, once per text, only when it is for the user; else the log."""
        message = f"{child.name}: {params.message}"
        if shown(params.type, params.message, child.spec.chatter):
            self._server.notifier.once(f"child-message:{child.spec.id}:{params.message}", message, params.type)
        else:
            self._server.notifier.log(message, params.type)

    async def show_document(self, child: ChildClient, params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        """A child asks to show a document (gopls after some commands, a link to documentation): relayed to an
        editor that can, the selection re-counted to the editor's encoding."""
        if not self._editor_can("window", "show_document", "support"):
            return types.ShowDocumentResult(success=False)
        if params.selection is not None:
            raw = self._converter.unstructure(params)
            Recoder(child.encoding, self._server.session.encoding, self.lines).range(raw["selection"], params.uri)
            params = self._converter.structure(raw, types.ShowDocumentParams)
        try:
            return await asyncio.wait_for(self._server.window_show_document_async(params), EDITOR_TIMEOUT)
        except Exception as exc:
            log.info("%s: window/showDocument relay failed: %s", child.spec.id, exc)
            return types.ShowDocumentResult(success=False)

    def log_message(self, child: ChildClient, params: types.LogMessageParams) -> None:
        level = logging.WARNING if params.type == types.MessageType.Error else logging.DEBUG
        log.log(level, "%s: %s", child.spec.id, params.message)


class RawJson:
    """A child's result on its way to the editor, serialised by json.dumps as it is: cattrs would otherwise
    walk it (the JSON-RPC response's `result` is typed Any) — several times slower on a large completion list."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _raw(result: Any) -> Any:
    return RawJson(result) if isinstance(result, (dict, list)) else result


class Navigation:
    """The child language servers of one lintel server: one per (language, project root), started lazily, kept
    in line with the configuration (lifecycle's reload) and stopped at its shutdown."""

    def __init__(self, server: LintelServer, diagnostics: Diagnostics, own_commands: Collection[str]) -> None:
        self._server = server
        self.bridge = EditorBridge(server, diagnostics)
        self.hooks = ServerHooks(server, own_commands)
        self.manager = Manager(lambda spec: ChildClient(spec, self.bridge), self.hooks)
        self.router = Router(self.manager, lambda: server.session.encoding, self.bridge.lines)

    async def reconcile(self) -> None:
        await self.manager.reconcile()

    async def stop(self) -> None:
        await self.manager.shutdown()

    async def restart_servers(self, language: str | None) -> dict[str, Any]:
        """Every child language server (of `language`) restarted now, a given-up one included: the user fixed
        what made it fail, or it is stuck. What each slot's new child came to."""
        slots = await self.manager.restart(language)
        notifier = self._server.notifier
        for cause in ("gave-up:", "start-failed:", "missing:"):
            notifier.forget(cause)  # a new failure of a restarted server is told again
        restarted = []
        for slot in slots:
            child = slot.running()
            entry: dict[str, Any] = {"language": slot.key[0], "root": str(slot.key[1]), "running": child is not None}
            if child is not None:
                entry["server"] = child.name
            elif not slot.documents:
                entry["note"] = "no open document: it starts with the next one"
            elif slot.child is not None and slot.child.failure:
                entry["failure"] = slot.child.failure
            restarted.append(entry)
        return {"restarted": restarted}

    async def forward_command(self, command: str, arguments: Any) -> Any:
        """A command a child offers, run by that child; NOT_FORWARDED when no child offers it."""
        child = self.router.command_owner(command, arguments)
        if child is None:
            if command in self.hooks.child_commands:
                raise JsonRpcException(
                    message=f"{command}: the language server that offers it is not running", code=REQUEST_FAILED
                )
            return NOT_FORWARDED
        return _raw(await self.router.execute_command(child, command, arguments))


def setup(server: LintelServer, diagnostics: Diagnostics, own_commands: Collection[str]) -> Navigation:
    navigation = Navigation(server, diagnostics, own_commands)
    atexit.register(navigation.manager.kill_all)  # an editor that exits without shutdown leaves no child behind
    # A command forwarded to a child answers with its JSON (RawJson), sent on as it is.
    converter_of(server.protocol).register_unstructure_hook(RawJson, lambda raw: raw.value)
    return navigation


def handlers(navigation: Navigation) -> dict[str, Callable[..., Any]]:
    """The relayed routes (advertised.ROUTES), on the editor's JSON: a document's request answered at once by its
    running child (inline; a task while the child starts), the others as tasks."""
    router = navigation.router
    routed: dict[str, Callable[..., Any]] = {
        method: _document_relay(router, method, positional=method != types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
        for method in DOCUMENT_RELAYS
    }
    routed[types.COMPLETION_ITEM_RESOLVE] = _string_member_handler(
        types.COMPLETION_ITEM_RESOLVE, "label", "params must be a completion item with a string label", router.resolve
    )
    routed[types.WORKSPACE_SYMBOL] = _string_member_handler(
        types.WORKSPACE_SYMBOL, "query", "params.query must be a string", router.workspace_symbol
    )
    return routed


RawHandler = Callable[[Any], Coroutine[Any, Any, Any]]


def _invalid(method: str, what: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(f"{method}: {what}")


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _document_uri(method: str, params: Any, positional: bool) -> str:
    """The document a request is about; JsonRpcInvalidParams when its params are not what the method takes."""
    document = params.get("textDocument") if isinstance(params, dict) else None
    uri = document.get("uri") if isinstance(document, dict) else None
    if not isinstance(uri, str):
        raise _invalid(method, "params.textDocument.uri must be a string")
    if positional:
        position = params.get("position")
        if not (isinstance(position, dict) and _natural(position.get("line")) and _natural(position.get("character"))):
            raise _invalid(method, "params.position must be {line, character} with non-negative integers")
    return uri


def _document_relay(router: Router, method: str, *, positional: bool) -> Callable[[Any, Answer], Any]:
    def relay(params: Any, reply: Answer) -> Callable[[], None] | Coroutine[Any, Any, Any]:
        uri = _document_uri(method, params, positional)
        cancel = router.forward_now(method, params, uri, reply)
        # No running child to answer at once: relayed by a task once it runs.
        return cancel if cancel is not None else router.forward(method, params, uri)

    relay.__name__ = f"relay_{method.replace('/', '_')}"
    return relay


def _string_member_handler(
    method: str, member: str, problem: str, call: Callable[[dict[str, Any]], Awaitable[Any]]
) -> RawHandler:
    """A handler for params that must be an object with a string `member` (a completion item's label,
    workspace/symbol's query)."""

    async def handler(params: Any) -> Any:
        if not isinstance(params, dict) or not isinstance(params.get(member), str):
            raise _invalid(method, problem)
        return await call(params)

    return handler
