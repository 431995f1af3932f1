"""lintel.engine.commandtable: one table of commands, from which the LSP handlers and the MCP tools are both made;
and the typed requests `lintel check` and `lintel detect` read."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from lintel.engine.actions import ActionError, CommandArgs
from lintel.engine.commandtable import COMMANDS, LSP_COMMANDS, MCP_TOOLS
from lintel.engine.config import LintelConfig
from lintel.engine.detect_report import detect_document, detect_report
from lintel.frontends import cli
from lintel.frontends.check_request import CheckRequest, DetectRequest
from lintel.frontends.lsp.advertised import COMMANDS as ADVERTISED
from lintel.frontends.lsp.advertised import OPEN_DOCUMENTATION
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.commands import Commands
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.mcp import tools
from lintel.frontends.mcp.workspace import Host, Workspace
from lsprotocol import types
from pygls.exceptions import JsonRpcException


def test_every_command_is_named_once_over_each_protocol() -> None:
    lsp = [c.lsp for c in COMMANDS if c.lsp is not None]
    mcp = [c.mcp for c in COMMANDS if c.mcp is not None]
    assert len(lsp) == len(set(lsp))
    assert len(mcp) == len(set(mcp))
    assert all(c.lsp is not None or c.mcp is not None for c in COMMANDS)
    # The editor is told of every LSP name (advertised.py); openDocumentation takes a page, not these arguments.
    assert {*lsp, OPEN_DOCUMENTATION} == set(ADVERTISED)
    for command in COMMANDS:
        assert set(command.arguments.fields) <= set(CommandArgs.model_fields), command
        assert set(command.arguments.required) <= set(command.arguments.fields), command
        assert (command.mcp is None) == (not command.description), command  # an agent reads about each tool


async def _never(*args: object) -> None:
    raise AssertionError("not called")


def test_both_front_ends_are_made_from_the_table() -> None:
    server = LintelServer()
    handlers = Commands(server, Diagnostics(server), _never, _never).handlers
    assert handlers == LSP_COMMANDS
    assert {tool.name: tool.entry for tool in tools.TOOLS} == MCP_TOOLS
    for tool in tools.TOOLS:
        assert tool.command == tool.entry.lsp
        # The table's arguments, and the budget's (max_issues, severity) where the tool's answers hold issues.
        own = tool.entry.arguments.input_schema()
        listed = tool.input_schema()
        budget = {name: listed["properties"].pop(name) for name in tools.BUDGET_FIELDS if name in listed["properties"]}
        assert listed == own
        assert set(budget) in (set(), set(tools.BUDGET_FIELDS)), tool.name


def test_an_editor_command_takes_every_field_a_tool_only_its_own() -> None:
    detect = MCP_TOOLS["detect"]
    args = detect.arguments.parse("lintel.detect", [{"path": ".", "language": "go"}], only_listed=False)
    assert args == CommandArgs(path=".", language="go")
    with pytest.raises(ActionError, match=r"^detect: language: Extra inputs are not permitted$"):
        detect.arguments.parse("detect", [{"path": ".", "language": "go"}], only_listed=True)


def test_the_detect_report_is_typed_and_its_json_is_the_document(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n", encoding="utf-8")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text('{"name": "web"}', encoding="utf-8")
    report = detect_report(tmp_path, LintelConfig())
    assert [(p.language, p.root) for p in report.projects] == [("go", "."), ("node", "web")]
    assert report.projects[1].package_manager == "npm"
    document = detect_document(tmp_path, LintelConfig())
    assert document == report.to_json()
    assert list(document) == ["version", "root", "projects", "languages"]
    assert list(document["projects"][0]) == ["language", "root", "markers", "checks", "navigation"]
    assert list(document["projects"][1])[5:] == ["packageManager", "scripts"]
    assert list(document["projects"][0]["checks"]["lint"])[:3] == ["tool", "argv", "binaries"]
    assert list(document["projects"][0]["navigation"]) == ["name", "argv", "found", "reason"]


def _dests(parser: argparse.ArgumentParser, command: str) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest for a in sub.choices[command]._actions if a.dest != "help"}


def test_every_flag_of_check_and_detect_reaches_the_typed_request() -> None:
    parser = cli.build_parser()
    # -v/--verbose is the top-level flag; the rest are check's own.
    assert _dests(parser, "check") | {"verbose"} == set(CheckRequest.__dataclass_fields__)
    assert _dests(parser, "detect") == set(DetectRequest.__dataclass_fields__)
    args = parser.parse_args(["-v", "check", "src", "--language", " Python ", "--project", "a", "--project", "b"])
    request = CheckRequest.from_namespace(args)
    assert (request.path, request.language, request.project, request.verbose) == ("src", "python", ("a", "b"), True)
    assert request == CheckRequest(path="src", language="python", project=("a", "b"), verbose=True)
    assert DetectRequest.from_namespace(parser.parse_args(["detect", "--json"])) == DetectRequest(json=True)


async def test_fixing_needs_a_target_in_the_editor_only(tmp_path: Path) -> None:
    """lintel.fixAll fixes what the editor names; apply_fixes without `file` or `path` takes the workspace's
    project (refused here as untrusted: nothing runs)."""
    server = LintelServer()
    commands = Commands(server, Diagnostics(server), _never, _never)
    with pytest.raises(JsonRpcException, match=r"^lintel.fixAll: path: Field required$"):
        await commands.execute(types.ExecuteCommandParams(command="lintel.fixAll", arguments=[]))
    workspace = Workspace(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    workspace.refresh()
    apply_fixes = tools.find("apply_fixes")
    with pytest.raises(ActionError, match=r"^this workspace is not trusted: lintel runs no tools here$"):
        await apply_fixes.call(Host([workspace], trusted=False), apply_fixes.parse(None), lambda pid: None)
