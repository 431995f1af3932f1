"""The process runner against real processes: fault scripts in tests/faults hang, flood, crash,
prompt and leave grandchildren behind; every test checks by PID that nothing outlives a run."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lintel.runtime import process
from lintel.runtime.process import (
    STREAM_CAP_BYTES,
    TIMEOUT_EXIT_CODE,
    TRUNCATED_MARKER,
    ProcessStartError,
    run_process,
    run_shell,
)

REPO = Path(__file__).resolve().parents[2]
FAULTS = REPO / "tests" / "faults"
HANG_TREE = str(FAULTS / "hang_tree.sh")
EXIT_LEAVES_GRANDCHILD = str(FAULTS / "exit_leaves_grandchild.sh")
FLOOD = str(FAULTS / "flood.py")
PROMPT = str(FAULTS / "prompt.sh")
CRASH = str(FAULTS / "crash.sh")

pytestmark = pytest.mark.timeout(30)


# --- helpers: is a process still running? -------------------------------------------------------


def _proc_stat(pid: int) -> list[str] | None:
    """Fields after "(comm)" of /proc/<pid>/stat: [state, ppid, pgrp, ...]; None if gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rfind(")") + 2 :].split()


def is_running(pid: int) -> bool:
    """Alive and not a zombie. Orphans are reparented to PID 1, which in a container may never
    reap them; a zombie has released everything and is not running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    fields = _proc_stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def running_in_group(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _proc_stat(int(entry))
            if fields and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
                members.append(int(entry))
    return members


def assert_all_gone(pids: list[int], pgid: int | None = None, within: float = 1.0) -> None:
    """Every pid (and, with pgid, every member of that group) stops running within `within` s."""
    deadline = time.monotonic() + within
    while True:
        alive = [pid for pid in pids if is_running(pid)]
        if pgid is not None:
            alive += running_in_group(pgid)
        if not alive:
            return
        if time.monotonic() > deadline:
            for pid in alive:  # don't leak them into the rest of the session
                os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"still running: {sorted(set(alive))}")
        time.sleep(0.02)


def tree_pids(text: str) -> dict[str, int]:
    """{"child": pid, "grandchild": pid} from the "<role> <pid>" lines the fault scripts print."""
    pids = {}
    for line in text.splitlines():
        role, _, pid = line.partition(" ")
        if role in ("child", "grandchild") and pid.isdigit():
            pids[role] = int(pid)
    return pids


@pytest.fixture
def spawned() -> Iterator[list[int]]:
    """Pass `on_start=spawned.append`: whatever a failing test leaves of those groups is killed."""
    groups: list[int] = []
    yield groups
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


async def wait_for_file(path: Path, within: float = 5.0) -> str:
    async def appeared() -> None:
        while not path.exists():  # noqa: ASYNC110 - a file another process writes: nothing to wait on but polls
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(appeared(), within)
    except TimeoutError:
        raise AssertionError(f"{path} never appeared") from None
    return path.read_text()


@pytest.fixture
def signals(monkeypatch: pytest.MonkeyPatch) -> list[signal.Signals]:
    """The signals the runner sends to process groups, in order (sent on as well): which way a stop went —
    SIGTERM alone (the group ended on it), or SIGTERM and then SIGKILL (it outlived the grace)."""
    sent: list[signal.Signals] = []
    real = process.signal_group

    def recording(pgid: int, sig: signal.Signals) -> bool:
        delivered = real(pgid, sig)
        if delivered:
            sent.append(sig)
        return delivered

    monkeypatch.setattr(process, "signal_group", recording)
    return sent


@pytest.fixture
def runner_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="lintel.process")
    return caplog


# --- 1. normal runs -----------------------------------------------------------------------------


async def test_exit_code_streams_cwd_env_and_duration(tmp_path: Path) -> None:
    script = (
        "import os, sys, time\n"
        "time.sleep(0.2)\n"
        "print(os.getcwd())\n"
        "print(os.environ.get('LINTEL_PROBE'), os.environ.get('HOME', 'no-home'))\n"
        "print('to stderr', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    started: list[int] = []
    result = await run_process(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"LINTEL_PROBE": "probe-value", "PATH": os.environ["PATH"]},
        on_start=started.append,
    )
    assert result.exit_code == 3
    assert not result.timed_out
    assert result.stdout.splitlines() == [str(tmp_path), "probe-value no-home"]
    assert result.stderr == "to stderr\n"
    assert not result.truncated
    assert result.argv == (sys.executable, "-c", script)
    assert result.cwd == str(tmp_path)
    assert result.duration_ms >= 200  # the script slept 0.2 s: the duration is measured, not made up
    assert started == [result.pid]


async def test_command_line_is_logged_at_debug(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lintel.process")
    await run_process(["printf", "%s", "two words"], cwd=tmp_path)
    assert f"run printf %s 'two words' (cwd={tmp_path}" in caplog.text


async def test_env_none_inherits_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINTEL_INHERITED", "yes")
    result = await run_process(["sh", "-c", 'echo "$LINTEL_INHERITED"'], cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (0, "yes\n")


async def test_small_cap_truncates_without_splitting_a_character(tmp_path: Path) -> None:
    # "é" is two bytes: a cap of 5 bytes cuts the third one in half.
    result = await run_process(["sh", "-c", "printf 'ééééé'; printf 'abcdef' >&2"], cwd=tmp_path, cap_bytes=5)
    assert result.stdout == f"éé\n{TRUNCATED_MARKER}"
    assert result.stderr == f"abcde\n{TRUNCATED_MARKER}"
    assert result.stdout_truncated
    assert result.stderr_truncated
    assert result.truncated


async def test_output_exactly_at_the_cap_is_not_truncated(tmp_path: Path) -> None:
    result = await run_process(["printf", "12345"], cwd=tmp_path, cap_bytes=5)
    assert result.stdout == "12345"
    assert not result.truncated


async def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    result = await run_process(["printf", "a\\377b"], cwd=tmp_path)
    assert result.stdout == "a\ufffdb"


# --- 2. hangs: timeout kills the whole tree -----------------------------------------------------


async def test_timeout_kills_child_and_grandchild(
    tmp_path: Path, spawned: list[int], signals: list[signal.Signals], runner_log: pytest.LogCaptureFixture
) -> None:
    result = await run_process(
        ["sh", HANG_TREE, "plain"], cwd=tmp_path, timeout=1, kill_grace=5, on_start=spawned.append
    )

    assert result.exit_code == TIMEOUT_EXIT_CODE
    assert result.timed_out
    pids = tree_pids(result.stdout)  # output printed before the timeout is kept
    assert set(pids) == {"child", "grandchild"}
    assert pids["child"] == result.pid
    assert_all_gone(list(pids.values()), pgid=result.pid)
    assert f"pid {result.pid} timed out after 1s: killing its process group" in runner_log.text
    # Both die on SIGTERM: the group emptied, so the 5 s grace was not waited out and no SIGKILL followed.
    assert signals == [signal.SIGTERM]


async def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(
    tmp_path: Path, spawned: list[int], signals: list[signal.Signals], runner_log: pytest.LogCaptureFixture
) -> None:
    result = await run_process(
        ["sh", HANG_TREE, "ignore-term"], cwd=tmp_path, timeout=1, kill_grace=0.5, on_start=spawned.append
    )

    assert (result.exit_code, result.timed_out) == (TIMEOUT_EXIT_CODE, True)
    pids = tree_pids(result.stdout)
    assert set(pids) == {"child", "grandchild"}
    assert_all_gone(list(pids.values()), pgid=result.pid)
    # Timeout, then the whole grace (SIGTERM was ignored), then SIGKILL.
    assert f"pid {result.pid} timed out after 1s" in runner_log.text
    assert f"process group {result.pid} survived SIGTERM: SIGKILL" in runner_log.text
    assert signals == [signal.SIGTERM, signal.SIGKILL]


# --- 3. a 200 MB flood keeps memory bounded -----------------------------------------------------

_FLOOD_DRIVER = textwrap.dedent(
    """
    import asyncio, json, resource, sys
    from pathlib import Path
    from lintel.runtime.process import run_process

    flood, cwd = sys.argv[1], Path(sys.argv[2])

    async def run(megabytes):
        return await run_process(
            [sys.executable, flood, str(megabytes), "5"], cwd=cwd, timeout=60
        )

    def maxrss_kib():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux

    asyncio.run(run(8))  # warm-up: imports, buffers, the event loop machinery
    before = maxrss_kib()
    result = asyncio.run(run(200))
    after = maxrss_kib()
    print(json.dumps({
        "growth_kib": after - before,
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "stdout_truncated": result.stdout_truncated,
        "stderr_truncated": result.stderr_truncated,
        "stdout_len": len(result.stdout),
        "stderr_len": len(result.stderr),
        "stdout_tail": result.stdout[-40:],
        "stderr_tail": result.stderr[-40:],
        "duration_ms": result.duration_ms,
    }))
    """
)


@pytest.mark.timeout(90)
def test_200_mb_flood_keeps_memory_bounded(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _FLOOD_DRIVER, FLOOD, str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO / "server")},
        capture_output=True,
        text=True,
        timeout=80,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    print(f"200 MB flood: maxrss growth {report['growth_kib']} KiB in {report['duration_ms']} ms")  # noqa: T201 - the measurement, in the -s log

    assert report["growth_kib"] < 20 * 1024
    assert (report["exit_code"], report["timed_out"]) == (0, False)
    assert report["stdout_truncated"]
    assert report["stderr_truncated"]
    assert report["stdout_tail"].endswith(f"\n{TRUNCATED_MARKER}")
    assert report["stderr_tail"].endswith(f"\n{TRUNCATED_MARKER}")
    marker_len = len(TRUNCATED_MARKER) + 1
    for key in ("stdout_len", "stderr_len"):
        assert STREAM_CAP_BYTES <= report[key] <= STREAM_CAP_BYTES + marker_len


# --- 4, 5. stdin --------------------------------------------------------------------------------


@pytest.fixture
def open_stdin_pipe() -> Iterator[None]:
    """Make our own fd 0 a pipe nobody writes to or closes, as an editor's stdin would be: a child
    that inherited it would block forever, so only an explicit /dev/null lets the tests pass."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)


@pytest.mark.usefixtures("open_stdin_pipe")
async def test_prompting_tool_gets_eof_instead_of_blocking(tmp_path: Path) -> None:
    result = await run_process(["sh", PROMPT], cwd=tmp_path, timeout=3)
    assert not result.timed_out
    assert result.exit_code == 5
    assert result.stdout == "Continue? [y/N] EOF on stdin\n"  # it read EOF: it did not wait out the timeout


@pytest.mark.usefixtures("open_stdin_pipe")
async def test_python_input_gets_eof(tmp_path: Path) -> None:
    result = await run_process([sys.executable, "-c", "input('name? ')"], cwd=tmp_path, timeout=3)
    assert not result.timed_out
    assert result.exit_code == 1
    assert "EOFError" in result.stderr


async def test_stdin_bytes_are_delivered(tmp_path: Path) -> None:
    result = await run_process(["sh", PROMPT], cwd=tmp_path, stdin=b"yes\n", timeout=10)
    assert (result.exit_code, result.stdout) == (0, "Continue? [y/N] answer: yes\n")


async def test_large_stdin_is_delivered_whole_and_closed(tmp_path: Path) -> None:
    # Far more than a pipe buffer: written while stdout is read, then EOF so `wc` finishes.
    payload = bytes(range(256)) * (3 * 1024 * 1024 // 256)
    result = await run_process(["wc", "-c"], cwd=tmp_path, stdin=payload, timeout=10)
    assert (result.exit_code, result.stdout.strip()) == (0, str(len(payload)))


async def test_stdin_the_child_never_reads_is_harmless(tmp_path: Path) -> None:
    result = await run_process(["true"], cwd=tmp_path, stdin=b"x" * (1024 * 1024), timeout=10)
    assert (result.exit_code, result.timed_out) == (0, False)


# --- 6. cancellation ----------------------------------------------------------------------------


# plain dies on SIGTERM long before its 5 s grace (no SIGKILL); ignore-term takes its 1 s grace, then SIGKILL.
@pytest.mark.parametrize(
    ("mode", "grace", "sent"),
    [("plain", 5.0, [signal.SIGTERM]), ("ignore-term", 1.0, [signal.SIGTERM, signal.SIGKILL])],
)
async def test_cancel_kills_the_tree_and_propagates(
    tmp_path: Path,
    spawned: list[int],
    signals: list[signal.Signals],
    mode: str,
    grace: float,
    sent: list[signal.Signals],
) -> None:
    pidfile = tmp_path / "pids"
    task = asyncio.create_task(
        run_process(
            ["sh", HANG_TREE, mode, str(pidfile)],
            cwd=tmp_path,
            kill_grace=grace,
            on_start=spawned.append,
        )
    )
    pids = tree_pids(await wait_for_file(pidfile))
    assert set(pids) == {"child", "grandchild"}
    assert spawned == [pids["child"]]
    assert all(is_running(pid) for pid in pids.values())

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert signals == sent
    assert_all_gone(list(pids.values()), pgid=spawned[0])


def running_with_token(token: str) -> list[int]:
    """Running processes whose environment carries LINTEL_TEST_TOKEN=token (inherited by a whole tree)."""
    needle = f"LINTEL_TEST_TOKEN={token}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0") and is_running(int(entry)):
                found.append(int(entry))
    return found


def assert_none_running_with_token(token: str, within: float = 1.0) -> None:
    deadline = time.monotonic() + within
    while running_with_token(token) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running_with_token(token) == []


@pytest.mark.parametrize("delay", [0, 0.001, 0.003, 0.01, 0.03])
async def test_cancel_while_starting_leaves_nothing_behind(tmp_path: Path, delay: float) -> None:
    # Cancelled before (or while) the process is set up, so on_start may never run: find the tree
    # by an environment token its members inherit.
    token = f"{os.getpid()}-{tmp_path.name}"
    task = asyncio.create_task(
        run_process(
            ["sh", HANG_TREE, "ignore-term"],
            cwd=tmp_path,
            env={**os.environ, "LINTEL_TEST_TOKEN": token},
            kill_grace=0.5,
        )
    )
    await asyncio.sleep(delay)
    task.cancel()
    try:
        done, _ = await asyncio.wait({task}, timeout=5)
        assert task in done, "cancelling a starting run hangs"
        assert task.cancelled()
        assert_none_running_with_token(token)
    finally:
        for pid in running_with_token(token):
            os.kill(pid, signal.SIGKILL)


async def test_failing_on_start_kills_the_process(tmp_path: Path, spawned: list[int]) -> None:
    def on_start(pid: int) -> None:
        spawned.append(pid)
        raise RuntimeError("bookkeeping failed")

    with pytest.raises(RuntimeError, match="bookkeeping failed"):
        await run_process(["sleep", "600"], cwd=tmp_path, kill_grace=1.0, on_start=on_start)
    assert_all_gone(spawned, pgid=spawned[0])


# --- 7. a grandchild holding the pipes after the child exited -----------------------------------


async def test_exited_child_with_grandchild_holding_pipes_returns(
    tmp_path: Path, spawned: list[int], signals: list[signal.Signals], runner_log: pytest.LogCaptureFixture
) -> None:
    result = await run_process(
        ["sh", EXIT_LEAVES_GRANDCHILD], cwd=tmp_path, timeout=20, pipe_close_grace=0.5, on_start=spawned.append
    )

    assert (result.exit_code, result.timed_out) == (3, False)  # the child's own exit code
    pids = tree_pids(result.stdout)
    assert set(pids) == {"child", "grandchild"}
    assert result.stderr == "done\n"
    assert_all_gone(list(pids.values()), pgid=result.pid)
    # Not the 20 s timeout: the grandchild holding the pipes was stopped once the child had exited.
    assert f"pid {result.pid} exited leaving processes in its group that hold its pipes open" in runner_log.text
    assert signals == [signal.SIGTERM]


async def test_leftover_that_closed_its_pipes_is_killed_too(
    tmp_path: Path, spawned: list[int], runner_log: pytest.LogCaptureFixture
) -> None:
    result = await run_process(
        ["sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!"], cwd=tmp_path, timeout=20, on_start=spawned.append
    )
    assert result.exit_code == 0
    assert not result.timed_out
    # The pipes closed at once (no pipe grace to wait out): the leftover is stopped as one that does not hold them.
    assert f"pid {result.pid} exited leaving processes in its group: killing them" in runner_log.text
    assert_all_gone([int(result.stdout)], pgid=result.pid)


# --- 8. crashes and start failures --------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGKILL, signal.SIGTERM])
async def test_killed_by_signal_reports_128_plus_n(tmp_path: Path, sig: signal.Signals) -> None:
    result = await run_process(["sh", CRASH, sig.name.removeprefix("SIG")], cwd=tmp_path)
    assert result.exit_code == 128 + sig.value
    assert not result.timed_out
    assert result.stdout == "about to crash\n"


async def test_missing_binary_raises_start_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ProcessStartError) as caught:
        await run_process(["lintel-no-such-tool"], cwd=tmp_path)
    assert str(caught.value) == "lintel-no-such-tool: not found on PATH"
    assert caught.value.binary == "lintel-no-such-tool"
    assert isinstance(caught.value, OSError)


async def test_missing_binary_by_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "bin" / "tool")
    with pytest.raises(ProcessStartError) as caught:
        await run_process([missing], cwd=tmp_path)
    assert str(caught.value) == f"{missing}: no such file"


async def test_missing_binary_is_looked_up_on_the_given_path(tmp_path: Path) -> None:
    with pytest.raises(ProcessStartError, match=r"^printf: not found on PATH$"):
        await run_process(["printf", "x"], cwd=tmp_path, env={"PATH": str(tmp_path)})


async def test_non_executable_file_raises_start_error(tmp_path: Path) -> None:
    tool = tmp_path / "tool.sh"
    tool.write_text("#!/bin/sh\necho hi\n")
    tool.chmod(0o644)
    with pytest.raises(ProcessStartError, match="permission denied") as caught:
        await run_process([str(tool)], cwd=tmp_path)
    assert str(tool) in str(caught.value)


async def test_nonexistent_cwd_raises_start_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(ProcessStartError, match="does not exist") as caught:
        await run_process(["true"], cwd=missing)
    assert str(missing) in str(caught.value)
    assert str(caught.value).startswith("true: ")


async def test_file_as_cwd_raises_start_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with pytest.raises(ProcessStartError, match="is not a directory"):
        await run_process(["true"], cwd=not_a_dir)


async def test_empty_argv_raises_start_error(tmp_path: Path) -> None:
    with pytest.raises(ProcessStartError, match="empty command line"):
        await run_process([], cwd=tmp_path)


# --- without pidfd (macOS, old Linux kernels): a thread waits for the exit ------------------------


async def test_runs_and_timeouts_without_pidfd(
    tmp_path: Path, spawned: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    result = await run_process(["sh", "-c", "echo out; echo err >&2; exit 7"], cwd=tmp_path)
    assert (result.exit_code, result.stdout, result.stderr) == (7, "out\n", "err\n")

    result = await run_process(
        ["sh", HANG_TREE, "ignore-term"], cwd=tmp_path, timeout=0.5, kill_grace=0.3, on_start=spawned.append
    )
    assert (result.exit_code, result.timed_out) == (TIMEOUT_EXIT_CODE, True)
    assert_all_gone(list(tree_pids(result.stdout).values()), pgid=result.pid)


# --- 9. run_shell -------------------------------------------------------------------------------


async def test_run_shell_pipeline(tmp_path: Path) -> None:
    (tmp_path / "words").write_text("pear\napple\nfig\n")
    result = await run_shell("sort words | head -n 2; echo oops >&2; exit 4", cwd=tmp_path)
    assert (result.exit_code, result.stdout, result.stderr) == (4, "apple\nfig\n", "oops\n")
    assert result.argv == ("/bin/sh", "-c", "sort words | head -n 2; echo oops >&2; exit 4")


async def test_run_shell_timeout_kills_its_pipelines(tmp_path: Path, spawned: list[int]) -> None:
    command = 'sleep 600 & echo "grandchild $!"; echo "child $$"; sleep 600 | cat'
    result = await run_shell(command, cwd=tmp_path, timeout=1, kill_grace=1, on_start=spawned.append)
    assert (result.exit_code, result.timed_out) == (TIMEOUT_EXIT_CODE, True)
    pids = tree_pids(result.stdout)
    assert set(pids) == {"child", "grandchild"}
    # running_in_group covers the unnamed `sleep 600 | cat` as well.
    assert_all_gone(list(pids.values()), pgid=result.pid)


async def test_run_shell_stdin_and_missing_command(tmp_path: Path) -> None:
    result = await run_shell("tr a-z A-Z", cwd=tmp_path, stdin=b"shout\n")
    assert result.stdout == "SHOUT\n"
    result = await run_shell("lintel-no-such-tool --version", cwd=tmp_path)
    assert result.exit_code == 127  # the shell reports it; run_shell itself started fine
    assert "lintel-no-such-tool" in result.stderr


def test_cap_text_keeps_whole_characters_and_says_it_cut() -> None:
    from lintel.runtime.process import TRUNCATED_MARKER, cap_text

    assert cap_text("short\n", 100) == ("short\n", False)
    text, cut = cap_text("é" * 10, 5)  # 2 bytes each: 2 whole characters fit
    assert (text, cut) == (f"éé\n{TRUNCATED_MARKER}", True)


# A test that starts a server in a session of its own (setsid), then waits: the shape of an integration test.
_DETACHES = 'setsid sh -c "echo detached \\$\\$ >> {pidfile}; exec sleep 300" & echo child $$ >> {pidfile}; sleep 300'


def _detached_pid(text: str) -> int | None:
    for line in text.splitlines():
        role, _, pid = line.partition(" ")
        if role == "detached" and pid.isdigit():
            return int(pid)
    return None


async def _wait_detached(pidfile: Path) -> int:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pid = _detached_pid(pidfile.read_text()) if pidfile.exists() else None
        if pid is not None:
            return pid
        await asyncio.sleep(0.02)
    raise AssertionError("the detached process never started")


async def test_cancel_ends_what_the_run_started_in_a_session_of_its_own(tmp_path: Path, spawned: list[int]) -> None:
    """The group kill cannot reach a setsid child; the run's cookie finds it."""
    pidfile = tmp_path / "pids"
    task = asyncio.create_task(
        run_shell(_DETACHES.format(pidfile=pidfile), cwd=tmp_path, kill_grace=0.5, on_start=spawned.append)
    )
    detached = await _wait_detached(pidfile)
    fields = _proc_stat(detached)
    assert fields is not None
    assert fields[2] != str(spawned[0])  # not in the run's group: the group kill alone would miss it
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_all_gone([detached], pgid=spawned[0])


async def test_a_timeout_ends_what_the_run_started_in_a_session_of_its_own(tmp_path: Path, spawned: list[int]) -> None:
    pidfile = tmp_path / "pids"
    result = await run_shell(
        _DETACHES.format(pidfile=pidfile), cwd=tmp_path, timeout=1.5, kill_grace=0.5, on_start=spawned.append
    )
    assert result.timed_out
    detached = _detached_pid(pidfile.read_text())
    assert detached is not None
    assert_all_gone([detached], pgid=spawned[0])
