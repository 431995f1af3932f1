"""Re-counting columns in relayed JSON between a child's encoding and the editor's."""

from __future__ import annotations

import copy
from typing import Any

from lintel.proxy.encoding import Recoder

A = "file:///w/a.py"
B = "file:///w/b.py"
# "é" is 1 UTF-16 unit / 2 UTF-8 bytes; "🍰" is 2 units / 4 bytes. `name` starts at 5 UTF-16 units, 8 bytes.
TEXTS = {A: 'x = "é🍰" name\nplain name\n', B: "🍰🍰 other\n\x0cform feed é name\n"}


def text(uri: str) -> str | None:
    return TEXTS.get(uri)


def span(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def to_utf8(value: Any, uri: str = A) -> Any:
    return Recoder("utf-16", "utf-8", text).walk(value, uri, uri)


def test_locations_are_recounted_in_their_own_documents() -> None:
    locations = [
        {"uri": A, "range": span(0, 8, 12)},
        {"uri": B, "range": span(0, 5, 10)},
        {"uri": A, "range": span(1, 6, 10)},
    ]
    assert to_utf8(locations) == [
        {"uri": A, "range": span(0, 11, 15)},
        {"uri": B, "range": span(0, 9, 14)},
        {"uri": A, "range": span(1, 6, 10)},  # an ASCII line: unchanged
    ]


def test_location_links_keep_the_origin_in_the_requesting_document() -> None:
    link = {
        "originSelectionRange": span(0, 8, 12),
        "targetUri": B,
        "targetRange": span(0, 0, 10),
        "targetSelectionRange": span(0, 5, 10),
    }
    assert to_utf8([link], A) == [
        {
            "originSelectionRange": span(0, 11, 15),
            "targetUri": B,
            "targetRange": span(0, 0, 14),
            "targetSelectionRange": span(0, 9, 14),
        }
    ]


def test_workspace_edits_by_changes_and_document_changes() -> None:
    edit = {
        "changes": {A: [{"range": span(0, 8, 12), "newText": "n"}], B: [{"range": span(0, 5, 10), "newText": "o"}]},
        "documentChanges": [
            {"textDocument": {"uri": B, "version": 3}, "edits": [{"range": span(1, 13, 17), "newText": "n"}]},
            {"kind": "rename", "oldUri": A, "newUri": B},
        ],
    }
    result = to_utf8(edit, "file:///elsewhere")
    assert result["changes"][A][0]["range"] == span(0, 11, 15)
    assert result["changes"][B][0]["range"] == span(0, 9, 14)
    # "\x0c" is no line break for LSP (str.splitlines would take it for one).
    assert result["documentChanges"][0]["edits"][0]["range"] == span(1, 14, 18)
    assert result["documentChanges"][1] == {"kind": "rename", "oldUri": A, "newUri": B}


def test_completion_edits_defaults_and_opaque_data() -> None:
    completion = {
        "isIncomplete": False,
        "itemDefaults": {"editRange": {"insert": span(0, 8, 10), "replace": span(0, 8, 12)}},
        "items": [
            {
                "label": "name",
                "textEdit": {"range": span(0, 8, 12), "newText": "name"},
                "additionalTextEdits": [{"range": span(0, 6, 6), "newText": "x"}],
                "data": {"range": span(0, 8, 12)},  # the child's own: never touched
                "x-unknown": {"kept": True},
            }
        ],
    }
    result = to_utf8(copy.deepcopy(completion))
    assert result["itemDefaults"]["editRange"] == {"insert": span(0, 11, 13), "replace": span(0, 11, 15)}
    item = result["items"][0]
    assert item["textEdit"]["range"] == span(0, 11, 15)
    assert item["additionalTextEdits"][0]["range"] == span(0, 7, 7)  # right after é
    assert item["data"] == {"range": span(0, 8, 12)}
    assert item["x-unknown"] == {"kept": True}


def test_symbols_and_diagnostics() -> None:
    symbols = [
        {
            "name": "f",
            "range": span(0, 0, 12),
            "selectionRange": span(0, 8, 12),
            "children": [{"name": "g", "range": span(0, 8, 12), "selectionRange": span(0, 8, 12)}],
        }
    ]
    result = to_utf8(symbols)
    assert result[0]["selectionRange"] == span(0, 11, 15)
    assert result[0]["children"][0]["range"] == span(0, 11, 15)
    diagnostics = [
        {
            "range": span(0, 8, 12),
            "message": "m",
            "relatedInformation": [{"location": {"uri": B, "range": span(0, 5, 10)}, "message": "there"}],
        }
    ]
    result = to_utf8(diagnostics)
    assert result[0]["range"] == span(0, 11, 15)
    assert result[0]["relatedInformation"][0]["location"]["range"] == span(0, 9, 14)


def test_request_positions_go_the_other_way_and_past_the_end_overshoots() -> None:
    params = {"textDocument": {"uri": A}, "position": {"line": 0, "character": 11}}
    assert Recoder("utf-8", "utf-16", text).walk(params, A, A)["position"] == {"line": 0, "character": 8}
    past = {"textDocument": {"uri": A}, "position": {"line": 0, "character": 20}}  # the line is 15 bytes
    assert Recoder("utf-8", "utf-16", text).walk(past, A, A)["position"] == {"line": 0, "character": 17}
    unknown = {"textDocument": {"uri": "file:///gone.py"}, "position": {"line": 0, "character": 11}}
    assert Recoder("utf-8", "utf-16", text).walk(unknown, A, A)["position"]["character"] == 11


def test_same_encoding_is_left_alone() -> None:
    value = [{"uri": A, "range": span(0, 8, 12)}]
    recoder = Recoder("utf-16", "utf-16", text)
    assert not recoder.needed
    assert recoder.walk(value, A, A) is value
    assert value == [{"uri": A, "range": span(0, 8, 12)}]
    assert Recoder("utf-32", "utf-8", text).walk([{"uri": A, "range": span(0, 7, 11)}], A, A) == [
        {"uri": A, "range": span(0, 11, 15)}
    ]
