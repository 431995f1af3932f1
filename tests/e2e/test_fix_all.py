"""The MCP tool `apply_fixes` and the LSP command `lintel.fixAll` on tests/workspaces/fix-cli with the real ruff: each
writes what `lintel check --fix` writes (byte for byte), dry_run writes nothing and answers `lintel check --diff`'s
diff, the findings left are the CLI's, and both refuse paths outside the workspace and untrusted workspaces with
the same message."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start
from tests.e2e.test_faults import error_of
from tests.helpers import copy_workspace, missing_tool, require_tool, run_lintel
from tests.integration.test_fix_cli import diff_bytes, tree

if importlib.util.find_spec("mcp") is None:
    missing_tool("the MCP SDK is not installed (pip install -e '.[dev]', or run scripts/setup-dev)", module=True)

from tests.e2e.test_mcp import agent  # needs the SDK, checked above


@pytest.fixture
def client_name() -> str:
    """One editor's capabilities: the command does not depend on them."""
    return "visual-studio-code"


def cli_fixed(tmp_path: Path, *flags: str) -> tuple[Path, list[dict[str, Any]]]:
    """A copy fixed by `lintel check --fix`, and the lint findings its report leaves."""
    root = copy_workspace("fix-cli", tmp_path / "by-cli")
    proc = run_lintel("check", str(root), "--fix", *flags, "--only", "lint", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    return root, json.loads(proc.stdout)["issues"]


def comparable(issues: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((i["file"], i["line"], i["column"], i["rule"], i["fingerprint"]) for i in issues)


async def test_apply_fixes_and_fix_all_write_what_the_cli_writes(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    require_tool("ruff")
    by_cli, left = cli_fixed(tmp_path)
    editor = await start("fix-cli")
    over_lsp = await editor.execute("lintel.fixAll", {"path": "."})
    assert tree(editor.root) == tree(by_cli)

    by_mcp = copy_workspace("fix-cli", tmp_path / "by-mcp")
    async with agent(by_mcp, server_env) as client:
        over_mcp = await client.result("apply_fixes", {})
    assert tree(by_mcp) == tree(by_cli)

    assert over_mcp is not None
    assert over_mcp == over_lsp
    assert over_mcp["dryRun"] is False
    assert over_mcp["applied"] == 9
    assert [f["file"] for f in over_mcp["files"]] == ["src/shop/cart.py", "src/shop/stock.py"]
    assert comparable(over_mcp["remaining"]) == comparable(left)


async def test_dry_run_writes_nothing_and_answers_the_cli_diff(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    require_tool("ruff")
    cli_copy = copy_workspace("fix-cli", tmp_path / "by-cli")
    code, diff, stderr = diff_bytes(str(cli_copy), "--unsafe-fixes")
    assert code == 1, stderr
    editor = await start("fix-cli")
    before = tree(editor.root)
    over_lsp = await editor.execute("lintel.fixAll", {"path": ".", "unsafe": True, "dry_run": True})
    async with agent(editor.root, server_env) as client:
        over_mcp = await client.result("apply_fixes", {"unsafe": True, "dry_run": True})
    assert tree(editor.root) == before
    assert over_mcp == over_lsp
    assert over_mcp is not None
    assert over_mcp["dryRun"] is True
    assert "".join(f["diff"] for f in over_mcp["files"]).encode() == diff


async def test_a_file_is_fixed_alone(start: Start, server_env: dict[str, str], tmp_path: Path) -> None:
    require_tool("ruff")
    by_cli = copy_workspace("fix-cli", tmp_path / "by-cli")
    run_lintel("check", str(by_cli / "src" / "shop" / "stock.py"), "--fix")
    editor = await start("fix-cli")
    answer = await editor.execute("lintel.fixAll", {"path": "src/shop/stock.py"})
    assert [f["file"] for f in answer["files"]] == ["src/shop/stock.py"]
    assert tree(editor.root) == tree(by_cli)
    assert {i["file"] for i in answer["remaining"]} == {"src/shop/stock.py"}
    # The lint run that found what is left is published: the editor shows the fixed file's findings, no more.
    left = sorted(i["rule"] for i in answer["remaining"])
    shown = await editor.wait_for_diagnostics(
        editor.uri("src/shop/stock.py"), lambda found: sorted(str(d.code) for d in found) == left
    )
    assert shown


async def test_paths_outside_the_workspace_are_refused(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text('[project]\nname = "outside"\nversion = "0"\n', encoding="utf-8")
    (outside / "x.py").write_text("import os\n", encoding="utf-8")
    editor = await start("fix-cli")
    (editor.root / "escape").symlink_to(outside, target_is_directory=True)
    async with agent(editor.root, server_env) as client:
        for path in (str(outside), "escape", "escape/x.py", "../outside/x.py"):
            refused = await error_of(editor, "lintel.fixAll", {"path": path})
            assert refused.message == f"path {path!r} is outside the workspace; lintel only runs inside it"
            assert await client.error("apply_fixes", {"path": path}) == refused.message
        assert await client.error("apply_fixes", {"file": "escape/x.py"}) == (
            "file 'escape/x.py' is outside the workspace; lintel only runs inside it"
        )
    assert (outside / "x.py").read_text(encoding="utf-8") == "import os\n"


async def test_an_untrusted_workspace_is_refused_and_left_as_it_is(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    editor = await start("fix-cli", init_options={"trusted": False})
    before = tree(editor.root)
    refused = await error_of(editor, "lintel.fixAll", {"path": "."})
    assert refused.message == "this workspace is not trusted: lintel runs no tools here"
    async with agent(editor.root, server_env, "--untrusted") as client:
        assert await client.error("apply_fixes", {}) == refused.message
    assert tree(editor.root) == before
