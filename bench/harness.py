"""The measuring side of the benchmarks: a pytest-lsp client that timestamps every publishDiagnostics and
logMessage as its reader handles them, server start/stop helpers, a direct tool runner, /proc readers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import os
import statistics
import sys
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cattrs import Converter
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

LINTEL_COMMAND = [sys.executable, "-m", "lintel", "serve"]
BARE_COMMAND = [sys.executable, str(Path(__file__).with_name("bare_server.py"))]


@dataclass(frozen=True)
class Publish:
    at: float  # time.perf_counter() when the client's reader handled the notification
    uri: str
    version: int | None
    diagnostics: tuple[types.Diagnostic, ...]


Predicate = Callable[[Any], bool]


@dataclass
class Recorder:
    """Every publishDiagnostics and logMessage the server sent, and futures resolved by the first match."""

    publishes: list[Publish] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)  # the server's own log lines (with record_stderr)
    _waiters: list[tuple[str, Predicate, asyncio.Future[Any]]] = field(default_factory=list)

    def on_publish(self, params: types.PublishDiagnosticsParams) -> None:
        publish = Publish(time.perf_counter(), params.uri, params.version, tuple(params.diagnostics))
        self.publishes.append(publish)
        self._resolve("publish", publish)

    def on_log(self, params: types.LogMessageParams) -> None:
        self.logs.append(params.message)
        self._resolve("log", params.message)

    def _resolve(self, kind: str, value: Any) -> None:
        for waiter in list(self._waiters):
            wanted, predicate, future = waiter
            if wanted == kind and not future.done() and predicate(value):
                future.set_result(value)
                self._waiters.remove(waiter)

    def expect_publish(self, predicate: Callable[[Publish], bool]) -> asyncio.Future[Publish]:
        """Register before triggering: resolved by the first later publish that matches."""
        future: asyncio.Future[Publish] = asyncio.get_running_loop().create_future()
        self._waiters.append(("publish", predicate, future))
        return future

    def expect_log(self, predicate: Callable[[str], bool]) -> asyncio.Future[str]:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiters.append(("log", predicate, future))
        return future


@dataclass
class Server:
    client: LanguageClient
    recorder: Recorder
    spawn_started: float  # perf_counter just before the process was spawned
    spawned: float  # perf_counter once the spawn call returned

    @property
    def pid(self) -> int:
        process = self.client._server  # pygls keeps the server process here
        assert process is not None
        return process.pid


def is_notebook_filter_union(cls: Any) -> bool:
    """The type of a notebook filter's `notebook` (a notebook type name or a filter object): lsprotocol
    2025.0.0 registers no structure hook for it, so cattrs cannot read an initialize response that has a
    `notebookSelector` (`ruff server`'s: `[{"cells": [{"language": "python"}]}]`) and pygls drops it."""
    return typing.get_origin(cls) is typing.Union and types.NotebookDocumentFilterNotebookType in typing.get_args(cls)


def structure_notebook_filter(value: Any, cls: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    for key, kind in (
        ("notebookType", types.NotebookDocumentFilterNotebookType),
        ("scheme", types.NotebookDocumentFilterScheme),
    ):
        if key in value:
            return warm_converter().structure(value, kind)
    return warm_converter().structure(value, types.NotebookDocumentFilterPattern)


@functools.cache
def warm_converter() -> Converter:
    """One converter for every client, its initialize (un)structuring code generated up front: cattrs
    builds that code on first use, per converter, and the tens of milliseconds it takes are the client's."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    converter.register_structure_hook_func(is_notebook_filter_union, structure_notebook_filter)
    request = types.InitializeRequest(id=1, params=initialize_params(Path.cwd(), {}))
    converter.unstructure(request, types.InitializeRequest)
    converter.structure({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}}, types.InitializeResponse)
    return converter


class RecordingClient(LanguageClient):
    """pytest-lsp's client, keeping the server's stderr instead of forwarding it (the lines of `lintel -v`
    say what it runs); lines that are not INFO still go to this process's stderr unless `echo` is off (the
    peers log in formats of their own, kept in `recorder.stderr` for an error message)."""

    recorder: Recorder
    echo: bool = True

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super(LanguageClient, self).start_io(cmd, *args, **kwargs)  # pytest-lsp's forwarder left out
        if self._server is not None and self._server.stderr is not None:
            self._stderr_forwarder = asyncio.create_task(self._record(self._server.stderr))

    async def _record(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode("utf-8", errors="replace").rstrip("\n")
            self.recorder.stderr.append(text)
            if self.echo and ": INFO " not in text:
                print(text, file=sys.stderr)


async def start_server(
    command: Sequence[str],
    *,
    record_stderr: bool = False,
    echo_stderr: bool = True,
    features: Mapping[str, Callable[..., Any]] | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Server:
    """Spawn a language server with a client that records what it publishes. `features`: more client-side
    handlers (a peer's own notifications, `workspace/configuration`), by method name. `env`: the server's
    whole environment (default: ours)."""
    recorder = Recorder()

    def factory() -> LanguageClient:
        client = (RecordingClient if record_stderr else LanguageClient)(converter_factory=warm_converter)
        if isinstance(client, RecordingClient):
            client.recorder = recorder
            client.echo = echo_stderr

        # pygls tags each handler with attributes, which bound methods cannot carry: plain functions.
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            recorder.on_publish(params)

        def on_log(params: types.LogMessageParams) -> None:
            recorder.on_log(params)

        def on_register(params: types.RegistrationParams) -> None:
            return None

        handlers = {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: on_publish,
            types.WINDOW_LOG_MESSAGE: on_log,
            types.CLIENT_REGISTER_CAPABILITY: on_register,
            **(features or {}),
        }
        register_lsp_features(client, handlers)
        return client

    # What ClientServerConfig(...).start() does, with the client built first: building its converter takes
    # tens of milliseconds that are not the server's.
    client = factory()
    before = time.perf_counter()
    spawn: dict[str, Any] = {"cwd": cwd} if cwd is not None else {}
    if env is not None:
        spawn["env"] = dict(env)
    await client.start_io(*command, **spawn)
    return Server(client, recorder, before, time.perf_counter())


def initialize_params(
    root: Path | None,
    options: Mapping[str, Any] | None = None,
    capabilities: types.ClientCapabilities | None = None,
) -> types.InitializeParams:
    folders = [types.WorkspaceFolder(uri=root.as_uri(), name=root.name)] if root is not None else None
    return types.InitializeParams(
        capabilities=capabilities or client_capabilities("visual-studio-code"),
        root_uri=root.as_uri() if root is not None else None,
        workspace_folders=folders,
        initialization_options=dict(options) if options is not None else None,
    )


async def start_lintel(
    root: Path, options: Mapping[str, Any] | None = None, timeout: float = 30.0, *, verbose: bool = False
) -> Server:
    """A lintel server, initialized, with the workspace detected (it logs `detected ...` once it has).
    `verbose`: started as `lintel -v serve`, its log recorded in `recorder.stderr`."""
    command = [*LINTEL_COMMAND[:-1], "-v", LINTEL_COMMAND[-1]] if verbose else LINTEL_COMMAND
    server = await start_server(command, record_stderr=verbose)
    detected = server.recorder.expect_log(lambda message: "detected" in message)
    await asyncio.wait_for(server.client.initialize_session(initialize_params(root, options)), timeout)
    await asyncio.wait_for(detected, timeout)
    return server


async def stop_server(server: Server, timeout: float = 10.0) -> None:
    try:
        await asyncio.wait_for(server.client.shutdown_session(), timeout)
        await asyncio.wait_for(server.client.stop(), timeout)  # type: ignore[no-untyped-call]  # pygls: unannotated
    except (asyncio.TimeoutError, RuntimeError, ConnectionError):
        process = server.client._server
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()


def open_document(server: Server, path: Path, language_id: str, text: str, version: int = 1) -> None:
    server.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id=language_id, version=version, text=text)
        )
    )


def change_document(server: Server, uri: str, version: int, text: str) -> None:
    server.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def save_document(server: Server, uri: str) -> None:
    server.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def save_and_wait(server: Server, uri: str, timeout: float = 60.0) -> tuple[float, Publish]:
    """Milliseconds from sending didSave until the client has the publishDiagnostics for `uri`."""
    published = server.recorder.expect_publish(lambda publish: publish.uri == uri)
    sent = time.perf_counter()
    save_document(server, uri)
    publish = await asyncio.wait_for(published, timeout)
    return (publish.at - sent) * 1000, publish


@dataclass(frozen=True)
class DirectRun:
    ms: float
    exit_code: int
    stdout: bytes


async def run_direct(argv: Sequence[str], cwd: Path, env: Mapping[str, str], stdin: bytes | None = None) -> DirectRun:
    """The tool alone, started as lintel starts it (own session, stdin /dev/null, both streams piped).
    `stdin`: written to its stdin instead (a hook's payload), then closed."""
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    stdout, _ = await process.communicate(stdin)
    return DirectRun((time.perf_counter() - started) * 1000, process.returncode or 0, stdout)


def tool_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a direct run: the user's, as lintel's runs get it (lintel.core.runenv adds no colour)."""
    return {**os.environ, **(extra or {})}


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in kB."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, from the parent of each process in /proc. A daemon that detached
    (setsid and re-parented to init) is not found here: measure it by its own pid."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue  # it ended while we looked
        parent = int(data[data.rfind(b")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


def process_name(pid: int, width: int = 60) -> str:
    """The command line of a process, its program's base name first, cut to `width` characters."""
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        argv = [part.decode(errors="replace") for part in cmdline.read().split(b"\0") if part]
    # Paths by their base name and a `python -c` program as "…": what tells the processes apart stays in view.
    shown = [Path(a).name if a.startswith("/") else a for a in argv]
    shown = ["…" if index and shown[index - 1] == "-c" else a for index, a in enumerate(shown)]
    text = " ".join(shown) if argv else f"[{pid}]"
    return text if len(text) <= width else text[: width - 1] + "…"


def tree_members(pid: int) -> list[tuple[int, str, int]]:
    """`pid` and its descendants still alive: (pid, command line, VmRSS in kB) of each."""
    members = []
    for member in descendants(pid):
        try:
            members.append((member, process_name(member), proc_status(member).get("VmRSS", 0)))
        except OSError:
            continue  # it ended while we looked
    return members


def tree_rss_kb(pid: int) -> tuple[int, int]:
    """The summed VmRSS of `pid` and its descendants, and how many processes that is."""
    members = tree_members(pid)
    return sum(kb for _pid, _name, kb in members), len(members)


def proc_state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        data = stat.read()
    return data[data.rfind(b")") + 2 :].split()[0].decode()


async def wait_idle(pid: int, settle: float = 0.03, poll: float = 0.002, timeout: float = 30.0) -> float:
    """Wait until the process has been asleep (state S: blocked reading its stdin) for `settle` seconds
    without a break; returns the perf_counter at which that quiet stretch began."""
    deadline = time.perf_counter() + timeout
    asleep_since: float | None = None
    while time.perf_counter() < deadline:
        now = time.perf_counter()
        if proc_state(pid) == "S":
            if asleep_since is None:
                asleep_since = now
            elif now - asleep_since >= settle:
                return asleep_since
        else:
            asleep_since = None
        await asyncio.sleep(poll)
    raise TimeoutError(f"pid {pid} never went idle")


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """Nearest rank, of samples sorted ascending."""
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary(samples: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    if not ordered:
        return {"n": 0}
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 2),
        "p90": round(percentile(ordered, 0.90), 2),
        "p95": round(percentile(ordered, 0.95), 2),
        "min": round(ordered[0], 2),
        "max": round(ordered[-1], 2),
        "samples": [round(s, 2) for s in samples],
    }


def loadavg() -> list[float]:
    with contextlib.suppress(OSError):
        return [round(x, 2) for x in os.getloadavg()]
    return []
