"""The pygls server object: the editor's messages in and out, background tasks.

It knows none of its features: wiring.py builds them and binds their handlers in its route table (dispatch.py)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import signal
import sys
import threading
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from cattrs import ClassValidationError, transform_error
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from lintel import __version__
from lintel.core import jsonwire
from lintel.frontends.lsp.advertised import ROUTES
from lintel.frontends.lsp.dispatch import Dispatcher, error_payload
from lintel.frontends.lsp.notify import Notifier
from lintel.frontends.lsp.pyglscompat import FinishedHandlers, capabilities_with, is_shutting_down
from lintel.frontends.lsp.session import Session
from lintel.runtime.wire import BatchWriter, MessageReader, encode

if TYPE_CHECKING:
    from cattrs import Converter

    from lintel.frontends.lsp.tcp import Token

log = logging.getLogger(__name__)


class LintelProtocol(LanguageServerProtocol):
    """pygls's protocol, for what pygls serves: `initialize` (answered with the capabilities of lintel's route
    table), `shutdown`, `exit`, its other built-ins and the editor's answers; lintel's routes skip it."""

    _server: LintelServer

    def __init__(self, server: LanguageServer, converter: Converter) -> None:
        super().__init__(server, converter)
        # pygls never forgets a notification handler's future: swept between messages (pyglscompat).
        self._finished = FinishedHandlers(self)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls's answer, with the capabilities of the routes served to this client, whose handlers are bound
        when the features load (LintelServer.features)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        routes = self._server.routes.activate(params.capabilities)
        result.capabilities = capabilities_with(self, params, routes)
        if self._server.features is not None:
            self._server.features_due()
        return result

    def handle_message(self, message: Any) -> None:
        super().handle_message(message)
        self._finished.sweep()


class Features(Protocol):
    """The features wired after the `initialize` answer (wiring.py), so that answer waits for no import of the
    engine they use (docs/architecture.md, A fast start)."""

    def load(self) -> None:
        """Import and wire them (binding their routes), and do what `initialize` asked."""


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
        # Every method lintel serves; the features bind their handlers in it as they load (wiring.py).
        self.routes = Dispatcher(self, ROUTES)
        self.background: set[asyncio.Task[Any]] = set()
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
        executor round trips per message: latency and CPU the navigation benchmark shows on every request) and stdout
        written once per loop turn (lintel.runtime.wire). Where stdin is not a pipe, a thread reads it into the same
        reader."""
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
            log.info("stdin is not a pipe (%s); reading it on a thread", exc)
            _read_on_thread(source, reader, loop)
        self._stop_on_signals(reader)
        await reader.done  # end of input, or a stop signal

    def listen_tcp(self, host: str, port: int, token: Token) -> None:
        """`lintel serve --tcp HOST:PORT`: the one client that presents `token` in its `initialize`
        (lintel.frontends.lsp.tcp), read by the same reader as stdio (pygls's own TCP reader would bypass framing
        recovery, the lifecycle's refusals and lintel's route table); the session ends when that connection closes.
        The address it listens on is printed on stderr (port 0 picks a free one), then where the token is."""
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
        every nested object): served by lintel's routes (dispatch.py), else by pygls."""
        protocol = self.protocol
        data: Any = None
        try:
            data = jsonwire.loads(body)
            if not isinstance(data, dict):
                raise JsonRpcInvalidRequest(f"a JSON-RPC message must be an object, not {type(data).__name__}")
            method = data.get("method")
            if self._refused(data, method):
                return
            if method != types.INITIALIZE:
                self.load_features()  # any message after `initialize` finds the features bound
            if not self.routes.serve(data, method):
                protocol.handle_message(protocol.structure_message(data))
        except (asyncio.InvalidStateError, concurrent.futures.InvalidStateError):
            # The editor's answer to a request of lintel's that lintel has since given up on (cancelled, timed
            # out): nothing waits for it any more.
            log.debug("a late answer to a request lintel gave up on: %.300r", body)
        except Exception as exc:
            # One line per message: a client (or a fuzzer) sending thousands of malformed ones must not fill the
            # log with a traceback each. The traceback is kept for lintel's own debugging at DEBUG level.
            log.error("cannot handle a message (%.300s): %.300r", _why(exc), body)
            log.debug("the message's error", exc_info=exc)
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                # A request that could not even be read (params of the wrong shape): answered, not left for
                # the editor to wait on.
                error = exc if isinstance(exc, JsonRpcException) else JsonRpcInternalError(str(exc))
                self.send_json({"jsonrpc": "2.0", "id": data["id"], "error": error_payload(error)})

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
            self.send_json({"jsonrpc": "2.0", "id": data["id"], "error": error_payload(error)})
        return True

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


def _read_on_thread(source: BinaryIO, reader: MessageReader, loop: asyncio.AbstractEventLoop) -> None:
    """`source` read on a daemon thread (a blocking read must not keep the process from exiting), its bytes
    handed to `reader` on the event loop, as a pipe's are."""

    def read() -> None:
        read1 = getattr(source, "read1", source.read)
        try:
            while chunk := read1(65536):
                loop.call_soon_threadsafe(reader.data_received, chunk)
        except (OSError, ValueError) as exc:
            log.info("stdin: %s", exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing is left to tell
            loop.call_soon_threadsafe(reader.connection_lost, None)

    threading.Thread(target=read, name="lintel-stdin", daemon=True).start()


def _why(exc: Exception) -> str:
    """What was wrong with a message, in one line: cattrs's paths for params of the wrong shape (pygls raises
    InvalidParams from them), else the exception."""
    cause = exc.__cause__ if isinstance(exc.__cause__, ClassValidationError) else exc
    if isinstance(cause, ClassValidationError):
        return "; ".join(transform_error(cause)[:3])
    return f"{type(exc).__name__}: {exc}"
