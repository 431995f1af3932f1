"""Harness for asking lintel and its child language server the same request: `lintel serve` on one private copy of
a fixture workspace and the same server started and initialized directly, as lintel starts its child, on another;
both answers as raw JSON, brought to one form (lintel's marks removed, columns in code points, the copies' roots
named alike) so they can be compared as they are."""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
from lintel.frontends.relay.client import REFRESHES, child_capabilities
from lintel.frontends.relay.tokens import DROPPED_MODIFIERS
from lintel.languages import LANGUAGES
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from tests.e2e.nav_support import (
    CONTENT_MODIFIED,
    LANGUAGE_IDS,
    QUIET,
    REQUEST_TIMEOUT,
    SERVER_COMMAND,
    NavClient,
    make_client,
    require_rust_analyzer,
)
from tests.helpers import column_in, copy_workspace, require_tool, tool_path

MARKER = "lintel"  # marks.py's key in a relayed item's data
ROOT = "<root>"  # what either copy's root becomes in a compared answer
# What the editor hands back to the child as it is (a command's arguments, an item's data): lintel re-counts no
# position in them, so neither does the comparison.
OPAQUE = frozenset({"arguments", "data"})
# What differs between two runs of one server on one workspace: rust-analyzer numbers files in the order it loads
# them (its inlay hints' data names the file by that number).
VOLATILE = frozenset({"file_id"})
# gopls answers code lenses, semantic tokens and inlay hints only when its settings turn them on.
GOPLS_SETTINGS = {
    "gopls": {
        "codelenses": {"test": True},
        "semanticTokens": True,
        "hints": {"parameterNames": True, "assignVariableTypes": True},
    }
}
IDS = {**LANGUAGE_IDS, ".tsx": "typescriptreact", ".jsx": "javascriptreact", ".mod": "go.mod"}


@dataclass(frozen=True)
class Server:
    workspace: str  # the fixture under tests/workspaces
    language: str  # its LanguageSpec's name
    tool: str
    settings: Mapping[str, Any] = field(default_factory=dict)  # workspace/configuration answers, on both sides

    def require(self) -> str:
        if self.tool == "rust-analyzer":
            return require_rust_analyzer()
        return require_tool(self.tool)

    def argv(self) -> tuple[str, ...]:
        """The command line lintel runs (its spec's first default), with the binary found as the tests find it."""
        spec = LANGUAGES.get(self.language)
        assert spec is not None
        assert spec.server is not None
        return (self.require(), *spec.server.candidates[0][1:])

    def initialization_options(self) -> Any:
        spec = LANGUAGES.get(self.language)
        assert spec is not None
        assert spec.server is not None
        options = spec.server.initialization_options
        return dict(options) if options is not None else None


SERVERS = {
    "gopls": Server("go", "go", "gopls", GOPLS_SETTINGS),
    "basedpyright": Server("python", "python", "basedpyright-langserver"),
    "rust-analyzer": Server("rust", "rust", "rust-analyzer"),
    "tsls": Server("node", "node", "typescript-language-server"),
}


def note(text: str) -> None:
    """What a test found, for the reader of `pytest -s` (which servers answered what)."""
    print(text)  # noqa: T201 - shown with -s; the tests' assertions do not depend on it


# -- raw JSON over a pygls client -------------------------------------------------------------------------------


def _write(client: LanguageClient, message: dict[str, Any]) -> None:
    writer = client.protocol.writer
    assert writer is not None
    body = json.dumps(message).encode()
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


@attrs.define
class RawResponse:
    """An answer whose result stays JSON: pygls's generic response would turn its objects into named tuples."""

    id: str
    jsonrpc: str
    result: Any


def _raw_response(data: Any, _: Any) -> RawResponse:
    return RawResponse(id=data["id"], jsonrpc=data["jsonrpc"], result=data.get("result"))


async def raw(client: LanguageClient, method: str, params: Any, timeout: float = REQUEST_TIMEOUT) -> Any:
    """The answer to a request sent with `params` as JSON, as JSON; an error answer raises JsonRpcException."""
    msg_id = f"raw-{uuid.uuid4()}"
    answer: Future[Any] = Future()
    protocol = client.protocol
    protocol._converter.register_structure_hook(RawResponse, _raw_response)
    protocol._result_types[msg_id] = RawResponse
    protocol._request_futures[msg_id] = answer
    _write(client, {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(answer), timeout)


def notify(client: LanguageClient, method: str, params: Any) -> None:
    _write(client, {"jsonrpc": "2.0", "method": method, "params": params})


def _refreshed(client: NavClient, params: Any) -> None:
    return None  # a child's refresh request: nothing is cached here


def make_direct_client() -> NavClient:
    """nav_support's client, also answering the refresh requests lintel passes on to the editor."""
    client = make_client()
    register_lsp_features(client, dict.fromkeys(REFRESHES, _refreshed))
    return client


# -- one side: lintel or the child itself -------------------------------------------------------------------------


@dataclass
class Side:
    """One end of the comparison: a client, the copy of the workspace it serves and the encoding of its answers."""

    name: str
    client: NavClient
    root: Path
    encoding: str  # the answers' position encoding (lintel: the editor's; direct: what the child negotiated)
    capabilities: dict[str, Any]  # the `initialize` answer's capabilities, as JSON
    opened: set[str] = field(default_factory=set)

    def uri(self, relative: str) -> str:
        return (self.root / relative).as_uri()

    def text(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")

    def open(self, relative: str) -> str:
        uri = self.uri(relative)
        if uri not in self.opened:
            self.opened.add(uri)
            path = self.root / relative
            language = IDS.get(path.suffix, "plaintext")
            item = {"uri": uri, "languageId": language, "version": 1, "text": self.text(relative)}
            notify(self.client, types.TEXT_DOCUMENT_DID_OPEN, {"textDocument": item})
        return uri

    def doc(self, relative: str) -> dict[str, str]:
        return {"uri": self.open(relative)}

    def at(self, relative: str, line_contains: str, symbol: str) -> dict[str, int]:
        """The position of `symbol` after `line_contains`'s start on the first line containing it, in this side's
        encoding."""
        for number, line in enumerate(self.text(relative).splitlines()):
            if line_contains in line:
                start = line.index(symbol, line.index(line_contains))
                return {"line": number, "character": column_in(line, start, self.encoding)}
        raise AssertionError(f"no line containing {line_contains!r} in {relative}")

    def whole(self, relative: str) -> dict[str, Any]:
        lines = self.text(relative).splitlines()
        return {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}

    async def ask(self, method: str, params: Any) -> Any:
        return await raw(self.client, method, params)


async def start_lintel(
    tmp_path: Path, client_name: str, server: Server, prepare: Callable[[Path], None] | None = None
) -> Side:
    """`lintel serve` (QUIET) on a copy of the server's workspace, its editor answering `server.settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PATH"] = tool_path()
    config = ClientServerConfig(server_command=SERVER_COMMAND, server_env=env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, NavClient)
    client.set_configuration(dict(server.settings))
    root = copy_workspace(server.workspace, tmp_path / "lintel" / server.workspace)
    if prepare is not None:
        prepare(root)
    params = types.InitializeParams(
        capabilities=client_capabilities(client_name),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options=dict(QUIET),
    )
    result = await asyncio.wait_for(client.initialize_session(params), 60)
    negotiated = result.capabilities.position_encoding
    encoding = str(getattr(negotiated, "value", negotiated or "utf-16"))
    capabilities = get_converter().unstructure(result.capabilities)
    return Side("lintel", client, root, encoding, capabilities)


async def start_direct(
    tmp_path: Path, client_name: str, server: Server, encoding: str, prepare: Callable[[Path], None] | None = None
) -> Side:
    """The child server itself, as lintel starts it for an editor with `client_name`'s capabilities that negotiated
    `encoding` with lintel: same argv, root, capabilities, initializationOptions and settings."""
    argv = server.argv()
    root = copy_workspace(server.workspace, tmp_path / "direct" / server.workspace)
    if prepare is not None:
        prepare(root)
    client = make_direct_client()
    client.set_configuration(dict(server.settings))
    env = dict(os.environ)
    env["PATH"] = tool_path()
    await client.start_io(argv[0], *argv[1:], cwd=str(root), env=env)
    capabilities = child_capabilities(client_capabilities(client_name), encoding)  # type: ignore[arg-type]
    client.capabilities = capabilities  # pytest-lsp's shutdown_session needs it
    params = {
        "processId": os.getpid(),
        "clientInfo": {"name": "lintel", "version": "test"},
        "rootUri": root.as_uri(),
        "rootPath": str(root),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": get_converter().unstructure(capabilities),
        "initializationOptions": server.initialization_options(),
    }
    result = await raw(client, types.INITIALIZE, params, 60)
    notify(client, types.INITIALIZED, {})
    found = result["capabilities"]
    return Side("direct", client, root, found.get("positionEncoding") or "utf-16", found)


async def stop(side: Side) -> None:
    client = side.client
    process = client._server
    if process is not None and process.returncode is None:
        try:
            await raw(client, types.SHUTDOWN, None, 30)
            notify(client, types.EXIT, None)
            await asyncio.wait_for(process.wait(), 30)
        except (TimeoutError, asyncio.TimeoutError, JsonRpcException):
            pass
    if process is not None and process.returncode is None:
        process.kill()
    await client.stop()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated


# -- answers brought to one form ------------------------------------------------------------------------------------


def unmark(value: Any) -> Any:
    """The answer without lintel's marks: every {"lintel": {...}, "data": d} data back to d (dropped if absent)."""
    if isinstance(value, list):
        return [unmark(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: unmark(v) for k, v in value.items() if k != "data"}
    data = value.get("data")
    if isinstance(data, dict) and isinstance(data.get(MARKER), dict):
        if "data" in data:
            out["data"] = unmark(data["data"])
    elif "data" in value:
        out["data"] = unmark(data)
    return out


def code_points(line: str, column: int, encoding: str) -> int:
    """A column counted in `encoding` as a count of code points (past the line's end: the units beyond it added)."""
    if encoding == "utf-32":
        return column
    width = 1 if encoding == "utf-8" else 2
    data = line.encode("utf-8" if width == 1 else "utf-16-le")
    if column * width > len(data):
        return len(line) + column - len(data) // width
    return len(data[: column * width].decode("utf-8" if width == 1 else "utf-16-le", errors="ignore"))


def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    return value


def _document_of(value: dict[str, Any], uri: str) -> str:
    """The document an object's positions are in: its own uri, target or text document, else its parent's."""
    for key in ("uri", "targetUri"):
        if isinstance(value.get(key), str):
            uri = value[key]
    document = value.get("textDocument")
    return document["uri"] if isinstance(document, dict) and isinstance(document.get("uri"), str) else uri


class Normal:
    """An answer of one side in the compared form: no marks, columns in code points, the root as ROOT."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self._lines: dict[str, list[str]] = {}

    def line(self, uri: str, number: int) -> str:
        if uri not in self._lines:
            path = Path(uri.removeprefix("file://"))
            self._lines[uri] = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        lines = self._lines[uri]
        return lines[number] if 0 <= number < len(lines) else ""

    def column(self, uri: str, line: int, column: int) -> int:
        return code_points(self.line(uri, line), column, self.side.encoding)

    def __call__(self, answer: Any, uri: str) -> Any:
        return self._names(self._walk(unmark(answer), uri))

    def _names(self, value: Any) -> Any:
        text = json.dumps(value, sort_keys=True)
        for root in (self.side.root.as_uri(), str(self.side.root)):
            text = text.replace(root, ROOT)
        return json.loads(text)

    def _walk(self, value: Any, uri: str) -> Any:
        if isinstance(value, list):
            return [self._walk(v, uri) for v in value]
        if not isinstance(value, dict):
            return value
        if set(value) == {"line", "character"} and isinstance(value["character"], int):
            return {"line": value["line"], "character": self.column(uri, value["line"], value["character"])}
        here = _document_of(value, uri)
        return {key: self._member(value, key, item, here) for key, item in value.items()}

    def _member(self, parent: dict[str, Any], key: str, item: Any, here: str) -> Any:
        if key in OPAQUE:
            return _without(item, VOLATILE)
        if key == "changes" and isinstance(item, dict):
            return {u: self._walk(edits, u) for u, edits in item.items()}
        if key == "fromRanges" and isinstance(parent.get("from"), dict):
            return self._walk(item, parent["from"].get("uri", here))
        if key in ("startCharacter", "endCharacter") and isinstance(item, int):
            return self.column(here, parent.get("startLine" if key == "startCharacter" else "endLine", 0), item)
        return self._walk(item, here)

    def tokens(self, data: list[int], uri: str) -> list[tuple[int, int, int, str, tuple[str, ...]]]:
        """Semantic tokens as (line, column, length, type, modifiers), by this side's legend, in code points;
        the modifiers lintel's legend leaves out are left out on both sides."""
        legend = self.side.capabilities["semanticTokensProvider"]["legend"]
        names, modifiers = legend["tokenTypes"], legend["tokenModifiers"]
        out = []
        line = column = 0
        for index in range(0, len(data) - 4, 5):
            delta_line, delta_start, length, kind, mask = data[index : index + 5]
            line += delta_line
            column = column + delta_start if delta_line == 0 else delta_start
            start = self.column(uri, line, column)
            end = self.column(uri, line, column + length)
            named = tuple(m for bit, m in enumerate(modifiers) if mask >> bit & 1 and m not in DROPPED_MODIFIERS)
            out.append((line, start, end - start, names[kind], named))
        return out


# -- the two sides asked together -------------------------------------------------------------------------------


Params = Callable[[Side], Any]


@dataclass
class Pair:
    """lintel and the child, on copies of one workspace, asked the same requests."""

    server: str
    lintel: Side
    direct: Side
    tmp_path: Path

    def offers(self, provider: str) -> bool:
        return bool(self.direct.capabilities.get(provider))

    async def both(self, method: str, params: Params) -> tuple[Any, Any]:
        return await asyncio.gather(
            self.lintel.ask(method, params(self.lintel)), self.direct.ask(method, params(self.direct))
        )

    async def settled(self, method: str, params: Params) -> tuple[Any, Any]:
        """Both answers; (None, None) when either side's child answered ContentModified (asked again later)."""
        try:
            return await self.both(method, params)
        except JsonRpcException as error:
            if error.code != CONTENT_MODIFIED:
                raise
            return None, None

    async def agree(
        self,
        method: str,
        params: Params,
        uri_of: str,
        ready: Callable[[Any], bool] = bool,
        *,
        unordered: bool = False,
        compared: Callable[[Any, Any], tuple[Any, Any]] | None = None,
    ) -> tuple[Any, Any]:
        """Both answers, asked until both are `ready` and the same in the compared form (a child may still be
        loading its workspace, on either side); an AssertionError naming both when they never are. The raw answers
        are returned. `unordered`: a list (or a WorkspaceEdit's documentChanges) whose order means nothing
        (rust-analyzer's incoming calls, its edits of a file rename). `compared`: the parts of both (ready) answers that
        must agree, where lintel adds its own (code lenses above tests); those parts are returned."""

        def form(side: Side, answer: Any) -> Any:
            found = Normal(side)(answer, side.uri(uri_of))
            if unordered and isinstance(found, dict) and isinstance(found.get("documentChanges"), list):
                found["documentChanges"].sort(key=json.dumps)
            return sorted(found, key=json.dumps) if unordered and isinstance(found, list) else found

        deadline = time.monotonic() + REQUEST_TIMEOUT * 2
        while True:
            try:
                mine, theirs = await self.both(method, params)
            except JsonRpcException as error:
                if error.code != CONTENT_MODIFIED:
                    raise
                mine = theirs = error
            else:
                answered = ready(mine) and ready(theirs)  # the whole answers: lintel's own parts count
                if compared is not None:
                    mine, theirs = compared(mine, theirs)
                if answered and form(self.lintel, mine) == form(self.direct, theirs):
                    return mine, theirs
            if time.monotonic() > deadline:
                lintel_form, direct_form = form(self.lintel, mine), form(self.direct, theirs)
                assert lintel_form == direct_form, (
                    f"{self.server} {method}: lintel's answer differs from the child's:\n"
                    f"lintel: {json.dumps(lintel_form)[:3000]}\ndirect: {json.dumps(direct_form)[:3000]}"
                )
                raise AssertionError(f"{self.server} {method}: never ready; last answer {mine!r}")
            await asyncio.sleep(0.5)


def document(file: str) -> Params:
    """{"textDocument": …} of `file`, opened on each side."""
    return lambda side: {"textDocument": side.doc(file)}


def position(file: str, line_contains: str, symbol: str) -> Params:
    """{"textDocument", "position"} of `symbol` on the line, counted in each side's encoding."""
    return lambda side: {"textDocument": side.doc(file), "position": side.at(file, line_contains, symbol)}


def each(lintels: Any, directs: Any, member: str | None = None) -> Params:
    """Each side's own item of an earlier answer (a code lens to resolve, a hierarchy item), as the params or as
    their `member`."""

    def params(side: Side) -> Any:
        item = lintels if side.name == "lintel" else directs
        return {member: item} if member else item

    return params
