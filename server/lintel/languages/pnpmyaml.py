"""The `packages` list of a pnpm-workspace.yaml, read without a YAML library (docs/design.md, Projects)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

log = logging.getLogger(__name__)


def pnpm_workspace_packages(path: Path) -> list[str] | None:
    """The `packages` list of a pnpm-workspace.yaml; None when the file is absent, unreadable or has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    try:
        return parse_pnpm_packages(text)
    except ValueError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None


_TOP_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*|'[^']*'|\"[^\"]*\")\s*:(?:\s+(?P<value>.*))?$")


def parse_pnpm_packages(text: str) -> list[str] | None:
    """The items of the top-level `packages:` sequence of a pnpm-workspace.yaml, or None when it has none.

    Only that one list is read, not YAML at large: block items (`  - packages/*`, quoted or not) or one flow
    sequence (`packages: [a, 'b']`), with `#` comments. Raises ValueError for a `packages` value of another
    shape (pnpm would refuse the file too).
    """
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = _TOP_KEY.match(_strip_comment(line).rstrip())
        if match is None or _unquote(match.group("key")) != "packages":
            continue
        value = (match.group("value") or "").strip()
        if value.startswith("["):
            for more in lines[index + 1 :]:  # a flow sequence may go on over the next lines
                if value.endswith("]"):
                    break
                value += " " + _strip_comment(more).strip()
            return _flow_items(value)
        if value and value not in ("~", "null"):
            raise ValueError(f"`packages` is not a list: {value}")
        return _block_items(lines[index + 1 :])
    return None


def _block_items(lines: list[str]) -> list[str]:
    items: list[str] = []
    for line in lines:
        text = _strip_comment(line).rstrip()
        if not text.strip():
            continue
        if text in ("---", "...") or (not text[0].isspace() and not text.startswith("-")):
            break  # the next top-level key, or the end of the document
        item = text.strip()
        if not item.startswith("-"):
            raise ValueError(f"not a list item under `packages`: {item}")
        items.append(_unquote(item[1:].strip()))
    return items


def _flow_items(value: str) -> list[str]:
    if not value.endswith("]"):
        raise ValueError(f"unterminated list: {value}")
    inner = value[1:-1].strip()
    return [_unquote(item.strip()) for item in _split_flow(inner)] if inner else []


def _split_flow(inner: str) -> list[str]:
    """Comma-separated items, commas inside quotes kept."""
    items, current, quote = [], "", ""
    for char in inner:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            items.append(current)
            current = ""
            continue
        current += char
    return [*items, current] if current.strip() else items


def _strip_comment(line: str) -> str:
    """`line` without its `#` comment: a `#` at the start or after a space, outside quotes."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"" and (index == 0 or line[index - 1] in " -[,:"):
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def _unquote(item: str) -> str:
    """A YAML scalar as pnpm reads it: single quotes with `''` for a quote, double quotes with backslash escapes
    (the ones a path may need), or plain."""
    if len(item) >= 2 and item[0] == item[-1] == "'":
        return item[1:-1].replace("''", "'")
    if len(item) >= 2 and item[0] == item[-1] == '"':
        return re.sub(r'\\(["\\/])', r"\1", item[1:-1])
    if item[:1] in ("'", '"'):
        raise ValueError(f"unterminated string: {item}")
    return item
