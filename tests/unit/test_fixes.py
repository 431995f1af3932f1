"""lintel.core.fixes: the fix records, and applying edits on lines with tabs, emoji, CJK and CRLF in each unit."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from lintel.core.fixes import Edit, Fix, apply_edits, fix_all, make_fix, offsets_to_edit, unified_diff
from lintel.core.issues import Issue, make_issue
from lintel.core.positions import Unit, length_in

TEXT = "import os\r\n\tname = 'é😀'  # 日本\r\nx=1\n"
UNITS: tuple[Unit, ...] = ("utf-8", "utf-16", "utf-32")


def _column(line: str, index: int, unit: Unit) -> int:
    return length_in(line[:index], unit) + 1


def test_edit_on_a_line_with_emoji_replaces_the_same_characters_in_every_unit() -> None:
    line = "\tname = 'é😀'  # 日本"
    start, end = line.index("'"), line.index("  #")
    for unit in UNITS:
        edit = Edit("a.py", 2, _column(line, start, unit), 2, _column(line, end, unit), '"x"')
        assert apply_edits(TEXT, [edit], unit) == 'import os\r\n\tname = "x"  # 日本\r\nx=1\n'


def test_an_edit_inside_a_character_does_not_apply() -> None:
    # The emoji is 4 bytes and 2 UTF-16 units: a column between them is not a place in the text.
    line = "\tname = 'é😀'  # 日本"
    inside = line.index("😀")
    assert apply_edits(TEXT, [Edit("a.py", 2, _column(line, inside, "utf-8") + 1, 2, 30, "")], "utf-8") is None
    assert apply_edits(TEXT, [Edit("a.py", 2, _column(line, inside, "utf-16") + 1, 2, 20, "")], "utf-16") is None


def test_edits_past_the_text_or_overlapping_do_not_apply() -> None:
    assert apply_edits(TEXT, [Edit("a.py", 9, 1, 9, 1, "x")], "utf-32") is None
    assert apply_edits(TEXT, [Edit("a.py", 1, 40, 1, 41, "x")], "utf-32") is None
    overlapping = [Edit("a.py", 1, 1, 1, 5, "a"), Edit("a.py", 1, 3, 1, 7, "b")]
    assert apply_edits(TEXT, overlapping, "utf-32") is None
    assert make_fix("t", "safe", overlapping) is None


def test_an_edit_across_a_crlf_line_end_removes_it_whole() -> None:
    edit = Edit("a.py", 1, 1, 2, 1, "")
    assert apply_edits(TEXT, [edit], "utf-32") == "\tname = 'é😀'  # 日本\r\nx=1\n"


def test_offsets_become_positions_in_the_issue_unit() -> None:
    text = "a = '😀'\nb = 1\n"
    start = text.index("b")
    for unit in UNITS:
        offset = length_in(text[:start], unit)
        edit = offsets_to_edit(text, "a.js", offset, offset + 1, "c", offset_unit=unit, column_unit=unit)
        assert edit == Edit("a.js", 2, 1, 2, 2, "c")
    quote = text.index("'") + 1
    edit = offsets_to_edit(text, "a.js", quote, quote + 1, "", offset_unit="utf-32", column_unit="utf-16")
    assert edit == Edit("a.js", 1, 6, 1, 8, "")  # one character, two UTF-16 units
    inside = length_in(text[:quote], "utf-8") + 1
    assert offsets_to_edit(text, "a.js", inside, inside, "", offset_unit="utf-8", column_unit="utf-8") is None


def test_fix_all_takes_the_first_of_two_overlapping_fixes_and_skips_other_files() -> None:
    text = "abcdef\n"
    first = Fix("one", "safe", (Edit("f", 1, 1, 1, 4, "X"),))
    second = Fix("two", "safe", (Edit("f", 1, 3, 1, 5, "Y"),))
    third = Fix("three", "safe", (Edit("f", 1, 6, 1, 7, "Z"),))
    elsewhere = Fix("four", "safe", (Edit("g", 1, 1, 1, 2, "W"),))
    assert fix_all(text, "f", [third, second, first, elsewhere], "utf-32") == ("XdeZ\n", 2)


def test_issue_json_round_trip_keeps_fixes_and_url() -> None:
    fix = make_fix("Remove it", "unsafe", [Edit("a.py", 1, 1, 2, 1, "")])
    issue = make_issue(kind="lint", message="m", source="ruff", file="a.py", line=1, fixes=[fix, None], url="u")
    data = json.loads(json.dumps(issue.to_json()))
    assert data["fixes"][0] == {
        "title": "Remove it",
        "applicability": "unsafe",
        "edits": [{"file": "a.py", "line": 1, "column": 1, "endLine": 2, "endColumn": 1, "newText": ""}],
    }
    assert Issue.from_json(data) == issue
    assert "fixes" not in make_issue(kind="lint", message="m", source="ruff").to_json()


def test_unified_diff_marks_a_missing_final_newline() -> None:
    diff = unified_diff("a.py", "x = 1\ny = 2", "x = 1\ny = 3")
    assert diff.splitlines()[:2] == ["--- a/a.py", "+++ b/a.py"]
    assert "+y = 3\n\\ No newline at end of file\n" in diff
    assert unified_diff("a.py", "same", "same") == ""


_CHARS = st.sampled_from(["a", " ", "\t", "é", "😀", "日", "\r\n", "\n", "\r", "x", "🇫🇷"])


@given(
    pieces=st.lists(_CHARS, min_size=1, max_size=40),
    cuts=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 3), st.text("xyé😀\n", max_size=3)), max_size=4),
    unit=st.sampled_from(UNITS),
)
def test_random_edits_replace_exactly_the_intended_characters(
    pieces: list[str], cuts: list[tuple[int, int, str]], unit: Unit
) -> None:
    text = "".join(pieces)
    # Non-overlapping character spans, turned into positions in `unit` the way a tool would print them.
    spans: list[tuple[int, int, str]] = []
    at = 0
    for skip, width, new in cuts:
        start = min(at + skip % 7, len(text))
        end = min(start + width, len(text))
        if text[start - 1 : start + 1] == "\r\n" or text[end - 1 : end + 1] == "\r\n":
            continue  # a place between \r and \n is inside a line end, not a column a tool can name
        spans.append((start, end, new))
        at = end + 1
    edits = []
    for start, end, new in spans:
        edit = offsets_to_edit(text, "f", length_in(text[:start], unit), length_in(text[:end], unit), new,
                               offset_unit=unit, column_unit=unit)  # fmt: skip
        assert edit is not None
        edits.append(edit)
    expected, last = "", 0
    for start, end, new in spans:
        expected += text[last:start] + new
        last = end
    expected += text[last:]
    assert apply_edits(text, edits, unit) == expected
