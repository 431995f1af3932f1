"""The server's features are built in wiring.py and get what they need injected: commands the forwarder of the
child servers' commands, lifecycle the child servers themselves, everyone the one publisher of diagnostics."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lintel.frontends.lsp import commands, documents, lifecycle
from lintel.frontends.lsp.advertised import OPEN_DOCUMENTATION, ROUTES
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.commands import OFFERED, Commands
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.session import Folder, Session
from lintel.frontends.lsp.shared import NOT_FORWARDED
from lintel.frontends.lsp.wiring import create_server, wire
from lintel.frontends.relay.methods import CHILD_COMMANDS, RELAYED
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.helpers import MessageRecorder


def test_wiring_binds_every_route() -> None:
    server = create_server()
    assert [route.method for route in server.routes.bound()] == [types.INITIALIZE]  # the rest after the answer
    assert set(server.protocol.fm.features) == {types.INITIALIZE}  # pygls runs its built-in step, then this
    wire(server)
    assert server.routes.bound() == ROUTES  # every route bound, once
    for method in (
        types.INITIALIZE,
        types.SHUTDOWN,
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.TEXT_DOCUMENT_DID_SAVE,
        types.TEXT_DOCUMENT_FORMATTING,
        types.WORKSPACE_EXECUTE_COMMAND,
        *(r.method for r in RELAYED),
    ):
        assert method in {route.method for route in server.routes.bound()}, method
    # Only what pygls has a built-in step for is registered with pygls.
    assert set(server.protocol.fm.features) == {types.INITIALIZE, types.SHUTDOWN}
    assert not server.protocol.fm.commands
    [execute] = [route for route in ROUTES if route.method == types.WORKSPACE_EXECUTE_COMMAND]
    assert execute.options.commands == [*OFFERED, *CHILD_COMMANDS]  # the default servers' commands after lintel's


async def test_a_change_starts_its_lint_ahead_before_the_child_servers_hear_of_it(tmp_path: Path) -> None:
    """The lint ahead first: its request goes out before the child servers are told of the change."""
    told: list[str] = []
    server = LintelServer()
    docs = SimpleNamespace(
        server=server, lint_ahead=lambda uri: told.append("ahead"), did_change=lambda p: told.append("own")
    )
    follower = SimpleNamespace(did_change=lambda params: told.append("children"))
    routed = documents.handlers(docs, follower)  # type: ignore[arg-type]
    server.protocol.set_writer(MessageRecorder(), include_headers=False)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": types.INITIALIZE, "params": {"capabilities": {}}}
    server.protocol.handle_message(server.protocol.structure_message(initialize))
    uri = (tmp_path / "a.txt").as_uri()
    server.workspace.put_text_document(types.TextDocumentItem(uri=uri, language_id="plaintext", version=1, text="a"))
    change = types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="b")],
    )
    routed[types.TEXT_DOCUMENT_DID_CHANGE](change)
    assert told == ["ahead", "children", "own"]
    assert server.workspace.get_text_document(uri).source == "b"


def test_the_commands_offered_are_the_commands_handled() -> None:
    commands = Commands(LintelServer(), Diagnostics(LintelServer()), forward=_never, restart=_no_restart)
    # lintel.openDocumentation takes a page's address, not the commands' argument object: the code actions, which
    # offer it, add it (tests/e2e/test_code_actions.py runs it).
    assert {*commands.handlers, OPEN_DOCUMENTATION} == set(OFFERED)
    assert len(OFFERED) == len(set(OFFERED))


async def _never(command: str, arguments: Any) -> Any:
    raise AssertionError(f"{command} forwarded")


async def _no_restart(language: str | None) -> Any:
    raise AssertionError("servers restarted")


def execute(command: str) -> types.ExecuteCommandParams:
    return types.ExecuteCommandParams(command=command, arguments=[{"x": 1}])


async def test_an_unknown_command_goes_to_the_injected_forwarder() -> None:
    asked: list[tuple[str, Any]] = []

    async def forward(command: str, arguments: Any) -> Any:
        asked.append((command, arguments))
        return {"done": command}

    server = LintelServer()
    runner = Commands(server, Diagnostics(server), forward, _no_restart)
    assert await runner.execute(execute("gopls.tidy")) == {"done": "gopls.tidy"}
    assert asked == [("gopls.tidy", [{"x": 1}])]


async def test_a_command_no_one_offers_is_invalid() -> None:
    async def forward(command: str, arguments: Any) -> Any:
        return NOT_FORWARDED

    server = LintelServer()
    with pytest.raises(JsonRpcException, match=r"unknown command 'nobody\.offers'") as raised:
        await Commands(server, Diagnostics(server), forward, _no_restart).execute(execute("nobody.offers"))
    assert raised.value.code == commands.INVALID_PARAMS


class FakeChildren:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def reconcile(self) -> None:
        self.calls.append("reconcile")

    async def stop(self) -> None:
        self.calls.append("stop")

    def configuration_changed(self, settings: Any) -> None:
        self.calls.append("configuration")


class FakeWorkers:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    async def stop_all(self) -> None:
        self.calls.append("stop workers")


async def test_lifecycle_reconciles_and_stops_the_injected_children_and_workers() -> None:
    server = LintelServer()
    children = FakeChildren()
    life = lifecycle.Lifecycle(server, Diagnostics(server), children, FakeWorkers(children.calls))
    await life.reload(pull=False)
    await life.stop_everything()
    assert children.calls == ["reconcile", "stop workers", "stop"]


def zero_width(message: str) -> types.Diagnostic:
    zero = types.Position(line=0, character=0)
    return types.Diagnostic(range=types.Range(start=zero, end=zero), message=message)


class PublishingServer:
    """What Diagnostics uses of LintelServer to push: the session, open documents, publishDiagnostics."""

    def __init__(self) -> None:
        self.session = Session()
        self.workspace = SimpleNamespace(text_documents={})
        self.published: list[tuple[str, list[str]]] = []

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self.published.append((params.uri, [d.message for d in params.diagnostics]))

    def send_json(self, message: dict[str, Any]) -> None:
        assert message["method"] == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        params = message["params"]
        self.published.append((params["uri"], [d["message"] for d in params["diagnostics"]]))


def test_diagnostics_publish_what_changed_or_what_a_save_waits_for() -> None:
    server = PublishingServer()
    diagnostics = Diagnostics(server)  # type: ignore[arg-type]
    diagnostics.put("file:///w/a.py", "lint", [zero_width("one")])
    diagnostics.put("file:///w/a.py", "lint", [zero_width("one")])  # unchanged: not published again
    diagnostics.put("file:///w/a.py", "lint", [zero_width("one")], publish_unchanged=True)
    diagnostics.put("file:///w/a.py", "server:python", [zero_width("two")])
    assert server.published == [
        ("file:///w/a.py", ["one"]),
        ("file:///w/a.py", ["one"]),
        ("file:///w/a.py", ["one", "two"]),
    ]


def test_folder_for_answers_stand_while_the_folders_stay(tmp_path: Path) -> None:
    """Session.folder_for remembers its answers, and forgets them when the folders change (a folder added, replaced
    or removed), when files change on disk (a symlink changed meanwhile) or when the path's document opens again."""
    outer, inner = tmp_path / "repo", tmp_path / "repo" / "service"
    (inner / "pkg").mkdir(parents=True)
    file = inner / "pkg" / "mod.py"
    session = Session(folders=[Folder(root=outer.resolve(), uri=outer.as_uri())])
    assert session.folder_for(file) is session.folders[0]
    nested = Folder(root=inner.resolve(), uri=inner.as_uri())
    session.folders.append(nested)  # mutated in place, as lifecycle adds a folder
    assert session.folder_for(file) is nested
    session.folders = []
    assert session.folder_for(file) is None

    # Until an event, the path is not resolved again: a link swapped meanwhile is seen once files are said to change.
    link = tmp_path / "link"
    link.symlink_to(outer)
    session.folders = [Folder(root=outer.resolve(), uri=outer.as_uri())]
    assert session.folder_for(link / "service" / "pkg" / "mod.py") is session.folders[0]
    link.unlink()
    link.symlink_to(tmp_path / "elsewhere")
    assert session.folder_for(link / "service" / "pkg" / "mod.py") is session.folders[0]
    session.forget_paths()  # watched files changed
    assert session.folder_for(link / "service" / "pkg" / "mod.py") is None

    # And when the path's document is opened again: only its own answer is worked out again.
    link.unlink()
    link.symlink_to(outer)
    other = outer / "other.py"
    assert session.folder_for(other) is session.folders[0]
    other_link = tmp_path / "other-link"
    other_link.symlink_to(outer)
    assert session.folder_for(other_link / "x.py") is session.folders[0]
    other_link.unlink()
    other_link.symlink_to(tmp_path / "elsewhere")
    session.forget_paths(link / "service" / "pkg" / "mod.py")
    assert session.folder_for(link / "service" / "pkg" / "mod.py") is session.folders[0]
    assert session.folder_for(other_link / "x.py") is session.folders[0]  # not forgotten: not resolved again
