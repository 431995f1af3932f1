"""One child language server: its process (own process group, stderr drained), its JSON-RPC connection
through pygls, its state, and the requests it sends to lintel.

Navigation results are relayed raw: the protocol below leaves their JSON unstructured, so whatever the
child sent (fields lsprotocol does not know included) reaches the editor, and nothing is converted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import json
import logging
import os
import re
import signal
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

from lintel import __version__
from lintel.detect import Language
from lintel.positions import Unit
from lintel.proxy.servers import LoadSignal
from lintel.wire import BatchWriter, MessageReader, encode

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803  # LSP: a valid request that could not be carried out

# Requests whose results go to the editor as the child sent them (the navigation methods).
RAW_RESULTS = frozenset(
    {
        types.TEXT_DOCUMENT_DEFINITION,
        types.TEXT_DOCUMENT_DECLARATION,
        types.TEXT_DOCUMENT_TYPE_DEFINITION,
        types.TEXT_DOCUMENT_IMPLEMENTATION,
        types.TEXT_DOCUMENT_REFERENCES,
        types.TEXT_DOCUMENT_HOVER,
        types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT,
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
        types.TEXT_DOCUMENT_RENAME,
        types.TEXT_DOCUMENT_PREPARE_RENAME,
        types.TEXT_DOCUMENT_SIGNATURE_HELP,
        types.TEXT_DOCUMENT_COMPLETION,
        types.COMPLETION_ITEM_RESOLVE,
        types.WORKSPACE_SYMBOL,
    }
)
# Messages from the child that lintel reads as raw JSON: their positions may need re-counting first.
RAW_PARAMS = frozenset({types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.WORKSPACE_APPLY_EDIT})

# Refresh requests for features lintel does not relay: acknowledged and dropped.
_IGNORED_REQUESTS = (
    types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
    types.WORKSPACE_CODE_LENS_REFRESH,
    types.WORKSPACE_INLAY_HINT_REFRESH,
    types.WORKSPACE_INLINE_VALUE_REFRESH,
    types.WORKSPACE_DIAGNOSTIC_REFRESH,
    types.WORKSPACE_FOLDING_RANGE_REFRESH,
    types.WORKSPACE_TEXT_DOCUMENT_CONTENT_REFRESH,
)

# Called once with a relayed request's result, or with the error instead.
Answer = Callable[[Any, "BaseException | None"], None]

STDERR_TAIL = 20  # lines of the child's stderr kept for the failure message


class ChildState(enum.Enum):
    STARTING = "starting"
    RUNNING = "running"
    FAILED = "failed"  # crashed, or could not start; the manager decides whether to restart it
    STOPPED = "stopped"


class ChildFailed(JsonRpcException):
    """The child cannot answer: it is not running, it exited, or it failed to start. Raised into a request
    handler it reaches the editor as a RequestFailed error with this message."""

    CODE = REQUEST_FAILED


@dataclass(frozen=True)
class ChildSpec:
    """Everything needed to start one child: data, so a test factory can start something else instead."""

    language: Language
    root: Path
    argv: tuple[str, ...]
    name: str  # as the user knows it: gopls, basedpyright-langserver
    install_hint: str = ""
    encoding: Unit = "utf-16"  # the position encoding lintel negotiated with the editor; offered to the child
    capabilities: types.ClientCapabilities = field(default_factory=types.ClientCapabilities)
    initialization_options: Any = None
    load_signal: LoadSignal | None = None  # what says it has loaded its workspace (None: answering says so)
    env: Mapping[str, str] | None = None
    start_timeout: float = 60.0
    stop_grace: float = 2.0

    @property
    def key(self) -> tuple[Language, Path]:
        return (self.language, self.root)

    @property
    def id(self) -> str:
        return f"{self.language}:{self.root}"


class ChildHost(Protocol):
    """What a child asks of lintel (and, through it, of the editor)."""

    async def configuration(self, child: ChildClient, params: types.ConfigurationParams) -> list[Any]: ...

    async def apply_edit(self, child: ChildClient, params: dict[str, Any]) -> Any: ...

    def create_progress(self, child: ChildClient, token: str | int) -> None:
        """The child created a progress token (it has been answered already)."""

    def progress(self, child: ChildClient, params: dict[str, Any]) -> None:
        """A `$/progress` notification's params, as JSON."""

    def diagnostics(self, child: ChildClient, params: dict[str, Any]) -> None: ...

    def show_message(self, child: ChildClient, params: types.ShowMessageParams) -> None: ...

    async def show_document(self, child: ChildClient, params: types.ShowDocumentParams) -> types.ShowDocumentResult: ...

    def log_message(self, child: ChildClient, params: types.LogMessageParams) -> None: ...


class ChildProtocol(LanguageServerProtocol):
    """pygls's LSP protocol, with navigation results and two incoming messages left as plain JSON."""

    # The base class wraps these in lru_cache; plain methods are as cheap (a set lookup) and type-check.
    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in RAW_RESULTS:
            return None  # -> JsonRPCResponseMessage, whose `result: Any` keeps the JSON as it is
        return super().get_result_type(method)

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in RAW_PARAMS:
            return None
        return super().get_message_type(method)


def child_capabilities(editor: types.ClientCapabilities, encoding: Unit) -> types.ClientCapabilities:
    """The editor's capabilities as a child should see them: positions in lintel's encoding only, static
    registration (lintel relays no dynamic registrations), push diagnostics (they are merged into lintel's
    store), and none of the features lintel does not relay."""
    converter = get_converter()
    raw: dict[str, Any] = converter.unstructure(editor)
    _drop_dynamic_registration(raw)
    raw.setdefault("general", {})["positionEncodings"] = [encoding]
    raw.pop("notebookDocument", None)
    raw.pop("experimental", None)
    workspace = raw.setdefault("workspace", {})
    for key in (
        "didChangeWatchedFiles",
        "diagnostics",
        "semanticTokens",
        "codeLens",
        "inlayHint",
        "inlineValue",
        "foldingRange",
        "fileOperations",
        "textDocumentContent",
    ):
        workspace.pop(key, None)
    workspace["workspaceFolders"] = True
    workspace["configuration"] = True  # answered by lintel (relayed when the editor can)
    text_document = raw.setdefault("textDocument", {})
    text_document.pop("diagnostic", None)
    raw.setdefault("window", {})  # showDocument stays when the editor has it: relayed (EditorBridge)
    capabilities: types.ClientCapabilities = converter.structure(raw, types.ClientCapabilities)
    return capabilities


def _drop_dynamic_registration(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("dynamicRegistration", None)
        for value in node.values():
            _drop_dynamic_registration(value)


# Lines of a backtrace or stack trace, which say where, not what: `  15: <unknown>`, `     at ./csu/…`,
# `    at Module._load (node:internal…)`, `\t/usr/lib/go/src/runtime/panic.go:12 +0x1d`, `  File "x.py", line 3`.
_TRACE_LINE = re.compile(r"^(\d+: |at |File \"|/\S+:\d+ \+0x|goroutine \d+ \[|stack backtrace:|traceback )", re.I)
_ERROR_LINE = re.compile(r"^(error|fatal|panic)\b|panicked at|^\w*(Error|Exception)\b", re.I)


def telling_line(stderr: str) -> str:
    """The line of a failed child's last words that says what went wrong: the last error line (`error: Unknown
    binary 'rust-analyzer'…`, `ModuleNotFoundError: …`, `panic: …`), else the last line that is not part of a
    backtrace — never `15: <unknown>`."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if _ERROR_LINE.search(line)]
    if errors:
        return errors[-1]
    told = [line for line in lines if not _TRACE_LINE.match(line)]
    return (told or lines or [""])[-1]


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "closed its output"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with code {returncode}"


class _Connection(LanguageClient):
    """pygls's client, with errors in lintel's handlers for the child's messages logged, not swallowed."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("error handling a child's message (%s): %s", getattr(source, "__name__", source), error)


@dataclass
class _Process:
    handle: asyncio.subprocess.Process
    tasks: list[asyncio.Future[Any]] = field(default_factory=list)
    stdout: asyncio.BaseTransport | None = None


class ChildClient:
    """A child language server over stdio. `start()` runs it and initializes it; `request()` relays a
    request (raw result); `notify()` a notification; `stop()` shuts it down (shutdown, exit, then kill).

    A child that exits on its own fails its pending requests at once and becomes FAILED; its whole process
    group is killed, so helpers it started (tsserver, a Python launcher's node) do not outlive it.
    """

    def __init__(self, spec: ChildSpec, host: ChildHost) -> None:
        self.spec = spec
        self.host = host
        self.state = ChildState.STOPPED
        self.failure: str | None = None
        self.failed_at: float | None = None
        self.result: types.InitializeResult | None = None
        self.encoding: Unit = "utf-16"
        self.registered: set[str] = set()  # methods the child registered dynamically (accepted)
        self._client = _Connection("lintel", __version__, protocol_cls=ChildProtocol, converter_factory=get_converter)
        self.protocol: ChildProtocol = self._client.protocol  # type: ignore[assignment]
        self._process: _Process | None = None
        self._pending: dict[str, Any] = {}  # lifecycle requests, through pygls
        self._relayed: dict[str, Answer] = {}  # relayed requests, raw JSON both ways
        self._out: BatchWriter | None = None
        self._ids = itertools.count(1)
        self._stopping = False
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        # Set once the child has loaded its workspace (its spec's load signal), or when it stops answering.
        self._loaded = asyncio.Event()
        self._register_handlers()
        # Frequent messages from the child handled on their JSON, before pygls would structure them.
        self._raw_handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            types.PROGRESS: self._on_progress,
            types.WINDOW_WORK_DONE_PROGRESS_CREATE: self._on_create_progress,
        }

    # -- what the manager and router read ---------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def pid(self) -> int | None:
        return self._process.handle.pid if self._process is not None else None

    @property
    def capabilities(self) -> types.ServerCapabilities:
        return self.result.capabilities if self.result is not None else types.ServerCapabilities()

    @property
    def sync_kind(self) -> types.TextDocumentSyncKind:
        sync = self.capabilities.text_document_sync
        if isinstance(sync, types.TextDocumentSyncKind):
            return sync
        if isinstance(sync, types.TextDocumentSyncOptions) and sync.change is not None:
            return sync.change
        return types.TextDocumentSyncKind.Full if sync is not None else types.TextDocumentSyncKind.None_

    @property
    def save_includes_text(self) -> bool:
        sync = self.capabilities.text_document_sync
        if isinstance(sync, types.TextDocumentSyncOptions) and isinstance(sync.save, types.SaveOptions):
            return bool(sync.save.include_text)
        return False

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    @property
    def loading(self) -> bool:
        """Whether its answers to cross-file requests may still miss files it has not read yet."""
        return not self._loaded.is_set()

    async def wait_loaded(self, timeout: float) -> bool:
        """Wait for the load signal; False when `timeout` seconds passed first. Returns at once when the
        child stops or fails meanwhile (the request then fails as it would have)."""
        if self._loaded.is_set():
            return True
        try:
            await asyncio.wait_for(self._loaded.wait(), timeout)
        except (asyncio.TimeoutError, TimeoutError):
            return False
        return True

    def _mark_loaded(self) -> None:
        if not self._loaded.is_set():
            self._loaded.set()
            if self.state is ChildState.RUNNING:
                log.info("%s: workspace loaded", self.spec.id)

    # -- lifecycle --------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Run and initialize the child; RUNNING on return, or ChildFailed (and FAILED)."""
        spec = self.spec
        self.state = ChildState.STARTING
        self._stopping = False
        self.failure = None
        self._loaded.clear()
        log.info("%s: starting %s in %s", spec.id, " ".join(spec.argv), spec.root)
        # Its stdout is a pipe of lintel's own, read by a MessageReader (lintel.wire) rather than a StreamReader.
        read_end, write_end = os.pipe()
        try:
            handle = await asyncio.create_subprocess_exec(
                *spec.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=write_end,
                stderr=asyncio.subprocess.PIPE,
                cwd=spec.root,
                env=dict(spec.env) if spec.env is not None else None,
                start_new_session=True,  # its own process group: killed as a whole
            )
        except OSError as exc:
            os.close(read_end)
            self._fail(f"cannot run {spec.argv[0]}: {exc.strerror or exc}")
            raise ChildFailed(self.failure) from exc
        finally:
            os.close(write_end)
        assert handle.stdin is not None
        assert handle.stderr is not None
        self._out = BatchWriter(handle.stdin.write, spec.name)
        self.protocol.set_writer(self._out)  # pygls's messages and relayed ones share one ordered stream
        process = _Process(handle)
        self._process = process
        messages = MessageReader(self._on_message, spec.id)
        process.stdout, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: messages, os.fdopen(read_end, "rb", buffering=0)
        )
        reader = asyncio.ensure_future(messages.done)
        drain = asyncio.create_task(self._drain(handle.stderr), name=f"{spec.id} stderr")
        process.tasks = [
            reader,
            drain,
            asyncio.create_task(self._watch(handle, reader, drain), name=f"{spec.id} watch"),
        ]
        params = types.InitializeParams(
            process_id=os.getpid(),
            client_info=types.ClientInfo(name="lintel", version=__version__),
            root_uri=spec.root.as_uri(),
            root_path=str(spec.root),
            workspace_folders=[types.WorkspaceFolder(uri=spec.root.as_uri(), name=spec.root.name)],
            capabilities=spec.capabilities,
            initialization_options=spec.initialization_options,
        )
        try:
            result = await asyncio.wait_for(self._send(types.INITIALIZE, params), spec.start_timeout)
        except (asyncio.TimeoutError, TimeoutError) as exc:
            self._fail(f"did not answer initialize within {spec.start_timeout:g}s")
            raise ChildFailed(self.failure) from exc
        except JsonRpcException as exc:  # an error answer, or ChildFailed when it died meanwhile
            self._fail(f"failed to initialize: {exc.message}")
            raise ChildFailed(self.failure) from exc
        if self.state is not ChildState.STARTING:  # stopped meanwhile
            raise ChildFailed(self.failure or f"{self.name} was stopped")
        self.result = result
        encoding = result.capabilities.position_encoding
        self.encoding = str(getattr(encoding, "value", encoding or "utf-16"))  # type: ignore[assignment]
        self.protocol.notify(types.INITIALIZED, types.InitializedParams())
        self.state = ChildState.RUNNING
        if spec.load_signal is None:
            self._mark_loaded()
        log.info("%s: running (pid %s, positions in %s)", spec.id, handle.pid, self.encoding)

    async def stop(self) -> None:
        """shutdown + exit, then SIGTERM and SIGKILL to the process group after the grace period."""
        process = self._process
        was = self.state
        self._stopping = True
        self.state = ChildState.STOPPED
        self._mark_loaded()  # requests waiting for it fail now ("was stopped"), not after their wait
        if process is None:
            return
        grace = self.spec.stop_grace
        if was is ChildState.RUNNING and process.handle.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._send(types.SHUTDOWN, None), grace)
            with contextlib.suppress(Exception):
                self.protocol.notify(types.EXIT, None)
            await self._exited(process.handle, grace)
        if process.handle.returncode is None:
            self._signal_group(signal.SIGTERM)
            await self._exited(process.handle, 0.5)
        self._signal_group(signal.SIGKILL)  # the process, or helpers it left behind
        self._fail_pending(f"{self.name} was stopped")
        with contextlib.suppress(Exception):
            if self._out is not None:
                self._out.close()
            process.handle.stdin.close()  # type: ignore[union-attr]
        await self._finish(process)

    def kill(self) -> None:
        """Synchronous last resort (interpreter exit): SIGKILL the whole process group."""
        self._stopping = True
        self._signal_group(signal.SIGKILL)

    # -- messages ----------------------------------------------------------------------------------------

    async def request(self, method: str, params: Any) -> Any:
        """Relay a request: `params` as JSON (a dict, or lsprotocol attrs), the result as the child sent it."""
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        cancel = self.send(method, params, lambda result, error: _settle_waiter(waiter, result, error))
        try:
            return await waiter
        except asyncio.CancelledError:
            cancel()  # the editor cancelled: so does the child
            raise

    def send(self, method: str, params: Any, on_answer: Answer) -> Callable[[], None]:
        """Relay a request without a coroutine: `on_answer(result, None)` or `on_answer(None, error)` is called
        once, from the reader; the function returned cancels it (the child is told, the answer is dropped).

        This is the hot path of navigation, so it bypasses pygls both ways: the request is written as bytes
        and the answer handed on straight from the reader's json.loads (pygls would structure the message,
        run two runtime Protocol isinstance checks and hop through a concurrent future)."""
        if self.state is not ChildState.RUNNING:
            raise ChildFailed(f"{self.name} is not running" + (f": {self.failure}" if self.failure else ""))
        if hasattr(params, "__attrs_attrs__"):
            params = self.protocol._converter.unstructure(params)
        msg_id = f"lintel-{next(self._ids)}"
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        self._relayed[msg_id] = on_answer

        def cancel() -> None:
            # Its late answer then finds no one waiting (dropped).
            if self._relayed.pop(msg_id, None) is not None and self.state is ChildState.RUNNING:
                with contextlib.suppress(ChildFailed):
                    self._write({"jsonrpc": "2.0", "method": types.CANCEL_REQUEST, "params": {"id": msg_id}})

        return cancel

    def _write(self, message: dict[str, Any]) -> None:
        """One JSON-RPC message to the child, through the writer pygls's messages take too (so in order)."""
        out = self._out
        if out is None or out.closed:
            self._fail("closed its input")
            raise ChildFailed(self.failure or f"{self.name} is not running")
        out.write(encode(message))

    def _answer(self, data: dict[str, Any]) -> bool:
        """Settle a relayed request from its answer; False when the answer is not for one (pygls's then)."""
        on_answer = self._relayed.pop(data.get("id"), None)  # type: ignore[arg-type]
        if on_answer is None:
            return False
        error = data.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            message = error.get("message")
            on_answer(
                None,
                JsonRpcException(
                    message=message if isinstance(message, str) else "the language server answered an error",
                    code=code if isinstance(code, int) else REQUEST_FAILED,
                    data=error.get("data"),
                ),
            )
        else:
            on_answer(data.get("result"), None)
        return True

    def notify(self, method: str, params: Any) -> None:
        if self.state is not ChildState.RUNNING:
            return
        try:
            self.protocol.notify(method, params)
        except OSError as exc:
            self._fail(f"cannot write to {self.name}: {exc}")

    async def _send(self, method: str, params: Any) -> Any:
        # Our own ids: pygls keeps one table for the requests it sends and those it receives.
        msg_id = f"lintel-{next(self._ids)}"
        try:
            future = self.protocol.send_request(method, params, msg_id=msg_id)
        except OSError as exc:
            self.protocol._request_futures.pop(msg_id, None)
            self._fail(f"cannot write to {self.name}: {exc}")
            raise ChildFailed(self.failure) from exc
        self._pending[msg_id] = future
        # pygls settles the concurrent future on this loop's thread (our reader), so an asyncio future is
        # settled from its callback directly: asyncio.wrap_future would take a thread-safe hop per answer.
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.add_done_callback(lambda done: _settle(waiter, done))
        try:
            return await waiter
        except asyncio.CancelledError:
            # The editor cancelled: so does the child. Its late answer then finds no future (a debug line).
            if self.protocol._request_futures.pop(msg_id, None) is not None and self.state is ChildState.RUNNING:
                with contextlib.suppress(Exception):
                    self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise
        finally:
            self._pending.pop(msg_id, None)
            self.protocol._result_types.pop(msg_id, None)  # pygls keeps it when the answer is an error

    def _fail_pending(self, reason: str) -> None:
        for msg_id, future in list(self._pending.items()):
            self.protocol._request_futures.pop(msg_id, None)
            if not future.done():
                future.set_exception(ChildFailed(reason))
        self._pending.clear()
        relayed, self._relayed = self._relayed, {}
        for on_answer in relayed.values():
            on_answer(None, ChildFailed(reason))

    def _fail(self, reason: str) -> None:
        if self.state in (ChildState.FAILED, ChildState.STOPPED):
            return  # the first cause stands; a stopped child did not fail
        tail = self.stderr_tail()
        words = telling_line(tail)
        self.failure = f"{self.name} {reason}" + (f": {words}" if words else "")
        self.failed_at = time.monotonic()
        self.state = ChildState.FAILED
        self._mark_loaded()  # nothing more to wait for: waiting requests fail now
        log.error("%s: %s%s", self.spec.id, self.failure, f"\n{tail}" if tail else "")
        self._fail_pending(self.failure)
        self._signal_group(signal.SIGKILL)

    # -- the process -------------------------------------------------------------------------------------

    def _on_message(self, body: bytes) -> None:
        """A message from the child. Answers to relayed requests settle their waiters straight from json.loads;
        the rest goes to pygls, structured once at the top (pygls calls its hook on every nested object)."""
        try:
            data = json.loads(body)
        except ValueError:
            log.warning("%s: not JSON: %.200r", self.spec.id, body)
            return
        if not isinstance(data, dict) or "jsonrpc" not in data:
            log.warning("%s: not a JSON-RPC message: %.200r", self.spec.id, body)
            return
        method = data.get("method")
        if method is None:
            if self._answer(data):
                return
        elif method in self._raw_handlers:
            self._raw_handlers[method](data)
            return
        if "id" not in data and not self._handles(method):
            # A server's own notification ($/typescriptVersion, …): nothing to relay it to.
            log.debug("%s: dropped notification %s", self.spec.id, method)
            return
        self.protocol.handle_message(self.protocol.structure_message(data))

    def _on_progress(self, message: dict[str, Any]) -> None:
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("token"), (str, int)):
            self.host.progress(self, params)

    def _on_create_progress(self, message: dict[str, Any]) -> None:
        """Answered at once (basedpyright creates a token for every references request: waiting for the
        editor each time would put a round trip on the request's critical path); the host decides later
        whether the editor needs to hear of it."""
        if "id" not in message:
            return
        with contextlib.suppress(ChildFailed):
            self._write({"jsonrpc": "2.0", "id": message["id"], "result": None})
        params = message.get("params")
        token = params.get("token") if isinstance(params, dict) else None
        if isinstance(token, (str, int)):
            self.host.create_progress(self, token)

    def _handles(self, method: Any) -> bool:
        features = self.protocol.fm
        return method in features.features or method in features.builtin_features or method == types.CANCEL_REQUEST

    async def _drain(self, stderr: asyncio.StreamReader) -> None:
        """Read stderr to the end (an unread pipe blocks the child), into the log and a short tail."""
        while True:
            line = await stderr.readline()
            if not line:
                return
            text = line.decode("utf-8", errors="replace").rstrip()
            if text:
                self._stderr.append(text)
                log.debug("%s stderr: %s", self.spec.id, text)

    async def _watch(
        self, handle: asyncio.subprocess.Process, reader: asyncio.Future[None], drain: asyncio.Task[None]
    ) -> None:
        """Notice the child's end within 0.1 s. Process.wait() is no use: it also waits for the pipes,
        which a surviving helper (tsserver, node under a Python launcher) keeps open."""
        while handle.returncode is None and not reader.done():
            await asyncio.wait({reader}, timeout=0.1)
        if self._stopping:
            return
        if handle.returncode is None:
            await self._exited(handle, 0.2)
        # Helpers left behind go first (they hold the pipes), then the last words on stderr are read.
        self._signal_group(signal.SIGKILL)
        await asyncio.wait({drain}, timeout=0.3)
        self._fail(describe_exit(handle.returncode))

    @staticmethod
    async def _exited(handle: asyncio.subprocess.Process, timeout: float) -> bool:
        if handle.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
                await asyncio.wait_for(handle.wait(), timeout)
        return handle.returncode is not None

    def _signal_group(self, sig: signal.Signals) -> None:
        if self._process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.handle.pid, sig)

    async def _finish(self, process: _Process) -> None:
        """Wait for the reader, stderr and watcher to end (the pipes close once the group is dead)."""
        current = asyncio.current_task()
        tasks = [t for t in process.tasks if t is not current]
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=2.0)
        for task in pending:
            task.cancel()
        if process.stdout is not None:
            process.stdout.close()  # a helper that outlived the group's kill may still hold its write end

    # -- requests from the child -----------------------------------------------------------------------

    def _register_handlers(self) -> None:
        features = self.protocol.fm
        host = self.host

        @features.feature(types.WORKSPACE_CONFIGURATION)
        async def configuration(params: types.ConfigurationParams) -> list[Any]:
            return await host.configuration(self, params)

        @features.feature(types.WORKSPACE_APPLY_EDIT)
        async def apply_edit(params: dict[str, Any]) -> Any:
            return await host.apply_edit(self, params)

        @features.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: dict[str, Any]) -> None:
            if self.spec.load_signal == "diagnostics":
                self._mark_loaded()
            host.diagnostics(self, params)

        @features.feature(types.WINDOW_SHOW_MESSAGE)
        def show_message(params: types.ShowMessageParams) -> None:
            host.show_message(self, params)

        @features.feature(types.WINDOW_SHOW_DOCUMENT)
        async def show_document(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
            return await host.show_document(self, params)

        @features.feature(types.WINDOW_LOG_MESSAGE)
        def log_message(params: types.LogMessageParams) -> None:
            host.log_message(self, params)

        @features.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def show_message_request(params: types.ShowMessageRequestParams) -> None:
            # A question lintel cannot put to the user on the child's behalf: logged, no action chosen.
            host.show_message(self, types.ShowMessageParams(type=params.type, message=params.message))

        @features.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            self.registered.update(r.method for r in params.registrations)

        @features.feature(types.CLIENT_UNREGISTER_CAPABILITY)
        def unregister(params: types.UnregistrationParams) -> None:
            self.registered.difference_update(u.method for u in params.unregisterations)

        @features.feature(types.WORKSPACE_WORKSPACE_FOLDERS)
        def folders(params: None) -> list[types.WorkspaceFolder]:
            root = self.spec.root
            return [types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]

        @features.feature(types.TELEMETRY_EVENT)
        def telemetry(params: Any) -> None:
            return None

        for method in _IGNORED_REQUESTS:
            features.feature(method)(_acknowledge)


def _acknowledge(params: Any) -> None:
    return None


def _settle_waiter(waiter: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if waiter.done():
        return
    if error is not None:
        waiter.set_exception(error)
    else:
        waiter.set_result(result)


def _settle(waiter: asyncio.Future[Any], done: Any) -> None:
    if waiter.done():
        return
    if done.cancelled():
        waiter.cancel()
    elif done.exception() is not None:
        waiter.set_exception(done.exception())
    else:
        waiter.set_result(done.result())
