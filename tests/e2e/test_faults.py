"""Bad input, broken tools, cancellation, shutdown and trust: the server says what is wrong, kills what it started, and
keeps answering."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.conftest import Editor, Start
from tests.helpers import require_tool

INVALID_PARAMS = -32602
REQUEST_CANCELLED = -32800
PRICING = "src/inventory/pricing.py"

# A stand-in type checker that never finishes: it records its pid and the pid of a child it spawned,
# so the test can check that the whole process group is gone.
HANGING_TOOL = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {child.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


async def error_of(editor: Editor, command: str, *arguments: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await editor.execute(command, *arguments, timeout=60)
    return caught.value


# -- processes --------------------------------------------------------------------------------------------


def hanging_typecheck(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """initializationOptions that make python's typecheck hang, and the file its pids will be written to."""
    script = tmp_path / "hang.py"
    script.write_text(HANGING_TOOL, encoding="utf-8")
    pid_file = tmp_path / "pids"
    return {"languages": {"python": {"typecheck": [sys.executable, str(script), str(pid_file)]}}}, pid_file


async def wait_for_pids(pid_file: Path, timeout: float = 60) -> list[int]:
    deadline = time.monotonic() + timeout
    while not pid_file.exists():
        assert time.monotonic() < deadline, "the hanging tool never started"
        await asyncio.sleep(0.05)
    return [int(pid) for pid in pid_file.read_text(encoding="utf-8").split()]


def running(pid: int, *, orphan: bool = False) -> bool:
    """Whether `pid` still runs. A zombie only counts as gone for an orphan (`orphan`): whoever adopted it
    reaps it, not lintel; lintel must reap its own children."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    if orphan:
        try:
            status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
        except FileNotFoundError:
            return False
        return "\nState:\tZ" not in status
    return True


async def assert_gone(tool_pid: int, child_pid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while running(tool_pid) or running(child_pid, orphan=True):
        if time.monotonic() > deadline:
            for pid in (tool_pid, child_pid):  # don't leave them behind for the next test
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)
            raise AssertionError(f"still running after {timeout:g}s: tool {tool_pid}, its child {child_pid}")
        await asyncio.sleep(0.05)


# -- 6: cancellation --------------------------------------------------------------------------------------


async def test_cancel_request_kills_the_tool_and_its_children(start: Start, tmp_path: Path) -> None:
    options, pid_file = hanging_typecheck(tmp_path)
    editor = await start("python", init_options=options)
    msg_id, request = editor.send_command("lintel.typecheck")
    tool_pid, child_pid = await wait_for_pids(pid_file)

    editor.client.cancel_request(types.CancelParams(id=msg_id))

    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(request, 30)
    assert caught.value.code == REQUEST_CANCELLED
    await assert_gone(tool_pid, child_pid)
    await editor.alive()


async def test_progress_cancel_kills_the_tool(start: Start, tmp_path: Path) -> None:
    options, pid_file = hanging_typecheck(tmp_path)
    editor = await start("python", init_options=options)
    token = "e2e-cancel-me"
    editor.client.progress_reports[token] = []  # the client made this token: it knows it
    params = types.ExecuteCommandParams(command="lintel.typecheck", arguments=[], work_done_token=token)
    request = asyncio.ensure_future(editor.client.workspace_execute_command_async(params))
    tool_pid, child_pid = await wait_for_pids(pid_file)
    # pytest-lsp annotates these as ProgressParams; it keeps the structured values (WorkDoneProgressBegin…).
    reports: Sequence[object] = editor.client.progress_reports[token]
    [begin, *_] = reports
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.cancellable

    editor.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(request, 30)
    assert caught.value.code == REQUEST_CANCELLED
    await assert_gone(tool_pid, child_pid)
    await editor.alive()
    # A later command reusing the cancelled token string was cancelled at once.
    require_tool("ruff")
    again = types.ExecuteCommandParams(command="lintel.lint", arguments=[], work_done_token=token)
    result = await asyncio.wait_for(editor.client.workspace_execute_command_async(again), 60)
    assert result is not None
    assert result["check"] == "lint"


# -- 16: shutdown -----------------------------------------------------------------------------------------


async def test_shutdown_stops_a_running_tool(start: Start, tmp_path: Path) -> None:
    options, pid_file = hanging_typecheck(tmp_path)
    editor = await start("python", init_options=options)
    _, request = editor.send_command("lintel.typecheck")
    tool_pid, child_pid = await wait_for_pids(pid_file)

    await asyncio.wait_for(editor.client.shutdown_async(None), 30)
    editor.client.exit(None)
    server = editor.client._server
    assert server is not None
    assert await asyncio.wait_for(server.wait(), 30) == 0

    await assert_gone(tool_pid, child_pid)
    request.cancel()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
async def test_a_stop_signal_stops_running_tools_as_exit_does(start: Start, tmp_path: Path, sig: int) -> None:
    """SIGTERM stops the tools the server ran (and their children) before it ends, as `exit` does."""
    options, pid_file = hanging_typecheck(tmp_path)
    editor = await start("python", init_options=options)
    _, request = editor.send_command("lintel.typecheck")
    tool_pid, child_pid = await wait_for_pids(pid_file)
    server = editor.client._server
    assert server is not None

    server.send_signal(sig)

    await asyncio.wait_for(server.wait(), 30)
    await assert_gone(tool_pid, child_pid)
    request.cancel()


# A tool that leaves the process group lintel started it in: its child calls setsid, as daemons do.
DETACHING_TOOL = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
detached = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {child.pid} {detached.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""

# A navigation server that records its pid, then becomes the silent server.
RECORDING_SERVER = """\
import os, sys
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
os.execv(sys.executable, [sys.executable, sys.argv[2]])
"""


async def assert_all_gone(pids: Sequence[int], timeout: float = 10) -> None:
    """Every pid ended (a zombie counts as gone: after lintel's death whoever adopted it reaps it)."""
    deadline = time.monotonic() + timeout
    while alive := [pid for pid in pids if running(pid, orphan=True)]:
        if time.monotonic() > deadline:
            for pid in alive:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"still running {timeout:g}s after lintel was killed: {alive} of {list(pids)}")
        await asyncio.sleep(0.05)


async def test_sigkill_of_the_server_leaves_no_process_behind(start: Start, tmp_path: Path) -> None:
    """After a SIGKILL of lintel no process it started may keep running (`go test` was one that did).
    Its tool, the tool's child, a grandchild that left the group (setsid) and its language server are all ended."""
    tool = tmp_path / "detach.py"
    tool.write_text(DETACHING_TOOL, encoding="utf-8")
    tool_pids = tmp_path / "tool-pids"
    wrapper = tmp_path / "server.py"
    wrapper.write_text(RECORDING_SERVER, encoding="utf-8")
    server_pid_file = tmp_path / "server-pid"
    silent = Path(__file__).with_name("silent_language_server.py")
    python = {
        "typecheck": [sys.executable, str(tool), str(tool_pids)],
        "server": [sys.executable, str(wrapper), str(server_pid_file), str(silent)],
    }
    editor = await start("python", init_options={"languages": {"python": python}})
    editor.open(PRICING)
    _, request = editor.send_command("lintel.typecheck")
    started = [*await wait_for_pids(tool_pids), *await wait_for_pids(server_pid_file)]
    assert len(started) == 4
    server = editor.client._server
    assert server is not None

    server.kill()

    await asyncio.wait_for(server.wait(), 30)
    await assert_all_gone(started)
    request.cancel()


async def test_restart_servers_starts_the_language_server_again(start: Start, tmp_path: Path) -> None:
    """`lintel.restartServers` — the language servers restarted on request (a given-up one too)."""
    wrapper = tmp_path / "server.py"
    wrapper.write_text(RECORDING_SERVER, encoding="utf-8")
    pid_file = tmp_path / "server-pid"
    silent = Path(__file__).with_name("silent_language_server.py")
    python = {"server": [sys.executable, str(wrapper), str(pid_file), str(silent)]}
    editor = await start("python", init_options={"languages": {"python": python}})
    offered = editor.result.capabilities.execute_command_provider
    assert offered is not None
    assert "lintel.restartServers" in offered.commands
    editor.open(PRICING)
    [first] = await wait_for_pids(pid_file)
    pid_file.unlink()

    result = await editor.execute("lintel.restartServers", {"language": "Python"}, timeout=60)

    [entry] = result["restarted"]
    assert entry["language"] == "python"
    assert entry["running"] is True
    [second] = await wait_for_pids(pid_file)
    assert second != first
    await assert_all_gone([first])
    assert await editor.execute("lintel.restartServers", {"language": "go"}) == {"restarted": []}
    await editor.alive()


async def test_sigkill_of_lintel_check_leaves_no_process_behind(tmp_path: Path) -> None:
    """The same for `lintel check`: its tools outlive neither a finished nor a killed check."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n', encoding="utf-8")
    (project / "m.py").write_text("x = 1\n", encoding="utf-8")
    tool = tmp_path / "detach.py"
    tool.write_text(DETACHING_TOOL, encoding="utf-8")
    pid_file = tmp_path / "pids"
    (project / "lintel.toml").write_text(
        f"[languages.python]\ntypecheck = {[sys.executable, str(tool), str(pid_file)]!r}\n".replace("'", '"'),
        encoding="utf-8",
    )
    check = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "lintel", "check", str(project), "--only", "typecheck",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    started = await wait_for_pids(pid_file)
    assert len(started) == 3

    check.kill()

    await check.wait()
    await assert_all_gone(started)


# -- 8: bad input -----------------------------------------------------------------------------------------


async def test_unknown_command_and_bad_arguments_are_invalid_params(start: Start) -> None:
    editor = await start("python")
    offered = editor.result.capabilities.execute_command_provider
    assert offered is not None
    assert "lintel.runTests" in offered.commands

    unknown = await error_of(editor, "lintel.doesNotExist")
    assert unknown.code == INVALID_PARAMS
    assert "lintel.doesNotExist" in unknown.message
    # lintel's own commands are all named (Neovim is also told of the default servers', which their servers run).
    own = [command for command in offered.commands if command.startswith("lintel.")]
    assert own
    assert all(command in unknown.message for command in own), unknown.message
    await editor.alive()

    for arguments, named in [(({"timeout": "soon"},), "timeout"), ((1, 2), "object"), (({"bogus": 1},), "bogus")]:
        error = await error_of(editor, "lintel.lint", *arguments)
        assert error.code == INVALID_PARAMS, (arguments, error)
        assert named in error.message, (arguments, error.message)
        await editor.alive()


async def test_paths_outside_the_workspace_are_refused(start: Start, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text('[project]\nname = "outside"\nversion = "0"\n', encoding="utf-8")
    editor = await start("python")
    (editor.root / "escape").symlink_to(outside, target_is_directory=True)

    for path in (str(outside), "escape", "escape/pyproject.toml", "../outside"):
        error = await error_of(editor, "lintel.lint", {"path": path})
        assert error.code == INVALID_PARAMS, (path, error)
        assert "outside the workspace" in error.message, (path, error.message)
        await editor.alive()
    inside = await editor.execute("lintel.detect", {"path": "src"})  # the control: a path inside is fine
    assert inside["root"] == str((editor.root / "src").resolve())


async def test_a_path_the_file_system_cannot_take_is_an_invalid_argument(start: Start) -> None:
    """A 5,000-character path used to be answered with -32603 (an internal error) "File name too long"."""
    editor = await start("python")
    for path in ("a" * 5000, "src/" + "b" * 300 + "/x.py"):
        error = await error_of(editor, "lintel.lint", {"path": path})
        assert error.code == INVALID_PARAMS, error
        assert "File name too long" in error.message, error.message
        assert len(error.message) < 400  # the argument is shortened in the message
    await editor.alive()


async def test_polyglot_workspace_needs_a_language(start: Start) -> None:
    editor = await start("polyglot")

    ambiguous = await error_of(editor, "lintel.lint")
    assert ambiguous.message == "polyglot workspace: 2 project types detected (go, node) — pass `language` to pick one"
    missing = await error_of(editor, "lintel.typecheck", {"language": " Rust "})
    assert missing.message == 'language "rust" not detected in workspace; detected: go, node'
    await editor.alive()


BROKEN_LINTERS: dict[str, tuple[dict[str, Any], str]] = {
    "missing-binary": (
        {"languages": {"python": {"lint": ["lintel-e2e-no-such-linter", "check"]}}},
        "lintel-e2e-no-such-linter: not found",
    ),
    "garbage-output": (
        {"languages": {"python": {"lint": [sys.executable, "-c", "print('<<not json>>'); raise SystemExit(1)"]}}},
        "<<not json>>",
    ),
    "hangs": (
        {
            "languages": {"python": {"lint": [sys.executable, "-c", "import time; time.sleep(600)"]}},
            "timeouts": {"lint": 1},
        },
        "timed out after 1s",
    ),
}


async def wait_for_logs(editor: Editor, contains: str, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(contains in m.message for m in editor.client.log_messages) < count:
        assert time.monotonic() < deadline, f"fewer than {count} log messages with {contains!r}"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("case", list(BROKEN_LINTERS))
async def test_a_broken_linter_is_reported_once_and_keeps_the_old_diagnostics(start: Start, case: str) -> None:
    require_tool("ruff")
    settings, says = BROKEN_LINTERS[case]
    editor = await start("python", init_options={"editor": {"formatCheck": False}})
    uri = editor.open(PRICING)
    before = await editor.wait_for_diagnostics(uri, lambda ds: bool(ds))
    text = editor.path(PRICING).read_text(encoding="utf-8")

    await editor.reconfigure(settings)
    editor.close(uri)
    editor.open(PRICING)
    shown = await editor.wait_for_message(says)

    assert editor.diagnostics(uri) == before  # a run that did not happen is not "clean"
    editor.save(uri, text)
    await wait_for_logs(editor, says, count=2)  # the run on save failed the same way...
    assert [m for m in editor.messages if says in m] == [shown]  # ...and was not shown again
    assert editor.diagnostics(uri) == before
    await editor.alive()


async def test_invalid_configuration_is_shown_and_the_default_used(start: Start) -> None:
    require_tool("ruff")
    editor = await start("python", init_options={"timeouts": {"lint": "soon"}})
    shown = await editor.wait_for_message("timeouts.lint")
    assert "default" in shown

    uri = editor.open(PRICING)
    published = await editor.wait_for_diagnostics(uri, lambda ds: bool(ds))
    assert {d.code for d in published} == {"F841", "E711"}
    assert [m for m in editor.messages if "timeouts.lint" in m] == [shown]


# -- 9: trust ---------------------------------------------------------------------------------------------

MARKER_TOOL = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('ran')"


async def test_untrusted_workspace_runs_nothing(start: Start, tmp_path: Path) -> None:
    marker = tmp_path / "a-tool-ran"
    tool = [sys.executable, "-c", MARKER_TOOL, str(marker)]
    editor = await start(
        "python",
        init_options={
            "trusted": False,
            "languages": {"python": {"lint": tool, "typecheck": tool, "test": tool, "server": tool}},
        },
    )
    uri = editor.open(PRICING)
    text = editor.path(PRICING).read_text(encoding="utf-8")
    editor.save(uri, text)

    for command in ("lintel.lint", "lintel.typecheck", "lintel.runTests"):
        error = await error_of(editor, command)
        assert "not trusted" in error.message, error.message
    formatted = await editor.client.text_document_formatting_async(
        types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert not formatted
    await asyncio.sleep(2)  # time for a (wrongly) scheduled lint of the open and the save to show up

    assert not marker.exists(), "a tool ran in an untrusted workspace"
    assert editor.client.published == []
    trust_messages = [m for m in editor.messages if "not trusted" in m]
    assert len(trust_messages) == 1, editor.messages
    await editor.alive()  # detection runs no process: it still answers


async def test_trust_withheld_in_nested_settings_runs_nothing(start: Start, tmp_path: Path) -> None:
    """`{"settings": {"trusted": false}}` (VS Code's python-tools template nests its options so) was
    trusted, and ran the configured lint command."""
    marker = tmp_path / "a-tool-ran"
    tool = [sys.executable, "-c", MARKER_TOOL, str(marker)]
    editor = await start(
        "python", init_options={"settings": {"trusted": False, "languages": {"python": {"lint": tool}}}}
    )
    uri = editor.open(PRICING)
    editor.save(uri, editor.path(PRICING).read_text(encoding="utf-8"))
    error = await error_of(editor, "lintel.lint")
    assert "not trusted" in error.message, error.message
    await editor.alive()
    assert not marker.exists(), "a tool ran although trust was withheld"


@pytest.mark.parametrize("value", ["false", 0, None, {"trusted": True}])
async def test_a_trusted_value_that_is_not_a_boolean_grants_nothing_and_says_so(
    start: Start, tmp_path: Path, value: object
) -> None:
    """Only a literal `false` used to withhold trust; `"false"`, 0, null or an object granted it."""
    marker = tmp_path / "a-tool-ran"
    tool = [sys.executable, "-c", MARKER_TOOL, str(marker)]
    editor = await start("python", init_options={"trusted": value, "languages": {"python": {"lint": tool}}})
    error = await error_of(editor, "lintel.lint")
    assert "not trusted" in error.message, error.message
    assert not marker.exists(), "a tool ran although trust was not granted"
    told = [m for m in editor.messages if "initializationOptions.trusted must be true or false" in m]
    assert len(told) == 1, editor.messages
