"""Position-encoding conversion for relayed JSON, used only when a child speaks another encoding than the editor.

lintel offers each child the encoding it negotiated with the editor; a child that cannot use it answers
UTF-16 (every server must support it). gopls, pyright and typescript-language-server all do, so a Neovim
session (UTF-8) needs this. Columns are re-counted on the line's text (the open buffer, else the file on
disk), in place on the raw JSON, so everything else in a result is left as the child sent it.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from lintel.core.positions import Unit, convert_column, split_lines

# Keys whose value is a Range (or, for completion's insert/replace edits, a pair of ranges under these keys).
_RANGE_KEYS = frozenset(
    {"range", "selectionRange", "targetRange", "targetSelectionRange", "fullRange", "insert", "replace", "editRange"}
)
# Keys whose value is a list of Ranges (linked editing ranges, a call's ranges) or of Positions (selection ranges').
_RANGE_LIST_KEYS = frozenset({"ranges", "fromRanges"})
_POSITION_LIST_KEYS = frozenset({"positions"})
# Ranges in the requesting document, whatever uri the enclosing object names (LocationLink's origin).
_ORIGIN_KEYS = frozenset({"originSelectionRange"})
# Opaque or textual members: never positions, not worth walking. (An inlay hint's `label` may be parts with
# locations: walked; a string is never walked.)
_SKIP_KEYS = frozenset({"data", "contents", "documentation", "detail", "newText", "message", "command", "tooltip"})

TextSource = Callable[[str], "str | None"]
LinesSource = Callable[[str], "list[str] | None"]


class LineCache:
    """Documents split into lines once per version, for re-counting columns: the open buffer while its text
    is the same string (a change makes a new one), else the file on disk while its mtime and size hold.
    Splitting a whole document for every relayed answer was most of lintel's CPU per request for a UTF-8
    editor (references name several files, most of them not open)."""

    def __init__(self, open_text: TextSource, capacity: int = 256) -> None:
        self._open_text = open_text
        self._capacity = capacity
        self._entries: OrderedDict[str, tuple[object, list[str]]] = OrderedDict()

    def __call__(self, uri: str) -> list[str] | None:
        text = self._open_text(uri)
        key: object
        if text is not None:
            key = text
        else:
            path = to_fs_path(uri)
            try:
                stat = os.stat(path) if path is not None else None
            except OSError:
                stat = None
            if stat is None:
                self._entries.pop(uri, None)
                return None
            key = (stat.st_mtime_ns, stat.st_size)
        entry = self._entries.get(uri)
        if entry is not None and (entry[0] is key or entry[0] == key):
            self._entries.move_to_end(uri)
            return entry[1]
        if text is None:
            text = disk_text(uri)
            if text is None:
                return None
        lines = split_lines(text)
        self._entries[uri] = (key, lines)
        if len(self._entries) > self._capacity:
            self._entries.popitem(last=False)
        return lines


def _is_range(value: dict[str, Any]) -> bool:
    start, end = value.get("start"), value.get("end")
    return isinstance(start, dict) and isinstance(end, dict) and "line" in start and "line" in end


def disk_text(uri: str) -> str | None:
    path = to_fs_path(uri)
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


class Recoder:
    """Re-count the columns of every position in a JSON value from `source` to `target` units.

    `lines(uri)` gives a document's current lines (None when unknown: the column is left as it is), see
    LineCache. One Recoder serves one message.
    """

    def __init__(self, source: Unit, target: Unit, lines: LinesSource) -> None:
        self.source = source
        self.target = target
        self._source_of_lines = lines
        self._lines: dict[str, list[str] | None] = {}

    @property
    def needed(self) -> bool:
        return self.source != self.target

    def _line(self, uri: str, line: int) -> str | None:
        if uri not in self._lines:
            self._lines[uri] = self._source_of_lines(uri)
        lines = self._lines[uri]
        if lines is None or not 0 <= line < len(lines):
            return None
        return lines[line]

    def position(self, position: Any, uri: str) -> None:
        if not isinstance(position, dict):
            return
        line, character = position.get("line"), position.get("character")
        if isinstance(line, int) and isinstance(character, int) and character > 0:
            position["character"] = convert_column(self._line(uri, line), character, self.source, self.target)

    def range(self, value: Any, uri: str) -> None:
        if isinstance(value, dict) and "start" in value and "end" in value:
            self.position(value["start"], uri)
            self.position(value["end"], uri)
        elif isinstance(value, dict):
            # completion's editRange / textEdit: {insert: Range, replace: Range}
            self.walk(value, uri, uri)

    def _folding(self, value: dict[str, Any], uri: str) -> None:
        for line_key, column_key in (("startLine", "startCharacter"), ("endLine", "endCharacter")):
            self.position_at(value, line_key, column_key, uri)

    def position_at(self, value: dict[str, Any], line_key: str, column_key: str, uri: str) -> None:
        line, character = value.get(line_key), value.get(column_key)
        if isinstance(line, int) and isinstance(character, int) and character > 0:
            value[column_key] = convert_column(self._line(uri, line), character, self.source, self.target)

    def walk(self, value: Any, uri: str, origin: str) -> Any:  # noqa: C901 - one branch per LSP shape with ranges
        """Convert every range below `value`; `uri` is the document they are in until a nested object names
        another (Location.uri, LocationLink.targetUri, TextDocumentEdit.textDocument, WorkspaceEdit.changes);
        `origin` is the requesting document. Returns `value`, changed in place."""
        if not self.needed:
            return value
        if isinstance(value, list):
            for item in value:
                self.walk(item, uri, origin)
            return value
        if not isinstance(value, dict):
            return value
        here = uri
        own = value.get("uri", value.get("targetUri"))
        document = value.get("textDocument")
        if isinstance(own, str):
            here = own
        elif isinstance(document, dict) and isinstance(document.get("uri"), str):
            here = document["uri"]
        if _is_range(value):  # a Range as the answer itself (prepareRename's may be)
            self.range(value, here)
            return value
        if "startLine" in value and "endLine" in value:  # a folding range: lines and optional columns
            self._folding(value, here)
        for key, member in value.items():
            if key in _SKIP_KEYS or not isinstance(member, (dict, list)):
                continue
            if key in _RANGE_LIST_KEYS and isinstance(member, list):
                # An incoming call's ranges are in the caller's document (`from`), not the one asked about.
                caller = value.get("from")
                where = caller["uri"] if key == "fromRanges" and isinstance(caller, dict) and "uri" in caller else here
                for item in member:
                    self.range(item, where)
            elif key in _POSITION_LIST_KEYS and isinstance(member, list):
                for item in member:
                    self.position(item, here)
            elif key in _RANGE_KEYS:
                self.range(member, here)
            elif key in _ORIGIN_KEYS:
                self.range(member, origin)
            elif key == "position":
                self.position(member, here)
            elif key == "changes" and isinstance(member, dict):
                for changed_uri, edits in member.items():
                    self.walk(edits, changed_uri, origin)
            else:
                self.walk(member, here, origin)
        return value
