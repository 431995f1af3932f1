"""eslint's own fixes in its JSON report (docs/fixes.md, JavaScript and TypeScript), and its rules' pages.

A message's `fix` is what `eslint --fix` applies: a safe Fix. Each of its `suggestions` is offered, never applied
by eslint's fix mode: an unsafe Fix titled by its `desc`. Both are `{range: [start, end], text}`, offsets in
UTF-16 code units into the file's whole text without its byte order mark (eslint's SourceCode strips it, and its
lines and columns count without it too). That text is the result's `output` when eslint fixed the file
(`--fix-dry-run`: the remaining messages are about the fixed text), else its `source` (present whenever the file
has messages, measured on eslint 9.39 and 10.15), else the file on disk, read once and only when a message
carries a fix. `--format json-with-metadata` adds `metadata.rulesMeta[rule].docs.url`: the rule's page.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lintel.core.fixes import Applicability, Edit, Fix, make_fix, offsets_to_edit
from lintel.core.issues import ParseContext
from lintel.languages.parsers.common import json_int, json_object

log = logging.getLogger(__name__)

_BOM = "\ufeff"
# A file this large is no source eslint gave fixes for that lintel should read back from disk.
_MAX_READ = 16 * 1024 * 1024


def rule_urls(metadata: Any) -> dict[str, str]:
    """Each rule's documentation page from json-with-metadata's `metadata.rulesMeta`."""
    urls: dict[str, str] = {}
    for rule, meta in json_object(json_object(metadata).get("rulesMeta")).items():
        url = json_object(json_object(meta).get("docs")).get("url")
        if isinstance(rule, str) and isinstance(url, str) and url.startswith(("https://", "http://")):
            urls[rule] = url
    return urls


def has_fixes(message: Mapping[str, Any]) -> bool:
    return isinstance(message.get("fix"), dict) or bool(message.get("suggestions"))


class ResultText:
    """The text one eslint result's fix ranges count into, found once and only when a message needs it."""

    def __init__(self, result: Mapping[str, Any], ctx: ParseContext) -> None:
        self._result = result
        self._ctx = ctx
        self._text: str | None = None
        self._looked = False

    def get(self) -> str | None:
        if not self._looked:
            self._looked = True
            text = self._from_report() or self._from_disk()
            self._text = text[1:] if text is not None and text.startswith(_BOM) else text
        return self._text

    def _from_report(self) -> str | None:
        for key in ("output", "source"):
            value = self._result.get(key)
            if isinstance(value, str):
                return value
        return None

    def _from_disk(self) -> str | None:
        printed = self._result.get("filePath")
        if not isinstance(printed, str) or not printed:
            return None
        path = Path(printed)
        if not path.is_absolute():
            path = Path(self._ctx.cwd) / path
        try:
            if path.stat().st_size > _MAX_READ:
                log.info("eslint's fixes for %s are dropped: the file is too large to read back", path)
                return None
            return path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.info("eslint's fixes for %s are dropped: cannot read the file (%s)", path, exc)
            return None


def message_fixes(message: Mapping[str, Any], text: ResultText, file: str, rule: str | None) -> list[Fix]:
    """The message's fix (safe) then its suggestions (unsafe), those whose ranges fit the text."""
    if not has_fixes(message):
        return []
    source = text.get()
    if source is None:
        return []
    fixes: list[Fix] = []
    raw = message.get("fix")
    if isinstance(raw, dict):
        title = f"Fix this {rule} problem" if rule else "Fix this problem"
        fixes.extend(_fix(source, file, raw, title, "safe"))
    suggestions = message.get("suggestions")
    for suggestion in suggestions if isinstance(suggestions, list) else []:
        suggestion = json_object(suggestion)
        desc = suggestion.get("desc")
        title = desc if isinstance(desc, str) and desc.strip() else f"Suggestion for {rule or 'this problem'}"
        fixes.extend(_fix(source, file, json_object(suggestion.get("fix")), title, "unsafe"))
    return fixes


def _fix(source: str, file: str, raw: Mapping[str, Any], title: str, applicability: Applicability) -> list[Fix]:
    edit = _edit(source, file, raw)
    if edit is None:
        log.info("eslint's fix %r for %s is dropped: its range does not fit the file's text", title, file)
        return []
    fix = make_fix(title, applicability, [edit])
    return [fix] if fix is not None else []


def _edit(source: str, file: str, raw: Mapping[str, Any]) -> Edit | None:
    span, new_text = raw.get("range"), raw.get("text")
    if not isinstance(span, list) or len(span) != 2 or not isinstance(new_text, str):
        return None
    start, end = json_int(span[0]), json_int(span[1])
    if start is None or end is None:
        return None
    return offsets_to_edit(source, file, start, end, new_text, offset_unit="utf-16", column_unit="utf-16")
