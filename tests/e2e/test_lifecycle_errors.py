"""The lifecycle's errors, over raw bytes against the real `lintel serve`: a request before
`initialize` fails with ServerNotInitialized, one after `shutdown` with InvalidRequest, a message that is not
JSON-RPC 2.0 with InvalidRequest — each answered, none left waiting."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from lintel.runtime.wire import encode

from tests.e2e.conftest import SERVER_COMMAND

SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600
TIMEOUT = 30
TOKEN = "a-test-token-of-the-editor-0123456789"


class Raw:
    """The editor's end of the connection, stdio or TCP, as bytes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | Any) -> None:
        self.reader = reader
        self.writer = writer

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode(message))

    async def answer_to(self, msg_id: int | str) -> dict[str, Any]:
        """The response to `msg_id`; the server's own requests meanwhile are answered with null."""
        while True:
            headers = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), TIMEOUT)
            length = int(headers.split(b":")[1].split(b"\r\n")[0])
            message: dict[str, Any] = json.loads(await self.reader.readexactly(length))
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") == msg_id:
                return message


async def connect(transport: str) -> tuple[asyncio.subprocess.Process, Raw]:
    """`lintel serve` over stdio, or over `--tcp 127.0.0.1:0` (the port it picked is on its stderr)."""
    if transport == "stdio":
        proc = await asyncio.create_subprocess_exec(
            *SERVER_COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        assert proc.stdout is not None
        return proc, Raw(proc.stdout, proc.stdin)
    env = {**os.environ, "LINTEL_TOKEN": TOKEN}
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", "127.0.0.1:0", stderr=asyncio.subprocess.PIPE, env=env
    )
    assert proc.stderr is not None
    line = (await asyncio.wait_for(proc.stderr.readline(), TIMEOUT)).decode()
    assert line.startswith("lintel: serving LSP on 127.0.0.1:"), line
    reader, writer = await asyncio.open_connection("127.0.0.1", int(line.rsplit(":", 1)[1]))
    return proc, Raw(reader, writer)


@pytest.mark.parametrize("transport", ["stdio", "tcp"])
async def test_requests_outside_the_lifecycle_are_answered_with_the_lsp_errors(tmp_path: Path, transport: str) -> None:
    """Over TCP too: pygls's own TCP reader served requests before `initialize` and after `shutdown`."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    proc, raw = await connect(transport)
    hover = {"textDocument": {"uri": (tmp_path / "a.py").as_uri()}, "position": {"line": 0, "character": 0}}
    try:
        raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}})  # dropped, no answer
        raw.send({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": hover})
        assert (await raw.answer_to(1))["error"]["code"] == SERVER_NOT_INITIALIZED

        raw.send({"jsonrpc": "1.0", "id": 2, "method": "initialize", "params": {}})
        answer = await raw.answer_to(2)
        assert answer["error"]["code"] == INVALID_REQUEST
        assert "JSON-RPC 2.0" in answer["error"]["message"]

        init: dict[str, Any] = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        if transport == "tcp":
            init["initializationOptions"] = {"token": TOKEN}
        raw.send({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": init})
        assert (await raw.answer_to(3))["result"]["serverInfo"]["name"] == "lintel"
        raw.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        raw.send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
        assert (await raw.answer_to(4))["result"] is None

        raw.send(
            {"jsonrpc": "2.0", "id": 5, "method": "workspace/executeCommand", "params": {"command": "lintel.detect"}}
        )
        answer = await raw.answer_to(5)
        assert answer["error"]["code"] == INVALID_REQUEST
        assert "shutting down" in answer["error"]["message"]
        raw.send({"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": init})  # was unanswered
        answer = await raw.answer_to(6)
        assert answer["error"]["code"] == INVALID_REQUEST
        assert "shutting down" in answer["error"]["message"]
        raw.send({"jsonrpc": "2.0", "method": "exit"})
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
