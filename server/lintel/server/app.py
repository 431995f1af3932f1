"""The pygls server object and the one place features are wired together (each module has a `setup`)."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from typing import Any, BinaryIO, Protocol

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from lintel import __version__
from lintel.server.notify import Notifier
from lintel.server.session import Session

log = logging.getLogger(__name__)


class LintelProtocol(LanguageServerProtocol):
    """pygls runs its built-in executeCommand as a generator whose user handler gets a fresh message id,
    so `$/cancelRequest` for the editor's id never reaches the running command. This async handler runs
    under the request's own id: cancelling it cancels the command and kills its tool."""

    _server: LintelServer

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    async def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:  # type: ignore[override]
        return await self._server.commands.execute(params)


class DocumentListener(Protocol):
    async def did_open(self, params: types.DidOpenTextDocumentParams) -> None: ...
    async def did_change(self, params: types.DidChangeTextDocumentParams) -> None: ...
    async def did_save(self, params: types.DidSaveTextDocumentParams) -> None: ...
    async def did_close(self, params: types.DidCloseTextDocumentParams) -> None: ...


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
        # Set by lintel.server.commands.setup; the protocol dispatches executeCommand to it.
        self.commands: Any = None
        self.background: set[asyncio.Task[Any]] = set()
        # Other features that need document sync (the language-server proxy) subscribe here: pygls allows
        # one handler per method, and documents.py owns didOpen/didChange/didSave/didClose.
        self.document_listeners: list[DocumentListener] = []

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """stdio transport with stdin read on the event loop. pygls reads stdin through its thread pool,
        three executor round trips per message; measured on the navigation benchmark that was ~0.75 ms of
        added latency and CPU per request. Falls back to pygls's reader where stdin is not a pipe."""
        source = stdin or sys.stdin.buffer
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve_pipe(source))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def _serve_pipe(self, source: BinaryIO) -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader(limit=64 * 1024 * 1024)
        reader: Any
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), source)
            reader = _PipeReader(stream)
        except (ValueError, OSError) as exc:  # a regular file or another non-pipe stdin
            log.info("stdin is not a pipe (%s); using pygls's threaded reader", exc)
            reader = StdinAsyncReader(source, self.thread_pool)
        assert self._stop_event is not None
        await run_async(
            stop_event=self._stop_event,
            reader=reader,
            protocol=self.protocol,
            logger=log,
            error_handler=self.report_server_error,
        )

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


class _PipeReader:
    """pygls's reader interface over an asyncio stream; at end of input it returns what is left, like a file."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


def create_server() -> LintelServer:
    from lintel.server import commands, documents, lifecycle, navigation

    server = LintelServer()
    lifecycle.setup(server)
    documents.setup(server)
    commands.setup(server)
    navigation.setup(server)
    return server
