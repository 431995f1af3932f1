"""A child's work-done progress reaches the editor only when it lasts: under a token of lintel's, created
after PROGRESS_DELAY, with what was held meanwhile sent in order (EditorBridge in lintel.frontends.lsp.bridge)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any

import pytest
from lintel.frontends.lsp import bridge as bridge_module
from lintel.frontends.lsp.bridge import EditorBridge
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.runtime.clock import ManualClock
from lsprotocol import types
from pygls.exceptions import JsonRpcException

DELAY = 0.02
CHILD_ID = "python:/w"
BEGIN = {"kind": "begin", "title": "Finding references"}
REPORT_1 = {"kind": "report", "message": "1/3", "percentage": 33}
REPORT_2 = {"kind": "report", "message": "2/3", "percentage": 66}
END = {"kind": "end", "message": "done"}
# What the editor is shown of BEGIN: the work titled with the server's name.
SHOWN_BEGIN = {"kind": "begin", "title": "gopls: Finding references"}


class FakeServer:
    """What EditorBridge uses of LintelServer; the editor's answer to window/workDoneProgress/create is
    `answer`, settled by the test."""

    def __init__(self, *, work_done_progress: bool = True) -> None:
        self.client_capabilities = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=work_done_progress)
        )
        self.session = SimpleNamespace(encoding="utf-16")
        self.workspace = SimpleNamespace(text_documents={})
        self.sent: list[dict[str, Any]] = []
        self.asked: list[types.ProgressToken] = []
        self.asking = asyncio.Event()
        self.answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tasks: list[asyncio.Task[Any]] = []

    def send_json(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.append(task)
        return task

    async def window_work_done_progress_create_async(self, params: types.WorkDoneProgressCreateParams) -> None:
        self.asked.append(params.token)
        self.asking.set()
        await self.answer

    async def settled(self) -> None:
        """Wait for what the bridge started in the background (asking the editor)."""
        await asyncio.gather(*self.tasks)

    def progress_sent(self) -> list[tuple[str, Any]]:
        assert all(m["method"] == types.PROGRESS and m["jsonrpc"] == "2.0" for m in self.sent), self.sent
        return [(m["params"]["token"], m["params"]["value"]) for m in self.sent]


def child(child_id: str = CHILD_ID) -> Any:
    return SimpleNamespace(spec=SimpleNamespace(id=child_id), name="gopls")


@pytest.fixture(autouse=True)
def short_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge_module, "PROGRESS_DELAY", DELAY)


async def past_the_delay() -> None:
    """Return once every PROGRESS_DELAY timer started so far has fired: a timer started now is due at the same
    time or later, and the loop runs all the due timers of a turn before the turn that resumes this task."""
    loop = asyncio.get_running_loop()
    fired = loop.create_future()
    loop.call_later(bridge_module.PROGRESS_DELAY, fired.set_result, None)
    await fired


def progress(bridge: EditorBridge, token: str | int, value: Any, source: Any = None) -> None:
    bridge.progress(source or child(), {"token": token, "value": value})


async def test_progress_that_ends_within_the_delay_never_reaches_the_editor() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    bridge.create_progress(child(), "quick")
    progress(bridge, "quick", BEGIN)
    progress(bridge, "quick", REPORT_1)
    progress(bridge, "quick", END)
    await past_the_delay()
    assert server.asked == []
    assert server.tasks == []
    assert server.sent == []
    progress(bridge, "quick", REPORT_2)  # forgotten with its end
    assert server.sent == []


async def test_lasting_progress_is_announced_then_relayed_in_order_and_forgotten_after_its_end() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    bridge.create_progress(child(), "slow")
    progress(bridge, "slow", BEGIN)
    await server.asking.wait()  # the delay passed with the progress still going
    assert server.asked == [f"lintel/{CHILD_ID}/1/slow"]
    progress(bridge, "slow", REPORT_1)  # the editor has not answered yet: held too
    assert server.sent == []

    server.answer.set_result(None)
    await server.settled()
    token = f"lintel/{CHILD_ID}/1/slow"
    assert server.progress_sent() == [(token, SHOWN_BEGIN), (token, REPORT_1)]

    progress(bridge, "slow", REPORT_2)  # accepted: relayed at once
    progress(bridge, "slow", END)
    assert server.progress_sent() == [(token, SHOWN_BEGIN), (token, REPORT_1), (token, REPORT_2), (token, END)]

    progress(bridge, "slow", REPORT_1)  # after the end: the token is forgotten
    assert len(server.sent) == 4
    assert server.asked == [token]  # asked once


async def test_an_end_held_while_the_editor_is_asked_is_sent_and_the_token_forgotten() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    bridge.create_progress(child(), 7)  # tokens may be integers
    progress(bridge, 7, BEGIN)
    await server.asking.wait()
    progress(bridge, 7, END)
    server.answer.set_result(None)
    await server.settled()
    token = f"lintel/{CHILD_ID}/1/7"
    assert server.asked == [token]
    assert server.progress_sent() == [(token, SHOWN_BEGIN), (token, END)]
    progress(bridge, 7, REPORT_1)
    assert len(server.sent) == 2


async def test_a_refused_token_drops_its_progress() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    bridge.create_progress(child(), "refused")
    progress(bridge, "refused", BEGIN)
    await server.asking.wait()
    progress(bridge, "refused", REPORT_1)
    server.answer.set_exception(JsonRpcException(message="no progress for you", code=-32603))
    await server.settled()
    progress(bridge, "refused", REPORT_2)
    progress(bridge, "refused", END)
    assert server.sent == []


async def test_only_the_lasting_one_of_two_tokens_is_shown_and_children_keep_their_own_tokens() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    other = child("go:/w")
    bridge.create_progress(child(), "1")
    bridge.create_progress(other, "1")  # the same token from another child
    progress(bridge, "1", BEGIN)
    progress(bridge, "1", BEGIN, other)
    progress(bridge, "1", END)  # the python child's is over at once
    await server.asking.wait()
    server.answer.set_result(None)
    await past_the_delay()
    await server.settled()
    assert server.asked == ["lintel/go:/w/2/1"]
    assert server.progress_sent() == [("lintel/go:/w/2/1", SHOWN_BEGIN)]


async def test_progress_for_a_token_the_child_did_not_create_is_dropped() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    progress(bridge, "a-request-token", BEGIN)
    bridge.create_progress(child(), "created")
    progress(bridge, "created", BEGIN, child("rust:/w"))  # the same token, another child
    await server.asking.wait()
    assert server.asked == [f"lintel/{CHILD_ID}/1/created"]
    server.answer.set_result(None)
    await server.settled()
    assert server.sent == []  # the python child's token began nothing yet


async def test_an_editor_without_work_done_progress_hears_nothing() -> None:
    server = FakeServer(work_done_progress=False)
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    bridge.create_progress(child(), "t")
    progress(bridge, "t", BEGIN)
    await past_the_delay()
    progress(bridge, "t", END)
    assert server.tasks == []  # the editor is not asked
    assert server.sent == []


async def test_a_token_used_again_waits_its_own_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bridge_module, "PROGRESS_DELAY", 0.2)
    server = FakeServer()
    clock = ManualClock()
    bridge = EditorBridge(server, Diagnostics(server), clock)  # type: ignore[arg-type]
    bridge.create_progress(child(), "tok")
    progress(bridge, "tok", BEGIN)
    progress(bridge, "tok", END)
    await clock.advance(0.15)
    bridge.create_progress(child(), "tok")  # the first use's timer would fire 0.05 s from now
    progress(bridge, "tok", BEGIN)
    await clock.advance(0.1)
    progress(bridge, "tok", END)  # 0.1 s after it began: within its own delay
    await clock.advance(0.2)
    assert server.asked == []
    assert server.sent == []


async def test_a_childs_int_and_string_tokens_stay_apart() -> None:
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    bridge.create_progress(child(), 1)
    bridge.create_progress(child(), "1")
    progress(bridge, 1, BEGIN)
    progress(bridge, "1", BEGIN)
    await past_the_delay()
    await server.asking.wait()
    server.answer.set_result(None)
    await server.settled()
    assert sorted(server.asked) == [f"lintel/{CHILD_ID}/1/1", f"lintel/{CHILD_ID}/2/1"]


async def test_a_token_reused_after_its_end_gets_a_new_editor_token() -> None:
    """rust-analyzer creates "rustAnalyzer/Fetching" again for each fetch; the editor must not see it twice."""
    server = FakeServer()
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    server.answer.set_result(None)
    for _ in range(2):
        bridge.create_progress(child(), "rustAnalyzer/Fetching")
        progress(bridge, "rustAnalyzer/Fetching", BEGIN)
        await past_the_delay()
        await server.settled()
        progress(bridge, "rustAnalyzer/Fetching", END)
    assert server.asked == [f"lintel/{CHILD_ID}/1/rustAnalyzer/Fetching", f"lintel/{CHILD_ID}/2/rustAnalyzer/Fetching"]
    assert [token for token, _ in server.progress_sent()] == [server.asked[0]] * 2 + [server.asked[1]] * 2


# -- window/showDocument --------------------------------------------------------------------------------------


class ShowingServer(FakeServer):
    def __init__(self, *, support: bool, encoding: str = "utf-16") -> None:
        super().__init__()
        self.client_capabilities = types.ClientCapabilities(
            window=types.WindowClientCapabilities(show_document=types.ShowDocumentClientCapabilities(support=support))
        )
        self.session = SimpleNamespace(encoding=encoding)
        self.shown: list[types.ShowDocumentParams] = []

    async def window_show_document_async(self, params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        self.shown.append(params)
        return types.ShowDocumentResult(success=True)


def show(uri: str, character: int) -> types.ShowDocumentParams:
    position = types.Position(line=0, character=character)
    return types.ShowDocumentParams(uri=uri, take_focus=True, selection=types.Range(start=position, end=position))


async def test_show_document_reaches_an_editor_that_can_with_the_selection_in_its_encoding(tmp_path: Any) -> None:
    source = tmp_path / "a.go"
    source.write_text('s := "é🍰" + name\n', encoding="utf-8")
    server = ShowingServer(support=True, encoding="utf-8")
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    go = SimpleNamespace(spec=SimpleNamespace(id="go:/w"), encoding="utf-16")
    result = await bridge.show_document(go, show(source.as_uri(), 12))  # type: ignore[arg-type]
    assert result.success
    [shown] = server.shown
    assert shown.uri == source.as_uri()
    assert shown.take_focus
    assert shown.selection is not None
    assert shown.selection.start.character == 15  # `name`: 12 UTF-16 units, 15 UTF-8 bytes


async def test_show_document_is_declined_for_an_editor_that_cannot() -> None:
    server = ShowingServer(support=False)
    bridge = EditorBridge(server, Diagnostics(server))  # type: ignore[arg-type]
    go = SimpleNamespace(spec=SimpleNamespace(id="go:/w"), encoding="utf-16")
    result = await bridge.show_document(go, show("file:///w/a.go", 0))  # type: ignore[arg-type]
    assert not result.success
    assert server.shown == []
