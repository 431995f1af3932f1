"""The child client against a tiny fake language server (faults only: crashes, floods, stubborn exits,
helpers that outlive their parent). The real servers are exercised in tests/e2e/test_navigation.py."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.relay.client import ChildClient, ChildFailed, ChildSpec, ChildState
from lintel.runtime.child_process import telling_line
from lsprotocol import types

from tests.unit.fake_lsp import FRAMING

# A stdlib-only LSP server. argv[1:] are behaviours: flood (2 MB on stderr before answering), helper (starts a
# grandchild that keeps the pipes open), stubborn (ignores exit), utf8 (accepts UTF-8 positions), refuse (answers
# initialize with an error), garbled (answers initialize with what is no InitializeResult).
FAKE_SERVER = (
    r"""
import json, os, subprocess, sys, time
modes = set(sys.argv[1:])
out = sys.stdout.buffer
"""
    + FRAMING
    + r"""
if "flood" in modes:
    sys.stderr.write(("x" * 1023 + "\n") * 2048)
    sys.stderr.flush()
if "helper" in modes:
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    sys.stderr.write(f"helper {helper.pid}\n")
    sys.stderr.flush()
while True:
    message = read()
    method, msg_id = message.get("method"), message.get("id")
    if method == "initialize" and "refuse" in modes:
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32603, "message": "no workspace here"}})
    elif method == "initialize" and "garbled" in modes:
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"capabilities": 5}})
    elif method == "initialize":
        offered = message["params"]["capabilities"].get("general", {}).get("positionEncodings", [])
        capabilities = {"hoverProvider": True, "definitionProvider": True, "textDocumentSync": 2}
        if "utf8" in modes and "utf-8" in offered:
            capabilities["positionEncoding"] = "utf-8"
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"capabilities": capabilities}})
    elif method == "initialized":
        send({"jsonrpc": "2.0", "id": "ask-1", "method": "workspace/configuration",
              "params": {"items": [{"section": "fake"}]}})
    elif method == "textDocument/hover":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {
            "contents": {"kind": "markdown", "value": "fake"}, "x-unknown": {"kept": [1, 2]}}})
    elif method == "textDocument/definition":
        pass  # never answered: a request in flight
    elif method == "$/cancelRequest":
        sys.stderr.write(f"cancelled {message['params']['id']}\n")
        sys.stderr.flush()
    elif method == "textDocument/didOpen":
        uri = message["params"]["textDocument"]["uri"]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
            "uri": uri, "diagnostics": [{"range": {"start": {"line": 0, "character": 1},
                                                   "end": {"line": 0, "character": 2}}, "message": "m"}]}})
    elif msg_id is not None and "result" in message:
        sys.stderr.write(f"answer {json.dumps(message['result'])}\n")
        sys.stderr.flush()
    elif method == "shutdown":
        sys.stderr.write(f"shutdown with params: {'params' in message}\n")
        sys.stderr.flush()
        send({"jsonrpc": "2.0", "id": msg_id, "result": None})
    elif method == "exit" and "stubborn" not in modes:
        sys.exit(0)
"""
)


class Host:
    def __init__(self) -> None:
        self.published: list[dict[str, Any]] = []
        self.asked: list[types.ConfigurationParams] = []
        self.questions: list[types.ShowMessageRequestParams] = []
        self.refreshes: list[str] = []

    async def configuration(self, child: ChildClient, params: types.ConfigurationParams) -> list[Any]:
        self.asked.append(params)
        return [{"answered": True}]

    async def apply_edit(self, child: ChildClient, params: dict[str, Any]) -> Any:
        return None

    def create_progress(self, child: ChildClient, token: str | int) -> None:
        return None

    def progress(self, child: ChildClient, params: dict[str, Any]) -> None:
        return None

    def diagnostics(self, child: ChildClient, params: dict[str, Any]) -> None:
        self.published.append(params)

    def show_message(self, child: ChildClient, params: types.ShowMessageParams) -> None:
        return None

    async def show_document(self, child: ChildClient, params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        return types.ShowDocumentResult(success=False)

    def log_message(self, child: ChildClient, params: types.LogMessageParams) -> None:
        return None

    async def ask_user(self, child: ChildClient, params: types.ShowMessageRequestParams) -> Any:
        self.questions.append(params)
        return params.actions[0] if params.actions else None

    async def refresh(self, child: ChildClient, method: str) -> None:
        self.refreshes.append(method)


def make_child(
    tmp_path: Path, *modes: str, encoding: str = "utf-16", grace: float = 1.0, load_signal: Any = None
) -> tuple[ChildClient, Host]:
    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    capabilities = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind(encoding)])
    )
    spec = ChildSpec(
        language="python",
        root=tmp_path,
        argv=(sys.executable, str(script), *modes),
        name="fake-server",
        encoding=encoding,  # type: ignore[arg-type]
        capabilities=capabilities,
        stop_grace=grace,
        start_timeout=20,
        load_signal=load_signal,
    )
    host = Host()
    return ChildClient(spec, host), host


def hover_params(tmp_path: Path) -> types.HoverParams:
    return types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=(tmp_path / "a.py").as_uri()),
        position=types.Position(line=0, character=0),
    )


def definition_params(tmp_path: Path) -> types.DefinitionParams:
    return types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=(tmp_path / "a.py").as_uri()),
        position=types.Position(line=0, character=0),
    )


def alive(pid: int) -> bool:
    try:
        state = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("State"))
    except (OSError, StopIteration):
        return False
    return "Z" not in state.split()[1]


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    async def held() -> None:
        while not predicate():  # noqa: ASYNC110 - a child process's state: nothing to wait on but polls
            await asyncio.sleep(0.02)

    try:
        await asyncio.wait_for(held(), timeout)
    except TimeoutError:
        raise AssertionError("condition never held") from None


async def in_flight(child: ChildClient, method: str, params: Any) -> asyncio.Future[Any]:
    """A request the fake never answers, written to the child (its batch flushed) before this returns."""
    pending = asyncio.ensure_future(child.request(method, params))
    for _ in range(3):
        await asyncio.sleep(0)
    assert not pending.done()
    return pending


def failed_state_first(child: ChildClient, pending: asyncio.Future[Any]) -> list[ChildState]:
    """The child's state each time `pending` completes: FAILED when the crash was noticed before the request
    failed (by the end watch, not by a stop or a timeout)."""
    seen: list[ChildState] = []
    pending.add_done_callback(lambda _: seen.append(child.state))
    return seen


async def test_starts_relays_raw_results_and_answers_the_childs_requests(tmp_path: Path) -> None:
    child, host = make_child(tmp_path)
    await child.start()
    try:
        assert child.state is ChildState.RUNNING
        assert child.encoding == "utf-16"  # the fake did not take UTF-8: the default
        result = await child.request(types.TEXT_DOCUMENT_HOVER, hover_params(tmp_path))
        # The JSON as the child sent it, field lsprotocol does not know included.
        assert result == {"contents": {"kind": "markdown", "value": "fake"}, "x-unknown": {"kept": [1, 2]}}
        await wait_for(lambda: "answer" in child.stderr_tail())
        assert host.asked[0].items[0].section == "fake"
        assert 'answer [{"answered": true}]' in child.stderr_tail()
        child.notify(
            types.TEXT_DOCUMENT_DID_OPEN,
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri="file:///x.py", language_id="python", version=1, text="ab")
            ),
        )
        await wait_for(lambda: bool(host.published))
        assert host.published[0]["diagnostics"][0]["range"]["start"] == {"line": 0, "character": 1}  # raw JSON
    finally:
        await child.stop()


async def test_takes_the_encoding_the_child_answers(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path, "utf8", encoding="utf-8")
    await child.start()
    try:
        assert child.encoding == "utf-8"
    finally:
        await child.stop()


async def test_crash_mid_request_fails_it_at_once(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path)
    await child.start()
    try:
        pending = await in_flight(child, types.TEXT_DOCUMENT_DEFINITION, definition_params(tmp_path))
        seen = failed_state_first(child, pending)
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        with pytest.raises(ChildFailed) as failure:
            await asyncio.wait_for(pending, 10)  # only a guard against a hang: the request never times out
        assert seen == [ChildState.FAILED]  # failed by the crash being noticed, nothing else
        assert "fake-server was killed by SIGKILL" in failure.value.message
        assert child.state is ChildState.FAILED
        assert child.failed_at is not None
        with pytest.raises(ChildFailed):
            await child.request(types.TEXT_DOCUMENT_HOVER, hover_params(tmp_path))
    finally:
        await child.stop()


async def test_crash_is_noticed_though_a_helper_keeps_the_pipes_open_and_the_helper_dies_too(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path, "helper")
    await child.start()
    try:
        await wait_for(lambda: "helper" in child.stderr_tail())
        helper = int(child.stderr_tail().split("helper ")[1].split()[0])
        assert alive(helper)
        pending = await in_flight(child, types.TEXT_DOCUMENT_DEFINITION, definition_params(tmp_path))
        seen = failed_state_first(child, pending)
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        with pytest.raises(ChildFailed) as failure:
            await asyncio.wait_for(pending, 10)  # only a guard against a hang
        # Noticed by the child's end, though the helper still holds the pipes (their end never comes).
        assert seen == [ChildState.FAILED]
        assert "fake-server was killed by SIGKILL" in failure.value.message
        await wait_for(lambda: not alive(helper), timeout=5)
    finally:
        await child.stop()


async def test_a_flood_on_stderr_does_not_block_the_child(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path, "flood")
    await asyncio.wait_for(child.start(), 20)
    try:
        assert await child.request(types.TEXT_DOCUMENT_HOVER, hover_params(tmp_path))
        assert child.stderr_tail().splitlines()[-1].startswith("xxxx")
    finally:
        await child.stop()


async def test_cancelling_a_request_cancels_it_in_the_child(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path)
    await child.start()
    try:
        pending = await in_flight(child, types.TEXT_DOCUMENT_DEFINITION, definition_params(tmp_path))
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending
        await wait_for(lambda: "cancelled lintel-" in child.stderr_tail())
        assert await child.request(types.TEXT_DOCUMENT_HOVER, hover_params(tmp_path))  # still serving
    finally:
        await child.stop()


async def test_stop_sends_shutdown_and_exit(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path)
    await child.start()
    pid = child.pid
    assert pid is not None
    connection = child.connection
    assert connection is not None
    await child.stop()
    assert connection.process.returncode == 0  # it left on `exit` by itself: no signal ended it
    assert child.state is ChildState.STOPPED
    assert not alive(pid)


async def test_shutdown_is_a_request_without_params(tmp_path: Path) -> None:
    """JSON-RPC allows no `"params": null`; a strict server would refuse the shutdown and have to be killed."""
    child, _ = make_child(tmp_path)
    await child.start()
    await child.stop()
    assert "shutdown with params: False" in child.stderr_tail()


@pytest.mark.parametrize(
    ("mode", "told"),
    [
        ("refuse", "fake-server failed to initialize: no workspace here"),
        ("garbled", "fake-server failed to initialize: its answer cannot be read"),
    ],
)
async def test_an_initialize_answer_that_is_no_result_fails_the_start_at_once(
    tmp_path: Path, mode: str, told: str
) -> None:
    child, _ = make_child(tmp_path, mode)
    with pytest.raises(ChildFailed) as failure:
        await child.start()
    assert failure.value.message.startswith(told)
    assert "did not answer initialize" not in failure.value.message  # the answer failed it, not the 20 s timeout
    assert child.state is ChildState.FAILED
    pid = child.pid
    assert pid is not None
    await child.stop()
    await wait_for(lambda: not alive(pid))


async def test_stop_kills_a_child_that_ignores_exit_and_its_helpers(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path, "stubborn", "helper", grace=0.3)
    await child.start()
    await wait_for(lambda: "helper" in child.stderr_tail())
    helper = int(child.stderr_tail().split("helper ")[1].split()[0])
    pid = child.pid
    assert pid is not None
    pending = await in_flight(child, types.TEXT_DOCUMENT_DEFINITION, definition_params(tmp_path))
    connection = child.connection
    assert connection is not None
    await asyncio.wait_for(child.stop(), 5)
    assert connection.process.returncode == -signal.SIGTERM  # it ignored `exit`: ended by the stop's signal
    with pytest.raises(ChildFailed):
        await pending
    await wait_for(lambda: not alive(pid) and not alive(helper), timeout=5)


async def test_a_missing_binary_fails_the_start(tmp_path: Path) -> None:
    spec = ChildSpec(language="go", root=tmp_path, argv=(str(tmp_path / "no-such-gopls"),), name="gopls")
    child = ChildClient(spec, Host())
    with pytest.raises(ChildFailed) as failure:
        await child.start()
    assert "gopls cannot run" in failure.value.message
    assert child.state is ChildState.FAILED


async def test_a_child_that_exits_during_initialize_fails_the_start_with_its_last_words(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nsys.stderr.write(\"error: Unknown binary 'fake' in toolchain\\n\")\nsys.exit(1)\n")
    spec = ChildSpec(language="rust", root=tmp_path, argv=(sys.executable, str(script)), name="rust-analyzer")
    child = ChildClient(spec, Host())
    with pytest.raises(ChildFailed) as failure:
        await asyncio.wait_for(child.start(), 10)
    assert "rust-analyzer exited with code 1: error: Unknown binary 'fake' in toolchain" in failure.value.message


def open_document(child: ChildClient) -> None:
    child.notify(
        types.TEXT_DOCUMENT_DID_OPEN,
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri="file:///x.py", language_id="python", version=1, text="ab")
        ),
    )


async def test_a_child_with_a_load_signal_is_loading_until_its_first_diagnostics(tmp_path: Path) -> None:
    child, host = make_child(tmp_path, load_signal="diagnostics")
    await child.start()
    try:
        # bool(): a bare `child.loading` would stay narrowed to True for mypy across the awaits that change it.
        assert bool(child.loading)
        assert not await child.wait_loaded(0.05)
        open_document(child)  # the fake publishes diagnostics for every document opened
        assert await child.wait_loaded(10)
        assert not child.loading
        assert host.published  # the diagnostics were relayed as well
    finally:
        await child.stop()


async def test_a_child_without_a_load_signal_has_loaded_once_it_runs(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path)
    assert child.loading  # not started
    await child.start()
    try:
        assert not child.loading
    finally:
        await child.stop()


async def test_waiting_for_a_load_ends_when_the_child_stops_or_dies(tmp_path: Path) -> None:
    child, _ = make_child(tmp_path, load_signal="diagnostics")
    await child.start()
    waiting = asyncio.ensure_future(child.wait_loaded(30))
    await asyncio.sleep(0.05)
    await child.stop()
    assert await asyncio.wait_for(waiting, 5)  # released: the request behind it fails as "stopped"

    await child.start()  # a restart loads again
    try:
        assert child.loading
        waiting = asyncio.ensure_future(child.wait_loaded(30))
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        assert await asyncio.wait_for(waiting, 5)
        assert child.state is ChildState.FAILED
    finally:
        await child.stop()


# What failed children really printed last (rustup 1.28's proxy with RUST_BACKTRACE=1, CPython 3.11, node 20,
# go 1.26): the failure message quotes the line that says what went wrong.
RUSTUP_PROXY = """error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.

Stack backtrace:
   0: anyhow::kind::Adhoc::new
   1: anyhow::__private::format_err.3718
  12: main
  13: __libc_start_call_main
             at ./csu/../sysdeps/nptl/libc_start_call_main.h:58:16
  14: __libc_start_main_impl
             at ./csu/../csu/libc-start.c:360:3
  15: <unknown>
"""
PYTHON_TRACEBACK = """Traceback (most recent call last):
  File "/usr/bin/pylsp", line 5, in <module>
    from pylsp.__main__ import main
ModuleNotFoundError: No module named 'pylsp'
"""
NODE_ERROR = """node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/opt/tsls/lib/cli.mjs'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
"""
GO_PANIC = """panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]

goroutine 1 [running]:
main.main()
\t/src/gopls/main.go:12 +0x1c
"""


@pytest.mark.parametrize(
    ("stderr", "told"),
    [
        (
            RUSTUP_PROXY,
            "error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.",
        ),
        (PYTHON_TRACEBACK, "ModuleNotFoundError: No module named 'pylsp'"),
        (NODE_ERROR, "Error: Cannot find module '/opt/tsls/lib/cli.mjs'"),
        (GO_PANIC, "panic: runtime error: invalid memory address or nil pointer dereference"),
        ("starting\nlistening on stdio\n  3: <unknown>\n", "listening on stdio"),
        ("", ""),
    ],
)
def test_the_failure_quotes_the_line_that_says_what_went_wrong(stderr: str, told: str) -> None:
    assert telling_line(stderr) == told


async def test_a_child_that_dies_at_start_with_a_backtrace_is_named_by_its_error(tmp_path: Path) -> None:
    script = tmp_path / "proxy.py"
    script.write_text(f"import sys\nsys.stderr.write({RUSTUP_PROXY!r})\nsys.exit(1)\n")
    spec = ChildSpec(language="rust", root=tmp_path, argv=(sys.executable, str(script)), name="rust-analyzer")
    child = ChildClient(spec, Host())
    with pytest.raises(ChildFailed) as failure:
        await asyncio.wait_for(child.start(), 10)
    assert failure.value.message == (
        "rust-analyzer exited with code 1: error: Unknown binary 'rust-analyzer' in official toolchain "
        "'stable-x86_64-unknown-linux-gnu'."
    )


async def test_a_stopped_child_is_freed(tmp_path: Path) -> None:
    """bench/soak.py: with a child server killed every 30 s lintel's RSS grew steadily — pygls's
    `functools.lru_cache` on LanguageServerProtocol.get_message_type/get_result_type is shared by every instance
    and keys on `self`, so it held each dead child's protocol, and through it the ChildClient, its converter and
    the code cattrs generated for it."""
    child, _ = make_child(tmp_path)
    await child.start()
    await child.request(types.TEXT_DOCUMENT_HOVER, hover_params(tmp_path))
    child.notify(
        types.TEXT_DOCUMENT_DID_OPEN,
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri="file:///x.py", language_id="python", version=1, text="ab")
        ),
    )
    await child.stop()
    gone = weakref.ref(child)
    connection = weakref.ref(child.connection)
    del child
    gc.collect()
    assert (gone(), connection()) == (None, None)
