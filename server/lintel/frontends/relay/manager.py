"""The children: one per (language, project root), started lazily, kept in sync with the editor's documents,
restarted after a crash with backoff (and given up on after a few crashes a minute), stopped at shutdown. The
slots, starts, backoff and stops are lintel.runtime.supervisor's; what is the manager's own is document sync and
what it tells the user.

The manager knows nothing of pygls's server: what it needs from lintel comes through `ManagerHooks`, children
come from an injected factory and time from an injected clock, so tests run it on fakes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types

from lintel.core.positions import Unit
from lintel.engine.servers import Command
from lintel.frontends.relay.client import Answer, ChildFailed, ChildSpec, ChildState
from lintel.runtime import supervisor
from lintel.runtime.clock import Clock
from lintel.runtime.supervisor import RestartPolicy, Supervisor

__all__ = ["Child", "ChildFactory", "ChildKey", "Manager", "ManagerHooks", "RestartPolicy", "Slot"]

log = logging.getLogger(__name__)

ChildKey = tuple[str, Path]  # (language, project root)


class Child(Protocol):
    """What the manager and router use of a child (ChildClient, or a test's fake)."""

    spec: ChildSpec
    state: ChildState
    failure: str | None
    failed_at: float | None
    encoding: Unit
    registered: set[str]

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> types.ServerCapabilities: ...

    @property
    def sync_kind(self) -> types.TextDocumentSyncKind: ...

    @property
    def save_includes_text(self) -> bool: ...

    @property
    def loading(self) -> bool:
        """Whether it may still answer cross-file requests from part of its workspace (ChildClient.loading)."""

    async def wait_loaded(self, timeout: float) -> bool: ...

    async def start(self) -> None: ...

    async def request(self, method: str, params: Any) -> Any: ...

    def send(self, method: str, params: Any, on_answer: Answer) -> Callable[[], None]: ...

    def notify(self, method: str, params: Any) -> None: ...

    async def stop(self) -> None: ...

    def kill(self) -> None: ...


ChildFactory = Callable[[ChildSpec], Child]


def _same_start(spec: ChildSpec, plan: ChildSpec | Command) -> bool:
    """Whether a child started from `spec` is what `plan` would start now."""
    if isinstance(plan, Command):
        return False  # its binary is no longer found (or configured away)
    return (spec.argv, spec.initialization_options, spec.encoding) == (
        plan.argv,
        plan.initialization_options,
        plan.encoding,
    )


class ManagerHooks(Protocol):
    """What the manager needs from the server around it."""

    def trusted(self) -> bool: ...

    def locate(self, uri: str) -> tuple[str, Path | None] | None:
        """The file's language and its server's root; root None for a file outside every workspace folder."""

    def plan(self, key: ChildKey) -> ChildSpec | Command | None:
        """How to start the child for `key`, or the Command that could not be resolved (missing binary);
        None when no workspace folder holds its root any more."""

    def snapshot(self, uri: str) -> types.TextDocumentItem | None:
        """The open document as the editor has it now (replayed to a child that starts after it was opened)."""

    def tell(self, cause: str, message: str) -> None:
        """Tell the user once per cause (window/showMessage); always log."""

    def forward_limit(self, uri: str) -> int:
        """The largest document (bytes) sent to a child for `uri`; 0: no limit."""

    def started(self, child: Child) -> None:
        """A child is running, its documents replayed (what it offers the editor can be registered)."""


@dataclass(eq=False)
class Slot(supervisor.Slot[ChildKey, Child]):
    spec: ChildSpec | None = None  # what its child was last started from
    documents: dict[str, None] = field(default_factory=dict)  # uris it owns, in the order they were opened
    synced: set[str] = field(default_factory=set)  # uris the current child has been told are open

    @property
    def id(self) -> str:
        return f"{self.key[0]}:{self.key[1]}"

    def running(self) -> Child | None:
        child = self.child
        return child if child is not None and child.state is ChildState.RUNNING else None


def _running(child: Child) -> bool:
    return child.state is ChildState.RUNNING


class Manager:
    """Children by (language, root); also the document listener that keeps them in sync."""

    def __init__(
        self,
        factory: ChildFactory,
        hooks: ManagerHooks,
        policy: RestartPolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._factory = factory
        self._hooks = hooks
        self._slots: Supervisor[ChildKey, Child, Slot] = Supervisor(
            Slot, policy=policy, clock=clock, alive=_running, label="navigation"
        )
        self._policy = self._slots.policy
        self._owner: dict[str, ChildKey] = {}  # open uri -> the slot whose child has it

    @property
    def closed(self) -> bool:
        return self._slots.closed

    @property
    def clock(self) -> Clock:
        return self._slots.clock

    # -- queries ------------------------------------------------------------------------------------------

    def children(self) -> list[Child]:
        """Every child that is running now."""
        return [c for c in (s.running() for s in self._slots.slots()) if c is not None]

    def child_by_id(self, child_id: str) -> Child | None:
        return next((s.running() for s in self._slots.slots() if s.id == child_id), None)

    def children_differ(self, encoding: Unit) -> bool:
        """Whether any running child counts positions in another encoding than `encoding`."""
        return any(c.encoding != encoding for c in self.children())

    def snapshot(self, uri: str) -> types.TextDocumentItem | None:
        """The document as the front has it now (what a child is given when it opens it)."""
        return self._hooks.snapshot(uri)

    def running_child(self, uri: str) -> Child | None:
        """The running child that has `uri` open, without waiting for anything (None: ask child_for)."""
        key = self._owner.get(uri)
        slot = self._slots.get(key) if key is not None else None
        return slot.running() if slot is not None and uri in slot.synced else None

    async def child_for(self, uri: str) -> Child | None:
        """The running child that answers for `uri`, started (or restarted) if need be; None when there
        is none: no language server for the file, untrusted workspace, missing binary, backing off, gave up."""
        key = self._owner.get(uri)
        if key is None:
            located = self._hooks.locate(uri)
            if located is None:
                return None
            language, root = located
            if root is None:
                # A file outside the workspace (a library the child sent the editor to): its language's child.
                return next((c for c in self.children() if c.spec.language == language), None)
            key = (language, root)
        return await self._ready(self._slot(key))

    # -- document sync ---------------------------------------------------------------------------------------
    # Called as each message arrives (LintelProtocol.handle_message), so children get the editor's document
    # messages and the requests between them in the order the editor sent them.

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if self.closed or not self._hooks.trusted():
            return
        located = self._hooks.locate(uri)
        if located is None:
            return
        language, root = located
        if self._too_big(params.text_document):
            return
        if root is None:
            # Outside the workspace (the editor followed a definition into a library): kept in sync with a
            # running child of its language, which answers for it; none is started for it.
            outside = next((c for c in self.children() if c.spec.language == language), None)
            if outside is None:
                return
            root = outside.spec.root
        key: ChildKey = (language, root)
        slot = self._slot(key)
        self._owner[uri] = key
        slot.documents[uri] = None
        child = slot.running()
        if child is not None:
            child.notify(types.TEXT_DOCUMENT_DID_OPEN, params)
            slot.synced.add(uri)
        else:
            self._background(self._ready(slot))  # started on its language's first document

    def _too_big(self, document: types.TextDocumentItem) -> bool:
        """A document above the size limit is not sent: a child parsing a 20 MB file answers nothing else for
        seconds. Requests for it then find no child (navigation is unavailable there), said once per file."""
        limit = self._hooks.forward_limit(document.uri)
        text = document.text
        if not limit or len(text) * 4 <= limit:
            return False
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= limit:
            return False
        self._hooks.tell(
            f"too-big:{document.uri}",
            f"navigation: {document.uri.rsplit('/', 1)[-1]} is {size / 2**20:.1f} MiB, more than "
            f"editor.maxForwardedFileKb ({limit // 1024} KiB): it is not sent to the language server, so "
            "navigation is unavailable in it",
        )
        return True

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        slot, child = self._synced(params.text_document.uri)
        if slot is None or child is None:
            return  # not started yet: the document is replayed with its text of the moment when it is
        if child.sync_kind is types.TextDocumentSyncKind.None_:
            return
        if child.sync_kind is types.TextDocumentSyncKind.Incremental and child.encoding == child.spec.encoding:
            child.notify(types.TEXT_DOCUMENT_DID_CHANGE, params)
            return
        # Ranges in another encoding (or a child that wants whole documents): send the whole text instead.
        snapshot = self._hooks.snapshot(params.text_document.uri)
        if snapshot is None:
            return
        whole = types.DidChangeTextDocumentParams(
            text_document=params.text_document,
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=snapshot.text)],
        )
        child.notify(types.TEXT_DOCUMENT_DID_CHANGE, whole)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        slot, child = self._synced(params.text_document.uri)
        if slot is None or child is None:
            return
        if params.text is None and child.save_includes_text:
            snapshot = self._hooks.snapshot(params.text_document.uri)
            if snapshot is not None:
                params = types.DidSaveTextDocumentParams(text_document=params.text_document, text=snapshot.text)
        child.notify(types.TEXT_DOCUMENT_DID_SAVE, params)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        key = self._owner.pop(uri, None)
        slot = self._slots.get(key) if key is not None else None
        if slot is None:
            return
        slot.documents.pop(uri, None)
        child = slot.running()
        if uri in slot.synced and child is not None:
            child.notify(types.TEXT_DOCUMENT_DID_CLOSE, params)
        slot.synced.discard(uri)

    def _synced(self, uri: str) -> tuple[Slot | None, Child | None]:
        key = self._owner.get(uri)
        slot = self._slots.get(key) if key is not None else None
        if slot is None or uri not in slot.synced:
            return slot, None
        return slot, slot.running()

    # -- starting, restarting, giving up --------------------------------------------------------------------

    def _slot(self, key: ChildKey) -> Slot:
        return self._slots.slot(key)

    async def _ready(self, slot: Slot) -> Child | None:
        self._slots.resting(slot)  # a rest that is over ends here: this request tries again
        if self.closed or slot.gave_up or not self._hooks.trusted():
            return None
        child = slot.running()
        if child is not None:
            return child
        starting = slot.starting
        if starting is None:
            delay = self._restart_delay(slot)
            if delay is None:
                return None
            starting = self._slots.start(slot, lambda: self._start(slot), delay)
        if self._slots.backing_off(slot):
            return None  # backing off after a crash: the restart comes, this request does not wait for it
        # Shielded: an editor cancelling one request must not cancel the start others wait for.
        return await asyncio.shield(starting)

    def _restart_delay(self, slot: Slot) -> float | None:
        """Count the failure of the previous child (once); the delay before the next start, or None when
        there were too many failures within the window (the user is told, the slot gives up)."""
        policy = self._policy
        previous = slot.child
        gave_up = False
        if previous is not None and previous.state is ChildState.FAILED:
            gave_up = self._slots.failed(slot, previous.failed_at)
            slot.child = None
        recent = self._slots.recent_failures(slot)
        if not gave_up:
            if recent:
                log.info("%s: restart %d within %gs", slot.id, recent, policy.window)
            return policy.delay(recent)
        name = previous.name if previous is not None else slot.key[0]
        reason = previous.failure if previous is not None and previous.failure else "no reason given"
        self._hooks.tell(
            f"gave-up:{slot.id}",
            f"navigation: {name} for {slot.key[1]} failed {recent} times within {policy.window:g}s; "
            f"lintel stopped restarting it (last error: {reason}). It tries again in {_duration(policy.cooldown)}, "
            "at once when its settings change, or on the command lintel.restartServers",
        )
        # Its documents stay the slot's: whichever start comes next replays them (no file is left un-opened).
        slot.synced = set()
        return None

    async def _start(self, slot: Slot) -> Child | None:
        if self.closed or not self._hooks.trusted():
            return None
        plan = self._hooks.plan(slot.key)
        if plan is None:
            return None
        if isinstance(plan, Command):
            self._hooks.tell(f"missing:{slot.key[0]}:{plan.display}", plan.missing_message)
            return None
        child = self._factory(plan)
        slot.child = child
        slot.spec = plan
        slot.synced = set()
        try:
            await child.start()
        except ChildFailed as exc:
            hint = f" — install or repair it: {plan.install_hint}" if plan.install_hint else ""
            self._hooks.tell(f"start-failed:{slot.id}", f"navigation: {exc.message}{hint}")
            return None
        if self._slots.closed:  # shut down while it started
            await child.stop()
            return None
        # Documents opened while it started (or before it crashed), in the order they were opened.
        for uri in list(slot.documents):
            snapshot = self._hooks.snapshot(uri)
            if snapshot is None:
                continue
            child.notify(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(text_document=snapshot))
            slot.synced.add(uri)
        self._hooks.started(child)
        return child

    def _forget(self, slot: Slot) -> None:
        for uri in slot.documents:
            self._owner.pop(uri, None)
        slot.documents.clear()
        slot.synced.clear()

    def _background(self, coro: Any) -> None:
        self._slots.background(coro, "background start")

    # -- configuration and workspace folders ------------------------------------------------------------------

    async def reconcile(self) -> None:
        """After the configuration or the workspace folders changed: a child whose folder is gone, or whose
        workspace is no longer trusted, is stopped; one whose command or options changed is restarted with
        its documents (a slot that gave up gets a new chance when its command changed)."""
        if self.closed:
            return
        for key, slot in self._slots.items():
            if slot.starting is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(slot.starting)
            plan = self._hooks.plan(key) if self._hooks.trusted() else None
            child = slot.child
            if plan is None:
                if child is not None:
                    log.info("%s: stopped (its folder was removed, or the workspace is not trusted)", slot.id)
                    await self._stop_child(slot)
                self._forget(slot)
                self._slots.remove(key)
                continue
            if slot.spec is None or _same_start(slot.spec, plan):
                continue
            log.info(
                "%s: the command or options changed; %s", slot.id, "restarting" if child else "next start uses them"
            )
            await self._stop_child(slot)
            slot.spec = None
            self._slots.forgive(slot)
            if slot.documents and isinstance(plan, ChildSpec):
                self._background(self._ready(slot))

    async def restart(self, language: str | None = None) -> list[Slot]:
        """`lintel.restartServers`: every child (of `language`) stopped, its failures and any give-up forgotten,
        and started again at once with its documents (a slot with no open document starts on its next one).
        The slots restarted, once their children are up (or failed again)."""
        if self.closed or not self._hooks.trusted():
            return []
        chosen = [s for key, s in self._slots.items() if language is None or key[0] == language]
        chosen = [s for s in chosen if s.child is not None or s.starting is not None or s.gave_up or s.documents]
        for slot in chosen:
            if slot.starting is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(slot.starting)
            log.info("%s: restarting on request", slot.id)
            await self._stop_child(slot)
            slot.spec = None
            self._slots.forgive(slot)
        await asyncio.gather(*(self._ready(s) for s in chosen if s.documents), return_exceptions=True)
        return chosen

    async def _stop_child(self, slot: Slot) -> None:
        slot.synced = set()
        await self._slots.stop(slot)

    # -- shutdown -----------------------------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Every child: shutdown + exit, then killed after its grace period. No child starts afterwards."""
        await self._slots.stop_all()

    def kill_all(self) -> None:
        """At interpreter exit (an editor that never sent shutdown): no child outlives lintel."""
        self._slots.kill_all()


def _duration(seconds: float) -> str:
    if seconds >= 60:
        return f"{seconds / 60:g} minute{'' if seconds == 60 else 's'}"
    return f"{seconds:g} second{'' if seconds == 1 else 's'}"
