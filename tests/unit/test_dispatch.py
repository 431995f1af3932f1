"""lintel's one dispatcher (lintel.frontends.lsp.dispatch): every route bound once, inline requests cancelled under
the editor's own id and answered once, results structured or sent as they are, routes not advertised to a client
left to pygls, and stdin that is not a pipe read into the same table."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.lsp.advertised import ROUTES, Route
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.dispatch import Dispatcher
from lintel.frontends.lsp.wiring import create_server
from lsprotocol import types

REQUEST_CANCELLED = -32800
METHOD_NOT_FOUND = -32601


def frames(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(body) for body in re.split(rb"Content-Length: \d+\r\n(?:[^\r\n]+\r\n)*\r\n", data) if body]


class Collect:
    """A writer keeping what the server sends (framed, as lintel writes it)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.extend(frames(data))

    def close(self) -> None:
        pass


def serving(routes: list[Route]) -> tuple[LintelServer, Dispatcher, Collect]:
    server = LintelServer()
    out = Collect()
    server.protocol.set_writer(out)
    return server, Dispatcher(server, routes), out


def test_a_feature_binds_exactly_its_routes_once() -> None:
    server = LintelServer()
    table = Dispatcher(server, ROUTES)
    with pytest.raises(ValueError, match="codeactions binds"):
        table.bind("codeactions", {types.TEXT_DOCUMENT_CODE_ACTION: lambda params: None})  # resolve left unbound
    with pytest.raises(ValueError, match="diagnostics binds"):
        table.bind("diagnostics", {types.TEXT_DOCUMENT_DIAGNOSTIC: _nothing, "lintel/unrouted": _nothing})
    table.bind("diagnostics", {types.TEXT_DOCUMENT_DIAGNOSTIC: _nothing})
    with pytest.raises(ValueError, match="bound twice"):
        table.bind("diagnostics", {types.TEXT_DOCUMENT_DIAGNOSTIC: _nothing})
    assert [route.method for route in table.bound()] == [types.TEXT_DOCUMENT_DIAGNOSTIC]


async def _nothing(params: Any) -> None:
    return None


async def test_an_inline_request_is_cancelled_under_the_editor_s_id_and_answered_once() -> None:
    _, table, out = serving([Route("test/inline", "test", run="inline", raw=True)])
    replies: list[Callable[[Any, BaseException | None], None]] = []
    cancelled: list[int] = []

    def handler(params: Any, reply: Callable[[Any, BaseException | None], None]) -> Callable[[], None]:
        replies.append(reply)
        return lambda: cancelled.append(params["n"])

    table.bind("test", {"test/inline": handler})
    assert table.serve({"jsonrpc": "2.0", "id": 7, "method": "test/inline", "params": {"n": 1}}, "test/inline")
    assert table.serve({"jsonrpc": "2.0", "id": "7", "method": "test/inline", "params": {"n": 2}}, "test/inline")
    assert table.serve({"jsonrpc": "2.0", "method": types.CANCEL_REQUEST, "params": {"id": 7}}, types.CANCEL_REQUEST)
    assert cancelled == [1]  # 7, not "7"
    replies[0]({"late": True}, None)  # the handler's answer after the cancel is not sent
    replies[1]({"n": 2}, None)
    assert out.sent == [
        {"jsonrpc": "2.0", "id": 7, "error": {"code": REQUEST_CANCELLED, "message": 'Request with id "7" is canceled'}},
        {"jsonrpc": "2.0", "id": "7", "result": {"n": 2}},
    ]
    # An id no route is serving is pygls's to cancel.
    assert not table.serve(
        {"jsonrpc": "2.0", "method": types.CANCEL_REQUEST, "params": {"id": 8}}, types.CANCEL_REQUEST
    )


async def test_an_inline_request_that_returns_a_coroutine_is_finished_by_a_task() -> None:
    _, table, out = serving([Route("test/later", "test", run="inline", raw=True)])

    async def later(params: Any) -> Any:
        await asyncio.sleep(0)
        return [params["n"]]

    table.bind("test", {"test/later": lambda params, reply: later(params)})
    table.serve({"jsonrpc": "2.0", "id": 1, "method": "test/later", "params": {"n": 3}}, "test/later")
    for _ in range(5):
        await asyncio.sleep(0)
    assert out.sent == [{"jsonrpc": "2.0", "id": 1, "result": [3]}]


async def test_a_typed_route_gets_lsprotocol_params_and_its_result_goes_out_as_lsp_json() -> None:
    _, table, out = serving([Route(types.TEXT_DOCUMENT_HOVER, "test")])
    seen: list[types.HoverParams] = []

    async def hover(params: types.HoverParams) -> types.Hover:
        seen.append(params)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="**x**"))

    table.bind("test", {types.TEXT_DOCUMENT_HOVER: hover})
    params = {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 1, "character": 2}}
    table.serve(
        {"jsonrpc": "2.0", "id": 3, "method": types.TEXT_DOCUMENT_HOVER, "params": params}, "textDocument/hover"
    )
    for _ in range(5):
        await asyncio.sleep(0)
    assert seen == [
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri="file:///a.py"), position=types.Position(line=1, character=2)
        )
    ]
    assert out.sent == [{"jsonrpc": "2.0", "id": 3, "result": {"contents": {"kind": "markdown", "value": "**x**"}}}]


async def test_a_route_not_advertised_to_the_client_is_left_to_pygls(tmp_path: Path) -> None:
    """Pull diagnostics are served only to the clients told of them (advertised.wants_pull)."""
    server = create_server()
    out = Collect()
    server.protocol.set_writer(out)

    def send(message: dict[str, Any]) -> None:
        server._on_message(json.dumps({"jsonrpc": "2.0", **message}).encode())

    send({"id": 1, "method": types.INITIALIZE, "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()}})
    send({"method": types.INITIALIZED, "params": {}})
    assert types.TEXT_DOCUMENT_DIAGNOSTIC in {route.method for route in server.routes.bound()}
    uri = (tmp_path / "a.py").as_uri()
    send({"id": 2, "method": types.TEXT_DOCUMENT_DIAGNOSTIC, "params": {"textDocument": {"uri": uri}}})
    [answer] = [m for m in out.sent if m.get("id") == 2]
    assert answer["error"]["code"] == METHOD_NOT_FOUND
    assert "diagnosticProvider" not in out.sent[0]["result"]["capabilities"]


def test_stdin_that_is_not_a_pipe_is_served_by_the_same_routes(tmp_path: Path) -> None:
    """A regular file as stdin (asyncio cannot watch it): read on a thread into the same reader and table."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        # A relayed request on a file of no language: answered by navigation's route (no child to ask).
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": (tmp_path / "a.txt").as_uri()}, "position": {"line": 0}},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    stdin = tmp_path / "stdin"
    stdin.write_bytes(b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in map(_json, messages)))
    with stdin.open("rb") as source:
        proc = subprocess.run(
            [sys.executable, "-m", "lintel", "serve"], stdin=source, capture_output=True, timeout=120, check=False
        )
    answers = {m["id"]: m for m in frames(proc.stdout) if "id" in m}
    assert "capabilities" in answers[1]["result"]
    assert answers[2]["error"]["code"] == -32602  # params.position without a character: the route's own check
    assert proc.returncode == 0  # the end of the file ends the session


def _json(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()
