"""`lintel mcp`'s navigation tools driven by the official MCP SDK client: each answers what lintel's LSP side
(`lintel serve` under pytest-lsp) answers for the same position, positions counted in code points; rename's
dry run writes nothing and a real rename leaves the project type-checking with its tests passing; bad positions
and files outside the workspace are tool errors after which the server still answers."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.e2e.nav_support import Nav, end_session, hover_text, require_rust_analyzer, start_session, target
from tests.e2e.test_mcp import Agent, agent
from tests.helpers import copy_workspace, require_tool, tool_path

DEADLINE = 90.0  # a cold language server loading its workspace on a busy machine; never an assertion on speed


# language: (file, text on the line, symbol) for definition/hover, (file, text on the line, symbol) for references
CASES: dict[str, tuple[tuple[str, str, str], tuple[str, str, str], str]] = {
    "python": (
        ("src/inventory/labels.py", "é 🍰", "total_value"),
        ("src/inventory/models.py", "def total_value", "total_value"),
        "src/inventory/models.py",
    ),
    "go": (("label.go", "é 🍰", "Greeting"), ("greet.go", "func Greeting", "Greeting"), "greet.go"),
    "node": (
        ("src/labels.ts", "é 🍰", "describe"),
        ("src/api.ts", "export function describe", "describe"),
        "src/api.ts",
    ),
    "rust": (("src/main.rs", "let total = add(", "add"), ("src/lib.rs", "pub fn add", "add"), "src/lib.rs"),
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


@pytest.fixture
def env(server_env: dict[str, str]) -> dict[str, str]:
    return {**server_env, "PATH": tool_path()}


@pytest_asyncio.fixture
async def lsp(tmp_path: Path) -> AsyncIterator[Callable[[str], Awaitable[Nav]]]:
    clients = []

    async def start(language: str) -> Nav:
        client, nav = await start_session(tmp_path / "lsp", "visual-studio-code", language)
        clients.append(client)
        return nav

    (tmp_path / "lsp").mkdir()
    yield start
    for client in clients:
        await end_session(client)


def _mcp_position(root: Path, relative: str, line_contains: str, symbol: str) -> tuple[int, int]:
    """1-based line and code-point column of `symbol` on the first line containing `line_contains`."""
    for number, text in enumerate((root / relative).read_text(encoding="utf-8").splitlines()):
        if line_contains in text:
            found = re.compile(rf"(?<!\w){re.escape(symbol)}").search(text, text.index(line_contains))
            assert found is not None
            return number + 1, found.start() + 1
    raise AssertionError(f"no line containing {line_contains!r} in {relative}")


def _code_points(path: Path, line: int, character: int) -> int:
    """A UTF-16 column (VS Code's encoding) as code points on the file's line."""
    text = path.read_text(encoding="utf-8").splitlines()[line]
    return len(text.encode("utf-16-le")[: character * 2].decode("utf-16-le"))


def _lsp_locations(nav: Nav, found: list[Any]) -> set[tuple[str, int, int]]:
    out = set()
    for item in found:
        uri, span = target(item)
        path = Path(uri.removeprefix("file://"))
        shown = path.relative_to(nav.roots[0]).as_posix() if path.is_relative_to(nav.roots[0]) else str(path)
        out.add((shown, span.start.line + 1, _code_points(path, span.start.line, span.start.character) + 1))
    return out


def _mcp_locations(answer: dict[str, Any]) -> set[tuple[str, int, int]]:
    return {(item["file"], item["line"], item["column"]) for item in answer["locations"]}


async def _until(agent_: Agent, tool: str, arguments: dict[str, Any], ready: Callable[[dict[str, Any]], bool]) -> Any:
    """Asked until `ready` (a child may still be loading its workspace); the last answer otherwise."""
    deadline = time.monotonic() + DEADLINE
    while True:
        answer = await agent_.result(tool, arguments)
        assert answer is not None
        if ready(answer) or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.5)


def _lsp_symbols(nav: Nav, path: Path, symbols: list[Any]) -> set[tuple[str, int, int]]:
    out: set[tuple[str, int, int]] = set()
    for symbol in symbols:
        if isinstance(symbol, types.DocumentSymbol):
            start = symbol.selection_range.start
            out.add((symbol.name, start.line + 1, _code_points(path, start.line, start.character) + 1))
            out |= _lsp_symbols(nav, path, list(symbol.children or ()))
        else:
            start = symbol.location.range.start
            out.add((symbol.name, start.line + 1, _code_points(path, start.line, start.character) + 1))
    return out


@pytest.mark.parametrize("language", sorted(CASES))
async def test_navigation_tools_answer_what_the_lsp_side_answers(
    language: str, lsp: Callable[[str], Awaitable[Nav]], env: dict[str, str], tmp_path: Path
) -> None:
    _require(language)
    (definition_at, references_at, symbols_file) = CASES[language]
    nav = await lsp(language)
    root = copy_workspace(language, tmp_path / "mcp")
    async with agent(root, env) as client:
        file, line_contains, symbol = definition_at
        line, column = _mcp_position(root, file, line_contains, symbol)
        lsp_definition = _lsp_locations(nav, await nav.definition(file, line_contains, symbol, into=symbols_file))
        args = {"file": file, "line": line, "column": column}
        answer = await _until(client, "find_definition", args, lambda a: _mcp_locations(a) == lsp_definition)
        assert _mcp_locations(answer) == lsp_definition

        lsp_hover = hover_text(await nav.hover(file, line_contains, symbol))
        answer = await _until(client, "hover", args, lambda a: a["contents"] == lsp_hover)
        assert answer["contents"] == lsp_hover

        file, line_contains, symbol = references_at
        line, column = _mcp_position(root, file, line_contains, symbol)
        lsp_references = _lsp_locations(nav, await nav.references(file, line_contains, symbol))
        args = {"file": file, "line": line, "column": column}
        answer = await _until(client, "find_references", args, lambda a: _mcp_locations(a) == lsp_references)
        assert _mcp_locations(answer) == lsp_references

        # The same position named by its symbol.
        by_name = await client.result("find_references", {"file": file, "symbol": symbol})
        assert by_name is not None
        assert _mcp_locations(by_name) == lsp_references

        path = nav.path(symbols_file)
        document = types.DocumentSymbolParams(text_document=nav.doc(symbols_file))
        lsp_symbols = await nav.until(lambda: nav.client.text_document_document_symbol_async(document), bool)
        expected = _lsp_symbols(nav, path, list(lsp_symbols or ()))
        answer = await client.result("document_symbols", {"file": symbols_file})
        assert answer is not None
        assert {(s["name"], s["line"], s["column"]) for s in answer["symbols"]} == expected

        found = await _until(client, "workspace_symbols", {"query": symbol}, lambda a: bool(a["symbols"]))
        assert any(s["name"].endswith(symbol) and s["file"] == symbols_file for s in found["symbols"]), found


def _hashes(root: Path) -> dict[str, tuple[str, int]]:
    return {
        p.relative_to(root).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and "node_modules" not in p.parts
    }


def _python_checks(root: Path, env: dict[str, str]) -> tuple[str, str]:
    """The last lines of the project's tests and of basedpyright's check: their counts of passed, failed, errors."""
    run_env = {**env, "PYTHONPATH": str(root / "src")}
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root,
        env=run_env,
        capture_output=True,
        text=True,
        check=False,
    )
    check = subprocess.run(
        [require_tool("basedpyright", "pip install basedpyright"), "src", "tests"],
        cwd=root,
        env=run_env,
        capture_output=True,
        text=True,
        check=False,
    )
    last = [line for line in tests.stdout.splitlines() if line.strip()][-1:]
    counted = [line for line in check.stdout.splitlines() if "error" in line and "warning" in line][-1:]
    return (last[0] if last else tests.stderr), (counted[0] if counted else check.stdout + check.stderr)


def _counts(summary: str) -> str:
    return re.sub(r" in [0-9.]+s.*", "", summary)


async def test_rename_python_dry_run_writes_nothing_then_renames(env: dict[str, str], tmp_path: Path) -> None:
    _require("python")
    root = copy_workspace("python", tmp_path / "python")
    tests_before, check_before = _python_checks(root, env)
    before = _hashes(root)
    arguments = {"file": "src/inventory/models.py", "symbol": "total_value", "new_name": "stock_value"}
    async with agent(root, env) as client:
        preview = await client.result("rename_symbol", {**arguments, "dry_run": True})
        assert preview is not None
        assert preview["applied"] is False
        assert _hashes(root) == before
        files = {f["file"] for f in preview["files"]}
        assert {"src/inventory/models.py", "src/inventory/labels.py", "tests/test_models.py"} <= files
        assert all("-" in f["diff"] and "+" in f["diff"] and "stock_value" in f["diff"] for f in preview["files"])

        done = await client.result("rename_symbol", arguments)
        assert done is not None
        assert done["applied"] is True
        assert {f["file"] for f in done["files"]} == files
        assert "def stock_value" in (root / "src/inventory/models.py").read_text(encoding="utf-8")
        assert "total_value(" not in (root / "tests/test_models.py").read_text(encoding="utf-8")

        # Navigation follows the files on disk: the new name is found where the old one was.
        found = await client.result("find_references", {"file": "src/inventory/models.py", "symbol": "stock_value"})
        assert found is not None
        assert {"src/inventory/labels.py", "tests/test_models.py"} <= {loc["file"] for loc in found["locations"]}
    tests_after, check_after = _python_checks(root, env)
    assert _counts(tests_after) == _counts(tests_before), (tests_before, tests_after)
    assert check_after == check_before


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


async def test_rename_go_keeps_the_package_building(env: dict[str, str], tmp_path: Path) -> None:
    _require("go")
    root = copy_workspace("go", tmp_path / "go")
    go = require_tool("go", "install Go")
    baseline = _run([go, "test", "-count=1", "./..."], root, env)
    async with agent(root, env) as client:
        done = await client.result(
            "rename_symbol", {"file": "greet.go", "symbol": "Greeting", "new_name": "Salutation"}
        )
        assert done is not None
        assert {f["file"] for f in done["files"]} == {"greet.go", "greet_test.go", "label.go"}
    build = _run([go, "build", "./..."], root, env)
    assert build.returncode == 0, build.stderr
    vet = _run([go, "vet", "./..."], root, env)
    assert "undefined" not in vet.stderr, vet.stderr
    tests = _run([go, "test", "-count=1", "./..."], root, env)
    assert tests.returncode == baseline.returncode, tests.stdout + tests.stderr
    assert "Greeting" not in (root / "label.go").read_text(encoding="utf-8")


def _running_in(root: Path) -> list[int]:
    """The live basedpyright processes working in `root` (the language server lintel started there)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or Path(os.readlink(entry / "cwd")) != root:
                continue
            if b"basedpyright" in (entry / "cmdline").read_bytes():
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


async def test_bad_positions_and_outside_files_are_tool_errors(env: dict[str, str], tmp_path: Path) -> None:
    _require("python")
    root = copy_workspace("python", tmp_path / "python")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n", encoding="utf-8")
    file = "src/inventory/models.py"
    async with agent(root, env) as client:
        assert "past the end" in await client.error("find_definition", {"file": file, "line": 999, "column": 1})
        assert "past the end" in await client.error("hover", {"file": file, "line": 1, "column": 500})
        assert "outside the workspace" in await client.error(
            "find_references", {"file": str(outside), "line": 1, "column": 1}
        )
        assert "does not occur" in await client.error("find_definition", {"file": file, "symbol": "no_such_name"})
        assert "line" in await client.error("find_definition", {"file": file, "line": 0, "column": 1})
        assert "no language server" in await client.error("document_symbols", {"file": "pyproject.toml"})
        answer = await client.result("document_symbols", {"file": file})
        assert answer is not None
        assert {"Item", "total_value", "restock"} <= {s["name"] for s in answer["symbols"]}
        await client.alive()
        assert _running_in(root), "the language server was started"
    # lintel mcp stopped its language server on the way out.
    deadline = time.monotonic() + DEADLINE
    while True:
        left = _running_in(root)
        if not left or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert not left, left


async def test_an_ambiguous_symbol_lists_its_declarations(env: dict[str, str], tmp_path: Path) -> None:
    _require("python")
    root = copy_workspace("python", tmp_path / "python")
    extra = root / "src/inventory/twice.py"
    extra.write_text(
        "class A:\n    def size(self) -> int:\n        return 1\n\n\n"
        "class B:\n    def size(self) -> int:\n        return 2\n"
    )
    async with agent(root, env) as client:
        message = await client.error("find_references", {"file": "src/inventory/twice.py", "symbol": "size"})
        assert "src/inventory/twice.py:2:9" in message, message
        assert "src/inventory/twice.py:7:9" in message, message
        await client.alive()


async def test_a_rename_outside_the_workspace_writes_nothing(env: dict[str, str], tmp_path: Path) -> None:
    """A symbol of a file outside the workspace (a library's) cannot be renamed through it: refused, nothing
    written (unit tests cover the edit planning; here the tool on a real server)."""
    _require("python")
    root = copy_workspace("python", tmp_path / "python")
    before = _hashes(root)
    async with agent(root, env) as client:
        message = await client.error(
            "rename_symbol", {"file": "src/inventory/models.py", "symbol": "dataclass", "new_name": "dc"}
        )
        assert message
        await client.alive()
    assert _hashes(root) == before
