"""The one request/answer connection (lintel.runtime.rpc) over a real child, in both dialects: answers matched by
id, per-request timeouts on a ManualClock (advanced, never slept on), the child's requests answered through the
callback, cancellation both ways, and every request failed when the child ends."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from lintel.runtime.child_process import ChildProcess
from lintel.runtime.clock import ManualClock
from lintel.runtime.rpc import Callbacks, Connection, JsonLines, Lsp, RemoteError, RequestTimeout

from tests.unit.fake_lsp import FRAMING

# JSON lines: answers {"id", "echo"} at once, never answers "silent", logs cancels to stderr; greets first.
LINES_CHILD = r"""
import json, sys
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if "cancel" in message:
        print(f"cancelled {message['cancel']}", file=sys.stderr, flush=True)
    elif not message.get("silent"):
        print(json.dumps({"id": message["id"], "echo": message.get("text")}), flush=True)
"""

# LSP: on "ask" it asks lintel "lintel/question" and answers the ask with lintel's answer (or its error); on
# "slow-ask" it asks "lintel/slow" and then cancels that; "hover" is answered, "definition" never.
LSP_CHILD = (
    r"""
import json, sys
out = sys.stdout.buffer
"""
    + FRAMING
    + r"""
waiting = {}
while True:
    message = read()
    method, msg_id = message.get("method"), message.get("id")
    if method == "ask":
        send({"jsonrpc": "2.0", "id": "q1", "method": "lintel/question", "params": {"n": 2}})
        waiting["q1"] = msg_id
    elif method == "slow-ask":
        send({"jsonrpc": "2.0", "id": "q2", "method": "lintel/slow", "params": None})
        send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "q2"}})
        waiting["q2"] = msg_id
    elif method == "hover":
        send({"jsonrpc": "2.0", "method": "note", "params": {"said": "before"}})
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"x": 1}})
    elif method == "$/cancelRequest":
        sys.stderr.write(f"cancelled {message['params']['id']}\n")
        sys.stderr.flush()
    elif msg_id in waiting:
        send({"jsonrpc": "2.0", "id": waiting.pop(msg_id), "result": message.get("result", message.get("error"))})
"""
)


async def spawn(tmp_path: Path, script: str) -> ChildProcess:
    path = tmp_path / "child.py"
    path.write_text(script, encoding="utf-8")
    return await ChildProcess.spawn(
        [sys.executable, str(path)], cwd=tmp_path, env=None, label="child", tail=deque(maxlen=20)
    )


async def stderr_says(process: ChildProcess, text: str) -> None:
    async def said() -> None:
        while not any(text in line for line in process.tail):  # noqa: ASYNC110 - another process's output
            await asyncio.sleep(0.01)

    await asyncio.wait_for(said(), 10)


async def test_json_lines_answers_by_id_and_times_out_on_the_clock(tmp_path: Path) -> None:
    process = await spawn(tmp_path, LINES_CHILD)
    clock = ManualClock()
    greetings: list[Any] = []
    connection = Connection(
        process,
        JsonLines(2**20),
        label="child",
        failed=RuntimeError,
        callbacks=Callbacks(on_notification=lambda method, message: greetings.append(message)),
        clock=clock,
    )
    await connection.open()
    try:
        first = connection.request("", {"text": "one"}, timeout=5)
        second = connection.request("", {"text": "two"}, timeout=5)
        assert await asyncio.wait_for(second, 10) == {"id": 2, "echo": "two"}
        assert await asyncio.wait_for(first, 10) == {"id": 1, "echo": "one"}
        assert greetings == [{"ready": True}]

        silent = asyncio.ensure_future(connection.request("", {"silent": True}, timeout=5))
        await clock.advance(4.9)
        assert not silent.done()
        await clock.advance(0.1)
        with pytest.raises(RequestTimeout) as timeout:
            await silent
        assert timeout.value.seconds == 5
        await stderr_says(process, "cancelled 3")  # withdrawn in the child's own way
    finally:
        await process.stop()
        await process.finish()


async def test_every_request_fails_when_the_child_ends(tmp_path: Path) -> None:
    process = await spawn(tmp_path, LINES_CHILD)
    ended: list[str] = []

    def on_end(how: str) -> None:
        ended.append(how)
        connection.fail(f"child {how}")

    connection = Connection(
        process, JsonLines(2**20), label="child", failed=RuntimeError, callbacks=Callbacks(on_end=on_end)
    )
    await connection.open()
    try:
        pending = [asyncio.ensure_future(connection.request("", {"silent": True})) for _ in range(3)]
        await asyncio.sleep(0)
        os.kill(process.pid, signal.SIGKILL)
        for request in pending:
            with pytest.raises(RuntimeError, match="child was killed by SIGKILL"):
                await asyncio.wait_for(request, 10)  # only a guard against a hang
        assert ended == ["was killed by SIGKILL"]
        with pytest.raises(RuntimeError, match="child was killed by SIGKILL"):
            connection.request("", {"text": "after"})
    finally:
        await process.stop()
        await process.finish()


async def test_lsp_requests_both_ways_notifications_and_cancellation(tmp_path: Path) -> None:
    process = await spawn(tmp_path, LSP_CHILD)
    notes: list[tuple[str | None, Any]] = []

    async def slow() -> None:
        await asyncio.Event().wait()  # until the child cancels it

    def on_request(method: str, params: Any) -> Any:
        if method == "lintel/question":
            return {"answer": params["n"] * 21}
        if method == "lintel/slow":
            return slow()
        raise RemoteError("no such thing", -32601)

    connection = Connection(
        process,
        Lsp(),
        label="child",
        failed=RuntimeError,
        callbacks=Callbacks(
            on_notification=lambda method, params: notes.append((method, params)), on_request=on_request
        ),
        id_prefix="lintel-",
    )
    await connection.open()
    try:
        assert await asyncio.wait_for(connection.request("hover", {}), 10) == {"x": 1}
        assert notes == [("note", {"said": "before"})]  # in the order the child wrote them
        assert await asyncio.wait_for(connection.request("ask", {}), 10) == {"answer": 42}
        # The child cancels its own request: lintel's handler is cancelled and answers RequestCancelled.
        assert await asyncio.wait_for(connection.request("slow-ask", None), 10) == {
            "code": -32800,
            "message": "cancelled",
        }

        waiting = asyncio.ensure_future(connection.request("definition", {}))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await stderr_says(process, "cancelled lintel-4")
    finally:
        await process.stop()
        await process.finish()


def test_the_dialects_shape_messages() -> None:
    lsp, lines = Lsp(), JsonLines(100)
    assert lsp.request(1, "shutdown", None) == {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}  # no null params
    assert lsp.cancel("lintel-3") == {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "lintel-3"}}
    assert lines.request(7, "", {"file": "a.js"}) == {"file": "a.js", "id": 7}
    assert lines.cancel(7) == {"cancel": 7}
    assert json.loads(lines.encode({"text": "é"})) == {"text": "é"}
    assert lines.encode({"text": "é"}).endswith(b"\n")
