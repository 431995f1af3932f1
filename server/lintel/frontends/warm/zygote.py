"""The warm lintel: imports all of lintel once, then forks a lintel for each command a client sends, which runs it
with the client's cwd, environment, arguments and stdin/stdout/stderr as if it had been started there. One per
user and identity (place.identity); stops after an idle spell; started as place.zygote_command says."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import importlib
import logging
import os
import pkgutil
import select
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import lintel
from lintel.frontends.warm.place import PROTOCOL, identity, private_folder, run_folder, socket_path
from lintel.runtime import orphans

log = logging.getLogger("lintel.warm")

IDLE_SECONDS = 30 * 60.0
_MAX_REQUEST = 4 * 1024 * 1024  # an environment and argv larger than this is not a client's
_REQUEST_TIMEOUT = 2.0  # seconds a client has to send its request once connected
# Modules whose import starts something or needs what a warm lintel must not hold: never preloaded.
_NOT_PRELOADED = ("lintel.frontends.warm", "lintel.__main__")


@dataclass
class Request:
    version: str
    cwd: str
    argv: list[str]
    env: dict[str, str]
    fds: list[int]


@dataclass
class Zygote:
    listener: socket.socket
    path: str
    idle: float
    stamp: dict[str, tuple[int, int]]
    lock: int  # the identity's lock: a forked lintel must not hold it on
    # Per forked lintel: the client's connection, and the cookie its processes carry (swept when it ends).
    children: dict[int, tuple[socket.socket, str]] = field(default_factory=dict)
    last_active: float = field(default_factory=time.monotonic)

    def serve(self) -> None:
        """Accept until told to stop, idle for too long, or lintel's own files change (a new install)."""
        while True:
            ready, _, _ = select.select([self.listener], [], [], 1.0)
            self._reap()
            if ready and not self._accept():
                return
            if not self.children and time.monotonic() - self.last_active > self.idle:
                log.info("idle for %.0f s: stopping", self.idle)
                return

    def _accept(self) -> bool:
        """Handle one connection; False when the warm lintel must stop."""
        conn, _ = self.listener.accept()
        try:
            if _peer_uid(conn) != os.getuid():
                conn.close()
                return True
            conn.settimeout(_REQUEST_TIMEOUT)
            kind, request = _read_request(conn)
        except (OSError, ValueError) as exc:
            log.info("a bad request: %r", exc)
            conn.close()
            return True
        if kind == "stop":
            _reply(conn, b"K stopping")
            conn.close()
            return False
        if kind == "status":
            _reply(conn, f"S {os.getpid()} {lintel.__version__} {len(self.children)}".encode())
            conn.close()
            return True
        assert request is not None
        refusal = self._refusal(request)
        if refusal is not None:
            _reply(conn, b"E " + refusal.encode())
            _close_all(request.fds)
            conn.close()
            return refusal != "lintel's files changed"
        self._start(conn, request)
        self.last_active = time.monotonic()  # a command, not a status probe, keeps it from going idle
        return True

    def _refusal(self, request: Request) -> str | None:
        if request.version != lintel.__version__:
            return f"version {lintel.__version__}, not {request.version}"
        if _stamp(self.stamp) != self.stamp:
            return "lintel's files changed"
        return None

    def _start(self, conn: socket.socket, request: Request) -> None:
        cookie = orphans.run_cookie()
        pid = os.fork()
        if pid == 0:
            self.listener.close()
            os.close(self.lock)
            for other, _ in self.children.values():
                other.close()
            _run_child(conn, request, cookie)  # never returns
        _close_all(request.fds)
        self.children[pid] = (conn, cookie)

    def _reap(self) -> None:
        """Collect ended children (the sweepers too); one killed by a signal cannot say its exit code: the warm
        lintel says it."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid not in self.children:
                continue  # a sweeper
            conn, cookie = self.children.pop(pid)
            if os.WIFSIGNALED(status):
                with contextlib.suppress(OSError):
                    _reply(conn, f"X {128 + os.WTERMSIG(status)}".encode())
            conn.close()
            _sweep(cookie)


def _sweep(cookie: str) -> None:
    """End what an ended lintel left running (the watchdog's job in a lintel of its own), in a forked process:
    the sweep waits out a grace period, the warm lintel must not."""
    if not orphans.owned(cookie):
        return
    if os.fork() == 0:
        try:
            orphans.sweep(cookie)
        finally:
            os._exit(0)


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def _read_request(conn: socket.socket) -> tuple[str, Request | None]:
    """`status` and `stop` are a bare line; a command is a length, then the NUL-separated fields, with the
    client's stdin, stdout and stderr attached."""
    head, fds, _, _ = socket.recv_fds(conn, 4096, 3)
    if head.startswith(b"status\n") or head.startswith(b"stop\n"):
        _close_all(fds)
        return head.split(b"\n", 1)[0].decode(), None
    if len(head) < 4 or len(fds) != 3:
        _close_all(fds)
        raise ValueError("not a command request")
    size = int.from_bytes(head[:4], "big")
    if size > _MAX_REQUEST:
        _close_all(fds)
        raise ValueError("request too large")
    body = head[4:]
    while len(body) < size:
        chunk = conn.recv(min(65536, size - len(body)))
        if not chunk:
            _close_all(fds)
            raise ValueError("request cut short")
        body += chunk
    fields = [os.fsdecode(f) for f in body.split(b"\0")]
    if fields[0] != PROTOCOL.decode() or len(fields) < 4:
        _close_all(fds)
        raise ValueError("another protocol")
    argc = int(fields[3])
    argv, pairs = fields[4 : 4 + argc], fields[4 + argc :]
    env = dict(pair.split("=", 1) for pair in pairs if "=" in pair)
    return "run", Request(fields[1], fields[2], argv, env, list(fds))


def _reply(conn: socket.socket, line: bytes) -> None:
    conn.sendall(line + b"\n")


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _run_child(conn: socket.socket, request: Request, cookie: str) -> None:
    """In the forked child: become the client's lintel, run the command, report its exit code, end."""
    code = 1
    try:
        os.setsid()
        # Python's own dispositions, as a lintel started by hand has them (Ctrl-C is a KeyboardInterrupt).
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        conn.settimeout(None)
        _reply(conn, f"P {os.getpid()}".encode())
        _take_over(request)
        orphans.guarded_by_parent(cookie)
        _watch_client(conn)
        code = _run_command(request.argv)
    except BaseException:  # the client must hear an exit code whatever happened
        with contextlib.suppress(Exception):
            import traceback

            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            atexit._run_exitfuncs()  # the command's cleanups (workers, child servers), as at a normal exit
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        with contextlib.suppress(OSError):
            _reply(conn, f"X {code}".encode())
        os._exit(code)


def _take_over(request: Request) -> None:
    """The client's stdin/stdout/stderr, cwd and environment, and fresh streams on them."""
    for target, fd in enumerate(request.fds):
        os.dup2(fd, target)
        if fd > 2:
            os.close(fd)
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    import tempfile

    tempfile.tempdir = None  # TMPDIR is the client's
    encoding = request.env.get("PYTHONIOENCODING", "utf-8").split(":")[0] or "utf-8"
    sys.stdin = open(0, encoding=encoding, closefd=False)  # noqa: SIM115 - lives as long as the process
    out_buffering = 1 if os.isatty(1) else -1
    sys.stdout = open(1, "w", encoding=encoding, buffering=out_buffering, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding=encoding, errors="backslashreplace", buffering=1, closefd=False)  # noqa: SIM115
    sys.argv = ["lintel", *request.argv]


def _watch_client(conn: socket.socket) -> None:
    """A client that goes away (its editor killed it) takes its command with it: SIGTERM, as lintel would get."""

    def watch() -> None:
        with contextlib.suppress(OSError):
            while conn.recv(64):
                pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="lintel-warm-client", daemon=True).start()


def _run_command(argv: list[str]) -> int:
    from lintel.frontends.cli import main

    try:
        return main(argv)
    except SystemExit as exc:  # argparse's --help and usage errors
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        print(exc.code, file=sys.stderr)
        return 1


def _modules() -> Iterator[str]:
    prefix = f"{lintel.__name__}."
    for info in pkgutil.walk_packages(lintel.__path__, prefix):
        if not info.name.startswith(_NOT_PRELOADED):
            yield info.name


def preload() -> None:
    """Import every lintel module (and with them pygls, lsprotocol, pydantic, the MCP SDK when installed), build
    the configuration models and a server: what a forked lintel then has for free."""
    for name in _modules():
        try:
            importlib.import_module(name)
        except ImportError as exc:  # an optional extra (the MCP SDK) not installed
            log.info("not preloaded: %s (%s)", name, exc)
    from lintel.engine.config import LintelConfig
    from lintel.frontends.cli import build_parser
    from lintel.frontends.lsp.wiring import create_server

    build_parser()
    LintelConfig()
    create_server()  # resolves lsprotocol's forward references once, for every server forked after


def _stamp(previous: dict[str, tuple[int, int]] | None = None) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every lintel source file loaded: a changed one means a new install is on disk."""
    files = previous.keys() if previous is not None else _loaded_files()
    out: dict[str, tuple[int, int]] = {}
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            out[path] = (0, 0)
            continue
        out[path] = (info.st_mtime_ns, info.st_size)
    return out


def _loaded_files() -> list[str]:
    package = os.path.dirname(os.path.abspath(lintel.__file__))
    files = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
    return sorted(f for f in files if isinstance(f, str) and f.startswith(package))


@contextlib.contextmanager
def _only_one(folder: str) -> Iterator[int | None]:
    """Hold the identity's lock for as long as this warm lintel runs (its descriptor, None when another holds
    it): a second one started at the same time sees it taken and leaves."""
    fd = os.open(os.path.join(folder, f"warm-{identity(os.environ)}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield None
            return
        yield fd
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _listen(path: str) -> tuple[socket.socket, int]:
    """Bind under a private name, then move it into place: a client never reaches a half-made socket. Returns
    the socket and its file's inode (whether the path is still ours when we stop)."""
    staging = f"{path}.{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(staging)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(staging)
    os.chmod(staging, 0o600)
    listener.listen(64)
    os.replace(staging, path)
    return listener, os.stat(path).st_ino


def run(idle: float | None = None) -> int:
    """Run a warm lintel until it stops; 0 also when another one already runs."""
    env = os.environ
    if "" in sys.path:
        sys.path.remove("")  # `-c` put the folder it started in first: nothing is imported from there
    folder = run_folder(env)
    if not private_folder(folder, create=True):
        print(f"lintel: {folder} is not a private folder of this user: no warm lintel", file=sys.stderr)
        return 1
    with _only_one(folder) as lock:
        if lock is None:
            return 0
        preload()
        stamp = _stamp()
        path = socket_path(env)
        listener, inode = _listen(path)
        if threading.active_count() > 1:
            log.warning("threads running after the imports: forking may copy a held lock")
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
        zygote = Zygote(listener, path, idle if idle is not None else _idle(env), stamp, lock)
        try:
            zygote.serve()
        finally:
            with contextlib.suppress(OSError):
                if os.stat(path).st_ino == inode:
                    os.unlink(path)
            listener.close()
    return 0


def _idle(env: os._Environ[str]) -> float:
    try:
        return float(env.get("LINTEL_DAEMON_IDLE", IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS


if __name__ == "__main__":
    sys.exit(run())
