"""Editor requests to the child that owns the file, and the child's answer back, as it sent it.

Only two things may change on the way: columns, when the child counts in another encoding than the
editor (see encoding.py), and completion items' `data`, which carries which child made the item so that
`completionItem/resolve` goes back to it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from lintel.core.positions import Unit
from lintel.frontends.relay.client import Answer
from lintel.frontends.relay.encoding import LinesSource, Recoder
from lintel.frontends.relay.manager import Child, Manager

log = logging.getLogger(__name__)

# The server capability that says a child answers a method (None or False: it does not; lintel answers null).
_PROVIDERS: dict[str, str] = {
    types.TEXT_DOCUMENT_DEFINITION: "definition_provider",
    types.TEXT_DOCUMENT_DECLARATION: "declaration_provider",
    types.TEXT_DOCUMENT_TYPE_DEFINITION: "type_definition_provider",
    types.TEXT_DOCUMENT_IMPLEMENTATION: "implementation_provider",
    types.TEXT_DOCUMENT_REFERENCES: "references_provider",
    types.TEXT_DOCUMENT_HOVER: "hover_provider",
    types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT: "document_highlight_provider",
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: "document_symbol_provider",
    types.TEXT_DOCUMENT_RENAME: "rename_provider",
    types.TEXT_DOCUMENT_PREPARE_RENAME: "rename_provider",
    types.TEXT_DOCUMENT_SIGNATURE_HELP: "signature_help_provider",
    types.TEXT_DOCUMENT_COMPLETION: "completion_provider",
    types.COMPLETION_ITEM_RESOLVE: "completion_provider",
    types.WORKSPACE_SYMBOL: "workspace_symbol_provider",
}

_TRIGGER_CHARACTER = 2  # CompletionTriggerKind.TriggerCharacter and SignatureHelpTriggerKind.TriggerCharacter
MARKER = "lintel"  # completion item data: {"lintel": {"child": id, "uri": uri}, "data": <the child's data>}
WORKSPACE_SYMBOL_TIMEOUT = 10.0

# Requests whose answer covers the whole workspace: held while the child is still loading it (a child that
# answers from part of it gives an incomplete list that looks complete). At most LOAD_WAIT seconds: past
# that the child is asked anyway, as an editor talking to it directly would have.
CROSS_FILE = frozenset({types.TEXT_DOCUMENT_REFERENCES, types.TEXT_DOCUMENT_RENAME, types.TEXT_DOCUMENT_IMPLEMENTATION})
LOAD_WAIT = 15.0
CONTENT_MODIFIED = -32801  # LSP: the document changed while the request was held; the editor asks again


def supports(child: Child, method: str) -> bool:
    if method in child.registered:
        return True
    provider = getattr(child.capabilities, _PROVIDERS.get(method, ""), None)
    if method == types.TEXT_DOCUMENT_PREPARE_RENAME:
        return isinstance(provider, types.RenameOptions) and bool(provider.prepare_provider)
    if method == types.COMPLETION_ITEM_RESOLVE:
        return isinstance(provider, types.CompletionOptions) and bool(provider.resolve_provider)
    return provider is not None and provider is not False


def _nothing() -> None:
    return None


def _commands(child: Child) -> set[str]:
    options = child.capabilities.execute_command_provider
    return set(options.commands) if options is not None else set()


def _file_uris(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.startswith("file:") else []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [uri for item in value for uri in _file_uris(item)]
    return []


def _triggers(options: Any, *names: str) -> set[str]:
    found: set[str] = set()
    for name in names:
        found.update(getattr(options, name, None) or ())
    return found


class Router:
    def __init__(
        self, manager: Manager, encoding: Callable[[], Unit], lines: LinesSource, load_wait: float = LOAD_WAIT
    ) -> None:
        self.manager = manager
        self._encoding = encoding  # the editor's, known after initialize
        self._lines = lines
        self._load_wait = load_wait

    def _recoder(self, source: Unit, target: Unit, lines: LinesSource | None = None) -> Recoder:
        return Recoder(source, target, lines or self._lines)

    def _frozen(self, uri: str) -> LinesSource:
        """Lines with `uri`'s as they are now: a request's positions, and its answer's in that document, are
        counted on the text the editor sent it with, whatever changes come after it."""
        if self._encoding() == "utf-16" and not self.manager.children_differ("utf-16"):
            return self._lines  # nothing will be re-counted
        now = self._lines(uri)
        source = self._lines
        return lambda u: now if u == uri else source(u)

    def _to_child(self, child: Child, params: dict[str, Any], uri: str, lines: LinesSource | None = None) -> Any:
        """The editor's params (JSON, changed in place) with positions as the child counts them. Progress
        tokens stay with lintel: partial results streamed to a token the editor gave would bypass the relay."""
        params.pop("workDoneToken", None)
        params.pop("partialResultToken", None)
        return self._recoder(self._encoding(), child.encoding, lines).walk(params, uri, uri)

    def _to_editor(self, child: Child, result: Any, uri: str, lines: LinesSource | None = None) -> Any:
        return self._recoder(child.encoding, self._encoding(), lines).walk(result, uri, uri)

    def _answer(self, child: Child, method: str, result: Any, uri: str, lines: LinesSource) -> Any:
        result = self._to_editor(child, result, uri, lines)
        if method == types.TEXT_DOCUMENT_COMPLETION:
            self._mark(child, result, uri)
        return result

    async def forward(self, method: str, params: dict[str, Any], uri: str) -> Any:
        """Relay a request about `uri` to its child (params and result as JSON); null when there is no child
        or it lacks the feature."""
        lines = self._frozen(uri)
        child = await self.manager.child_for(uri)
        if child is None or not supports(child, method) or not self._triggered_here(child, method, params):
            return None
        if method in CROSS_FILE and child.loading:
            text = self._lines(uri)
            await self._until_loaded(child, method)
            if self._lines(uri) != text:
                # The positions were the editor's for a text the child no longer has.
                raise JsonRpcException(
                    message=f"{method}: the document changed while {child.name} was loading the workspace",
                    code=CONTENT_MODIFIED,
                )
        result = await child.request(method, self._to_child(child, params, uri, lines))
        return self._answer(child, method, result, uri, lines)

    async def _until_loaded(self, child: Child, method: str) -> None:
        if not await child.wait_loaded(self._load_wait):
            log.info("%s: %s sent before the workspace loaded (%gs)", child.spec.id, method, self._load_wait)

    def forward_now(self, method: str, params: dict[str, Any], uri: str, reply: Answer) -> Callable[[], None] | None:
        """forward() without a coroutine, for a document whose child runs and has it open: `reply(result, None)`
        or `reply(None, error)` comes once, from the child's reader; returns the request's cancel function.
        None when the child is not there yet, or a cross-file request must wait for it to load its workspace:
        forward() then waits."""
        child = self.manager.running_child(uri)
        if child is None or (method in CROSS_FILE and child.loading):
            return None
        if not supports(child, method) or not self._triggered_here(child, method, params):
            reply(None, None)
            return _nothing
        lines = self._frozen(uri)
        sent = self._to_child(child, params, uri, lines)

        def answered(result: Any, error: BaseException | None) -> None:
            if error is not None:
                reply(None, error)
                return
            try:
                result = self._answer(child, method, result, uri, lines)
            except Exception as exc:
                reply(None, exc)
                return
            reply(result, None)

        return child.send(method, sent, answered)

    @staticmethod
    def _triggered_here(child: Child, method: str, params: dict[str, Any]) -> bool:
        """lintel advertises the union of every child's trigger characters; a child is only asked for what
        its own trigger characters would have asked it."""
        context = params.get("context")
        if not isinstance(context, dict) or context.get("triggerKind") != _TRIGGER_CHARACTER:
            return True
        character = context.get("triggerCharacter")
        if method == types.TEXT_DOCUMENT_COMPLETION:
            return character in _triggers(child.capabilities.completion_provider, "trigger_characters")
        if method == types.TEXT_DOCUMENT_SIGNATURE_HELP:
            options = child.capabilities.signature_help_provider
            return character in _triggers(options, "trigger_characters", "retrigger_characters")
        return True

    # -- completion -----------------------------------------------------------------------------------------

    def _mark(self, child: Child, result: Any, uri: str) -> None:
        marker = {"child": child.spec.id, "uri": uri}
        items = result.get("items") if isinstance(result, dict) else result
        if isinstance(result, dict) and isinstance(result.get("itemDefaults"), dict):
            defaults = result["itemDefaults"]
            if "data" in defaults:
                defaults["data"] = {MARKER: marker, "data": defaults["data"]}
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, dict):
                continue
            if "data" in item:
                item["data"] = {MARKER: marker, "data": item["data"]}
            elif not (isinstance(result, dict) and "data" in (result.get("itemDefaults") or {})):
                item["data"] = {MARKER: marker}

    async def resolve(self, item: dict[str, Any]) -> Any:
        """completionItem/resolve goes to the child that made the item; an item of no child comes back as is."""
        data = item.get("data")
        if not isinstance(data, dict) or not isinstance(data.get(MARKER), dict):
            return item
        marker = data[MARKER]
        child = self.manager.child_by_id(str(marker.get("child")))
        uri = str(marker.get("uri", ""))
        original = {k: v for k, v in item.items() if k != "data"}
        if "data" in data:
            original["data"] = data["data"]
        if child is None or not supports(child, types.COMPLETION_ITEM_RESOLVE):
            return original
        result = await child.request(types.COMPLETION_ITEM_RESOLVE, self._to_child(child, original, uri))
        result = self._to_editor(child, result, uri)
        if isinstance(result, dict):
            result["data"] = {MARKER: marker, "data": result["data"]} if "data" in result else {MARKER: marker}
        return result

    # -- workspace/executeCommand ------------------------------------------------------------------------

    def command_owner(self, command: str, arguments: Any) -> Child | None:
        """The running child that offers `command`; with several (two gopls), the one whose root holds a file
        the arguments name."""
        offering = [c for c in self.manager.children() if command in _commands(c)]
        if len(offering) > 1:
            named = [Path(p) for p in (to_fs_path(u) for u in _file_uris(arguments)) if p]
            for child in offering:
                if any(path.is_relative_to(child.spec.root) for path in named):
                    return child
        return offering[0] if offering else None

    async def execute_command(self, child: Child, command: str, arguments: Any) -> Any:
        params: dict[str, Any] = {"command": command}
        if arguments is not None:
            params["arguments"] = arguments
        return await child.request(types.WORKSPACE_EXECUTE_COMMAND, params)

    # -- workspace/symbol ----------------------------------------------------------------------------------

    async def workspace_symbol(self, params: dict[str, Any]) -> list[Any]:
        """Every running child is asked; their answers are concatenated (a child that fails or lags is left out)."""
        children = [c for c in self.manager.children() if supports(c, types.WORKSPACE_SYMBOL)]

        async def ask(child: Child) -> list[Any]:
            own = {k: v for k, v in params.items() if k not in ("workDoneToken", "partialResultToken")}
            if child.loading:
                await self._until_loaded(child, types.WORKSPACE_SYMBOL)
            result = await asyncio.wait_for(child.request(types.WORKSPACE_SYMBOL, own), WORKSPACE_SYMBOL_TIMEOUT)
            if not isinstance(result, list):
                return []
            return list(self._to_editor(child, result, ""))

        answers = await asyncio.gather(*(ask(c) for c in children), return_exceptions=True)
        merged: list[Any] = []
        for child, answer in zip(children, answers, strict=True):
            if isinstance(answer, Exception):  # ChildFailed, a child's error, a timeout
                log.info("%s: workspace/symbol failed: %s", child.spec.id, answer)
                continue
            if isinstance(answer, BaseException):
                raise answer
            merged.extend(answer)
        return merged
