"""A bounded soak of `lintel serve`: ten minutes of mixed load against one server, its memory, file
descriptors and processes watched the whole time, and what it leaves behind checked at the end.

    python bench/soak.py [--minutes 10] [--json FILE] [--server fake|basedpyright]

Informational, not part of the test suite; it stops by itself (every wait has a timeout). Exit status 1 when a
request was never answered or a process lintel started escaped it or outlived it, else 0.

One `python -m lintel serve` (through pytest-lsp's client) on a temporary copy of tests/workspaces/python, with
ruff linting on save and, as the python navigation server, bench/soak_language_server.py: a stand-in that offers
hover and definition and is cheap to start and kill (`--server basedpyright`: the real one, much heavier on two
cores). `lintel.typecheck` is configured to a slow fake tool (sleeps 2 s, with a `sleep 60` child in its process
group, which only a group kill ends early). Concurrent loops, each with small pauses between operations:

- saves: on three files in turn, 5 x (write the file atomically, didChange, didSave) 40 ms apart, then wait for
  that file's publishDiagnostics;
- commands: `lintel.lint` and `lintel.detect` with a fresh workDoneToken, some with one reused token string
  (a -32800 for one of those that was not cancelled is an error: a stale cancelled token), some cancelled with
  `$/cancelRequest` or `window/workDoneProgress/cancel` a few milliseconds in; `lintel.typecheck` cancelled
  0.5 s in both ways (its tool's process group is killed), and one run to its end;
- navigation: hover and definition, forwarded to the child server, five a second;
- kills: the child server's pid (found by scanning /proc for lintel's descendants) killed with SIGKILL every 30 s
  (lintel restarts it: at most 3 times a minute before it gives up); `lintel.restartServers` at 45 s and every
  150 s after;
- configuration: `workspace/didChangeConfiguration` every 20 s, toggling `editor.lintOnChange` and
  `editor.saveDebounceMs`.

Every minute a row: elapsed time, lintel's RSS (VmRSS) and open fds (/proc/<pid>/fd), its live descendant
processes, and the requests sent / answered / errors (error answers other than a cancel this script asked for) /
pending (not answered yet), processes escaped, child kills and publishes so far. Descendants are recorded every
second by (pid, start time), so a reused pid is not mistaken for one of them; one that stays alive for 5 s after
leaving lintel's tree (its parent died without it: a group kill that missed it), or any process carrying
lintel's cookie outside its tree, has escaped. At the end: `shutdown` + `exit`, then the descendants still alive
when lintel has exited and 5 s later (expect 0), plus any process carrying lintel's LINTEL_OWNERS cookie
(lintel.runtime.orphans); the requests never answered (expect 0; waited for up to 30 s after the load stops); every
workDoneProgress begin matched by an end; and the RSS and fd slopes after warm-up: least squares over the
per-minute rows of minutes 2..N (over the 10 s samples of the second half when the run is shorter than 3 minutes),
and each minute's lowest fd count: a sample that catches a tool running holds its pidfd and pipes, so the slopes
of fds are noise of ±1-3 a minute; the lowest count (lintel between runs) is what a leak would move.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import platform
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness
from lint_on_save import tool_path, write_atomically
from lintel import __version__ as lintel_version
from lintel.runtime.orphans import OWNERS_VARIABLE
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from workloads import REPO

FIXTURE = REPO / "tests" / "workspaces" / "python"
FAKE_SERVER = Path(__file__).with_name("soak_language_server.py")
STORM_FILES = ("src/inventory/models.py", "src/inventory/pricing.py", "src/inventory/labels.py")
NAV_FILES = ("src/inventory/report.py", "src/inventory/models.py")

REQUEST_TIMEOUT = 60.0  # a single request's answer; later ones still count as answered when they come
DRAIN_TIMEOUT = 30.0  # after the load stops, for the requests still pending
START_TIMEOUT = 60.0
EXIT_TIMEOUT = 10.0
LEFTOVER_WAIT = 5.0
CANCELLED = -32800  # LSP RequestCancelled

STORM_SAVES = 5
STORM_INTERVAL = 0.04
PUBLISH_TIMEOUT = 30.0
SAVE_PAUSE = 0.5
COMMAND_PAUSE = 0.4
NAV_PAUSE = 0.2
KILL_EVERY = 30.0
FIRST_RESTART = 45.0  # then every RESTART_EVERY
RESTART_EVERY = 150.0
CONFIG_EVERY = 20.0
SCAN_EVERY = 1.0
SAMPLE_EVERY = 10.0
ESCAPE_GRACE = 5.0  # lintel's group kill allows a tool 2 s between SIGTERM and SIGKILL
REUSED_TOKEN = "soak-reused-token"

# The command loop's cycle: (command, token: fresh/reused/none, cancel: None, "request" or "progress", seconds in).
COMMAND_PLAN: tuple[tuple[str, str, str | None, float], ...] = (
    ("lintel.lint", "fresh", None, 0.0),
    ("lintel.detect", "fresh", None, 0.0),
    ("lintel.lint", "reused", None, 0.0),
    ("lintel.lint", "fresh", "request", 0.02),
    ("lintel.typecheck", "fresh", "request", 0.5),
    ("lintel.lint", "reused", "progress", 0.02),  # cancels the reused token: the next reuse must still run
    ("lintel.detect", "reused", None, 0.0),
    ("lintel.lint", "reused", None, 0.0),
    ("lintel.typecheck", "reused", "progress", 0.5),
    ("lintel.lint", "fresh", "request", 0.0),
    ("lintel.typecheck", "fresh", None, 0.0),  # to its end: the tool ends its own child
    ("lintel.detect", "none", None, 0.0),
)

# The fake typecheck tool: 2 s of "work" with a child in its process group that outlives it unless the group is
# killed (the script ends the child itself when it is left to finish). It logs its start and its end to argv[1]:
# a run that ends although its command was cancelled was not killed.
SLOW_TOOL = """\
import subprocess, sys, time
with open(sys.argv[1], "a") as log:
    log.write("start\\n")
child = subprocess.Popen(["sleep", "60"])
time.sleep(2)
child.terminate()
child.wait()
with open(sys.argv[1], "a") as log:
    log.write("end\\n")
print("Success: no issues found in 1 source file")
"""


# -- /proc ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    start: int  # start time in clock ticks after boot: with the pid, it names one process (pids are reused)
    ppid: int
    command: str


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, start time, state) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            data = stat.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    return int(fields[1]), int(fields[19]), fields[0].decode()


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            parts = cmdline.read().split(b"\0")
    except OSError:
        return "?"
    return " ".join(p.decode("utf-8", "replace") for p in parts if p)[:160]


def descendants(root: int) -> list[Proc]:
    """The live processes below `root` (the kernel here has no /proc/<pid>/task/*/children: a scan of ppids)."""
    children: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[2] != "Z":
                children.setdefault(stat[0], []).append((int(entry), stat[1]))
    found: list[Proc] = []
    queue = [root]
    while queue:
        parent = queue.pop()
        for pid, start in children.get(parent, ()):
            found.append(Proc(pid, start, parent, _command(pid)))
            queue.append(pid)
    return found


def alive(proc: Proc) -> bool:
    stat = _stat(proc.pid)
    return stat is not None and stat[1] == proc.start and stat[2] != "Z"


def cookie_holders(lintel_pid: int) -> list[Proc]:
    """Live processes whose environment carries a LINTEL_OWNERS cookie of this lintel (lintel.runtime.orphans: every
    process it starts, at any depth, setsid'ed ones too)."""
    prefix = f"{OWNERS_VARIABLE}=".encode()
    mine = f"{lintel_pid}-".encode()
    found: list[Proc] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                variables = environ.read().split(b"\0")
        except OSError:
            continue
        for variable in variables:
            if variable.startswith(prefix) and any(c.startswith(mine) for c in variable[len(prefix) :].split()):
                stat = _stat(int(entry))
                if stat is not None and stat[2] != "Z":
                    found.append(Proc(int(entry), stat[1], stat[0], _command(int(entry))))
                break
    return found


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope(points: Sequence[tuple[float, float]]) -> float | None:
    """Least-squares slope of y over x; None with fewer than two distinct x."""
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


# -- requests -------------------------------------------------------------------------------------------------


@dataclass
class Ledger:
    """Every request this script sent and how it was answered."""

    pending: dict[int, tuple[str, float]] = field(default_factory=dict)  # id -> (label, sent at)
    cancel_asked: set[int] = field(default_factory=set)
    sent: int = 0
    answered: int = 0
    errors: int = 0
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)  # (label, outcome)
    error_kinds: Counter[str] = field(default_factory=Counter)  # "label: code message"

    def send(self, msg_id: int, label: str) -> None:
        self.sent += 1
        self.pending[msg_id] = (label, time.perf_counter())

    def answer(self, msg_id: int, future: asyncio.Future[Any]) -> None:
        label, _ = self.pending.pop(msg_id, ("?", 0.0))
        self.answered += 1
        asked = msg_id in self.cancel_asked
        self.cancel_asked.discard(msg_id)
        error = None if future.cancelled() else future.exception()
        if future.cancelled():
            outcome = "dropped by the client"
        elif error is None:
            outcome = "result" if future.result() is not None else "null"
        elif isinstance(error, JsonRpcException) and error.code == CANCELLED:
            outcome = "cancelled" if asked else "cancelled, not asked"
        else:
            outcome = "error"
        if outcome in ("error", "cancelled, not asked", "dropped by the client"):
            self.errors += 1
            code = getattr(error, "code", type(error).__name__ if error is not None else "-")
            message = getattr(error, "message", None) or str(error)
            self.error_kinds[f"{label}: {code} {message[:120]}"] += 1
        self.outcomes[(label, outcome)] += 1


class SoakClient(LanguageClient):
    """pytest-lsp's client, keeping lintel's stderr (a tail, and each WARNING/ERROR message counted) instead of
    forwarding it: child kills and cancels make routine warnings."""

    log_levels: Counter[str]
    log_messages: Counter[str]  # type: ignore[assignment]  # pytest-lsp's own is a list of logMessage params
    log_tail: deque[str]

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        self.log_levels = Counter()
        self.log_messages = Counter()
        self.log_tail = deque(maxlen=40)
        await super(LanguageClient, self).start_io(cmd, *args, **kwargs)  # pytest-lsp's forwarder left out
        if self._server is not None and self._server.stderr is not None:
            self._stderr_forwarder = asyncio.create_task(self._keep(self._server.stderr))

    async def _keep(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode("utf-8", errors="replace").rstrip("\n")
            self.log_tail.append(text)
            parts = text.split(" ", 3)
            if len(parts) == 4 and parts[0] == "lintel:":
                self.log_levels[parts[1]] += 1
                if parts[1] in ("WARNING", "ERROR", "CRITICAL"):
                    self.log_messages[f"{parts[1]} {parts[2]} {parts[3][:100]}"] += 1
            elif text.startswith("Traceback"):
                self.log_levels["traceback"] += 1


# -- the soak -------------------------------------------------------------------------------------------------


@dataclass
class Sample:
    at: float  # seconds since the load started
    rss_kb: int
    fds: int
    processes: int  # live descendants of lintel


class Soak:
    def __init__(self, root: Path, minutes: float, server_kind: str, seed: int) -> None:
        self.root = root
        self.minutes = minutes
        self.server_kind = server_kind
        self.random = random.Random(seed)
        self.ledger = Ledger()
        self.ids = itertools.count(1)
        self.tokens = itertools.count(1)
        self.stop = asyncio.Event()
        self.drained = asyncio.Event()  # set whenever no request is pending
        self.began = 0.0
        self.samples: list[Sample] = []
        self.rows: list[dict[str, Any]] = []
        self.seen: dict[tuple[int, int], Proc] = {}  # every descendant recorded during the run
        self.watched: set[tuple[int, int]] = set()  # recorded ones not known to have ended
        self.orphaned_since: dict[tuple[int, int], float] = {}
        self.escaped: dict[tuple[int, int], Proc] = {}
        self.max_processes = 0
        self.publishes = 0
        self.publish_waiters: list[tuple[str, int, asyncio.Future[float]]] = []  # (uri, version awaited, ...)
        self.published_versions: dict[str, int] = {}  # the newest document version published per uri
        self.storms = Counter[str]()
        self.progress_open: Counter[str] = Counter()  # begins minus ends, per token
        self.progress_begins = 0
        self.shown: Counter[str] = Counter()  # window/showMessage texts
        self.versions: dict[str, int] = {}
        self.kill_times: list[float] = []  # seconds into the load
        self.killed_at: float | None = None
        self.recoveries: list[float] = []  # seconds from a kill to the next forwarded answer
        self.config_changes = 0
        self.notes: list[str] = []
        self.client = self._client()

    # -- the client ---------------------------------------------------------------------------------------

    def _client(self) -> SoakClient:
        client = SoakClient(converter_factory=harness.warm_converter)

        # pygls tags each handler with attributes, which bound methods cannot carry: plain functions.
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.on_publish(params.uri, params.version)

        def on_progress(params: types.ProgressParams) -> None:
            kind = params.value.get("kind") if isinstance(params.value, dict) else None
            if kind == "begin":
                self.progress_begins += 1
                self.progress_open[str(params.token)] += 1
            elif kind == "end":
                self.progress_open[str(params.token)] -= 1

        def on_log(params: types.LogMessageParams) -> None:
            return None

        def on_show(params: types.ShowMessageParams) -> None:
            self.shown[params.message[:160]] += 1

        def on_register(params: types.RegistrationParams) -> None:
            return None

        register_lsp_features(
            client,
            {
                **DEFAULT_CLIENT_FEATURES,
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: on_publish,
                types.PROGRESS: on_progress,
                types.WINDOW_LOG_MESSAGE: on_log,
                types.WINDOW_SHOW_MESSAGE: on_show,
                types.CLIENT_REGISTER_CAPABILITY: on_register,
            },
        )
        return client

    @property
    def pid(self) -> int:
        process = self.client._server  # pygls keeps the server process here
        assert process is not None
        return process.pid

    def lintel_running(self) -> bool:
        process = self.client._server
        return process is not None and process.returncode is None

    def on_publish(self, uri: str, version: int | None) -> None:
        now = time.perf_counter()
        self.publishes += 1
        if version is not None:
            self.published_versions[uri] = max(version, self.published_versions.get(uri, version))
        for waiter in list(self.publish_waiters):
            wanted, wanted_version, future = waiter
            if wanted == uri and (version is None or version >= wanted_version) and not future.done():
                future.set_result(now)
                self.publish_waiters.remove(waiter)

    async def wait_publish(self, uri: str, version: int, timeout: float) -> bool:
        """Until a publish for `uri` carries `version` (or a later one, or none): the findings of that save. One
        that came before this was called counts (a stalled loop may hand the publish over before the wait)."""
        if self.published_versions.get(uri, -1) >= version:
            return True
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        waiter = (uri, version, future)
        self.publish_waiters.append(waiter)
        try:
            await asyncio.wait_for(future, timeout)
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            if waiter in self.publish_waiters:
                self.publish_waiters.remove(waiter)

    async def request(
        self, label: str, method: str, params: Any, *, cancel: str | None = None, after: float = 0.0, token: str = ""
    ) -> tuple[str, Any]:
        """Send, optionally cancel `after` seconds in (`request`: $/cancelRequest; `progress`:
        window/workDoneProgress/cancel of `token`), and wait up to REQUEST_TIMEOUT: ("result", value),
        ("error", exception) or ("late", None). The ledger records the answer whenever it comes."""
        msg_id = next(self.ids)
        self.ledger.send(msg_id, label)
        future = asyncio.wrap_future(self.client.protocol.send_request(method, params, msg_id=msg_id))
        future.add_done_callback(lambda done: self.answered(msg_id, done))
        if cancel is not None:
            asyncio.get_running_loop().call_later(after, self._cancel, msg_id, future, cancel, token)
        try:
            return "result", await asyncio.wait_for(asyncio.shield(future), REQUEST_TIMEOUT)
        except asyncio.TimeoutError:
            return "late", None
        except Exception as exc:
            return "error", exc

    def answered(self, msg_id: int, future: asyncio.Future[Any]) -> None:
        self.ledger.answer(msg_id, future)
        if not self.ledger.pending:
            self.drained.set()

    def _cancel(self, msg_id: int, future: asyncio.Future[Any], how: str, token: str) -> None:
        if future.done() or not self.lintel_running():
            return
        self.ledger.cancel_asked.add(msg_id)
        if how == "request":
            self.client.cancel_request(types.CancelParams(id=msg_id))
        else:
            self.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

    def uri(self, relative: str) -> str:
        return (self.root / relative).as_uri()

    async def paced(self, seconds: float) -> None:
        """A pause that ends early when the load stops."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)

    # -- the loops ------------------------------------------------------------------------------------------

    async def save_loop(self) -> None:
        texts = {name: (self.root / name).read_text(encoding="utf-8") for name in STORM_FILES}
        for round_number in itertools.count():
            if self.stop.is_set():
                return
            name = STORM_FILES[round_number % len(STORM_FILES)]
            path, uri = self.root / name, self.uri(name)
            for step in range(STORM_SAVES):
                text = f"{texts[name]}\n\ndef soak_{round_number}_{step}() -> None:\n    unused_{step} = {step}\n"
                self.versions[uri] += 1
                write_atomically(path, text)
                self.client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                    )
                )
                self.client.text_document_did_save(
                    types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
                )
                await asyncio.sleep(STORM_INTERVAL)
            published = await self.wait_publish(uri, self.versions[uri], PUBLISH_TIMEOUT)
            self.storms["published" if published else "no publish within 30 s"] += 1
            await self.paced(SAVE_PAUSE)

    async def command_loop(self) -> None:
        for step in itertools.count():
            if self.stop.is_set():
                return
            command, token_kind, cancel, after = COMMAND_PLAN[step % len(COMMAND_PLAN)]
            token = {"fresh": f"soak-{next(self.tokens)}", "reused": REUSED_TOKEN, "none": ""}[token_kind]
            params = types.ExecuteCommandParams(command=command, arguments=[], work_done_token=token or None)
            label = f"{command} ({token_kind} token{', cancelled by ' + cancel if cancel else ''})"
            await self.request(label, types.WORKSPACE_EXECUTE_COMMAND, params, cancel=cancel, after=after, token=token)
            await self.paced(COMMAND_PAUSE)

    async def navigation_loop(self) -> None:
        lines = {name: (self.root / name).read_text(encoding="utf-8").split("\n") for name in NAV_FILES}
        for step in itertools.count():
            if self.stop.is_set():
                return
            name = NAV_FILES[step % len(NAV_FILES)]
            line = self.random.randrange(len(lines[name]) - 1)
            position = types.Position(line=line, character=self.random.randrange(len(lines[name][line]) + 1))
            document = types.TextDocumentIdentifier(uri=self.uri(name))
            sent = time.perf_counter()
            if step % 2:
                kind, value = await self.request(
                    "textDocument/definition",
                    types.TEXT_DOCUMENT_DEFINITION,
                    types.DefinitionParams(text_document=document, position=position),
                )
            else:
                kind, value = await self.request(
                    "textDocument/hover",
                    types.TEXT_DOCUMENT_HOVER,
                    types.HoverParams(text_document=document, position=position),
                )
            if kind == "result" and value and self.killed_at is not None and sent > self.killed_at:
                self.recoveries.append(time.perf_counter() - self.killed_at)
                self.killed_at = None
            await self.paced(NAV_PAUSE)

    def navigation_child(self) -> Proc | None:
        marker = FAKE_SERVER.name if self.server_kind == "fake" else "basedpyright"
        return next((p for p in descendants(self.pid) if p.ppid == self.pid and marker in p.command), None)

    async def kill_loop(self) -> None:
        next_kill = KILL_EVERY
        next_restart = FIRST_RESTART
        while not self.stop.is_set():
            await self.paced(1.0)
            elapsed = time.perf_counter() - self.began
            if elapsed >= next_kill:
                next_kill += KILL_EVERY
                child = self.navigation_child()
                if child is None:
                    self.notes.append(f"{elapsed:.0f}s: no navigation child to kill")
                    continue
                os.kill(child.pid, signal.SIGKILL)
                self.kill_times.append(elapsed)
                self.killed_at = time.perf_counter()
            if elapsed >= next_restart:
                next_restart += RESTART_EVERY
                params = types.ExecuteCommandParams(command="lintel.restartServers", arguments=[])
                await self.request("lintel.restartServers", types.WORKSPACE_EXECUTE_COMMAND, params)

    async def config_loop(self) -> None:
        for flip in itertools.count(1):
            await self.paced(CONFIG_EVERY)
            if self.stop.is_set():
                return
            editor = {"lintOnChange": flip % 2 == 1, "saveDebounceMs": 200 if flip % 2 else 100}
            self.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings={"lintel": {"editor": editor}})
            )
            self.config_changes += 1

    async def monitor_loop(self) -> None:
        next_sample = 0.0
        next_row = 60.0
        while not self.stop.is_set():
            if not self.lintel_running():
                self.notes.append(f"lintel exited during the run (exit code {self.client._server.returncode})")  # type: ignore[union-attr]
                self.stop.set()
                return
            elapsed = time.perf_counter() - self.began
            live = self.scan(cookies=elapsed >= next_sample)
            if elapsed >= next_sample:
                next_sample += SAMPLE_EVERY
                self.sample(elapsed, live)
            if elapsed >= next_row and elapsed < self.minutes * 60 - SCAN_EVERY:  # run() takes the last one
                next_row += 60.0
                self.row(elapsed)
            await self.paced(SCAN_EVERY)

    def scan(self, cookies: bool = False) -> int:
        """Record lintel's live descendants (their number is returned). A process lintel started that is alive
        but no longer below lintel for ESCAPE_GRACE seconds has escaped: recorded ones are checked every scan,
        and with `cookies` every process carrying lintel's cookie (started by a parent that was never seen)."""
        now = time.perf_counter()
        found = descendants(self.pid)
        below = {(p.pid, p.start) for p in found}
        for proc in found:
            key = (proc.pid, proc.start)
            if key not in self.seen:
                self.seen[key] = proc
                self.watched.add(key)
        outside = [self.seen[key] for key in self.watched - below]
        if cookies:
            outside += [p for p in cookie_holders(self.pid) if (p.pid, p.start) not in below]
        for proc in outside:
            key = (proc.pid, proc.start)
            if not alive(proc):
                self.watched.discard(key)
                self.orphaned_since.pop(key, None)
            elif key not in self.escaped:
                since = self.orphaned_since.setdefault(key, now)
                if now - since >= ESCAPE_GRACE:
                    self.escaped[key] = proc
                    self.notes.append(f"{now - self.began:.0f}s: escaped lintel, alive: {proc_json(proc)}")
        self.max_processes = max(self.max_processes, len(found))
        return len(found)

    def sample(self, elapsed: float, live: int) -> Sample:
        sample = Sample(elapsed, harness.proc_status(self.pid).get("VmRSS", 0), open_fds(self.pid), live)
        self.samples.append(sample)
        return sample

    def row(self, elapsed: float, label: str | None = None) -> None:
        sample = self.sample(elapsed, self.scan())
        ledger = self.ledger
        row = {
            "minute": label or f"{round(elapsed / 60, 1):g}",
            "elapsed_s": round(elapsed, 1),
            "rss_mb": round(sample.rss_kb / 1024, 1),
            "fds": sample.fds,
            "processes": sample.processes,
            "sent": ledger.sent,
            "answered": ledger.answered,
            "errors": ledger.errors,
            "pending": len(ledger.pending),
            "escaped": len(self.escaped),
            "kills": len(self.kill_times),
            "publishes": self.publishes,
        }
        self.rows.append(row)
        print(format_row(row), flush=True)

    # -- the run ----------------------------------------------------------------------------------------------

    async def start(self, options: dict[str, Any]) -> None:
        await asyncio.wait_for(self.client.start_io(*harness.LINTEL_COMMAND), START_TIMEOUT)
        await asyncio.wait_for(
            self.client.initialize_session(harness.initialize_params(self.root, options)), START_TIMEOUT
        )
        waits = [self.wait_publish(self.uri(name), 1, START_TIMEOUT) for name in STORM_FILES]
        for name in dict.fromkeys((*STORM_FILES, *NAV_FILES)):
            uri = self.uri(name)
            self.versions[uri] = 1
            text = (self.root / name).read_text(encoding="utf-8")
            self.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
                )
            )
        if not all(await asyncio.gather(*waits)):
            self.notes.append("not every opened file was published within 60 s")
        first = types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri(NAV_FILES[0])),
            position=types.Position(line=0, character=0),
        )
        await self.request("textDocument/hover (start)", types.TEXT_DOCUMENT_HOVER, first)

    async def run(self) -> None:
        self.began = time.perf_counter()
        self.sample(0.0, self.scan())
        loops = [
            self.save_loop(),
            self.command_loop(),
            self.navigation_loop(),
            self.kill_loop(),
            self.config_loop(),
            self.monitor_loop(),
        ]
        tasks = [asyncio.ensure_future(loop) for loop in loops]
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stop.wait(), self.minutes * 60)
        if not self.stop.is_set():
            self.scan(cookies=True)
            self.row(time.perf_counter() - self.began)
        self.stop.set()
        done, still = await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT + PUBLISH_TIMEOUT)
        for task in still:
            task.cancel()
            self.notes.append(f"a load loop did not stop in time: {task.get_coro()}")
        for task in done:
            if task.exception() is not None:
                self.notes.append(f"a load loop failed: {task.exception()!r}")
        if self.ledger.pending and self.lintel_running():
            self.drained.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.drained.wait(), DRAIN_TIMEOUT)
        if self.lintel_running():
            self.row(time.perf_counter() - self.began, "end")

    async def finish(self) -> dict[str, Any]:
        """shutdown + exit, then what is left: descendants by (pid, start time) and lintel's cookie."""
        process = self.client._server
        assert process is not None
        pid = process.pid
        result: dict[str, Any] = {}
        unanswered = [
            {"id": i, "label": label, "age_s": round(time.perf_counter() - at, 1)}
            for i, (label, at) in self.ledger.pending.items()
        ]
        if self.lintel_running():
            self.scan()
            try:
                await asyncio.wait_for(self.client.shutdown_async(None), REQUEST_TIMEOUT)
                result["shutdown"] = "answered"
            except Exception as exc:
                result["shutdown"] = f"failed: {exc!r}"
            if not self.client.stopped:
                self.client.exit(None)
        try:
            await asyncio.wait_for(process.wait(), EXIT_TIMEOUT)
            result["exit_code"] = process.returncode
        except asyncio.TimeoutError:
            result["exit_code"] = f"still running {EXIT_TIMEOUT:.0f} s after exit: killed"
            process.kill()
            await process.wait()
        at_exit = [p for p in self.seen.values() if alive(p)]
        await asyncio.sleep(LEFTOVER_WAIT)
        left = [p for p in self.seen.values() if alive(p)]
        cookies = [p for p in cookie_holders(pid) if (p.pid, p.start) not in {(q.pid, q.start) for q in left}]
        with contextlib.suppress(asyncio.TimeoutError, RuntimeError):
            await asyncio.wait_for(self.client.stop(), EXIT_TIMEOUT)  # type: ignore[no-untyped-call]  # pygls: unannotated
        result.update(
            {
                "unanswered": unanswered,
                "descendants_recorded": len(self.seen),
                "alive_when_lintel_exited": [proc_json(p) for p in at_exit],
                "left_after_5s": [proc_json(p) for p in left],
                "cookie_holders_after_5s": [proc_json(p) for p in cookies],
            }
        )
        return result


def proc_json(proc: Proc) -> dict[str, Any]:
    return {"pid": proc.pid, "ppid": proc.ppid, "command": proc.command}


ROW_FORMAT = (
    "{minute:>6} {elapsed_s:>8} {rss_mb:>7} {fds:>5} {processes:>6} {sent:>7} {answered:>9} {errors:>7} {pending:>8}"
    " {escaped:>7} {kills:>6} {publishes:>10}"
)
ROW_HEADER = dict(
    minute="minute",
    elapsed_s="elapsed",
    rss_mb="RSS MB",
    fds="fds",
    processes="procs",
    sent="sent",
    answered="answered",
    errors="errors",
    pending="pending",
    escaped="escaped",
    kills="kills",
    publishes="publishes",
)


def format_row(row: dict[str, Any]) -> str:
    return ROW_FORMAT.format(**row)


def slopes(soak: Soak) -> dict[str, Any]:
    """MB/min and fds/min after warm-up: per-minute rows 2..N, or the second half's 10 s samples when short."""
    rows = [r for r in soak.rows if r["minute"] != "end" and float(r["minute"]) >= 2]
    if len(rows) >= 2:
        rss = [(r["elapsed_s"] / 60, r["rss_mb"]) for r in rows]
        fds = [(r["elapsed_s"] / 60, float(r["fds"])) for r in rows]
        basis = f"per-minute rows, minutes 2..{rows[-1]['minute']}"
    else:
        half = soak.minutes * 30
        late = [s for s in soak.samples if s.at >= half]
        rss = [(s.at / 60, s.rss_kb / 1024) for s in late]
        fds = [(s.at / 60, float(s.fds)) for s in late]
        basis = f"10 s samples from {half:.0f} s (a run this short has no minute 2..N)"
    warm = [s for s in soak.samples if s.at >= min(120.0, soak.minutes * 30)]
    # Each live child holds 3-4 of lintel's fds (its pidfd and pipes): a sample taken while the slow typecheck
    # runs has 3 more than one taken between runs, and a least-squares line over a few such points reads as a
    # drift of ~±1 fd a minute. The floor of each minute — lintel between runs — is what a leak moves.
    floors: dict[int, int] = {}
    for s in warm:
        if s.at < soak.minutes * 60:  # not the sample taken as the load stops
            floors[int(s.at // 60)] = min(s.fds, floors.get(int(s.at // 60), s.fds))
    return {
        "basis": basis,
        "rss_mb_per_min": _round(slope(rss), 3),
        "fds_per_min": _round(slope(fds), 3),
        # The same over every 10 s sample after warm-up: steadier than per-minute points.
        "rss_mb_per_min_10s": _round(slope([(s.at / 60, s.rss_kb / 1024) for s in warm]), 3),
        "fds_per_min_10s": _round(slope([(s.at / 60, float(s.fds)) for s in warm]), 3),
        "fds_floor_by_minute": [floors[m] for m in sorted(floors)],
        "fds_floor_per_min": _round(slope([(float(m), float(n)) for m, n in floors.items()]), 3),
    }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def typecheck_tool(runs: Counter[str], ledger: Ledger) -> dict[str, int]:
    """The slow tool's runs against the typecheck commands answered with a result: every other run was killed."""
    results = sum(n for (label, outcome), n in ledger.outcomes.items() if "typecheck" in label and outcome == "result")
    return {
        "started": runs["start"],
        "ran_to_end": runs["end"],
        "commands_with_a_result": results,
        "ran_to_end_although_cancelled": max(0, runs["end"] - results),
    }


def options_for(server_kind: str, slow_tool: Path, tool_log: Path) -> dict[str, Any]:
    python: dict[str, Any] = {"typecheck": [sys.executable, str(slow_tool), str(tool_log)]}
    if server_kind == "fake":
        python["server"] = [sys.executable, str(FAKE_SERVER)]
    # One ruff run a save: the format check would add a second.
    return {"editor": {"formatCheck": False}, "languages": {"python": python}}


async def soak(args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    with tempfile.TemporaryDirectory(prefix="lintel-soak-") as scratch:
        root = Path(scratch) / "python"
        shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("node_modules", "__pycache__", ".*_cache"))
        slow_tool = Path(scratch) / "slow_typecheck.py"
        slow_tool.write_text(SLOW_TOOL, encoding="utf-8")
        tool_log = Path(scratch) / "slow_typecheck.log"
        tool_log.touch()
        runner = Soak(root, args.minutes, args.server, args.seed)
        print(
            f"soak: lintel {lintel_version}, {args.minutes:g} min, navigation server: {args.server}, "
            f"load averages {harness.loadavg()}",
            flush=True,
        )
        await runner.start(options_for(args.server, slow_tool, tool_log))
        print(f"lintel pid {runner.pid}; load started", flush=True)
        print(format_row(ROW_HEADER), flush=True)
        await runner.run()
        ending = await runner.finish()
        tool_runs = Counter(tool_log.read_text(encoding="utf-8").split())
    ledger = runner.ledger
    progress_open = {token: n for token, n in runner.progress_open.items() if n}
    results: dict[str, Any] = {
        "environment": {
            "lintel": lintel_version,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "navigation_server": args.server,
            "minutes": args.minutes,
            "loadavg_after": harness.loadavg(),
        },
        "rows": runner.rows,
        "samples": [vars(s) for s in runner.samples],
        "slopes": slopes(runner),
        "requests": {
            "sent": ledger.sent,
            "answered": ledger.answered,
            "errors": ledger.errors,
            "outcomes": {f"{label} -> {outcome}": n for (label, outcome), n in sorted(ledger.outcomes.items())},
            "error_kinds": dict(ledger.error_kinds.most_common()),
        },
        "typecheck_tool": typecheck_tool(tool_runs, ledger),
        "storms": dict(runner.storms),
        "publishes": runner.publishes,
        "progress": {"begins": runner.progress_begins, "left_open": progress_open},
        "kills": runner.kill_times,
        "recoveries_s": [round(r, 2) for r in runner.recoveries],
        "config_changes": runner.config_changes,
        "max_live_descendants": runner.max_processes,
        "escaped_during_run": [proc_json(p) for p in runner.escaped.values()],
        "shown_messages": dict(runner.shown),
        "lintel_log": {
            "levels": dict(runner.client.log_levels),
            "warnings_and_errors": dict(runner.client.log_messages.most_common(20)),
        },
        "notes": runner.notes,
        **ending,
    }
    failed = bool(
        ending["unanswered"] or ending["left_after_5s"] or ending["cookie_holders_after_5s"] or runner.escaped
    )
    return results, failed


def report(results: dict[str, Any]) -> None:
    requests = results["requests"]
    slopes_ = results["slopes"]
    print()
    print(
        f"requests: {requests['sent']} sent, {requests['answered']} answered, {requests['errors']} errors, "
        f"{len(results['unanswered'])} never answered"
    )
    for label_outcome, n in requests["outcomes"].items():
        print(f"  {n:>6}  {label_outcome}")
    for kind, n in requests["error_kinds"].items():
        print(f"  error x{n}: {kind}")
    for item in results["unanswered"]:
        print(f"  never answered: id {item['id']} {item['label']} (sent {item['age_s']} s before the end)")
    tool = results["typecheck_tool"]
    print(
        f"slow typecheck tool: {tool['started']} started, {tool['ran_to_end']} ran to the end "
        f"({tool['commands_with_a_result']} commands answered with a result); "
        f"ran to the end although cancelled: {tool['ran_to_end_although_cancelled']} (expect 0)"
    )
    print(
        f"save storms: {results['storms']}; publishes: {results['publishes']}; "
        f"config changes: {results['config_changes']}"
    )
    print(
        f"workDoneProgress: {results['progress']['begins']} begun, "
        f"{sum(results['progress']['left_open'].values())} without an end {results['progress']['left_open'] or ''}"
    )
    recoveries = results["recoveries_s"]
    longest = f", longest {max(recoveries):.2f} s" if recoveries else ""
    print(f"child kills: {len(results['kills'])}; forwarded answers again after {len(recoveries)} of them{longest}")
    print(f"shown messages: {results['shown_messages'] or 'none'}")
    print(f"lintel's log: {results['lintel_log']['levels'] or 'nothing'}")
    for message, n in results["lintel_log"]["warnings_and_errors"].items():
        print(f"  x{n}: {message}")
    print(
        f"shutdown: {results.get('shutdown', 'not sent (lintel had exited)')}, exit code {results['exit_code']}; "
        f"descendants recorded: {results['descendants_recorded']} (at most {results['max_live_descendants']} at once)"
    )
    print(
        f"escaped lintel while it ran (alive, no longer below it, for {ESCAPE_GRACE:.0f} s): "
        f"{len(results['escaped_during_run'])} (expect 0)"
    )
    print(f"alive when lintel exited: {len(results['alive_when_lintel_exited'])}")
    for proc in results["alive_when_lintel_exited"]:
        print(f"  {proc}")
    print(f"processes left {LEFTOVER_WAIT:.0f} s after exit: {len(results['left_after_5s'])} (expect 0)")
    for proc in results["left_after_5s"]:
        print(f"  {proc}")
    print(f"other processes with lintel's cookie: {len(results['cookie_holders_after_5s'])} (expect 0)")
    for proc in results["cookie_holders_after_5s"]:
        print(f"  {proc}")
    print(f"unanswered requests: {len(results['unanswered'])} (expect 0)")
    print(
        f"slope after warm-up ({slopes_['basis']}): RSS {slopes_['rss_mb_per_min']} MB/min, "
        f"fds {slopes_['fds_per_min']}/min; over the 10 s samples: RSS {slopes_['rss_mb_per_min_10s']} MB/min, "
        f"fds {slopes_['fds_per_min_10s']}/min; fds between runs (each minute's lowest): "
        f"{slopes_['fds_floor_by_minute']}, {slopes_['fds_floor_per_min']}/min"
    )
    for note in results["notes"]:
        print(f"note: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the load runs (default 10)")
    parser.add_argument("--json", type=Path, help="write every number here")
    parser.add_argument(
        "--server",
        choices=("fake", "basedpyright"),
        default="fake",
        help="python navigation server: the cheap stand-in (default) or the real basedpyright",
    )
    parser.add_argument("--seed", type=int, default=13, help="for the navigation positions")
    args = parser.parse_args(argv)
    if args.minutes <= 0:
        parser.error("--minutes must be positive")
    tool_path()
    if shutil.which("ruff") is None:
        raise SystemExit("ruff is not on PATH (run scripts/setup-dev)")
    results, failed = asyncio.run(soak(args))
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
