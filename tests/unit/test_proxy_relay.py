"""A child's result reaches the editor as the child sent it: lintel's JSON-RPC response carries it untouched
(fields lsprotocol does not know included). The child's side is in test_proxy_client.py."""

from __future__ import annotations

import json
from typing import Any

from lintel.frontends.lsp.pyglscompat import converter_of
from lintel.frontends.lsp.shared import RawJson
from lintel.frontends.relay.client import child_capabilities
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import JsonRPCResponseMessage


class Owner:
    name = "test"
    version = "0"

    def _report_server_error(self, *args: Any) -> None:
        raise AssertionError(args)


COMPLETION = {
    "isIncomplete": False,
    "items": [
        {
            "label": "describe",
            "kind": 3,
            "sortText": "11",
            "data": {"file": "/w/a.ts", "entryNames": ["describe"]},
            "x-new-field": {"from": "a newer server", "nested": [None, 1.5, "é🍰"]},
        }
    ],
    "x-list-field": True,
}


def editor_bytes(result: Any) -> bytes:
    # Owner stands in for the server (the protocol only reads its name and error hook here);
    # pygls leaves default_converter unannotated.
    protocol = LanguageServerProtocol(Owner(), default_converter())  # type: ignore[arg-type,no-untyped-call]
    converter_of(protocol).register_unstructure_hook(RawJson, lambda raw: raw.value)
    response = JsonRPCResponseMessage(id=1, result=result, jsonrpc="2.0")
    return json.dumps(response, default=protocol._serialize_message).encode()


def test_navigation_results_stay_plain_json_with_unknown_fields() -> None:
    relayed = json.loads(json.dumps(COMPLETION))  # what ChildClient hands on: the child's answer, as read
    sent = json.loads(editor_bytes(RawJson(relayed)))
    assert sent == {"id": 1, "result": COMPLETION, "jsonrpc": "2.0"}


def test_a_typed_relay_would_lose_them() -> None:
    """Why the relay is raw: structuring into lsprotocol's classes drops what they do not know."""
    protocol = LanguageServerProtocol(Owner(), get_converter())  # type: ignore[arg-type]
    protocol._result_types["7"] = protocol.get_result_type(types.TEXT_DOCUMENT_COMPLETION)
    typed = protocol.structure_message({"jsonrpc": "2.0", "id": "7", "result": json.loads(json.dumps(COMPLETION))})
    sent = json.loads(editor_bytes(typed.result))
    assert "x-new-field" not in sent["result"]["items"][0]
    assert "x-list-field" not in sent["result"]


def test_children_see_the_editors_capabilities_narrowed() -> None:
    editor = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]
        ),
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(dynamic_registration=True, content_format=[types.MarkupKind.Markdown]),
            diagnostic=types.DiagnosticClientCapabilities(dynamic_registration=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
            apply_edit=True,
        ),
        window=types.WindowClientCapabilities(work_done_progress=True),
    )
    child = get_converter().unstructure(child_capabilities(editor, "utf-8"))
    assert child["general"]["positionEncodings"] == ["utf-8"]
    assert child["textDocument"]["hover"] == {"contentFormat": ["markdown"]}
    assert "diagnostic" not in child["textDocument"]  # diagnostics pushed, merged into lintel's store
    assert "didChangeWatchedFiles" not in child["workspace"]
    assert child["workspace"]["applyEdit"] is True
    assert child["workspace"]["configuration"] is True
    assert child["window"]["workDoneProgress"] is True
    assert "dynamicRegistration" not in json.dumps(child)
