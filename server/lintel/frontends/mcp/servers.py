"""The child language servers of `lintel mcp`: the editor path's manager and router (lintel.frontends.relay) with
no editor behind them. A file's document is its text on disk, opened in its child on first use and re-sent when
the file changed since (an agent edits files on disk between calls); positions go out and come back in code
points."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from lintel.core.results import RunResult
from lintel.engine import actions
from lintel.engine.actions import NOT_TRUSTED, Folder
from lintel.engine.servers import Command, server_root
from lintel.frontends.mcp.workspace import Host, Workspace
from lintel.frontends.relay.client import ChildClient, ChildSpec
from lintel.frontends.relay.encoding import LineCache
from lintel.frontends.relay.manager import Child, ChildFactory, ChildKey, Manager
from lintel.frontends.relay.overlay import Waiters, as_run_result, missing_server, server_findings
from lintel.frontends.relay.plan import plan_child
from lintel.frontends.relay.router import Router

log = logging.getLogger(__name__)

CONTENT_MODIFIED = -32801  # LSP: the answer was invalidated by a change; ask again
RETRY_DELAY = 0.5

OVERLAY_TIMEOUT = 30.0  # seconds a child has to publish its diagnostics for a proposed text
REQUEST_TIMEOUT = 60.0  # a navigation request (a child loading a large workspace answers its first ones late)

# What an agent's client can do, as a child should see it: positions counted in UTF-16 (every server counts
# them so; they are re-counted in code points), hierarchical symbols, versioned diagnostics (an overlay's
# answer is told from a stale one by its version), edits as documentChanges without file operations.
_CLIENT = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"didSave": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "definition": {"linkSupport": True},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "rename": {"prepareSupport": True},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
    },
    "workspace": {"workspaceEdit": {"documentChanges": True}, "symbol": {}},
}


def _path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


@dataclass
class Document:
    """A file as its child has it: the text on disk when it was last read, and the stat that said so."""

    uri: str
    language_id: str
    text: str
    version: int
    stamp: tuple[int, int]


class AgentHooks:
    """lintel.frontends.relay.manager.ManagerHooks for `lintel mcp`: the host's trust and workspace, documents
    from disk, and a log instead of a user (the last message of each cause is kept: a tool's error says it)."""

    def __init__(self, host: Host, documents: dict[str, Document]) -> None:
        self._host = host
        self._documents = documents
        self.told: dict[str, str] = {}

    def folder(self, path: Path) -> Workspace | None:
        return actions.folder_for(self._host.folders, path)

    def trusted(self) -> bool:
        return self._host.trusted

    def locate(self, uri: str) -> tuple[str, Path | None] | None:
        path = _path(uri)
        folder = self.folder(path) if path is not None else None
        if path is None or folder is None:
            return None
        language = folder.languages.for_file(path)
        if language is None or language.server is None:
            return None
        return language.name, server_root(language, path, folder.root)

    def plan(self, key: ChildKey) -> ChildSpec | Command | None:
        language, root = key
        folder = self.folder(root)
        return plan_child(folder, language, root, "utf-16", _client_capabilities()) if folder is not None else None

    def snapshot(self, uri: str) -> types.TextDocumentItem | None:
        document = self._documents.get(uri)
        if document is None:
            return None
        return types.TextDocumentItem(
            uri=uri, language_id=document.language_id, version=document.version, text=document.text
        )

    def tell(self, cause: str, message: str) -> None:
        """Logged once per cause (a missing server is told on every call that would start it)."""
        if self.told.get(cause) != message:
            log.warning("%s", message)
        self.told[cause] = message

    def forward_limit(self, uri: str) -> int:
        path = _path(uri)
        folder = self.folder(path) if path is not None else None
        return folder.config.editor.max_forwarded_file_kb * 1024 if folder is not None else 0

    def started(self, child: Child) -> None:
        return None


def _client_capabilities() -> types.ClientCapabilities:
    capabilities: types.ClientCapabilities = get_converter().structure(_CLIENT, types.ClientCapabilities)
    return capabilities


class AgentChildHost:
    """lintel.frontends.relay.client.ChildHost with no editor: the child's questions get the answers of a client
    that has no settings, applies no edits and shows nothing; its diagnostics feed the overlays only."""

    def __init__(self, waiters: Waiters) -> None:
        self.waiters = waiters

    async def configuration(self, child: ChildClient, params: types.ConfigurationParams) -> list[Any]:
        return [None] * len(params.items)

    async def apply_edit(self, child: ChildClient, params: dict[str, Any]) -> Any:
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason="lintel mcp applies no server edits")

    def create_progress(self, child: ChildClient, token: str | int) -> None:
        return None

    def progress(self, child: ChildClient, params: dict[str, Any]) -> None:
        return None

    def diagnostics(self, child: ChildClient, params: dict[str, Any]) -> None:
        self.waiters.take(child, params)  # outside an overlay nobody reads them: agents ask `diagnostics`

    def show_message(self, child: ChildClient, params: types.ShowMessageParams) -> None:
        log.info("%s: %s", child.name, params.message)

    async def show_document(self, child: ChildClient, params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        return types.ShowDocumentResult(success=False)

    def log_message(self, child: ChildClient, params: types.LogMessageParams) -> None:
        log.debug("%s: %s", child.name, params.message)

    async def ask_user(self, child: ChildClient, params: types.ShowMessageRequestParams) -> Any:
        return None

    async def refresh(self, child: ChildClient, method: str) -> None:
        return None


class AgentServers:
    """The children of one `lintel mcp`, started on the first request for a file of their language."""

    def __init__(self, host: Host, factory: ChildFactory | None = None) -> None:
        self.host = host
        self.overlay_timeout = OVERLAY_TIMEOUT
        self.waiters = Waiters()
        self.documents: dict[str, Document] = {}
        self.hooks = AgentHooks(host, self.documents)
        child_host = AgentChildHost(self.waiters)
        self.manager = Manager(factory or (lambda spec: ChildClient(spec, child_host)), self.hooks)
        self.lines = LineCache(self._open_text)
        self.router = Router(self.manager, lambda: "utf-32", self.lines)

    def _open_text(self, uri: str) -> str | None:
        document = self.documents.get(uri)
        return document.text if document is not None else None

    async def stop(self) -> None:
        await self.manager.shutdown()

    def kill_all(self) -> None:
        self.manager.kill_all()

    # -- documents ------------------------------------------------------------------------------------------

    def sync(self, path: Path) -> str:
        """`path`'s uri, its document opened in its child or brought up to the file on disk."""
        uri = path.as_uri()
        try:
            stat = path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
            document = self.documents.get(uri)
            if document is not None and document.stamp == stamp:
                return uri
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise actions.invalid(f"file {path} cannot be read: {exc.strerror or exc}") from exc
        if document is None:
            folder = self.hooks.folder(path)
            spec = folder.languages.for_file(path) if folder is not None else None
            language_id = (spec.language_id(path) if spec is not None else None) or "plaintext"
            self.documents[uri] = Document(uri, language_id, text, 1, stamp)
            item = self.hooks.snapshot(uri)
            assert item is not None
            self.manager.did_open(types.DidOpenTextDocumentParams(text_document=item))
            return uri
        document.text, document.stamp, document.version = text, stamp, document.version + 1
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        self.manager.did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=document.version),
                content_changes=[change],
            )
        )
        return uri

    async def child(self, path: Path) -> Child:
        """The running child for `path` (started if need be); an ActionError saying why there is none."""
        if not self.host.trusted:
            raise actions.failed(NOT_TRUSTED)
        uri = path.as_uri()
        located = self.hooks.locate(uri)
        if located is None:
            raise actions.failed(f"no language server serves {path.name} (no language lintel knows has one)")
        limit = self.hooks.forward_limit(uri)
        if limit and path.stat().st_size > limit:
            raise actions.failed(
                f"{path.name} is larger than editor.maxForwardedFileKb ({limit // 1024} KiB): it is not sent "
                "to the language server"
            )
        self.sync(path)
        child = await self.manager.child_for(uri)
        if child is None:
            language = located[0]
            told = [m for cause, m in self.hooks.told.items() if f":{language}" in cause]
            reason = told[-1] if told else f"the {language} language server is not running"
            raise actions.failed(reason)
        return child

    def resync(self) -> None:
        """Every document a child has, brought up to its file (an agent wrote some since): cross-file answers
        count on them too. A file gone is closed."""
        for uri, document in list(self.documents.items()):
            path = _path(uri)
            try:
                stat = path.stat() if path is not None else None
            except OSError:
                stat = None
            if path is None or stat is None:
                del self.documents[uri]
                identifier = types.TextDocumentIdentifier(uri=uri)
                self.manager.did_close(types.DidCloseTextDocumentParams(text_document=identifier))
            elif (stat.st_mtime_ns, stat.st_size) != document.stamp:
                self.sync(path)

    def written(self, paths: list[Path]) -> None:
        """Files lintel wrote (a rename): opened in their children with their new text, so that the children,
        which do not watch the disk, answer for it."""
        for path in paths:
            if self.hooks.locate(path.as_uri()) is not None:
                self.sync(path)

    async def request(self, path: Path, method: str, params: dict[str, Any]) -> Any:
        """`method` about `path` relayed to its child, positions in code points both ways. A child's error is the
        tool's; "content modified" (rust-analyzer reloading its workspace) is asked again, as editors do."""
        child = await self.child(path)
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while True:
            self.resync()
            uri = self.sync(path)
            asked = {"textDocument": {"uri": uri}, **params}
            try:
                return await asyncio.wait_for(self.router.forward(method, asked, uri), REQUEST_TIMEOUT)
            except JsonRpcException as exc:
                if exc.code != CONTENT_MODIFIED or time.monotonic() > deadline:
                    raise actions.failed(f"{child.name}: {method}: {exc.message}") from exc
            except (asyncio.TimeoutError, TimeoutError) as exc:
                raise actions.failed(f"{child.name} did not answer {method} within {REQUEST_TIMEOUT:g} s") from exc
            await asyncio.sleep(RETRY_DELAY)

    async def workspace_symbol(self, query: str, language: str | None) -> list[Any]:
        """workspace/symbol of the running children, after starting one for each project (of `language`)."""
        for path in self._project_files(language):
            try:
                await self.child(path)
            except actions.ActionError as exc:
                log.info("workspace_symbols: %s", exc.message)
        found = await asyncio.wait_for(self.router.workspace_symbol({"query": query}), REQUEST_TIMEOUT)
        if language is None:
            return found
        return [s for s in found if self._language_of(s) == language]

    def _language_of(self, symbol: Any) -> str | None:
        location = symbol.get("location") if isinstance(symbol, dict) else None
        uri = location.get("uri") if isinstance(location, dict) else None
        located = self.hooks.locate(uri) if isinstance(uri, str) else None
        return located[0] if located is not None else None

    def _project_files(self, language: str | None) -> list[Path]:
        """One source file of each language with a server under the workspace, to start its child by."""
        found: dict[str, Path] = {}
        for folder in self.host.folders:
            for directory, dirs, files in os.walk(folder.root):
                dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS]
                for name in files:
                    path = Path(directory) / name
                    spec = folder.languages.for_file(path)
                    if spec is None or spec.server is None or spec.name in found:
                        continue
                    if language is None or spec.name == language:
                        found[spec.name] = path
        return list(found.values())

    # -- a proposed text's diagnostics -----------------------------------------------------------------------

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None:
        """The file's child's diagnostics for `text` as its content (lintel.frontends.relay.overlay); None when no
        language server serves the file."""
        uri = file.as_uri()
        located = self.hooks.locate(uri)
        if located is None or not self.host.trusted:
            return None
        if located[1] is not None and isinstance(plan := self.hooks.plan((located[0], located[1])), Command):
            return missing_server(plan, located[0], folder.root)
        try:
            if file.exists():  # opened from disk first (a file about to be created is only ever the overlay's)
                await self.child(file)
        except actions.ActionError:
            return None
        started = time.monotonic()
        findings = await server_findings(self.manager, self.waiters, uri, text, timeout=self.overlay_timeout)
        if findings is None:
            return None
        elapsed = int((time.monotonic() - started) * 1000)
        return as_run_result(findings, language=located[0], root=folder.root, file=file, text=text, duration_ms=elapsed)


_SKIPPED_DIRS = frozenset({"node_modules", "target", "vendor", "__pycache__", "dist", "build"})
