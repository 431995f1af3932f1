"""Test names in JavaScript and TypeScript test files, read from the source: the `describe`/`it`/`test` calls
whose first argument is a string literal, with the lines their callbacks span. Enough to turn `file:line`
into a test's name (its suites' titles, then its own) and to check that a name exists; titles built at run
time (`test.each`, template literals with `${}`) are not found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_CALL = re.compile(
    r"\b(?P<kind>describe|suite|context|it|test|specify)(?:\.(?:only|skip|todo|concurrent|sequential))*\s*\(\s*"
    r"(?P<quote>['\"`])(?P<title>(?:\\.|(?!(?P=quote)).)*?)(?P=quote)"
)
_SUITES = frozenset({"describe", "suite", "context"})


@dataclass(frozen=True)
class JsTest:
    path: tuple[str, ...]  # suite titles, then the test's (or the suite's own) title
    suite: bool
    first: int
    last: int


def scan(file: Path) -> list[JsTest]:
    """Every titled suite and test in the file, outermost first."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    calls = list(_calls(text))
    out: list[JsTest] = []
    for kind, title, first, last in calls:
        parents = [
            t for k, t, f, la in calls if k in _SUITES and f <= first and last <= la and (f, la) != (first, last)
        ]
        out.append(JsTest((*parents, title), kind in _SUITES, first, last))
    return out


def _calls(text: str) -> Iterator[tuple[str, str, int, int]]:
    """(kind, title, first line, last line) of each call; the call ends where its parenthesis closes."""
    for match in _CALL.finditer(text):
        title = match.group("title")
        if match.group("quote") == "`" and "${" in title:
            continue
        start = match.start()
        end = _closing(text, text.index("(", start))
        first = text.count("\n", 0, start) + 1
        yield match.group("kind"), _unescape(title), first, text.count("\n", 0, end) + 1


def _closing(text: str, opening: int) -> int:
    """The index of the parenthesis that closes the one at `opening`, skipping strings and comments."""
    depth = 0
    index = opening
    while index < len(text):
        char = text[index]
        if char in "'\"`":
            index = _string_end(text, index)
        elif text.startswith("//", index):
            index = text.find("\n", index)
            index = len(text) if index < 0 else index
        elif text.startswith("/*", index):
            index = text.find("*/", index)
            index = len(text) if index < 0 else index + 1
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return len(text) - 1


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    index = start + 1
    while index < len(text) and text[index] != quote:
        index += 2 if text[index] == "\\" else 1
    return index


def _unescape(title: str) -> str:
    return re.sub(r"\\(.)", r"\1", title)


def at_line(file: Path, line: int) -> JsTest | None:
    """The innermost test (or suite) whose call spans the line."""
    around = [t for t in scan(file) if t.first <= line <= t.last]
    return max(around, key=lambda t: (len(t.path), t.first)) if around else None


def declares(file: Path, path: tuple[str, ...]) -> bool:
    """Whether the file declares a test or suite with these titles (suites first)."""
    return any(t.path == path for t in scan(file))
