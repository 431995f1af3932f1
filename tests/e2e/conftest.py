"""End-to-end harness: `lintel serve` driven by a pytest-lsp client, on copies of the fixture workspaces.

Each test gets a fresh server (`lsp`), run once with VS Code's and once with Neovim's capabilities
(`client_name`), and starts a session with `start(...)`, which copies the named fixture workspaces into
tmp_path and initializes the server on them. `Editor` holds what a test does with the session: open,
change+save, wait for diagnostics, execute commands.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.e2e.by_hand import Baselines
from tests.e2e.nav_support import end_session
from tests.helpers import copy_workspace, tool_path

SERVER_COMMAND = [sys.executable, "-m", "lintel", "serve"]
CLIENTS = ("visual-studio-code", "neovim")
# Generous: a cold cargo or go build on a busy 2-core machine. Never an assertion on speed.
DIAGNOSTICS_TIMEOUT = 120.0
COMMAND_TIMEOUT = 300.0
# Caches a copy should not carry; mypy's is kept (it checks content hashes) and saves a cold mypy run per test.

Predicate = Callable[[Sequence[types.Diagnostic]], bool]


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every publishDiagnostics (not only the latest per uri) and the
    server's registrations."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []
        self.code_lens_refreshes = 0
        self.tests_changed: list[Any] = []  # lintel/testsChanged params, in order


def _record_diagnostics(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _register_capability(client: RecordingClient, params: types.RegistrationParams) -> None:
    # Without a handler the server's request gets -32601 and pytest-lsp fails the test (PYGLS_NOTES §4).
    client.registrations.extend(params.registrations)


def _unregister_capability(client: RecordingClient, params: types.UnregistrationParams) -> None:
    return None


def _code_lens_refresh(client: RecordingClient, params: None) -> None:
    client.code_lens_refreshes += 1


def _tests_changed(client: RecordingClient, params: Any) -> None:
    client.tests_changed.append(params)


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record_diagnostics,
            types.CLIENT_REGISTER_CAPABILITY: _register_capability,
            types.CLIENT_UNREGISTER_CAPABILITY: _unregister_capability,
            types.WORKSPACE_CODE_LENS_REFRESH: _code_lens_refresh,
            "lintel/testsChanged": _tests_changed,
        },
    )
    return client


# -- workspaces -------------------------------------------------------------------------------------------


def tool_env(cargo_target_dir: Path) -> dict[str, str]:
    """The environment of the server (and of tools run by hand for comparison): the dev tools on PATH, one
    cargo target dir for the whole session, nothing of the outer pytest run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PATH"] = tool_path()
    env["CARGO_TARGET_DIR"] = str(cargo_target_dir)
    # The fixtures' own tests need none of the dev venv's pytest plugins, which would slow every pytest run.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


# -- positions --------------------------------------------------------------------------------------------


# -- the session ------------------------------------------------------------------------------------------


@dataclass
class Editor:
    """An initialized session: the client, the workspace roots and the negotiated position encoding."""

    client: RecordingClient
    roots: list[Path]
    result: types.InitializeResult
    versions: dict[str, int] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.roots[0]

    @property
    def encoding(self) -> str:
        negotiated = self.result.capabilities.position_encoding
        return str(getattr(negotiated, "value", negotiated or "utf-16"))

    @property
    def messages(self) -> list[str]:
        """window/showMessage texts, in order."""
        return [m.message for m in self.client.messages]

    def path(self, relative: str | Path, root: Path | None = None) -> Path:
        return (root or self.root) / relative

    def uri(self, relative: str | Path, root: Path | None = None) -> str:
        return self.path(relative, root).as_uri()

    def diagnostics(self, uri: str, source: str | None = None) -> list[types.Diagnostic]:
        found = list(self.client.diagnostics.get(uri, ()))
        return [d for d in found if source is None or d.source == source]

    def open(self, relative: str | Path, root: Path | None = None) -> str:
        path = self.path(relative, root)
        uri = path.as_uri()
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=_language_id(path), version=1, text=read_exact(path)
                )
            )
        )
        return uri

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def change(self, uri: str, text: str) -> None:
        """The buffer changes (full text); nothing is written."""
        version = self.versions.get(uri, 1) + 1
        self.versions[uri] = version
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def save(self, uri: str, text: str) -> None:
        """What an editor does on save: the buffer changes (full text), the file is written, didSave."""
        self.change(uri, text)
        Path(to_fs_path(uri) or uri).write_text(text, encoding="utf-8")
        self.did_save(uri)

    def did_save(self, uri: str) -> None:
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    async def wait_for_publish(
        self, uri: str, after: int, timeout: float = DIAGNOSTICS_TIMEOUT
    ) -> list[types.Diagnostic]:
        """The first publishDiagnostics for `uri` among those received after the first `after` ones."""
        deadline = time.monotonic() + timeout
        while True:
            later = [p for p in self.client.published[after:] if p.uri == uri]
            if later:
                return list(later[0].diagnostics)
            assert time.monotonic() < deadline, f"no publishDiagnostics for {uri} within {timeout:g}s"
            await asyncio.sleep(0.05)

    async def wait_for_diagnostics(
        self, uri: str, predicate: Predicate, timeout: float = DIAGNOSTICS_TIMEOUT
    ) -> list[types.Diagnostic]:
        """Poll the latest published diagnostics of `uri` until `predicate` holds; fail with what was there."""
        deadline = time.monotonic() + timeout
        while True:
            current = self.client.diagnostics.get(uri)
            if current is not None and predicate(current):
                return list(current)
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"diagnostics of {uri} never matched within {timeout:g}s; last published: {current!r}; "
                    f"messages: {self.messages}"
                )
            await asyncio.sleep(0.05)

    async def wait_for_message(self, contains: str, timeout: float = DIAGNOSTICS_TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            matching = [m for m in self.messages if contains in m]
            if matching:
                return matching[0]
            if time.monotonic() > deadline:
                raise AssertionError(f"no window/showMessage containing {contains!r}; got: {self.messages}")
            await asyncio.sleep(0.05)

    async def execute(
        self,
        command: str,
        *arguments: Any,
        token: types.ProgressToken | None = None,
        timeout: float = COMMAND_TIMEOUT,
    ) -> Any:
        params = types.ExecuteCommandParams(command=command, arguments=list(arguments), work_done_token=token)
        return await asyncio.wait_for(self.client.workspace_execute_command_async(params), timeout)

    def send_command(self, command: str, *arguments: Any) -> tuple[str, asyncio.Task[Any]]:
        """Send executeCommand as a task, under a message id of our own (so it can be cancelled)."""
        msg_id = f"e2e-{uuid.uuid4()}"
        params = types.ExecuteCommandParams(command=command, arguments=list(arguments))
        # pytest-lsp's override of send_request_async is unannotated.
        request = self.client.protocol.send_request_async(  # type: ignore[no-untyped-call]
            types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id
        )
        return msg_id, asyncio.ensure_future(request)

    async def reconfigure(self, settings: dict[str, Any], language: str = "python") -> None:
        """New `lintel` client settings, announced with didChangeConfiguration (pulled back through
        workspace/configuration); returns once `lintel.detect` shows the new lint argv in use."""
        self.client.set_configuration(settings, section="lintel")
        self.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        wanted = settings.get("languages", {}).get(language, {}).get("lint")
        deadline = time.monotonic() + 30
        while True:
            detected = await self.execute("lintel.detect", timeout=30)
            argv = {p["language"]: p["checks"]["lint"]["argv"] for p in detected["projects"]}
            if wanted is None or argv.get(language) == wanted:
                return
            assert time.monotonic() < deadline, f"the server never took the new settings: {argv}"
            await asyncio.sleep(0.05)

    async def alive(self) -> None:
        """The server still answers a command (after bad input, say)."""
        detected = await self.execute("lintel.detect", timeout=30)
        assert detected["version"] == 1, detected
        assert detected["projects"], detected


def read_exact(path: Path) -> str:
    """A file's text as an editor reads it: its line ends kept (Path.read_text would turn \r\n into \n)."""
    return path.read_bytes().decode("utf-8")


def _language_id(path: Path) -> str:
    return {
        ".py": "python",
        ".js": "javascript",
        ".ts": "typescript",
        ".go": "go",
        ".rs": "rust",
    }.get(path.suffix, "plaintext")


def pull_capabilities(client_name: str) -> types.ClientCapabilities:
    """A bundled capability set plus what makes lintel serve pull diagnostics: textDocument.diagnostic and
    workspace.diagnostics.refreshSupport (neither bundled set has both)."""
    caps = client_capabilities(client_name)
    assert caps.workspace is not None
    assert caps.text_document is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(dynamic_registration=False)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


Start = Callable[..., Awaitable[Editor]]

# Navigation servers that start instantly and say nothing (see silent_language_server.py).
_SILENT = [sys.executable, str(Path(__file__).with_name("silent_language_server.py"))]
SILENT_LANGUAGE_SERVERS = {"languages": {lang: {"server": _SILENT} for lang in ("go", "rust", "node", "python")}}


def merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """`override` on top of `base`, table by table."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


# -- fixtures ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def cargo_target_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One target dir for every rust copy: the crate is rebuilt only when its content changes."""
    return tmp_path_factory.mktemp("cargo-target")


@pytest.fixture
def server_env(cargo_target_dir: Path) -> dict[str, str]:
    return tool_env(cargo_target_dir)


@pytest.fixture(scope="session")
def baselines(tmp_path_factory: pytest.TempPathFactory, cargo_target_dir: Path) -> Baselines:
    return Baselines(tmp_path_factory.mktemp("baselines"), tool_env(cargo_target_dir), copy_workspace)


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest_asyncio.fixture
async def lsp(server_env: dict[str, str]) -> AsyncIterator[RecordingClient]:
    """A running `lintel serve`, not yet initialized; shut down (if it still runs) after the test."""
    config = ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, RecordingClient)
    yield client
    await end_session(client)


@pytest.fixture
def start(lsp: RecordingClient, client_name: str, tmp_path: Path) -> Start:
    """`await start("python", "node", init_options=..., capabilities=...)`: copy the workspaces, initialize."""

    async def start_session(
        *workspaces: str,
        init_options: Mapping[str, Any] | None = None,
        capabilities: types.ClientCapabilities | None = None,
        real_language_servers: bool = False,
    ) -> Editor:
        folders = [copy_workspace(name, tmp_path / name) for name in workspaces]
        options = dict(init_options) if init_options is not None else None
        if not real_language_servers:
            options = merge(SILENT_LANGUAGE_SERVERS, options or {})
        params = types.InitializeParams(
            capabilities=capabilities or client_capabilities(client_name),
            root_uri=folders[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
            initialization_options=options,
        )
        result = await asyncio.wait_for(lsp.initialize_session(params), 60)
        return Editor(client=lsp, roots=folders, result=result)

    return start_session
