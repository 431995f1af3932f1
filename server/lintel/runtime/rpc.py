"""The one request/answer connection to a long-lived child (a language server, `ruff server`, the eslint worker):
ids, requests in flight with their timeouts, every one failed when the child ends, cancellation, notifications both
ways, and the child's own requests answered through a callback. How messages look on the wire is a Dialect: LSP
(`Content-Length` framed JSON-RPC) or JSON lines (lintel's workers)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from lintel.core import jsonwire
from lintel.runtime.child_process import ChildProcess, Reader
from lintel.runtime.clock import Clock, LoopClock, Timer
from lintel.runtime.wire import BatchWriter, LineReader, MessageReader, encode

log = logging.getLogger(__name__)

# Called once with a request's result, or with the error instead.
Answer = Callable[[Any, "BaseException | None"], None]
# (method, params) of a request from the child: its result (or an awaitable of it); an exception answers an error.
RequestHandler = Callable[[str, Any], Any]
# (method, params) of a notification from the child; method None for a JSON-lines message that is no answer.
NotificationHandler = Callable[["str | None", Any], None]

METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800


class RequestTimeout(TimeoutError):
    """The child did not answer a request within its timeout (the request is withdrawn)."""

    def __init__(self, message: str, method: str, seconds: float) -> None:
        super().__init__(message)
        self.method = method
        self.seconds = seconds


class RemoteError(Exception):
    """An error answer, or one lintel gives to a request of the child's (a handler raising it sets the code)."""

    def __init__(self, message: str, code: int = INTERNAL_ERROR, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data


def remote_error(error: Mapping[str, Any]) -> Exception:
    message = error.get("message")
    code = error.get("code")
    return RemoteError(
        message if isinstance(message, str) else "the child answered an error",
        code if isinstance(code, int) else INTERNAL_ERROR,
        error.get("data"),
    )


class Dialect(Protocol):
    """How one protocol frames and shapes messages."""

    def reader(self, on_message: Callable[[bytes], None], label: str, on_overflow: Callable[[int], None]) -> Reader: ...

    def encode(self, message: Mapping[str, Any]) -> bytes: ...

    def request(self, msg_id: int | str, method: str, params: Any) -> dict[str, Any]: ...

    def notification(self, method: str, params: Any) -> dict[str, Any]: ...

    def cancel(self, msg_id: int | str) -> dict[str, Any]: ...

    def response(self, msg_id: Any, result: Any, error: RemoteError | None) -> dict[str, Any] | None: ...

    def answer(self, message: dict[str, Any]) -> tuple[Any, Mapping[str, Any] | None]:
        """The result of an answer, or its error object."""

    def kind(self, message: dict[str, Any]) -> str:
        """One of "answer", "request", "notification"."""

    def params(self, message: dict[str, Any]) -> Any:
        """A request's or notification's params."""


class Lsp:
    """JSON-RPC 2.0 in `Content-Length` frames; `$/cancelRequest` withdraws a request."""

    def reader(self, on_message: Callable[[bytes], None], label: str, on_overflow: Callable[[int], None]) -> Reader:
        return MessageReader(on_message, label)

    def encode(self, message: Mapping[str, Any]) -> bytes:
        return encode(message)

    def request(self, msg_id: int | str, method: str, params: Any) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:  # JSON-RPC: params, when present, are an object or an array
            message["params"] = params
        return message

    def notification(self, method: str, params: Any) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return message

    def cancel(self, msg_id: int | str) -> dict[str, Any]:
        return self.notification("$/cancelRequest", {"id": msg_id})

    def response(self, msg_id: Any, result: Any, error: RemoteError | None) -> dict[str, Any] | None:
        if error is None:
            return {"jsonrpc": "2.0", "id": msg_id, "result": result}
        fault: dict[str, Any] = {"code": error.code, "message": error.message}
        if error.data is not None:
            fault["data"] = error.data
        return {"jsonrpc": "2.0", "id": msg_id, "error": fault}

    def answer(self, message: dict[str, Any]) -> tuple[Any, Mapping[str, Any] | None]:
        error = message.get("error")
        return (None, error) if isinstance(error, dict) else (message.get("result"), None)

    def kind(self, message: dict[str, Any]) -> str:
        if "method" not in message:
            return "answer"
        return "request" if "id" in message else "notification"

    def params(self, message: dict[str, Any]) -> Any:
        return message.get("params")


class JsonLines:
    """One JSON object a line. A request is its fields plus an `id`; its answer is the object carrying that `id`,
    whole; `{"cancel": id}` withdraws it. An object without an `id` is a notification (a greeting)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit  # the longest line read, in bytes

    def reader(self, on_message: Callable[[bytes], None], label: str, on_overflow: Callable[[int], None]) -> Reader:
        return LineReader(on_message, label, limit=self.limit, on_overflow=on_overflow)

    def encode(self, message: Mapping[str, Any]) -> bytes:
        return jsonwire.dumps(message) + b"\n"

    def request(self, msg_id: int | str, method: str, params: Any) -> dict[str, Any]:
        return {**(params or {}), "id": msg_id}

    def notification(self, method: str, params: Any) -> dict[str, Any]:
        return dict(params or {})

    def cancel(self, msg_id: int | str) -> dict[str, Any]:
        return {"cancel": msg_id}

    def response(self, msg_id: Any, result: Any, error: RemoteError | None) -> dict[str, Any] | None:
        return None  # the workers ask nothing of lintel

    def answer(self, message: dict[str, Any]) -> tuple[Any, Mapping[str, Any] | None]:
        return message, None

    def kind(self, message: dict[str, Any]) -> str:
        return "answer" if "id" in message else "notification"

    def params(self, message: dict[str, Any]) -> Any:
        return message


@dataclass(frozen=True)
class Callbacks:
    """What the owner does with what the child sends on its own: its notifications, its requests (None: each is
    answered MethodNotFound), and its end (how it ended; None: every request fails with that)."""

    on_notification: NotificationHandler | None = None
    on_request: RequestHandler | None = None
    on_end: Callable[[str], None] | None = None


class Connection:
    """Requests and notifications over one ChildProcess. `send` (callback) and `request` (awaitable) write at
    the call; every request in flight fails with `failed(reason)` when `fail` is called (the child ended, or
    its owner gave up on it); a late answer to a cancelled or timed-out request is dropped."""

    def __init__(
        self,
        process: ChildProcess,
        dialect: Dialect,
        *,
        label: str,
        failed: Callable[[str], Exception],
        answered_error: Callable[[Mapping[str, Any]], Exception] = remote_error,
        callbacks: Callbacks = Callbacks(),
        clock: Clock | None = None,
        id_prefix: str = "",
    ) -> None:
        self.process = process
        self.label = label
        self.failure: str | None = None  # why it can carry no more requests (set once)
        self._dialect = dialect
        self._failed = failed
        self._answered_error = answered_error
        self._on_notification = callbacks.on_notification
        self._on_request = callbacks.on_request
        self._on_end = callbacks.on_end
        self._clock = clock or LoopClock()
        self._prefix = id_prefix
        self._ids = itertools.count(1)
        self._pending: dict[int | str, tuple[Answer, Timer | None]] = {}
        self._serving: dict[Any, asyncio.Task[Any]] = {}  # the child's requests being answered
        self._out = BatchWriter(process.stdin.write, label)

    async def open(self) -> None:
        """Start reading the child's messages (and noticing its end)."""
        reader = self._dialect.reader(self._on_body, self.label, self._overflow)
        await self.process.read(reader, self._ended)

    # -- lintel to the child ------------------------------------------------------------------------------

    def send(self, method: str, params: Any, on_answer: Answer, timeout: float | None = None) -> Callable[[], None]:
        """A request: `on_answer(result, None)` or `on_answer(None, error)` once; the function returned withdraws
        it (the child is told, a late answer dropped)."""
        if self.failure is not None:
            raise self._failed(self.failure)
        raw_id = next(self._ids)
        msg_id: int | str = f"{self._prefix}{raw_id}" if self._prefix else raw_id
        self._write(self._dialect.request(msg_id, method, params))
        timer = None
        if timeout is not None:
            timer = self._clock.call_later(timeout, lambda: self._timed_out(msg_id, method, timeout))
        self._pending[msg_id] = (on_answer, timer)

        def cancel() -> None:
            entry = self._pending.pop(msg_id, None)
            if entry is None:
                return
            if entry[1] is not None:
                entry[1].cancel()
            if self.failure is None:
                with contextlib.suppress(Exception):
                    self._write(self._dialect.cancel(msg_id))

        return cancel

    def request(self, method: str, params: Any, timeout: float | None = None) -> Awaitable[Any]:
        """A request written now; the awaitable is its result. Cancelling the task awaiting it withdraws it."""
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        cancel = self.send(method, params, lambda result, error: _settle(waiter, result, error), timeout)
        return _awaited(waiter, cancel)

    def notify(self, method: str, params: Any) -> None:
        if self.failure is not None:
            raise self._failed(self.failure)
        self._write(self._dialect.notification(method, params))

    def flush(self) -> None:
        """Write what this turn of the loop queued now (the child starts on it while lintel reads on)."""
        self._out.flush()

    @property
    def closed(self) -> bool:
        return self._out.closed

    def close(self) -> None:
        """Nothing more is written (what is queued goes first)."""
        self._out.close()

    def close_input(self) -> None:
        """Close the child's stdin (a JSON-lines worker exits on its end)."""
        self._out.close()
        with contextlib.suppress(Exception):
            if not self.process.stdin.is_closing():
                self.process.stdin.close()

    def fail(self, reason: str) -> None:
        """No more requests; every one in flight fails with `failed(reason)` (the first reason stands)."""
        if self.failure is None:
            self.failure = reason
        pending, self._pending = self._pending, {}
        for on_answer, timer in pending.values():
            if timer is not None:
                timer.cancel()
            on_answer(None, self._failed(self.failure))
        for task in self._serving.values():
            task.cancel()

    def _write(self, message: Mapping[str, Any]) -> None:
        if self._out.closed:
            self._ended("closed its input")
            raise self._failed(self.failure or f"{self.label}'s input is closed")
        self._out.write(self._dialect.encode(message))

    def _timed_out(self, msg_id: int | str, method: str, seconds: float) -> None:
        entry = self._pending.pop(msg_id, None)
        if entry is None:
            return
        with contextlib.suppress(Exception):
            self._write(self._dialect.cancel(msg_id))
        entry[0](None, RequestTimeout(f"{self.label} did not answer {method} within {seconds:g}s", method, seconds))

    # -- the child to lintel ------------------------------------------------------------------------------

    def _ended(self, how: str) -> None:
        if self._on_end is not None:
            self._on_end(how)
        else:
            self.fail(f"{self.label} {how}")

    def _overflow(self, limit: int) -> None:
        self._ended(f"wrote an answer larger than {limit // 2**20} MiB")
        self.process.kill()

    def _on_body(self, body: bytes) -> None:
        try:
            message = jsonwire.loads(body)
        except ValueError:
            log.warning("%s wrote what is not JSON: %.200r", self.label, body)
            return
        if not isinstance(message, dict):
            log.warning("%s wrote JSON that is not an object: %.200r", self.label, body)
            return
        kind = self._dialect.kind(message)
        if kind == "answer":
            self._settle(message)
        elif kind == "request":
            self._serve(message)
        elif message.get("method") == "$/cancelRequest":
            params = message.get("params")
            task = self._serving.get(params.get("id")) if isinstance(params, dict) else None
            if task is not None:
                task.cancel()
        elif self._on_notification is not None:
            method = message.get("method")
            self._on_notification(method if isinstance(method, str) else None, self._dialect.params(message))

    def _settle(self, message: dict[str, Any]) -> None:
        msg_id = message.get("id")
        entry = self._pending.pop(msg_id, None) if isinstance(msg_id, (int, str)) else None
        if entry is None:
            if msg_id is None:
                log.warning("%s: %s", self.label, message.get("error"))
            else:
                log.debug("%s: dropped the answer to withdrawn request %s", self.label, msg_id)
            return
        on_answer, timer = entry
        if timer is not None:
            timer.cancel()
        result, error = self._dialect.answer(message)
        if error is not None:
            on_answer(None, self._answered_error(error))
        else:
            on_answer(result, None)

    def _serve(self, message: dict[str, Any]) -> None:
        msg_id, method = message.get("id"), str(message.get("method"))
        if self._on_request is None:
            self._respond(msg_id, None, RemoteError(f"{method} is not handled", METHOD_NOT_FOUND))
            return
        try:
            result = self._on_request(method, self._dialect.params(message))
        except Exception as exc:
            self._respond(msg_id, None, _as_remote(self.label, method, exc))
            return
        if not asyncio.isfuture(result) and not asyncio.iscoroutine(result):
            self._respond(msg_id, result, None)
            return
        task = asyncio.ensure_future(result)
        self._serving[msg_id] = task
        task.add_done_callback(lambda done: self._served(msg_id, method, done))

    def _served(self, msg_id: Any, method: str, task: asyncio.Future[Any]) -> None:
        if self._serving.get(msg_id) is task:
            del self._serving[msg_id]
        if task.cancelled():
            self._respond(msg_id, None, RemoteError("cancelled", REQUEST_CANCELLED))
        elif task.exception() is not None:
            self._respond(msg_id, None, _as_remote(self.label, method, task.exception()))
        else:
            self._respond(msg_id, task.result(), None)

    def _respond(self, msg_id: Any, result: Any, error: RemoteError | None) -> None:
        response = self._dialect.response(msg_id, result, error)
        if response is not None and self.failure is None and not self._out.closed:
            self._out.write(self._dialect.encode(response))


def _as_remote(label: str, method: str, exc: BaseException | None) -> RemoteError:
    if isinstance(exc, RemoteError):
        return exc
    log.error("error handling %s from %s: %s", method, label, exc)
    code = getattr(exc, "code", None)
    return RemoteError(str(exc), code if isinstance(code, int) else INTERNAL_ERROR)


def _settle(waiter: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if waiter.done():
        return
    if error is not None:
        waiter.set_exception(error)
    else:
        waiter.set_result(result)


async def _awaited(waiter: asyncio.Future[Any], cancel: Callable[[], None]) -> Any:
    try:
        return await waiter
    except asyncio.CancelledError:
        cancel()
        raise
