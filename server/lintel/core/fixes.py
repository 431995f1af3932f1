"""The fix records an Issue may carry (docs/fixes.md, The record), and the text arithmetic that applies them.

A fix is the tool's own: parsers copy it from the tool's machine output (ruff's `fix`, eslint's `fix` and
`suggestions`, rustc's suggested replacements, golangci-lint's `SuggestedFixes`, shellcheck's `replacements`) and
never invent one. An edit's positions are 1-based with an exclusive end, and its columns count in the unit of the
Issue that carries it (the tool's unit: bytes for Go tools, UTF-16 code units for JavaScript tools, characters
for the rest; `lintel.languages.sources.unit_for`).

This module is engine ground floor: text in, text out, no I/O and no LSP.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from lintel.core.positions import Unit, length_in, split_lines

Applicability = Literal["safe", "unsafe", "display"]
APPLICABILITIES: tuple[Applicability, ...] = get_args(Applicability)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text from (line, column) up to, not including, (end_line, end_column) by `new_text`."""

    file: str  # root-relative with `/`, like Issue.file
    line: int
    column: int
    end_line: int
    end_column: int
    new_text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
            "newText": self.new_text,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Edit | None:
        try:
            line, column, end_line, end_column = (int(data[key]) for key in ("line", "column", "endLine", "endColumn"))
            file, new_text = data["file"], data["newText"]
        except (KeyError, TypeError, ValueError):
            return None
        if not isinstance(file, str) or not isinstance(new_text, str) or min(line, column, end_line, end_column) < 1:
            return None
        return cls(file, line, column, end_line, end_column, new_text)

    @property
    def start(self) -> tuple[int, int]:
        return (self.line, self.column)

    @property
    def end(self) -> tuple[int, int]:
        return (self.end_line, self.end_column)


@dataclass(frozen=True, slots=True)
class Fix:
    """One way to fix an Issue: its edits are applied all together or not at all."""

    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "applicability": self.applicability,
            "edits": [edit.to_json() for edit in self.edits],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fix | None:
        applicability = data.get("applicability")
        raw_edits = data.get("edits")
        if applicability not in APPLICABILITIES or not isinstance(raw_edits, list) or not raw_edits:
            return None
        edits = [Edit.from_json(item) for item in raw_edits if isinstance(item, Mapping)]
        if len(edits) != len(raw_edits) or any(edit is None for edit in edits):
            return None
        return cls(str(data.get("title", "")), cast(Applicability, applicability), tuple(e for e in edits if e))

    @property
    def files(self) -> frozenset[str]:
        return frozenset(edit.file for edit in self.edits)


def make_fix(title: str, applicability: Applicability, edits: Iterable[Edit]) -> Fix | None:
    """A Fix, or None when it has no edit or two of its edits overlap (a tool's fix applies whole or not at all)."""
    ordered = tuple(sorted(edits, key=lambda e: (e.file, e.start, e.end)))
    if not ordered or _overlapping(ordered):
        return None
    return Fix(title.strip() or "Apply the tool's fix", applicability, ordered)


def _overlapping(ordered: Sequence[Edit]) -> bool:
    for before, after in itertools.pairwise(ordered):
        if before.end < before.start or (before.file == after.file and after.start < before.end):
            return True
    return bool(ordered) and ordered[-1].end < ordered[-1].start


# --- positions ---------------------------------------------------------------------------------------------


def _line_starts(text: str) -> list[int]:
    """The offset (in characters) at which each of `text`'s lines starts, lines as lintel.core.positions splits them."""
    starts = [0]
    total = 0
    lines = split_lines(text)
    for line in lines[:-1]:
        total += len(line)
        # The end that follows this line: \r\n, \r or \n.
        rest = text[total : total + 2]
        total += 2 if rest == "\r\n" else 1
        starts.append(total)
    return starts


def _char_column(line_text: str, column0: int, unit: Unit) -> int | None:
    """The character index `column0` units into `line_text` (its end counts); None inside a character or past it."""
    if unit == "utf-32" or line_text.isascii():
        return column0 if 0 <= column0 <= len(line_text) else None
    count = 0
    for index, char in enumerate(line_text):
        if count == column0:
            return index
        if count > column0:
            return None
        count += length_in(char, unit)
    return len(line_text) if count == column0 else None


class TextPositions:
    """Maps 1-based (line, column in `unit`) to character offsets in one text, and back."""

    def __init__(self, text: str, unit: Unit) -> None:
        self.text = text
        self.unit = unit
        self._starts = _line_starts(text)
        self._lines = split_lines(text)

    def offset(self, line: int, column: int) -> int | None:
        """The character offset of a 1-based position, None when it is not on a character boundary of the text."""
        if not 1 <= line <= len(self._lines) or column < 1:
            return None
        index = _char_column(self._lines[line - 1], column - 1, self.unit)
        return None if index is None else self._starts[line - 1] + index

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column in `unit`) of a character offset (0 ≤ offset ≤ len(text))."""
        low, high = 0, len(self._starts) - 1
        while low < high:  # the last line start at or before the offset
            middle = (low + high + 1) // 2
            if self._starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        line_text = self._lines[low]
        within = min(offset - self._starts[low], len(line_text))
        return low + 1, length_in(line_text[:within], self.unit) + 1


def offsets_to_edit(
    text: str, file: str, start: int, end: int, new_text: str, *, offset_unit: Unit, column_unit: Unit
) -> Edit | None:
    """An Edit from offsets into the whole text counted in `offset_unit` (eslint: UTF-16 code units; golangci-lint:
    bytes), its columns in `column_unit`; None when the offsets are not character boundaries inside the text."""
    if start < 0 or end < start:
        return None
    first = _char_offset(text, start, offset_unit)
    last = _char_offset(text, end, offset_unit)
    if first is None or last is None:
        return None
    places = TextPositions(text, column_unit)
    (line, column), (end_line, end_column) = places.position(first), places.position(last)
    return Edit(file, line, column, end_line, end_column, new_text)


def _char_offset(text: str, units: int, unit: Unit) -> int | None:
    if unit == "utf-32" or text.isascii():
        return units if units <= len(text) else None
    encoding = "utf-8" if unit == "utf-8" else "utf-16-le"
    width = 1 if unit == "utf-8" else 2
    data = text.encode(encoding, "surrogatepass")
    if units * width > len(data):
        return None
    head = data[: units * width]
    try:
        return len(head.decode(encoding))
    except UnicodeDecodeError:
        return None  # inside a character


# --- applying ----------------------------------------------------------------------------------------------


def apply_edits(text: str, edits: Iterable[Edit], unit: Unit) -> str | None:
    """`text` with `edits` (all of one file) applied, or None when one does not fall inside the text on character
    boundaries or two overlap (two insertions at one place apply in the order given)."""
    places = TextPositions(text, unit)
    spans: list[tuple[int, int, int, str]] = []
    for order, edit in enumerate(edits):
        start, end = places.offset(*edit.start), places.offset(*edit.end)
        if start is None or end is None or end < start:
            return None
        spans.append((start, end, order, edit.new_text))
    spans.sort()
    pieces: list[str] = []
    at = 0
    for start, end, _, new_text in spans:
        if start < at:
            return None
        pieces.append(text[at:start])
        pieces.append(new_text)
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def chosen_fix(fixes: Sequence[Fix], *, unsafe: bool = False) -> Fix | None:
    """The fix a fix-all applies for one issue: its first safe one (or first unsafe one, when allowed)."""
    allowed = ("safe", "unsafe") if unsafe else ("safe",)
    return next((fix for fix in fixes if fix.applicability in allowed), None)


def fix_all(text: str, file: str, fixes: Iterable[Fix], unit: Unit) -> tuple[str, int]:
    """`text` (the file `file`) with every given fix that touches only this file applied, in the order of their
    first edits, a fix overlapping one already taken left for the next round (as ruff and rustfix do). Returns
    the new text and how many fixes it holds."""
    places = TextPositions(text, unit)
    candidates: list[tuple[int, int, Fix]] = []
    for index, fix in enumerate(fixes):
        if fix.files != {file}:
            continue
        offsets = [(places.offset(*e.start), places.offset(*e.end)) for e in fix.edits]
        if any(start is None or end is None for start, end in offsets):
            continue
        first = min(cast(int, start) for start, _ in offsets)
        candidates.append((first, index, fix))
    candidates.sort(key=lambda item: (item[0], item[1]))
    taken: list[Edit] = []
    spans: list[tuple[int, int]] = []
    count = 0
    for _, _, fix in candidates:
        mine = [(cast(int, places.offset(*e.start)), cast(int, places.offset(*e.end))) for e in fix.edits]
        if any(_touches(span, other) for span in mine for other in spans):
            continue
        spans.extend(mine)
        taken.extend(fix.edits)
        count += 1
    if not count:
        return text, 0
    applied = apply_edits(text, taken, unit)
    return (applied, count) if applied is not None else (text, 0)


def _touches(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two spans overlap, or are both insertions at one place (their order would be a guess)."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def unified_diff(file: str, old: str, new: str) -> str:
    """A unified diff of one file, `a/<file>` → `b/<file>` as git prints them; empty when the texts are equal."""
    if old == new:
        return ""
    lines = difflib.unified_diff(_with_ends(old), _with_ends(new), f"a/{file}", f"b/{file}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _with_ends(text: str) -> list[str]:
    """`text`'s lines with their ends, split only at \\n, \\r\\n and \\r (as the tools count lines)."""
    return _LINE.findall(text)
