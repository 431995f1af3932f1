"""Navigation through lintel against the same language server asked directly: the same
definition, hover and references requests, sent by the same minimal JSON-RPC client to both, measured side by side.

    python bench/navigation.py [--requests N] [--json FILE] [--servers pyright,gopls,tsserver] [--clients vscode,neovim]

Informational only: not part of the test suite, nothing here asserts on time. About 2½ minutes on 2 cores.

How it runs. For each server (pyright = basedpyright-langserver, gopls, tsserver = typescript-language-server) and
each client profile, two sessions are started on one private copy of the fixture workspace (tests/workspaces/...):
`python -m lintel serve` initialized with the profile's capabilities (pytest-lsp's `client_capabilities`), and the
language server itself, started and initialized as lintel starts its child (same argv, root, workspace folder,
`child_capabilities(...)`, initializationOptions). Both get the same documents opened, are asked a definition until
it lands in the right file (the server has loaded the workspace), run `--warmup` untimed requests per method, and are
left until their process trees are quiet (CPU). The client is the same on both sides (this module's `Rpc`: asyncio
pipes, json, a timestamp taken when the reader has parsed the answer), so its cost cancels out of the differences.

- **vscode** — VS Code 1.65's capabilities: no positionEncodings, so UTF-16 everywhere and lintel converts nothing.
- **neovim** — Neovim's (utf-8 first): lintel talks UTF-8 to the editor and offers UTF-8 to the child. None of the
  three takes it (gopls v0.23 announces no positionEncoding either), so lintel re-counts every position of the request
  and of the answer (reading the line from the open document). The `enc` column shows editor (child) encodings; the
  direct side is initialized as lintel's child is for this editor, so it counts in the child's encoding.

What each number means:

- **direct / lintel median, p95** — milliseconds from writing the request to the reader having parsed the answer,
  one request at a time; direct and lintel alternate request by request (the order flips every pair), `--requests`
  of each method per side, cycling over two positions per method (one after é and 🍰). p95 is nearest-rank.
- **added** — median(lintel) − median(direct): the latency lintel adds to a request. Target ≤ 2 ms. The JSON also has
  the median of the paired differences, which is less sensitive to a load change in the middle of a run.
- **throughput** — `--inflight` requests (default 8) kept in flight until `--requests` requests (all three methods in
  turn) have been answered; rounds direct, lintel, relay, relay, lintel, direct; requests per second per side over
  both of its rounds. **ratio** = lintel / direct. Target ≥ 0.9. A server that answers requests one after the other
  (basedpyright, tsserver) hides lintel's cost behind its own; gopls answers in parallel, so lintel's single thread
  shows more there.
- **ceiling** — a third instance of the server, started as the direct one, behind this script's `relay-raw` (asyncio,
  whole messages copied as bytes both ways, nothing parsed): what any Python process in the middle costs on this
  machine. Its ratio to direct bounds what lintel could reach; "lintel reaches X of it" is lintel's ratio over it.
- **responses differ** — every lintel answer (sequential and throughput) compared with the direct answer to the same
  request, as parsed JSON; with neovim and a UTF-16 child the direct answer's ranges are first re-counted to UTF-8 by
  this script (its own arithmetic, not lintel's). Must be 0: results pass through unchanged. `direct unstable` counts
  answers of the direct server and of the relay's that differed from the first direct answer to the same request
  (the servers' own nondeterminism). A list with the same items in another order is counted apart, as reordered:
  basedpyright orders references by its own analysis, which differs between two instances of it.
- **CPU ms per request** — CPU time (/proc, 10 ms ticks, summed over the phase) divided by the requests: lintel's own
  process one request at a time and in the bursts (and the byte-copying relay's in its bursts), and the language
  server's process tree, direct and behind lintel. On 2 cores shared by the client, lintel and the server, throughput
  through lintel is bounded by the CPU all three spend per request, so lintel's CPU per request against the server's
  explains most of the ratio.
- **where the time goes** (`--floors`, on by default, needs gopls) — one gopls definition, one at a time, in rotation
  through: gopls direct; a minimal asyncio relay that copies bytes (the cost of any Python process in the middle);
  lintel; and three servers that answer with the canned gopls result — plain asyncio, pygls, pygls with an asyncio
  pipe reader. The differences between rows are printed: pygls's thread-pool reader hop (three executor round trips
  per message: header, blank line, body; lintel reads stdin on its event loop instead), the rest of pygls's handling
  (lintel's navigation requests bypass it, see lintel.runtime.wire), the extra process, and lintel's own relay work. The
  stand-ins are this script: `python bench/navigation.py --serve MODE`.

PASS/MISS compares with the targets; on a shared machine read the load averages printed with the table: latencies
move with load, and the sequential alternation and the D-L-R-R-L-D rounds keep the sides comparable, not absolute.
`--profile DIR` runs lintel under cProfile (DIR/<server>-<client>.prof, top functions printed; the timings of such a
run are not representative).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import os
import platform
import pstats
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lintel import __version__ as lintel_version
from lintel.engine.servers import resolve_command, server_root
from lintel.frontends.relay.client import child_capabilities
from lintel.languages import LANGUAGES, ServerSpec
from lsprotocol.converters import get_converter
from lsprotocol.types import ClientCapabilities
from nav_workloads import METHODS, REPO, WORKLOADS, Ask, NavWorkload, characters, columns, copy_workspace, position
from pytest_lsp import client_capabilities

LINTEL_COMMAND = [sys.executable, "-m", "lintel", "serve"]
CLIENTS = {"vscode": "visual-studio-code", "neovim": "neovim"}
# Navigation only: lint and format checks on open would compete for the CPU (as in tests/e2e/nav_support.py).
QUIET = {"editor": {"lintOnOpen": False, "lintOnSave": False, "formatCheck": False}}
LANGUAGE_IDS = {".py": "python", ".go": "go", ".ts": "typescript"}
TARGETS = {"added_ms": 2.0, "throughput_ratio": 0.9}
REQUEST_TIMEOUT = 60.0
READY_TIMEOUT = 120.0
RANGE_KEYS = frozenset({"range", "targetRange", "targetSelectionRange", "originSelectionRange", "selectionRange"})


# -- the client: the same on both sides ------------------------------------------------------------------------


class Rpc:
    """A minimal JSON-RPC client over a process's stdio. Answers the server's own requests the way a plain
    editor would (configuration: nulls; folders: the workspace; anything else: null) and drops notifications."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, folders: list[dict[str, str]]) -> None:
        self.name = name
        self.process = process
        self.folders = folders
        self.notifications: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()  # the server's own requests, answered by _answer
        self.stderr: deque[str] = deque(maxlen=20)
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[tuple[float, dict[str, Any]]]] = {}
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        self._stdin = process.stdin
        self._tasks = [
            asyncio.create_task(self._read(process.stdout)),
            asyncio.create_task(self._drain(process.stderr)),
        ]

    @classmethod
    async def start(cls, name: str, argv: Sequence[str], cwd: Path, env: dict[str, str], root: Path) -> Rpc:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # its own process group, as lintel starts its children
        )
        return cls(name, process, [{"uri": root.as_uri(), "name": root.name}])

    @property
    def pid(self) -> int:
        return self.process.pid

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        self._stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    async def call(self, method: str, params: Any, timeout: float = REQUEST_TIMEOUT) -> tuple[float, dict[str, Any]]:
        """(milliseconds from the write to the parsed answer, the answer message)."""
        msg_id = next(self._ids)
        future: asyncio.Future[tuple[float, dict[str, Any]]] = asyncio.get_running_loop().create_future()
        self._waiting[msg_id] = future
        sent = time.perf_counter()
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        try:
            received, message = await asyncio.wait_for(future, timeout)
        finally:
            self._waiting.pop(msg_id, None)
        return (received - sent) * 1000, message

    async def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})
        await self._stdin.drain()

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        while True:
            length = 0
            while True:
                line = await stdout.readline()
                if not line:
                    self._fail(f"{self.name} closed its output: {' | '.join(self.stderr)}")
                    return
                if line in (b"\r\n", b"\n"):
                    break
                key, _, value = line.partition(b":")
                if key.strip().lower() == b"content-length":
                    length = int(value)
            body = await stdout.readexactly(length)
            message = json.loads(body)
            received = time.perf_counter()
            if "method" not in message:
                future = self._waiting.get(message.get("id"))
                if future is not None and not future.done():
                    future.set_result((received, message))
            elif "id" in message:
                self._answer(message)
            else:
                self.notifications[message["method"]] += 1

    def _answer(self, message: dict[str, Any]) -> None:
        method, params = message["method"], message.get("params") or {}
        self.requests[method] += 1
        result: Any = None
        if method == "workspace/configuration":
            result = [None] * len(params.get("items", ()))
        elif method == "workspace/workspaceFolders":
            result = self.folders
        elif method == "workspace/applyEdit":
            result = {"applied": False}
        self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})

    async def _drain(self, stderr: asyncio.StreamReader) -> None:
        while line := await stderr.readline():
            self.stderr.append(line.decode("utf-8", errors="replace").rstrip())

    def _fail(self, reason: str) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError(reason))

    async def stop(self, timeout: float = 10.0) -> None:
        """shutdown + exit; then SIGKILL to whatever of its process tree is left (its group and, for lintel,
        the children it started in their own groups)."""
        tree = descendants(self.pid)
        with contextlib.suppress(Exception):
            await self.call("shutdown", None, timeout)
            await self.notify("exit", None)
        # Polled: Process.wait() also waits for the pipes, which a helper that outlives the server keeps open.
        for _ in range(int(timeout / 0.05)):
            if self.process.returncode is not None:
                break
            await asyncio.sleep(0.05)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        for pid in tree:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self._stdin.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
            await asyncio.wait_for(self.process.wait(), 2.0)


# -- /proc ---------------------------------------------------------------------------------------------------


def _server(language: str) -> ServerSpec:
    server = LANGUAGES[language].server
    assert server is not None, f"{language} has a language server"
    return server


def _stat(pid: int) -> list[str] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return data[data.rfind(b")") + 2 :].decode().split()  # fields from the state on (field 3)


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(int(entry))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def cpu_seconds(pids: Sequence[int]) -> float:
    ticks = 0
    for pid in pids:
        fields = _stat(pid)
        if fields is not None:
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return ticks / os.sysconf("SC_CLK_TCK")


async def quiet(roots: Sequence[int], timeout: float = 20.0, window: float = 0.3) -> bool:
    """Wait until the process trees under `roots` use at most ~1 tick of CPU in `window` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = [*roots, *itertools.chain.from_iterable(descendants(r) for r in roots)]
        before = cpu_seconds(pids)
        await asyncio.sleep(window)
        if cpu_seconds(pids) - before <= 1.5 / os.sysconf("SC_CLK_TCK"):
            return True
    return False


# -- positions -------------------------------------------------------------------------------------------------


def _path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


class Recount:
    """Ranges of an answer re-counted from one encoding to another (Location, LocationLink, Hover), lines read
    from the files on disk (nothing is edited during the run). The script's own arithmetic, not lintel's."""

    def __init__(self, source: str, target: str) -> None:
        self.source = source
        self.target = target
        self._lines: dict[str, list[str]] = {}

    def __call__(self, node: Any, uri: str) -> Any:
        if self.source == self.target:
            return node
        if isinstance(node, list):
            return [self(item, uri) for item in node]
        if not isinstance(node, dict):
            return node
        own = node.get("uri") or node.get("targetUri") or uri
        converted: dict[str, Any] = {}
        for key, value in node.items():
            if key in RANGE_KEYS and isinstance(value, dict):
                where = uri if key == "originSelectionRange" else own
                converted[key] = {end: self._point(point, where) for end, point in value.items()}
            else:
                converted[key] = self(value, own)
        return converted

    def _point(self, point: dict[str, int], uri: str) -> dict[str, int]:
        lines = self._lines.get(uri)
        if lines is None:
            lines = self._lines[uri] = _path(uri).read_text(encoding="utf-8").splitlines()
        text = lines[point["line"]] if point["line"] < len(lines) else ""
        count = characters(text, point["character"], self.source)
        return {"line": point["line"], "character": columns(text, count, self.target)}


# -- one session pair --------------------------------------------------------------------------------------


@dataclass
class Side:
    label: str  # direct | lintel
    rpc: Rpc
    encoding: str  # the position encoding of this connection
    root: Path
    params: dict[Ask, dict[str, Any]] = field(default_factory=dict)

    def prepare(self, asks: Sequence[Ask]) -> None:
        for ask in asks:
            params: dict[str, Any] = {
                "textDocument": {"uri": (self.root / ask.file).as_uri()},
                "position": position(self.root, ask, self.encoding),
            }
            if ask.method == "textDocument/references":
                params["context"] = {"includeDeclaration": True}
            self.params[ask] = params

    async def ask(self, ask: Ask) -> tuple[float, dict[str, Any]]:
        return await self.rpc.call(ask.method, self.params[ask])


def _negotiated(result: dict[str, Any]) -> str:
    return str(result.get("capabilities", {}).get("positionEncoding") or "utf-16")


async def open_documents(side: Side, files: Sequence[str]) -> None:
    for relative in files:
        path = side.root / relative
        item = {
            "uri": path.as_uri(),
            "languageId": LANGUAGE_IDS.get(path.suffix, "plaintext"),
            "version": 1,
            "text": path.read_text(encoding="utf-8"),
        }
        await side.rpc.notify("textDocument/didOpen", {"textDocument": item})


async def until_ready(side: Side, workload: NavWorkload) -> float:
    """Ask the ready definition until it lands in `ready_in`; seconds it took."""
    side.prepare([workload.ready])
    want = (side.root / workload.ready_in).as_uri()
    began = time.monotonic()
    while True:
        _, message = await side.ask(workload.ready)
        result = message.get("result")
        found = result if isinstance(result, list) else [result] if result else []
        if any(isinstance(x, dict) and want in (x.get("uri"), x.get("targetUri")) for x in found):
            return time.monotonic() - began
        if time.monotonic() - began > READY_TIMEOUT:
            raise TimeoutError(
                f"{side.label}: no definition in {workload.ready_in} within {READY_TIMEOUT:g}s: {message}"
            )
        await asyncio.sleep(0.2)


@dataclass
class Comparison:
    compared: int = 0
    differ: int = 0
    direct_unstable: int = 0
    reordered: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    def check(self, ask: Ask, expected: dict[str, Any], got: dict[str, Any], *, direct: bool = False) -> None:
        same = expected.get("result") == got.get("result") and ("error" in expected) == ("error" in got)
        if not same and _same_items(expected.get("result"), got.get("result")):
            # The same locations in another order: basedpyright orders references by its own analysis, which
            # differs between two instances of it (and between its answers over time).
            self.reordered += 1
            return
        if direct:
            self.direct_unstable += not same
            return
        self.compared += 1
        if not same:
            self.differ += 1
            if len(self.examples) < 3:
                self.examples.append(
                    {"request": ask.label, "direct": _short(expected), "lintel": _short(got)},
                )


def _same_items(one: Any, other: Any) -> bool:
    if not isinstance(one, list) or not isinstance(other, list) or len(one) != len(other):
        return False
    return sorted(json.dumps(x, sort_keys=True) for x in one) == sorted(json.dumps(x, sort_keys=True) for x in other)


def _short(message: dict[str, Any]) -> str:
    text = json.dumps({k: v for k, v in message.items() if k in ("result", "error")})
    return text if len(text) <= 600 else text[:600] + "…"


async def sequential(
    direct: Side, lintel: Side, asks: Sequence[Ask], n: int, recount: Recount, comparison: Comparison
) -> dict[str, dict[str, list[float]]]:
    """`n` requests per method and side, direct and lintel alternating, the order flipped every pair."""
    samples: dict[str, dict[str, list[float]]] = {}
    for method in METHODS:
        chosen = [a for a in asks if a.method == method]
        per_side: dict[str, list[float]] = {"direct": [], "lintel": []}
        for i in range(n):
            ask = chosen[i % len(chosen)]
            answers: dict[str, dict[str, Any]] = {}
            for side in (direct, lintel) if i % 2 == 0 else (lintel, direct):
                ms, message = await side.ask(ask)
                per_side[side.label].append(ms)
                answers[side.label] = message
            expected = recount(answers["direct"], direct.params[ask]["textDocument"]["uri"])
            comparison.check(ask, expected, answers["lintel"])
        samples[method] = per_side
    return samples


async def burst(side: Side, asks: Sequence[Ask], total: int, inflight: int) -> tuple[float, list[tuple[Ask, Any]]]:
    """`total` requests (the asks in turn), `inflight` at a time; (seconds, the answers)."""
    numbers = iter(range(total))
    answers: list[tuple[Ask, Any]] = []

    async def worker() -> None:
        for i in numbers:
            ask = asks[i % len(asks)]
            _, message = await side.ask(ask)
            answers.append((ask, message))

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(inflight)))
    return time.perf_counter() - began, answers


def child_command(workload: NavWorkload, root: Path) -> tuple[list[str], Path]:
    """The argv and root lintel would start the workload's server with (its own resolution, on PATH)."""
    child_root = server_root(LANGUAGES[workload.language], root / workload.ready.file, root)
    command = resolve_command(LANGUAGES[workload.language], project_root=child_root, workspace_root=root)
    if command.argv is None:
        raise RuntimeError(command.missing_message)
    return list(command.argv), child_root


async def start_lintel(
    label: str, argv: Sequence[str], root: Path, env: dict[str, str], capabilities: ClientCapabilities
) -> Side:
    """lintel (or anything speaking for an editor) initialized with the editor's capabilities."""
    rpc = await Rpc.start(label, argv, root, env, root)
    try:
        _, answer = await rpc.call(
            "initialize",
            {
                "processId": os.getpid(),
                "capabilities": get_converter().unstructure(capabilities),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "initializationOptions": QUIET,
            },
        )
        await rpc.notify("initialized", {})
    except BaseException:
        await rpc.stop()
        raise
    return Side(label, rpc, _negotiated(answer["result"]), root)


async def start_direct(
    label: str,
    argv: Sequence[str],
    workload: NavWorkload,
    root: Path,
    env: dict[str, str],
    capabilities: ClientCapabilities,
    encoding: str,
) -> Side:
    """The language server initialized as lintel's ChildClient.start initializes it for this editor."""
    _, child_root = child_command(workload, root)
    rpc = await Rpc.start(label, argv, child_root, env, child_root)
    try:
        _, answer = await rpc.call(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "lintel", "version": lintel_version},
                "rootUri": child_root.as_uri(),
                "rootPath": str(child_root),
                "workspaceFolders": [{"uri": child_root.as_uri(), "name": child_root.name}],
                "capabilities": get_converter().unstructure(child_capabilities(capabilities, encoding)),  # type: ignore[arg-type]
                "initializationOptions": _server(workload.language).initialization_options,
            },
        )
        await rpc.notify("initialized", {})
    except BaseException:
        await rpc.stop()
        raise
    return Side(label, rpc, _negotiated(answer["result"]), root)


async def warm(sides: Sequence[Side], workload: NavWorkload, warmup: int) -> list[float]:
    """Documents opened, the workspace loaded (seconds each side took), `warmup` untimed requests per method."""
    for side in sides:
        await open_documents(side, workload.files)
    ready = await asyncio.gather(*(until_ready(side, workload) for side in sides))
    for side in sides:
        side.prepare(workload.asks)
        for ask in workload.asks:
            for _ in range(math.ceil(warmup / 2)):  # two positions per method: ~warmup per method
                await side.ask(ask)
    return list(ready)


async def measure_pair(
    workload: NavWorkload, client: str, root: Path, env: dict[str, str], args: argparse.Namespace
) -> dict[str, Any]:
    capabilities = client_capabilities(CLIENTS[client])
    lintel_argv = LINTEL_COMMAND
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
        profile_file = args.profile / f"{workload.name}-{client}.prof"
        lintel_argv = [sys.executable, "-m", "cProfile", "-o", str(profile_file), "-m", "lintel", "serve"]
    argv, _ = child_command(workload, root)
    lintel = await start_lintel("lintel", lintel_argv, root, env, capabilities)
    direct: Side | None = None
    relay: Side | None = None
    try:
        direct = await start_direct("direct", argv, workload, root, env, capabilities, lintel.encoding)
        # The ceiling for any Python process in the middle: a second server behind a relay that only copies bytes.
        relay_argv = [sys.executable, str(Path(__file__).resolve()), "--serve", "relay-raw", *argv]
        relay = await start_direct("relay", relay_argv, workload, root, env, capabilities, lintel.encoding)
        ready = await warm([direct, lintel, relay], workload, args.warmup)
        settled = await quiet([direct.rpc.pid, lintel.rpc.pid, relay.rpc.pid])

        recount = Recount(direct.encoding, lintel.encoding)
        comparison = Comparison()
        lintel_cpu = cpu_seconds([lintel.rpc.pid])
        samples = await sequential(direct, lintel, workload.asks, args.requests, recount, comparison)
        sequential_cpu_ms = (cpu_seconds([lintel.rpc.pid]) - lintel_cpu) * 1000 / (len(METHODS) * args.requests)

        reference = {}
        for ask in workload.asks:
            _, message = await direct.ask(ask)
            reference[ask] = recount(message, direct.params[ask]["textDocument"]["uri"])
        seconds = {"direct": 0.0, "lintel": 0.0, "relay": 0.0}
        # CPU seconds during the bursts: lintel's own process, the relay's; the language server (lintel's child,
        # or direct).
        cpu = {"lintel": 0.0, "relay": 0.0, "direct_server": 0.0, "lintel_child": 0.0}
        servers = {"direct": [direct.rpc.pid, *descendants(direct.rpc.pid)], "lintel": descendants(lintel.rpc.pid)}
        front = {"lintel": lintel.rpc.pid, "relay": relay.rpc.pid}
        by_method = [[a for a in workload.asks if a.method == method] for method in METHODS]
        mixed = [ask for turn in zip(*by_method, strict=True) for ask in turn]  # definition, hover, references, …
        for side in (direct, lintel, relay, relay, lintel, direct):
            pid = front.get(side.label)
            before = cpu_seconds([pid]) if pid else 0.0, cpu_seconds(servers.get(side.label, []))
            elapsed, answers = await burst(side, mixed, args.requests, args.inflight)
            seconds[side.label] += elapsed
            if pid:
                cpu[side.label] += cpu_seconds([pid]) - before[0]
            if side.label in servers:
                key = "lintel_child" if side is lintel else "direct_server"
                cpu[key] += cpu_seconds(servers[side.label]) - before[1]
            for ask, message in answers:
                if side is not lintel:
                    message = recount(message, side.params[ask]["textDocument"]["uri"])
                comparison.check(ask, reference[ask], message, direct=side is not lintel)
        rates = {label: round(2 * args.requests / s, 1) for label, s in seconds.items()}
        return {
            "server": workload.name,
            "client": client,
            "argv": argv,
            "encoding": {"editor": lintel.encoding, "child": direct.encoding},
            "ready_seconds": [round(x, 2) for x in ready],
            "quiet_before_timing": settled,
            "sequential": {
                method: {
                    "direct": summary(per_side["direct"]),
                    "lintel": summary(per_side["lintel"]),
                    "added_median_ms": _added(per_side),
                    "paired_median_ms": round(
                        statistics.median(x - y for x, y in zip(per_side["lintel"], per_side["direct"], strict=True)),
                        3,
                    ),
                }
                for method, per_side in {
                    **samples,
                    "all": {
                        label: [ms for per_side in samples.values() for ms in per_side[label]]
                        for label in ("direct", "lintel")
                    },
                }.items()
            },
            "throughput": {
                "inflight": args.inflight,
                "requests_per_round": args.requests,
                "direct_rps": rates["direct"],
                "lintel_rps": rates["lintel"],
                "ratio": round(rates["lintel"] / rates["direct"], 3),
                "relay_rps": rates["relay"],
                "relay_ratio": round(rates["relay"] / rates["direct"], 3),
                "cpu_ms_per_request": {key: round(value * 1000 / (2 * args.requests), 3) for key, value in cpu.items()},
            },
            "lintel_cpu_ms_per_request_sequential": round(sequential_cpu_ms, 3),
            "responses": {
                "compared": comparison.compared,
                "differ": comparison.differ,
                "direct_unstable": comparison.direct_unstable,
                "reordered": comparison.reordered,
                "examples": comparison.examples,
            },
            # Everything but answers each side sent the client over the whole session, warm-up included.
            "server_messages": {
                side.label: {"requests": dict(side.rpc.requests), "notifications": dict(side.rpc.notifications)}
                for side in (direct, lintel)
            },
            "lintel_stderr_tail": list(lintel.rpc.stderr)[-5:],
        }
    finally:
        await lintel.rpc.stop()
        for other in (direct, relay):
            if other is not None:
                await other.rpc.stop()


def _added(per_side: dict[str, list[float]]) -> float:
    return round(statistics.median(per_side["lintel"]) - statistics.median(per_side["direct"]), 3)


def summary(samples: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]  # nearest rank
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 3),
        "p95": round(p95, 3),
        "min": round(ordered[0], 3),
        "max": round(ordered[-1], 3),
        "samples": [round(s, 3) for s in samples],
    }


# -- where the time goes: floors and stand-ins -------------------------------------------------------------

# label -> how it is started: "direct" (gopls initialized as lintel's child), "front" (initialized as an editor's
# server), and its argv after `python bench/navigation.py --serve`; None: the workload's server itself or lintel.
FLOORS: dict[str, tuple[str, list[str] | None]] = {
    "gopls direct": ("direct", None),
    "minimal relay (asyncio, bytes copied)": ("direct", ["relay-raw"]),
    "lintel": ("front", None),
    "echo (asyncio, canned answer)": ("front", ["echo-raw"]),
    "echo (pygls, canned answer)": ("front", ["echo-pygls"]),
    "echo (pygls, asyncio stdin reader)": ("front", ["echo-pygls-asyncio"]),
}

# (what the difference shows, the row with it, the row without it). CPU is each process's own: a process in front
# of gopls adds all of its CPU (the faster row's, gopls's, is not subtracted); two echo servers, or two fronts of
# gopls, differ by the difference.
GAPS = (
    ("pygls's thread-pool stdin reader", "echo (pygls, canned answer)", "echo (pygls, asyncio stdin reader)", True),
    ("pygls's message handling otherwise", "echo (pygls, asyncio stdin reader)", "echo (asyncio, canned answer)", True),
    ("an extra Python process at all", "minimal relay (asyncio, bytes copied)", "gopls direct", False),
    ("lintel beyond a minimal relay", "lintel", "minimal relay (asyncio, bytes copied)", True),
    ("lintel in all", "lintel", "gopls direct", False),
)


async def floors(root: Path, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    """One gopls definition, one at a time, through lintel and through stand-ins that each leave out a part of
    it: the difference between two rows is what that part costs (see the module docstring)."""
    workload = WORKLOADS["gopls"]
    capabilities = client_capabilities(CLIENTS["vscode"])
    argv, _ = child_command(workload, root)
    this = [sys.executable, str(Path(__file__).resolve()), "--serve"]
    sides: dict[str, Side] = {}
    try:
        canned: str | None = None
        for label, (kind, serve) in FLOORS.items():
            if serve is not None and serve[0].startswith("echo"):
                if canned is None:
                    await warm(list(sides.values()), workload, args.warmup)
                    _, message = await sides["gopls direct"].ask(workload.asks[0])
                    canned = json.dumps(message["result"])
                command = [*this, *serve, canned]
            elif serve is not None:
                command = [*this, *serve, *(argv if kind == "direct" else [])]
            else:
                command = argv if kind == "direct" else LINTEL_COMMAND
            if kind == "direct":
                sides[label] = await start_direct(label, command, workload, root, env, capabilities, "utf-16")
            else:
                sides[label] = await start_lintel(label, command, root, env, capabilities)
            if canned is not None:
                sides[label].prepare(workload.asks)
        ask = workload.asks[0]
        for side in sides.values():
            for _ in range(args.warmup):
                await side.ask(ask)
        await quiet([side.rpc.pid for side in sides.values()])
        labels = list(sides)
        samples: dict[str, list[float]] = {label: [] for label in labels}
        before = {label: cpu_seconds([sides[label].rpc.pid]) for label in labels}
        for i in range(args.floor_requests):
            turn = i % len(labels)
            for label in labels[turn:] + labels[:turn]:
                ms, _ = await sides[label].ask(ask)
                samples[label].append(ms)
        cpu = {label: cpu_seconds([sides[label].rpc.pid]) - before[label] for label in labels}
    finally:
        for side in sides.values():
            await side.rpc.stop()
    return {
        "request": ask.label,
        "rows": {
            label: {
                **{k: v for k, v in summary(samples[label]).items() if k != "samples"},
                "cpu_ms_per_request": round(cpu[label] * 1000 / args.floor_requests, 3),
            }
            for label in labels
        },
    }


def print_floors(result: dict[str, Any], n: int) -> None:
    rows = result["rows"]
    print(f"\nwhere the time goes — gopls {result['request']}, one at a time, {n} each, in rotation:")
    print(f"  {'':<42} {'median':>7} {'p95':>7}  CPU ms/request (that process)")
    for label, row in rows.items():
        print(f"  {label:<42} {row['median']:>7.2f} {row['p95']:>7.2f}  {row['cpu_ms_per_request']:.2f}")

    for what, slower, faster, subtract in GAPS:
        median = rows[slower]["median"] - rows[faster]["median"]
        cpu = rows[slower]["cpu_ms_per_request"] - (rows[faster]["cpu_ms_per_request"] if subtract else 0.0)
        print(f"  {what + ':':<42} {median:>+7.2f} ms median, {cpu:+.2f} ms CPU")


# The stand-ins' code: `python bench/navigation.py --serve MODE [ARG…]`.


class _Raw:
    """A canned result serialised as it is (lintel's RawJson)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


async def _stdio() -> tuple[asyncio.StreamReader, asyncio.WriteTransport]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    return reader, transport


async def _message(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    """(headers, body) of the next message, None at the end of the stream."""
    headers, length = b"", 0
    while True:
        line = await reader.readline()
        if not line:
            return None
        headers += line
        if line in (b"\r\n", b"\n"):
            return headers, await reader.readexactly(length)
        key, _, value = line.partition(b":")
        if key.strip().lower() == b"content-length":
            length = int(value)


async def _echo_raw(result: Any) -> None:
    reader, writer = await _stdio()
    while (message := await _message(reader)) is not None:
        request = json.loads(message[1])
        if "id" not in request:
            if request.get("method") == "exit":
                return
            continue
        answer = {"initialize": {"capabilities": {"definitionProvider": True}}, "shutdown": None}.get(
            request.get("method"), result
        )
        body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": answer}).encode()
        writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))


async def _relay_raw(argv: Sequence[str]) -> None:
    """Bytes both ways, ids untouched: the least a Python process in the middle can do."""
    child = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    reader, writer = await _stdio()

    async def pump(source: asyncio.StreamReader, write: Any) -> None:
        while (message := await _message(source)) is not None:
            write(message[0] + message[1])

    await asyncio.wait(
        [asyncio.create_task(pump(reader, child.stdin.write)), asyncio.create_task(pump(child.stdout, writer.write))],
        return_when=asyncio.FIRST_COMPLETED,
    )
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)


def _start_with_asyncio_reader(server: Any) -> None:
    """pygls's start_io, with an asyncio pipe reader in place of its thread-pool StdinAsyncReader."""
    import threading

    from pygls.io_ import StdoutWriter, run_async

    async def main() -> None:
        reader, _ = await _stdio()
        server._stop_event = threading.Event()
        server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
        await run_async(
            stop_event=server._stop_event,
            reader=reader,
            protocol=server.protocol,
            error_handler=server.report_server_error,
        )

    try:
        asyncio.run(main())
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


def serve(mode: str, rest: Sequence[str]) -> int:
    if mode == "echo-raw":
        asyncio.run(_echo_raw(json.loads(rest[0])))
    elif mode == "relay-raw":
        asyncio.run(_relay_raw(rest))
    elif mode in ("echo-pygls", "echo-pygls-asyncio"):
        from lsprotocol import types
        from pygls.lsp.server import LanguageServer

        result = _Raw(json.loads(rest[0]))
        server = LanguageServer("echo", "0")
        server.protocol._converter.register_unstructure_hook(_Raw, lambda raw: raw.value)

        @server.feature(types.TEXT_DOCUMENT_DEFINITION)
        async def definition(ls: LanguageServer, params: types.DefinitionParams) -> _Raw:
            return result

        if mode == "echo-pygls":
            server.start_io()
        else:
            _start_with_asyncio_reader(server)
    else:
        raise SystemExit(f"unknown --serve mode {mode!r}")
    return 0


# -- the run ---------------------------------------------------------------------------------------------------


def tool_env() -> dict[str, str]:
    """This environment with scripts/toolpath's PATH (gopls, typescript-language-server, basedpyright)."""
    path = subprocess.run([str(REPO / "scripts" / "toolpath")], capture_output=True, text=True, check=True)
    return {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}, "PATH": path.stdout.strip()}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    env = tool_env()
    os.environ["PATH"] = env["PATH"]  # resolve_command looks binaries up on this process's PATH, as lintel does
    results: dict[str, Any] = {
        "environment": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "lintel": lintel_version,
            "loadavg_before": loadavg(),
        },
        "targets": TARGETS,
        "runs": [],
        "skipped": {},
    }
    with tempfile.TemporaryDirectory(prefix="lintel-nav-bench-") as scratch:
        for name in args.servers:
            workload = WORKLOADS[name]
            spec = LANGUAGES[workload.language]
            probe = resolve_command(spec, project_root=Path(scratch), workspace_root=Path(scratch))
            if probe.argv is None or Path(probe.argv[0]).name != workload.binary:
                results["skipped"][name] = f"{workload.binary} not found ({_server(workload.language).install_hint})"
                print(f"skipped {name}: {results['skipped'][name]}", file=sys.stderr)
                continue
            root = copy_workspace(workload.workspace, Path(scratch) / workload.workspace)
            for client in args.clients:
                began = time.perf_counter()
                print(f"{name} / {client} …", file=sys.stderr, flush=True)
                measured = await measure_pair(workload, client, root, env, args)
                measured["seconds"] = round(time.perf_counter() - began, 1)
                results["runs"].append(measured)
        if args.floors and "gopls" not in results["skipped"] and shutil.which("gopls"):
            print("where the time goes …", file=sys.stderr, flush=True)
            root = Path(scratch) / "go"
            if not root.exists():
                copy_workspace("go", root)
            results["floors"] = await floors(root, env, args)
    results["environment"]["loadavg_after"] = loadavg()
    return results


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_table(results: dict[str, Any]) -> None:
    header = (
        f"{'server':<9} {'client':<7} {'enc (child)':<16} {'request':<11} {'n':>4}  "
        f"{'direct med':>10} {'p95':>7}  {'lintel med':>10} {'p95':>7}  {'added':>7}  "
        f"target ≤ {TARGETS['added_ms']:g} ms"
    )
    print(header)
    print("-" * len(header))
    for run in results["runs"]:
        encoding = f"{run['encoding']['editor']} ({run['encoding']['child']})"
        for method, stats in run["sequential"].items():
            name = method.rsplit("/", 1)[-1]
            added = stats["added_median_ms"]
            print(
                f"{run['server']:<9} {run['client']:<7} {encoding:<16} {name:<11} {stats['direct']['n']:>4}  "
                f"{stats['direct']['median']:>10.2f} {stats['direct']['p95']:>7.2f}  "
                f"{stats['lintel']['median']:>10.2f} {stats['lintel']['p95']:>7.2f}  {added:>+7.2f}  "
                f"{_verdict(added <= TARGETS['added_ms'])}"
            )
        rate = run["throughput"]
        responses = run["responses"]
        print(
            f"{'':<35} throughput, {rate['inflight']} in flight: direct {rate['direct_rps']:.0f}/s, "
            f"lintel {rate['lintel_rps']:.0f}/s, ratio {rate['ratio']:.2f} (target ≥ {TARGETS['throughput_ratio']:g}) "
            f"{_verdict(rate['ratio'] >= TARGETS['throughput_ratio'])}"
        )
        print(
            f"{'':<35} ceiling: a byte-copying relay in front of the same server {rate['relay_rps']:.0f}/s, "
            f"ratio {rate['relay_ratio']:.2f}; lintel reaches {rate['ratio'] / rate['relay_ratio']:.2f} of it"
        )
        cpu = rate["cpu_ms_per_request"]
        print(
            f"{'':<35} CPU ms per request: lintel {run['lintel_cpu_ms_per_request_sequential']:.2f} one at a time, "
            f"{cpu['lintel']:.2f} in the bursts (the relay {cpu['relay']:.2f}); the server {cpu['direct_server']:.2f} "
            f"direct, {cpu['lintel_child']:.2f} behind lintel"
        )
        print(
            f"{'':<35} responses: {responses['compared']} compared with direct, {responses['differ']} differ"
            f" (direct unstable: {responses['direct_unstable']}; the same items in another order, any side: "
            f"{responses['reordered']}); {run['seconds']} s"
        )
        for example in responses["examples"]:
            print(f"{'':<37}{example['request']}: direct {example['direct']}\n{'':<37}lintel {example['lintel']}")
    for name, reason in results["skipped"].items():
        print(f"{name:<9} skipped: {reason}")


def print_profiles(directory: Path, top: int = 25) -> None:
    for path in sorted(directory.glob("*.prof")):
        print(f"\n== {path.name}: lintel's main thread, by own time (the stdin reader threads are not profiled)")
        stats = pstats.Stats(str(path))
        stats.sort_stats("tottime").print_stats(top)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=200, help="timed requests per method and side (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests per method and side (default 20)")
    parser.add_argument("--inflight", type=int, default=8, help="concurrent requests in the throughput rounds")
    parser.add_argument("--servers", default="pyright,gopls,tsserver", help="comma-separated: pyright,gopls,tsserver")
    parser.add_argument("--clients", default="vscode,neovim", help="comma-separated: vscode,neovim")
    parser.add_argument(
        "--floors",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure the stand-ins that show where lintel's time goes (gopls; default on)",
    )
    parser.add_argument("--floor-requests", type=int, default=300, help="requests per stand-in (default 300)")
    parser.add_argument("--json", type=Path, help="write every number (and the raw samples) here")
    parser.add_argument("--profile", type=Path, help="run lintel under cProfile, one .prof per session in this folder")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--serve"] and len(argv) > 1:
        return serve(argv[1], argv[2:])
    args = parser.parse_args(argv)
    args.servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    args.clients = [c.strip() for c in args.clients.split(",") if c.strip()]
    unknown = [s for s in args.servers if s not in WORKLOADS] + [c for c in args.clients if c not in CLIENTS]
    if unknown:
        parser.error(f"unknown server or client: {', '.join(unknown)}")
    began = time.perf_counter()
    results = asyncio.run(run(args))
    results["total_seconds"] = round(time.perf_counter() - began, 1)
    print_table(results)
    if "floors" in results:
        print_floors(results["floors"], args.floor_requests)
    environment = results["environment"]
    print(
        f"\n{environment['cpus']} cpus, load {environment['loadavg_before']} -> {environment['loadavg_after']}; "
        f"{results['total_seconds']} s"
    )
    if args.profile:
        print_profiles(args.profile)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
