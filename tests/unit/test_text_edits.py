"""The edit a warm worker's document is changed by (positions.text_edit, lf_position), and the shared line split
(positions.lines_of): a server's copy of a document must end up exactly the new text, whatever changed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lintel.core import positions
from lintel.core.positions import lf_position, lines_of, split_lines, text_edit

# Astral characters and combining marks (one code point each for UTF-32 positions, two UTF-16 units for 😀).
pieces = st.text(alphabet=st.sampled_from(["a", "b", "\n", " ", "é", "😀", "\u0301", "\t", '"', "\\"]), max_size=40)


def apply_lsp_edit(text: str, start: dict[str, int], end: dict[str, int], new_text: str) -> str:
    """What an LSP server does with a ranged change in UTF-32 positions, lines ending at LF: an independent model
    (line starts from a split, not from str.count)."""
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: dict[str, int]) -> int:
        return starts[position["line"]] + position["character"]

    return text[: offset(start)] + new_text + text[offset(end) :]


def check_edit(old: str, new: str) -> None:
    start, end_old, end_new = text_edit(old, new)
    assert old[:start] + new[start:end_new] + old[end_old:] == new
    assert start <= min(end_old, end_new)
    # As short as it can be: the common start and the common end are whole.
    shortest = min(len(old), len(new))
    assert start == shortest or old[start] != new[start]
    if end_old > start and end_new > start:
        assert old[end_old - 1] != new[end_new - 1]
    edited = apply_lsp_edit(old, lf_position(old, start), lf_position(old, end_old), new[start:end_new])
    assert edited == new


@given(pieces, pieces, pieces, pieces)
def test_an_edit_turns_the_old_text_into_the_new(head: str, old_middle: str, new_middle: str, tail: str) -> None:
    check_edit(head + old_middle + tail, head + new_middle + tail)


@given(st.integers(0, 3 * 4096 + 7), st.integers(0, 64), pieces, st.sampled_from(["x", "\n", "😀", ""]))
def test_edits_in_texts_longer_than_a_chunk(at: int, removed: int, inserted: str, filler: str) -> None:
    """Texts of several compare chunks, changed anywhere: at a chunk's edge, inside one, at either end."""
    old = ("line of code = 1\n" * 800)[: 3 * 4096 + 8]
    at = min(at, len(old))
    new = old[:at] + inserted + filler + old[at + removed :]
    check_edit(old, new)


def test_the_same_text_is_an_empty_edit() -> None:
    text = "import os\n" * 1000
    assert text_edit(text, text) == (len(text), len(text), len(text))


def test_a_repeated_run_is_kept_once_at_either_end() -> None:
    # "aaaa" -> "aaa": start and end must not overlap (3 shared at the start, 0 left for the end).
    assert text_edit("aaaa", "aaa") == (3, 4, 3)
    assert text_edit("aaa", "aaaa") == (3, 3, 4)
    check_edit("x\n\n\ny", "x\n\ny")


def test_positions_count_code_points_and_lf_lines() -> None:
    text = "é😀\nab\n"
    assert lf_position(text, 0) == {"line": 0, "character": 0}
    assert lf_position(text, 2) == {"line": 0, "character": 2}
    assert lf_position(text, 3) == {"line": 1, "character": 0}
    assert lf_position(text, len(text)) == {"line": 2, "character": 0}


def test_lines_of_is_split_lines_shared_between_equal_texts() -> None:
    text = "a = 1\r\nb = 2\n" * 50
    lines = lines_of(text)
    assert list(lines) == split_lines(text)
    copy = "".join(list(text))  # an equal text, another object (the buffer's and the file's)
    assert copy is not text
    assert lines_of(copy) is lines
    for other in ("x\n", "y\n", "z\n"):  # older entries make way for newer ones
        lines_of(other)
    assert len(positions._LINES_MEMO) == positions.LINES_MEMO_SIZE
    again = lines_of(text)
    assert again is not lines
    assert list(again) == list(lines)


def test_a_text_over_the_limit_is_split_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(positions, "LINES_MEMO_MAX_CHARS", 10)
    text = "a long line\nand more\n"
    assert lines_of(text) is not lines_of(text)
    assert list(lines_of(text)) == split_lines(text)
