"""Harness for the navigation tests: `lintel serve` under pytest-lsp on a private copy of fixture workspaces,
positions computed in the negotiated encoding, and the server's process tree read from /proc."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.helpers import TOOLS_DIR, column_in, copy_workspace, missing_tool, require_tool, tool_path

SERVER_COMMAND = [sys.executable, "-m", "lintel", "serve"]
CLIENTS = ("visual-studio-code", "neovim")
REQUEST_TIMEOUT = 60.0  # a cold language server indexing on a busy machine; never an assertion on speed
# Navigation only: lint and format checks would compete for the CPU and are tested elsewhere.
QUIET = {"editor": {"lintOnOpen": False, "lintOnSave": False, "formatCheck": False}}
LANGUAGE_IDS = {".py": "python", ".ts": "typescript", ".js": "javascript", ".go": "go", ".rs": "rust"}
CONTENT_MODIFIED = -32801  # LSP's ContentModified: the answer was invalidated by a change; ask again

T = TypeVar("T")


class NavClient(LanguageClient):
    """pytest-lsp's client, also keeping the server's registrations and the edits it asked the editor to apply."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.registrations: list[types.Registration] = []
        self.applied_edits: list[types.ApplyWorkspaceEditParams] = []


def _register_capability(client: NavClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _apply_edit(client: NavClient, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
    client.applied_edits.append(params)  # recorded, not applied: the tests read what the server asked for
    return types.ApplyWorkspaceEditResult(applied=True)


def make_client() -> NavClient:
    # pytest-lsp's make_test_lsp_client (its handlers: configuration, progress, messages…) plus the two above.
    client = NavClient(converter_factory=default_converter)
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.CLIENT_REGISTER_CAPABILITY: _register_capability,
            types.WORKSPACE_APPLY_EDIT: _apply_edit,
        },
    )
    return client


def require_rust_analyzer() -> str:
    """rust-analyzer's path; skipped (reason printed) when it is absent — rustup leaves a proxy on PATH that
    fails with "Unknown binary" when the component is not installed, so the proxy is asked for its version.
    scripts/setup.d/20-rust.sh builds the pinned crates.io release into the tools cache when rustup cannot."""
    hint = (
        "run scripts/setup-dev: scripts/setup.d/20-rust.sh builds ra_ap_rust-analyzer from crates.io into "
        f"{TOOLS_DIR / 'rust' / 'bin'} (see its output for why it failed), or rustup component add rust-analyzer"
    )
    path = require_tool("rust-analyzer", hint)
    probe = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60, check=False)
    if probe.returncode != 0:
        first = (probe.stderr or probe.stdout).strip().splitlines()[:1]
        missing_tool(
            f"rust-analyzer is not installed ({first[0] if first else 'exit ' + str(probe.returncode)}; {hint})"
        )
    return path


# -- processes ----------------------------------------------------------------------------------------------


def _ppid_and_state(pid: int) -> tuple[int, str] | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    return int(fields.get("PPid", "0")), fields.get("State", "?")[:1]


def descendants(root: int) -> dict[int, str]:
    """pid -> command line of every live process below `root` (a /proc scan of PPid)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _ppid_and_state(int(entry))
            if info is not None and info[1] != "Z":
                children.setdefault(info[0], []).append(int(entry))
    found: dict[int, str] = {}
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        try:
            found[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        stack.extend(children.get(pid, ()))
    return found


def alive(pid: int) -> bool:
    info = _ppid_and_state(pid)
    return info is not None and info[1] != "Z"


# -- the session --------------------------------------------------------------------------------------------


@dataclass
class Nav:
    """An initialized session: requests by (file, text on the line, symbol), in the negotiated encoding."""

    client: LanguageClient
    roots: list[Path]
    result: types.InitializeResult
    server_pid: int
    opened: set[str] = field(default_factory=set)

    @property
    def encoding(self) -> str:
        negotiated = self.result.capabilities.position_encoding
        return str(getattr(negotiated, "value", negotiated or "utf-16"))

    @property
    def messages(self) -> list[str]:
        return [m.message for m in self.client.messages]

    def path(self, relative: str, root: int = 0) -> Path:
        return self.roots[root] / relative

    def uri(self, relative: str, root: int = 0) -> str:
        return self.path(relative, root).as_uri()

    def open(self, relative: str, root: int = 0) -> str:
        path = self.path(relative, root)
        uri = path.as_uri()
        if uri not in self.opened:
            self.opened.add(uri)
            self.client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=uri,
                        language_id=LANGUAGE_IDS.get(path.suffix, "plaintext"),
                        version=1,
                        text=path.read_text(encoding="utf-8"),
                    )
                )
            )
        return uri

    def column(self, text: str, characters: int) -> int:
        return column_in(text, characters, self.encoding)

    def at(self, relative: str, line_contains: str, symbol: str, root: int = 0) -> types.Position:
        """The position of `symbol` on the first line containing `line_contains`, in the negotiated encoding."""
        lines = self.path(relative, root).read_text(encoding="utf-8").splitlines()
        for number, text in enumerate(lines):
            if line_contains in text:
                # The symbol as a whole word (`Price`, not the end of `formatPrice`).
                found = re.compile(rf"(?<!\w){re.escape(symbol)}").search(text, text.index(line_contains))
                assert found is not None, f"no {symbol!r} on {text!r}"
                return types.Position(line=number, character=self.column(text, found.start()))
        raise AssertionError(f"no line containing {line_contains!r} in {relative}")

    def doc(self, relative: str, root: int = 0) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=self.open(relative, root))

    async def until(self, request: Callable[[], Awaitable[T]], ready: Callable[[T], bool]) -> T:
        """Ask until the answer is `ready` (a child may still be loading its workspace); fail with the last one.
        A ContentModified error counts as not ready: rust-analyzer answers it (as LSP allows) to requests that
        overlap a reload of its workspace (cargo metadata, then the crate graph), which editors retry too."""
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while True:
            answer: T | JsonRpcException
            try:
                answer = await asyncio.wait_for(request(), REQUEST_TIMEOUT)
            except JsonRpcException as error:
                if error.code != CONTENT_MODIFIED:
                    raise
                answer = error
            else:
                if ready(answer):
                    return answer
            if time.monotonic() > deadline:
                raise AssertionError(f"never ready within {REQUEST_TIMEOUT:g}s; last answer: {answer!r}")
            await asyncio.sleep(0.2)

    async def definition(
        self, relative: str, line_contains: str, symbol: str, into: str | None = None, root: int = 0
    ) -> list[Any]:
        """Definition locations; with `into`, asked until one is in that file (tsserver answers with the
        import binding while it still loads the project)."""
        params = types.DefinitionParams(
            text_document=self.doc(relative, root), position=self.at(relative, line_contains, symbol, root)
        )

        def ready(answer: Any) -> bool:
            found = answer if isinstance(answer, list) else [answer] if answer else []
            return bool(found) and (into is None or any(target(x)[0] == self.uri(into, root) for x in found))

        answer = await self.until(lambda: self.client.text_document_definition_async(params), ready)
        return answer if isinstance(answer, list) else [answer]

    async def references(self, relative: str, line_contains: str, symbol: str, root: int = 0) -> list[types.Location]:
        params = types.ReferenceParams(
            text_document=self.doc(relative, root),
            position=self.at(relative, line_contains, symbol, root),
            context=types.ReferenceContext(include_declaration=True),
        )
        answer = await self.until(lambda: self.client.text_document_references_async(params), bool)
        return list(answer or ())

    async def hover(self, relative: str, line_contains: str, symbol: str, root: int = 0) -> types.Hover:
        params = types.HoverParams(
            text_document=self.doc(relative, root), position=self.at(relative, line_contains, symbol, root)
        )
        answer = await self.until(lambda: self.client.text_document_hover_async(params), bool)
        assert answer is not None
        return answer

    async def rename(
        self, relative: str, line_contains: str, symbol: str, new_name: str, root: int = 0
    ) -> dict[str, list[types.TextEdit]]:
        """The WorkspaceEdit as uri -> edits, from `changes` or `documentChanges`."""
        params = types.RenameParams(
            text_document=self.doc(relative, root),
            position=self.at(relative, line_contains, symbol, root),
            new_name=new_name,
        )
        edit = await self.until(lambda: self.client.text_document_rename_async(params), bool)
        assert edit is not None
        by_uri: dict[str, list[types.TextEdit]] = {uri: list(edits) for uri, edits in (edit.changes or {}).items()}
        for change in edit.document_changes or ():
            if isinstance(change, types.TextDocumentEdit):
                by_uri.setdefault(change.text_document.uri, []).extend(
                    e for e in change.edits if isinstance(e, types.TextEdit)
                )
        return by_uri


def target(location: Any) -> tuple[str, types.Range]:
    """(uri, range of the name) of a Location or LocationLink."""
    if isinstance(location, types.LocationLink):
        return location.target_uri, location.target_selection_range
    return location.uri, location.range


def text_at(path: Path, span: types.Range, encoding: str) -> str:
    """The text a single-line range covers, its columns counted in `encoding`."""
    line = path.read_text(encoding="utf-8").splitlines()[span.start.line]
    if encoding == "utf-8":
        data = line.encode("utf-8")
        return data[span.start.character : span.end.character].decode("utf-8")
    if encoding == "utf-16":
        data = line.encode("utf-16-le")
        return data[span.start.character * 2 : span.end.character * 2].decode("utf-16-le")
    return line[span.start.character : span.end.character]


def hover_text(hover: types.Hover) -> str:
    contents = hover.contents
    if isinstance(contents, types.MarkupContent):
        return contents.value
    if isinstance(contents, str):
        return contents
    if isinstance(contents, types.MarkedStringWithLanguage):
        return contents.value
    return "\n".join(c if isinstance(c, str) else c.value for c in contents)


def uris_relative(roots: Iterable[Path], uris: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for uri in uris:
        path = Path(uri.removeprefix("file://"))
        for root in roots:
            if path.is_relative_to(root):
                names.add(path.relative_to(root).as_posix())
                break
        else:
            names.add(str(path))
    return names


async def start_session(
    tmp_path: Path,
    client_name: str,
    *workspaces: str,
    init_options: Mapping[str, Any] | None = None,
) -> tuple[NavClient, Nav]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PATH"] = tool_path()
    config = ClientServerConfig(server_command=SERVER_COMMAND, server_env=env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, NavClient)  # what make_client built; start() is typed as returning any JsonRPCClient
    roots = [copy_workspace(name, tmp_path / name) for name in workspaces]
    params = types.InitializeParams(
        capabilities=client_capabilities(client_name),
        root_uri=roots[0].as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots],
        initialization_options=dict(QUIET if init_options is None else init_options),
    )
    result = await asyncio.wait_for(client.initialize_session(params), 60)
    assert client._server is not None
    return client, Nav(client=client, roots=roots, result=result, server_pid=client._server.pid)


async def end_session(client: LanguageClient) -> None:
    server = client._server
    if server is not None and server.returncode is None and client.capabilities is not None:
        try:
            await asyncio.wait_for(client.shutdown_session(), 30)
        except (TimeoutError, asyncio.TimeoutError):
            server.kill()
    if server is not None and server.returncode is None:
        server.kill()
    await client.stop()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
