"""The systems bench/peers.py puts side by side, each behind one small interface (start, save, stop): a tool's
own command line run per save (ruff, eslint, eslint_d's client) and language servers on stdio (lintel, a bare
pygls server, efm-langserver, `ruff server`, vscode-eslint-language-server). bench/setup installs the peers."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import harness
from lsprotocol import types
from pytest_lsp import client_capabilities

# Where bench/setup installs the peers (the tools cache scripts/setup-dev also uses).
TOOLS_DIR = Path(os.environ.get("LINTEL_TOOLS_DIR") or Path.home() / ".cache" / "lintel-tools")
PEERS_DIR = TOOLS_DIR / "bench"
EFM = PEERS_DIR / "go" / "bin" / "efm-langserver"
NPM_DIR = PEERS_DIR / "npm"
ESLINT_D = NPM_DIR / "node_modules" / ".bin" / "eslint_d"
VSCODE_ESLINT = NPM_DIR / "node_modules" / ".bin" / "vscode-eslint-language-server"

Key = tuple[int, int]  # a finding's start: 0-based line, 0-based column (UTF-16 units; the files are ASCII)
Parse = Callable[[bytes], list[Key]]

START_TIMEOUT = 120.0  # a cold eslint (config, typescript-eslint) on a loaded machine takes seconds
SAVE_TIMEOUT = 60.0


class SystemFailed(RuntimeError):
    """A system did not answer as it should: the message has its last log lines."""


@dataclass(frozen=True)
class Sample:
    ms: float
    keys: tuple[Key, ...]  # the findings the answer carried, sorted


class System(Protocol):
    name: str

    async def start(self) -> None:
        """Ready to take saves: a server is initialized, has the file open and has answered for it once."""

    async def save(self, text: str) -> Sample:
        """The file on disk was just rewritten with `text`: tell the system as an editor would and time the
        answer carrying that content's findings."""

    def pids(self) -> list[int]:
        """Roots of the process trees living between saves (for RSS); none for a command run per save."""

    async def stop(self) -> None: ...


def ruff_keys(stdout: bytes) -> list[Key]:
    """`ruff check --output-format=json`: 1-based row and column."""
    return sorted((item["location"]["row"] - 1, item["location"]["column"] - 1) for item in json.loads(stdout))


def eslint_keys(stdout: bytes) -> list[Key]:
    """`eslint --format json` (an array of results) or `json-with-metadata` (`{results, metadata}`, what lintel
    runs): 1-based line and column per message."""
    report = json.loads(stdout)
    results = report["results"] if isinstance(report, dict) else report
    return sorted((message["line"] - 1, message["column"] - 1) for result in results for message in result["messages"])


def diagnostic_keys(diagnostics: Sequence[types.Diagnostic]) -> tuple[Key, ...]:
    return tuple(sorted((d.range.start.line, d.range.start.character) for d in diagnostics))


@dataclass
class Cli:
    """A command run per save, timed from spawn to exit with all output read (harness.run_direct)."""

    name: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    parse: Parse

    async def start(self) -> None:
        return None

    async def save(self, text: str) -> Sample:
        run = await harness.run_direct(self.argv, self.cwd, self.env)
        try:
            keys = self.parse(run.stdout)
        except (ValueError, KeyError, TypeError) as error:
            output = run.stdout[:400]
            raise SystemFailed(f"{self.name}: exit {run.exit_code}, unreadable output ({error}): {output!r}") from error
        return Sample(run.ms, tuple(keys))

    def pids(self) -> list[int]:
        return []

    async def stop(self) -> None:
        return None


@dataclass
class EslintD(Cli):
    """eslint_d's client per save, talking to its warm daemon. The daemon writes its port file (`.eslint_d`)
    into the folder of the eslint it loads: ESLINT_D_ROOT points it at the eslint installed beside it, so it
    writes into the tools cache and never into a fixture's node_modules (the main checkout's, read only here).
    peers.py checks that this eslint has the project's version. ESLINT_D_PPID: the daemon ends with us."""

    def daemon_pid(self) -> int | None:
        try:
            fields = (NPM_DIR / "node_modules" / "eslint" / ".eslint_d").read_text(encoding="utf-8").split()
            return int(fields[2])
        except (OSError, IndexError, ValueError):
            return None

    def pids(self) -> list[int]:
        pid = self.daemon_pid()
        return [pid] if pid is not None else []

    async def stop(self) -> None:
        await harness.run_direct([str(ESLINT_D), "stop"], self.cwd, self.env)


def eslint_d_env(base: Mapping[str, str]) -> dict[str, str]:
    return {**base, "ESLINT_D_ROOT": str(NPM_DIR), "ESLINT_D_PPID": str(os.getpid())}


@dataclass
class Lsp:
    """A language server on stdio, driven by the harness's recording client.

    On save: `didChange` with the new text, then `didSave`, written back to back (as an editor saves a changed
    buffer), timed from just before the first until the client has the answer: the first publishDiagnostics for
    the file at that document version or later (`pull` off), or the answer to a `textDocument/diagnostic`
    sent right after the save (`pull` on: servers that only answer pulls)."""

    name: str
    command: list[str]
    root: Path
    file: Path | None  # None: initialize only (the bare pygls server)
    language_id: str = ""
    options: Mapping[str, Any] | None = None  # initializationOptions
    pull: bool = False
    settings: Any = None  # the answer to workspace/configuration (section "")
    echo_stderr: bool = False  # lintel's warnings go to our stderr; the peers' logs only into error messages
    custom: Sequence[str] = ()  # the server's own notifications and requests, answered with nothing
    env: Mapping[str, str] | None = None  # the server's environment (default: ours)
    server: harness.Server | None = None
    version: int = 1
    initialize_ms: float | None = None  # spawn -> initialize response
    first_ms: float | None = None  # spawn -> first answer carrying findings for the opened file
    first_keys: tuple[Key, ...] = ()
    empty_pulls: int = 0  # pulls answered with nothing before the first findings (a server still loading)

    @property
    def uri(self) -> str:
        assert self.file is not None
        return self.file.as_uri()

    def capabilities(self) -> types.ClientCapabilities:
        """VS Code 1.65's capabilities (pytest-lsp's set, as lintel's benchmarks use), plus pull diagnostics
        for a server that only answers pulls: 1.65 predates them."""
        capabilities = client_capabilities("visual-studio-code")
        if self.pull and capabilities.text_document is not None:
            capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities(
                dynamic_registration=False, related_document_support=False
            )
        return capabilities

    def features(self) -> dict[str, Callable[..., Any]]:
        def nothing(*_args: Any) -> None:
            return None

        handlers: dict[str, Callable[..., Any]] = {method: nothing for method in self.custom}
        if self.settings is not None:
            settings = self.settings

            def configuration(params: types.ConfigurationParams) -> list[Any]:
                return [settings for _ in params.items]

            handlers[types.WORKSPACE_CONFIGURATION] = configuration
        return handlers

    def fail(self, what: str) -> SystemFailed:
        tail = "\n".join(self.server.recorder.stderr[-15:]) if self.server else ""
        return SystemFailed(f"{self.name}: {what}" + (f"\n{tail}" if tail else ""))

    async def start(self) -> None:
        server = await harness.start_server(
            self.command,
            record_stderr=True,
            echo_stderr=self.echo_stderr,
            features=self.features(),
            cwd=self.root,
            env=self.env,
        )
        self.server = server
        params = harness.initialize_params(self.root, self.options, self.capabilities())
        try:
            await asyncio.wait_for(server.client.initialize_session(params), START_TIMEOUT)
        except (asyncio.TimeoutError, RuntimeError) as error:
            raise self.fail(f"no initialize response ({error!r})") from error
        self.initialize_ms = (time.perf_counter() - server.spawn_started) * 1000
        if self.file is None:
            return
        text = self.file.read_text(encoding="utf-8")
        published = None
        if not self.pull:
            published = server.recorder.expect_publish(lambda p: p.uri == self.uri and bool(p.diagnostics))
        harness.open_document(server, self.file, self.language_id, text, self.version)
        try:
            if published is None:
                diagnostics = await asyncio.wait_for(self.pull_until_findings(), START_TIMEOUT)
                answered = time.perf_counter()
            else:
                publish = await asyncio.wait_for(published, START_TIMEOUT)
                diagnostics, answered = list(publish.diagnostics), publish.at
        except (asyncio.TimeoutError, RuntimeError, ConnectionError) as error:
            raise self.fail(f"no diagnostics for the opened file ({error!r})") from error
        self.first_ms = (answered - server.spawn_started) * 1000
        self.first_keys = diagnostic_keys(diagnostics)

    async def pull_diagnostics(self) -> list[types.Diagnostic]:
        assert self.server is not None
        report = await self.server.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=self.uri))
        )
        if isinstance(report, types.UnchangedDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport):
            raise self.fail("answered a pull with 'unchanged' (no previous result id was sent)")
        return list(report.items)

    async def pull_until_findings(self) -> list[types.Diagnostic]:
        """A server still loading its tool may answer the first pulls with nothing: ask again (the caller
        bounds the wait)."""
        for attempt in itertools.count():
            if diagnostics := await self.pull_diagnostics():
                self.empty_pulls = attempt
                return diagnostics
            await asyncio.sleep(0.01)
        raise AssertionError("unreachable")

    async def save(self, text: str) -> Sample:
        server = self.server
        assert server is not None
        self.version += 1
        version, uri = self.version, self.uri
        published = None
        if not self.pull:
            published = server.recorder.expect_publish(
                lambda publish: publish.uri == uri and (publish.version is None or publish.version >= version)
            )
        sent = time.perf_counter()
        harness.change_document(server, uri, version, text)
        harness.save_document(server, uri)
        try:
            if published is None:
                diagnostics = await asyncio.wait_for(self.pull_diagnostics(), SAVE_TIMEOUT)
                answered = time.perf_counter()
            else:
                publish = await asyncio.wait_for(published, SAVE_TIMEOUT)
                diagnostics, answered = list(publish.diagnostics), publish.at
        except (asyncio.TimeoutError, RuntimeError, ConnectionError) as error:
            raise self.fail(f"no diagnostics within {SAVE_TIMEOUT:g} s of save {version} ({error!r})") from error
        return Sample((answered - sent) * 1000, diagnostic_keys(diagnostics))

    def pids(self) -> list[int]:
        return [self.server.pid] if self.server is not None else []

    async def stop(self) -> None:
        if self.server is not None:
            await harness.stop_server(self.server)


# -- the peers' configuration ------------------------------------------------------------------------------

# eslint 9 no longer ships the `unix` formatter efm-langserver users configured; this prints the same lines,
# with the severity as efm's %t reads it.
EFM_ESLINT_FORMATTER = """\
// One line per message, as eslint's old `unix` formatter printed them, for efm-langserver's errorformat.
module.exports = (results) =>
  results
    .flatMap((result) =>
      result.messages.map(
        (m) => `${result.filePath}:${m.line}:${m.column}: ${m.severity === 2 ? "E" : "W"} ${m.message} [${m.ruleId}]`,
      ),
    )
    .join("\\n") + "\\n";
"""


def efm_linter(command: Sequence[str], formats: list[str], source: str) -> dict[str, Any]:
    """One linter in efm-langserver's config: run on save on the saved file (${INPUT}, as lintel's save runs
    read the file), and after open (for the start benchmark); lint-on-save also makes efm skip didChange.
    Exit codes are ignored: eslint exits 0 when it finds only warnings."""
    return {
        "lint-command": f"{shlex.join(command)} ${{INPUT}}",
        "lint-stdin": False,
        "lint-formats": formats,
        "lint-ignore-exit-code": True,
        "lint-on-save": True,
        "lint-after-open": True,
        "lint-source": source,
    }


def efm_ruff(argv: Sequence[str]) -> dict[str, Any]:
    """lintel's ruff arguments (without the file) with the line format errorformat reads instead of JSON."""
    args = ["--output-format=concise" if a.startswith("--output-format") else a for a in argv]
    return efm_linter(args, ["%f:%l:%c: %m"], "ruff")


def efm_eslint(eslint: Path, directory: Path) -> dict[str, Any]:
    """The project's eslint run directly, with the formatter above written into `directory`."""
    formatter = directory / "efm-eslint-formatter.cjs"
    formatter.write_text(EFM_ESLINT_FORMATTER, encoding="utf-8")
    return efm_linter([str(eslint), "--format", str(formatter)], ["%f:%l:%c: %t %m"], "eslint")


def write_efm_config(path: Path, languages: Mapping[str, dict[str, Any]]) -> Path:
    """config.yaml for `efm-langserver -c`: one linter per language id."""
    config = {
        "version": 2,
        "root-markers": ["pyproject.toml", "package.json"],
        "languages": {language: [linter] for language, linter in languages.items()},
    }
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")  # JSON is YAML
    return path


def vscode_eslint_settings(root: Path) -> dict[str, Any]:
    """What VS Code's ESLint extension (3.x) answers to the server's workspace/configuration request for a file
    in `root`, with its defaults: the server reads every one of these keys (`experimental` and `nodePath`
    must be present: it dereferences them). `run` only matters to the extension, which decides when to pull."""
    return {
        "validate": "on",
        "run": "onSave",
        "packageManager": "npm",
        "useESLintClass": False,
        "useFlatConfig": True,
        "experimental": {"useFlatConfig": False},
        "nodePath": None,
        "workingDirectory": {"mode": "location"},
        "workspaceFolder": {"uri": root.as_uri(), "name": root.name},
        "options": {},
        "rulesCustomizations": [],
        "quiet": False,
        "onIgnoredFiles": "off",
        "format": False,
        "problems": {"shortenToSingleLine": False},
        "codeAction": {
            "disableRuleComment": {"enable": True, "location": "separateLine", "commentStyle": "line"},
            "showDocumentation": {"enable": True},
        },
        "codeActionOnSave": {"enable": False, "mode": "all"},
    }


# Notifications and requests of its own the ESLint server sends (answered with nothing, so the client
# does not log each as unknown).
VSCODE_ESLINT_CUSTOM = (
    "eslint/status",
    "eslint/exitCalled",
    "eslint/noLibrary",
    "eslint/noConfig",
    "eslint/openDoc",
    "eslint/probeFailed",
    "eslint/showOutputChannel",
)
