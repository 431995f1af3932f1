"""One child language server: its state, its JSON-RPC connection and the requests it sends to lintel. Its
process is a ChildProcess (own process group, stderr drained); pygls's side of the connection is child_protocol.

lintel's requests bypass pygls both ways: their results reach the editor as the child sent them (fields
lsprotocol does not know included), and nothing is converted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import json
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException

from lintel import __version__
from lintel.core.positions import Unit
from lintel.languages.base import LoadSignal
from lintel.runtime.child_process import STDERR_TAIL, ChildProcess, telling_line
from lintel.runtime.child_protocol import IGNORED_REQUESTS, ChildConnection, ChildProtocol
from lintel.runtime.wire import BatchWriter, encode

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803  # LSP: a valid request that could not be carried out

# Called once with a relayed request's result, or with the error instead.
Answer = Callable[[Any, "BaseException | None"], None]


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

    language: str
    root: Path
    argv: tuple[str, ...]
    name: str  # as the user knows it: gopls, basedpyright-langserver
    install_hint: str = ""
    encoding: Unit = "utf-16"  # the position encoding lintel negotiated with the editor; offered to the child
    capabilities: types.ClientCapabilities = field(default_factory=types.ClientCapabilities)
    initialization_options: Any = None
    load_signal: LoadSignal | None = None  # what says it has loaded its workspace (None: answering says so)
    chatter: tuple[str, ...] = ()  # its window/showMessage texts that are not for the user (ServerSpec.chatter)
    env: Mapping[str, str] | None = None
    start_timeout: float = 60.0
    stop_grace: float = 2.0

    @property
    def key(self) -> tuple[str, Path]:
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
        # One converter, the protocol's: lintel's own requests are unstructured with it too.
        self._converter = get_converter()
        self._client = ChildConnection(
            "lintel", __version__, protocol_cls=ChildProtocol, converter_factory=lambda: self._converter
        )
        self.protocol: ChildProtocol = self._client.protocol  # type: ignore[assignment]
        self._process: ChildProcess | None = None
        self._relayed: dict[str, Answer] = {}  # lintel's requests in flight, raw JSON both ways
        self._out: BatchWriter | None = None
        self._ids = itertools.count(1)
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
        return self._process.pid if self._process is not None else None

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
        self.failure = None
        self._loaded.clear()
        log.info("%s: starting %s in %s", spec.id, " ".join(spec.argv), spec.root)
        try:
            process = await ChildProcess.spawn(spec.argv, cwd=spec.root, env=spec.env, label=spec.id, tail=self._stderr)
        except OSError as exc:
            self._fail(f"cannot run {spec.argv[0]}: {exc.strerror or exc}")
            raise ChildFailed(self.failure) from exc
        self._out = BatchWriter(process.stdin.write, spec.name)
        self.protocol.set_writer(self._out)  # pygls's messages and lintel's own share one ordered stream
        self._process = process
        await process.read(self._on_message, self._fail)
        result = await self._initialize()
        if self.state is not ChildState.STARTING:  # stopped meanwhile
            raise ChildFailed(self.failure or f"{self.name} was stopped")
        self.result = result
        encoding = result.capabilities.position_encoding
        self.encoding = str(getattr(encoding, "value", encoding or "utf-16"))  # type: ignore[assignment]
        self.protocol.notify(types.INITIALIZED, types.InitializedParams())
        self.state = ChildState.RUNNING
        if spec.load_signal is None:
            self._mark_loaded()
        log.info("%s: running (pid %s, positions in %s)", spec.id, process.pid, self.encoding)

    async def _initialize(self) -> types.InitializeResult:
        """The child's answer to `initialize`; ChildFailed (and FAILED) when there is none in time."""
        spec = self.spec
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
            answer = await asyncio.wait_for(self._ask(types.INITIALIZE, params), spec.start_timeout)
            result: types.InitializeResult = self._converter.structure(answer, types.InitializeResult)
        except (asyncio.TimeoutError, TimeoutError) as exc:
            self._fail(f"did not answer initialize within {spec.start_timeout:g}s")
            raise ChildFailed(self.failure) from exc
        except JsonRpcException as exc:  # an error answer, or ChildFailed when it died meanwhile
            self._fail(f"failed to initialize: {exc.message}")
            raise ChildFailed(self.failure) from exc
        except Exception as exc:  # cattrs: the answer is not an InitializeResult
            self._fail(f"failed to initialize: its answer cannot be read ({exc})")
            raise ChildFailed(self.failure) from exc
        return result

    async def stop(self) -> None:
        """shutdown + exit, then SIGTERM and SIGKILL to the process group after the grace period."""
        process = self._process
        was = self.state
        self.state = ChildState.STOPPED
        self._mark_loaded()  # requests waiting for it fail now ("was stopped"), not after their wait
        if process is None:
            return
        process.stopping = True
        grace = self.spec.stop_grace
        if was is ChildState.RUNNING and process.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._ask(types.SHUTDOWN, None), grace)
            with contextlib.suppress(Exception):
                self.protocol.notify(types.EXIT, None)
            await process.exited(grace)
        await process.stop()
        self._fail_pending(f"{self.name} was stopped")
        with contextlib.suppress(Exception):
            if self._out is not None:
                self._out.close()
        await process.finish()

    def kill(self) -> None:
        """Synchronous last resort (interpreter exit): SIGKILL the whole process group."""
        if self._process is not None:
            self._process.stopping = True
            self._process.kill()

    # -- messages ----------------------------------------------------------------------------------------

    async def request(self, method: str, params: Any) -> Any:
        """Relay a request: `params` as JSON (a dict, or lsprotocol attrs), the result as the child sent it."""
        self._check_running()
        return await self._ask(method, params)

    def send(self, method: str, params: Any, on_answer: Answer) -> Callable[[], None]:
        """Relay a request without a coroutine: `on_answer(result, None)` or `on_answer(None, error)` is called
        once, from the reader; the function returned cancels it (the child is told, the answer is dropped)."""
        self._check_running()
        return self._send(method, params, on_answer)

    def _check_running(self) -> None:
        if self.state is not ChildState.RUNNING:
            raise ChildFailed(f"{self.name} is not running" + (f": {self.failure}" if self.failure else ""))

    async def _ask(self, method: str, params: Any) -> Any:
        """A request in any state (initialize and shutdown come before and after RUNNING)."""
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        cancel = self._send(method, params, lambda result, error: _settle_waiter(waiter, result, error))
        try:
            return await waiter
        except asyncio.CancelledError:
            cancel()  # the editor cancelled (or the wait timed out): so does the child
            raise

    def _send(self, method: str, params: Any, on_answer: Answer) -> Callable[[], None]:
        """Every request of lintel's to the child. This is the hot path of navigation, so it bypasses pygls both
        ways: the request is written as bytes and the answer handed on straight from the reader's json.loads
        (pygls would structure the message, run two runtime Protocol isinstance checks and hop through a
        concurrent future). Our own ids: the child's requests to lintel use pygls's table, under the child's."""
        if hasattr(params, "__attrs_attrs__"):
            params = self._converter.unstructure(params)
        msg_id = f"lintel-{next(self._ids)}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:  # JSON-RPC: params, when present, are an object or an array
            message["params"] = params
        self._write(message)
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
        """Settle a request of lintel's from its answer; False when the answer is not for one (pygls's then)."""
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

    def _fail_pending(self, reason: str) -> None:
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
        if self._process is not None:
            self._process.kill()

    # -- what the child sends --------------------------------------------------------------------------

    def _on_message(self, body: bytes) -> None:
        """A message from the child. Answers to lintel's requests settle their waiters straight from json.loads;
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

    # -- requests from the child -----------------------------------------------------------------------

    def _register_handlers(self) -> None:  # noqa: C901 - one small handler per message a child sends
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

        for method in IGNORED_REQUESTS:
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
