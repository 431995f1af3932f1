"""A language server's WorkspaceEdit (a rename's answer) as changes to files on disk: planned in full first, every
file checked to be inside the workspace, then written, or shown as unified diffs. Positions are in code points
(the router re-counted them)."""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from lintel.engine import actions
from lintel.engine.detect import is_inside

_LINE_END = re.compile(r"\r\n|\r|\n")

__all__ = ["FileChange", "apply_text_edits", "plan_workspace_edit", "unified_diff", "write_changes"]


@dataclass(frozen=True)
class FileChange:
    path: Path
    old: str
    new: str
    edits: int


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _LINE_END.finditer(text))]


def _offset(text: str, starts: list[int], position: Any) -> int:
    if not isinstance(position, dict):
        raise actions.failed("the language server's edit has a position that is not one")
    line, character = position.get("line"), position.get("character")
    if not isinstance(line, int) or not isinstance(character, int) or line < 0 or character < 0:
        raise actions.failed(f"the language server's edit has a bad position {position!r}")
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    content_end = start + len(_LINE_END.sub("", text[start:end]))
    return min(start + character, content_end)


def apply_text_edits(text: str, edits: Sequence[Any]) -> str:
    """`text` with LSP TextEdits (ranges in code points) applied; overlapping edits are refused."""
    starts = _line_starts(text)
    spans: list[tuple[int, int, str]] = []
    for edit in edits:
        span = edit.get("range") if isinstance(edit, dict) else None
        new_text = edit.get("newText") if isinstance(edit, dict) else None
        if not isinstance(span, dict) or not isinstance(new_text, str):
            raise actions.failed("the language server's edit is not a text edit")
        start, end = _offset(text, starts, span.get("start")), _offset(text, starts, span.get("end"))
        if end < start:
            raise actions.failed("the language server's edit has a range that ends before it starts")
        spans.append((start, end, new_text))
    spans.sort(key=lambda s: (s[0], s[1]))
    for before, after in itertools.pairwise(spans):
        if after[0] < before[1]:
            raise actions.failed("the language server's edits overlap; nothing was changed")
    out: list[str] = []
    at = 0
    for start, end, new_text in spans:
        out.append(text[at:start])
        out.append(new_text)
        at = end
    out.append(text[at:])
    return "".join(out)


def _file_of(uri: Any, roots: Sequence[Path]) -> Path:
    path = to_fs_path(uri) if isinstance(uri, str) else None
    if path is None or not uri.startswith("file:"):
        raise actions.failed(f"the language server's edit names {uri!r}, not a file")
    resolved = Path(path)
    if not any(is_inside(resolved, root) for root in roots):
        raise actions.invalid(f"the edit would change {resolved}, outside the workspace; nothing was changed")
    return resolved


def _edits_by_uri(edit: dict[str, Any]) -> list[tuple[Any, list[Any]]]:
    """(uri, text edits) of `documentChanges`, or else of `changes`; a file operation is refused."""
    out: list[tuple[Any, list[Any]]] = []
    document_changes = edit.get("documentChanges")
    if isinstance(document_changes, list):
        for change in document_changes:
            kind = change.get("kind") if isinstance(change, dict) else None
            if kind is not None:
                raise actions.failed(
                    f"the rename needs a file operation ({kind}), which lintel does not carry out; nothing was changed"
                )
            document = change.get("textDocument") if isinstance(change, dict) else None
            edits = change.get("edits") if isinstance(change, dict) else None
            if not isinstance(document, dict) or not isinstance(edits, list):
                raise actions.failed("the language server's edit is not a WorkspaceEdit")
            out.append((document.get("uri"), edits))
        return out
    changes = edit.get("changes")
    if isinstance(changes, dict):
        out.extend((uri, edits if isinstance(edits, list) else []) for uri, edits in changes.items())
    return out


def plan_workspace_edit(edit: Any, roots: Sequence[Path]) -> list[FileChange]:
    """Every file the edit changes, old and new text; nothing is written. A file outside `roots`, a file
    operation or an edit that does not apply is an ActionError."""
    if not isinstance(edit, dict):
        return []
    by_path: dict[Path, list[Any]] = {}
    for uri, edits in _edits_by_uri(edit):
        by_path.setdefault(_file_of(uri, roots), []).extend(edits)
    planned: list[FileChange] = []
    for path, edits in by_path.items():
        try:
            old = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise actions.failed(f"{path} cannot be read as UTF-8 text; nothing was changed") from exc
        new = apply_text_edits(old, edits)
        if new != old:
            planned.append(FileChange(path, old, new, len(edits)))
    return planned


def unified_diff(change: FileChange, name: str) -> str:
    lines = difflib.unified_diff(
        change.old.splitlines(keepends=True),
        change.new.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def write_changes(changes: Sequence[FileChange]) -> None:
    """Each file written whole (its bytes as UTF-8; line ends kept as the edits left them)."""
    for change in changes:
        change.path.write_bytes(change.new.encode("utf-8"))
