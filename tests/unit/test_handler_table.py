"""lintel's server forgets the handlers pygls would keep forever (lintel.frontends.lsp.pyglscompat.FinishedHandlers):
found by
bench/soak.py, where save storms grew lintel's RSS with every document notification."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lintel.frontends.lsp.pyglscompat import FINISHED_HANDLERS_FLOOR
from lintel.frontends.lsp.wiring import create_server
from lsprotocol import types

from tests.helpers import MessageRecorder


async def test_a_thousand_document_notifications_leave_the_handler_table_small(tmp_path: Path) -> None:
    server = create_server()
    out = MessageRecorder()
    server.protocol.set_writer(out, include_headers=False)

    def send(message: dict[str, Any]) -> None:
        server._on_message(json.dumps({"jsonrpc": "2.0", **message}).encode())

    # A folder with no project and a file of no language: the notifications run lintel's handlers, no tool.
    root = tmp_path.as_uri()
    uri = (tmp_path / "notes.txt").as_uri()
    send({"id": 1, "method": types.INITIALIZE, "params": {"capabilities": {}, "rootUri": root}})
    send({"method": types.INITIALIZED, "params": {}})
    send(
        {
            "method": types.TEXT_DOCUMENT_DID_OPEN,
            "params": {"textDocument": {"uri": uri, "languageId": "plaintext", "version": 1, "text": ""}},
        }
    )
    for version in range(2, 502):
        change = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": f"v{version}"}]}
        send({"method": types.TEXT_DOCUMENT_DID_CHANGE, "params": change})
        send({"method": types.TEXT_DOCUMENT_DID_SAVE, "params": {"textDocument": {"uri": uri}}})
        await asyncio.sleep(0)
    for _ in range(20):
        await asyncio.sleep(0)

    assert (out.messages[0]["id"], "result" in out.messages[0]) == (1, True)
    # Without the sweep: ~1,500 (two per didChange, one per didSave), every one finished.
    assert len(server.protocol._request_futures) < 2 * FINISHED_HANDLERS_FLOOR
    send({"id": 2, "method": types.SHUTDOWN})
    for _ in range(20):
        await asyncio.sleep(0)
    assert {"jsonrpc": "2.0", "id": 2, "result": None} in out.messages
