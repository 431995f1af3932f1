"""What the node family's parsers share: a script's output cleaned of colours and pnpm's banners, JSON reports
found among a package manager's chatter, silence as a clean run, and a test failure turned into an issue.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lintel.core.issues import Issue, ParseContext, TestFailure, make_issue
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import clean, one_line

# How many places a JSON document may start at before we give up looking (a flood of `[`-lines is not eslint).
_MAX_JSON_STARTS = 200
_LINE_START_JSON = re.compile(r"^[ \t]*([\[{])", re.MULTILINE)
MAX_MESSAGE = 4000

# pnpm's banner for each script it runs (`> pkg@1.0.0 test /w`, then `> vitest run`), at the start of a line.
_PNPM_BANNER = re.compile(r"^> .*\n?", re.MULTILINE)
# pnpm running several scripts at once announces each (`. test:unit$ vitest run`, `packages/a test$ jest`) and
# puts `<dir> <script>: ` before every line the script prints.
_PNPM_ANNOUNCED = re.compile(r"^(?P<prefix>\S+ [^\s$]+)\$ ", re.MULTILINE)


def script_text(text: str) -> str:
    """Colours off, `\n` line ends, pnpm's banners out and its per-script line prefixes taken off."""
    text = _PNPM_BANNER.sub("", clean(text))
    prefixes = {f"{m.group('prefix')}: " for m in _PNPM_ANNOUNCED.finditer(text)}
    if not prefixes:
        return text
    return "\n".join(_unprefixed(line, prefixes) for line in text.split("\n"))


def _unprefixed(line: str, prefixes: set[str]) -> str:
    for prefix in prefixes:
        if line.startswith(prefix):
            return line[len(prefix) :]
        if line == prefix.rstrip():
            return ""
    return line


def both_streams(output: ToolOutput) -> str:
    return script_text("\n".join(part for part in (output.stdout, output.stderr) if part))


def loose_int(value: Any) -> int | None:
    """An int from JSON or from a regex group (digits); never a bool."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


@dataclass(frozen=True)
class JsonDocument:
    """A JSON value and where it sits in the text it was found in."""

    value: Any
    start: int
    end: int


def json_documents(text: str, opener: str) -> Iterator[JsonDocument]:
    """JSON values starting with `opener` at the start of a line, in order, skipping text around them.

    Package managers print banners (`> pkg@1.0.0 lint`) before a script's output and tests may print to
    stdout before jest's report, so the document is found rather than assumed to be the whole stream.
    """
    decoder = json.JSONDecoder()
    position = 0
    for attempt, match in enumerate(_LINE_START_JSON.finditer(text)):
        if attempt >= _MAX_JSON_STARTS:
            return
        start = match.start(1)
        if match.group(1) != opener or start < position:
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # truncated, not JSON, or absurdly nested
            continue
        yield JsonDocument(value, start, end)
        position = end


@dataclass(frozen=True)
class Found:
    document: JsonDocument
    text: str  # the stream it was found in, cleaned
    other: str  # the other stream, cleaned


def find_json(output: ToolOutput, opener: str, accept: Callable[[Any], bool]) -> Found | None:
    """The first document `accept` recognises, from stdout and then stderr."""
    stdout, stderr = script_text(output.stdout), script_text(output.stderr)
    for text, other in ((stdout, stderr), (stderr, stdout)):
        for document in json_documents(text, opener):
            if accept(document.value):
                return Found(document, text, other)
    return None


def clean_exit(output: ToolOutput, text: str) -> bool:
    """Silence with exit 0 is how these tools say 'nothing found'."""
    return output.exit_code == 0 and not _meaningful(text)


def _meaningful(text: str) -> bool:
    """Whether text holds more than package-manager chatter (npm's config warnings, yarn's banner)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("npm warn", "npm WARN", "yarn run v", "Done in ")):
            continue
        if stripped.startswith("$ ") or stripped.startswith("> "):
            continue
        return True
    return False


# --------------------------------------------------------------------------------------------------
# test failures

# A stack frame's location: `at fn (/w/src/a.test.js:9:31)`, `at /w/a.test.js:10:31`, `(file:///w/a.js:9:11)`.
FRAME = re.compile(r"(?:^|[\s(])(?P<file>(?:file://)?[^\s()]+?):(?P<line>\d+):(?P<col>\d+)\)?\s*$", re.MULTILINE)


def frame_line(text: str, file: str | None, ctx: ParseContext) -> int | None:
    """The line of the first stack frame inside `file` (jest prints absolute and root-relative paths)."""
    if file is None:
        return None
    for match in FRAME.finditer(text):
        if ctx.relpath(match.group("file")) == file:
            return int(match.group("line"))
    return None


def squeeze(text: str) -> str:
    """Strip the ends and collapse runs of blank lines, capping the length."""
    squeezed = re.sub(r"\n\s*\n+", "\n\n", text.strip())
    return squeezed[:MAX_MESSAGE]


def failure_issue(failure: TestFailure, source: str) -> Issue:
    return make_issue(
        kind="test",
        message=f"{failure.name} failed: {one_line(failure.message)}",
        source=source,
        severity="error",
        file=failure.file,
        line=failure.line,
    )
