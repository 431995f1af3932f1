"""Position-encoding conversion for relayed JSON, used only when a child speaks another encoding than the editor.

lintel offers each child the encoding it negotiated with the editor; a child that cannot use it answers
UTF-16 (every server must support it). gopls, pyright and typescript-language-server all do, so a Neovim
session (UTF-8) needs this. Columns are re-counted on the line's text (the open buffer, else the file on
disk), in place on the raw JSON, so everything else in a result is left as the child sent it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from lintel.server.positions import Unit, convert_column

# Keys whose value is a Range (or, for completion's insert/replace edits, a pair of ranges under these keys).
_RANGE_KEYS = frozenset(
    {"range", "selectionRange", "targetRange", "targetSelectionRange", "fullRange", "insert", "replace", "editRange"}
)
# Ranges in the requesting document, whatever uri the enclosing object names (LocationLink's origin).
_ORIGIN_KEYS = frozenset({"originSelectionRange"})
# Opaque or textual members: never positions, not worth walking.
_SKIP_KEYS = frozenset({"data", "contents", "documentation", "label", "detail", "newText", "message", "command"})

TextSource = Callable[[str], "str | None"]
# LSP lines end at \n, \r\n or \r only (str.splitlines also splits on \x0c, \u2028 and others).
_EOL = re.compile(r"\r\n|\r|\n")


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

    `text(uri)` gives a document's current text (None when unknown: the column is left as it is).
    One Recoder serves one message, so each document is split into lines once.
    """

    def __init__(self, source: Unit, target: Unit, text: TextSource) -> None:
        self.source = source
        self.target = target
        self._text = text
        self._lines: dict[str, list[str] | None] = {}

    @property
    def needed(self) -> bool:
        return self.source != self.target

    def _line(self, uri: str, line: int) -> str | None:
        if uri not in self._lines:
            text = self._text(uri)
            self._lines[uri] = _EOL.split(text) if text is not None else None
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

    def walk(self, value: Any, uri: str, origin: str) -> Any:
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
        for key, member in value.items():
            if key in _SKIP_KEYS or not isinstance(member, (dict, list)):
                continue
            if key in _RANGE_KEYS:
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
