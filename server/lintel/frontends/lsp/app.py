"""The pygls server object: the editor's messages in and out, requests served raw, background tasks.

It knows none of its features: wiring.py builds them, and they register their handlers on it."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from cattrs import ClassValidationError, transform_error
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcRequestCancelled,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import StdinAsyncReader, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from lintel import __version__
from lintel.frontends.lsp.advertised import Advertised
from lintel.frontends.lsp.notify import Notifier
from lintel.frontends.lsp.pyglscompat import FinishedHandlers, capabilities_with, is_shutting_down, new_stop_event
from lintel.frontends.lsp.session import Session
from lintel.frontends.lsp.shared import RawNow
from lintel.runtime.wire import BatchWriter, MessageReader, encode

if TYPE_CHECKING:
    from cattrs import Converter

    from lintel.frontends.lsp.tcp import Token

log = logging.getLogger(__name__)


class LintelProtocol(LanguageServerProtocol):
    """pygls runs its built-in executeCommand as a generator whose user handler gets a fresh message id,
    so `$/cancelRequest` for the editor's id never reaches the running command. This async handler runs
    under the request's own id: cancelling it cancels the command and kills its tool."""

    _server: LintelServer

    def __init__(self, server: LanguageServer, converter: Converter) -> None:
        super().__init__(server, converter)
        # pygls never forgets a notification handler's future: swept between messages (pyglscompat).
        self._finished = FinishedHandlers(self)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:  # type: ignore[override]
        return await self._server.commands.execute(params)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's answer, with the capabilities of the features that load after it (LintelServer.features)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        features = self._server.features
        if features is not None:
            result.capabilities = capabilities_with(self, params, features.advertised(params.capabilities))
            self._server.features_due()
        return result

    def handle_message(self, message: Any) -> None:
        """pygls's, then the document-sync listeners at once: pygls has updated the document synchronously,
        and its handlers (documents.py) run later as tasks, after messages that may have come behind.
        Any message after `initialize` finds the features loaded."""
        if getattr(message, "method", None) != types.INITIALIZE:
            self._server.load_features()
        super().handle_message(message)
        method = getattr(message, "method", "")
        if method in _DOCUMENT_MESSAGES and not is_shutting_down(self):
            self.tell_listeners(method, message.params)
        self._finished.sweep()

    def tell_listeners(self, method: str, params: Any) -> None:
        """The document listeners, told of a document message (a failing one is logged, the others told)."""
        handle = _DOCUMENT_MESSAGES[method]
        for listener in self._server.document_listeners:
            try:
                handle(listener, params)
            except Exception:
                log.exception("a document listener failed on %s", method)

    def did_change_raw(self, data: dict[str, Any]) -> None:
        """`textDocument/didChange` (one a keystroke), without pygls's dispatch (a generator handler, its future
        and callbacks: ~0.15 ms a change, before a lint ahead could start): the params structured as pygls
        would, the document changed as pygls's own handler changes it, the listeners told (first: a lint ahead
        goes out soonest), then the feature's handler run."""
        params = self._converter.structure(data.get("params"), types.DidChangeTextDocumentParams)
        for change in params.content_changes:
            self.workspace.update_text_document(params.text_document, change)
        self.tell_listeners(types.TEXT_DOCUMENT_DID_CHANGE, params)
        handler = self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)
        if handler is None:
            return
        try:
            outcome = handler(params)
        except Exception as exc:
            log.exception("the didChange handler failed")
            self._server.report_server_error(exc, JsonRpcException)
            return
        if inspect.isawaitable(outcome):
            self._server.spawn(outcome)


class CommandRunner(Protocol):
    """workspace/executeCommand, run under the request's own id (LintelProtocol)."""

    async def execute(self, params: types.ExecuteCommandParams) -> Any: ...


class Features(Protocol):
    """The features wired after the `initialize` answer (wiring.py), so that answer waits for no import of the
    engine they use (docs/design.md, A fast start)."""

    def advertised(self, capabilities: types.ClientCapabilities) -> Advertised:
        """What they will register for a client with these capabilities, advertised in the answer."""

    def load(self) -> None:
        """Import and wire them, and do what `initialize` asked."""


class _NoCommands:
    async def execute(self, params: types.ExecuteCommandParams) -> Any:
        raise JsonRpcMethodNotFound(f"unknown command {params.command!r}: none is wired")


class DocumentListener(Protocol):
    """Told of each document message as it arrives, before any later message is read (pygls allows one handler
    per method, and documents.py owns didOpen/didChange/didSave/didClose; its handlers run later, as tasks)."""

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None: ...
    def did_change(self, params: types.DidChangeTextDocumentParams) -> None: ...
    def did_save(self, params: types.DidSaveTextDocumentParams) -> None: ...
    def did_close(self, params: types.DidCloseTextDocumentParams) -> None: ...


_DOCUMENT_MESSAGES: dict[str, Callable[[DocumentListener, Any], None]] = {
    types.TEXT_DOCUMENT_DID_OPEN: lambda listener, params: listener.did_open(params),
    types.TEXT_DOCUMENT_DID_CHANGE: lambda listener, params: listener.did_change(params),
    types.TEXT_DOCUMENT_DID_SAVE: lambda listener, params: listener.did_save(params),
    types.TEXT_DOCUMENT_DID_CLOSE: lambda listener, params: listener.did_close(params),
}


class LintelServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "lintel",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=LintelProtocol,
        )
        self.session = Session()
        self.notifier = Notifier(self)
        # Set by lintel.frontends.lsp.commands.setup; the protocol dispatches executeCommand to it.
        self.commands: CommandRunner = _NoCommands()
        self.background: set[asyncio.Task[Any]] = set()
        # Other features that need document sync (the language-server proxy, where order matters) subscribe here.
        self.document_listeners: list[DocumentListener] = []
        # Requests served on JSON as it arrived, bypassing pygls's structuring (the relayed navigation
        # methods, registered by navigation.py): method -> coroutine function of the params, whose result
        # is sent back as JSON. pygls still advertises and serves them where stdin is not a pipe.
        self.raw_requests: dict[str, Callable[[Any], Awaitable[Any]]] = {}
        # The same requests answered without a task when that can be done at once (the child runs): keyed by
        # the handler in raw_requests; the function returns None to leave the request to the handler.
        self.raw_now: dict[Callable[[Any], Awaitable[Any]], RawNow] = {}
        self._raw_tasks: dict[tuple[type, Any], _Cancellable] = {}  # by request id (1 and "1" differ)
        self._initialize_seen = False  # LSP: before `initialize`, requests fail with ServerNotInitialized
        # Set by wiring.py; loaded (and None) once `initialize` is answered: at the next turn of the event loop,
        # or before the next message when that comes first.
        self.features: Features | None = None
        self._features_due = False

    def features_due(self) -> None:
        """`initialize` is answered: the features load as soon as that answer is out."""
        self._features_due = True
        with contextlib.suppress(RuntimeError):  # no running loop (a test calling the protocol directly)
            asyncio.get_running_loop().call_soon(self.load_features)

    def load_features(self) -> None:
        """Load the features (once), after the `initialize` answer has been written."""
        features = self.features
        if features is None or not self._features_due:
            return
        self.features = None
        flush = getattr(self.protocol.writer, "flush", None)
        if callable(flush):
            flush()  # the answer first: the client may wait for it while this loads
        log.info("initialize answered; loading the features")
        try:
            features.load()
        except Exception:  # a bug, but the editor must hear of it: nothing would be checked
            log.exception("lintel's features failed to load")
            self.notifier.once("features", "lintel could not start its features (see its log)", types.MessageType.Error)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """stdio transport with stdin read on the event loop (pygls reads it through its thread pool, three
        executor round trips per message: measured on the navigation benchmark, ~0.75 ms of added latency
        and CPU per request) and stdout written once per loop turn (lintel.runtime.wire). Falls back to pygls's
        reader where stdin is not a pipe."""
        source = stdin or sys.stdin.buffer
        sink = stdout or sys.stdout.buffer

        def write(data: bytes) -> None:
            sink.write(data)
            sink.flush()

        out = BatchWriter(write, "the editor")
        self.protocol.set_writer(out)
        try:
            asyncio.run(self._serve_pipe(source))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            out.flush()
            self.shutdown()  # type: ignore[no-untyped-call]

    async def _serve_pipe(self, source: BinaryIO) -> None:
        loop = asyncio.get_running_loop()
        reader = MessageReader(self._on_message, "the editor")
        try:
            await loop.connect_read_pipe(lambda: reader, source)
        except (ValueError, OSError) as exc:  # a regular file or another non-pipe stdin
            log.info("stdin is not a pipe (%s); using pygls's threaded reader", exc)
            await run_async(
                stop_event=new_stop_event(self),
                reader=StdinAsyncReader(source, self.thread_pool),
                protocol=self.protocol,
                logger=log,
                error_handler=self.report_server_error,
            )
            return
        self._stop_on_signals(reader)
        await reader.done  # end of input, or a stop signal

    def listen_tcp(self, host: str, port: int, token: Token) -> None:
        """`lintel serve --tcp HOST:PORT`: the one client that presents `token` in its `initialize`
        (lintel.frontends.lsp.tcp),
        read by the same reader as stdio (pygls's own TCP reader would bypass framing recovery, the lifecycle's
        refusals and the raw relays); the session ends when that connection closes. The address it listens on is
        printed on stderr (port 0 picks a free one), then where the token is."""
        try:
            asyncio.run(self._serve_tcp(host, port, token))
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def _serve_tcp(self, host: str, port: int, token: Token) -> None:
        from lintel.frontends.lsp.tcp import Gate

        loop = asyncio.get_running_loop()
        session = MessageReader(self._on_message, "the editor")
        gate = Gate(token.value, self._on_message, session)
        gate.set_writer = self.protocol.set_writer
        server = await loop.create_server(gate.connection, host, port)
        bound = ", ".join(f"{a[0]}:{a[1]}" for a in (sock.getsockname() for sock in server.sockets))
        sys.stderr.write(f"lintel: serving LSP on {bound}\n")
        sys.stderr.write(f"lintel: clients must send the token ({token.where}) as initializationOptions.token\n")
        sys.stderr.flush()
        self._stop_on_signals(session)
        async with server:
            await session.done  # the editor's connection closed, or a stop signal
        writer = self.protocol.writer
        if isinstance(writer, BatchWriter):
            writer.flush()

    def _stop_on_signals(self, reader: MessageReader) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            # A stop signal ends the session as a closed connection does: every run is cancelled (killing its
            # process group) and the child servers are stopped, instead of the process vanishing with them running.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self._stop_on_signal, sig, reader)

    def _stop_on_signal(self, sig: signal.Signals, reader: MessageReader) -> None:
        log.info("%s received: stopping as on exit", sig.name)
        reader.connection_lost(None)

    def _on_message(self, body: bytes) -> None:
        """One message from the editor, parsed once by json.loads (pygls's reader calls its structuring hook on
        every nested object); requests in `raw_requests` skip pygls altogether."""
        protocol = self.protocol
        data: Any = None
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise JsonRpcInvalidRequest(f"a JSON-RPC message must be an object, not {type(data).__name__}")
            method = data.get("method")
            if self._refused(data, method):
                return
            if method != types.INITIALIZE:
                self.load_features()  # the relayed requests below are the features' too
            handler = self.raw_requests.get(method)  # type: ignore[arg-type]
            if handler is not None and "id" in data and not is_shutting_down(protocol):
                self._serve_raw(handler, data["id"], data.get("params"))
            elif method == types.CANCEL_REQUEST and self._cancel_raw(data.get("params")):
                pass
            elif (
                method == types.TEXT_DOCUMENT_DID_CHANGE
                and isinstance(protocol, LintelProtocol)
                and "id" not in data
                and not is_shutting_down(protocol)
            ):
                protocol.did_change_raw(data)
            else:
                protocol.handle_message(protocol.structure_message(data))
        except Exception as exc:
            # One line per message: a client (or a fuzzer) sending thousands of malformed ones must not fill the
            # log with a traceback each. The traceback is kept for lintel's own debugging at DEBUG level.
            log.error("cannot handle a message (%.300s): %.300r", _why(exc), body)
            log.debug("the message's error", exc_info=exc)
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                # A request that could not even be read (params of the wrong shape): answered, not left for
                # the editor to wait on.
                error = exc if isinstance(exc, JsonRpcException) else JsonRpcInternalError(str(exc))
                self.send_json({"jsonrpc": "2.0", "id": data["id"], "error": _error(error)})

    def _refused(self, data: dict[str, Any], method: Any) -> bool:
        """Messages the lifecycle rules out, answered with the error LSP names when they are requests: not
        JSON-RPC 2.0 (InvalidRequest), before `initialize` (ServerNotInitialized; notifications other than
        `exit` are dropped), after `shutdown` (InvalidRequest; only `exit` is served)."""
        is_request = isinstance(method, str) and isinstance(data.get("id"), (int, str))
        error: JsonRpcException | None = None
        if data.get("jsonrpc") != "2.0":
            error = JsonRpcInvalidRequest(f"not a JSON-RPC 2.0 message (jsonrpc: {json.dumps(data.get('jsonrpc'))})")
        elif is_shutting_down(self.protocol) and method not in (types.EXIT, None):
            error = JsonRpcInvalidRequest(f"{method}: the server is shutting down (only exit is accepted)")
        elif method == types.INITIALIZE:
            self._initialize_seen = True
            return False
        elif not self._initialize_seen and method not in (types.EXIT, None):
            error = JsonRpcServerNotInitialized(f"{method}: the server is not initialized yet (send initialize)")
        if error is None:
            return False
        log.info("refused %s: %s", method, error.message)
        if is_request:
            self.send_json({"jsonrpc": "2.0", "id": data["id"], "error": _error(error)})
        return True

    def _serve_raw(self, handler: Callable[[Any], Awaitable[Any]], msg_id: Any, params: Any) -> None:
        now = self.raw_now.get(handler)
        if now is None:
            self._start_task(handler, msg_id, params)
            return

        # At once, like the document messages before it (LintelProtocol.handle_message): the child gets them
        # in the editor's order.
        if not self._serve_now(now, msg_id, params):
            self._start_task(handler, msg_id, params)

    def _start_task(self, handler: Callable[[Any], Awaitable[Any]], msg_id: Any, params: Any) -> None:
        task = asyncio.ensure_future(handler(params))
        key = _id_key(msg_id)
        if key is not None:
            self._raw_tasks[key] = task
        task.add_done_callback(lambda done: self._answer_task(msg_id, done))

    def _serve_now(self, now: RawNow, msg_id: Any, params: Any) -> bool:
        """A request answered from a callback (no task): False when `now` cannot serve it that way."""
        key = _id_key(msg_id)
        answered = False

        def reply(result: Any, error: BaseException | None) -> None:
            nonlocal answered
            answered = True
            if key is not None:
                self._raw_tasks.pop(key, None)
            self._reply(msg_id, result, error)

        try:
            cancel = now(params, reply)
        except Exception as exc:
            if not answered:
                reply(None, exc)
            return True
        if cancel is None:
            return False
        if key is not None and not answered:

            def cancelled() -> None:
                cancel()
                reply(None, JsonRpcRequestCancelled(f'Request with id "{msg_id}" is canceled'))

            self._raw_tasks[key] = _Cancel(cancelled)
        return True

    def _cancel_raw(self, params: Any) -> bool:
        """$/cancelRequest for a request served raw: it is cancelled (the editor then gets -32800).
        False for any other id: pygls's own requests are pygls's to cancel."""
        key = _id_key(params.get("id")) if isinstance(params, dict) else None
        pending = self._raw_tasks.get(key) if key is not None else None
        if pending is None:
            return False
        pending.cancel()
        return True

    def _answer_task(self, msg_id: Any, task: asyncio.Future[Any]) -> None:
        key = _id_key(msg_id)
        if key is not None and self._raw_tasks.get(key) is task:
            del self._raw_tasks[key]
        if task.cancelled():
            self._reply(msg_id, None, JsonRpcRequestCancelled(f'Request with id "{msg_id}" is canceled'))
        else:
            self._reply(msg_id, task.result() if task.exception() is None else None, task.exception())

    def _reply(self, msg_id: Any, result: Any, error: BaseException | None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id}
        if error is None:
            message["result"] = result
        elif isinstance(error, JsonRpcException):
            if not isinstance(error, JsonRpcRequestCancelled):
                self.report_server_error(error, JsonRpcException)
            message["error"] = _error(error)
        else:
            log.error("request %s failed", msg_id, exc_info=error)
            message["error"] = _error(JsonRpcInternalError(f"{type(error).__name__}: {error}"))
        self.send_json(message)

    def send_json(self, message: dict[str, Any]) -> None:
        """One message to the editor, on pygls's writer (so in order with what pygls sends)."""
        writer = self.protocol.writer
        if writer is None:
            log.error("cannot answer: no connection to the editor")
            return
        writer.write(encode(message))

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """A fire-and-forget task that is kept alive, logged when it fails, and cancelled at shutdown."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self.background.add(task)

        def done(finished: asyncio.Task[Any]) -> None:
            self.background.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("background task failed", exc_info=finished.exception())

        task.add_done_callback(done)
        return task

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Errors outside a request go to the log; a pop-up is only for what the user can act on.
        if isinstance(error, JsonRpcException):
            # An error answer relayed from a child server ("no identifier found"): routine, not a fault.
            log.info("%s: %s", getattr(source, "__name__", source), error)
            return
        log.error("server error (%s): %s", getattr(source, "__name__", source), error, exc_info=error)


class _Cancellable(Protocol):
    def cancel(self) -> Any: ...


class _Cancel:
    __slots__ = ("cancel",)

    def __init__(self, cancel: Callable[[], None]) -> None:
        self.cancel = cancel


def _id_key(msg_id: Any) -> tuple[type, Any] | None:
    return (type(msg_id), msg_id) if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


def _why(exc: Exception) -> str:
    """What was wrong with a message, in one line: cattrs's paths for params of the wrong shape (pygls raises
    InvalidParams from them), else the exception."""
    cause = exc.__cause__ if isinstance(exc.__cause__, ClassValidationError) else exc
    if isinstance(cause, ClassValidationError):
        return "; ".join(transform_error(cause)[:3])
    return f"{type(exc).__name__}: {exc}"


def _error(error: JsonRpcException) -> dict[str, Any]:
    payload: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        payload["data"] = error.data
    return payload
