"""JSON-RPC framing on the hot path of relaying: reading `Content-Length` framed messages from a pipe,
encoding one, and writing them coalesced; and the JSON-lines framing of lintel's own workers (LineReader).

Used for both of lintel's connections, to the editor and to each child language server. pygls does the same
work per message with more machinery (a structuring hook on every JSON object, a flush per message); a relayed
navigation request crosses four of these pipes, so their cost is lintel's added latency and CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable
from typing import Any

from lintel.core import jsonwire

log = logging.getLogger(__name__)


def encode(message: Any) -> bytes:
    body = jsonwire.dumps(message)  # UTF-8, as LSP's default content type is
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class MessageReader(asyncio.Protocol):
    """Content-Length framed messages, parsed as the bytes arrive and each handed to `on_message` at once.

    Cheaper than an asyncio.StreamReader and a reading task (readline, readline, readexactly: a task wake-up
    and three coroutine calls per message), which mattered: every relayed request is four messages. `done`
    resolves when the pipe closes. An exception from `on_message` is logged; the next message is read.

    A bad frame (no or a nonsense length, a length too short or too long) must not misalign every message after
    it: the reader looks for the next `Content-Length` header wherever it is, drops what lies before it (logged),
    and a body holding a real header line (CR/LF bytes, which JSON never has outside whitespace) gives it back.
    """

    def __init__(self, on_message: Callable[[bytes], None], name: str) -> None:
        self._on_message = on_message
        self._name = name
        self._buffer = bytearray()
        self._length = -1  # the current message's body length once its headers are read
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        while True:
            if self._length < 0 and not self._read_headers():
                return
            if len(buffer) < self._length:
                return
            body = bytes(buffer[: self._length])
            del buffer[: self._length]
            self._length = -1
            swallowed = _HEADER_IN_BODY.search(body) if b"\n" in body else None
            if swallowed is not None:
                # The length was too long: it took in the next message's headers. Give them back.
                buffer[0:0] = body[swallowed.start() :]
                body = body[: swallowed.start()]
                log.error("%s: a message's Content-Length runs into the next message; reading on from it", self._name)
            try:
                self._on_message(body)
            except Exception as exc:
                # One line a message (a flood of bad ones must not flood the log); the traceback at DEBUG.
                log.error("%s: cannot handle a message (%s: %.200s): %.300r", self._name, type(exc).__name__, exc, body)
                log.debug("the message's error", exc_info=exc)

    def _read_headers(self) -> bool:
        """Consume the next header block; False when more bytes are needed."""
        buffer = self._buffer
        while True:
            header = _LENGTH_HEADER.search(buffer)
            if header is None:
                # Keep what could be the start of a header split across reads; the rest is not a message.
                excess = len(buffer) - _KEEP
                if excess > 0:
                    self._drop(excess)
                return False
            blank = _BLANK_LINE.search(buffer, header.start())
            if blank is None:
                return False
            if header.start() and not _OTHER_HEADERS.fullmatch(buffer, 0, header.start()):
                self._drop(header.start())
                continue
            value = header.group(1).strip()
            if not value.isdigit():
                log.error("%s: ignoring a message with Content-Length %.40r", self._name, bytes(value))
                del buffer[: header.end()]
                continue
            del buffer[: blank.end()]
            self._length = int(value)
            return True

    def _drop(self, count: int) -> None:
        log.error(
            "%s: skipping %d bytes without a valid Content-Length header: %.80r",
            self._name,
            count,
            bytes(self._buffer[:count]),
        )
        del self._buffer[:count]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


# LSP ends header lines with \r\n; some servers write bare \n, which is read as well.
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
_LENGTH_HEADER = re.compile(rb"(?i)content-length[ \t]*:([^\r\n]*)\r?\n")
# Header lines before Content-Length (Content-Type): part of the frame, not garbage.
_OTHER_HEADERS = re.compile(rb"(?:[A-Za-z][A-Za-z0-9-]*[ \t]*:[^\r\n]*\r?\n)*")
# A header line with its real line break: never inside a JSON body (strings escape CR and LF).
_HEADER_IN_BODY = re.compile(rb"(?i)content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n")
_KEEP = 64


class LineReader(asyncio.Protocol):
    """Newline-delimited messages, each handed to `on_message` (without its newline) as it arrives; `done`
    resolves when the pipe closes. A line longer than `limit` bytes is not read: `on_overflow` is called once and
    nothing more is handed on (the writer is broken)."""

    def __init__(
        self, on_message: Callable[[bytes], None], name: str, *, limit: int, on_overflow: Callable[[int], None]
    ) -> None:
        self._on_message = on_message
        self._name = name
        self._limit = limit
        self._on_overflow = on_overflow
        self._buffer = bytearray()
        self._broken = False
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        if self._broken:
            return
        buffer = self._buffer
        start = len(buffer)
        buffer += data
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            start = 0
            if line.strip():
                try:
                    self._on_message(line)
                except Exception as exc:
                    log.error(
                        "%s: cannot handle a line (%s: %.200s): %.300r", self._name, type(exc).__name__, exc, line
                    )
                    log.debug("the line's error", exc_info=exc)
        if len(buffer) > self._limit:
            self._broken = True
            self._buffer = bytearray()
            self._on_overflow(self._limit)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._broken and self._buffer.strip():
            line, self._buffer = bytes(self._buffer), bytearray()
            with contextlib.suppress(Exception):
                self._on_message(line)
        if not self.done.done():
            self.done.set_result(None)


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
