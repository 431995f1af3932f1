"""The warm lintel (lintel.frontends.warm): commands through it answer as lintel in its own process does, with the
client's cwd, environment and streams; and each fault — the warm lintel killed mid-command, the forked lintel
killed, a stale socket, another version, another user, a client going away, a folder others can reach — gives the
in-process answer or the right one, never a hang."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.helpers import copy_workspace, require_tool, tool_path

CHECK = ("check", "--only", "lint", "--format", "json")


@pytest.fixture
def warm_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment whose lintel goes through a warm lintel of its own (a private runtime folder); stopped after."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k not in ("LINTEL_NO_DAEMON", "CI")}
    # A warm lintel a failed test could not stop leaves by itself soon.
    env.update(PATH=tool_path(), XDG_RUNTIME_DIR=str(runtime), LINTEL_DAEMON="1", LINTEL_DAEMON_IDLE="120")
    yield env
    lintel(env, "daemon", "stop")


def lintel(
    env: Mapping[str, str], *args: str, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lintel", *args],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def started(env: Mapping[str, str]) -> int:
    """Start the warm lintel and return its pid."""
    done = lintel(env, "daemon", "start")
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split("pid ")[1].split(",")[0])


def socket_file(env: Mapping[str, str]) -> Path:
    return next((Path(env["XDG_RUNTIME_DIR"]) / "lintel").glob("warm-*.sock"))


def forked_pids(warm: int) -> set[int]:
    """The lintels the warm one has forked for commands and that still run (in /proc)."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            state, parent, _, session = stat.rsplit(")", 1)[1].split()[:4]
            # An ended one is a zombie until the warm lintel reaps it; a forked lintel leads a session of its own
            # (what tells it from the warm lintel's sweepers of a killed one's leftovers).
            if int(parent) == warm and state != "Z" and int(session) == int(entry.name):
                out.add(int(entry.name))
    return out


def report(done: subprocess.CompletedProcess[str]) -> set[tuple[str, int, str]]:
    assert done.returncode in (0, 1), done.stderr
    return {(i["file"], i["line"], i.get("rule", "")) for i in json.loads(done.stdout)["issues"]}


def test_a_check_through_the_warm_lintel_answers_as_one_in_its_own_process(
    warm_env: dict[str, str], tmp_path: Path
) -> None:
    require_tool("ruff")
    project = copy_workspace("python", tmp_path / "py")
    warm = started(warm_env)
    through = lintel(warm_env, *CHECK, "src/inventory/models.py", cwd=project)
    assert forked_pids(warm) == set()  # it ran, and ended
    alone = lintel({**warm_env, "LINTEL_NO_DAEMON": "1"}, *CHECK, "src/inventory/models.py", cwd=project)
    assert through.returncode == alone.returncode == 1
    assert report(through) == report(alone)
    assert report(through)
    assert json.loads(through.stdout)["root"] == str(project)  # the client's cwd
    flag = lintel(warm_env, *CHECK, "--no-daemon", "src/inventory/models.py", cwd=project)
    assert report(flag) == report(alone)
    usage = lintel(warm_env, "check", "--only", "nonsense", cwd=project)
    assert usage.returncode == 2
    assert "--only: unknown check nonsense" in usage.stderr


def fake_ruff(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "ruff"
    tool.write_text("#!/bin/sh\n" + body)
    tool.chmod(0o755)
    return folder


FINDING = (
    'if [ "$1" = "--version" ]; then echo "ruff 0.0.0"; exit 0; fi\n'
    'echo \'[{"code":"X1","message":"from the fake","filename":"\'"$PWD"\'/src/inventory/models.py",'
    '"location":{"row":1,"column":1},"end_location":{"row":1,"column":2},"fix":null,"noqa_row":1}]\'\n'
    "exit 1\n"
)


def test_tools_run_with_the_clients_path_not_the_warm_lintels(warm_env: dict[str, str], tmp_path: Path) -> None:
    """A client whose PATH (or virtualenv) differs from the one that started the warm lintel gets its own tools."""
    require_tool("ruff")
    project = copy_workspace("python", tmp_path / "py")
    started(warm_env)  # with the suite's PATH: the real ruff
    fake = fake_ruff(tmp_path / "fakebin", FINDING)
    other = {**warm_env, "PATH": f"{fake}{os.pathsep}{warm_env['PATH']}", "LINTEL_CACHE_DIR": str(tmp_path / "c")}
    done = lintel(other, *CHECK, "--no-cache", cwd=project)
    assert report(done) == {("src/inventory/models.py", 1, "X1")}
    real = lintel(warm_env, *CHECK, "--no-cache", cwd=project)
    assert ("src/inventory/models.py", 3, "F401") in report(real)


def slow_tool(tmp_path: Path, seconds: int) -> tuple[dict[str, str], Path]:
    marker = tmp_path / "tool-started"
    fake = fake_ruff(
        tmp_path / "slowbin",
        f'[ "$1" = "--version" ] && {{ echo "ruff 0"; exit 0; }}\ntouch "{marker}"\nsleep {seconds}\n' + FINDING,
    )
    return {"PATH": f"{fake}{os.pathsep}{tool_path()}"}, marker


def wait_for(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def popen(env: Mapping[str, str], *args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "lintel", *args],
        env=dict(env),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_warm_lintel_killed_mid_command_leaves_the_command_to_finish(
    warm_env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_workspace("python", tmp_path / "py")
    warm = started(warm_env)
    extra, marker = slow_tool(tmp_path, 2)
    with popen({**warm_env, **extra}, *CHECK, "--no-cache", cwd=project) as proc:
        wait_for(marker)
        os.kill(warm, signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert {(i["file"], i["rule"]) for i in json.loads(out)["issues"]} == {("src/inventory/models.py", "X1")}
    # The next command finds the dead one's socket, runs in its own process, and starts a new warm lintel.
    again = lintel({**warm_env, **extra}, *CHECK, "--no-cache", cwd=project)
    assert report(again) == {("src/inventory/models.py", 1, "X1")}
    deadline = time.monotonic() + 60
    while lintel(warm_env, "daemon", "status").returncode != 0:
        assert time.monotonic() < deadline, "no new warm lintel"
        time.sleep(0.2)


def test_the_forked_lintel_killed_gives_the_exit_code_of_a_killed_process(
    warm_env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_workspace("python", tmp_path / "py")
    warm = started(warm_env)
    extra, marker = slow_tool(tmp_path, 300)
    with popen({**warm_env, **extra}, *CHECK, "--no-cache", cwd=project) as proc:
        wait_for(marker)
        (child,) = forked_pids(warm)
        assert running(tmp_path / "slowbin")
        os.kill(child, signal.SIGKILL)
        proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGKILL
    # The tool it left running (in a session of its own) is swept by the warm lintel, as a watchdog would.
    deadline = time.monotonic() + 60
    while running(tmp_path / "slowbin"):
        assert time.monotonic() < deadline, "the killed lintel's tool outlived it"
        time.sleep(0.1)


def running(folder: Path) -> list[int]:
    """The live processes running a program from `folder`."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if str(folder).encode() in cmdline and state != "Z":
                out.append(int(entry.name))
    return out


def test_a_signal_to_the_client_reaches_the_command_and_a_client_gone_ends_it(
    warm_env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_workspace("python", tmp_path / "py")
    warm = started(warm_env)
    extra, marker = slow_tool(tmp_path, 60)
    with popen({**warm_env, **extra}, *CHECK, "--no-cache", cwd=project) as proc:
        wait_for(marker)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert proc.returncode == 130  # lintel's own answer to Ctrl-C
    marker.unlink()
    with popen({**warm_env, **extra}, *CHECK, "--no-cache", cwd=project) as proc:
        wait_for(marker)
        (child,) = forked_pids(warm)
        proc.kill()  # an editor killing its lintel: the forked one must not run on
        proc.communicate(timeout=60)
    deadline = time.monotonic() + 30
    while child in forked_pids(warm) or Path(f"/proc/{child}").exists():
        assert time.monotonic() < deadline, "the forked lintel outlived its client"
        time.sleep(0.1)


def test_a_stale_socket_gives_the_in_process_answer_and_a_new_warm_lintel(
    warm_env: dict[str, str], tmp_path: Path
) -> None:
    require_tool("ruff")
    project = copy_workspace("python", tmp_path / "py")
    started(warm_env)
    path = socket_file(warm_env)
    assert lintel(warm_env, "daemon", "stop").returncode == 0
    deadline = time.monotonic() + 30
    while path.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # bound, never listening: what a killed warm lintel leaves
    dead.close()
    done = lintel(warm_env, *CHECK, cwd=project)
    assert ("src/inventory/models.py", 3, "F401") in report(done)
    deadline = time.monotonic() + 60
    while lintel(warm_env, "daemon", "status").returncode != 0:
        assert time.monotonic() < deadline, "no new warm lintel after a stale socket"
        time.sleep(0.2)


def fake_warm(path: Path, reply: bytes) -> tuple[socket.socket, list[bytes]]:
    """A socket answering every request with `reply`: a warm lintel of another version, or a broken one."""
    import threading

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    seen: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            msg, fds, _, _ = socket.recv_fds(conn, 65536, 3)
            for fd in fds:
                os.close(fd)
            seen.append(msg)
            if reply:
                conn.sendall(reply)
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return server, seen


@pytest.mark.parametrize(
    "reply", [b"E version 9.9.9, not 0.1.0\n", b"", b"garbage\n"], ids=["other-version", "closed", "garbage"]
)
def test_a_warm_lintel_that_refuses_or_breaks_gives_the_in_process_answer(
    warm_env: dict[str, str], tmp_path: Path, reply: bytes
) -> None:
    require_tool("ruff")
    project = copy_workspace("python", tmp_path / "py")
    started(warm_env)
    path = socket_file(warm_env)
    lintel(warm_env, "daemon", "stop")
    while path.exists():
        time.sleep(0.05)
    server, seen = fake_warm(path, reply)
    try:
        done = lintel(warm_env, *CHECK, cwd=project)
    finally:
        server.close()
    assert seen
    assert b"LINTEL-WARM 1" in seen[0]
    assert ("src/inventory/models.py", 3, "F401") in report(done)  # and answered itself


def test_the_warm_lintel_refuses_another_version(warm_env: dict[str, str], tmp_path: Path) -> None:
    started(warm_env)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(socket_file(warm_env)))
    body = b"\0".join([b"LINTEL-WARM 1", b"9.9.9", str(tmp_path).encode(), b"1", b"detect"])
    socket.send_fds(sock, [len(body).to_bytes(4, "big") + body], [0, 1, 2])
    assert sock.recv(256).startswith(b"E version")
    sock.close()


def test_a_runtime_folder_others_can_reach_is_never_used(warm_env: dict[str, str], tmp_path: Path) -> None:
    require_tool("ruff")
    project = copy_workspace("python", tmp_path / "py")
    folder = Path(warm_env["XDG_RUNTIME_DIR"]) / "lintel"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    done = lintel(warm_env, *CHECK, cwd=project)
    assert ("src/inventory/models.py", 3, "F401") in report(done)
    assert lintel(warm_env, "daemon", "start").returncode == 1
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as another user")
def test_another_user_cannot_reach_the_warm_lintel(warm_env: dict[str, str], tmp_path: Path) -> None:
    started(warm_env)
    path = socket_file(warm_env)
    probe = (
        "import os, socket, sys\nos.setgid(65534); os.setuid(65534)\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        f"try:\n    s.connect({str(path)!r}); s.sendall(b'status\\n'); print(s.recv(64))\n"
        "except OSError as e:\n    print('refused', e.errno)\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=30, check=False)
    assert done.stdout.startswith("refused"), done.stdout + done.stderr


def test_an_idle_warm_lintel_stops(warm_env: dict[str, str]) -> None:
    env = {**warm_env, "LINTEL_DAEMON_IDLE": "1"}
    started(env)
    deadline = time.monotonic() + 60
    while lintel(env, "daemon", "status").returncode == 0:
        assert time.monotonic() < deadline, "an idle warm lintel did not stop (status probes do not count)"
        time.sleep(0.2)
    assert not list((Path(env["XDG_RUNTIME_DIR"]) / "lintel").glob("*.sock"))


def test_ci_and_the_setting_turn_it_off(warm_env: dict[str, str], tmp_path: Path) -> None:
    from lintel.frontends.warm.place import wanted

    assert wanted(["check"], {})
    assert not wanted(["check", "--no-daemon"], {})
    assert not wanted(["check"], {"LINTEL_NO_DAEMON": "1"})
    assert not wanted(["check"], {"CI": "true"})
    assert wanted(["check"], {"CI": "true", "LINTEL_DAEMON": "1"})
    assert not wanted(["check"], {"LINTEL_DAEMON": "0"})
    assert wanted(["-v", "serve"], {})
    assert not wanted(["serve", "--tcp", "127.0.0.1:1"], {})
    assert not wanted(["merge", "a.json"], {})
    assert not wanted(["--version"], {})
    assert not wanted(["check"], {"PYTHONPROFILEIMPORTTIME": "1"})  # for this interpreter, not the warm one
    # A command run in CI starts no warm lintel.
    done = lintel({**warm_env, "CI": "true", "LINTEL_DAEMON": ""}, "detect", str(tmp_path))
    assert done.returncode == 0
    assert not (Path(warm_env["XDG_RUNTIME_DIR"]) / "lintel").exists()
