"""Column arithmetic between the units tools print and the encoding the editor negotiated.

Go tools count bytes, rustc and ruff count code points, tsc and eslint count UTF-16 code units; LSP positions
are in the negotiated encoding (UTF-16 unless client and server agreed on UTF-8 or UTF-32).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

Unit = Literal["utf-8", "utf-16", "utf-32"]

# LSP lines end at \n, \r\n or \r only; str.splitlines also breaks at \x0b, \x0c, \x1c-\x1e, \x85, \u2028 and
# \u2029, which would shift every line (and column) after one of them.
_EOL = re.compile(r"\r\n|\r|\n")

_CHUNK = 4096  # characters compared at a time when looking for the first difference of two texts


def split_lines(text: str) -> list[str]:
    """`text`'s lines as LSP and the tools number them, without their ends (a final end starts an empty line)."""
    if "\r" not in text:  # the common case, much faster than the regex (every save splits the file's text)
        return text.split("\n")
    return _EOL.split(text)


# The texts lines_of split last, with their lines, newest first. A save splits one text three times over
# (the worker's columns, the fingerprints, the diagnostics' columns: the buffer, the file on disk), each a split of the
# whole file; equal texts share one. Texts over LINES_MEMO_MAX_CHARS are split each time.
_LINES_MEMO: list[tuple[str, list[str]]] = []
LINES_MEMO_SIZE = 2
LINES_MEMO_MAX_CHARS = 2_000_000


def lines_of(text: str) -> Sequence[str]:
    """split_lines(text), shared with the callers that split an equal text last (read only: never modify it).
    Finding an equal text costs a comparison of the two (a memcmp), not a split."""
    for known, lines in _LINES_MEMO:
        if known is text or known == text:
            return lines
    lines = split_lines(text)
    if len(text) <= LINES_MEMO_MAX_CHARS:
        _LINES_MEMO.insert(0, (text, lines))
        del _LINES_MEMO[LINES_MEMO_SIZE:]
    return lines


def _prefix(text: str, count: int, unit: Unit) -> str:
    """The start of `text` that spans `count` units."""
    if count <= 0:
        return ""
    if unit == "utf-32":
        return text[:count]
    if unit == "utf-8":
        return text.encode("utf-8")[:count].decode("utf-8", errors="ignore")
    data = text.encode("utf-16-le")[: count * 2]
    return data.decode("utf-16-le", errors="ignore")


def length_in(text: str, unit: Unit) -> int:
    if unit == "utf-32":
        return len(text)
    if unit == "utf-8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


def convert_column(line_text: str | None, column0: int, source: Unit, target: Unit) -> int:
    """A 0-based column counted in `source` units, re-counted in `target` units on the same line."""
    if column0 <= 0 or source == target or line_text is None:
        return max(column0, 0)
    if line_text.isascii():  # one unit per character in every encoding (past the end of the line too)
        return column0
    prefix = _prefix(line_text, column0, source)
    if length_in(prefix, source) < column0 and length_in(line_text, source) < column0:
        # Past the end of the line (tools point one past the last char): keep the overshoot.
        return length_in(line_text, target) + (column0 - length_in(line_text, source))
    return length_in(prefix, target)


def text_edit(old: str, new: str) -> tuple[int, int, int]:
    """(start, end in `old`, end in `new`): `old[:start] + new[start:end_new] + old[end_old:] == new`, with the
    common start and common end of the two texts as long as they can be (they do not overlap)."""
    shortest = min(len(old), len(new))
    start = _common_start(old, new, shortest)
    same = _common_end(old, new, shortest - start)
    return start, len(old) - same, len(new) - same


def _common_start(a: str, b: str, limit: int) -> int:
    """How many first characters `a` and `b` share (at most `limit`): compared a chunk at a time, then by halves
    within the first chunk that differs."""
    low = 0
    while low < limit:
        high = min(low + _CHUNK, limit)
        if a[low:high] != b[low:high]:
            break
        low = high
    else:
        return limit
    # a[:low] == b[:low] and a[:high] != b[:high]: narrow down to the first difference.
    while high - low > 1:
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    return low


def _common_end(a: str, b: str, limit: int) -> int:
    """How many last characters `a` and `b` share (at most `limit`)."""
    shared = 0
    while shared < limit:
        step = min(_CHUNK, limit - shared)
        if a[len(a) - shared - step : len(a) - shared] != b[len(b) - shared - step : len(b) - shared]:
            break
        shared += step
    else:
        return limit
    low, high = shared, shared + step  # the last `low` characters are shared, the last `high` are not
    while high - low > 1:
        middle = (low + high) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle
    return low


def lf_position(text: str, offset: int) -> dict[str, int]:
    """The LSP position, in code points (UTF-32), of `offset` in `text`, whose lines end at LF only (a CR also
    ends an LSP line: the caller rules it out)."""
    return {"line": text.count("\n", 0, offset), "character": offset - (text.rfind("\n", 0, offset) + 1)}
