"""LSP lines end only at \\n, \\r\\n and \\r: the characters str.splitlines also breaks at (\\x0b, \\x0c,
\\x1c-\\x1e, \\x85, \\u2028, \\u2029) must shift neither lines, columns nor fingerprints."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st
from lintel.core.issues import SourceLines, finalize_issues, make_issue
from lintel.core.positions import split_lines

NOT_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
BREAKS = ("\n", "\r\n", "\r")

pieces = st.text(alphabet=st.sampled_from(["a", "é", "😀", " ", *NOT_BREAKS]), max_size=12)


@given(st.lists(st.tuples(pieces, st.sampled_from(BREAKS)), max_size=8), pieces)
def test_lines_are_what_lies_between_lsp_line_breaks(lines: list[tuple[str, str]], last: str) -> None:
    # A \r end then an empty line ending \n is one \r\n break, not two: not a case of this property.
    assume(not any(a[1] == "\r" and b[0] == "" and b[1] == "\n" for a, b in itertools.pairwise(lines)))
    text = "".join(body + end for body, end in lines) + last
    assert split_lines(text) == [body for body, _ in lines] + [last]


def test_fingerprints_read_the_line_the_tool_named(tmp_path: Path) -> None:
    # Two different unused imports on lines 3 and 5, after lines holding a form feed and a \u2028 in a string.
    (tmp_path / "m.py").write_text('x = "\u2028"\n\x0c\nimport os\n\x0c\nimport sys\n', encoding="utf-8", newline="")
    found = [
        make_issue(kind="lint", message=f"`{name}` imported but unused", source="ruff", file="m.py", line=line)
        for name, line in (("os", 3), ("sys", 5))
    ]
    reader = SourceLines(tmp_path)
    assert [reader("m.py", 3), reader("m.py", 5)] == ["import os", "import sys"]
    first, second = finalize_issues(found, reader)
    assert first.fingerprint != second.fingerprint
