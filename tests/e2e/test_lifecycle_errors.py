"""The lifecycle's errors (issue 13, 2), over raw bytes against the real `lintel serve`: a request before
`initialize` fails with ServerNotInitialized, one after `shutdown` with InvalidRequest, a message that is not
JSON-RPC 2.0 with InvalidRequest — each answered, none left waiting."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lintel.wire import encode

from tests.e2e.conftest import SERVER_COMMAND

SERVER_NOT_INITIALIZED = -32002
INVALID_REQUEST = -32600
TIMEOUT = 30


class Raw:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(encode(message))

    async def answer_to(self, msg_id: int | str) -> dict[str, Any]:
        """The response to `msg_id`; the server's own requests meanwhile are answered with null."""
        assert self.proc.stdout is not None
        while True:
            headers = await asyncio.wait_for(self.proc.stdout.readuntil(b"\r\n\r\n"), TIMEOUT)
            length = int(headers.split(b":")[1].split(b"\r\n")[0])
            message: dict[str, Any] = json.loads(await self.proc.stdout.readexactly(length))
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") == msg_id:
                return message


async def test_requests_outside_the_lifecycle_are_answered_with_the_lsp_errors(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    raw = Raw(proc)
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
        raw.send({"jsonrpc": "2.0", "method": "exit"})
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
