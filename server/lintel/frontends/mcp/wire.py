"""The MCP connection's input, checked line by line before the SDK reads it: every request gets an answer.

The SDK answers a request only once it has parsed into a JSON-RPC request; a line that does not (another or no
`jsonrpc`, `params` that are not an object, a `method` that is not a string) it drops, and the client waits
forever. Here each such request is answered with the JSON-RPC error it earns (-32600 invalid request, -32602
invalid params) and logged in one line; notifications, and lines that are not JSON (no id to answer), are dropped
with a log line.
"""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

Reply = Callable[[dict[str, Any]], Awaitable[None]]


def problem(line: str) -> tuple[Any, int, str] | None:
    """(id, code, message) when `line` is not a message the SDK can take; id None when it has none to answer
    (a notification or garbage without an id is dropped, a request is answered). None for a good message."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        return None, PARSE_ERROR, f"not JSON: {exc}"
    if not isinstance(data, dict):
        return None, INVALID_REQUEST, f"a JSON-RPC message must be an object, not {type(data).__name__}"
    msg_id = data.get("id")
    answerable = isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)
    if data.get("jsonrpc") != "2.0":
        return (msg_id if answerable else None), INVALID_REQUEST, "not a JSON-RPC 2.0 message (jsonrpc must be 2.0)"
    if "method" not in data:
        return None  # a response to one of lintel's requests: the SDK's to read
    if not isinstance(data["method"], str):
        return (msg_id if answerable else None), INVALID_REQUEST, "method must be a string"
    if "params" in data and not isinstance(data["params"], dict):
        return (msg_id if answerable else None), INVALID_PARAMS, "params must be an object"
    if "id" in data and not answerable:
        return None, INVALID_REQUEST, "id must be a string or an integer"
    return None


class CheckedLines:
    """The lines of the wire for the SDK's reader, less those answered or dropped here."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines
        self.reply: Reply | None = None  # set once the SDK's write stream exists

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for line in self._lines:
            if not line.strip():
                continue
            found = problem(line)
            if found is None:
                yield line
                continue
            msg_id, code, message = found
            log.info("refused a message (%d %s): %.200s", code, message, line.strip())
            if msg_id is not None and self.reply is not None:
                await self.reply({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def wire_stdin() -> AsyncIterator[str]:
    """The MCP client's lines from fd 0, read through a private duplicate, fd 0 itself pointed at the null device
    (as the SDK's own stdio transport does): nothing lintel starts or imports can read the wire."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    text = io.TextIOWrapper(os.fdopen(private, "rb", closefd=True), encoding="utf-8", errors="replace")
    return anyio.wrap_file(text).__aiter__()
