"""A fast start (docs/architecture.md): `lintel serve` answers `initialize` before it imports the engine, and the
features that load after the answer have the capabilities that answer advertised. Nothing here is timed: the
timings are bench/lint_on_save.py's (`--only startup`); these tests guard what makes them.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import lintel
import pytest
from lintel.core.tomlread import parse_toml
from lintel.frontends import cli, headless
from lintel.frontends.lsp.advertised import COMMANDS, advertised, registers_commands
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.pyglscompat import capabilities_with
from lintel.frontends.lsp.wiring import create_server
from lintel.frontends.relay.methods import CHILD_COMMANDS
from lintel.frontends.report import RENDERERS
from lintel.languages import CHECKS
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities

REPO = Path(__file__).resolve().parents[2]

# What `initialize` must not wait for: the configuration models, the engine, the report writers, the child
# servers' client, the document features, the languages, the orphan watchdog (a process spawned beside lintel),
# and importlib.metadata (costly for a version string).
HEAVY = (
    "lintel.runtime.orphans",
    "pydantic",
    "lintel.engine.config",
    "lintel.engine.checks",
    "lintel.languages",
    "lintel.engine.discover",
    "lintel.frontends.report",
    "lintel.frontends.headless",
    "lintel.frontends.relay.client",
    "lintel.frontends.lsp.navigation",
    "lintel.frontends.lsp.documents",
    "lintel.frontends.lsp.commands",
    "importlib.metadata",
)
# Loaded after the answer: proof that the guard sees the imports at all.
LOADED_AFTER = (
    "lintel.runtime.orphans",
    "pydantic",
    "lintel.engine.config",
    "lintel.engine.checks",
    "lintel.frontends.relay.client",
    "lintel.frontends.lsp.documents",
)

_IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|(?P<indent>\s*)(?P<module>\S+)$")
_MARKER = "initialize answered; loading the features"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def initialize_message(root: Path, client: str = "visual-studio-code", *, pull: bool = False) -> dict[str, Any]:
    """`initialize` from a bundled client; with `pull`, one that also pulls diagnostics and takes refreshes
    (no bundled set has both)."""
    capabilities = client_capabilities(client)
    if pull:
        assert capabilities.text_document is not None
        assert capabilities.workspace is not None
        capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(dynamic_registration=False)
        capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    params = types.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
    )
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": get_converter().unstructure(params)}


def answers(stdout: bytes) -> list[dict[str, Any]]:
    return [json.loads(body) for body in re.split(rb"Content-Length: \d+\r\n(?:[^\r\n]+\r\n)*\r\n", stdout) if body]


def test_serve_answers_initialize_before_importing_the_engine(tmp_path: Path) -> None:
    """The real `python -m lintel serve`, every message in one write (the features then load on the next
    message, not on the next turn of the loop): `-X importtime` prints each import as it completes, in order
    with the server's log line that says the answer is out."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    messages = [
        initialize_message(tmp_path),
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lintel", "-v", "serve"],
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        timeout=120,
        check=False,
    )
    stderr = proc.stderr.decode("utf-8", errors="replace").splitlines()
    [initialized] = [a for a in answers(proc.stdout) if a.get("id") == 1]
    capabilities = initialized["result"]["capabilities"]
    # VS Code registers commands dynamically: the child servers' come by registration when one starts.
    assert capabilities["executeCommandProvider"]["commands"] == list(COMMANDS)
    assert capabilities["definitionProvider"] is True
    assert capabilities["documentFormattingProvider"] is True
    marker = next((i for i, line in enumerate(stderr) if _MARKER in line), None)
    assert marker is not None, "\n".join(stderr[-30:])
    before = {m.group("module") for line in stderr[:marker] if (m := _IMPORT_LINE.match(line))}
    after = {m.group("module") for line in stderr[marker:] if (m := _IMPORT_LINE.match(line))}
    assert "lintel.frontends.lsp.app" in before
    assert not before & set(HEAVY), sorted(before & set(HEAVY))
    assert set(LOADED_AFTER) <= after


def loaded(server: LintelServer) -> bool:
    """Whether the features are wired (their document handlers bound, nothing left to load)."""
    registered = types.TEXT_DOCUMENT_DID_OPEN in {route.method for route in server.routes.bound()}
    assert registered == (server.features is None)
    return registered


class Collect:
    """A writer keeping what the server sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.extend(answers(data))

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("client", "pull"), [("visual-studio-code", False), ("neovim", False), ("neovim", True), ("emacs", True)]
)
async def test_the_capabilities_advertised_are_the_loaded_features(tmp_path: Path, client: str, pull: bool) -> None:
    """For clients with and without pull diagnostics: the answer, given before the features exist, equals what
    pygls computes from the routes bound once the features are loaded; nothing advertised is left unbound."""
    server = create_server()
    writer = Collect()
    server.protocol.set_writer(writer)
    message = initialize_message(tmp_path, client, pull=pull)
    server.protocol.handle_message(server.protocol.structure_message(message))
    [answer] = writer.sent
    assert not loaded(server), "the features load after the answer, not during it"
    server.load_features()
    assert loaded(server)
    params = get_converter().structure(message["params"], types.InitializeParams)
    # pygls's computation from the routes bound now that this client is served.
    promised = advertised(params.capabilities)
    bound = [route for route in server.routes.bound() if route in promised]
    registered = capabilities_with(server.protocol, params, bound)
    assert answer["result"]["capabilities"] == get_converter().unstructure(registered)
    assert [route.method for route in promised] == [route.method for route in bound]
    # A client that registers commands dynamically gets the child servers' by registration; the others (Neovim,
    # Emacs) run only what `initialize` names: the default servers' commands are named there.
    commands = list(COMMANDS) if registers_commands(params.capabilities) else [*COMMANDS, *CHILD_COMMANDS]
    assert answer["result"]["capabilities"]["executeCommandProvider"]["commands"] == commands
    assert ("diagnosticProvider" in answer["result"]["capabilities"]) == pull
    assert server.session.pull == pull
    assert [f.root for f in server.session.folders] == [tmp_path.resolve()]


async def test_an_idle_server_loads_its_features_on_the_next_turn(tmp_path: Path) -> None:
    server = create_server()
    server.protocol.set_writer(Collect())
    server.protocol.handle_message(server.protocol.structure_message(initialize_message(tmp_path)))
    assert not loaded(server)
    await asyncio.sleep(0)
    assert loaded(server)


def test_the_command_lines_written_out_choices_are_the_engines() -> None:
    assert headless.ONLY_CHOICES == cli.ONLY_CHOICES
    assert (*CHECKS, "validators", "coverage") == cli.ONLY_CHOICES
    assert tuple(sorted(RENDERERS)) == cli.FORMATS


def test_the_version_is_written_once() -> None:
    project = parse_toml(REPO / "pyproject.toml")["project"]
    assert "version" not in project
    assert project["dynamic"] == ["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", lintel.__version__)


# What a one-file lint (`lintel check FILE --only lint` with text output, and the post-edit hook) has no use for:
# the writers of the other formats and GitHub's limits, coverage, the fixes, test runs, --new-from and its merge
# base, the baseline, `detect`'s report, the language server; nor each language's test finding, test selection and
# coverage reading (its spec names them, `lintel.languages.deferred`).
NOT_FOR_ONE_FILE_LINT = (
    *(
        f"lintel.languages.{language}.{module}"
        for language in ("go", "node", "python", "rust")
        for module in ("testfind", "testselect", "coverage")
    ),
    "lintel.languages.go.buildtags",
    "lintel.languages.rust.testscan",
    "lintel.languages.node.jsnames",
    "lintel.languages.node.testglobs",
    "lintel.languages.testselect",
    "lintel.languages.testselect.base",
    "lintel.languages.coverage.base",
    "lintel.languages.coverage.data",
    "lintel.frontends.report.sarif",
    "lintel.frontends.report.github",
    "lintel.frontends.report.rdjsonl",
    "lintel.frontends.report.json",
    "lintel.frontends.report.summary",
    "lintel.engine.coverage",
    "lintel.engine.coverage.engine",
    "lintel.engine.fixrun",
    "lintel.engine.testruns",
    "lintel.frontends.holdline",
    "lintel.engine.newfrom",
    "lintel.engine.baseline",
    "lintel.engine.detect_report",
    "lintel.frontends.lsp.app",
    "pygls",
    "lsprotocol.types",
)


@pytest.mark.parametrize("command", ["check", "hook"])
def test_a_one_file_lint_imports_only_what_it_uses(tmp_path: Path, command: str) -> None:
    """The real `python -m lintel check FILE --only lint` and `lintel hook post-edit` (given the file): `-X
    importtime` lists every module each imported."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    file = tmp_path / "x.py"
    file.write_text("import os\n", encoding="utf-8")
    args, given = ["check", str(file), "--only", "lint"], b""
    if command == "hook":
        args, given = (
            ["hook", "post-edit"],
            json.dumps({"tool_input": {"file_path": str(file)}, "cwd": str(tmp_path)}).encode(),
        )
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lintel", *args],
        input=given,
        capture_output=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    stderr = proc.stderr.decode("utf-8", errors="replace").splitlines()
    imported = {m.group("module") for line in stderr if (m := _IMPORT_LINE.match(line))}
    assert "lintel.engine.checks" in imported, "the guard sees the imports"
    assert "lintel.frontends.report.text" in imported
    assert not imported & set(NOT_FOR_ONE_FILE_LINT), sorted(imported & set(NOT_FOR_ONE_FILE_LINT))


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="the MCP SDK (the `mcp` extra) is not installed")
def test_mcp_answers_initialize_and_lists_its_tools_without_the_language_servers(tmp_path: Path) -> None:
    """The real `lintel mcp` up to `initialize` and `tools/list` (navigation's tools listed with their schemas)
    imports neither the relay to the child language servers nor lsprotocol: both load with the first navigation
    call."""
    from lintel.frontends.mcp.navtools import NAV_TOOLS
    from lintel.frontends.mcp.tools import TOOLS

    log = tmp_path / "importtime.txt"
    with log.open("wb") as errors:  # a file, not a pipe: the listing could fill a pipe nobody reads yet
        proc = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "lintel", "mcp", "--root", str(tmp_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            cwd=tmp_path,
        )
    assert proc.stdin is not None
    assert proc.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
    ]
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        proc.stdin.flush()
        answers: dict[Any, dict[str, Any]] = {}
        while 1 not in answers:
            line = proc.stdout.readline()
            assert line, f"the server closed its output; answered so far: {sorted(map(str, answers))}"
            message = json.loads(line)
            answers[message.get("id")] = message
        proc.communicate(timeout=60)  # end of input: the server exits
    finally:
        proc.kill()
        proc.wait()
    names = [tool.name for tool in TOOLS] + [tool.name for tool in NAV_TOOLS]
    assert [tool["name"] for tool in answers[1]["result"]["tools"]] == names
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    imported = {m.group("module") for line in lines if (m := _IMPORT_LINE.match(line))}
    assert "lintel.frontends.mcp.navtools" in imported, "the guard sees the imports"
    relayed = {name for name in imported if name.startswith(("lsprotocol", "lintel.frontends.relay"))}
    assert not relayed, sorted(relayed)
    assert "lintel.frontends.mcp.servers" not in imported
