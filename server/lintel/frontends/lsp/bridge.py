"""The child servers' requests and notifications to lintel, answered by lintel or relayed to the editor: configuration,
edits to apply, documents to show, questions for the user, progress, refreshes, messages and diagnostics."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.uris import to_fs_path

from lintel.engine.config import EditorSettings
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.relay.client import ChildClient
from lintel.frontends.relay.encoding import LineCache, Recoder
from lintel.frontends.relay.messages import shown
from lintel.frontends.relay.overlay import Waiters
from lintel.runtime.clock import Clock, LoopClock, Timer

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)

EDITOR_TIMEOUT = 10.0  # a child's question relayed to the editor (configuration, applyEdit)
USER_TIMEOUT = 600.0  # a child's question for the user (window/showMessageRequest): a person answers it


def _path(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


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
        self._refreshing: set[str] = set()  # refresh requests on their way to the editor
        self._commanding: dict[str, int] = {}  # by child: the editor's commands it is running
        # Documents' lines as the editor has them (the open buffer, else the file), for re-counting columns.
        self.lines = LineCache(self.open_text)
        self._converter = get_converter()
        # Checks of proposed texts in flight (lintel.frontends.relay.overlay): their publishes are not the editor's.
        self.overlays: Waiters | None = None

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
        if isinstance(value, dict) and value.get("kind") == "begin" and isinstance(value.get("title"), str):
            value = {**value, "title": f"{child.name}: {value['title']}"}  # whose work it is, in the progress UI
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
        if self.overlays is not None and self.overlays.take(child, params):
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
        """A pop-up at the child's own type, once per text, only when it is for the user; else the log. While the
        child runs a command the user gave, its Info messages are that command's outcome (gopls's "all tests
        passed" after a "run test" lens): shown every time."""
        message = f"{child.name}: {params.message}"
        if shown(params.type, params.message, child.spec.chatter):
            self._server.notifier.once(f"child-message:{child.spec.id}:{params.message}", message, params.type)
        elif params.type == types.MessageType.Info and child.spec.id in self._commanding:
            self._server.notifier.log(message, params.type)
            self._server.window_show_message(types.ShowMessageParams(type=params.type, message=message))
        else:
            self._server.notifier.log(message, params.type)

    @contextlib.contextmanager
    def running_command(self, child_id: str) -> Iterator[None]:
        """Around a command of the editor's that a child runs; its messages arrive before its answer."""
        self._commanding[child_id] = self._commanding.get(child_id, 0) + 1
        try:
            yield
        finally:
            left = self._commanding.pop(child_id) - 1
            if left:
                self._commanding[child_id] = left

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
        """To the editor's log (its language server output), under the child's name; lintel's own log keeps it too."""
        log.debug("%s: %s", child.spec.id, params.message)
        self._server.window_log_message(
            types.LogMessageParams(type=params.type, message=f"{child.name}: {params.message}")
        )

    async def ask_user(self, child: ChildClient, params: types.ShowMessageRequestParams) -> Any:
        """A child's question (gopls: "upgrade this dependency?") put to the user under the child's name; the action
        chosen goes back to it. None when the editor cannot ask, or the user does not answer in USER_TIMEOUT."""
        asked = types.ShowMessageRequestParams(
            type=params.type, message=f"{child.name}: {params.message}", actions=params.actions
        )
        try:
            return await asyncio.wait_for(self._server.window_show_message_request_async(asked), USER_TIMEOUT)
        except Exception as exc:
            log.info("%s: window/showMessageRequest relay failed: %s", child.spec.id, exc)
            return None

    async def refresh(self, child: ChildClient, method: str) -> None:
        """A child's refresh (its semantic tokens, lenses, hints or folding changed without an edit: a dependency
        loaded) passed on to an editor that takes it; one at a time per method, the rest of a burst dropped."""
        capability = _REFRESH_SUPPORT.get(method)
        if capability is None or not self._editor_can("workspace", capability, "refresh_support"):
            return
        if method in self._refreshing:
            return
        self._refreshing.add(method)
        try:
            await asyncio.wait_for(self._server.protocol.send_request_async(method, None), EDITOR_TIMEOUT)
        except Exception as exc:
            log.info("%s: %s relay failed: %s", child.spec.id, method, exc)
        finally:
            self._refreshing.discard(method)


# The editor's capability (under `workspace`) that takes each refresh.
_REFRESH_SUPPORT = {
    types.WORKSPACE_SEMANTIC_TOKENS_REFRESH: "semantic_tokens",
    types.WORKSPACE_CODE_LENS_REFRESH: "code_lens",
    types.WORKSPACE_INLAY_HINT_REFRESH: "inlay_hint",
    types.WORKSPACE_FOLDING_RANGE_REFRESH: "folding_range",
}
