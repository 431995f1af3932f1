"""`lintel serve --tcp`: only a client presenting the server's token drives it. Another local user
who finds the port gets refusals and runs nothing; silent, closed and refused connections leave the listener
serving the editor; non-loopback hosts and readable token files are refused at the start."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.lsp import tcp
from lintel.runtime.wire import MessageReader

from tests.e2e.conftest import SERVER_COMMAND
from tests.e2e.test_lifecycle_errors import INVALID_REQUEST, SERVER_NOT_INITIALIZED, TIMEOUT, Raw
from tests.helpers import missing_tool

_DRAINS: set[asyncio.Future[None]] = set()  # stderr readers, kept referenced until the loop ends
TOKEN = "the-editors-own-token-0123456789abcdef"


def attack_options(marker: Path) -> dict[str, Any]:
    """initializationOptions that make lintel run a program of the client's choosing on the next didOpen."""
    return {"languages": {"python": {"lint": ["sh", "-c", f"touch {marker}"]}}}


async def start_server(*args: str, env: dict[str, str] | None = None) -> tuple[asyncio.subprocess.Process, int, str]:
    """`lintel serve --tcp 127.0.0.1:0 ARGS`: the process, its port and the line saying where the token is."""
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND,
        "--tcp",
        "127.0.0.1:0",
        *args,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr is not None
    listening = (await asyncio.wait_for(proc.stderr.readline(), TIMEOUT)).decode()
    assert listening.startswith("lintel: serving LSP on 127.0.0.1:"), listening
    where = (await asyncio.wait_for(proc.stderr.readline(), TIMEOUT)).decode()
    assert "initializationOptions.token" in where, where
    _DRAINS.add(asyncio.ensure_future(_drain(proc.stderr)))
    return proc, int(listening.rsplit(":", 1)[1]), where


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def open_raw(port: int) -> Raw:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    return Raw(reader, writer)


def initialize(workspace: Path, msg_id: int, options: dict[str, Any]) -> dict[str, Any]:
    params = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}, "initializationOptions": options}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": params}


def did_open(file: Path) -> dict[str, Any]:
    document = {"uri": file.as_uri(), "languageId": "python", "version": 1, "text": file.read_text()}
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}}


async def end_session(editor: Raw, proc: asyncio.subprocess.Process) -> None:
    """`shutdown` and `exit` from the editor: the server exits 0."""
    editor.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    assert (await editor.answer_to(2))["result"] is None
    editor.send({"jsonrpc": "2.0", "method": "exit"})
    assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0


async def closed(raw: Raw) -> bool:
    """True when the server closes the connection (EOF) within the timeout."""
    try:
        return await asyncio.wait_for(raw.reader.read(), TIMEOUT) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), TIMEOUT)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def python_project(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    (workspace / "a.py").write_text("x = 1\n")
    return workspace, workspace / "a.py"


async def wait_for_file(path: Path, seconds: float = TIMEOUT) -> bool:
    for _ in range(int(seconds * 10)):
        if path.exists():
            return True
        await asyncio.sleep(0.1)
    return False


async def test_a_client_without_the_token_runs_nothing_and_the_editor_still_gets_the_session(tmp_path: Path) -> None:
    workspace, file = python_project(tmp_path)
    stranger_marker, editor_marker = tmp_path / "stranger-ran", tmp_path / "editor-ran"
    proc, port, _ = await start_server(env={"LINTEL_TOKEN": TOKEN})
    try:
        for options in (attack_options(stranger_marker), {**attack_options(stranger_marker), "token": "guess" * 8}):
            stranger = await open_raw(port)
            stranger.send(initialize(workspace, 1, options))
            stranger.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            stranger.send(did_open(file))
            answer = await stranger.answer_to(1)
            assert answer["error"]["code"] == INVALID_REQUEST
            assert "initializationOptions.token" in answer["error"]["message"]
            assert await closed(stranger)

        # The listener survived both, and the same attack with the token is what the editor may do: the
        # program runs, so the refusals above are what kept it from running.
        editor = await open_raw(port)
        editor.send(initialize(workspace, 1, {**attack_options(editor_marker), "token": TOKEN}))
        assert (await editor.answer_to(1))["result"]["serverInfo"]["name"] == "lintel"
        editor.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        editor.send(did_open(file))
        assert await wait_for_file(editor_marker)
        assert not stranger_marker.exists()

        # A second client with the right token while the editor is connected: refused, the editor kept.
        second = await open_raw(port)
        second.send(initialize(workspace, 7, {"token": TOKEN}))
        assert "one editor" in (await second.answer_to(7))["error"]["message"]
        await end_session(editor, proc)
    finally:
        await stop(proc)


async def test_silent_and_closed_connections_leave_the_listener_to_the_editor(tmp_path: Path) -> None:
    workspace, _ = python_project(tmp_path)
    proc, port, _ = await start_server(env={"LINTEL_TOKEN": TOKEN})
    try:
        silent = await open_raw(port)  # connects and says nothing: it used to hold the one session forever
        for _ in range(5):  # connect and close: it used to end the server
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
        early = await open_raw(port)
        early.send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {}})
        assert (await early.answer_to(3))["error"]["code"] == SERVER_NOT_INITIALIZED

        editor = await open_raw(port)
        editor.send(initialize(workspace, 1, {"token": TOKEN}))
        assert (await editor.answer_to(1))["result"]["serverInfo"]["name"] == "lintel"
        assert proc.returncode is None
        silent.writer.close()
        await end_session(editor, proc)
    finally:
        await stop(proc)


async def test_the_token_file_lintel_writes_is_private_and_gone_after_the_session(tmp_path: Path) -> None:
    workspace, _ = python_project(tmp_path)
    runtime = tmp_path / "runtime"
    env = {"LINTEL_TOKEN": "", "XDG_RUNTIME_DIR": str(runtime)}
    proc, port, where = await start_server(env=env)
    try:
        token_file = Path(where.split("(", 1)[1].split(")", 1)[0])
        assert token_file.parent == runtime / "lintel"
        assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        editor = await open_raw(port)
        editor.send(initialize(workspace, 1, {"token": token_file.read_text().strip()}))
        assert (await editor.answer_to(1))["result"]["serverInfo"]["name"] == "lintel"
        editor.writer.close()  # the editor's connection closing ends the session
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
        assert not token_file.exists()
    finally:
        await stop(proc)


def nobodys_python() -> str:
    """An interpreter the user `nobody` can run (root's pyenv shims and venvs are not theirs to execute), for a
    client run as that user through setpriv. Only root can switch users: anyone else skips, saying so."""
    if os.geteuid() != 0:
        pytest.skip("acting as another local user needs root (setpriv)")
    if shutil.which("setpriv") is None:
        missing_tool("setpriv is not installed (util-linux): the attack is run as another user")
    for python in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(python, os.X_OK):
            return python
    missing_tool("no /usr/bin/python3 or /usr/local/bin/python3 that the user nobody can run")


async def test_another_local_user_cannot_drive_the_server(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The attack as it was run: the server as one user, the client as `nobody`, which cannot read the token."""
    python = nobodys_python()
    # A folder every user can enter (pytest's own is 0700): only the token file's and its folder's modes keep
    # `nobody` out, as in the user's real runtime folder.
    shared = Path(tempfile.mkdtemp(prefix="lintel-tcp-"))
    shared.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(shared, ignore_errors=True))
    workspace, file = python_project(tmp_path)
    marker = tmp_path / "ran-as-server"
    runtime = shared / "runtime"
    proc, port, where = await start_server(env={"LINTEL_TOKEN": "", "XDG_RUNTIME_DIR": str(runtime)})
    token_file = where.split("(", 1)[1].split(")", 1)[0]
    client = shared / "client.py"
    client.write_text(
        textwrap.dedent(
            f"""
            import json, socket, sys
            try:
                token = open({token_file!r}).read().strip()
            except OSError as exc:
                token = "unreadable: " + type(exc).__name__
            sock = socket.create_connection(("127.0.0.1", {port}))
            def send(message):
                body = json.dumps(message).encode()
                sock.sendall(b"Content-Length: %d\\r\\n\\r\\n%s" % (len(body), body))
            options = {{"token": token, **json.loads(sys.argv[1])}}
            params = {{"processId": None, "rootUri": {workspace.as_uri()!r}, "capabilities": {{}},
                      "initializationOptions": options}}
            send({{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}})
            send({{"jsonrpc": "2.0", "method": "initialized", "params": {{}}}})
            send(json.loads(sys.argv[2]))
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            print(token.startswith("unreadable"), data.decode())
            """
        )
    )
    client.chmod(0o644)
    try:
        done = await asyncio.to_thread(
            subprocess.run,
            [
                "setpriv",
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                python,
                str(client),
                json.dumps(attack_options(marker)),
                json.dumps(did_open(file)),
            ],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("True "), done.stdout  # nobody could not read the token file
        assert "initializationOptions.token" in done.stdout
        await asyncio.sleep(1)
        assert not marker.exists()
        assert proc.returncode is None  # still serving
    finally:
        await stop(proc)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tcp", "0.0.0.0:0"], "not a loopback address"),
        (["--tcp", "example.org:0"], "not an IP address"),
        (["--token-file", "x"], "go with --tcp"),
    ],
)
def test_unsafe_listening_is_refused_at_the_start(args: list[str], message: str) -> None:
    done = subprocess.run([*SERVER_COMMAND, *args], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_token_file_others_can_read_is_refused(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o644)
    done = subprocess.run(
        [*SERVER_COMMAND, "--tcp", "127.0.0.1:0", "--token-file", str(token_file)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        env={**os.environ, "LINTEL_TOKEN": ""},
    )
    assert done.returncode == 2
    assert "make it 0600" in done.stderr


async def test_a_client_that_does_not_authenticate_in_time_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tcp, "HANDSHAKE_SECONDS", 0.2)
    session = MessageReader(lambda body: None, "the editor")
    gate = tcp.Gate(TOKEN, lambda body: None, session)
    server = await asyncio.get_running_loop().create_server(gate.connection, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        raw = await open_raw(port)
        assert await closed(raw)
        assert not session.done.done()  # the listener's session is not over
