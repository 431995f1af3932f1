"""A child language server's diagnostics for a proposed text (lintel.frontends.relay.overlay through
lintel.frontends.mcp.servers.AgentServers): the real servers report the proposed text's type error, the file on
disk is untouched, and the child answers for the disk text again afterwards. A server that never publishes
diagnostics gives `timed_out`, not a clean result."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lintel.frontends.mcp.servers import AgentServers
from lintel.frontends.mcp.workspace import Host, Workspace
from lsprotocol import types

from tests.e2e.nav_support import require_rust_analyzer
from tests.helpers import copy_workspace, require_tool, tool_path

SILENT = Path(__file__).with_name("silent_language_server.py")

# language: (workspace file, text appended, a word of the expected message, a rule the server may name)
CASES = {
    "python": ("src/inventory/models.py", '\n\nproposed_bad: int = "no"\n', "proposed_bad", "str"),
    "go": ("greet.go", '\nvar ProposedBad int = "no"\n', "ProposedBad", "string"),
    "node": ("src/api.ts", '\nexport const proposedBad: number = "no";\n', "proposedBad", "string"),
    # rust-analyzer's type-mismatch check is experimental (off by default); a call's argument count is not.
    "rust": ("src/lib.rs", "\npub fn proposed_bad() -> i32 {\n    add(1)\n}\n", "proposed_bad", "argument"),
}


def _require(language: str) -> None:
    if language == "python":
        require_tool("basedpyright-langserver", "pip install basedpyright")
    elif language == "go":
        require_tool("gopls", "go install golang.org/x/tools/gopls@latest")
    elif language == "node":
        require_tool("typescript-language-server", "npm install -g typescript-language-server typescript")
    else:
        require_rust_analyzer()


@pytest_asyncio.fixture
async def servers_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[object]:
    monkeypatch.setenv("PATH", tool_path())
    made: list[AgentServers] = []

    def make(language: str, config: str = "") -> tuple[AgentServers, Path]:
        root = copy_workspace(language, tmp_path / language)
        if config:
            (root / "lintel.toml").write_text(config, encoding="utf-8")
        workspace = Workspace(root)
        workspace.refresh()
        servers = AgentServers(Host([workspace]))
        made.append(servers)
        return servers, root

    yield make
    for servers in made:
        await servers.stop()


async def _symbols(servers: AgentServers, path: Path) -> set[str]:
    found = await servers.request(path, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, {})

    def names(items: object) -> set[str]:
        out: set[str] = set()
        for item in items if isinstance(items, list) else []:
            out.add(item["name"])
            out |= names(item.get("children"))
        return out

    return names(found)


@pytest.mark.parametrize("language", sorted(CASES))
async def test_a_proposed_type_error_is_reported_and_the_file_is_untouched(language: str, servers_of: object) -> None:
    _require(language)
    relative, appended, name, word = CASES[language]
    servers, root = servers_of(language)  # type: ignore[operator]
    path = root / relative
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    await servers.child(path)
    text = before.decode("utf-8") + appended
    result = None
    for _ in range(8):  # a child still loading its workspace (rust-analyzer: build scripts) publishes nothing yet
        result = await servers.server_diagnostics(servers.host.folders[0], path, text)
        assert result is not None
        if any(name in (i.message or "") or word in i.message for i in result.issues):
            break
        await asyncio.sleep(2)
    assert result is not None
    assert result.check == "typecheck"
    assert not result.timed_out, result.reason
    added_line = len(before.decode("utf-8").splitlines()) + 1
    new = [i for i in result.issues if i.line is not None and i.line >= added_line]
    assert new, [(i.line, i.message) for i in result.issues]
    assert all(i.source == result.tool and i.file == relative for i in new)
    assert all(i.column is not None and i.column >= 1 for i in new)
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime
    # The child answers for the text on disk again: the proposed declaration is not among the file's symbols.
    symbols = await _symbols(servers, path)
    assert name not in symbols, symbols


async def test_a_server_that_never_publishes_diagnostics_times_out(servers_of: object) -> None:
    silent = f'[languages.python]\nserver = ["{sys.executable}", "{SILENT}"]\n'
    servers, root = servers_of("python", silent)  # type: ignore[operator]
    path = root / "src/inventory/models.py"
    servers.overlay_timeout = 1.0
    result = await servers.server_diagnostics(servers.host.folders[0], path, path.read_text() + "\nx = 1\n")
    assert result is not None
    assert result.timed_out
    assert result.status == "not_checked"
    assert result.reason is not None
    assert "within" in result.reason
