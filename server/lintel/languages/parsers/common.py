"""Small pieces every parser family needs: colour codes off, JSON read defensively, duplicates dropped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lintel.core.issues import Issue

# Colour codes, and the `ESC ( B` charset reset some terminal libraries (rustfmt's) print even into pipes.
ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z])")
MAX_HINT = 2000


def clean(text: str) -> str:
    """Colours off and `\n` line ends: what every text format is matched against."""
    return ANSI.sub("", text).replace("\r\n", "\n")


def one_line(text: str) -> str:
    return " ".join(text.split())


def json_int(value: Any) -> int | None:
    """An int from JSON, refusing bools and anything else a hand-edited report might hold."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def json_object(value: Any) -> dict[str, Any]:
    """A JSON object, or an empty one for anything else (reports are read defensively)."""
    return value if isinstance(value, dict) else {}


def json_value(text: str, opener: str) -> Any:
    """The first JSON value in `text` starting with `opener` at the start of a line, ignoring banners before it."""
    stripped = text.strip()
    if stripped.startswith(opener):
        start = 0
    else:
        found = stripped.find("\n" + opener)
        if found < 0:
            return None
        start = found + 1
    try:
        value, _ = json.JSONDecoder().raw_decode(stripped[start:])
    except ValueError:
        return None
    return value


class MalformedJson(ValueError):
    """A JSON array that stops making sense part way (cut short, or not JSON after all)."""


_BLANK = re.compile(r"[ \t\n\r]*")


def json_array_items(text: str) -> Iterator[Any] | None:
    """The elements of the first JSON array in `text` that starts a line (banners before it ignored), decoded
    one at a time: a tool's 100,000 findings never exist as one parsed list beside the Issues made from them.
    None when there is no such array; the iterator raises MalformedJson where the array stops being one."""
    first = _BLANK.match(text).end()  # type: ignore[union-attr]  # `*` always matches
    if text.startswith("[", first):
        start = first
    else:
        found = text.find("\n[")
        if found < 0:
            return None
        start = found + 1
    return _array_items(text, start)


def _array_items(text: str, start: int) -> Iterator[Any]:
    decoder = json.JSONDecoder()
    blank = _BLANK.match
    at = blank(text, start + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", at):
        return
    while True:
        try:
            value, at = decoder.raw_decode(text, at)
        except ValueError as exc:
            raise MalformedJson(f"not a JSON array past offset {at}: {exc}") from exc
        yield value
        at = blank(text, at).end()  # type: ignore[union-attr]
        separator = text[at : at + 1]
        if separator == "]":
            return
        if separator != ",":
            raise MalformedJson(f"expected , or ] at offset {at}")
        at = blank(text, at + 1).end()  # type: ignore[union-attr]


def split_message(text: str) -> tuple[str, str | None]:
    """A one-line message and the detail lines below it (pyright and pytest messages span lines)."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    if not lines:
        return "", None
    detail = "\n".join(line.strip() for line in lines[1:] if line.strip())
    return lines[0].strip(), (detail[:MAX_HINT] or None)


def first_time(issue: Issue, seen: set[tuple[Any, ...]]) -> bool:
    """False for an issue identical to one already kept (tools that build a file twice report it twice)."""
    key = (issue.kind, issue.file, issue.line, issue.column, issue.rule, issue.severity, issue.message)
    if key in seen:
        return False
    seen.add(key)
    return True


def json_lines(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of a stream that prints one per line (go test -json, cargo's messages); other lines are
    skipped, and so is a truncated stream's last, cut-off object (the ones before it still count)."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value
