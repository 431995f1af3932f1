"""golangci-lint's own fixes: an issue's `SuggestedFixes`, each `{Message, TextEdits: [{Pos, End, NewText}]}`.

Pos and End are byte offsets into the issue's file (measured, golangci-lint v2.15: `text[Pos:End]` is what the
fix replaces, in every file of a multi-package run) and NewText is base64, Go's JSON form of `[]byte` (null for
a deletion). They are turned into edits against the file's text (ParseContext.read_text), byte columns, and
checked: a fix is dropped, with a log line, when the file's lines no longer read as the issue's SourceLines (it
changed since the run), when an offset falls outside the text or inside a character, or when none of its edits
touches the flagged lines. revive's whole-line edits are printed as token.Pos, past the offset by the file's
base (`for` at 92 where the line starts at 91), and golangci-lint's `--fix` only comes out right because it
gofmts what it wrote: such an edit, not starting a line, is dropped. golangci-lint v2 no longer prints the
line-based `Replacement` of v1. Its JSON names no rule page, so these issues carry no url.

Every fix is `safe`: it is what `golangci-lint run --fix` applies.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Mapping
from typing import Any

from lintel.core.fixes import Edit, Fix, make_fix, offsets_to_edit
from lintel.core.issues import ParseContext
from lintel.core.positions import split_lines
from lintel.languages.parsers.common import json_int

log = logging.getLogger(__name__)

# Linters whose every edit replaces whole lines (revive's ReplacementLine).
_WHOLE_LINES = frozenset({"revive"})


def golangci_fixes(raw: Mapping[str, Any], file: str | None, ctx: ParseContext) -> tuple[Fix, ...]:
    """The issue's suggested fixes as edits of `file` (root-relative), those that apply cleanly to its text."""
    suggested = raw.get("SuggestedFixes")
    if not isinstance(suggested, list) or not suggested or file is None or file.startswith("/"):
        return ()
    text = ctx.read_text(file) if ctx.read_text is not None else None
    if text is None:
        log.info("golangci-lint's fixes for %s left out: its text could not be read", file)
        return ()
    lines = split_lines(text)
    pos = raw.get("Pos")
    line = json_int(pos.get("Line")) if isinstance(pos, dict) else None
    if line is not None and not _same_lines(raw.get("SourceLines"), lines, line):
        log.info("golangci-lint's fixes for %s:%s left out: the file changed since the run", file, line)
        return ()
    flagged = _flagged_lines(raw, line)
    linter = str(raw.get("FromLinter") or "")
    title = str(raw.get("Text") or "").strip().splitlines()[:1]
    fixes: list[Fix] = []
    for item in suggested:
        if not isinstance(item, dict):
            continue
        edits = _edits(item.get("TextEdits"), text, file, linter)
        if edits is None or (flagged is not None and not any(_touches(edit, flagged) for edit in edits)):
            log.info("golangci-lint's fix %r for %s:%s dropped: it does not apply to the file", item, file, line)
            continue
        fix = make_fix(str(item.get("Message") or "").strip() or (title[0] if title else ""), "safe", edits)
        if fix is not None:
            fixes.append(fix)
    return tuple(fixes)


def _same_lines(source_lines: Any, lines: list[str], line: int) -> bool:
    """Whether the file's lines from `line` on are the SourceLines golangci-lint printed (when it printed any)."""
    if not isinstance(source_lines, list) or not source_lines:
        return True
    return lines[line - 1 : line - 1 + len(source_lines)] == source_lines


def _flagged_lines(raw: Mapping[str, Any], line: int | None) -> tuple[int, int] | None:
    if line is None or line < 1:
        return None
    span = raw.get("LineRange")
    last = json_int(span.get("To")) if isinstance(span, dict) else None
    return (line, max(line, last or line))


def _touches(edit: Edit, flagged: tuple[int, int]) -> bool:
    return edit.line <= flagged[1] and edit.end_line >= flagged[0]


def _edits(text_edits: Any, text: str, file: str, linter: str) -> list[Edit] | None:
    """The edits of one fix, None when one of them does not fall on character boundaries of the text."""
    if not isinstance(text_edits, list) or not text_edits:
        return None
    edits: list[Edit] = []
    for item in text_edits:
        if not isinstance(item, dict):
            return None
        start, end, new_text = json_int(item.get("Pos")), json_int(item.get("End")), _new_text(item.get("NewText"))
        if start is None or end is None or new_text is None:
            return None
        edit = offsets_to_edit(text, file, start, end, new_text, offset_unit="utf-8", column_unit="utf-8")
        if edit is None or (linter in _WHOLE_LINES and edit.column != 1):
            return None
        edits.append(edit)
    return edits


def _new_text(value: Any) -> str | None:
    """NewText: base64 of UTF-8 bytes; null or absent for a deletion."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
