"""`lintel serve` and `lintel mcp` through the warm lintel, driven by real clients: a pytest-lsp editor gets the
diagnostics of the python fixture from a forked lintel and ends it with shutdown/exit (exit code 0 through the
client); an editor that kills its lintel leaves no forked one behind; an MCP client initializes and lists tools."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

from tests.e2e.conftest import SERVER_COMMAND, RecordingClient, make_client, tool_env
from tests.helpers import copy_workspace
from tests.integration.test_warm import forked_pids, lintel, started


@pytest.fixture
def warm(tmp_path: Path, cargo_target_dir: Path) -> Iterator[tuple[dict[str, str], int]]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in tool_env(cargo_target_dir).items() if k not in ("LINTEL_NO_DAEMON", "CI")}
    env.update(XDG_RUNTIME_DIR=str(runtime), LINTEL_DAEMON="1", LINTEL_DAEMON_IDLE="120")
    pid = started(env)
    yield env, pid
    lintel(env, "daemon", "stop")


async def session(env: dict[str, str], root: Path) -> RecordingClient:
    """`lintel serve` started by a real LSP client in `env`, initialized on `root`."""
    config = ClientServerConfig(server_command=SERVER_COMMAND, server_env=env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, RecordingClient)
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
    )
    await asyncio.wait_for(client.initialize_session(params), 60)
    return client


@pytest.mark.asyncio
@pytest.mark.tool("ruff")
async def test_an_editor_gets_diagnostics_from_a_forked_lintel(
    warm: tuple[dict[str, str], int], tmp_path: Path
) -> None:
    env, pid = warm
    root = copy_workspace("python", tmp_path / "py")
    client = await session(env, root)
    assert len(forked_pids(pid)) == 1  # the session runs in a lintel the warm one forked
    path = root / "src/inventory/models.py"
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, path.read_text(encoding="utf-8")))
    )
    deadline = time.monotonic() + 120
    while not any(d.code == "F401" for d in client.diagnostics.get(uri, [])):
        assert time.monotonic() < deadline, "no ruff diagnostics through the warm lintel"
        await asyncio.sleep(0.1)
    await asyncio.wait_for(client.shutdown_session(), 30)
    server = client._server
    assert server is not None
    assert await asyncio.wait_for(server.wait(), 30) == 0
    await client.stop()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    assert forked_pids(pid) == set()


@pytest.mark.asyncio
async def test_an_editor_killing_its_lintel_leaves_no_forked_one(
    warm: tuple[dict[str, str], int], tmp_path: Path
) -> None:
    env, pid = warm
    root = copy_workspace("python", tmp_path / "py")
    client = await session(env, root)
    (forked,) = forked_pids(pid)
    server = client._server
    assert server is not None
    server.kill()
    await server.wait()
    deadline = time.monotonic() + 30
    while forked in forked_pids(pid):
        assert time.monotonic() < deadline, "the forked lintel outlived the editor's"
        await asyncio.sleep(0.1)
    await client.stop()  # type: ignore[no-untyped-call]


def test_an_mcp_client_initializes_through_the_warm_lintel(warm: tuple[dict[str, str], int], tmp_path: Path) -> None:
    env, pid = warm
    proc = subprocess.Popen(
        [sys.executable, "-m", "lintel", "mcp", "--root", str(tmp_path)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    try:
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        answers = {}
        while 2 not in answers:
            line = proc.stdout.readline()
            assert line, "lintel mcp closed its output"
            message = json.loads(line)
            answers[message.get("id")] = message
        assert answers[1]["result"]["serverInfo"]["name"] == "lintel"
        assert "run_lint" in {tool["name"] for tool in answers[2]["result"]["tools"]}
        assert len(forked_pids(pid)) == 1
        proc.stdin.close()  # the client ends the session: the forked lintel ends with it
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
