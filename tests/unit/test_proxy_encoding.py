"""Re-counting columns in relayed JSON between a child's encoding and the editor's."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
from lintel.core import positions
from lintel.frontends.relay import encoding
from lintel.frontends.relay.encoding import LineCache, Recoder

A = "file:///w/a.py"
B = "file:///w/b.py"
# "é" is 1 UTF-16 unit / 2 UTF-8 bytes; "🍰" is 2 units / 4 bytes. `name` starts at 5 UTF-16 units, 8 bytes.
TEXTS = {A: 'x = "é🍰" name\nplain name\n', B: "🍰🍰 other\n\x0cform feed é name\n"}


def text(uri: str) -> str | None:
    return TEXTS.get(uri)


def span(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def to_utf8(value: Any, uri: str = A) -> Any:
    return Recoder("utf-16", "utf-8", LineCache(text)).walk(value, uri, uri)


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
    assert Recoder("utf-8", "utf-16", LineCache(text)).walk(params, A, A)["position"] == {"line": 0, "character": 8}
    past = {"textDocument": {"uri": A}, "position": {"line": 0, "character": 20}}  # the line is 15 bytes
    assert Recoder("utf-8", "utf-16", LineCache(text)).walk(past, A, A)["position"] == {"line": 0, "character": 17}
    unknown = {"textDocument": {"uri": "file:///gone.py"}, "position": {"line": 0, "character": 11}}
    assert Recoder("utf-8", "utf-16", LineCache(text)).walk(unknown, A, A)["position"]["character"] == 11


def test_same_encoding_is_left_alone() -> None:
    value = [{"uri": A, "range": span(0, 8, 12)}]
    recoder = Recoder("utf-16", "utf-16", LineCache(text))
    assert not recoder.needed
    assert recoder.walk(value, A, A) is value
    assert value == [{"uri": A, "range": span(0, 8, 12)}]
    assert Recoder("utf-32", "utf-8", LineCache(text)).walk([{"uri": A, "range": span(0, 7, 11)}], A, A) == [
        {"uri": A, "range": span(0, 11, 15)}
    ]


# -- LineCache: documents split once per version ----------------------------------------------------------


class Buffers:
    """Open buffers by uri, counting how often the cache asked for them."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self.texts: dict[str, str] = dict(texts or {})
        self.asked = 0

    def __call__(self, uri: str) -> str | None:
        self.asked += 1
        return self.texts.get(uri)


@pytest.fixture
def splits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text LineCache splits into lines, in order."""
    seen: list[str] = []
    split = positions.split_lines

    def counting(text: str) -> list[str]:
        seen.append(text)
        return split(text)

    monkeypatch.setattr(encoding, "split_lines", counting)
    return seen


def test_lines_end_only_at_lsp_line_breaks() -> None:
    text = "a\r\nb\rc\nd\x0ce\x1cf\x85g\u2028h\u2029i\n"
    assert LineCache(Buffers({A: text}))(A) == ["a", "b", "c", "d\x0ce\x1cf\x85g\u2028h\u2029i", ""]


def test_an_open_buffer_is_split_once_per_text(splits: list[str]) -> None:
    buffers = Buffers({A: "one\ntwo\n"})
    cache = LineCache(buffers)
    first = cache(A)
    assert first == ["one", "two", ""]
    assert cache(A) is first
    assert cache(A) is first
    assert buffers.asked == 3  # asked every time: the buffer may have changed
    assert splits == ["one\ntwo\n"]

    buffers.texts[A] = "one\ntwo changed\n"  # a didChange makes a new string
    assert cache(A) == ["one", "two changed", ""]
    assert len(splits) == 2


def test_the_open_buffer_wins_over_the_file_and_the_file_is_read_once_closed(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("on disk\n", encoding="utf-8")
    uri = path.as_uri()
    buffers = Buffers({uri: "unsaved\nedit\n"})
    cache = LineCache(buffers)
    assert cache(uri) == ["unsaved", "edit", ""]
    del buffers.texts[uri]  # didClose
    assert cache(uri) == ["on disk", ""]
    buffers.texts[uri] = "reopened\n"
    assert cache(uri) == ["reopened", ""]


def test_a_file_on_disk_is_split_again_only_when_its_mtime_or_size_changes(tmp_path: Path, splits: list[str]) -> None:
    path = tmp_path / "b.py"
    path.write_text("x = 1\r\ny = 2\n", encoding="utf-8")
    uri = path.as_uri()
    cache = LineCache(Buffers())
    first = cache(uri)
    assert first == ["x = 1", "y = 2", ""]
    assert cache(uri) is first
    assert len(splits) == 1

    stat = path.stat()
    path.write_text("x = 1\ny = 2\nz = 3\n", encoding="utf-8")  # another size, the same mtime
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache(uri) == ["x = 1", "y = 2", "z = 3", ""]
    assert len(splits) == 2

    stat = path.stat()
    path.write_text("x = 9\ny = 8\nz = 7\n", encoding="utf-8")  # the same size, another mtime
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert cache(uri) == ["x = 9", "y = 8", "z = 7", ""]
    assert len(splits) == 3


def test_a_missing_file_has_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "gone.py"
    cache = LineCache(Buffers())
    assert cache(path.as_uri()) is None
    path.write_text("now here\n", encoding="utf-8")
    assert cache(path.as_uri()) == ["now here", ""]
    path.unlink()
    assert cache(path.as_uri()) is None
    assert cache("untitled:Untitled-1") is None  # no file behind it


def test_the_least_recently_used_document_is_evicted(splits: list[str]) -> None:
    uris = [f"file:///w/{name}.py" for name in "abc"]
    buffers = Buffers({uri: f"{uri}\n" for uri in uris})
    cache = LineCache(buffers, capacity=2)
    a, b = cache(uris[0]), cache(uris[1])
    assert cache(uris[0]) is a  # a used last: b is the least recently used
    cache(uris[2])  # over capacity: b goes
    assert len(splits) == 3
    assert cache(uris[0]) is a
    b_again = cache(uris[1])
    assert b_again == b
    assert b_again is not b  # split again
    assert len(splits) == 4
