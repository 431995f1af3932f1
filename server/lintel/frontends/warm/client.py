"""The `lintel` entry point: a command goes to the user's warm lintel when one runs (it forks a lintel that has
already imported everything and hands it this process's cwd, environment, arguments and stdin/stdout/stderr), and
runs in this process otherwise — never a wrong answer, never a hang. Imports only what it needs to decide."""

from __future__ import annotations

import _socket  # socket.py itself (and signal) import enum: tens of milliseconds this entry point does without
import os
import sys

from lintel.frontends.warm.place import (
    NO_DAEMON_FLAG,
    PROTOCOL,
    private_folder,
    run_folder,
    socket_path,
    start_zygote,
    wanted,
)

TYPE_CHECKING = False  # typing's own costs an import this entry point does without
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import FrameType

CONNECT_TIMEOUT = 0.5  # seconds to reach the warm lintel's socket
START_TIMEOUT = 3.0  # seconds for it to say it has started the command
# The signals a terminal or an editor sends lintel: passed on to the lintel the warm one started.
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
# Exit code when the started lintel ended without telling how (the warm lintel is gone too): it could not run.
EXIT_UNKNOWN = 3


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    env = os.environ
    if wanted(args, env):
        code = _through_warm(args, env)
        if code is not None and argv is None:
            # The entry point, its command done elsewhere: nothing of this process's own is left to clean up, and
            # ending now spares the interpreter's teardown.
            os._exit(code)
        if code is not None:
            return code
    return _in_process([a for a in args if a != NO_DAEMON_FLAG])


def _in_process(args: list[str]) -> int:
    from lintel.frontends.cli import main as cli_main

    return cli_main(args)


def _through_warm(args: list[str], env: Mapping[str, str]) -> int | None:
    """The command's exit code from the warm lintel; None when it is absent, busy, of another version or broken
    before it started anything (the caller then runs the command itself)."""
    folder = run_folder(env)
    if not private_folder(folder, create=False):
        start_zygote(env)
        return None
    path = socket_path(env)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        _send_request(sock, args, env)
        sock.settimeout(START_TIMEOUT)
        reply = _read_line(sock)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        start_zygote(env)  # none runs, or a dead one left its socket: the next command finds a new one
        return None
    except OSError:  # timed out, reset, a descriptor that cannot be passed: this command runs here
        sock.close()
        return None
    if not reply.startswith(b"P "):
        sock.close()
        return None
    return _wait(sock, int(reply[2:]))


def _send_request(sock: _socket.socket, args: Sequence[str], env: Mapping[str, str]) -> None:
    """One message: who asks (protocol, version), where, what and with which environment, NUL-separated (none of
    them can hold a NUL), with this process's stdin, stdout and stderr attached."""
    import lintel

    fields = [PROTOCOL, lintel.__version__.encode(), os.fsencode(os.getcwd()), str(len(args)).encode()]
    fields += [os.fsencode(a) for a in args]
    fields += [os.fsencode(f"{k}={v}") for k, v in env.items()]
    body = b"\0".join(fields)
    message = len(body).to_bytes(4, "big") + body
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # C ints, as SCM_RIGHTS wants them
    sent = sock.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    if sent < len(message):
        sock.sendall(message[sent:])


def _read_line(sock: _socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(64)
        if not chunk:
            return data
        data += chunk
    return data.rstrip(b"\n")


def _wait(sock: _socket.socket, pid: int) -> int:
    """Pass the signals this process gets on to the started lintel, and return its exit code when it ends.
    (signal is imported only now: while the started lintel already runs.)"""
    import signal

    def forward(signum: int, frame: FrameType | None) -> None:
        try:  # noqa: SIM105 - contextlib is an import this entry point does without
            os.kill(pid, signum)
        except OSError:
            pass

    for name in FORWARDED:
        signal.signal(getattr(signal, name), forward)
    sock.settimeout(None)
    while True:
        try:
            line = _read_line(sock)
        except InterruptedError:
            continue
        except OSError:
            line = b""
        if line.startswith(b"X "):
            return int(line[2:])
        print("lintel: the warm lintel's process ended without an exit status", file=sys.stderr)
        return EXIT_UNKNOWN
