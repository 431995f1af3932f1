"""Editor requests to the child that owns the file, and the child's answer back, as it sent it.

Only three things may change on the way: columns, when the child counts in another encoding than the editor (see
encoding.py); the `data` of the items an answer gives (completion items, code lenses, hierarchy items…), which
carries which child made the item so that the request that comes back with it (a resolve, the incoming calls) goes
to that child (marks.py); and semantic tokens, re-counted to lintel's legend (semantic.py).
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
from lintel.frontends.relay.fileops import MEMBERS, merge_edits, taken
from lintel.frontends.relay.manager import Child, Manager
from lintel.frontends.relay.marks import mark, mark_answer, marker_of, unmarked
from lintel.frontends.relay.methods import BY_METHOD
from lintel.frontends.relay.semantic import FULL_NEEDED, TOKEN_METHODS, TokenRelay

log = logging.getLogger(__name__)

_TRIGGER_CHARACTER = 2  # CompletionTriggerKind.TriggerCharacter and SignatureHelpTriggerKind.TriggerCharacter
WORKSPACE_SYMBOL_TIMEOUT = 10.0

# Requests whose answer covers the whole workspace: held while the child is still loading it (a child that
# answers from part of it gives an incomplete list that looks complete). At most LOAD_WAIT seconds: past
# that the child is asked anyway, as an editor talking to it directly would have.
CROSS_FILE = frozenset({types.TEXT_DOCUMENT_REFERENCES, types.TEXT_DOCUMENT_RENAME, types.TEXT_DOCUMENT_IMPLEMENTATION})
LOAD_WAIT = 15.0
CONTENT_MODIFIED = -32801  # LSP: the document changed while the request was held; the editor asks again


def supports(child: Child, method: str) -> bool:
    """Whether the child answers `method`: its capability (and the option of it the method needs) says so, or it
    registered the method."""
    if method in child.registered:
        return True
    relayed = BY_METHOD.get(method)
    if relayed is None:
        return False
    if relayed.scope == "files":
        return file_options(child, method) is not None
    provider = getattr(child.capabilities, relayed.provider, None)
    if provider is None or provider is False:
        return False
    for name in relayed.option.split(".") if relayed.option else ():
        provider = getattr(provider, name, None)
    return provider is not None and provider is not False


def file_options(child: Child, method: str) -> Any:
    """The child's registration options for a file operation (its filters), or None."""
    operations = getattr(child.capabilities.workspace, "file_operations", None)
    return getattr(operations, MEMBERS[method], None) if operations is not None else None


def _nothing() -> None:
    return None


def empty_answer(method: str) -> Any:
    """What the editor gets when the document's child does not answer `method`: null, or [] where null is not
    allowed. Never an error: the editor asked lintel, which serves the method for other documents."""
    relayed = BY_METHOD.get(method)
    return list(relayed.empty) if relayed is not None and isinstance(relayed.empty, list) else None


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
        self,
        manager: Manager,
        encoding: Callable[[], Unit],
        lines: LinesSource,
        load_wait: float = LOAD_WAIT,
        formats: Callable[[str], bool] | None = None,
    ) -> None:
        self.manager = manager
        self._encoding = encoding  # the editor's, known after initialize
        self._lines = lines
        self._load_wait = load_wait
        # Whether lintel formats a document itself (its formatter, not the child's, answers formatting requests).
        self.formats: Callable[[str], bool] = formats or (lambda uri: False)
        self.tokens = TokenRelay(encoding)

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
        if method in TOKEN_METHODS:
            return self.tokens.to_editor(child, result, uri, lines)
        result = self._to_editor(child, result, uri, lines)
        follow_up = BY_METHOD[method].follow_up if method in BY_METHOD else None
        if follow_up is not None and result is not None and supports(child, follow_up):
            mark_answer(method, result, {"child": child.spec.id, "uri": uri})
        return result

    def _refused(self, child: Child | None, method: str, params: dict[str, Any], uri: str) -> bool:
        """Whether lintel answers in the child's stead (`empty_answer`): no child, the child lacks the method, it
        was not triggered by the child's own characters, or lintel formats the document itself."""
        if child is None or not supports(child, method) or not self._triggered_here(child, method, params):
            return True
        relayed = BY_METHOD.get(method)
        return relayed is not None and relayed.formats and self.formats(uri)

    async def forward(self, method: str, params: dict[str, Any], uri: str) -> Any:
        """Relay a request about `uri` to its child (params and result as JSON); null (or the method's empty
        answer) when there is no child or it lacks the feature."""
        lines = self._frozen(uri)
        child = await self.manager.child_for(uri)
        if child is not None:
            method, params = self.tokens.to_child(child, method, params)
        if child is None or self._refused(child, method, params, uri):
            return empty_answer(method)
        if method in CROSS_FILE and child.loading:
            text = self._lines(uri)
            await self._until_loaded(child, method)
            if self._lines(uri) != text:
                # The positions were the editor's for a text the child no longer has.
                raise JsonRpcException(
                    message=f"{method}: the document changed while {child.name} was loading the workspace",
                    code=CONTENT_MODIFIED,
                )
        result = await child.request(method, self._to_child(child, dict(params), uri, lines))
        answer = self._answer(child, method, result, uri, lines)
        if answer is FULL_NEEDED:  # a delta lintel cannot carry exactly: the whole tokens instead
            method, params = self.tokens.full_instead(params)
            result = await child.request(method, self._to_child(child, params, uri, lines))
            answer = self._answer(child, method, result, uri, lines)
        return answer

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
        method, params = self.tokens.to_child(child, method, params)
        if self._refused(child, method, params, uri):
            reply(empty_answer(method), None)
            return _nothing
        lines = self._frozen(uri)
        cancel: list[Callable[[], None]] = []

        def answered(result: Any, error: BaseException | None, asked: str = method) -> None:
            if error is not None:
                reply(None, error)
                return
            try:
                result = self._answer(child, asked, result, uri, lines)
                if result is FULL_NEEDED:  # a delta lintel cannot carry exactly: the whole tokens instead
                    full, again = self.tokens.full_instead(params)
                    sent_again = self._to_child(child, again, uri, lines)
                    cancel.append(child.send(full, sent_again, lambda r, e: answered(r, e, full)))
                    return
            except Exception as exc:
                reply(None, exc)
                return
            reply(result, None)

        cancel.append(child.send(method, self._to_child(child, dict(params), uri, lines), answered))

        def cancel_all() -> None:
            for each in cancel:
                each()

        return cancel_all

    @staticmethod
    def _triggered_here(child: Child, method: str, params: dict[str, Any]) -> bool:
        """lintel advertises the union of every child's trigger characters; a child is only asked for what
        its own trigger characters would have asked it."""
        capabilities = child.capabilities
        if method == types.TEXT_DOCUMENT_ON_TYPE_FORMATTING:
            on_type = capabilities.document_on_type_formatting_provider
            own = {getattr(on_type, "first_trigger_character", None), *_triggers(on_type, "more_trigger_character")}
            return params.get("ch") in own
        context = params.get("context")
        if not isinstance(context, dict) or context.get("triggerKind") != _TRIGGER_CHARACTER:
            return True
        character = context.get("triggerCharacter")
        if method == types.TEXT_DOCUMENT_COMPLETION:
            return character in _triggers(capabilities.completion_provider, "trigger_characters")
        if method == types.TEXT_DOCUMENT_SIGNATURE_HELP:
            options = capabilities.signature_help_provider
            return character in _triggers(options, "trigger_characters", "retrigger_characters")
        return True

    # -- the requests that come back with an item of an answer -----------------------------------------------

    async def follow(self, method: str, params: dict[str, Any]) -> Any:
        """A resolve (the params are the item) or a hierarchy's next step (`params.item`), relayed to the child
        that made the item. An item of no running child: a resolve gets it back as it is, the rest null."""
        relayed = BY_METHOD[method]
        item = params.get("item") if relayed.item else params
        if not isinstance(item, dict):
            return empty_answer(method)
        marker = marker_of(item)
        uri = str(marker.get("uri", "")) if marker is not None else ""
        child = self.manager.child_by_id(str(marker.get("child"))) if marker is not None else None
        if child is None and relayed.item and isinstance(item.get("uri"), str):
            uri = item["uri"]
            child = await self.manager.child_for(uri)
        if relayed.item:
            uri = item["uri"] if isinstance(item.get("uri"), str) else uri
        if child is None or not supports(child, method):
            # A resolve's item kept as the editor has it: its marker still names the child once it runs again.
            return empty_answer(method) if relayed.item else item
        original = unmarked(item) if marker is not None else item
        sent = {**params, "item": original} if relayed.item else original
        result = await child.request(method, self._to_child(child, sent, uri))
        result = self._to_editor(child, result, uri)
        answer_marker = marker or {"child": child.spec.id, "uri": uri}
        if relayed.item:
            if result is not None:
                mark_answer(method, result, answer_marker)
        elif isinstance(result, dict):
            mark(result, answer_marker)
        return result

    async def resolve(self, item: dict[str, Any]) -> Any:
        return await self.follow(types.COMPLETION_ITEM_RESOLVE, item)

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
            result = self._to_editor(child, result, "")
            if supports(child, types.WORKSPACE_SYMBOL_RESOLVE):
                mark_answer(types.WORKSPACE_SYMBOL, result, {"child": child.spec.id, "uri": ""})
            return list(result)

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

    # -- file operations ------------------------------------------------------------------------------------

    async def files(self, method: str, params: dict[str, Any]) -> Any:
        """workspace/will{Create,Rename,Delete}Files: each running child whose filters take some of the files is
        asked about those; their edits merged (a child that fails or lags is left out)."""
        asked = self._file_children(method, params)

        async def ask(child: Child, files: list[Any]) -> Any:
            result = await asyncio.wait_for(child.request(method, {"files": files}), WORKSPACE_SYMBOL_TIMEOUT)
            return self._to_editor(child, result, "")

        answers = await asyncio.gather(*(ask(c, f) for c, f in asked), return_exceptions=True)
        edits = []
        for (child, _), answer in zip(asked, answers, strict=True):
            if isinstance(answer, Exception):
                log.info("%s: %s failed: %s", child.spec.id, method, answer)
            elif isinstance(answer, BaseException):
                raise answer
            else:
                edits.append(answer)
        return merge_edits(edits)

    def files_done(self, method: str, params: dict[str, Any]) -> None:
        """workspace/did{Create,Rename,Delete}Files told to each running child whose filters take some files."""
        for child, files in self._file_children(method, params):
            child.notify(method, {"files": files})

    def _file_children(self, method: str, params: dict[str, Any]) -> list[tuple[Child, list[Any]]]:
        files = params.get("files")
        if not isinstance(files, list):
            return []
        asked = []
        for child in self.manager.children():
            kept = taken(file_options(child, method), files, child.spec.root)
            if kept:
                asked.append((child, kept))
        return asked
