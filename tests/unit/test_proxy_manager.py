"""The manager on fake children from an injected factory and a ManualClock: lazy start, document sync and replay,
missing binaries, trust, crash restarts with backoff and the restart limit (the clock advanced, never slept on),
shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lintel.core.positions import Unit
from lintel.engine.servers import Command
from lintel.frontends.relay.client import Answer, ChildFailed, ChildSpec, ChildState
from lintel.frontends.relay.manager import ChildKey, Manager, RestartPolicy
from lintel.runtime.clock import ManualClock
from lsprotocol import types

ROOT = Path("/work/project")
SUFFIXES: dict[str, str] = {".go": "go", ".ts": "node", ".py": "python"}


class FakeChild:
    """A child in memory: records what it was sent; `crash()` is SIGKILL; `start_error` a failed start."""

    def __init__(
        self, spec: ChildSpec, clock: ManualClock, start_error: str | None = None, start_delay: float = 0.0
    ) -> None:
        self.spec = spec
        self.clock = clock
        self.state = ChildState.STOPPED
        self.failure: str | None = None
        self.failed_at: float | None = None
        self.encoding: Unit = "utf-16"
        self.registered: set[str] = set()
        self.sent: list[tuple[str, Any]] = []
        self.stopped = False
        self.killed = False
        self._start_error = start_error
        self._start_delay = start_delay
        self.sync = types.TextDocumentSyncKind.Incremental

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def capabilities(self) -> types.ServerCapabilities:
        return types.ServerCapabilities(hover_provider=True)

    @property
    def sync_kind(self) -> types.TextDocumentSyncKind:
        return self.sync

    @property
    def save_includes_text(self) -> bool:
        return True

    @property
    def loading(self) -> bool:
        return False

    async def wait_loaded(self, timeout: float) -> bool:
        return True

    async def start(self) -> None:
        self.state = ChildState.STARTING
        await asyncio.sleep(self._start_delay)
        if self._start_error is not None:
            self.crash(self._start_error)
            raise ChildFailed(f"{self.name} {self._start_error}")
        self.state = ChildState.RUNNING

    async def request(self, method: str, params: Any) -> Any:
        if self.state is not ChildState.RUNNING:
            raise ChildFailed(f"{self.name} is not running")
        self.sent.append((method, params))
        return {"answered-by": self.spec.id}

    def send(self, method: str, params: Any, on_answer: Answer) -> Callable[[], None]:
        # Part of the Child protocol for the router's relay; the manager never relays (test_proxy_router.py does).
        raise NotImplementedError

    def notify(self, method: str, params: Any) -> None:
        if self.state is ChildState.RUNNING:
            self.sent.append((method, params))

    async def stop(self) -> None:
        self.stopped = True
        self.state = ChildState.STOPPED

    def kill(self) -> None:
        self.killed = True

    def crash(self, reason: str = "was killed by SIGKILL") -> None:
        self.state = ChildState.FAILED
        self.failure = f"{self.name} {reason}"
        self.failed_at = self.clock.now()

    def methods(self) -> list[str]:
        return [method for method, _ in self.sent]


@dataclass
class Hooks:
    is_trusted: bool = True
    missing: set[str] = field(default_factory=set)
    documents: dict[str, types.TextDocumentItem] = field(default_factory=dict)
    told: list[tuple[str, str]] = field(default_factory=list)
    encoding: Unit = "utf-16"
    removed: set[Path] = field(default_factory=set)  # roots whose workspace folder is gone
    argv: dict[str, tuple[str, ...]] = field(default_factory=dict)  # configured server commands
    running: list[str] = field(default_factory=list)  # the ids of children as they were started
    limit: int = 0  # editor.maxForwardedFileKb in bytes; 0: none

    def trusted(self) -> bool:
        return self.is_trusted

    def locate(self, uri: str) -> tuple[str, Path | None] | None:
        path = Path(uri.removeprefix("file://"))
        language = SUFFIXES.get(path.suffix)
        if language is None:
            return None
        if not path.is_relative_to(ROOT):
            return language, None
        return language, ROOT / path.relative_to(ROOT).parts[0]

    def plan(self, key: ChildKey) -> ChildSpec | Command | None:
        language, root = key
        if root in self.removed:
            return None
        name = {"go": "gopls", "node": "typescript-language-server", "python": "basedpyright-langserver"}[language]
        if language in self.missing:
            return Command(None, name, "install it somehow")
        argv = self.argv.get(language, (name,))
        return ChildSpec(language=language, root=root, argv=argv, name=name, encoding=self.encoding)

    def snapshot(self, uri: str) -> types.TextDocumentItem | None:
        return self.documents.get(uri)

    def tell(self, cause: str, message: str) -> None:
        if cause not in {c for c, _ in self.told}:
            self.told.append((cause, message))

    def forward_limit(self, uri: str) -> int:
        return self.limit

    def started(self, child: Any) -> None:
        self.running.append(child.spec.id)

    # the editor's side of a document

    def open(self, relative: str, text: str = "x", version: int = 1) -> types.DidOpenTextDocumentParams:
        uri = (ROOT / relative).as_uri()
        item = types.TextDocumentItem(uri=uri, language_id="any", version=version, text=text)
        self.documents[uri] = item
        return types.DidOpenTextDocumentParams(text_document=item)

    def change(self, relative: str, text: str) -> types.DidChangeTextDocumentParams:
        uri = (ROOT / relative).as_uri()
        before = self.documents[uri]
        self.documents[uri] = types.TextDocumentItem(uri=uri, language_id="any", version=before.version + 1, text=text)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            text=text,
        )
        return types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=before.version + 1),
            content_changes=[change],
        )


class Factory:
    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.made: list[FakeChild] = []
        self.start_error: str | None = None
        self.start_delay = 0.0

    def __call__(self, spec: ChildSpec) -> FakeChild:
        child = FakeChild(spec, self.clock, self.start_error, self.start_delay)
        self.made.append(child)
        return child


POLICY = RestartPolicy(max_restarts=3, window=60.0, base=0.2, cap=1.0, cooldown=2.0)


@pytest.fixture
def hooks() -> Hooks:
    return Hooks()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def factory(clock: ManualClock) -> Factory:
    return Factory(clock)


@pytest.fixture
def manager(hooks: Hooks, factory: Factory, clock: ManualClock) -> Manager:
    return Manager(factory, hooks, POLICY, clock)


def uri(relative: str) -> str:
    return (ROOT / relative).as_uri()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_children_start_lazily_one_per_language_and_root(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    assert factory.made == []
    manager.did_open(hooks.open("api/main.go"))
    manager.did_open(hooks.open("api/util.go"))
    manager.did_open(hooks.open("web/app.ts"))
    manager.did_open(hooks.open("README.md"))
    await settle()
    assert sorted((c.spec.language, c.spec.root.name) for c in factory.made) == [("go", "api"), ("node", "web")]
    go = await manager.child_for(uri("api/main.go"))
    assert go is factory.made[0]
    assert go.state is ChildState.RUNNING
    other = await manager.child_for(uri("other/x.go"))  # another root: another child, on first use
    assert other is not None
    assert other.spec.root == ROOT / "other"
    assert await manager.child_for(uri("README.md")) is None


async def test_documents_opened_while_starting_are_replayed_in_order_at_their_latest_version(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    factory.start_delay = 0.05
    manager.did_open(hooks.open("api/a.go", "a1"))
    manager.did_open(hooks.open("api/b.go", "b1"))
    manager.did_change(hooks.change("api/a.go", "a2"))  # before the child runs: not forwarded
    child = await manager.child_for(uri("api/a.go"))
    assert child is not None
    [fake] = factory.made
    opened = [(p.text_document.uri, p.text_document.version, p.text_document.text) for m, p in fake.sent]
    assert opened == [(uri("api/a.go"), 2, "a2"), (uri("api/b.go"), 1, "b1")]
    assert fake.methods() == [types.TEXT_DOCUMENT_DID_OPEN] * 2


async def test_sync_reaches_the_owning_child_with_the_editors_versions(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    manager.did_open(hooks.open("api/a.go"))
    await manager.child_for(uri("api/a.go"))
    [fake] = factory.made
    change = hooks.change("api/a.go", "y")
    manager.did_change(change)
    save = types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri("api/a.go")))
    manager.did_save(save)
    manager.did_close(types.DidCloseTextDocumentParams(text_document=save.text_document))
    manager.did_change(hooks.change("api/a.go", "z"))  # closed: nothing more
    assert fake.methods() == [
        types.TEXT_DOCUMENT_DID_OPEN,
        types.TEXT_DOCUMENT_DID_CHANGE,
        types.TEXT_DOCUMENT_DID_SAVE,
        types.TEXT_DOCUMENT_DID_CLOSE,
    ]
    assert fake.sent[1][1] is change  # incremental, same encoding: as the editor sent it
    assert fake.sent[2][1].text == "y"  # the child asked for the text on save


async def test_a_child_in_another_encoding_gets_whole_documents(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    hooks.encoding = "utf-8"  # the editor's; the fake child answers UTF-16
    manager.did_open(hooks.open("api/a.go", "é"))
    await manager.child_for(uri("api/a.go"))
    [fake] = factory.made
    manager.did_change(hooks.change("api/a.go", "é🍰"))
    method, params = fake.sent[-1]
    assert method == types.TEXT_DOCUMENT_DID_CHANGE
    assert params.text_document.version == 2
    [whole] = params.content_changes
    assert isinstance(whole, types.TextDocumentContentChangeWholeDocument)
    assert whole.text == "é🍰"


async def test_missing_binary_answers_none_and_tells_once(manager: Manager, hooks: Hooks, factory: Factory) -> None:
    hooks.missing.add("go")
    manager.did_open(hooks.open("api/a.go"))
    for _ in range(3):
        assert await manager.child_for(uri("api/a.go")) is None
    assert factory.made == []
    [(_, message)] = hooks.told
    assert message == "navigation: gopls: not found on PATH — install it with: install it somehow"
    assert await manager.child_for(uri("web/app.ts")) is not None  # other languages keep working


async def test_untrusted_workspace_never_starts_a_child(manager: Manager, hooks: Hooks, factory: Factory) -> None:
    hooks.is_trusted = False
    manager.did_open(hooks.open("api/a.go"))
    await settle()
    assert await manager.child_for(uri("api/a.go")) is None
    assert factory.made == []


async def test_a_crashed_child_is_restarted_on_next_use_with_its_documents(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    manager.did_open(hooks.open("api/a.go", "one"))
    first = await manager.child_for(uri("api/a.go"))
    assert first is not None
    factory.made[0].crash()
    manager.did_change(hooks.change("api/a.go", "two"))  # while it is down: kept for the replay
    second = await manager.child_for(uri("api/a.go"))  # the first restart is immediate
    assert second is not None
    assert second is not first
    [(method, params)] = factory.made[1].sent
    assert method == types.TEXT_DOCUMENT_DID_OPEN
    assert params.text_document.text == "two"


async def child_now(manager: Manager, relative: str) -> Any:
    """`child_for`, which must answer without the clock moving (a request never waits out a backoff); the real
    timeout only keeps a regression from hanging the run."""
    return await asyncio.wait_for(manager.child_for(uri(relative)), 10)


async def test_restarts_back_off_and_stop_after_the_limit(
    manager: Manager, hooks: Hooks, factory: Factory, clock: ManualClock
) -> None:
    manager.did_open(hooks.open("api/a.go"))
    assert await child_now(manager, "api/a.go") is not None
    factory.made[-1].crash()
    assert await child_now(manager, "api/a.go") is not None  # 1st failure: at once
    factory.made[-1].crash()
    assert await child_now(manager, "api/a.go") is None  # 2nd: after 0.2 s, this request does not wait
    await clock.advance(0.19)
    assert await child_now(manager, "api/a.go") is None  # still backing off
    assert len(factory.made) == 2
    await clock.advance(0.01)
    assert await child_now(manager, "api/a.go") is not None
    assert len(factory.made) == 3
    factory.made[-1].crash()
    assert await child_now(manager, "api/a.go") is None  # 3rd: after 0.4 s
    await clock.advance(0.39)
    assert await child_now(manager, "api/a.go") is None
    assert len(factory.made) == 3
    await clock.advance(0.01)
    assert await child_now(manager, "api/a.go") is not None
    assert len(factory.made) == 4
    assert hooks.told == []
    factory.made[-1].crash()  # 4th failure within the minute: given up
    for _ in range(3):
        assert await manager.child_for(uri("api/a.go")) is None
    assert len(factory.made) == 4
    [(cause, message)] = hooks.told
    assert cause.startswith("gave-up:go:")
    assert "gopls for /work/project/api failed 4 times within 60s; lintel stopped restarting it" in message
    assert "was killed by SIGKILL" in message
    assert (
        "It tries again in 2 seconds, at once when its settings change, or on the command lintel.restartServers"
        in message
    )
    # Giving up does not last the whole session: after the cool-down the next request tries again.
    await clock.advance(1.99)
    assert await child_now(manager, "api/a.go") is None
    assert len(factory.made) == 4
    await clock.advance(0.01)
    child = await child_now(manager, "api/a.go")
    assert child is not None
    assert len(factory.made) == 5
    # ...with the document the editor still has open, which the failed ones had been sent.
    assert isinstance(child, FakeChild)
    assert [p.text_document.uri for m, p in child.sent if m == types.TEXT_DOCUMENT_DID_OPEN] == [uri("api/a.go")]


async def test_restart_starts_every_child_again_with_its_documents_given_up_ones_too(
    manager: Manager, hooks: Hooks, factory: Factory, clock: ManualClock
) -> None:
    """`lintel.restartServers` — a server given up on comes back without waiting for the cool-down."""
    manager.did_open(hooks.open("api/a.go", "package api"))
    manager.did_open(hooks.open("web/b.ts"))
    go = await manager.child_for(uri("api/a.go"))
    web = await manager.child_for(uri("web/b.ts"))
    assert go is not None
    assert isinstance(web, FakeChild)
    for _ in range(8):  # four failures within the minute: given up
        running = await manager.child_for(uri("api/a.go"))
        if hooks.told:
            break
        if isinstance(running, FakeChild):
            running.crash()
        await clock.advance(0.5)
    go_made = [c for c in factory.made if c.spec.language == "go"]
    assert hooks.told
    assert hooks.told[-1][0].startswith("gave-up:go:")
    assert await manager.child_for(uri("api/a.go")) is None

    restarted = await manager.restart("go")

    assert [s.id for s in restarted] == [f"go:{ROOT / 'api'}"]
    new_go = restarted[0].running()
    assert isinstance(new_go, FakeChild)
    assert new_go not in go_made
    assert [(m, p.text_document.text) for m, p in new_go.sent] == [(types.TEXT_DOCUMENT_DID_OPEN, "package api")]
    assert await manager.child_for(uri("api/a.go")) is new_go
    assert not web.stopped  # another language: untouched

    everything = await manager.restart()
    assert sorted(s.key[0] for s in everything) == ["go", "node"]
    stopped = [c for c in factory.made if c.stopped]
    assert web in stopped
    assert new_go in stopped
    assert all(s.running() is not None for s in everything)


async def test_restart_in_an_untrusted_workspace_starts_nothing(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    manager.did_open(hooks.open("api/a.go"))
    await manager.child_for(uri("api/a.go"))
    hooks.is_trusted = False
    assert await manager.restart() == []
    assert len(factory.made) == 1


async def test_failed_starts_count_towards_the_limit_and_say_why(
    manager: Manager, hooks: Hooks, factory: Factory, clock: ManualClock
) -> None:
    factory.start_error = "exited with code 1: error: Unknown binary 'rust-analyzer'"
    for _ in range(20):
        assert await manager.child_for(uri("api/a.go")) is None
        await clock.advance(0.05)
    assert len(factory.made) == 4  # the first try and three restarts
    causes = [c for c, _ in hooks.told]
    assert causes[0].startswith("start-failed:")
    assert causes[-1].startswith("gave-up:")
    assert "Unknown binary 'rust-analyzer' — install or repair it" not in hooks.told[0][1]  # no hint in a fake spec
    assert "Unknown binary 'rust-analyzer'" in hooks.told[0][1]


async def test_a_file_outside_the_workspace_goes_to_a_running_child_of_its_language(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    assert await manager.child_for("file:///usr/lib/go/src/fmt/print.go") is None  # none running: none started
    manager.did_open(hooks.open("api/a.go"))
    go = await manager.child_for(uri("api/a.go"))
    assert await manager.child_for("file:///usr/lib/go/src/fmt/print.go") is go
    library = types.TextDocumentItem(uri="file:///usr/lib/go/src/fmt/print.go", language_id="go", version=1, text="")
    manager.did_open(types.DidOpenTextDocumentParams(text_document=library))
    manager.did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=library.uri)))
    assert [(m, p.text_document.uri) for m, p in factory.made[0].sent[1:]] == [
        (types.TEXT_DOCUMENT_DID_OPEN, library.uri),
        (types.TEXT_DOCUMENT_DID_CLOSE, library.uri),
    ]
    assert len(factory.made) == 1


async def test_shutdown_stops_every_child_and_starts_no_more(manager: Manager, hooks: Hooks, factory: Factory) -> None:
    manager.did_open(hooks.open("api/a.go"))
    manager.did_open(hooks.open("web/a.ts"))
    assert await manager.child_for(uri("api/a.go")) is not None
    assert await manager.child_for(uri("web/a.ts")) is not None
    factory.start_delay = 10.0
    manager.did_open(hooks.open("py/a.py"))  # still starting at shutdown
    await settle()
    await asyncio.wait_for(manager.shutdown(), 2)
    assert len(factory.made) == 3
    assert all(c.stopped for c in factory.made)
    assert await manager.child_for(uri("api/a.go")) is None
    manager.did_open(hooks.open("api/b.go"))
    assert len(factory.made) == 3
    manager.kill_all()
    assert all(c.killed for c in factory.made)


# -- configuration and workspace-folder changes ----------------------------------------------------------------


async def test_an_unchanged_configuration_leaves_children_alone(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    manager.did_open(hooks.open("api/a.go"))
    child = await manager.child_for(uri("api/a.go"))
    await manager.reconcile()
    assert await manager.child_for(uri("api/a.go")) is child
    assert factory.made == [child]
    assert not factory.made[0].stopped


async def test_a_changed_server_command_restarts_the_child_with_its_documents(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    manager.did_open(hooks.open("api/a.go", "a1"))
    manager.did_open(hooks.open("web/b.ts"))
    old = await manager.child_for(uri("api/a.go"))
    web = await manager.child_for(uri("web/b.ts"))
    manager.did_change(hooks.change("api/a.go", "a2"))
    hooks.argv["go"] = ("gopls", "-remote=auto")
    await manager.reconcile()
    new = await manager.child_for(uri("api/a.go"))
    assert old is not None
    assert new is not None
    assert new is not old
    assert factory.made[0].stopped
    assert new.spec.argv == ("gopls", "-remote=auto")
    assert isinstance(new, FakeChild)
    [(method, params)] = new.sent
    assert (method, params.text_document.version, params.text_document.text) == (types.TEXT_DOCUMENT_DID_OPEN, 2, "a2")
    assert await manager.child_for(uri("web/b.ts")) is web  # other children keep running


async def test_a_removed_folder_stops_its_children(manager: Manager, hooks: Hooks, factory: Factory) -> None:
    manager.did_open(hooks.open("api/a.go"))
    manager.did_open(hooks.open("web/b.ts"))
    await manager.child_for(uri("api/a.go"))
    await manager.child_for(uri("web/b.ts"))
    hooks.removed.add(ROOT / "api")
    await manager.reconcile()
    go, web = factory.made
    assert go.stopped
    assert not web.stopped
    assert await manager.child_for(uri("api/a.go")) is None  # nothing starts for a root outside the workspace
    assert len(factory.made) == 2
    assert [c.spec.language for c in manager.children()] == ["node"]


async def test_an_untrusted_workspace_stops_every_child(manager: Manager, hooks: Hooks, factory: Factory) -> None:
    manager.did_open(hooks.open("api/a.go"))
    await manager.child_for(uri("api/a.go"))
    hooks.is_trusted = False
    await manager.reconcile()
    assert factory.made[0].stopped
    assert manager.children() == []


async def test_a_slot_that_gave_up_tries_again_once_its_command_changes(
    manager: Manager, hooks: Hooks, factory: Factory, clock: ManualClock
) -> None:
    factory.start_error = "exited with code 1: bad flag"
    for _ in range(20):
        assert await manager.child_for(uri("api/a.go")) is None
        await clock.advance(0.05)
    assert hooks.told[-1][0].startswith("gave-up:")
    tries = len(factory.made)
    await manager.reconcile()  # nothing changed: still given up
    assert await manager.child_for(uri("api/a.go")) is None
    assert len(factory.made) == tries
    factory.start_error = None
    hooks.argv["go"] = ("gopls", "serve")
    await manager.reconcile()
    child = await manager.child_for(uri("api/a.go"))
    assert child is not None
    assert child.spec.argv == ("gopls", "serve")


async def test_a_document_above_the_size_limit_is_not_sent_and_the_user_is_told_once(
    manager: Manager, hooks: Hooks, factory: Factory
) -> None:
    """A huge file sent to a child would hold up hover on every other file."""
    hooks.limit = 1024
    manager.did_open(hooks.open("api/small.go", "package api\n"))
    child = await manager.child_for(uri("api/small.go"))
    assert child is not None
    big = hooks.open("api/big.go", "// é\n" * 400)  # 2,400 bytes in 2,000 characters
    manager.did_open(big)
    manager.did_open(big)
    assert [m for m, p in factory.made[0].sent if p.text_document.uri.endswith("big.go")] == []
    [message] = [m for c, m in hooks.told if c.startswith("too-big:")]
    assert "big.go is 0.0 MiB, more than editor.maxForwardedFileKb (1 KiB)" in message
    assert await manager.child_for(uri("api/small.go")) is child  # the other files keep their server
