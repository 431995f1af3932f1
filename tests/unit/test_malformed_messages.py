"""Malformed messages from the editor: each is one line of log, never a traceback, and a request
among them is answered; the server serves on."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.wiring import create_server
from lsprotocol import types

from tests.helpers import MessageRecorder

MALFORMED: list[bytes] = [
    b"{not json",
    b"\xff\xfe{}",
    b"[1, 2]",
    b'"a string"',
    json.dumps({"jsonrpc": "2.0", "id": 10, "method": types.TEXT_DOCUMENT_HOVER, "params": "x"}).encode(),
    json.dumps(
        {"jsonrpc": "2.0", "id": 11, "method": types.TEXT_DOCUMENT_HOVER, "params": {"textDocument": {"uri": 5}}}
    ).encode(),
    json.dumps({"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": 5}}).encode(),
    json.dumps({"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE, "params": {"contentChanges": 1}}).encode(),
]


class Recorder(MessageRecorder):
    """Also the framed messages lintel writes itself (LintelServer.send_json)."""

    def write(self, data: bytes) -> None:
        super().write(data.split(b"\r\n\r\n", 1)[-1])


def started(tmp_path: Path) -> tuple[LintelServer, MessageRecorder]:
    server = create_server()
    out = Recorder()
    server.protocol.set_writer(out, include_headers=False)
    send(server, {"id": 1, "method": types.INITIALIZE, "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()}})
    send(server, {"method": types.INITIALIZED, "params": {}})
    return server, out


def send(server: LintelServer, message: dict[str, Any]) -> None:
    server._on_message(json.dumps({"jsonrpc": "2.0", **message}).encode())


async def test_each_malformed_message_is_one_line_of_log_and_requests_are_answered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server, out = started(tmp_path)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        for body in MALFORMED:
            server._on_message(body)
    for _ in range(20):
        await asyncio.sleep(0)
    records = caplog.records
    assert len(records) == len(MALFORMED), [r.getMessage() for r in records]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in records), [r.exc_text for r in records]
    assert "Traceback" not in caplog.text
    answered = {m.get("id") for m in out.messages if "error" in m}
    assert {10, 11} <= answered
    send(server, {"id": 2, "method": types.SHUTDOWN})
    for _ in range(20):
        await asyncio.sleep(0)
    assert {"jsonrpc": "2.0", "id": 2, "result": None} in out.messages


async def test_a_late_answer_to_a_request_lintel_gave_up_on_is_no_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An editor answering a request of lintel's after lintel cancelled it (a timeout): nothing waits for it,
    nothing is logged as an error, and the server serves on."""
    server, out = started(tmp_path)
    waiting = server.protocol.send_request(types.WORKSPACE_CONFIGURATION, types.ConfigurationParams(items=[]))
    waiting.cancel()
    (request,) = [m for m in out.messages if m.get("method") == "workspace/configuration"]
    caplog.clear()
    with caplog.at_level(logging.INFO):
        send(server, {"id": request["id"], "result": [None]})
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    send(server, {"id": 99, "method": types.SHUTDOWN})
    for _ in range(20):
        await asyncio.sleep(0)
    assert {"jsonrpc": "2.0", "id": 99, "result": None} in out.messages
