"""File names that are not UTF-8, kept exact (docs/architecture.md, Records).

lintel holds a name as `os.fsdecode` gives it: the bytes that are not UTF-8 become lone surrogates
(surrogateescape), so `os.fsencode` gives the name back. Tools are less careful: ruff (Rust's `to_string_lossy`)
and lintel's own decoding of a tool's output print U+FFFD where those bytes were. `recover` finds the name on disk
whose lossy form the tool printed. Each report format then writes the exact name its own way (`json_text`,
`backslashed`, `uri_path`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lintel.core.issues import Issue, make_signature

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def lossy(name: str) -> str:
    """What a tool that decodes with replacement prints for `name`."""
    return os.fsencode(name).decode("utf-8", "replace")


def recover(root: Path, printed: str) -> str:
    """`printed` (relative to `root` or absolute, `/`-separated) with each part holding U+FFFD replaced by the one
    entry of its folder whose lossy form it is; `printed` as it was when no entry, or more than one, matches."""
    if REPLACEMENT not in printed:
        return printed
    absolute = printed.startswith("/")
    folder = Path("/") if absolute else root
    parts: list[str] = []
    for part in printed.split("/"):
        if part and REPLACEMENT in part:
            try:
                names = os.listdir(folder)
            except OSError:
                return printed
            matches = [name for name in names if name != part and lossy(name) == part]
            if len(matches) != 1:
                return printed
            part = matches[0]
        parts.append(part)
        folder = folder / part if part else folder
    return "/".join(parts)


def recover_issues(issues: Iterable[Issue], root: Path) -> list[Issue]:
    """The issues with their files' exact names (and the signatures that name them)."""
    found: dict[str, str] = {}
    out: list[Issue] = []
    for issue in issues:
        file = issue.file
        if file is None or REPLACEMENT not in file:
            out.append(issue)
            continue
        exact = found.setdefault(file, recover(root, file))
        if exact != file:
            issue = replace(issue, file=exact, signature=make_signature(issue.kind, exact, issue.line, issue.message))
        out.append(issue)
    return out


def json_text(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with each lone surrogate written `\\udcXX`: valid
    UTF-8, and `json.loads` then `os.fsencode` give the exact bytes back. JSON strings cannot carry raw bytes."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def backslashed(name: str) -> str:
    """The name with each byte that is not UTF-8 written `\\xNN` (where the format is UTF-8 text only)."""
    return os.fsencode(name).decode("utf-8", "backslashreplace") if _SURROGATE.search(name) else name


def uri_path(name: str) -> str:
    """A relative URI reference for the name: as it is when it is UTF-8, else its bytes percent-encoded."""
    return quote(os.fsencode(name), safe="/") if _SURROGATE.search(name) else name


def utf8_only(value: Any) -> Any:
    """`value` (JSON-shaped) with `backslashed` strings: for a channel whose serializer refuses lone surrogates
    (the MCP SDK's pydantic); its JSON text content keeps the exact `\\udcXX` form."""
    if isinstance(value, str):
        return backslashed(value)
    if isinstance(value, dict):
        return {utf8_only(k): utf8_only(v) for k, v in value.items()}
    if isinstance(value, list):
        return [utf8_only(v) for v in value]
    return value
