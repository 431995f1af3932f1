"""One child language server: its state, its LSP connection and the requests it sends to lintel. Its process is a
ChildProcess (own process group, stderr drained) and its messages go through a lintel.runtime.rpc Connection.

lintel's requests and their answers stay JSON both ways: their results reach the editor as the child sent them
(fields lsprotocol does not know included), and nothing is converted twice. Only the child's requests to lintel
and the notifications handed to the host are structured (lsprotocol), each once.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
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
from lintel.runtime.clock import Clock, LoopClock
from lintel.runtime.rpc import METHOD_NOT_FOUND, Answer, Callbacks, Connection, Lsp, RemoteError, RequestTimeout

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803  # LSP: a valid request that could not be carried out

__all__ = ["Answer", "ChildClient", "ChildFailed", "ChildHost", "ChildSpec", "ChildState", "child_capabilities"]

# Refresh requests of the features lintel relays: passed on to the editor (when it takes them). The others (pull
# diagnostics, inline values, text document content: lintel asks the children for none of them) are acknowledged.
REFRESHES = frozenset(
    {
        types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
        types.WORKSPACE_FOLDING_RANGE_REFRESH,
    }
)
IGNORED_REQUESTS = frozenset(
    {
        types.WORKSPACE_INLINE_VALUE_REFRESH,
        types.WORKSPACE_DIAGNOSTIC_REFRESH,
        types.WORKSPACE_TEXT_DOCUMENT_CONTENT_REFRESH,
    }
)


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
    saved_sources: tuple[str, ...] = ()  # its diagnostics' sources that describe saved files (ServerSpec)
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

    async def ask_user(self, child: ChildClient, params: types.ShowMessageRequestParams) -> Any:
        """A question for the user (window/showMessageRequest): the action item chosen, or None."""

    async def refresh(self, child: ChildClient, method: str) -> None:
        """A refresh request (semantic tokens, code lenses, inlay hints, folding ranges)."""


def child_capabilities(editor: types.ClientCapabilities, encoding: Unit) -> types.ClientCapabilities:
    """The editor's capabilities as a child should see them: positions in lintel's encoding only, static
    registration (lintel relays no dynamic registrations), push diagnostics (they are merged into lintel's
    store), and none of the features lintel does not relay. The refreshes of the features it relays stay: they are
    passed on to the editor."""
    converter = get_converter()
    raw: dict[str, Any] = converter.unstructure(editor)
    _drop_dynamic_registration(raw)
    raw.setdefault("general", {})["positionEncodings"] = [encoding]
    raw.pop("notebookDocument", None)
    raw.pop("experimental", None)
    workspace = raw.setdefault("workspace", {})
    for key in ("didChangeWatchedFiles", "diagnostics", "inlineValue", "textDocumentContent"):
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

    def __init__(self, spec: ChildSpec, host: ChildHost, clock: Clock | None = None) -> None:
        self.spec = spec
        self.host = host
        self.state = ChildState.STOPPED
        self.failure: str | None = None
        self.failed_at: float | None = None  # on `clock`'s scale (the manager's)
        self.result: types.InitializeResult | None = None
        self.encoding: Unit = "utf-16"
        self.registered: set[str] = set()  # methods the child registered dynamically (accepted)
        self._clock = clock or LoopClock()
        self._converter = get_converter()
        self._process: ChildProcess | None = None
        self._conn: Connection | None = None
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        # Set once the child has loaded its workspace (its spec's load signal), or when it stops answering.
        self._loaded = asyncio.Event()
        self._requests: dict[str, Callable[[Any], Any]] = self._request_handlers()

    # -- what the manager and router read ---------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def connection(self) -> Connection | None:
        return self._conn

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
        self._process = process
        self._conn = Connection(
            process,
            Lsp(),
            label=spec.name,
            failed=ChildFailed,
            answered_error=_answered_error,
            callbacks=Callbacks(self._on_notification, self._on_request, self._fail),
            clock=self._clock,
            id_prefix="lintel-",  # the child's own requests to lintel carry its ids
        )
        await self._conn.open()
        result = await self._initialize()
        if self.state is not ChildState.STARTING:  # stopped meanwhile
            raise ChildFailed(self.failure or f"{self.name} was stopped")
        self.result = result
        encoding = result.capabilities.position_encoding
        self.encoding = str(getattr(encoding, "value", encoding or "utf-16"))  # type: ignore[assignment]
        self._conn.notify(types.INITIALIZED, {})
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
            answer = await self._ask(types.INITIALIZE, params, spec.start_timeout)
            result: types.InitializeResult = self._converter.structure(answer, types.InitializeResult)
        except RequestTimeout as exc:
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
        process, conn = self._process, self._conn
        was = self.state
        self.state = ChildState.STOPPED
        self._mark_loaded()  # requests waiting for it fail now ("was stopped"), not after their wait
        if process is None or conn is None:
            return
        process.stopping = True
        grace = self.spec.stop_grace
        if was is ChildState.RUNNING and process.returncode is None:
            with contextlib.suppress(Exception):
                await self._ask(types.SHUTDOWN, None, grace)
            with contextlib.suppress(Exception):
                conn.notify(types.EXIT, None)
            await process.exited(grace)
        await process.stop()
        conn.fail(f"{self.name} was stopped")
        conn.close()
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
        once, from the reader; the function returned cancels it (the child is told, the answer is dropped).
        This is the hot path of navigation: the request is written as bytes, the answer handed on as parsed."""
        self._check_running()
        return self._connection().send(method, self._json(params), on_answer)

    def _check_running(self) -> None:
        if self.state is not ChildState.RUNNING:
            raise ChildFailed(f"{self.name} is not running" + (f": {self.failure}" if self.failure else ""))

    def _connection(self) -> Connection:
        if self._conn is None:
            raise ChildFailed(f"{self.name} is not running")
        return self._conn

    def _ask(self, method: str, params: Any, timeout: float | None = None) -> Any:
        """A request in any state (initialize and shutdown come before and after RUNNING); cancelling the task
        that awaits it cancels it in the child too."""
        return self._connection().request(method, self._json(params), timeout)

    def _json(self, params: Any) -> Any:
        return self._converter.unstructure(params) if hasattr(params, "__attrs_attrs__") else params

    def notify(self, method: str, params: Any) -> None:
        if self.state is not ChildState.RUNNING or self._conn is None:
            return
        with contextlib.suppress(ChildFailed):  # its end is being handled
            self._conn.notify(method, self._json(params))

    def _fail(self, reason: str) -> None:
        if self.state in (ChildState.FAILED, ChildState.STOPPED):
            return  # the first cause stands; a stopped child did not fail
        tail = self.stderr_tail()
        words = telling_line(tail)
        self.failure = f"{self.name} {reason}" + (f": {words}" if words else "")
        self.failed_at = self._clock.now()
        self.state = ChildState.FAILED
        self._mark_loaded()  # nothing more to wait for: waiting requests fail now
        log.error("%s: %s%s", self.spec.id, self.failure, f"\n{tail}" if tail else "")
        if self._conn is not None:
            self._conn.fail(self.failure)
        if self._process is not None:
            self._process.kill()

    # -- what the child sends --------------------------------------------------------------------------

    def _on_notification(self, method: str | None, params: Any) -> None:
        host = self.host
        if method == types.PROGRESS:
            if isinstance(params, dict) and isinstance(params.get("token"), (str, int)):
                host.progress(self, params)
        elif method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            if self.spec.load_signal == "diagnostics":
                self._mark_loaded()
            if isinstance(params, dict):
                host.diagnostics(self, params)  # raw JSON: its positions may need re-counting first
        elif method == types.WINDOW_SHOW_MESSAGE:
            host.show_message(self, self._converter.structure(params, types.ShowMessageParams))
        elif method == types.WINDOW_LOG_MESSAGE:
            host.log_message(self, self._converter.structure(params, types.LogMessageParams))
        else:
            # A server's own notification ($/typescriptVersion, telemetry, …): nothing to relay it to.
            log.debug("%s: dropped notification %s", self.spec.id, method)

    def _on_request(self, method: str, params: Any) -> Any:
        handler = self._requests.get(method)
        if handler is None:
            if method in REFRESHES:
                return self.host.refresh(self, method)
            if method in IGNORED_REQUESTS:
                return None
            raise RemoteError(f"Method Not Found: {method}", METHOD_NOT_FOUND)
        return handler(params)

    def _request_handlers(self) -> dict[str, Callable[[Any], Any]]:
        """The child's requests lintel answers: each params structured once, each result made JSON."""
        host, structure = self.host, self._converter.structure

        async def configuration(params: Any) -> Any:
            return self._json_list(await host.configuration(self, structure(params, types.ConfigurationParams)))

        async def apply_edit(params: Any) -> Any:
            return self._converter.unstructure(await host.apply_edit(self, params))  # raw JSON (re-counted)

        async def show_document(params: Any) -> Any:
            result = await host.show_document(self, structure(params, types.ShowDocumentParams))
            return self._converter.unstructure(result)

        async def show_message_request(params: Any) -> Any:
            chosen = await host.ask_user(self, structure(params, types.ShowMessageRequestParams))
            return self._converter.unstructure(chosen) if chosen is not None else None

        def register(params: Any) -> None:
            self.registered.update(r.method for r in structure(params, types.RegistrationParams).registrations)

        def unregister(params: Any) -> None:
            gone = structure(params, types.UnregistrationParams).unregisterations
            self.registered.difference_update(u.method for u in gone)

        def folders(params: Any) -> Any:
            root = self.spec.root
            return [{"uri": root.as_uri(), "name": root.name}]

        def create_progress(params: Any) -> None:
            # Answered at once (basedpyright creates a token for every references request: waiting for the
            # editor each time would put a round trip on the request's critical path); the host decides later
            # whether the editor needs to hear of it.
            token = params.get("token") if isinstance(params, dict) else None
            if isinstance(token, (str, int)):
                asyncio.get_running_loop().call_soon(host.create_progress, self, token)

        return {
            types.WORKSPACE_CONFIGURATION: configuration,
            types.WORKSPACE_APPLY_EDIT: apply_edit,
            types.WINDOW_SHOW_DOCUMENT: show_document,
            types.WINDOW_SHOW_MESSAGE_REQUEST: show_message_request,
            types.CLIENT_REGISTER_CAPABILITY: register,
            types.CLIENT_UNREGISTER_CAPABILITY: unregister,
            types.WORKSPACE_WORKSPACE_FOLDERS: folders,
            types.WINDOW_WORK_DONE_PROGRESS_CREATE: create_progress,
        }

    def _json_list(self, values: list[Any]) -> list[Any]:
        return [self._converter.unstructure(value) for value in values]


def _answered_error(error: Mapping[str, Any]) -> Exception:
    code = error.get("code")
    message = error.get("message")
    return JsonRpcException(
        message=message if isinstance(message, str) else "the language server answered an error",
        code=code if isinstance(code, int) else REQUEST_FAILED,
        data=error.get("data"),
    )
