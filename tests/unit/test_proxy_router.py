"""Routing editor requests to children: unsupported features, trigger characters, completion resolve back to
the child that made the item, workspace/symbol merged across children, positions converted both ways."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lintel.core.positions import Unit
from lintel.frontends.relay.client import ChildFailed, ChildSpec, ChildState
from lintel.frontends.relay.encoding import LineCache
from lintel.frontends.relay.manager import Manager
from lintel.frontends.relay.marks import MARKER
from lintel.frontends.relay.router import Router
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException

from tests.unit.test_proxy_manager import ROOT, Hooks

TEXT = 'x = "é🍰" name\n'


class ScriptedChild:
    """A running child whose answers a test scripts per method."""

    def __init__(self, spec: ChildSpec, capabilities: types.ServerCapabilities, encoding: Unit = "utf-16") -> None:
        self.spec = spec
        self.state = ChildState.RUNNING
        self.failure: str | None = None
        self.failed_at: float | None = None
        self.encoding = encoding
        self.registered: set[str] = set()
        self.answers: dict[str, Any] = {}
        self.asked: list[tuple[str, Any]] = []
        self._capabilities = capabilities
        self._loaded = asyncio.Event()
        self._loaded.set()  # loaded unless a test says otherwise (`still_loading`)

    def still_loading(self) -> None:
        self._loaded.clear()

    def finish_loading(self) -> None:
        self._loaded.set()

    @property
    def loading(self) -> bool:
        return not self._loaded.is_set()

    async def wait_loaded(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._loaded.wait(), timeout)
        except (asyncio.TimeoutError, TimeoutError):
            return False
        return True

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def capabilities(self) -> types.ServerCapabilities:
        return self._capabilities

    @property
    def sync_kind(self) -> types.TextDocumentSyncKind:
        return types.TextDocumentSyncKind.Incremental

    @property
    def save_includes_text(self) -> bool:
        return False

    async def start(self) -> None:
        self.state = ChildState.RUNNING

    async def request(self, method: str, params: Any) -> Any:
        self.asked.append((method, params))
        answer = self.answers.get(method)
        if isinstance(answer, BaseException):
            raise answer
        return answer() if callable(answer) else answer

    def send(self, method: str, params: Any, on_answer: Any) -> Any:
        self.asked.append((method, params))
        answer = self.answers.get(method)
        if isinstance(answer, BaseException):
            on_answer(None, answer)
        else:
            on_answer(answer() if callable(answer) else answer, None)
        return lambda: None

    def notify(self, method: str, params: Any) -> None:
        return None

    async def stop(self) -> None:
        self.state = ChildState.STOPPED

    def kill(self) -> None:
        return None


CAPABILITIES = types.ServerCapabilities(
    hover_provider=True,
    definition_provider=True,
    completion_provider=types.CompletionOptions(trigger_characters=["."], resolve_provider=True),
    signature_help_provider=types.SignatureHelpOptions(trigger_characters=["("]),
    workspace_symbol_provider=True,
)


class Setup:
    def __init__(self, editor: Unit = "utf-16", child: Unit = "utf-16") -> None:
        self.hooks = Hooks(encoding=editor)
        self.children: dict[str, ScriptedChild] = {}

        def factory(spec: ChildSpec) -> ScriptedChild:
            made = ScriptedChild(spec, CAPABILITIES, child)
            self.children[spec.language] = made
            return made

        self.manager = Manager(factory, self.hooks)
        self.router = Router(
            self.manager, lambda: editor, LineCache(lambda uri: TEXT if uri.endswith("a.go") else None)
        )

    async def child(self, relative: str) -> ScriptedChild:
        self.manager.did_open(self.hooks.open(relative, TEXT))
        found = await self.manager.child_for((ROOT / relative).as_uri())
        assert isinstance(found, ScriptedChild)
        return found


def js(params: Any) -> dict[str, Any]:
    """Params as the editor sent them: the router relays JSON."""
    raw: dict[str, Any] = get_converter().unstructure(params)
    return raw


def position_params(relative: str, character: int) -> dict[str, Any]:
    return js(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=(ROOT / relative).as_uri()),
            position=types.Position(line=0, character=character),
            work_done_token="editor-token",
        )
    )


async def test_a_request_goes_to_the_files_child_and_its_result_comes_back_as_sent() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    go.answers[types.TEXT_DOCUMENT_HOVER] = {"contents": "x", "x-unknown": [1]}
    result = await setup.router.forward(
        types.TEXT_DOCUMENT_HOVER, position_params("api/a.go", 8), (ROOT / "api/a.go").as_uri()
    )
    assert result == {"contents": "x", "x-unknown": [1]}
    [(method, sent)] = go.asked
    assert method == types.TEXT_DOCUMENT_HOVER
    assert sent["position"] == {"line": 0, "character": 8}
    assert "workDoneToken" not in sent  # progress on the editor's token is not relayed


async def test_positions_are_converted_both_ways_when_encodings_differ() -> None:
    setup = Setup(editor="utf-8", child="utf-16")
    go = await setup.child("api/a.go")
    uri = (ROOT / "api/a.go").as_uri()
    go.answers[types.TEXT_DOCUMENT_DEFINITION] = lambda: [
        {"uri": uri, "range": {"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 12}}}
    ]
    result = await setup.router.forward(types.TEXT_DOCUMENT_DEFINITION, position_params("api/a.go", 11), uri)
    assert go.asked[0][1]["position"]["character"] == 8  # 11 UTF-8 bytes = 8 UTF-16 units on this line
    assert result[0]["range"] == {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 15}}


async def test_unsupported_features_and_foreign_trigger_characters_answer_null_without_asking() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    uri = (ROOT / "api/a.go").as_uri()
    params = js(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert await setup.router.forward(types.TEXT_DOCUMENT_REFERENCES, params, uri) is None
    completion = js(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
            context=types.CompletionContext(
                trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character="<"
            ),
        )
    )
    assert await setup.router.forward(types.TEXT_DOCUMENT_COMPLETION, completion, uri) is None
    signature = js(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
            context=types.SignatureHelpContext(
                trigger_kind=types.SignatureHelpTriggerKind.TriggerCharacter, trigger_character=",", is_retrigger=False
            ),
        )
    )
    assert await setup.router.forward(types.TEXT_DOCUMENT_SIGNATURE_HELP, signature, uri) is None
    assert go.asked == []
    assert (
        await setup.router.forward(types.TEXT_DOCUMENT_HOVER, position_params("nowhere.txt", 0), "file:///x.txt")
        is None
    )


async def test_completion_items_resolve_at_the_child_that_made_them() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    web = await setup.child("web/a.ts")
    go_uri, web_uri = (ROOT / "api/a.go").as_uri(), (ROOT / "web/a.ts").as_uri()
    go.answers[types.TEXT_DOCUMENT_COMPLETION] = {
        "isIncomplete": False,
        "items": [{"label": "Go", "data": 7}, {"label": "Bare"}],
    }
    web.answers[types.TEXT_DOCUMENT_COMPLETION] = [{"label": "Ts", "data": {"file": "a.ts"}}]
    go_list = await setup.router.forward(types.TEXT_DOCUMENT_COMPLETION, completion_params(go_uri), go_uri)
    web_list = await setup.router.forward(types.TEXT_DOCUMENT_COMPLETION, completion_params(web_uri), web_uri)
    web_item = web_list[0]
    assert web_item["data"] == {MARKER: {"child": web.spec.id, "uri": web_uri}, "data": {"file": "a.ts"}}

    web.answers[types.COMPLETION_ITEM_RESOLVE] = {"label": "Ts", "detail": "resolved", "data": {"file": "a.ts"}}
    resolved = await setup.router.resolve({"label": "Ts", "data": web_item["data"]})
    assert web.asked[-1][1]["data"] == {"file": "a.ts"}  # the child gets its own data back
    assert resolved["detail"] == "resolved"
    assert resolved["data"][MARKER]["child"] == web.spec.id
    assert [m for m, _ in go.asked] == [types.TEXT_DOCUMENT_COMPLETION]

    bare = go_list["items"][1]
    go.answers[types.COMPLETION_ITEM_RESOLVE] = {"label": "Bare", "detail": "go"}
    resolved = await setup.router.resolve({"label": "Bare", "data": bare["data"]})
    assert "data" not in go.asked[-1][1]
    assert resolved["detail"] == "go"
    foreign = {"label": "lintel's own", "data": {"x": 1}}
    assert await setup.router.resolve(foreign) is foreign


def completion_params(uri: str) -> dict[str, Any]:
    return js(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)
        )
    )


async def test_workspace_symbol_merges_every_running_child_and_skips_a_failing_one() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    web = await setup.child("web/a.ts")
    py = await setup.child("py/a.py")
    go.answers[types.WORKSPACE_SYMBOL] = [{"name": "Port", "kind": 12, "location": {"uri": "file:///g.go"}}]
    web.answers[types.WORKSPACE_SYMBOL] = [{"name": "Price", "kind": 11, "location": {"uri": "file:///p.ts"}}]
    py.answers[types.WORKSPACE_SYMBOL] = ChildFailed("basedpyright-langserver was killed by SIGKILL")
    merged = await setup.router.workspace_symbol({"query": "P"})
    assert sorted(s["name"] for s in merged) == ["Port", "Price"]


async def test_a_child_failing_mid_request_reaches_the_editor_as_an_error() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    go.answers[types.TEXT_DOCUMENT_HOVER] = ChildFailed("gopls was killed by SIGKILL")
    with pytest.raises(ChildFailed, match="gopls was killed by SIGKILL") as failure:
        await asyncio.wait_for(
            setup.router.forward(
                types.TEXT_DOCUMENT_HOVER, position_params("api/a.go", 0), (ROOT / "api/a.go").as_uri()
            ),
            1,
        )
    assert failure.value.code == -32803


async def test_a_command_goes_to_the_child_that_offers_it_and_names_its_files() -> None:
    setup = Setup()
    api = await setup.child("api/a.go")
    other = await setup.child("other/b.go")
    web = await setup.child("web/a.ts")
    offering = types.ExecuteCommandOptions(commands=["gopls.tidy"])
    for go in (api, other):
        go._capabilities = types.ServerCapabilities(execute_command_provider=offering)
    web._capabilities = types.ServerCapabilities(execute_command_provider=types.ExecuteCommandOptions(commands=["ts"]))
    arguments = [{"URIs": [(ROOT / "other/go.mod").as_uri()]}]
    assert setup.router.command_owner("gopls.tidy", arguments) is other
    assert setup.router.command_owner("gopls.tidy", [{"URIs": [(ROOT / "api/go.mod").as_uri()]}]) is api
    assert setup.router.command_owner("gopls.tidy", None) in (api, other)  # no file named: either will do
    assert setup.router.command_owner("ts", []) is web
    assert setup.router.command_owner("nobody", []) is None
    other.answers[types.WORKSPACE_EXECUTE_COMMAND] = {"done": True}
    assert await setup.router.execute_command(other, "gopls.tidy", arguments) == {"done": True}
    assert other.asked[-1] == (types.WORKSPACE_EXECUTE_COMMAND, {"command": "gopls.tidy", "arguments": arguments})


# -- a child still loading its workspace ----------------------------------------------------------------------


def reference_params(uri: str) -> dict[str, Any]:
    return js(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=1),
            context=types.ReferenceContext(include_declaration=True),
        )
    )


LOCATION = {
    "uri": (ROOT / "py/b.py").as_uri(),
    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
}


async def loading_child(setup: Setup) -> tuple[ScriptedChild, str]:
    py = await setup.child("py/a.py")
    py._capabilities = types.ServerCapabilities(
        hover_provider=True, references_provider=True, rename_provider=True, workspace_symbol_provider=True
    )
    py.answers[types.TEXT_DOCUMENT_REFERENCES] = [LOCATION]
    py.answers[types.TEXT_DOCUMENT_HOVER] = {"contents": "x"}
    py.answers[types.WORKSPACE_SYMBOL] = [{"name": "total", "kind": 12, "location": LOCATION}]
    py.still_loading()
    return py, (ROOT / "py/a.py").as_uri()


async def test_cross_file_requests_wait_until_the_child_has_loaded_its_workspace() -> None:
    setup = Setup()
    py, uri = await loading_child(setup)

    # A request about one position is answered at once, on the fast path too.
    answered: list[Any] = []
    hover = position_params("py/a.py", 0)
    assert setup.router.forward_now(types.TEXT_DOCUMENT_HOVER, hover, uri, lambda r, e: answered.append(r)) is not None
    assert answered == [{"contents": "x"}]
    # references is not taken by the fast path while the child loads: forward() holds it.
    assert (
        setup.router.forward_now(types.TEXT_DOCUMENT_REFERENCES, reference_params(uri), uri, lambda r, e: None) is None
    )
    held = asyncio.ensure_future(setup.router.forward(types.TEXT_DOCUMENT_REFERENCES, reference_params(uri), uri))
    symbols = asyncio.ensure_future(setup.router.workspace_symbol({"query": "tot"}))
    for _ in range(20):  # every turn either could take to be answered, were it not held
        await asyncio.sleep(0)
    assert not held.done()
    assert not symbols.done()
    assert [m for m, _ in py.asked] == [types.TEXT_DOCUMENT_HOVER]

    py.finish_loading()
    assert await asyncio.wait_for(held, 1) == [LOCATION]
    assert [s["name"] for s in await asyncio.wait_for(symbols, 1)] == ["total"]
    assert [m for m, _ in py.asked] == [
        types.TEXT_DOCUMENT_HOVER,
        types.TEXT_DOCUMENT_REFERENCES,
        types.WORKSPACE_SYMBOL,
    ]


async def test_a_child_that_never_signals_is_asked_after_the_wait() -> None:
    setup = Setup()
    setup.router = Router(setup.manager, lambda: "utf-16", LineCache(lambda uri: TEXT), load_wait=0.05)
    py, uri = await loading_child(setup)
    started = asyncio.get_running_loop().time()
    assert await asyncio.wait_for(
        setup.router.forward(types.TEXT_DOCUMENT_REFERENCES, reference_params(uri), uri), 2
    ) == [LOCATION]
    assert asyncio.get_running_loop().time() - started >= 0.05
    assert py.loading  # the answer went out all the same; the child is still taken as loading


async def test_a_document_changed_while_its_request_waited_is_answered_content_modified() -> None:
    texts = {"now": TEXT}
    setup = Setup()
    setup.router = Router(setup.manager, lambda: "utf-16", LineCache(lambda uri: texts["now"]))
    py, uri = await loading_child(setup)
    held = asyncio.ensure_future(setup.router.forward(types.TEXT_DOCUMENT_RENAME, reference_params(uri), uri))
    await asyncio.sleep(0.05)
    texts["now"] = "y" + TEXT  # the editor's change reached the child; the held positions were for the old text
    py.finish_loading()
    with pytest.raises(JsonRpcException) as modified:
        await asyncio.wait_for(held, 1)
    assert modified.value.code == -32801
    assert [m for m, _ in py.asked] == []


async def test_a_held_request_fails_at_once_when_the_child_stops() -> None:
    setup = Setup()
    py, uri = await loading_child(setup)
    py.answers[types.TEXT_DOCUMENT_REFERENCES] = ChildFailed("basedpyright-langserver was stopped")
    held = asyncio.ensure_future(setup.router.forward(types.TEXT_DOCUMENT_REFERENCES, reference_params(uri), uri))
    await asyncio.sleep(0.05)
    py.finish_loading()  # what ChildClient does when it stops or fails
    with pytest.raises(ChildFailed, match="was stopped"):
        await asyncio.wait_for(held, 1)
