"""bench/start.py's probes: how lintel is launched cold (`--no-daemon`) and warm (through `lintel daemon`), the
daemon's start and stop, an MCP initialize over raw JSON-RPC, `python -X importtime` read into its top offenders,
and the processes of a warm server (forked by the daemon, so not below the process we spawned)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness
import workloads

COLD, WARM = "cold", "warm"
MCP_PROTOCOL = "2025-06-18"
NO_DAEMON = "n/a (no lintel daemon)"
PROBE_TIMEOUT = 120.0
IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")
BARE_MCP_COMMAND = [sys.executable, str(Path(__file__).with_name("bare_mcp_server.py"))]


def entry_point() -> list[str]:
    """The `lintel` console script of this checkout (pyproject's [project.scripts]) run with this interpreter:
    what an editor spawns as `lintel`, wherever the warm client's entry ends up."""
    text = (workloads.REPO / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^\[project\.scripts\]\s*\nlintel\s*=\s*"([\w.]+):(\w+)"', text, re.MULTILINE)
    if found is None:
        return [sys.executable, "-m", "lintel"]
    module, function = found.groups()
    return [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


def help_mentions(prefix: Sequence[str], words: str) -> bool:
    """Whether `lintel --help` or `lintel check --help` names `words`."""
    for args in (["--help"], ["check", "--help"]):
        result = subprocess.run([*prefix, *args], capture_output=True, text=True, check=False, timeout=60)
        if words in result.stdout:
            return True
    return False


@dataclass
class Lintel:
    """How to run lintel in each mode. Cold: LINTEL_NO_DAEMON=1, plus `--no-daemon` once the help names it (an
    unknown flag would be an error). Warm: LINTEL_DAEMON=1 (the daemon is off in CI unless asked for)."""

    prefix: list[str]
    cold_flag: bool
    warm: str | None = None  # why the warm rows are left out; None: the daemon runs
    daemon_log: list[str] = field(default_factory=list)

    @classmethod
    def find(cls, prefix: list[str] | None = None) -> Lintel:
        prefix = prefix or entry_point()
        return cls(prefix, help_mentions(prefix, "--no-daemon"))

    def argv(self, mode: str, *args: str) -> list[str]:
        return [*self.prefix, *args, *(["--no-daemon"] if mode == COLD and self.cold_flag else [])]

    def env(self, mode: str) -> dict[str, str]:
        env = dict(os.environ)
        if mode == COLD:
            env["LINTEL_NO_DAEMON"] = "1"
        else:
            env.pop("LINTEL_NO_DAEMON", None)
            env["LINTEL_DAEMON"] = "1"
        return env

    def modes(self) -> list[str]:
        return [COLD] if self.warm else [COLD, WARM]

    def daemon(self, action: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, "daemon", action],
            capture_output=True,
            text=True,
            check=False,
            timeout=PROBE_TIMEOUT,
            env=self.env(WARM),
        )

    def start_daemon(self) -> None:
        """`lintel daemon start`, then `status` must say it runs; else `warm` says why there are no warm rows."""
        status = self.daemon("status")
        if status.returncode not in (0, 1):
            self.warm = NO_DAEMON
            return
        started = self.daemon("start")
        self.daemon_log.append((started.stdout + started.stderr).strip())
        if started.returncode != 0:
            self.warm = f"n/a (`lintel daemon start` exit {started.returncode})"
        elif self.daemon("status").returncode != 0:
            self.warm = "n/a (`lintel daemon status` fails after start)"

    def stop_daemon(self) -> None:
        if self.warm is None:
            stopped = self.daemon("stop")
            self.daemon_log.append((stopped.stdout + stopped.stderr).strip())


def stdin_pipe(pid: int) -> str | None:
    with contextlib.suppress(OSError):
        target = os.readlink(f"/proc/{pid}/fd/0")
        return target if target.startswith("pipe:") else None
    return None


def server_roots(pid: int) -> list[int]:
    """The process we spawned and, for a warm lintel, the child the daemon forked for it: the process holding
    the same stdin pipe outside our process's tree (its file descriptors were passed over the socket)."""
    pipe = stdin_pipe(pid)
    if pipe is None:
        return [pid]
    ours = set(harness.descendants(pid))
    sharers = [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in ours and stdin_pipe(int(e)) == pipe]
    below = {p for s in sharers for p in harness.descendants(s) if p != s}
    return [pid, *(s for s in sharers if s not in below)]


async def mcp_initialize(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> float:
    """Milliseconds from spawn to the initialize result over stdio (one JSON-RPC message a line); then stdin is
    closed and the server exits."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": MCP_PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    line = (json.dumps(request) + "\n").encode()
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=dict(env), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        process.stdin.write(line)
        await process.stdin.drain()
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), PROBE_TIMEOUT)
            if not raw:
                raise RuntimeError(f"{argv[-1]}: stdout closed before the initialize result")
            message = json.loads(raw)
            if message.get("id") == 1:
                break
        ms = (time.perf_counter() - started) * 1000
        if "result" not in message:
            raise RuntimeError(f"initialize failed: {message.get('error')}")
    finally:
        await finish(process)
    return ms


async def finish(process: asyncio.subprocess.Process) -> None:
    """Close stdin and let the process end; killed when it does not within 10 s."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), 10)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()


@dataclass(frozen=True)
class Import:
    module: str
    cumulative_us: int
    self_us: int
    depth: int  # 0: imported by the program itself


def parse_importtime(lines: Sequence[str]) -> list[Import]:
    found = []
    for line in lines:
        if match := IMPORT_LINE.match(line):
            self_us, cumulative, indent, module = match.groups()
            found.append(Import(module, int(cumulative), int(self_us), (len(indent) - 1) // 2))
    return found


def import_summary(imports: Sequence[Import], top: int, wall_ms: float) -> dict[str, Any]:
    ranked = sorted(imports, key=lambda i: i.cumulative_us, reverse=True)[:top]
    return {
        "wall_ms": round(wall_ms, 1),
        "modules": len(imports),
        "total_ms": round(sum(i.cumulative_us for i in imports if i.depth == 0) / 1000, 1),
        "top": [
            {
                "module": i.module,
                "cumulative_ms": round(i.cumulative_us / 1000, 1),
                "self_ms": round(i.self_us / 1000, 1),
            }
            for i in ranked
        ],
    }


async def importtime_check(lintel: Lintel, work: workloads.Workload, top: int) -> dict[str, Any]:
    """`python -X importtime -m lintel check FILE --only lint` (cold): the whole process's imports."""
    file = str(work.file.relative_to(work.root))
    argv = [sys.executable, "-X", "importtime", "-m", "lintel", "check", file, "--only", "lint"]
    argv += ["--no-daemon"] if lintel.cold_flag else []
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=work.root,
        env=lintel.env(COLD),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await process.communicate()
    wall = (time.perf_counter() - started) * 1000
    return import_summary(parse_importtime(stderr.decode(errors="replace").splitlines()), top, wall)


async def importtime_serve(
    lintel: Lintel, work: workloads.Workload, options: Mapping[str, Any], top: int
) -> dict[str, Any]:
    """`python -X importtime -m lintel serve` (cold) up to its initialize response: the importtime lines on
    stderr by then (read 50 ms later, so the pipe has delivered what was written before the response)."""
    argv = [sys.executable, "-X", "importtime", "-m", "lintel", "serve"]
    argv += ["--no-daemon"] if lintel.cold_flag else []
    server = await harness.start_server(
        argv, record_stderr=True, echo_stderr=False, cwd=work.root, env=lintel.env(COLD)
    )
    try:
        await asyncio.wait_for(server.client.initialize_session(harness.initialize_params(work.root, options)), 60)
        wall = (time.perf_counter() - server.spawn_started) * 1000
        await asyncio.sleep(0.05)
        lines = list(server.recorder.stderr)
    finally:
        await harness.stop_server(server)
    return import_summary(parse_importtime(lines), top, wall)
