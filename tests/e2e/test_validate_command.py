"""lintel.validate and run-on-save validators through a real LSP client (the server side)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.helpers import tool_path

CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-m", "lintel", "serve"], server_env={**os.environ, "PATH": tool_path()}
)


@pytest_lsp.fixture(config=CONFIG)  # type: ignore[untyped-decorator]  # pytest-lsp leaves it unannotated
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator]
    def register(params: types.RegistrationParams) -> None:
        return None  # VS Code's capabilities register dynamically: lintel asks it to watch its files

    yield lsp_client
    await lsp_client.shutdown_session()


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "api.txt").write_text("line one\nline two\nline three\n")
    (root / "lintel.toml").write_text(
        # A validator printing tsc-format output, so the tsc parser places an issue in src/api.txt:2.
        "[[validators]]\n"
        'id = "types"\n'
        "run = \"echo 'src/api.txt(2,6): error TS2322: Type number is not assignable to type string.'; exit 2\"\n"
        'parser = "tsc"\n'
        "run_on_save = true\n\n"
        "[[validators]]\n"
        'id = "contract"\n'
        "run = \"echo 'contract broken'; exit 1\"\n"
    )
    return root


async def start(client: LanguageClient, root: Path) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )


async def wait_for(predicate: Callable[[], bool], timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


async def test_validate_returns_results_and_publishes(client: LanguageClient, tmp_path: Path) -> None:
    root = workspace(tmp_path)
    await start(client, root)
    results = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lintel.validate"))
    assert results is not None
    by_id = {r["id"]: r for r in results}
    assert set(by_id) == {"types", "contract"}
    assert by_id["types"]["ok"] is False
    [issue] = by_id["types"]["issues"]
    assert (issue["file"], issue["line"], issue["rule"], issue["kind"]) == ("src/api.txt", 2, "TS2322", "typecheck")
    assert issue["signature"].startswith("typecheck:src/api.txt:2:")
    assert by_id["contract"]["issues"][0]["kind"] == "custom"
    assert by_id["contract"]["rawOutput"].endswith("exit: 1")
    uri = (root / "src" / "api.txt").as_uri()
    await wait_for(lambda: uri in client.diagnostics)
    [diagnostic] = client.diagnostics[uri]
    assert diagnostic.source == "types"
    assert diagnostic.range.start == types.Position(line=1, character=5)

    only = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="lintel.validate", arguments=[{"ids": ["contract"]}])
    )
    assert only is not None
    assert [r["id"] for r in only] == ["contract"]
    with pytest.raises(Exception, match="unknown validator 'nope'"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="lintel.validate", arguments=[{"ids": ["nope"]}])
        )


async def test_run_on_save_validator_publishes_after_a_save(client: LanguageClient, tmp_path: Path) -> None:
    root = workspace(tmp_path)
    await start(client, root)
    saved = root / "src" / "api.txt"
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=saved.as_uri()))
    )
    await wait_for(lambda: saved.as_uri() in client.diagnostics)
    assert [d.source for d in client.diagnostics[saved.as_uri()]] == ["types"]
