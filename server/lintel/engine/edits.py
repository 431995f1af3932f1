"""A proposed edit of a file, as check_edit takes it: a range replaced (1-based lines and code-point columns,
end-exclusive, like a Fix's edits) or an exact string replaced (how agents' own edit tools name a change)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field


class EditError(ValueError):
    """An edit that does not apply to the text; the message says which and why."""


class RangeEdit(BaseModel):
    """`{line, column, endLine, endColumn, newText}`: 1-based, columns in characters, the end excluded."""

    model_config = ConfigDict(extra="forbid", strict=True)

    line: int = Field(ge=1)
    column: int = Field(ge=1)
    end_line: int = Field(ge=1, alias="endLine")
    end_column: int = Field(ge=1, alias="endColumn")
    new_text: str = Field(alias="newText")


class TextReplace(BaseModel):
    """`{oldText, newText}`: `oldText` must occur exactly once in the file."""

    model_config = ConfigDict(extra="forbid", strict=True)

    old_text: str = Field(min_length=1, alias="oldText")
    new_text: str = Field(alias="newText")


Edit = RangeEdit | TextReplace


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """`edits` applied in order, each to the text the ones before it left."""
    for index, edit in enumerate(edits, 1):
        where = f"edit {index}" if len(edits) > 1 else "the edit"
        text = _replace(text, edit, where) if isinstance(edit, TextReplace) else _apply_range(text, edit, where)
    return text


def _replace(text: str, edit: TextReplace, where: str) -> str:
    count = text.count(edit.old_text)
    if count != 1:
        times = "does not occur" if count == 0 else f"occurs {count} times"
        raise EditError(f"{where}: oldText {times} in the file; it must match exactly once (add surrounding lines)")
    return text.replace(edit.old_text, edit.new_text, 1)


_EOL = re.compile(r"\r\n|\r|\n")


def line_spans(text: str) -> list[tuple[int, int]]:
    """Each line's (start, end) offsets in `text`, its line end left out; a final end starts an empty line."""
    spans: list[tuple[int, int]] = []
    start = 0
    for end in _EOL.finditer(text):
        spans.append((start, end.start()))
        start = end.end()
    spans.append((start, len(text)))
    return spans


def offset_of(spans: Sequence[tuple[int, int]], line: int, column: int, where: str) -> int:
    """The character offset of a 1-based (line, column); a column one past a line's last character is its end."""
    if line > len(spans):
        raise EditError(f"{where}: line {line} is past the end of the file ({len(spans)} lines)")
    start, end = spans[line - 1]
    if column > end - start + 1:
        raise EditError(f"{where}: column {column} is past the end of line {line} ({end - start} characters)")
    return start + column - 1


def _apply_range(text: str, edit: RangeEdit, where: str) -> str:
    spans = line_spans(text)
    start = offset_of(spans, edit.line, edit.column, where)
    end = offset_of(spans, edit.end_line, edit.end_column, where)
    if end < start:
        raise EditError(f"{where}: its end ({edit.end_line}:{edit.end_column}) is before its start")
    return text[:start] + edit.new_text + text[end:]
