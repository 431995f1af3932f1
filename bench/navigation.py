"""Navigation through lintel against the same language server asked directly: the same
definition, hover and references requests, sent by the same minimal JSON-RPC client to both, measured side by side;
then the other relayed method classes and the semantic tokens of a long file, measured the same way.

    python bench/navigation.py [--requests N] [--json FILE] [--servers pyright,gopls,tsserver] [--clients vscode,neovim]
                               [--sections nav,methods,tokens] [--method-requests N] [--token-rounds N]

Informational only: not part of the test suite, nothing here asserts on time. About 2½ minutes on 2 cores for `nav`,
a few more for `methods` and `tokens` (rust-analyzer analyses the long file on every request).

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

Section `methods` — code lenses, folding ranges, selection ranges, document links, inlay hints and call hierarchy
(prepareCallHierarchy), of gopls and tsserver (bench/nav_workloads.py RELAYED_ASKS; a method the server does not
offer is named, not measured), `--method-requests` per method and side, alternating as above, after `--warmup`
untimed ones. The editor answers workspace/configuration with nav_workloads.SETTINGS on both sides (lintel relays
gopls's question to it): gopls's code lenses and inlay hints are off without them. tsserver takes its code lens and
inlay hint preferences from the editor's didChangeConfiguration (which lintel keeps for itself) or its
initializationOptions, so both sides answer those with none (still a round trip to tsserver each).

- **added med / p90** — median(lintel) − median(direct), and the same of the p90s. Target ≤ 1 ms (median).
- **paired med / p90** — of the per-pair differences (each lintel request minus the direct one beside it).
- **items** — how many items the direct answer had (a range chain counts one). Responses compared as above, with
  lintel's `data` wrapper (relay/marks.py) taken off its items first.

Section `tokens` — a generated file of `--token-lines` lines (default 5,000; TypeScript for tsserver, Rust for
rust-analyzer, declared in lib.rs; about one line in six has é or 🍰 before more tokens) in a copy of the fixture;
textDocument/semanticTokens/full, `--token-rounds` per side, alternating. For a server with deltas (rust-analyzer),
then rounds of: the same one-line edit sent to both sides (incremental), then semanticTokens/full/delta with the
resultId each side last got. The client says it cannot refresh semantic tokens (rust-analyzer forgets its tokens at
every change otherwise, and answers a delta with all of them). Target ≤ 2 ms added (median). Printed beside it:
tokens and answer sizes, lintel's CPU per full answer, how many deltas came back whole, the tokens of both sides
decoded and compared (position in code points, type name, the modifiers lintel's legend has) every tenth round, and
lintel's own steps on one full answer timed in this process: parsing the child's message, the legend remap, the
column re-count (Neovim, child in UTF-16), encoding the answer.

PASS/MISS compares with the targets; on a shared machine read the load averages printed with the table: latencies
move with load, and the sequential alternation and the D-L-R-R-L-D rounds keep the sides comparable, not absolute.
`--profile DIR` runs lintel under cProfile (DIR/<server>-<client>.prof, methods-… and tokens-… for the sections; top
functions printed; the timings of such a run are not representative).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
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
from lintel.frontends.relay.tokens import Remap, recode_full, remap_full
from lintel.languages import LANGUAGES, ServerSpec
from lintel.runtime.wire import encode
from lsprotocol.converters import get_converter
from lsprotocol.types import ClientCapabilities, SemanticTokensWorkspaceClientCapabilities
from nav_workloads import (
    METHODS,
    PROVIDERS,
    RELAYED_ASKS,
    REPO,
    SETTINGS,
    TOKEN_WORKLOADS,
    WORKLOADS,
    Ask,
    DocAsk,
    NavWorkload,
    TokenWorkload,
    characters,
    columns,
    copy_workspace,
    generate_token_file,
    position,
)
from pytest_lsp import client_capabilities

LINTEL_COMMAND = [sys.executable, "-m", "lintel", "serve"]
CLIENTS = {"vscode": "visual-studio-code", "neovim": "neovim"}
# Navigation only: lint and format checks on open would compete for the CPU (as in tests/e2e/nav_support.py).
QUIET = {"editor": {"lintOnOpen": False, "lintOnSave": False, "formatCheck": False}}
LANGUAGE_IDS = {".py": "python", ".go": "go", ".ts": "typescript", ".rs": "rust"}
TARGETS = {"added_ms": 2.0, "throughput_ratio": 0.9, "relayed_added_ms": 1.0, "tokens_added_ms": 2.0}
FULL_TOKENS = "textDocument/semanticTokens/full"
DELTA_TOKENS = "textDocument/semanticTokens/full/delta"
SECTIONS = ("nav", "methods", "tokens")
REQUEST_TIMEOUT = 60.0
READY_TIMEOUT = 120.0
RANGE_KEYS = frozenset({"range", "targetRange", "targetSelectionRange", "originSelectionRange", "selectionRange"})


# -- the client: the same on both sides ------------------------------------------------------------------------


class Rpc:
    """A minimal JSON-RPC client over a process's stdio. Answers the server's own requests the way a plain
    editor would (configuration: `settings`' section, else null; folders: the workspace; anything else: null) and
    drops notifications."""

    def __init__(
        self,
        name: str,
        process: asyncio.subprocess.Process,
        folders: list[dict[str, str]],
        settings: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.process = process
        self.folders = folders
        self.settings = settings or {}  # workspace/configuration's answer, by section
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
    async def start(
        cls,
        name: str,
        argv: Sequence[str],
        cwd: Path,
        env: dict[str, str],
        root: Path,
        settings: dict[str, Any] | None = None,
    ) -> Rpc:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # its own process group, as lintel starts its children
        )
        return cls(name, process, [{"uri": root.as_uri(), "name": root.name}], settings)

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
            result = [self.settings.get(item.get("section")) for item in params.get("items", ())]
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
    """Ranges of an answer re-counted from one encoding to another (Location, LocationLink, Hover, and the
    positions and folding columns of the other relayed answers), lines read from the files on disk (nothing is
    edited during the run). The script's own arithmetic, not lintel's."""

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
            elif key == "position" and isinstance(value, dict):
                converted[key] = self._point(value, own)
            elif key in ("startCharacter", "endCharacter") and isinstance(value, int):
                line = node["startLine" if key == "startCharacter" else "endLine"]
                converted[key] = self._point({"line": line, "character": value}, own)["character"]
            else:
                converted[key] = self(value, own)
        return converted

    def _point(self, point: dict[str, int], uri: str) -> dict[str, int]:
        lines = self._lines.get(uri)
        if lines is None:
            lines = self._lines[uri] = _path(uri).read_text(encoding="utf-8").splitlines()
        text = lines[point["line"]] if point["line"] < len(lines) else ""
        count = characters(text, point["character"], self.source)
        # Past the line's end (a range ending after its newline): the overshoot is kept as it is.
        overshoot = max(0, point["character"] - columns(text, len(text), self.source))
        return {"line": point["line"], "character": columns(text, count, self.target) + overshoot}


# -- one session pair --------------------------------------------------------------------------------------


@dataclass
class Side:
    label: str  # direct | lintel
    rpc: Rpc
    encoding: str  # the position encoding of this connection
    root: Path
    capabilities: dict[str, Any] = field(default_factory=dict)  # the server's, from its initialize answer
    params: dict[Any, dict[str, Any]] = field(default_factory=dict)  # by Ask (or DocAsk)

    def prepare(self, asks: Sequence[Ask]) -> None:
        for ask in asks:
            params: dict[str, Any] = {
                "textDocument": {"uri": (self.root / ask.file).as_uri()},
                "position": position(self.root, ask, self.encoding),
            }
            if ask.method == "textDocument/references":
                params["context"] = {"includeDeclaration": True}
            self.params[ask] = params

    async def ask(self, ask: Ask | DocAsk) -> tuple[float, dict[str, Any]]:
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
                where, one, other = _first_difference(expected.get("result"), got.get("result"))
                self.examples.append(
                    {
                        "request": ask.label,
                        "direct": _short(expected),
                        "lintel": _short(got),
                        "at": f"result{where}: direct {json.dumps(one)[:200]}, lintel {json.dumps(other)[:200]}",
                    },
                )


def _same_items(one: Any, other: Any) -> bool:
    if not isinstance(one, list) or not isinstance(other, list) or len(one) != len(other):
        return False
    return sorted(json.dumps(x, sort_keys=True) for x in one) == sorted(json.dumps(x, sort_keys=True) for x in other)


def _first_difference(one: Any, other: Any, where: str = "") -> tuple[str, Any, Any]:
    """The path of the first place two JSON values differ, and the two values there."""
    if isinstance(one, dict) and isinstance(other, dict):
        for key in [*one, *(k for k in other if k not in one)]:
            if one.get(key, ...) != other.get(key, ...):
                if key in one and key in other:
                    return _first_difference(one[key], other[key], f"{where}.{key}")
                return f"{where}.{key}", one.get(key, "(absent)"), other.get(key, "(absent)")
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other):
        for index, (x, y) in enumerate(zip(one, other, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{where}[{index}]")
    return where, one, other


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


def child_command(language: str, file: str, root: Path) -> tuple[list[str], Path]:
    """The argv and root lintel would start `language`'s server with for `file` (its own resolution, on PATH)."""
    child_root = server_root(LANGUAGES[language], root / file, root)
    command = resolve_command(LANGUAGES[language], project_root=child_root, workspace_root=root)
    if command.argv is None:
        raise RuntimeError(command.missing_message)
    return list(command.argv), child_root


async def start_lintel(
    label: str,
    argv: Sequence[str],
    root: Path,
    env: dict[str, str],
    capabilities: ClientCapabilities,
    settings: dict[str, Any] | None = None,
) -> Side:
    """lintel (or anything speaking for an editor) initialized with the editor's capabilities."""
    rpc = await Rpc.start(label, argv, root, env, root, settings)
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
    return Side(label, rpc, _negotiated(answer["result"]), root, answer["result"].get("capabilities") or {})


async def start_direct(
    label: str,
    argv: Sequence[str],
    target: tuple[str, str],
    root: Path,
    env: dict[str, str],
    capabilities: ClientCapabilities,
    encoding: str,
    settings: dict[str, Any] | None = None,
) -> Side:
    """The language server of `target` (language, a file) initialized as lintel's ChildClient.start initializes
    it for this editor."""
    language, file = target
    _, child_root = child_command(language, file, root)
    rpc = await Rpc.start(label, argv, child_root, env, child_root, settings)
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
                "initializationOptions": _server(language).initialization_options,
            },
        )
        await rpc.notify("initialized", {})
    except BaseException:
        await rpc.stop()
        raise
    return Side(label, rpc, _negotiated(answer["result"]), root, answer["result"].get("capabilities") or {})


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
    argv, _ = child_command(workload.language, workload.ready.file, root)
    lintel = await start_lintel("lintel", lintel_argv, root, env, capabilities)
    direct: Side | None = None
    relay: Side | None = None
    try:
        direct = await start_direct(
            "direct", argv, (workload.language, workload.ready.file), root, env, capabilities, lintel.encoding
        )
        # The ceiling for any Python process in the middle: a second server behind a relay that only copies bytes.
        relay_argv = [sys.executable, str(Path(__file__).resolve()), "--serve", "relay-raw", *argv]
        relay = await start_direct(
            "relay", relay_argv, (workload.language, workload.ready.file), root, env, capabilities, lintel.encoding
        )
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
        "p90": round(ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)], 3),
        "p95": round(p95, 3),
        "min": round(ordered[0], 3),
        "max": round(ordered[-1], 3),
        "samples": [round(s, 3) for s in samples],
    }


# -- the relayed method classes: one at a time, beside the child asked directly -----------------------------------


def _lintel_argv(args: argparse.Namespace, session: str) -> list[str]:
    """lintel's command; under cProfile (DIR/<session>.prof) with --profile DIR."""
    if not args.profile:
        return LINTEL_COMMAND
    args.profile.mkdir(parents=True, exist_ok=True)
    return [sys.executable, "-m", "cProfile", "-o", str(args.profile / f"{session}.prof"), "-m", "lintel", "serve"]


def unmark(node: Any) -> Any:
    """lintel's answer with each item's `data` as its child made it (lintel wraps it: relay/marks.py), so that it
    compares with the direct answer."""
    if isinstance(node, list):
        return [unmark(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: unmark(value) for key, value in node.items() if key != "data"}
    data = node.get("data")
    if isinstance(data, dict) and "lintel" in data:
        if "data" in data:
            out["data"] = data["data"]
    elif "data" in node:
        out["data"] = data
    return out


def paired(per_side: dict[str, list[float]]) -> dict[str, Any]:
    """The added latency: median and p90 of each side, their differences, and the per-pair differences'."""
    direct, lintel = per_side["direct"], per_side["lintel"]
    pairs = sorted(x - y for x, y in zip(lintel, direct, strict=True))
    d_sorted, l_sorted = sorted(direct), sorted(lintel)
    return {
        "direct": summary(direct),
        "lintel": summary(lintel),
        "added_median_ms": _added(per_side),
        "added_p90_ms": round(_nearest(l_sorted, 0.9) - _nearest(d_sorted, 0.9), 3),
        "paired_median_ms": round(statistics.median(pairs), 3),
        "paired_p90_ms": round(_nearest(pairs, 0.9), 3),
    }


def _nearest(ordered: Sequence[float], fraction: float) -> float:
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


async def alternate(direct: Side, lintel: Side, ask: Ask | DocAsk, n: int, check: Any = None) -> dict[str, list[float]]:
    """`n` requests per side, direct and lintel alternating, the order flipped every pair; `check(i, answers)`
    sees each pair's answers (by side label)."""
    per_side: dict[str, list[float]] = {"direct": [], "lintel": []}
    for i in range(n):
        answers: dict[str, dict[str, Any]] = {}
        for side in (direct, lintel) if i % 2 == 0 else (lintel, direct):
            ms, message = await side.ask(ask)
            per_side[side.label].append(ms)
            answers[side.label] = message
        if check is not None:
            check(i, answers)
    return per_side


def _items(message: dict[str, Any]) -> int | None:
    result = message.get("result")
    return len(result) if isinstance(result, list) else None if result is None else 1


async def measure_methods(
    name: str, client: str, root: Path, env: dict[str, str], args: argparse.Namespace
) -> dict[str, Any]:
    """Each relayed method class the server offers, asked `--method-requests` times per side, alternating."""
    workload = WORKLOADS[name]
    asks = RELAYED_ASKS[name]
    capabilities = client_capabilities(CLIENTS[client])
    target = (workload.language, workload.ready.file)
    argv, _ = child_command(*target, root)
    lintel = await start_lintel(
        "lintel", _lintel_argv(args, f"methods-{name}-{client}"), root, env, capabilities, SETTINGS
    )
    direct: Side | None = None
    try:
        direct = await start_direct("direct", argv, target, root, env, capabilities, lintel.encoding, SETTINGS)
        sides = (direct, lintel)
        files = list(dict.fromkeys([*workload.files, *(ask.file for ask in asks)]))
        for side in sides:
            await open_documents(side, files)
        await asyncio.gather(*(until_ready(side, workload) for side in sides))
        offered = [ask for ask in asks if direct.capabilities.get(PROVIDERS[ask.method], False) is not False]
        for side in sides:
            for ask in offered:
                side.params[ask] = ask.params(side.root, side.encoding)
                for _ in range(args.warmup):
                    await side.ask(ask)
        await quiet([side.rpc.pid for side in sides])
        recount = Recount(direct.encoding, lintel.encoding)
        comparison = Comparison()
        items: dict[str, int | None] = {}
        methods: dict[str, Any] = {}
        cpu_before = cpu_seconds([lintel.rpc.pid])
        for ask in offered:
            uri = direct.params[ask]["textDocument"]["uri"]

            def check(i: int, answers: dict[str, dict[str, Any]], ask: DocAsk = ask, uri: str = uri) -> None:
                comparison.check(ask, recount(answers["direct"], uri), unmark(answers["lintel"]))  # type: ignore[arg-type]
                items[ask.method] = _items(answers["direct"])

            methods[ask.method] = paired(await alternate(direct, lintel, ask, args.method_requests, check))
            methods[ask.method]["label"] = ask.label
            methods[ask.method]["items"] = items.get(ask.method)
        cpu_ms = (cpu_seconds([lintel.rpc.pid]) - cpu_before) * 1000 / max(1, len(offered) * args.method_requests)
        return {
            "server": name,
            "client": client,
            "encoding": {"editor": lintel.encoding, "child": direct.encoding},
            "methods": methods,
            "not_offered": [ask.method for ask in asks if ask not in offered],
            "lintel_cpu_ms_per_request": round(cpu_ms, 3),
            "responses": {
                "compared": comparison.compared,
                "differ": comparison.differ,
                "direct_unstable": comparison.direct_unstable,
                "reordered": comparison.reordered,
                "examples": comparison.examples,
            },
            "lintel_stderr_tail": list(lintel.rpc.stderr)[-5:],
        }
    finally:
        await lintel.rpc.stop()
        if direct is not None:
            await direct.rpc.stop()


def _print_head(title: str, lead: str, target: float) -> None:
    """A table's title and header: `lead` columns, then direct, lintel, added and paired (median, p90)."""
    header = (
        f"{lead}  {'direct med':>10} {'p90':>7}  {'lintel med':>10} {'p90':>7}  {'added med':>9} {'p90':>7}  "
        f"{'paired med':>10} {'p90':>7}  target ≤ {target:g} ms"
    )
    print(f"\n{title}")
    print(header)
    print("-" * len(header))


def print_methods(results: dict[str, Any]) -> None:
    target = TARGETS["relayed_added_ms"]
    lead = f"{'server':<9} {'client':<7} {'enc (child)':<16} {'request':<21} {'items':>5} {'n':>4}"
    _print_head("relayed method classes, one request at a time, direct and lintel alternating:", lead, target)
    for run in results.get("methods", []):
        encoding = f"{run['encoding']['editor']} ({run['encoding']['child']})"
        for method, stats in run["methods"].items():
            name = method.rsplit("/", 1)[-1]
            items = "-" if stats["items"] is None else str(stats["items"])
            added = stats["added_median_ms"]
            print(
                f"{run['server']:<9} {run['client']:<7} {encoding:<16} {name:<21} {items:>5} "
                f"{stats['direct']['n']:>4}  "
                f"{stats['direct']['median']:>10.2f} {stats['direct']['p90']:>7.2f}  "
                f"{stats['lintel']['median']:>10.2f} {stats['lintel']['p90']:>7.2f}  "
                f"{added:>+9.2f} {stats['added_p90_ms']:>+7.2f}  "
                f"{stats['paired_median_ms']:>+10.2f} {stats['paired_p90_ms']:>+7.2f}  {_verdict(added <= target)}"
            )
        responses = run["responses"]
        missing = f"; not offered by the server: {', '.join(run['not_offered'])}" if run["not_offered"] else ""
        print(
            f"{'':<35} lintel CPU {run['lintel_cpu_ms_per_request']:.2f} ms/request; responses: "
            f"{responses['compared']} compared, {responses['differ']} differ (direct unstable "
            f"{responses['direct_unstable']}, reordered {responses['reordered']}){missing}"
        )
        for example in responses["examples"]:
            print(f"{'':<37}{example['request']}: {example['at']}")


# -- semantic tokens of a long generated file ---------------------------------------------------------------------


def decode_tokens(data: Sequence[int], legend: dict[str, list[str]], lines: Sequence[str], encoding: str) -> list[Any]:
    """(line, first code point, end code point, type name, modifier names) of each token: the script's own
    reading of an array, comparable across legends and encodings."""
    types_, modifiers = legend["tokenTypes"], legend["tokenModifiers"]
    out: list[Any] = []
    line = start = 0
    for index in range(0, len(data) - len(data) % 5, 5):
        delta_line, delta_start, length, kind, mask = data[index : index + 5]
        if delta_line:
            line, start = line + delta_line, delta_start
        else:
            start += delta_start
        text = lines[line] if line < len(lines) else ""
        first = characters(text, start, encoding)
        names = frozenset(name for bit, name in enumerate(modifiers) if mask >> bit & 1)
        kind_name = types_[kind] if kind < len(types_) else f"#{kind}"
        out.append((line, first, characters(text, start + length, encoding), kind_name, names))
    return out


def apply_delta(data: list[int], edits: Sequence[dict[str, Any]]) -> list[int]:
    """A token array after a SemanticTokensDelta's edits (each against the old array)."""
    out = list(data)
    for edit in sorted(edits, key=lambda e: int(e["start"]), reverse=True):
        start = int(edit["start"])
        out[start : start + int(edit.get("deleteCount") or 0)] = edit.get("data") or []
    return out


@dataclass
class TokenState:
    """One side's view of the document's tokens: the array it holds (after deltas) and its resultId."""

    data: list[int] = field(default_factory=list)
    result_id: str | None = None
    fulls_for_delta: int = 0  # deltas answered with whole tokens

    def take(self, result: Any) -> None:
        if not isinstance(result, dict):
            return
        if "edits" in result:
            self.data = apply_delta(self.data, result["edits"])
        else:
            self.data = list(result.get("data") or [])
        self.result_id = result.get("resultId")


class TokenCheck:
    """lintel's tokens against the direct server's, decoded: the same tokens where they sit, the same type names,
    the same modifiers lintel's legend has (it drops a few: relay/tokens.py)."""

    def __init__(self, direct_legend: dict[str, list[str]], lintel_legend: dict[str, list[str]]) -> None:
        self.legends = {"direct": direct_legend, "lintel": lintel_legend}
        self.kept_types = set(lintel_legend["tokenTypes"])
        self.kept_modifiers = frozenset(lintel_legend["tokenModifiers"])
        self.compared = self.differ = 0
        self.examples: list[str] = []

    def __call__(self, states: dict[str, TokenState], lines: Sequence[str], encodings: dict[str, str]) -> None:
        decoded = {
            label: decode_tokens(states[label].data, self.legends[label], lines, encodings[label])
            for label in ("direct", "lintel")
        }
        expected = [
            (line, first, end, kind, names & self.kept_modifiers)
            for line, first, end, kind, names in decoded["direct"]
            if kind in self.kept_types
        ]
        self.compared += 1
        if expected != decoded["lintel"]:
            self.differ += 1
            if len(self.examples) < 2:
                at = next(
                    (i for i, (x, y) in enumerate(zip(expected, decoded["lintel"], strict=False)) if x != y),
                    min(len(expected), len(decoded["lintel"])),
                )
                self.examples.append(
                    f"{len(expected)} tokens direct, {len(decoded['lintel'])} lintel; first difference at {at}: "
                    f"{expected[at : at + 1]} vs {decoded['lintel'][at : at + 1]}"
                )


def _edited(text: str, line: int, on: bool) -> tuple[str, dict[str, Any]]:
    """The document with its `line`'s "é 🍰" edited (or back), and the incremental change that makes it (the
    whole line replaced: its range ends at the next line's start, so no column is encoding-dependent)."""
    lines = text.split("\n")
    before = lines[line]
    lines[line] = before.replace("é 🍰", "é 🍰 edited", 1) if on else before.replace("é 🍰 edited", "é 🍰", 1)
    change = {
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}},
        "text": lines[line] + "\n",
    }
    return "\n".join(lines), change


def _legend(side: Side) -> dict[str, list[str]]:
    legend: dict[str, list[str]] = side.capabilities["semanticTokensProvider"]["legend"]
    return legend


async def tokens_ready(side: Side, uri: str) -> float:
    """Full tokens asked until two answers a second apart have the same, non-empty, data (the workspace is
    loaded); seconds it took."""
    began = time.monotonic()
    previous: Any = None
    while True:
        _, message = await side.rpc.call(FULL_TOKENS, {"textDocument": {"uri": uri}})
        data = (message.get("result") or {}).get("data")
        if data and data == previous:
            return time.monotonic() - began
        previous = data
        if time.monotonic() - began > READY_TIMEOUT:
            raise TimeoutError(f"{side.label}: semantic tokens not stable within {READY_TIMEOUT:g}s")
        await asyncio.sleep(1.0)


async def measure_tokens(
    name: str, client: str, root: Path, env: dict[str, str], args: argparse.Namespace
) -> dict[str, Any]:
    """Full semantic tokens of the generated file, `--token-rounds` per side, alternating; then, for a server
    with deltas, a one-line edit on both sides before each delta request."""
    workload = TOKEN_WORKLOADS[name]
    path = root / workload.file
    uri = path.as_uri()
    capabilities = client_capabilities(CLIENTS[client])
    # Told it may refresh, rust-analyzer forgets every document's tokens at each change (and asks the editor to
    # ask again): a delta after an edit would always be answered with all the tokens.
    capabilities = copy.deepcopy(capabilities)
    assert capabilities.workspace is not None
    capabilities.workspace.semantic_tokens = SemanticTokensWorkspaceClientCapabilities(refresh_support=False)
    target = (workload.language, workload.file)
    argv, _ = child_command(*target, root)
    lintel = await start_lintel("lintel", _lintel_argv(args, f"tokens-{name}-{client}"), root, env, capabilities)
    direct: Side | None = None
    try:
        direct = await start_direct("direct", argv, target, root, env, capabilities, lintel.encoding)
        sides = (direct, lintel)
        text = path.read_text(encoding="utf-8")
        for side in sides:
            item = {"uri": uri, "languageId": LANGUAGE_IDS[path.suffix], "version": 1, "text": text}
            await side.rpc.notify("textDocument/didOpen", {"textDocument": item})
        ready = await asyncio.gather(*(tokens_ready(side, uri) for side in sides))
        full = DocAsk(FULL_TOKENS, workload.file)
        for side in sides:
            side.params[full] = {"textDocument": {"uri": uri}}
            for _ in range(args.warmup // 4):
                await side.ask(full)
        await quiet([side.rpc.pid for side in sides], timeout=60.0)
        check = TokenCheck(_legend(direct), _legend(lintel))
        encodings = {side.label: side.encoding for side in sides}
        lines = text.split("\n")
        states = {side.label: TokenState() for side in sides}
        sizes: dict[str, int] = {}
        last: dict[str, Any] = {}

        def check_full(i: int, answers: dict[str, dict[str, Any]]) -> None:
            for label, message in answers.items():
                states[label].take(message.get("result"))
                sizes[label] = len(json.dumps(message))
                last[label] = message
            if i % 10 == 0 or i == args.token_rounds - 1:
                check(states, lines, encodings)

        cpu_before = cpu_seconds([lintel.rpc.pid])
        result: dict[str, Any] = {
            "server": name,
            "client": client,
            "encoding": {"editor": lintel.encoding, "child": direct.encoding},
            "lines": len(lines) - 1,
            "ready_seconds": [round(x, 2) for x in ready],
            "full": paired(await alternate(direct, lintel, full, args.token_rounds, check_full)),
        }
        result["lintel_cpu_ms_per_full"] = round(
            (cpu_seconds([lintel.rpc.pid]) - cpu_before) * 1000 / args.token_rounds, 3
        )
        result["tokens"] = len(states["direct"].data) // 5
        result["answer_bytes"] = sizes
        result["in_process"] = in_process(last["direct"], _legend(direct), lines, direct.encoding, lintel.encoding)
        delta_offered = isinstance((direct.capabilities["semanticTokensProvider"].get("full")), dict) and bool(
            direct.capabilities["semanticTokensProvider"]["full"].get("delta")
        )
        if delta_offered:
            result["delta"] = await delta_rounds(sides, workload, text, states, check, encodings, args)
            result["delta"]["lintel_fulls"] = states["lintel"].fulls_for_delta
            result["delta"]["direct_fulls"] = states["direct"].fulls_for_delta
        result["tokens_checked"] = {"compared": check.compared, "differ": check.differ, "examples": check.examples}
        return result
    finally:
        await lintel.rpc.stop()
        if direct is not None:
            await direct.rpc.stop()


async def delta_rounds(
    sides: tuple[Side, Side],
    workload: TokenWorkload,
    text: str,
    states: dict[str, TokenState],
    check: TokenCheck,
    encodings: dict[str, str],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """Each round: the same one-line edit sent to both sides, then a delta asked of each (order flipped every
    round), against the resultId that side last gave."""
    uri = (sides[0].root / workload.file).as_uri()
    per_side: dict[str, list[float]] = {"direct": [], "lintel": []}
    version = 1
    for i in range(args.token_rounds):
        version += 1
        text, change = _edited(text, workload.edit_line, on=i % 2 == 0)
        for side in sides:
            await side.rpc.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
        for side in sides if i % 2 == 0 else sides[::-1]:
            state = states[side.label]
            # Without a resultId (lintel drops it when it left tokens out) an editor asks for all the tokens.
            if state.result_id is None:
                ms, message = await side.rpc.call(FULL_TOKENS, {"textDocument": {"uri": uri}})
            else:
                params = {"textDocument": {"uri": uri}, "previousResultId": state.result_id}
                ms, message = await side.rpc.call(DELTA_TOKENS, params)
            per_side[side.label].append(ms)
            answer = message.get("result")
            state.fulls_for_delta += isinstance(answer, dict) and "data" in answer
            state.take(answer)
        if i % 10 == 0 or i == args.token_rounds - 1:
            check(states, text.split("\n"), encodings)
    return paired(per_side)


def in_process(
    message: dict[str, Any], child_legend: dict[str, Any], lines: Sequence[str], child: str, editor: str
) -> dict[str, float]:
    """lintel's own steps on one full answer of the child, timed here, median of 15 (ms): parsing the child's
    message, the legend remap, the column re-count (when the encodings differ), encoding the answer."""
    body = json.dumps(message).encode("utf-8")
    remap = Remap(child_legend)

    def line(number: int) -> str | None:
        return lines[number] if 0 <= number < len(lines) else None

    steps: dict[str, list[float]] = {"parse": [], "remap": [], "recount": [], "encode": []}
    for _ in range(15):
        began = time.perf_counter()
        parsed = json.loads(body)
        parsed_at = time.perf_counter()
        answer = remap_full(parsed["result"], remap)
        remapped_at = time.perf_counter()
        if child != editor:
            answer["data"] = recode_full(answer["data"], line, child, editor)  # type: ignore[arg-type]
        recounted_at = time.perf_counter()
        encode({"jsonrpc": "2.0", "id": 1, "result": answer})
        done = time.perf_counter()
        for step, ms in zip(
            steps,
            (parsed_at - began, remapped_at - parsed_at, recounted_at - remapped_at, done - recounted_at),
            strict=True,
        ):
            steps[step].append(ms * 1000)
    return {step: round(statistics.median(values), 3) for step, values in steps.items()}


def print_tokens(results: dict[str, Any]) -> None:
    target = TARGETS["tokens_added_ms"]
    lead = f"{'server':<13} {'client':<7} {'enc (child)':<16} {'request':<22} {'n':>4}"
    _print_head("semantic tokens of a generated long file, direct and lintel alternating:", lead, target)
    for run in results.get("tokens", []):
        encoding = f"{run['encoding']['editor']} ({run['encoding']['child']})"
        rows = [("full", run["full"])] + ([("full/delta after edit", run["delta"])] if "delta" in run else [])
        for request, stats in rows:
            added = stats["added_median_ms"]
            print(
                f"{run['server']:<13} {run['client']:<7} {encoding:<16} {request:<22} {stats['direct']['n']:>4}  "
                f"{stats['direct']['median']:>10.2f} {stats['direct']['p90']:>7.2f}  "
                f"{stats['lintel']['median']:>10.2f} {stats['lintel']['p90']:>7.2f}  "
                f"{added:>+9.2f} {stats['added_p90_ms']:>+7.2f}  "
                f"{stats['paired_median_ms']:>+10.2f} {stats['paired_p90_ms']:>+7.2f}  {_verdict(added <= target)}"
            )
        steps = run["in_process"]
        checked = run["tokens_checked"]
        delta = run.get("delta")
        fulls = (
            f"; deltas answered with whole tokens: lintel {delta['lintel_fulls']}, direct {delta['direct_fulls']}"
            if delta
            else ""
        )
        print(
            f"{'':<39} {run['lines']} lines, {run['tokens']} tokens, answer {run['answer_bytes'].get('direct', 0)} B "
            f"direct / {run['answer_bytes'].get('lintel', 0)} B lintel; lintel CPU {run['lintel_cpu_ms_per_full']:.2f}"
            f" ms per full{fulls}"
        )
        print(
            f"{'':<39} lintel's steps on one full answer, in this process (ms): parse {steps['parse']:.2f}, "
            f"legend remap {steps['remap']:.2f}, column re-count {steps['recount']:.2f}, encode {steps['encode']:.2f}"
        )
        print(f"{'':<39} tokens checked (decoded, both sides): {checked['compared']} times, {checked['differ']} differ")
        for example in checked["examples"]:
            print(f"{'':<41}{example}")


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
    argv, _ = child_command(workload.language, workload.ready.file, root)
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
                sides[label] = await start_direct(
                    label, command, (workload.language, workload.ready.file), root, env, capabilities, "utf-16"
                )
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
            if not _found(workload.language, workload.binary, Path(scratch), name, results):
                continue
            root = copy_workspace(workload.workspace, Path(scratch) / workload.workspace)
            for client in args.clients if "nav" in args.sections else ():
                began = time.perf_counter()
                print(f"{name} / {client} …", file=sys.stderr, flush=True)
                measured = await measure_pair(workload, client, root, env, args)
                measured["seconds"] = round(time.perf_counter() - began, 1)
                results["runs"].append(measured)
            for client in args.clients if "methods" in args.sections and name in RELAYED_ASKS else ():
                print(f"{name} / {client}: relayed method classes …", file=sys.stderr, flush=True)
                results.setdefault("methods", []).append(await measure_methods(name, client, root, env, args))
        for name in args.token_servers if "tokens" in args.sections else ():
            tokens = TOKEN_WORKLOADS[name]
            if not _found(tokens.language, tokens.binary, Path(scratch), name, results):
                continue
            root = copy_workspace(tokens.workspace, Path(scratch) / f"tokens-{tokens.workspace}")
            generate_token_file(tokens, root, args.token_lines)
            for client in args.clients:
                print(f"{name} / {client}: semantic tokens …", file=sys.stderr, flush=True)
                results.setdefault("tokens", []).append(await measure_tokens(name, client, root, env, args))
        if "nav" in args.sections and args.floors and "gopls" not in results["skipped"] and shutil.which("gopls"):
            print("where the time goes …", file=sys.stderr, flush=True)
            root = Path(scratch) / "go"
            if not root.exists():
                copy_workspace("go", root)
            results["floors"] = await floors(root, env, args)
    results["environment"]["loadavg_after"] = loadavg()
    return results


def _found(language: str, binary: str, scratch: Path, name: str, results: dict[str, Any]) -> bool:
    """Whether lintel would start `binary` for `language`; else the run is skipped, with the install hint."""
    probe = resolve_command(LANGUAGES[language], project_root=scratch, workspace_root=scratch)
    if probe.argv is not None and Path(probe.argv[0]).name == binary:
        return True
    results["skipped"][name] = f"{binary} not found ({_server(language).install_hint})"
    print(f"skipped {name}: {results['skipped'][name]}", file=sys.stderr)
    return False


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
        "--sections", default=",".join(SECTIONS), help="comma-separated: nav (and floors), methods, tokens"
    )
    parser.add_argument("--method-requests", type=int, default=60, help="timed requests per relayed method and side")
    parser.add_argument(
        "--token-servers", default=",".join(TOKEN_WORKLOADS), help="comma-separated: tsserver,rust-analyzer"
    )
    parser.add_argument("--token-lines", type=int, default=5000, help="lines of the generated file (default 5000)")
    parser.add_argument("--token-rounds", type=int, default=40, help="timed token requests per kind and side")
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
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    args.token_servers = [s.strip() for s in args.token_servers.split(",") if s.strip()]
    unknown = [s for s in args.servers if s not in WORKLOADS] + [c for c in args.clients if c not in CLIENTS]
    unknown += [s for s in args.sections if s not in SECTIONS] + [
        s for s in args.token_servers if s not in TOKEN_WORKLOADS
    ]
    if unknown:
        parser.error(f"unknown server or client: {', '.join(unknown)}")
    began = time.perf_counter()
    results = asyncio.run(run(args))
    results["total_seconds"] = round(time.perf_counter() - began, 1)
    if results["runs"] or results["skipped"]:
        print_table(results)
    print_methods(results)
    print_tokens(results)
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
