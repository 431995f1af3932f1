"""Navigation through the real language servers (docs/editors.md, Navigation): definition, references, rename, hover…
are relayed per file to the child server of the file's language and project root (lintel.frontends.relay), whose
diagnostics join lintel's store under `server:<language>`."""

from __future__ import annotations

import atexit
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.uris import to_fs_path

from lintel.core.results import RunResult
from lintel.engine.actions import Folder
from lintel.engine.config import EditorSettings
from lintel.engine.servers import Command, server_root
from lintel.frontends.lsp.bridge import EditorBridge
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.pyglscompat import converter_of
from lintel.frontends.lsp.shared import NOT_FORWARDED, RawJson
from lintel.frontends.relay.client import REQUEST_FAILED, Answer, ChildClient, ChildSpec
from lintel.frontends.relay.manager import Child, ChildKey, Manager
from lintel.frontends.relay.methods import NOTIFICATIONS, RELAYED, Relayed
from lintel.frontends.relay.overlay import Waiters, as_run_result, missing_server, server_findings
from lintel.frontends.relay.plan import plan_child
from lintel.frontends.relay.router import Router, file_options, supports
from lintel.languages import LANGUAGES

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)

OVERLAY_TIMEOUT = 30.0  # seconds a child has to publish its diagnostics for a proposed text


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
        self._registered: set[tuple[str, str]] = set()  # (language, method) registered with the editor
        self.settings: Any = None  # what the editor last pushed (workspace/didChangeConfiguration), for new children

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
        return plan_child(folder, language, root, session.encoding, self._server.client_capabilities)

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
        """What the child offers beyond what lintel advertised at `initialize`, registered with an editor that
        registers dynamically: its other commands, and the methods only some servers answer, for its language's
        documents. The settings the editor pushed reach it too, as they would a server the editor started:
        typescript-language-server reads its preferences (inlay hints, code lenses) only from them."""
        if self.settings is not None:
            child.notify(types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": self.settings})
        self._register_commands(child)
        self._register_methods(child)

    def _register_commands(self, child: Child) -> None:
        """The child's commands (a completion item's, a code lens's) that `initialize` did not name, registered so
        the editor lets the user run them; lintel forwards them (forward_command). Names are registered once: two
        children of a language offer the same ones."""
        options = child.capabilities.execute_command_provider
        execute = getattr(self._server.client_capabilities.workspace, "execute_command", None)
        if options is None or not getattr(execute, "dynamic_registration", False):
            self.child_commands.update(options.commands if options is not None else ())
            return
        new = [c for c in options.commands if c not in self.child_commands and c not in self._own_commands]
        self.child_commands.update(options.commands)
        if new:
            self._register(
                child,
                types.Registration(
                    id=f"lintel-commands-{len(self.child_commands)}-{child.spec.id}",
                    method=types.WORKSPACE_EXECUTE_COMMAND,
                    register_options=types.ExecuteCommandRegistrationOptions(commands=new),
                ),
            )

    def _register_methods(self, child: Child) -> None:
        language = child.spec.language
        for relayed in RELAYED:
            method = relayed.method
            if relayed.static or method in _REGISTERED_WITH or (language, method) in self._registered:
                continue
            if not supports(child, method) or not self._registers(relayed.client):
                continue
            self._registered.add((language, method))
            options: Any
            if relayed.scope == "files":
                options = file_options(child, method)
            else:
                options = {"documentSelector": [{"language": lid} for lid in self._language_ids(child)]}
            self._register(
                child, types.Registration(id=f"lintel-{method}-{language}", method=method, register_options=options)
            )

    def _registers(self, capability: str) -> bool:
        node: Any = self._server.client_capabilities
        for name in capability.split("."):
            node = getattr(node, name, None)
        return bool(getattr(node, "dynamic_registration", False))

    def _language_ids(self, child: Child) -> tuple[str, ...]:
        folder = self._server.session.folder_for(child.spec.root)
        spec = (folder.languages if folder is not None else LANGUAGES).get(child.spec.language)
        return spec.language_ids if spec is not None else (child.spec.language,)

    def _register(self, child: Child, registration: types.Registration) -> None:
        server = self._server

        async def register() -> None:
            try:
                await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
            except Exception as exc:
                log.info("%s: the editor did not register %s: %s", child.spec.id, registration.method, exc)

        server.spawn(register())


# Methods an editor is told of by another's registration (a color provider answers both).
_REGISTERED_WITH = frozenset({types.TEXT_DOCUMENT_COLOR_PRESENTATION})


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
        self._converter = converter_of(server.protocol)
        self.waiters = Waiters()
        self.bridge.overlays = self.waiters
        self.overlay_timeout = OVERLAY_TIMEOUT

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None:
        """The file's child's diagnostics for `text` as its content, without the editor seeing them or the file
        being written (lintel.frontends.relay.overlay); None when no language server serves the file."""
        uri = file.as_uri()
        located = self.hooks.locate(uri)
        if located is None:
            return None
        if located[1] is not None and isinstance(plan := self.hooks.plan((located[0], located[1])), Command):
            return missing_server(plan, located[0], folder.root)
        spec = folder.languages.for_file(file)
        language_id = (spec.language_id(file) if spec is not None else None) or "plaintext"
        started = time.monotonic()
        findings = await server_findings(
            self.manager, self.waiters, uri, text, timeout=self.overlay_timeout, language_id=language_id
        )
        if findings is None:
            return None
        elapsed = int((time.monotonic() - started) * 1000)
        return as_run_result(findings, language=located[0], root=folder.root, file=file, text=text, duration_ms=elapsed)

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

    def configuration_changed(self, settings: Any) -> None:
        """The editor's pushed settings, told to every running child as the editor would tell it (each reads its own
        section; gopls and basedpyright ask for theirs again, through lintel), and to each child that starts later."""
        self.hooks.settings = settings
        for child in self.manager.children():
            child.notify(types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": settings})

    async def relay(self, method: str, params: Any, uri: str) -> Any:
        """A request one of lintel's own features serves relayed to the document's child as well (formatting where
        lintel has none, code actions): its JSON answer, or the method's empty one."""
        raw = params if isinstance(params, dict) else self._converter.unstructure(params)
        return _raw(await self.router.forward(method, raw, uri))

    async def follow(self, method: str, params: dict[str, Any]) -> Any:
        """A request coming back with an item a child made (a code action to resolve), relayed to that child; its
        JSON, for a raw route."""
        return await self.router.follow(method, params)

    async def forward_command(self, command: str, arguments: Any) -> Any:
        """A command a child offers, run by that child; NOT_FORWARDED when no child offers it."""
        child = self.router.command_owner(command, arguments)
        if child is None:
            if command in self.hooks.child_commands:
                raise JsonRpcException(
                    message=f"{command}: the language server that offers it is not running", code=REQUEST_FAILED
                )
            return NOT_FORWARDED
        with self.bridge.running_command(child.spec.id):
            return _raw(await self.router.execute_command(child, command, arguments))


def setup(server: LintelServer, diagnostics: Diagnostics, own_commands: Collection[str]) -> Navigation:
    navigation = Navigation(server, diagnostics, own_commands)
    atexit.register(navigation.manager.kill_all)  # an editor that exits without shutdown leaves no child behind
    # A command forwarded to a child answers with its JSON (RawJson), sent on as it is.
    converter_of(server.protocol).register_unstructure_hook(RawJson, lambda raw: raw.value)
    return navigation


def handlers(navigation: Navigation) -> dict[str, Callable[..., Any]]:
    """The relayed routes (advertised.ROUTES, from lintel.frontends.relay.methods), on the editor's JSON: a
    document's request answered at once by its running child (inline; a task while the child starts), the others
    as tasks."""
    router = navigation.router
    routed: dict[str, Callable[..., Any]] = {}
    for relayed in RELAYED:
        if not relayed.merged:
            routed[relayed.method] = _handler(router, relayed)
    routed[types.COMPLETION_ITEM_RESOLVE] = _string_member_handler(
        types.COMPLETION_ITEM_RESOLVE, "label", "params must be a completion item with a string label", router.resolve
    )
    routed[types.WORKSPACE_SYMBOL] = _string_member_handler(
        types.WORKSPACE_SYMBOL, "query", "params.query must be a string", router.workspace_symbol
    )
    return routed


def _handler(router: Router, relayed: Relayed) -> Callable[..., Any]:
    method = relayed.method
    if relayed.scope in ("position", "document"):
        return _document_relay(router, method, positional=relayed.scope == "position")
    if relayed.scope == "files":
        if method in NOTIFICATIONS:

            def done(params: Any) -> None:
                if not isinstance(params, dict) or not isinstance(params.get("files"), list):
                    raise _invalid(method, "params.files must be a list")
                router.files_done(method, params)

            return done

        async def files(params: Any) -> Any:
            if not isinstance(params, dict) or not isinstance(params.get("files"), list):
                raise _invalid(method, "params.files must be a list")
            return await router.files(method, params)  # a raw route: its JSON goes out as it is

        return files

    async def follow(params: Any) -> Any:
        item = params.get("item") if relayed.item and isinstance(params, dict) else params
        if not isinstance(item, dict):
            raise _invalid(method, "params.item must be an object" if relayed.item else "params must be an object")
        return await router.follow(method, params)

    return follow


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
