"""The one async process runner (docs/architecture.md, Processes): argv lists, own process group, timeout and cancel
kill the whole group, stdout/stderr capped while they are read, a typed result."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import errno
import logging
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypedDict

from lintel.runtime import orphans

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's from Python 3.11

logger = logging.getLogger("lintel.process")

STREAM_CAP_BYTES = 500 * 1024
TRUNCATED_MARKER = "[TRUNCATED]"
# What a check's parser may read of a stream: findings must be complete however many there are (a large project's ruff
# findings run to tens of MB of JSON), while the text kept and shown (`output`) is capped at STREAM_CAP_BYTES.
PARSE_CAP_BYTES = 64 * 1024 * 1024


def cap_text(text: str, cap: int = STREAM_CAP_BYTES) -> tuple[str, bool]:
    """The first `cap` bytes of `text` (whole characters) with a `[TRUNCATED]` line, and whether it was cut."""
    if len(text) * 4 <= cap or len(text.encode("utf-8")) <= cap:
        return text, False
    head = text.encode("utf-8")[:cap].decode("utf-8", errors="ignore")
    separator = "" if head.endswith("\n") else "\n"
    return f"{head}{separator}{TRUNCATED_MARKER}", True


TIMEOUT_EXIT_CODE = 124

SHELL = "/bin/sh"

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to a process group

# Once the main child has exited, how long its pipes may stay open before we decide that leftover
# processes (a backgrounded grandchild, a daemon that never closed stdout) are holding them. Output
# a well-behaved tool still has in flight drains in milliseconds; a second is generous for that
# and still short enough that the editor never waits on a stray `sleep 600 &`.
PIPE_CLOSE_GRACE = 1.0
# After SIGKILL a process is gone within milliseconds unless it is stuck in the kernel (D state);
# bound the wait so a stuck child cannot hang us (a thread then reaps it whenever it does exit).
_REAP_WAIT = 1.0
_POLL_INTERVAL = 0.02
_READ_SIZE = 256 * 1024
_WRITE_SIZE = 64 * 1024


class ProcessStartError(OSError):
    """The process could not be started (missing or non-executable binary, bad cwd).

    `binary` is argv[0]; `str()` is a message for people, e.g. ``ruff: not found on PATH``.
    """

    def __init__(self, binary: str, reason: str, *, code: int = 0) -> None:
        super().__init__(code, f"{binary}: {reason}" if binary else reason)
        self.binary = binary
        self.reason = reason

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True)
class ProcessResult:
    """What a finished (or timed-out) process left behind.

    A truncated stream keeps its first `cap_bytes` bytes and ends with a line `[TRUNCATED]`.
    `exit_code` is the child's; 128+N when signal N killed it; 124 when our timeout did.
    """

    argv: tuple[str, ...]
    cwd: str
    exit_code: int
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    duration_ms: int
    pid: int

    @property
    def truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated


class _CappedBuffer:
    """Keeps the first `cap` bytes of a stream and counts (then drops) the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = max(cap, 0)
        self.data = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room >= len(chunk):
            self.data += chunk
            return
        if room > 0:
            self.data += memoryview(chunk)[:room]
        self.dropped += len(chunk) - max(room, 0)

    @property
    def truncated(self) -> bool:
        return self.dropped > 0

    def text(self) -> str:
        if not self.truncated:
            return self.data.decode("utf-8", errors="replace")
        # The cap may fall inside a multibyte character: a non-final incremental decode leaves the
        # partial tail out instead of turning it into U+FFFD.
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        head = decoder.decode(bytes(self.data), final=False)
        separator = "" if not head or head.endswith("\n") else "\n"
        return f"{head}{separator}{TRUNCATED_MARKER}"


class ExitWatch:
    """A started process's end, noticed without any await: through a pidfd (Linux) or else a thread blocked in
    waitpid. `exited` is set once the process is reaped, its Popen's returncode then set."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.loop = asyncio.get_running_loop()
        self.exited = asyncio.Event()
        self._pidfd: int | None = None
        try:
            self._pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # not Linux >= 5.3
            threading.Thread(target=self._wait_in_thread, name=f"lintel-wait-{proc.pid}", daemon=True).start()
        else:
            self.loop.add_reader(self._pidfd, self._on_pidfd_readable)

    @property
    def returncode(self) -> int | None:
        """Popen's: negative for a signal; None until reaped."""
        return self.proc.returncode if self.exited.is_set() else None

    def _on_pidfd_readable(self) -> None:
        self._close_pidfd()
        self.proc.wait()  # readable means exited: this reaps without blocking
        self.exited.set()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            self.loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _wait_in_thread(self) -> None:
        self.proc.wait()
        with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
            self.loop.call_soon_threadsafe(self.exited.set)

    def close(self) -> None:
        """No longer watched from the loop: a process not reaped yet is reaped by a thread when it ends."""
        if not self.exited.is_set() and self._pidfd is not None:
            self._close_pidfd()
            threading.Thread(target=self.proc.wait, name=f"lintel-reap-{self.proc.pid}", daemon=True).start()


class _Child:
    """A started process, watched without any await: its pipes are read into capped buffers when
    the loop reports them readable (concurrently, and with no backpressure to manage since all past
    the cap is dropped at once), stdin is fed when writable, and its exit is noticed through a
    pidfd (Linux) or else a thread blocked in waitpid. Exit and pipe closure are separate events:
    a grandchild can keep the pipes open long after the child has exited.

    asyncio's own subprocess transport is not used because a cancellation that lands while it is
    still connecting pipes kills only the child and then waits, possibly forever, for pipes a
    grandchild holds (CPython 3.11); with no await between spawn and supervision, every
    cancellation reaches code that stops the whole group.
    """

    def __init__(self, proc: subprocess.Popen[bytes], cap: int, stdin: bytes | None) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.loop = asyncio.get_running_loop()
        self.pipes_closed = asyncio.Event()
        assert proc.stdout is not None
        assert proc.stderr is not None
        self.stdout = _CappedBuffer(cap)
        self.stderr = _CappedBuffer(cap)
        self._readers: dict[int, tuple[IO[bytes], _CappedBuffer]] = {
            proc.stdout.fileno(): (proc.stdout, self.stdout),
            proc.stderr.fileno(): (proc.stderr, self.stderr),
        }
        self._stdin_data = memoryview(stdin or b"")
        for fd in self._readers:
            os.set_blocking(fd, False)
            self.loop.add_reader(fd, self._on_readable, fd)
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            self.loop.add_writer(proc.stdin.fileno(), self._on_writable)
        self._exit = ExitWatch(proc)
        self.exited = self._exit.exited

    def _on_readable(self, fd: int) -> None:
        try:
            chunk = os.read(fd, _READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if chunk:
            self._readers[fd][1].feed(chunk)
        else:
            self._close_reader(fd)

    def _close_reader(self, fd: int) -> None:
        stream, _ = self._readers.pop(fd)
        self.loop.remove_reader(fd)
        stream.close()
        if not self._readers:
            self.pipes_closed.set()

    def _on_writable(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            written = os.write(stdin.fileno(), self._stdin_data[:_WRITE_SIZE])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # the child exited or closed stdin without reading it all: not an error
            written = len(self._stdin_data)
        self._stdin_data = self._stdin_data[written:]
        if not self._stdin_data:
            self._close_stdin()

    def _close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.loop.remove_writer(self.proc.stdin.fileno())
            self.proc.stdin.close()  # EOF for the child

    def close(self) -> None:
        """Stop reading (a process outside the group may still hold the pipes) and make sure the
        child is reaped even if it has not exited yet."""
        for fd in list(self._readers):
            self._close_reader(fd)
        self._close_stdin()
        self._exit.close()

    @property
    def exit_code(self) -> int | None:
        """The child's exit status; 128+N when signal N killed it (shell convention)."""
        returncode = self.proc.returncode
        if returncode is None or not self.exited.is_set():
            return None
        return 128 - returncode if returncode < 0 else returncode


class RunOptions(TypedDict, total=False):
    """The optional keywords of run_process and run_shell, declared once."""

    env: Mapping[str, str] | None  # None (the default): lintel's own environment
    timeout: float | None  # seconds; None (the default): no limit
    stdin: bytes | None  # None (the default): /dev/null
    cap_bytes: int  # kept of each stream; default STREAM_CAP_BYTES
    kill_grace: float  # SIGTERM to SIGKILL; default KILL_GRACE
    on_start: Callable[[int], None] | None  # called with the pid right after spawn
    pipe_close_grace: float  # default PIPE_CLOSE_GRACE


@dataclass(frozen=True)
class _Limits:
    """How much a run may take and how it is stopped: RunOptions with the defaults filled in."""

    timeout: float | None = None
    cap_bytes: int = STREAM_CAP_BYTES
    kill_grace: float = KILL_GRACE
    pipe_close_grace: float = PIPE_CLOSE_GRACE

    @classmethod
    def of(cls, options: RunOptions) -> _Limits:
        default = cls()
        return cls(
            timeout=options.get("timeout", default.timeout),
            cap_bytes=options.get("cap_bytes", default.cap_bytes),
            kill_grace=options.get("kill_grace", default.kill_grace),
            pipe_close_grace=options.get("pipe_close_grace", default.pipe_close_grace),
        )


async def run_process(argv: Sequence[str], *, cwd: Path, **options: Unpack[RunOptions]) -> ProcessResult:
    """Run `argv` (never through a shell) in `cwd` and capture its output.

    The child leads a new session, so on timeout, on cancellation, and for anything it leaves
    behind in its group after exiting, the whole group gets SIGTERM and, `kill_grace` seconds later
    if something survived, SIGKILL. `env=None` inherits lintel's environment. `stdin=None` gives the
    child /dev/null, so a tool that prompts reads EOF instead of waiting forever. `on_start(pid)`
    runs right after spawn. Cancelling the awaiting task kills the group and re-raises.
    Raises ProcessStartError when the process cannot be started.
    """
    command = tuple(argv)
    if not command:
        raise ProcessStartError("", "empty command line")
    _check_cwd(command[0], cwd)
    limits = _Limits.of(options)
    stdin = options.get("stdin")
    logger.debug("run %s (cwd=%s, timeout=%s)", shlex.join(command), cwd, limits.timeout)
    started = time.monotonic()
    cookie = orphans.run_cookie()
    proc = _spawn(command, cwd=cwd, env=orphans.with_cookie(options.get("env"), cookie), with_stdin=stdin is not None)
    child, timed_out = await _attend(proc, stdin, options.get("on_start"), limits, cookie)
    return _result(command, cwd, child, timed_out, started)


async def run_shell(command: str, *, cwd: Path, **options: Unpack[RunOptions]) -> ProcessResult:
    """Run a user-configured shell command (validators) via `/bin/sh -c`, same guarantees as
    run_process: the shell and every process of its pipelines share one group."""
    return await run_process([SHELL, "-c", command], cwd=cwd, **options)


async def _attend(
    proc: subprocess.Popen[bytes],
    stdin: bytes | None,
    on_start: Callable[[int], None] | None,
    limits: _Limits,
    cookie: str,
) -> tuple[_Child, bool]:
    """Read the started process's output until it and its group are done; True with it when the timeout
    killed it. Whatever goes wrong on the way, a cancellation included, stops the whole group first, and
    then whatever the run started that left the group (setsid: a test's server), found by the run's cookie."""
    pid = proc.pid
    child: _Child | None = None
    try:
        child = _Child(proc, limits.cap_bytes, stdin)
        if on_start is not None:
            on_start(pid)
        timed_out = await _supervise(child, limits)
        if timed_out:
            await sweep_run(cookie, limits.kill_grace)
        return child, timed_out
    except BaseException:
        # Cancelled (or on_start failed): nothing of this run may outlive it.
        logger.debug("stopping pid %d early", pid)
        await stop_group(pid, limits.kill_grace)
        if child is not None:
            await _wait_flag(child.exited, _REAP_WAIT)
        await sweep_run(cookie, limits.kill_grace)
        raise
    finally:
        if child is not None:
            child.close()
        else:  # _Child itself failed: release the pipes, reap the child we killed
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            threading.Thread(target=proc.wait, name=f"lintel-reap-{pid}", daemon=True).start()


def _result(command: tuple[str, ...], cwd: Path, child: _Child, timed_out: bool, started: float) -> ProcessResult:
    """The finished run as a ProcessResult (logged at debug)."""
    child_exit = child.exit_code
    if timed_out:
        exit_code = TIMEOUT_EXIT_CODE
    elif child_exit is None:  # pragma: no cover - _supervise returns only after the exit
        exit_code = 128 + signal.SIGKILL
    else:
        exit_code = child_exit
    out, err = child.stdout, child.stderr
    result = ProcessResult(
        argv=command,
        cwd=str(cwd),
        exit_code=exit_code,
        timed_out=timed_out,
        stdout=out.text(),
        stderr=err.text(),
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        duration_ms=round((time.monotonic() - started) * 1000),
        pid=child.pid,
    )
    logger.debug(
        "%s (pid %d) exit %d%s in %d ms, %d+%d bytes dropped",
        command[0],
        child.pid,
        exit_code,
        " (timed out)" if timed_out else "",
        result.duration_ms,
        out.dropped,
        err.dropped,
    )
    return result


def _spawn(
    command: tuple[str, ...], *, cwd: Path, env: Mapping[str, str] | None, with_stdin: bool
) -> subprocess.Popen[bytes]:
    """Fork and exec the child as the leader of a new session (so of a new process group).

    Synchronous on purpose: it takes about a millisecond (asyncio's subprocess_exec does the same
    inside), and it leaves no await at which a cancellation could separate a started process from
    the code that stops it.
    """
    try:
        return subprocess.Popen(
            command,
            stdin=subprocess.PIPE if with_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        raise _start_error(command[0], cwd, exc) from exc


async def _supervise(child: _Child, limits: _Limits) -> bool:
    """Wait for the child and its output; True when the timeout killed it."""
    pgid = child.pid
    if not await _wait_flag(child.exited, limits.timeout):
        logger.info("pid %d timed out after %ss: killing its process group", pgid, limits.timeout)
        await stop_group(pgid, limits.kill_grace)
        await _wait_flag(child.exited, _REAP_WAIT)
        await _wait_flag(child.pipes_closed, limits.pipe_close_grace)
        return True

    # The child is gone, but anything it started in its group is ours too: a backgrounded
    # grandchild that inherited stdout would keep the pipes open (and us waiting) forever, and
    # one that closed them would be an orphan. Give in-flight output a moment, then kill leftovers.
    pipes_closed = await _wait_flag(child.pipes_closed, limits.pipe_close_grace)
    if _group_alive(pgid):
        logger.debug(
            "pid %d exited leaving processes in its group%s: killing them",
            pgid,
            "" if pipes_closed else " that hold its pipes open",
        )
        await stop_group(pgid, limits.kill_grace)
    if not pipes_closed and not await _wait_flag(child.pipes_closed, limits.pipe_close_grace):
        # Only a process that left the group (setsid) can still hold them; stop reading.
        logger.debug("pid %d: output pipes still open after the group was killed", pgid)
    return False


async def sweep_run(cookie: str, grace: float) -> None:
    """End the processes of a cancelled or timed-out run that its group kill cannot reach (they left the group
    with setsid), by the run's cookie: in a thread, since it reads /proc and waits out the grace (shielded: a
    second cancel does not stop the sweep)."""
    try:
        ended = await asyncio.shield(asyncio.to_thread(orphans.sweep, cookie, grace))
    except OSError as exc:
        logger.warning("could not sweep the processes of a stopped run: %r", exc)
        return
    if ended:
        logger.info("stopped %d process(es) a cancelled or timed-out run had started outside its group", ended)


async def _wait_flag(event: asyncio.Event, timeout: float | None) -> bool:
    """Wait for `event` at most `timeout` seconds (None: no limit); whether it is set."""
    if timeout is None:
        await event.wait()
        return True
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(event.wait(), max(timeout, 0.0))
    return event.is_set()


async def stop_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, SIGKILL whatever is still alive `grace` seconds later.

    Returns as soon as the group is empty; a second cancellation while waiting goes straight to
    SIGKILL, so stopping never takes longer than the grace.
    """
    if not signal_group(pgid, signal.SIGTERM):
        return
    try:
        deadline = time.monotonic() + grace
        # Polling: nothing signals that a whole process group has emptied.
        while time.monotonic() < deadline:
            if not _group_alive(pgid):
                return
            await asyncio.sleep(_POLL_INTERVAL)
    finally:
        if _group_alive(pgid):
            logger.debug("process group %d survived SIGTERM: SIGKILL", pgid)
            signal_group(pgid, signal.SIGKILL)


def signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send `sig` to the group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its credentials (setuid); nothing we can do
        logger.warning("not allowed to signal process group %d", pgid)
        return False
    return True


def _group_alive(pgid: int) -> bool:
    """Whether any process of group `pgid` is still running.

    Zombies do not count: an orphaned grandchild is reparented to init, which may be slow to (or,
    in some containers, never) reap it, and it holds no resources any more. Linux tells them apart
    through /proc; elsewhere any member, zombie or not, counts.
    """
    members = _live_group_members(pgid)
    if members is not None:
        return bool(members)
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _live_group_members(pgid: int) -> list[int] | None:
    """PIDs of the non-zombie processes in group `pgid`, or None without a Linux /proc."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []  # the cheap, common answer: no member at all
    except PermissionError:
        pass
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    wanted = str(pgid).encode()
    members = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat_file:
                stat = stat_file.read()
        except OSError:
            continue  # exited while we looked
        # "pid (comm) state ppid pgrp ...": comm may itself contain spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[2] == wanted and fields[0] not in (b"Z", b"X"):
            members.append(int(entry))
    return members


def _check_cwd(binary: str, cwd: Path) -> None:
    if not cwd.exists():
        raise ProcessStartError(binary, f"working directory {cwd} does not exist", code=errno.ENOENT)
    if not cwd.is_dir():
        raise ProcessStartError(binary, f"working directory {cwd} is not a directory", code=errno.ENOTDIR)


def _start_error(binary: str, cwd: Path, exc: OSError) -> ProcessStartError:
    code = exc.errno or 0
    if exc.filename is not None and os.fsdecode(exc.filename) == os.fsdecode(cwd):
        reason = f"cannot use working directory {cwd}: {exc.strerror}"
    elif code == errno.ENOENT:
        reason = "no such file" if os.sep in binary else "not found on PATH"
    elif code == errno.EACCES:
        reason = "permission denied (is it executable?)"
    elif code == errno.ENOEXEC:
        reason = "not an executable this system can run (exec format error)"
    else:
        reason = f"could not start: {exc.strerror or exc}"
    return ProcessStartError(binary, reason, code=code)
