"""`lintel mcp` driven by the official MCP SDK's client session over stdio: the tools answer what
the LSP commands answer on the same fixture, refuse what they refuse with the same messages, run nothing in an
untrusted workspace, and kill a cancelled run's process group."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.conftest import Start, tool_env
from tests.e2e.test_faults import HANGING_TOOL, MARKER_TOOL, assert_gone, error_of, running, wait_for_pids
from tests.helpers import copy_workspace, missing_tool, require_path, require_tool

if importlib.util.find_spec("mcp") is None:
    # The SDK comes with the dev extra (scripts/setup-dev); under LINTEL_REQUIRE_TOOLS=1 its absence fails.
    missing_tool("the MCP SDK is not installed (pip install -e '.[dev]', or run scripts/setup-dev)", module=True)

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, TextContent

PRICING = "src/inventory/pricing.py"
NODE_MODULES = Path(__file__).parents[1] / "workspaces" / "node" / "node_modules"
CALL_TIMEOUT = 300.0
TOOLS = {
    "apply_fixes",
    "tests_covering",
    "list_tests",
    "run_tests",
    "run_failing_tests",
    "run_script",
    "last_test_failures",
    "run_lint",
    "run_typecheck",
    "run_format_check",
    "detect",
    "diagnostics",
    "check_edit",
    "find_definition",
    "find_references",
    "rename_symbol",
    "hover",
    "document_symbols",
    "workspace_symbols",
}


@pytest.fixture
def client_name() -> str:
    """One editor's capabilities for the LSP side of the comparisons (the commands do not depend on them)."""
    return "neovim"


@pytest.fixture
def server_env(cargo_target_dir: Path, tmp_path: Path) -> dict[str, str]:
    """Both servers' environment; the coverage index goes to the user cache: a private one per test."""
    return {**tool_env(cargo_target_dir), "XDG_CACHE_HOME": str(tmp_path / "cache")}


@dataclass
class Agent:
    """An initialized MCP client session with `lintel mcp` on one workspace."""

    session: ClientSession
    root: Path

    async def call(self, tool: str, arguments: Mapping[str, Any] | None = None, **kwargs: Any) -> CallToolResult:
        return await asyncio.wait_for(self.session.call_tool(tool, dict(arguments or {}), **kwargs), CALL_TIMEOUT)

    async def result(self, tool: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """A call that must succeed: its structured result, checked against the JSON text block it also sends."""
        answer = await self.call(tool, arguments)
        assert not answer.is_error, (tool, arguments, answer.content)
        summary, as_text = answer.content
        assert isinstance(summary, TextContent)
        assert summary.text.strip()
        assert isinstance(as_text, TextContent)
        assert json.loads(as_text.text) == answer.structured_content
        return answer.structured_content  # type: ignore[no-any-return]

    async def error(self, tool: str, arguments: Mapping[str, Any] | None = None) -> str:
        answer = await self.call(tool, arguments)
        assert answer.is_error, (tool, arguments, answer.structured_content)
        [message] = answer.content
        assert isinstance(message, TextContent)
        return message.text

    async def alive(self) -> None:
        detected = await self.result("detect")
        assert detected is not None
        assert detected["projects"], detected


@asynccontextmanager
async def agent(root: Path, env: Mapping[str, str], *flags: str) -> AsyncIterator[Agent]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "lintel", "mcp", "--root", str(root), *flags], env=dict(env), cwd=root
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), 60)
        yield Agent(session, root)


def text_of(answer: CallToolResult) -> str:
    """The summary: the first content block."""
    first = answer.content[0]
    assert isinstance(first, TextContent), answer.content
    return first.text


_REPORT = re.compile(r"/[^\s]*lintel-[^/\s]+/report")


def comparable(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A RunResult without what differs between two runs of the same thing: the time taken (and the output,
    which prints it) and the scratch path of pytest's report."""
    if result is None:
        return None
    out = {k: v for k, v in result.items() if k not in ("durationMs", "output", "outputOmitted")}
    out["argv"] = [_REPORT.sub("<report>", a) for a in result["argv"]]
    return out


def require_toolchain(language: str) -> None:
    if language == "python":
        for tool in ("pytest", "mypy", "ruff"):
            require_tool(tool)
    else:
        require_tool("npm", "install Node.js 20+")
        require_path(NODE_MODULES / ".bin" / "tsc")


# -- the tools and their answers -----------------------------------------------------------------------------


async def test_the_tools_are_listed_with_described_arguments(tmp_path: Path, server_env: dict[str, str]) -> None:
    root = copy_workspace("python", tmp_path / "python")
    async with agent(root, server_env) as client:
        listed = (await client.session.list_tools()).tools

    assert {t.name for t in listed} >= TOOLS
    for tool in listed:
        assert tool.description, tool.name
        schema = tool.input_schema
        assert schema["type"] == "object", schema
        assert schema["additionalProperties"] is False, schema
        assert schema["properties"], tool.name
        for name, field in schema["properties"].items():
            assert field.get("description"), (tool.name, name)
    by_name = {t.name: t.input_schema for t in listed}
    assert set(by_name["run_lint"]["properties"]) == {"language", "path", "timeout", "max_issues", "severity"}
    assert by_name["diagnostics"]["required"] == ["file"]


# (tool, LSP command, arguments) — each run by both on one copy of the fixture, in this order: the test run
# first, so that last_test_failures has one to return on both sides.
SAME_AS_LSP: list[tuple[str, str, dict[str, Any]]] = [
    ("last_test_failures", "lintel.lastTestFailures", {}),
    ("run_tests", "lintel.runTests", {}),
    ("last_test_failures", "lintel.lastTestFailures", {}),
    ("run_lint", "lintel.lint", {}),
    ("run_typecheck", "lintel.typecheck", {}),
    ("run_format_check", "lintel.format", {}),
    ("detect", "lintel.detect", {"path": "src"}),
]


@pytest.mark.parametrize("language", ["python", "node"])
async def test_each_tool_answers_what_the_lsp_command_answers(
    start: Start, server_env: dict[str, str], language: str
) -> None:
    require_toolchain(language)
    editor = await start(language)
    async with agent(editor.root, server_env) as client:
        for tool, command, arguments in SAME_AS_LSP:
            over_lsp = await editor.execute(command, *([arguments] if arguments else []))
            over_mcp = await client.result(tool, arguments)

            if tool == "detect":
                assert over_mcp == over_lsp
            elif over_lsp is None:  # no run recorded: null over LSP; over MCP an object (structured content is one)
                assert over_mcp == {"recorded": False, "language": language, "root": "."}, tool
            else:
                assert comparable(over_mcp) == comparable(over_lsp), tool
        failed = await client.call("run_tests")
    assert failed.structured_content is not None
    names = [f["name"] for f in failed.structured_content["failures"]]
    assert names, "the fixture has a failing test"
    summary = text_of(failed)
    assert " failed (" in summary.splitlines()[0], summary
    assert names[0] in summary, summary


async def test_the_format_check_is_ok_only_when_every_file_is_formatted(
    start: Start, server_env: dict[str, str]
) -> None:
    """run_format_check / lintel.format: the fixture's report.py is not formatted, so the answer is `ok: false`
    (format findings are warnings, which an error-level `ok` would pass); formatted, it is `ok: true`."""
    require_toolchain("python")
    editor = await start("python")
    async with agent(editor.root, server_env) as client:
        unformatted = await client.result("run_format_check")
        assert comparable(unformatted) == comparable(await editor.execute("lintel.format"))
        assert unformatted is not None
        assert {i["file"] for i in unformatted["issues"]} == {"src/inventory/report.py"}, unformatted["issues"]
        assert unformatted["ok"] is False

        report = editor.root / "src" / "inventory" / "report.py"
        text = report.read_text(encoding="utf-8")
        text = text.replace('[ f"', '[f"').replace('"   for', '" for').replace(" ]", "]").replace("'", '"')
        report.write_text(text, encoding="utf-8")  # what `ruff format` makes of it
        formatted = await client.result("run_format_check")
        assert comparable(formatted) == comparable(await editor.execute("lintel.format"))
        assert formatted is not None
        assert (formatted["issues"], formatted["ok"]) == ([], True)


def has_format_finding(diagnostics: Sequence[types.Diagnostic]) -> bool:
    return any(isinstance(d.data, dict) and d.data.get("kind") == "format" for d in diagnostics)


async def test_the_agent_loop_answers_what_the_lsp_commands_answer(start: Start, server_env: dict[str, str]) -> None:
    """run_tests, a subset by the failure's name, run_failing_tests and last_test_failures: each the same result
    as the LSP command's (each server keeps its own record, fed the same calls)."""
    require_toolchain("python")
    editor = await start("python")
    async with agent(editor.root, server_env) as client:
        refused_lsp = await error_of(editor, "lintel.runFailingTests")
        refused_mcp = await client.error("run_failing_tests")
        assert refused_mcp == refused_lsp.message
        assert refused_mcp.startswith("no test run recorded"), refused_mcp
        whole = await client.result("run_tests")
        assert comparable(whole) == comparable(await editor.execute("lintel.runTests"))
        assert whole is not None
        [failure] = whole["failures"]
        for tool, command, arguments in [
            ("run_tests", "lintel.runTests", {"tests": [failure["name"]]}),
            ("run_tests", "lintel.runTests", {"tests": [failure]}),  # the failure object itself
            ("run_failing_tests", "lintel.runFailingTests", {}),
            ("last_test_failures", "lintel.lastTestFailures", {}),
        ]:
            over_lsp = await editor.execute(command, *([arguments] if arguments else []))
            over_mcp = await client.result(tool, arguments)
            assert comparable(over_mcp) == comparable(over_lsp), tool
            assert over_mcp is not None
            assert [f["name"] for f in over_mcp["failures"]] == [failure["name"]], tool
            assert "1 failed" in over_mcp["output"], over_mcp["output"]  # pytest's own count: the one test ran

        unknown = {"tests": ["tests/test_models.py::test_no_such_test"]}
        refused_lsp = await error_of(editor, "lintel.runTests", unknown)
        assert await client.error("run_tests", unknown) == refused_lsp.message
        await client.alive()


async def test_a_path_naming_a_test_file_runs_its_tests_and_says_so(start: Start, server_env: dict[str, str]) -> None:
    """runTests/run_tests {path}: a test file runs that file's tests (pytest given the file, `scope` naming it);
    a source file or the project only picks the project, and `scope` says the whole suite ran."""
    require_toolchain("python")
    editor = await start("python")
    async with agent(editor.root, server_env) as client:
        one_file = {"path": "tests/test_pricing.py"}
        over_mcp = await client.result("run_tests", one_file)
        assert comparable(over_mcp) == comparable(await editor.execute("lintel.runTests", one_file))
        assert over_mcp is not None
        assert over_mcp["argv"][-2:] == ["--", "tests/test_pricing.py"]
        assert over_mcp["scope"] == "the tests in tests/test_pricing.py (`path`)"
        assert "3 passed" in over_mcp["output"], over_mcp["output"]  # test_models.py's failure did not run
        assert over_mcp["ok"] is True
        assert "the tests in tests/test_pricing.py" in text_of(await client.call("run_tests", one_file))

        source = {"path": PRICING}
        whole = await client.result("run_tests", source)
        assert comparable(whole) == comparable(await editor.execute("lintel.runTests", source))
        assert whole is not None
        assert "--" not in whole["argv"]
        assert whole["scope"] == (
            f"the whole suite of the python project at . (`path` {PRICING} is not a test file"
            " or a folder holding tests)"
        )
        assert whole["failures"], "the whole suite ran, with test_models.py's failure"


async def test_run_script_answers_what_the_lsp_command_answers(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    require_tool("npm", "install Node.js 20+")
    editor = await start("scripts-npm")
    async with agent(editor.root, server_env) as client:
        for arguments in ({"script": "greet", "args": ["a b", "--x"]}, {"script": "fail"}):
            over_lsp = await editor.execute("lintel.runScript", arguments)
            over_mcp = await client.result("run_script", arguments)
            assert comparable(over_mcp) == comparable(over_lsp), arguments
        assert over_mcp is not None
        assert over_mcp["ok"] is False
        unknown = await error_of(editor, "lintel.runScript", {"script": "deploy"})
        assert await client.error("run_script", {"script": "deploy"}) == unknown.message
        assert "available scripts: build, fail, greet" in unknown.message
        assert await client.error("run_script", {}) == "run_script: script: Field required"

    python = copy_workspace("python", tmp_path / "python")
    async with agent(python, server_env) as client:
        refused = await client.error("run_script", {"script": "build"})
    assert refused == "run_script is not supported for python projects yet"


async def test_tests_covering_answers_what_the_lsp_command_answers(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    require_tool("pytest")
    if importlib.util.find_spec("pytest_cov") is None:
        missing_tool("coverage and pytest-cov are not installed (pip install coverage pytest-cov)")
    editor = await start("python")
    # Each server its own coverage cache: the MCP side measures for itself, not from the LSP side's index.
    env = {**server_env, "XDG_CACHE_HOME": str(tmp_path / "mcp-cache")}
    async with agent(editor.root, env) as client:
        for arguments in (
            {"file": "src/inventory/models.py", "line": 20},
            {"file": str(editor.path(PRICING)), "line": 13},
            {"file": "src/inventory/models.py", "line": 25},
        ):
            over_lsp = await editor.execute("lintel.testsCovering", arguments)
            over_mcp = await client.result("tests_covering", arguments)
            assert over_mcp is not None
            moment = ("source", "measuredAt")  # when it was measured
            assert {k: v for k, v in over_mcp.items() if k not in moment} == {
                k: v for k, v in over_lsp.items() if k not in moment
            }
        assert over_mcp is not None
        assert over_mcp["tests"] == []  # line 25: no test runs it
        restock = await client.call("tests_covering", {"file": "src/inventory/models.py", "line": 20})
        assert "tests/test_models.py::test_restock_adds_units" in text_of(restock).splitlines()[0]
        missing_line = await client.error("tests_covering", {"file": "src/inventory/models.py"})
        assert missing_line == "tests_covering: line: Field required"


async def test_diagnostics_is_what_the_editor_shows_after_a_save(start: Start, server_env: dict[str, str]) -> None:
    require_tool("ruff")
    editor = await start("python")
    path = editor.path(PRICING)
    text = path.read_text(encoding="utf-8").replace("def ", "def  ", 1)  # a format finding beside the lint ones
    uri = editor.open(PRICING)
    await editor.wait_for_diagnostics(uri, lambda ds: bool(ds))
    editor.save(uri, text)
    published = await editor.wait_for_diagnostics(uri, has_format_finding)

    async with agent(editor.root, server_env) as client:
        found = await client.result("diagnostics", {"file": PRICING})
        absolute = await client.result("diagnostics", {"file": str(path)})

    assert found is not None
    assert absolute is not None
    assert (absolute["file"], absolute["issues"]) == (found["file"], found["issues"])
    assert (found["file"], found["language"], found["ok"]) == (PRICING, "python", False)
    # lintel's own runs, then the language server's diagnostics of the same text (the editor has them from the child).
    assert [(r["check"], r["tool"]) for r in found["runs"]] == [
        ("lint", "ruff"),
        ("format", "ruff"),
        ("typecheck", "basedpyright-langserver"),
    ]
    ours = [d for d in published if d.source != "basedpyright"]
    shown = sorted((d.range.start.line + 1, d.code, d.source, d.data["signature"]) for d in ours)  # type: ignore[index]
    answered = sorted(
        (i["line"], i.get("rule"), i["source"], i["signature"]) for i in found["issues"] if i["kind"] != "typecheck"
    )
    assert answered == shown
    assert all(i["file"] == PRICING for i in found["issues"])


# -- refusals: the LSP commands' messages, and the server stays up -----------------------------------------


def _without_prefix(message: str) -> str:
    """An argument error's text after the command or tool name that leads it (`lintel.lint: `, `run_lint: `)."""
    return message.split(": ", 1)[1]


async def test_bad_arguments_are_tool_errors_and_the_server_stays_up(start: Start, server_env: dict[str, str]) -> None:
    editor = await start("python")
    async with agent(editor.root, server_env) as client:
        for arguments in ({"timeout": "soon"}, {"bogus": 1}, {"timeout": -1}, {"language": 3}):
            over_lsp = await error_of(editor, "lintel.lint", arguments)
            over_mcp = await client.error("run_lint", arguments)
            assert over_mcp.startswith("run_lint: "), over_mcp
            assert _without_prefix(over_mcp) == _without_prefix(over_lsp.message), arguments
            await client.alive()

        assert await client.error("diagnostics", {}) == "diagnostics: file: Field required"
        assert await client.error("detect", {"timeout": 5}) == "detect: timeout: Extra inputs are not permitted"
        unknown = await client.error("no_such_tool", {})
        assert "no_such_tool" in unknown
        assert all(name in unknown for name in TOOLS), unknown
        missing = await client.error("diagnostics", {"file": "src/inventory/nope.py"})
        assert missing == "file 'src/inventory/nope.py' does not exist"
        await client.alive()


async def test_paths_outside_the_root_are_refused(start: Start, server_env: dict[str, str], tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text('[project]\nname = "outside"\nversion = "0"\n', encoding="utf-8")
    (outside / "x.py").write_text("import os\n", encoding="utf-8")
    editor = await start("python")
    (editor.root / "escape").symlink_to(outside, target_is_directory=True)

    async with agent(editor.root, server_env) as client:
        for path in (str(outside), "escape", "escape/pyproject.toml", "../outside"):
            over_lsp = await error_of(editor, "lintel.lint", {"path": path})
            assert await client.error("run_lint", {"path": path}) == over_lsp.message
            assert "outside the workspace" in over_lsp.message
        for file in (str(outside / "x.py"), "escape/x.py", "../outside/x.py"):
            refused = await client.error("diagnostics", {"file": file})
            assert refused == f"file {file!r} is outside the workspace; lintel only runs inside it"
        await client.alive()


async def test_polyglot_and_multi_project_refusals_are_the_lsp_ones(
    start: Start, server_env: dict[str, str], tmp_path: Path
) -> None:
    editor = await start("polyglot")
    async with agent(editor.root, server_env) as client:
        for tool, command, arguments in [
            ("run_lint", "lintel.lint", {}),
            ("run_typecheck", "lintel.typecheck", {"language": " Rust "}),
            ("last_test_failures", "lintel.lastTestFailures", {}),
        ]:
            over_lsp = await error_of(editor, command, *([arguments] if arguments else []))
            assert await client.error(tool, arguments) == over_lsp.message
        polyglot = await client.error("run_tests")
        assert polyglot == "polyglot workspace: 2 project types detected (go, node) — pass `language` to pick one"

    services = copy_workspace("mono-services", tmp_path / "services")
    async with agent(services, server_env) as client:
        several = await client.error("run_lint")
        assert re.fullmatch(r"\d+ projects found in workspace \(.*\) — pass `path` to pick one", several), several


# -- trust and processes -----------------------------------------------------------------------------------


def descendants(pid: int) -> set[int]:
    """Every living process below `pid` (from /proc's parent links)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def mcp_server_pid() -> int:
    """The `lintel mcp` this test started (a child of the test process)."""
    mine = [p for p in descendants(os.getpid()) if b"\0lintel\0mcp\0" in _cmdline(p)]
    assert len(mine) == 1, mine
    return mine[0]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def configure(root: Path, table: str) -> None:
    (root / "lintel.toml").write_text(table, encoding="utf-8")


def _toml_argv(argv: list[str]) -> str:
    return json.dumps(argv)


async def test_an_untrusted_workspace_runs_no_process(tmp_path: Path, server_env: dict[str, str]) -> None:
    root = copy_workspace("python", tmp_path / "python")
    marker = tmp_path / "a-tool-ran"
    tool = _toml_argv([sys.executable, "-c", MARKER_TOOL, str(marker)])
    checks = "\n".join(f"{check} = {tool}" for check in ("lint", "typecheck", "test", "format"))
    configure(root, f"[languages.python]\n{checks}\n")

    async with agent(root, server_env, "--untrusted") as client:
        server = mcp_server_pid()
        assert descendants(server) == set()
        for name, arguments in [
            ("run_tests", {}),
            ("run_lint", {}),
            ("run_typecheck", {}),
            ("run_format_check", {}),
            ("diagnostics", {"file": PRICING}),
        ]:
            refused = await client.error(name, arguments)
            assert refused == "this workspace is not trusted: lintel runs no tools here", (name, refused)
            assert descendants(server) == set(), name
        detected = await client.result("detect")  # detection starts no process: it still answers
        assert detected is not None
        assert detected["projects"][0]["checks"]["lint"]["argv"][-1] == str(marker)
        assert descendants(server) == set()
    assert not marker.exists(), "a tool ran in an untrusted workspace"


async def test_a_cancelled_call_kills_the_tool_and_its_children(tmp_path: Path, server_env: dict[str, str]) -> None:
    root = copy_workspace("python", tmp_path / "python")
    script = tmp_path / "hang.py"
    script.write_text(HANGING_TOOL, encoding="utf-8")
    pid_file = tmp_path / "pids"
    configure(root, f"[languages.python]\ntypecheck = {_toml_argv([sys.executable, str(script), str(pid_file)])}\n")
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async with agent(root, server_env) as client:
        call = asyncio.ensure_future(client.call("run_typecheck", progress_callback=on_progress))
        tool_pid, child_pid = await wait_for_pids(pid_file)
        assert running(tool_pid)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

        await assert_gone(tool_pid, child_pid)
        assert any(m and f"running (pid {tool_pid})" in m for m in progress), progress
        await client.alive()


class AgentGone(Exception):
    pass


async def test_a_client_that_goes_away_leaves_no_tool_running(tmp_path: Path, server_env: dict[str, str]) -> None:
    """The SDK's client closes stdin, then SIGTERMs a server that did not exit: the running tool's group goes
    (killed by lintel on SIGTERM, or else by its orphan watchdog)."""
    root = copy_workspace("python", tmp_path / "python")
    script = tmp_path / "hang.py"
    script.write_text(HANGING_TOOL, encoding="utf-8")
    pid_file = tmp_path / "pids"
    configure(root, f"[languages.python]\ntypecheck = {_toml_argv([sys.executable, str(script), str(pid_file)])}\n")

    ended: BaseException | None = None
    try:
        async with agent(root, server_env) as client:
            call = asyncio.ensure_future(client.call("run_typecheck"))
            tool_pid, child_pid = await wait_for_pids(pid_file)
            server = mcp_server_pid()
            raise AgentGone  # leaving the session with the call still running
    except BaseException as exc:  # AgentGone, maybe grouped with the pending call's error by the SDK's task group
        ended = exc
    assert ended is not None

    call.cancel()
    await assert_gone(tool_pid, child_pid, timeout=30)
    assert not running(server)


async def test_a_timeout_is_a_result_not_an_error(tmp_path: Path, server_env: dict[str, str]) -> None:
    root = copy_workspace("python", tmp_path / "python")
    configure(root, f"[languages.python]\nlint = {_toml_argv([sys.executable, '-c', 'import time; time.sleep(60)'])}\n")
    async with agent(root, server_env) as client:
        answer = await client.call("run_lint", {"timeout": 1})
    assert not answer.is_error
    result = answer.structured_content
    assert result is not None
    assert (result["ok"], result["timedOut"], result["exitCode"], result["status"]) == (False, True, 124, "not_checked")
    assert [i["kind"] for i in result["issues"]] == ["timeout"]
    assert "timed out after 1s" in text_of(answer)


# -- the README's example -------------------------------------------------------------------------------------


def test_the_example_agent_runs_the_loop(server_env: dict[str, str], tmp_path: Path) -> None:
    """examples/mcp_agent.py: diagnostics, tests_covering, run_tests {tests}, last_test_failures, run_failing_tests."""
    require_tool("pytest")
    if importlib.util.find_spec("pytest_cov") is None:
        missing_tool("coverage and pytest-cov are not installed (pip install coverage pytest-cov)")
    root = copy_workspace("python", tmp_path / "python")
    example = Path(__file__).parents[2] / "examples" / "mcp_agent.py"
    proc = subprocess.run(
        [sys.executable, str(example), str(root), "src/inventory/models.py", "16"],
        env=server_env,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    failing = "tests/test_models.py::test_total_value_counts_quantity"
    steps = [line for line in proc.stdout.splitlines() if line.startswith("> ")]
    assert [step.split()[1] for step in steps] == [
        "diagnostics",
        "tests_covering",
        "run_tests",
        "last_test_failures",
        "run_failing_tests",
    ], proc.stdout
    assert f"src/inventory/models.py:16: run by 1 test: {failing}" in proc.stdout
    assert proc.stdout.count(f"pytest: 1 failed ({failing})") == 3, proc.stdout  # run, last, rerun
    assert f"  FAILED {failing}: AssertionError" in proc.stdout


MALFORMED_REQUESTS: list[tuple[dict[str, Any], int]] = [
    ({"jsonrpc": "2.0", "id": "a8", "method": "tools/list", "params": "x"}, -32602),
    ({"jsonrpc": "2.0", "id": "p5", "method": "ping", "params": 5}, -32602),
    ({"jsonrpc": "2.0", "id": "arr", "method": "ping", "params": [1]}, -32602),
    ({"id": "no-jsonrpc", "method": "ping"}, -32600),
    ({"jsonrpc": "1.0", "id": 7, "method": "ping"}, -32600),
    ({"jsonrpc": 2, "id": 8, "method": "tools/list"}, -32600),
    ({"jsonrpc": "2.0", "id": "m", "method": 5}, -32600),
    ({"jsonrpc": "2.0", "id": "tc", "method": "tools/call", "params": {"name": 5}}, -32602),
    ({"jsonrpc": "2.0", "id": "unknown", "method": "no/such", "params": {}}, -32601),
]


def test_every_malformed_request_is_answered_and_the_server_stays_up(tmp_path: Path) -> None:
    """Over the raw wire, each request with an id gets its JSON-RPC error; garbage, notifications
    and an unterminated line are dropped; a ping after all of them is answered."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "lintel", "mcp", "--root", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *(request for request, _ in MALFORMED_REQUESTS),
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    text += '{"jsonrpc": "2.0", "id": "cut", "method": "pi\n[1, 2]\n"just a string"\n{"jsonrpc": "2.0", "params": 3}\n'
    text += json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}) + "\n"
    try:
        proc.stdin.write(text)
        proc.stdin.flush()
        answers: dict[Any, dict[str, Any]] = {}
        while "last" not in answers:
            line = proc.stdout.readline()
            assert line, f"the server closed its output; answered so far: {sorted(map(str, answers))}"
            message = json.loads(line)
            answers[message.get("id")] = message
        for request, code in MALFORMED_REQUESTS:
            assert answers[request["id"]]["error"]["code"] == code, (request, answers.get(request["id"]))
        assert answers["last"]["result"] == {}
        assert "cut" not in answers
    finally:
        proc.kill()
        proc.wait()


async def test_list_tests_lists_what_discover_tests_does(start: Start, server_env: dict[str, str]) -> None:
    require_tool("pytest")
    editor = await start("python")
    over_lsp = await editor.execute("lintel.discoverTests")
    async with agent(editor.root, server_env) as client:
        listed = await client.result("list_tests")
        one_file = await client.result("list_tests", {"file": "tests/test_models.py"})
        summary = text_of(await client.call("list_tests", {"path": "tests"}))
        for arguments in ({"path": "../elsewhere"}, {"file": "tests/nope.py"}, {"file": "tests"}):
            refused = await client.error("list_tests", arguments)
            over_lsp_refused = await error_of(editor, "lintel.discoverTests", arguments)
            assert refused == over_lsp_refused.message.replace("lintel.discoverTests", "list_tests")
    assert listed is not None
    assert one_file is not None
    assert [
        (t["id"], t["kind"], t.get("parent"), t["file"], t["line"] - 1, t["column"] - 1, t["endLine"] - 1)
        for t in listed["tests"]
    ] == [
        (
            r["id"],
            r["kind"],
            r.get("parent"),
            r["file"],
            r["range"]["start"]["line"],
            r["range"]["start"]["character"],
            r["range"]["end"]["line"],
        )
        for r in over_lsp
    ]
    assert {t["language"] for t in listed["tests"]} == {"python"}
    assert {t["file"] for t in one_file["tests"]} == {"tests/test_models.py"}
    assert summary.splitlines()[0] == "5 tests in 2 files (python 5)"


async def test_list_tests_in_an_untrusted_workspace_starts_no_process(
    tmp_path: Path, server_env: dict[str, str]
) -> None:
    root = copy_workspace("python", tmp_path / "python")
    marker = tmp_path / "a-tool-ran"
    configure(root, f"[languages.python]\ntest = {_toml_argv([sys.executable, '-c', MARKER_TOOL, str(marker)])}\n")
    async with agent(root, server_env, "--untrusted") as client:
        server = mcp_server_pid()
        listed = await client.result("list_tests")
        assert descendants(server) == set()
    assert listed is not None
    assert len([t for t in listed["tests"] if t["kind"] == "test"]) == 5
    assert not marker.exists(), "a tool ran in an untrusted workspace"
