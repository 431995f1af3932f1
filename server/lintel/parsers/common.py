"""Small pieces every parser family needs: colour codes off, JSON read defensively, duplicates dropped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lintel.issues import Issue

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
