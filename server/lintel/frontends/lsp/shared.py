"""Small types the server core (app.py) and its features share, so that neither has to import the other."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path


class _NotForwarded:
    def __repr__(self) -> str:
        return "NOT_FORWARDED"


# What a ForwardCommand returns when no language server offers the command.
NOT_FORWARDED: Any = _NotForwarded()

# A command that is not lintel's, run by the language server that offers it (navigation.py provides,
# commands.py calls); NOT_FORWARDED when none does.
ForwardCommand = Callable[[str, Any], Awaitable[Any]]

# `lintel.restartServers`: the child language servers (of a language, or all) restarted (navigation.py provides,
# commands.py calls); what was restarted, as the command's JSON result.
RestartServers = Callable[["str | None"], Awaitable[Any]]


class RawJson:
    """A child's result on its way to the editor, serialised by json.dumps as it is: cattrs would otherwise
    walk it (the JSON-RPC response's `result` is typed Any) — several times slower on a large completion list."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def uri_path(uri: str) -> Path | None:
    """The file a `file:` URI names; None for other schemes, and for `%00` (no file has a NUL in its name)."""
    fs = to_fs_path(uri)
    return Path(fs) if fs and "\0" not in fs else None
