"""JSON-RPC framing on the hot path of relaying: reading `Content-Length` framed messages from an asyncio
stream, encoding one, and writing them coalesced.

Used for both of lintel's connections, to the editor and to each child language server. pygls does the same
work per message with more machinery (a structuring hook on every JSON object, a flush per message); a relayed
navigation request crosses four of these pipes, so their cost is lintel's added latency and CPU.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

_ENCODE = json.JSONEncoder(separators=(",", ":")).encode  # ASCII only: its length is the byte count


def encode(message: Any) -> bytes:
    body = _ENCODE(message).encode("ascii")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def read_message(stream: asyncio.StreamReader) -> bytes | None:
    """The next message body, None at the end of input. Headers other than Content-Length are skipped,
    and so is a header block without a usable one (logged)."""
    while True:
        length = -1
        while True:
            line = await stream.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    length = -1
        if length < 0:
            log.error("ignoring a message without a valid Content-Length header")
            continue
        try:
            return await stream.readexactly(length)
        except asyncio.IncompleteReadError:
            return None


class BatchWriter:
    """Messages written during one turn of the event loop go out as one write at the end of it.

    A burst of requests (an editor with several in flight) or of answers then costs one system call and one
    wake-up of the reader instead of one per message. Order is kept: everything sent on a connection goes
    through its BatchWriter (pygls's writes too, see `set_writer`). Outside an event loop it writes at once.
    """

    def __init__(self, sink: Callable[[bytes], Any], name: str) -> None:
        self._sink = sink
        self._name = name
        self._chunks: list[bytes] = []
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:
            return
        if not self._chunks:
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:  # no loop: a synchronous caller (interpreter exit)
                self._chunks.append(data)
                self.flush()
                return
        self._chunks.append(data)

    def flush(self) -> None:
        if not self._chunks:
            return
        data = b"".join(self._chunks) if len(self._chunks) > 1 else self._chunks[0]
        self._chunks = []
        if self._closed:
            return
        try:
            self._sink(data)
        except (BrokenPipeError, ConnectionResetError) as exc:
            log.error("the connection to %s is lost (%s); nothing more is sent to it", self._name, exc)
            self._closed = True
        except OSError as exc:
            log.error("cannot write to %s: %s", self._name, exc)

    def close(self) -> None:
        self.flush()
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed
