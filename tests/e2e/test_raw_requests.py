"""The relayed navigation requests lintel serves on their JSON, without pygls (their routes, served by
lintel.frontends.lsp.dispatch): malformed params answered with -32602, garbage on the pipe survived,
`$/cancelRequest` answered with -32800 and passed on to the child. Run against the real `lintel serve` with
VS Code's and Neovim's capabilities."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.e2e.conftest import SERVER_COMMAND, RecordingClient, Start
from tests.e2e.nav_support import QUIET, REQUEST_TIMEOUT, Nav, end_session, target, uris_relative
from tests.helpers import require_tool

INVALID_PARAMS = -32602
REQUEST_CANCELLED = -32800
MODELS = "src/inventory/models.py"

# A language server that tells (window/showMessage, which lintel logs to the editor) what it receives,
# never answers a definition request and answers hover with a fixed text.
# JSON-RPC framing over stdio for the fake servers of the e2e tests (a script's text, not lintel's code).
FRAMING = r"""
import json, sys

def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))

def write(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()

"""

FAKE_SERVER = (
    FRAMING
    + r"""
def tell(text):
    write({"jsonrpc": "2.0", "method": "window/showMessage", "params": {"type": 3, "message": text}})

while (message := read()) is not None:
    method, msg_id = message.get("method"), message.get("id")
    if method == "exit":
        break
    if method == "initialize":
        capabilities = {"definitionProvider": True, "hoverProvider": True, "textDocumentSync": 1}
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"capabilities": capabilities}})
    elif method == "textDocument/definition":
        tell(f"fake received textDocument/definition {msg_id}")  # and never answers
    elif method == "$/cancelRequest":
        tell(f"fake received $/cancelRequest {message['params']['id']}")
    elif method == "textDocument/hover":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"contents": {"kind": "plaintext", "value": "fake hover"}}})
    elif msg_id is not None and method is not None:
        write({"jsonrpc": "2.0", "id": msg_id, "result": None})
"""
)


class WatchingClient(RecordingClient):
    """The e2e client, also able to wait for a window/logMessage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log_waiters: list[tuple[str, asyncio.Future[str]]] = []

    def expect_log(self, contains: str) -> asyncio.Future[str]:
        """The first window/logMessage from now on whose text contains `contains`."""
        waiter: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.log_waiters.append((contains, waiter))
        return waiter


def _log_message(client: WatchingClient, params: types.LogMessageParams) -> None:
    client.log_messages.append(params)
    for contains, waiter in list(client.log_waiters):
        if contains in params.message and not waiter.done():
            waiter.set_result(params.message)
            client.log_waiters.remove((contains, waiter))


def _registration(client: WatchingClient, params: Any) -> None:
    return None  # without a handler the server's request fails the test (PYGLS_NOTES §4)


def make_client() -> WatchingClient:
    client = WatchingClient(converter_factory=default_converter)
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.WINDOW_LOG_MESSAGE: _log_message,
            types.CLIENT_REGISTER_CAPABILITY: _registration,
            types.CLIENT_UNREGISTER_CAPABILITY: _registration,
        },
    )
    return client


@pytest_asyncio.fixture
async def lsp(server_env: dict[str, str]) -> AsyncIterator[WatchingClient]:
    """conftest's `lsp` (which `start` uses) with the log-watching client."""
    config = ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, WatchingClient)
    yield client
    await end_session(client)


@pytest.fixture
def fake_server(tmp_path: Path) -> dict[str, Any]:
    """initializationOptions that make the fake above python's language server."""
    script = tmp_path / "fake_language_server.py"
    script.write_text(FAKE_SERVER, encoding="utf-8")
    return {**QUIET, "languages": {"python": {"server": [sys.executable, str(script)]}}}


# -- talking to the pipe directly -------------------------------------------------------------------------


def send_body(client: WatchingClient, body: bytes) -> None:
    """One framed message on lintel's stdin, whatever the body (pygls's client would only send valid ones)."""
    writer = client.protocol.writer
    assert writer is not None
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


async def raw_request(client: WatchingClient, method: str, params: Any) -> Any:
    """A request with `params` as given (pygls's client cannot send raw params for a method it knows); the
    answer's error is raised as a JsonRpcException."""
    msg_id = f"raw-{uuid.uuid4()}"
    answer: Future[Any] = Future()
    client.protocol._request_futures[msg_id] = answer  # settled by pygls's reader
    send_body(client, json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode())
    return await asyncio.wait_for(asyncio.wrap_future(answer), REQUEST_TIMEOUT)


async def invalid_params(client: WatchingClient, method: str, params: Any) -> str:
    """The message of the -32602 answer to `method` with `params`."""
    with pytest.raises(JsonRpcException) as caught:
        await raw_request(client, method, params)
    assert caught.value.code == INVALID_PARAMS, f"{method} {params!r}: {caught.value.code} {caught.value.message}"
    return caught.value.message


async def fake_hover(client: WatchingClient, uri: str) -> str:
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=1)
            )
        ),
        REQUEST_TIMEOUT,
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent), hover
    return hover.contents.value


# -- tests ------------------------------------------------------------------------------------------------


async def test_definition_without_a_position_is_invalid_params_and_the_next_one_is_answered(start: Start) -> None:
    require_tool("basedpyright-langserver", "pip install basedpyright (a dev dependency of lintel)")
    editor = await start("python", init_options=QUIET, real_language_servers=True)
    client = editor.client
    assert isinstance(client, WatchingClient)
    assert client._server is not None  # pygls's handle on the server process, set by start_io
    nav = Nav(client=client, roots=editor.roots, result=editor.result, server_pid=client._server.pid)
    uri = nav.open("tests/test_models.py")

    message = await invalid_params(client, types.TEXT_DOCUMENT_DEFINITION, {"textDocument": {"uri": uri}})
    assert "textDocument/definition" in message
    assert "position" in message

    [definition] = await nav.definition("tests/test_models.py", "restock(item, 2)", "restock")
    assert uris_relative(nav.roots, [target(definition)[0]]) == {MODELS}


async def test_malformed_params_are_answered_with_invalid_params(start: Start, fake_server: dict[str, Any]) -> None:
    editor = await start("python", init_options=fake_server)
    client = editor.client
    assert isinstance(client, WatchingClient)
    uri = editor.open(MODELS)
    document = {"uri": uri}
    cases: list[tuple[str, Any, str]] = [
        (types.TEXT_DOCUMENT_HOVER, {"textDocument": document, "position": {"line": "3", "character": 0}}, "position"),
        (types.TEXT_DOCUMENT_HOVER, {"textDocument": document, "position": {"line": -1, "character": 0}}, "position"),
        (types.TEXT_DOCUMENT_HOVER, {"textDocument": document, "position": {"line": True, "character": 0}}, "position"),
        (types.TEXT_DOCUMENT_DEFINITION, {"position": {"line": 0, "character": 0}}, "textDocument.uri"),
        (types.TEXT_DOCUMENT_REFERENCES, {"textDocument": {"uri": 7}, "position": {"line": 0, "character": 0}}, "uri"),
        (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, "textDocument.uri"),
        (types.TEXT_DOCUMENT_RENAME, [uri, 0, 0], "textDocument.uri"),
        (types.WORKSPACE_SYMBOL, {}, "query"),
        (types.WORKSPACE_SYMBOL, {"query": 5}, "query"),
        (types.COMPLETION_ITEM_RESOLVE, {"kind": 3}, "label"),
        # Not served raw: pygls cannot structure it, and that is answered too.
        (types.WORKSPACE_EXECUTE_COMMAND, {"arguments": []}, ""),
    ]
    for method, params, named in cases:
        message = await invalid_params(client, method, params)
        assert named in message, f"{method} {params!r}: {message!r}"

    assert await fake_hover(client, uri) == "fake hover"  # still serving
    await editor.alive()


async def test_garbage_on_the_pipe_is_logged_and_the_server_keeps_answering(
    start: Start, fake_server: dict[str, Any]
) -> None:
    editor = await start("python", init_options=fake_server)
    client = editor.client
    assert isinstance(client, WatchingClient)
    uri = editor.open(MODELS)
    assert await fake_hover(client, uri) == "fake hover"

    for body in (b"[1,2]", b"{not json", b'"a string"', b"null", b'[{"jsonrpc":"2.0","id":"in-a-batch","method":"x"}]'):
        send_body(client, body)
    writer = client.protocol.writer
    assert writer is not None
    writer.write(b"Content-Type: application/vscode-jsonrpc\r\n\r\n")  # a header block without a length

    assert await fake_hover(client, uri) == "fake hover"
    symbols = client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Item"))
    assert await asyncio.wait_for(symbols, REQUEST_TIMEOUT) == []  # served raw; the fake has no workspace/symbol
    await editor.alive()
    assert client._server is not None
    assert client._server.returncode is None
    assert not [m for m in editor.messages if "Error in server" in m], editor.messages


async def test_cancelling_a_relayed_request_answers_request_cancelled_and_cancels_the_child(
    start: Start, fake_server: dict[str, Any]
) -> None:
    editor = await start("python", init_options=fake_server)
    client = editor.client
    assert isinstance(client, WatchingClient)
    uri = editor.open(MODELS)

    received = client.expect_log("fake received textDocument/definition ")
    msg_id = f"e2e-{uuid.uuid4()}"
    params = types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=18, character=5)
    )
    request = asyncio.ensure_future(
        client.protocol.send_request_async(  # type: ignore[no-untyped-call]  # pytest-lsp's override: unannotated
            types.TEXT_DOCUMENT_DEFINITION, params, msg_id=msg_id
        )
    )
    logged = await asyncio.wait_for(received, REQUEST_TIMEOUT)  # the child has it and will never answer
    child_id = logged.rsplit(" ", 1)[1]
    assert child_id != msg_id  # lintel's own id towards the child
    assert not request.done()

    passed_on = client.expect_log(f"fake received $/cancelRequest {child_id}")
    client.cancel_request(types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(request, 30)
    assert caught.value.code == REQUEST_CANCELLED, caught.value
    await asyncio.wait_for(passed_on, REQUEST_TIMEOUT)

    assert await fake_hover(client, uri) == "fake hover"  # the child and lintel still serve


BAD_BODY = b'{"jsonrpc":"2.0","id":"bad-frame","method":"x"}'
BAD_FRAMES = [
    b"Content-Length: -5\r\n\r\n" + BAD_BODY,
    b"Content-Length: abc\r\n\r\n" + BAD_BODY,
    b"\r\n\r\n" + BAD_BODY,
    b"Content-Length: 0\r\n\r\n" + BAD_BODY,
    b"Content-Length: %d\r\n\r\n" % (len(BAD_BODY) + 40) + BAD_BODY,
    b"Content-Length: %d\r\n\r\n" % (len(BAD_BODY) - 5) + BAD_BODY,
]


async def test_after_each_bad_frame_the_next_requests_are_answered(start: Start, fake_server: dict[str, Any]) -> None:
    """One bad frame used to wedge the connection; the requests after it got no answer."""
    editor = await start("python", init_options=fake_server)
    client = editor.client
    assert isinstance(client, WatchingClient)
    uri = editor.open(MODELS)
    writer = client.protocol.writer
    assert writer is not None
    for bad in BAD_FRAMES:
        writer.write(bad)
        # A frame 40 bytes too long takes the start of the next message with it; lintel gives it back.
        answers = [await fake_hover(client, uri) for _ in range(3)]
        assert answers == ["fake hover"] * 3, bad
