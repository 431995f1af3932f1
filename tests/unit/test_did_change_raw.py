"""textDocument/didChange served by lintel's route table (dispatch.py), without pygls's dispatch: the document
changes as pygls would change it (ranges in UTF-16 by default), the child servers (their manager) hear of it,
and a malformed one is logged while the server serves on."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.wiring import create_server
from lintel.frontends.relay.manager import Manager
from lsprotocol import types

from tests.helpers import MessageRecorder


class Listener:
    """Stands in for the child servers' manager, told of each change (documents.handlers' follower)."""

    def __init__(self) -> None:
        self.changes: list[tuple[int, str]] = []

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self.changes.append((params.text_document.version, type(params.content_changes[0]).__name__))


def started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[LintelServer, MessageRecorder, Listener]:
    server = create_server()
    out = MessageRecorder()
    server.protocol.set_writer(out, include_headers=False)
    listener = Listener()
    monkeypatch.setattr(Manager, "did_change", lambda manager, params: listener.did_change(params))
    send(server, {"id": 1, "method": types.INITIALIZE, "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()}})
    send(server, {"method": types.INITIALIZED, "params": {}})
    return server, out, listener


def send(server: LintelServer, message: dict[str, Any]) -> None:
    server._on_message(json.dumps({"jsonrpc": "2.0", **message}).encode())


def change(uri: str, version: int, *changes: dict[str, Any]) -> dict[str, Any]:
    return {
        "method": types.TEXT_DOCUMENT_DID_CHANGE,
        "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": list(changes)},
    }


def ranged(start: tuple[int, int], end: tuple[int, int], text: str) -> dict[str, Any]:
    return {
        "range": {
            "start": {"line": start[0], "character": start[1]},
            "end": {"line": end[0], "character": end[1]},
        },
        "text": text,
    }


async def test_ranged_and_whole_changes_change_the_document_as_pygls_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _, listener = started(tmp_path, monkeypatch)
    uri = (tmp_path / "notes.txt").as_uri()
    document = {"uri": uri, "languageId": "plaintext", "version": 1, "text": "a😀b\nline two\n"}
    send(server, {"method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": document}})
    handlers = len(server.protocol._request_futures)
    # UTF-16 positions: the emoji is two units, so (0, 3) is just before "b".
    send(server, change(uri, 2, ranged((0, 3), (0, 4), "B"), ranged((1, 0), (1, 4), "LINE")))
    assert len(server.protocol._request_futures) == handlers  # pygls's dispatch keeps a future for each
    assert server.workspace.get_text_document(uri).source == "a😀B\nLINE two\n"
    send(server, change(uri, 3, {"text": "whole\n"}))
    text_document = server.workspace.get_text_document(uri)
    assert (text_document.source, text_document.version) == ("whole\n", 3)
    assert listener.changes == [
        (2, "TextDocumentContentChangePartial"),
        (3, "TextDocumentContentChangeWholeDocument"),
    ]


async def test_a_malformed_change_is_logged_and_the_server_serves_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, out, listener = started(tmp_path, monkeypatch)
    uri = (tmp_path / "notes.txt").as_uri()
    document = {"uri": uri, "languageId": "plaintext", "version": 1, "text": "kept\n"}
    send(server, {"method": types.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": document}})
    with caplog.at_level(logging.ERROR):
        send(server, change(uri, 2, {"range": {"start": "nowhere"}, "text": "x"}))
        send(server, {"method": types.TEXT_DOCUMENT_DID_CHANGE, "params": {"contentChanges": "none"}})
    assert caplog.text.count("cannot handle a message") == 2
    assert server.workspace.get_text_document(uri).source == "kept\n"
    assert listener.changes == []
    send(server, {"id": 2, "method": types.SHUTDOWN})
    for _ in range(20):
        await asyncio.sleep(0)
    assert {"jsonrpc": "2.0", "id": 2, "result": None} in out.messages
