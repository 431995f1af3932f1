"""Navigation through the real language servers behind lintel (CONTRACT §6): definition across files,
references, rename, hover for Python (basedpyright), TypeScript, Go and Rust; one connection for a polyglot
workspace; positions on lines with é and 🍰 under VS Code's (UTF-16) and Neovim's (UTF-8 first) capabilities;
a child killed mid-request; no child left after exit."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import struct
import termios
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lintel.languages.go.tools import INSTALL_GOPLS
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.nav_support import (
    CLIENTS,
    QUIET,
    REQUEST_TIMEOUT,
    Nav,
    NavClient,
    alive,
    descendants,
    end_session,
    hover_text,
    require_rust_analyzer,
    start_session,
    target,
    text_at,
    uris_relative,
)
from tests.helpers import require_tool

Start = Callable[..., Awaitable[Nav]]


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest_asyncio.fixture
async def session(tmp_path: Path) -> AsyncIterator[Start]:
    """`await session(client_name, "go", init_options=...)`: lintel serving copies of the workspaces."""
    clients = []

    async def start(client_name: str, *workspaces: str, init_options: dict[str, Any] | None = None) -> Nav:
        client, nav = await start_session(tmp_path, client_name, *workspaces, init_options=init_options)
        clients.append(client)
        return nav

    yield start
    for client in clients:
        await end_session(client)


def _require_pyright() -> None:
    # The diagnostics' source below is basedpyright's; pyright-langserver would serve navigation as well.
    require_tool("basedpyright-langserver", "pip install basedpyright (a dev dependency of lintel)")


def _child_pids(nav: Nav, name: str) -> list[int]:
    """The server's children (not their helpers) whose program is `name`."""
    tree = descendants(nav.server_pid)
    return [
        pid for pid, cmd in tree.items() if Path(cmd.split(" ", 1)[0]).name == name and _parent(pid) == nav.server_pid
    ]


def _parent(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    return 0


def _names(nav: Nav, locations: list[Any]) -> dict[str, str]:
    """relative file -> the text the location's range covers, for every location."""
    named: dict[str, str] = {}
    for location in locations:
        uri, span = target(location)
        [relative] = uris_relative(nav.roots, [uri])
        named[relative] = text_at(Path(uri.removeprefix("file://")), span, nav.encoding)
    return named


def _edited(nav: Nav, edits: dict[str, list[types.TextEdit]]) -> dict[str, set[str]]:
    """relative file -> the texts the edits replace."""
    return {
        next(iter(uris_relative(nav.roots, [uri]))): {
            text_at(Path(uri.removeprefix("file://")), e.range, nav.encoding) for e in file_edits
        }
        for uri, file_edits in edits.items()
    }


# -- per language -------------------------------------------------------------------------------------------


async def test_python_through_basedpyright(session: Start, client_name: str) -> None:
    _require_pyright()
    nav = await session(client_name, "python")

    [definition] = await nav.definition("tests/test_models.py", "restock(item, 2)", "restock")
    assert _names(nav, [definition]) == {"src/inventory/models.py": "restock"}

    # é and 🍰 before the name: 1+2 UTF-16 units, 2+4 UTF-8 bytes, 1+1 code points.
    [definition] = await nav.definition("src/inventory/labels.py", "é 🍰", "total_value")
    assert _names(nav, [definition]) == {"src/inventory/models.py": "total_value"}

    references = await nav.references("src/inventory/models.py", "def total_value", "total_value")
    named = _names(nav, references)
    assert named["src/inventory/labels.py"] == "total_value", named  # the column after é 🍰, converted back
    assert {"src/inventory/__init__.py", "tests/test_models.py", "src/inventory/models.py"} <= set(named)

    hover = await nav.hover("src/inventory/labels.py", "é 🍰", "total_value")
    assert "total_value" in hover_text(hover)
    assert "float" in hover_text(hover)
    if hover.range is not None:
        assert text_at(nav.path("src/inventory/labels.py"), hover.range, nav.encoding) == "total_value"

    edits = await nav.rename("src/inventory/models.py", "def total_value", "total_value", "stock_value")
    edited = _edited(nav, edits)
    assert set(edited) >= {"src/inventory/models.py", "src/inventory/__init__.py", "tests/test_models.py"}
    assert edited["src/inventory/labels.py"] == {"total_value"}
    assert all(texts == {"total_value"} for texts in edited.values()), edited

    # basedpyright's own findings join lintel's diagnostics (positions converted too: "café" precedes "5").
    pricing = nav.open("src/inventory/pricing.py")
    await _published(
        nav,
        lambda: any(d.source == "basedpyright" for d in nav.client.diagnostics.get(pricing, ())),
        "basedpyright's diagnostics",
    )
    found = {
        text_at(nav.path("src/inventory/pricing.py"), d.range, nav.encoding)
        for d in nav.client.diagnostics[pricing]
        if d.range.start.line == 12
    }
    assert '"5"' in found, found


async def test_the_projects_own_pyright_serves_navigation_before_lintels_basedpyright(
    session: Start, client_name: str
) -> None:
    """A project whose venv ships pyright gets its own server, not the basedpyright of lintel's environment (on
    PATH). The project's `pyright-langserver` here is the real basedpyright-langserver under pyright's name (the
    same server, a pyright fork): which binary lintel started is the question."""
    _require_pyright()
    nav = await session(client_name, "python")
    own = nav.path(".venv/bin/pyright-langserver")
    own.parent.mkdir(parents=True)
    own.symlink_to(require_tool("basedpyright-langserver"))
    [definition] = await nav.definition("tests/test_models.py", "restock(item, 2)", "restock")
    assert _names(nav, [definition]) == {"src/inventory/models.py": "restock"}
    started = [cmd for pid, cmd in descendants(nav.server_pid).items() if _parent(pid) == nav.server_pid]
    assert any(str(own) in cmd for cmd in started), started
    assert not any("basedpyright-langserver" in cmd for cmd in started), started


HINTED = "def unused_parameter(count: int) -> int:\n    return missing_name\n    print('never')\n"


async def _basedpyright_diagnostics(nav: Nav, relative: str) -> list[types.Diagnostic]:
    """basedpyright's diagnostics of the file once its error (the undefined name) is published."""
    nav.path(relative).write_text(HINTED, encoding="utf-8")
    uri = nav.open(relative)
    await _published(
        nav,
        lambda: any(d.severity == types.DiagnosticSeverity.Error for d in _from_basedpyright(nav, uri)),
        "basedpyright's error",
    )
    return _from_basedpyright(nav, uri)


def _from_basedpyright(nav: Nav, uri: str) -> list[types.Diagnostic]:
    return [d for d in nav.client.diagnostics.get(uri, ()) if d.source == "basedpyright"]


@pytest.mark.parametrize("forward_hints", [False, True])
async def test_server_hints_are_forwarded_only_when_asked(
    session: Start, client_name: str, forward_hints: bool
) -> None:
    """pyright's standard mode (the python-pyright fixture) says `"count" is not accessed` and `Code is
    unreachable` as Hints tagged Unnecessary, which crowd diagnostic lists: left out by default, forwarded with
    `editor.forwardServerHints` (editors grey the code out)."""
    _require_pyright()
    options = {**QUIET, "editor": {**QUIET["editor"], "forwardServerHints": forward_hints}}
    nav = await session(client_name, "python-pyright", init_options=options)
    found = await _basedpyright_diagnostics(nav, "shapes/hinted.py")
    hints = [d for d in found if d.severity == types.DiagnosticSeverity.Hint]
    if forward_hints:
        assert {d.message for d in hints} >= {'"count" is not accessed', "Code is unreachable"}, found
        assert all(types.DiagnosticTag.Unnecessary in (d.tags or ()) for d in hints), hints
    else:
        assert hints == [], found


async def test_references_asked_with_the_first_document_wait_for_basedpyright_to_load_the_workspace(
    session: Start, client_name: str
) -> None:
    """basedpyright lists a workspace's files on a timer that every document event pushes back by 250 ms; until
    it has, references and rename see only the open files and what they import. Asked in the same breath as
    the first didOpen (what an editor does when it restores a session on a cold machine), the answer would
    lack the re-export in `__init__.py` and `labels.py`, which nothing open imports: lintel holds cross-file
    requests until the child's first diagnostics say it has loaded the workspace."""
    _require_pyright()
    nav = await session(client_name, "python")
    references = await nav.references("src/inventory/models.py", "def total_value", "total_value")
    named = _names(nav, references)
    assert set(named) == {
        "src/inventory/__init__.py",
        "src/inventory/labels.py",
        "src/inventory/models.py",
        "tests/test_models.py",
    }, named
    assert set(named.values()) == {"total_value"}


async def test_typescript_through_typescript_language_server(session: Start, client_name: str) -> None:
    require_tool("typescript-language-server", "npm install -g typescript-language-server typescript")
    nav = await session(client_name, "node")

    [definition] = await nav.definition("src/labels.ts", "é 🍰", "describe", into="src/api.ts")
    assert _names(nav, [definition]) == {"src/api.ts": "describe"}

    [definition] = await nav.definition("src/labels.ts", "shelfLabel(user: User)", "User", into="src/api.ts")
    assert _names(nav, [definition]) == {"src/api.ts": "User"}

    references = await nav.references("src/api.ts", "export function describe", "describe")
    assert _names(nav, references) == {"src/api.ts": "describe", "src/labels.ts": "describe"}
    covered = {text_at(Path(target(r)[0].removeprefix("file://")), target(r)[1], nav.encoding) for r in references}
    assert covered == {"describe"}  # the import, the call after é 🍰 and the declaration

    hover = await nav.hover("src/labels.ts", "é 🍰", "describe")
    assert "describe(user: User): string" in hover_text(hover)
    if hover.range is not None:
        assert text_at(nav.path("src/labels.ts"), hover.range, nav.encoding) == "describe"

    edits = await nav.rename("src/api.ts", "export function describe", "describe", "describeUser")
    assert _edited(nav, edits) == {"src/api.ts": {"describe"}, "src/labels.ts": {"describe"}}

    # Completion after é 🍰, and the item resolved by the child that made it.
    position = nav.at("src/labels.ts", "é 🍰", "describe")
    position.character += 3  # `des|cribe`
    document = nav.doc("src/labels.ts")
    completion = await nav.until(
        lambda: nav.client.text_document_completion_async(
            types.CompletionParams(text_document=document, position=position)
        ),
        bool,
    )
    items = completion.items if isinstance(completion, types.CompletionList) else completion
    [item] = [i for i in items or () if i.label == "describe"]
    resolved = await asyncio.wait_for(nav.client.completion_item_resolve_async(item), REQUEST_TIMEOUT)
    assert "describe(user: User): string" in (resolved.detail or ""), resolved  # filled in by resolve

    position = nav.at("src/labels.ts", "é 🍰", "user);")
    help_ = await nav.until(
        lambda: nav.client.text_document_signature_help_async(
            types.SignatureHelpParams(text_document=document, position=position)
        ),
        bool,
    )
    assert help_ is not None
    assert help_.signatures[0].label == "describe(user: User): string"


async def test_go_through_gopls(session: Start, client_name: str) -> None:
    require_tool("gopls", INSTALL_GOPLS)
    nav = await session(client_name, "go")

    [definition] = await nav.definition("greet_test.go", 'Greeting("Ana")', "Greeting")
    assert _names(nav, [definition]) == {"greet.go": "Greeting"}

    [definition] = await nav.definition("label.go", "é 🍰", "Greeting")
    assert _names(nav, [definition]) == {"greet.go": "Greeting"}

    references = await nav.references("greet.go", "func Greeting", "Greeting")
    assert _names(nav, references) == {"greet.go": "Greeting", "greet_test.go": "Greeting", "label.go": "Greeting"}

    hover = await nav.hover("label.go", "é 🍰", "Greeting")
    assert "func Greeting(name string) string" in hover_text(hover)
    if hover.range is not None:
        assert text_at(nav.path("label.go"), hover.range, nav.encoding) == "Greeting"

    edits = await nav.rename("label.go", "é 🍰", "Greeting", "Salutation")
    assert _edited(nav, edits) == {"greet.go": {"Greeting"}, "greet_test.go": {"Greeting"}, "label.go": {"Greeting"}}

    # gopls's progress ("Setting up workspace"…) reaches the editor under a token lintel created for it.
    def relayed() -> list[Any]:
        return [r for token, r in nav.client.progress_reports.items() if str(token).startswith("lintel/go:")]

    def ended() -> bool:
        return any(isinstance(r[-1], types.WorkDoneProgressEnd) for r in relayed())

    await _notified(nav, types.PROGRESS, ended, f"a relayed progress ended: {nav.client.progress_reports}")
    assert ended(), nav.client.progress_reports


async def test_rust_through_rust_analyzer(session: Start, client_name: str) -> None:
    require_rust_analyzer()
    nav = await session(client_name, "rust")

    [definition] = await nav.definition("src/main.rs", "let total = add(", "add")
    assert _names(nav, [definition]) == {"src/lib.rs": "add"}

    # "é" precedes `p.y` on this line of shapes.rs.
    [definition] = await nav.definition("src/shapes.rs", 'let accent = "é"', "y)")
    assert _names(nav, [definition]) == {"src/shapes.rs": "y"}

    references = await nav.references("src/lib.rs", "pub fn add", "add")
    assert {"src/lib.rs", "src/main.rs", "tests/integration.rs"} <= set(_names(nav, references))

    hover = await nav.hover("src/main.rs", "let total = add(", "add")
    assert "pub fn add(a: i32, b: i32) -> i32" in hover_text(hover)

    edits = await nav.rename("src/lib.rs", "pub fn add", "add", "sum")
    assert {"src/lib.rs", "src/main.rs", "tests/integration.rs"} <= set(_edited(nav, edits))


# -- one connection, two servers ----------------------------------------------------------------------------


async def test_polyglot_answers_go_and_typescript_over_one_connection(session: Start, client_name: str) -> None:
    require_tool("gopls", INSTALL_GOPLS)
    require_tool("typescript-language-server", "npm install -g typescript-language-server typescript")
    nav = await session(client_name, "polyglot")
    # Advertised in the initialize answer, before any child runs.
    capabilities = nav.result.capabilities
    assert capabilities.definition_provider
    assert capabilities.references_provider
    assert capabilities.hover_provider
    assert capabilities.rename_provider == types.RenameOptions(prepare_provider=True)
    assert capabilities.completion_provider is not None
    assert capabilities.completion_provider.resolve_provider
    assert {".", '"', "/"} <= set(capabilities.completion_provider.trigger_characters or ())
    assert capabilities.signature_help_provider is not None
    # The union of the default servers' (rust-analyzer and typescript-language-server add "<" for generics,
    # basedpyright ")" for the enclosing call after a nested one); each child is asked only for its own.
    assert list(capabilities.signature_help_provider.trigger_characters or ()) == ["(", ",", "<", ")"]
    assert capabilities.workspace_symbol_provider

    hover = await nav.hover("server_test.go", "got := Port()", "Port")
    assert "func Port() int" in hover_text(hover)
    [definition] = await nav.definition("server_test.go", "got := Port()", "Port")
    assert _names(nav, [definition]) == {"server.go": "Port"}

    [definition] = await nav.definition("ui/price.ts", "formatPrice(price: Price)", "Price")
    assert _names(nav, [definition]) == {"ui/price.ts": "Price"}
    hover = await nav.hover("ui/price.ts", "formatPrice(price: Price)", "formatPrice")
    assert "formatPrice(price: Price): string" in hover_text(hover)

    symbols = await nav.until(
        lambda: nav.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=nav.doc("server.go"))
        ),
        bool,
    )
    assert {s.name for s in symbols or ()} >= {"Port", "Shutdown"}

    # workspace/symbol goes to both children; their answers arrive merged in one list.
    def from_both(found: Any) -> bool:
        files = uris_relative(nav.roots, [s.location.uri for s in found or ()])
        return {"server.go", "ui/price.ts"} <= files

    merged = await nav.until(
        lambda: nav.client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Pr")), from_both
    )
    assert {"Port", "Price"} <= {s.name for s in merged or ()}


# -- faults -------------------------------------------------------------------------------------------------


async def test_killed_child_fails_its_request_at_once_and_restarts(session: Start) -> None:
    require_tool("gopls", INSTALL_GOPLS)
    nav = await session("visual-studio-code", "go")
    await nav.definition("greet_test.go", 'Greeting("Ana")', "Greeting")
    [gopls] = _child_pids(nav, "gopls")
    params = types.HoverParams(
        text_document=nav.doc("greet.go"), position=nav.at("greet.go", "func Greeting", "Greeting")
    )
    await nav.hover("greet.go", "func Greeting", "Greeting")  # gopls has read everything sent to it so far

    # Frozen first, so the request is surely in flight (forwarded, unanswered) when the kill comes.
    os.kill(gopls, signal.SIGSTOP)
    unread = _unread_input(gopls)
    pending = asyncio.ensure_future(nav.client.text_document_hover_async(params))
    await _until(lambda: _unread_input(gopls) > unread, "the hover forwarded to the frozen gopls")
    assert not pending.done()
    os.kill(gopls, signal.SIGKILL)
    # Failed by the child's exit (its status is in the message), not by a timeout: the wait below only keeps a
    # broken relay from hanging the test.
    with pytest.raises(JsonRpcException) as failure:
        await asyncio.wait_for(pending, REQUEST_TIMEOUT)
    assert "gopls was killed by SIGKILL" in failure.value.message

    # The next request restarts gopls (the open documents replayed) and is answered.
    [definition] = await nav.definition("greet_test.go", 'Greeting("Ana")', "Greeting")
    assert _names(nav, [definition]) == {"greet.go": "Greeting"}
    restarted = _child_pids(nav, "gopls")
    assert restarted
    assert gopls not in restarted
    hover = await nav.hover("greet.go", "func Greeting", "Greeting")
    assert "func Greeting" in hover_text(hover)


async def test_no_child_process_remains_after_shutdown_and_exit(tmp_path: Path) -> None:
    require_tool("gopls", INSTALL_GOPLS)
    require_tool("typescript-language-server", "npm install -g typescript-language-server typescript")
    client, nav = await start_session(tmp_path, "neovim", "polyglot")
    try:
        await nav.hover("server_test.go", "got := Port()", "Port")
        await nav.hover("ui/price.ts", "formatPrice(price: Price)", "formatPrice")
        tree = descendants(nav.server_pid)
        assert any("gopls" in c for c in tree.values())
        assert any("typescript-language-server" in c for c in tree.values())
        assert any("tsserver" in c for c in tree.values()), tree  # a grandchild: typescript-language-server's own
        await asyncio.wait_for(client.shutdown_session(), 30)
        assert client._server is not None
        assert client._server.returncode is not None
        survivors = {pid: cmd for pid, cmd in tree.items() if alive(pid)}
        assert not survivors, f"still running after shutdown/exit: {survivors}"
    finally:
        await end_session(client)


async def test_missing_server_answers_null_and_says_so_once(session: Start, client_name: str) -> None:
    options = {**QUIET, "languages": {"go": {"server": ["gopls-not-installed-here"]}}}
    nav = await session(client_name, "go", init_options=options)
    params = types.HoverParams(
        text_document=nav.doc("greet.go"), position=nav.at("greet.go", "func Greeting", "Greeting")
    )
    for _ in range(3):
        assert await asyncio.wait_for(nav.client.text_document_hover_async(params), 30) is None
    told = [m for m in nav.messages if "gopls-not-installed-here" in m]
    assert len(told) == 1, nav.messages
    assert "not found" in told[0]
    assert INSTALL_GOPLS in told[0]
    # Everything else keeps working.
    assert await nav.client.workspace_execute_command_async(types.ExecuteCommandParams(command="lintel.detect"))


async def test_untrusted_workspace_starts_no_server(session: Start) -> None:
    require_tool("gopls", INSTALL_GOPLS)
    nav = await session("neovim", "go", init_options={**QUIET, "trusted": False})
    params = types.DefinitionParams(
        text_document=nav.doc("greet_test.go"), position=nav.at("greet_test.go", 'Greeting("Ana")', "Greeting")
    )
    assert await asyncio.wait_for(nav.client.text_document_definition_async(params), 30) is None
    await asyncio.sleep(0.5)
    assert not _child_pids(nav, "gopls"), descendants(nav.server_pid)


async def test_server_diagnostics_can_be_switched_off(session: Start) -> None:
    _require_pyright()
    options = {"editor": {**QUIET["editor"], "forwardServerDiagnostics": False}}
    nav = await session("neovim", "python", init_options=options)
    pricing = nav.open("src/inventory/pricing.py")
    # Navigation still works; and by the time it answers, basedpyright has checked the open file.
    await nav.definition("src/inventory/pricing.py", "def discounted(item: Item", "Item")
    await asyncio.sleep(2.0)
    assert not [d for d in nav.client.diagnostics.get(pricing, ()) if d.source == "basedpyright"]


@pytest.mark.parametrize("dedupe", [True, False])
async def test_a_problem_ruff_and_basedpyright_both_report_is_shown_once(session: Start, dedupe: bool) -> None:
    """`import os` unused: ruff's F401 (lintel's lint on open) and basedpyright's reportUnusedImport, same place."""
    _require_pyright()
    require_tool("ruff", "pip install ruff")
    editor = {"lintOnOpen": True, "lintOnSave": False, "formatCheck": False, "dedupeServerDiagnostics": dedupe}
    nav = await session("neovim", "python", init_options={"editor": editor})
    models = nav.open("src/inventory/models.py")

    def by(source: str) -> set[tuple[int, str]]:
        return {(d.range.start.line, str(d.code)) for d in nav.client.diagnostics.get(models, ()) if d.source == source}

    # Both have spoken: ruff's F401, and basedpyright's findings further down the file.
    await _until(lambda: (2, "F401") in by("ruff") and (20, "reportReturnType") in by("basedpyright"), "both spoke")
    assert ((2, "reportUnusedImport") in by("basedpyright")) is not dedupe
    assert (23, "reportCallInDefaultInitializer") in by("basedpyright")  # another problem near B006: kept


def _unread_input(pid: int) -> int:
    """The bytes written to the process's stdin pipe that it has not read (FIONREAD on the pipe, opened anew)."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
    finally:
        os.close(fd)


async def _notified(nav: Nav, method: str, condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition` holds, looked at again on each `method` notification the editor gets (an event,
    not a poll); the timeout only keeps a broken server from hanging the test."""

    async def watch() -> None:
        while not condition():
            await nav.client.wait_for_notification(method)

    try:
        await asyncio.wait_for(watch(), REQUEST_TIMEOUT)
    except asyncio.TimeoutError:
        raise AssertionError(f"never happened: {what}; messages: {nav.messages}") from None


async def _published(nav: Nav, condition: Callable[[], bool], what: str) -> None:
    await _notified(nav, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, condition, what)


async def _until(condition: Callable[[], bool], what: str, timeout: float = REQUEST_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.05)


def _argv(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


async def test_a_changed_server_command_restarts_the_child_and_a_removed_folder_stops_it(session: Start) -> None:
    require_tool("gopls", INSTALL_GOPLS)
    nav = await session("visual-studio-code", "go")
    await nav.definition("greet_test.go", 'Greeting("Ana")', "Greeting")
    [first] = _child_pids(nav, "gopls")
    assert _argv(first)[1:] == []

    # A client pushing settings: the child restarts with the new command, its open documents replayed.
    nav.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lintel": {"languages": {"go": {"server": ["gopls", "serve"]}}}})
    )
    await _until(lambda: not alive(first), "the first gopls has stopped")
    await _until(lambda: bool(_child_pids(nav, "gopls")), "a new gopls runs")
    [second] = _child_pids(nav, "gopls")
    assert _argv(second)[1:] == ["serve"]
    [definition] = await nav.definition("greet_test.go", 'Greeting("Ana")', "Greeting")
    assert _names(nav, [definition]) == {"greet.go": "Greeting"}

    # The same settings again: nothing restarts.
    nav.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lintel": {"languages": {"go": {"server": ["gopls", "serve"]}}}})
    )
    await nav.hover("greet.go", "func Greeting", "Greeting")
    assert _child_pids(nav, "gopls") == [second]

    # The folder leaves the workspace: its child stops, and none starts for its files.
    folder = types.WorkspaceFolder(uri=nav.roots[0].as_uri(), name=nav.roots[0].name)
    nav.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder]))
    )
    await _until(lambda: not alive(second), "gopls has stopped after its folder was removed")
    params = types.HoverParams(
        text_document=nav.doc("greet.go"), position=nav.at("greet.go", "func Greeting", "Greeting")
    )
    assert await asyncio.wait_for(nav.client.text_document_hover_async(params), REQUEST_TIMEOUT) is None
    assert not _child_pids(nav, "gopls"), descendants(nav.server_pid)


async def test_a_language_servers_own_command_is_registered_and_run_through_lintel(session: Start) -> None:
    """typescript-language-server's `_typescript.organizeImports` (the kind of command completion items and
    code actions carry): registered with VS Code, which registers commands dynamically, and run by the child,
    whose workspace/applyEdit reaches the editor in the editor's encoding."""
    require_tool("typescript-language-server", "npm install -g typescript-language-server typescript")
    nav = await session("visual-studio-code", "node")
    extra = nav.path("src/extra.ts")
    extra.write_text(
        'import { shelfLabel } from "./labels.js";\nimport { describe } from "./api.js";\nexport const é = describe;\n'
    )
    await nav.definition("src/extra.ts", "export const é = describe", "describe", into="src/api.ts")
    client = nav.client
    assert isinstance(client, NavClient)  # start_session's client
    registered = {c for r in client.registrations for c in (r.register_options or {}).get("commands", [])}
    assert "_typescript.organizeImports" in registered, client.registrations

    result = await asyncio.wait_for(
        nav.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="_typescript.organizeImports", arguments=[str(extra)])
        ),
        REQUEST_TIMEOUT,
    )
    assert result is None
    [applied] = client.applied_edits
    changes = applied.edit.document_changes or []
    edits = [e for change in changes for e in getattr(change, "edits", [])] or [
        e for file_edits in (applied.edit.changes or {}).values() for e in file_edits
    ]
    lines = extra.read_text().splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = edit.range.start, edit.range.end  # whole ASCII lines here: columns are the same in any unit
        before = "".join(lines[: start.line]) + lines[start.line][: start.character] if start.line < len(lines) else ""
        after = lines[end.line][end.character :] + "".join(lines[end.line + 1 :]) if end.line < len(lines) else ""
        lines = (before + edit.new_text + after).splitlines(keepends=True)
    assert "".join(lines) == 'import { describe } from "./api.js";\nexport const é = describe;\n', edits

    # A command no server offers is still refused with lintel's own message.
    with pytest.raises(JsonRpcException, match=r"unknown command 'nobody\.offers\.this'"):
        await nav.client.workspace_execute_command_async(types.ExecuteCommandParams(command="nobody.offers.this"))


async def test_a_request_right_after_a_change_is_answered_on_the_changed_text(session: Start, client_name: str) -> None:
    """didChange then a request, ten times, written back to back: the child must get them in that order, and
    with Neovim's UTF-8 the request's column is re-counted on the text as it was when the request was sent
    (and the child, which wants whole documents then, gets each version's text, not the newest)."""
    require_tool("gopls", INSTALL_GOPLS)
    nav = await session(client_name, "go")
    uri = nav.open("greet_test.go")
    original = nav.at("greet_test.go", 'Greeting("Ana")', "Greeting")
    await nav.definition("greet_test.go", 'Greeting("Ana")', "Greeting")  # gopls has loaded the package
    pending = []
    for version in range(2, 12):
        # Each change pushes the call one line down; the request right behind it asks at the new line.
        start = types.Position(line=0, character=0)
        nav.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(start=start, end=start), text="// é\n")
                ],
            )
        )
        position = types.Position(line=original.line + version - 1, character=original.character)
        params = types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
        pending.append(nav.client.protocol.send_request(types.TEXT_DOCUMENT_DEFINITION, params))
    answers = await asyncio.wait_for(asyncio.gather(*(asyncio.wrap_future(f) for f in pending)), REQUEST_TIMEOUT)
    for answer in answers:
        assert answer, answers
        assert _names(nav, list(answer)) == {"greet.go": "Greeting"}
