"""ruff's warm worker (docs/architecture.md, Warm workers): `ruff server` as a child, given each document over LSP
(opened, then changed by edits) and asked for its pull diagnostics, each read back into the Issue `ruff check
--output-format=json` gives (lintel.languages.python.parsers).

`ruff server` is ruff's supported warm path (its in-process check API is not public). lintel speaks LSP to it
through lintel's child-process layer (lintel.runtime.rpc over a ChildProcess), not pygls: this is the engine. Each
diagnostic is read back by lintel.engine.workers.ruff_read (its docstring says what the server says differently from
the CLI, fixes included). Besides those:

- order: the CLI sorts by start, then by the rule's name, then by message; the server does not sort;
- a configuration file ruff cannot read: the CLI fails (exit 2), the server says so by `window/showMessage`
  (Error) and lints with defaults; the worker then refuses to answer (WorkerError), so the CLI's failure is shown;
- INP001 for a file at the project root linted from stdin: the CLI (`--stdin-filename`) reports it, the server
  does not, as the CLI run on the file on disk (lint on save) does not.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lintel import __version__
from lintel.core.issues import Issue, ParseContext
from lintel.core.positions import Unit, lf_position, lines_of, text_edit
from lintel.engine.workers.base import WorkerError, WorkerKey, WorkerUnsupported
from lintel.engine.workers.ruff_read import (
    SYNTAX_ERROR,
    cli_code,
    diagnostic_issue,
    json_object,
    needs_rule_codes,
    rule_name,
)
from lintel.runtime.child_process import STDERR_TAIL, ChildProcess, telling_line
from lintel.runtime.clock import Clock
from lintel.runtime.process import PARSE_CAP_BYTES, ProcessStartError, run_process
from lintel.runtime.rpc import METHOD_NOT_FOUND, Callbacks, Connection, Lsp, RemoteError, RequestTimeout

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0  # seconds for one document's diagnostics (ruff answers a 2,000-line file in a few ms)
START_TIMEOUT = 10.0  # seconds for `initialize`
STOP_GRACE = 1.0  # seconds `ruff server` gets to exit after `shutdown` and `exit`
# The oldest ruff whose server's answers read back into the CLI's Issues as below (checked on 0.17.0 and 0.17.6 over
# ~200,000 findings). Before 0.17 the server does not say which fixes are safe (`data.is_preferred`): 0.5.7 gives
# no fix title at all, 0.12.12 to 0.16.0 call fixes unsafe that the CLI's JSON calls safe (checked with
# tests/integration/test_worker_ruff.py); 0.4 wants `ruff server --preview`, 0.2 reads `server` as a path to
# check. An older ruff is declined quietly (WorkerUnsupported): the CLI lints, as it would without a worker.
MIN_RUFF_VERSION = (0, 17)
OPEN_DOCUMENTS = 64  # documents kept open in the server (a later lint of one sends only a change); the oldest closes

# The folders' config files ruff reads (in this order of precedence within one folder).
CONFIG_NAMES = (".ruff.toml", "ruff.toml", "pyproject.toml")

# `ruff server`'s settings (https://docs.astral.sh/ruff/editors/settings/): none of the rule settings is given, so
# the project's own configuration files decide, found as the CLI finds them; `filesystemFirst` says so should
# a default change. Syntax errors are shown as the CLI shows them. Fixes are never applied by the worker.
INITIALIZATION_OPTIONS: Mapping[str, Any] = {
    "settings": {
        "configurationPreference": "filesystemFirst",
        "showSyntaxErrors": True,
        "lint": {"enable": True},
        "fixAll": False,
        "organizeImports": False,
        "logLevel": "warn",
    }
}

# Client capabilities: pull diagnostics, so the server publishes none of its own (pushed, they would come a little
# sooner, but never for a file the configuration excludes: the answer to a pull is an empty report). The position
# encodings offered are added: Unicode scalar values first (the CLI's columns), UTF-16 (every server's) as the fallback.
_CAPABILITIES: Mapping[str, Any] = {
    "textDocument": {
        "synchronization": {"dynamicRegistration": False},
        "diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False},
    },
    "workspace": {"workspaceFolders": True, "configuration": False},
}

_PREVIEW_SETTING = re.compile(r"^linter\.preview = (enabled|disabled)$", re.MULTILINE)
_MESSAGE_ERROR = 1  # window/showMessage type Error


class RuffWorker:
    """`ruff server` for one project root (`key.root`, its workspace folder), started by `start`."""

    def __init__(
        self,
        key: WorkerKey,
        binary: Path,
        env: Mapping[str, str],
        *,
        request_timeout: float = REQUEST_TIMEOUT,
        encodings: Sequence[Unit] = ("utf-32", "utf-16"),
        clock: Clock | None = None,
    ) -> None:
        self.key = key
        self.binary = binary
        self.env = env
        self.request_timeout = request_timeout
        self.encodings = tuple(encodings)  # offered, in order of preference (the tests offer UTF-16 alone)
        self.encoding: Unit = "utf-16"
        self.failure: str | None = None  # why it can answer no more (set once)
        self._clock = clock
        self._process: ChildProcess | None = None
        self._conn: Connection | None = None
        self._documents: OrderedDict[str, tuple[int, str]] = OrderedDict()  # uri -> (version, text), oldest first
        self._relatives: dict[tuple[Path, Path], str] = {}  # (file, workspace) -> the file as the findings name it
        self._refusal: str | None = None  # an error the server showed (a configuration it cannot read)
        self._rule_codes: dict[str, str | None] | None = None  # rule name -> noqa code, read when first needed
        self._folders: set[Path] = set()  # folders of the files linted (their configs are watched)
        self._watched: tuple[int, list[Path]] | None = None  # (folders then, watched())
        self._preview: dict[Path, bool] = {}  # folder -> whether its files are linted with `lint.preview`
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        self._stopped = False
        self._started_at = 0.0  # wall clock (file modification times are compared with it)

    # -- the LintWorker contract --------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        process = self._process
        return (
            process is not None
            and process.returncode is None
            and self.failure is None
            and self._refusal is None
            and not self._stopped
        )

    async def start(self) -> None:
        """Run `ruff server` in the project root and initialize it; WorkerError when it cannot be."""
        await self._check_version()
        argv = (str(self.binary), "server")
        self._started_at = time.time()
        label = f"ruff server ({self.key.root})"
        try:
            process = await ChildProcess.spawn(argv, cwd=self.key.root, env=self.env, label=label, tail=self._stderr)
        except OSError as exc:
            raise WorkerError(f"cannot run {self.binary} server: {exc.strerror or exc}") from exc
        self._process = process
        self._conn = Connection(
            process,
            Lsp(),
            label=label,
            failed=WorkerError,
            answered_error=lambda error: WorkerError(f"ruff server answered an error: {error.get('message')}"),
            callbacks=Callbacks(self._on_notification, self._on_request, self._on_exit),
            clock=self._clock,
        )
        await self._conn.open()
        root = self.key.root
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "lintel", "version": __version__},
            "rootUri": root.as_uri(),
            "rootPath": str(root),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {**_CAPABILITIES, "general": {"positionEncodings": list(self.encodings)}},
            "initializationOptions": INITIALIZATION_OPTIONS,
        }
        try:
            result = await self._request("initialize", params, START_TIMEOUT)
        except WorkerError:
            await self.stop()
            raise
        answer = json_object(result)
        version = str(json_object(answer.get("serverInfo")).get("version") or "")
        if _version(version) < MIN_RUFF_VERSION:
            await self.stop()
            raise _too_old(version)
        encoding = json_object(answer.get("capabilities")).get("positionEncoding", "utf-16")
        if encoding not in ("utf-8", "utf-16", "utf-32"):
            await self.stop()
            raise WorkerError(f"ruff server chose position encoding {encoding!r}, which lintel cannot read")
        self.encoding = encoding
        self._notify("initialized", {})
        if self._refusal is not None:
            await self.stop()
            raise WorkerError(self._refusal)
        log.info("ruff %s worker for %s: running (pid %s, positions in %s)", version, root, process.pid, encoding)

    async def _check_version(self) -> None:
        """`ruff --version` before `ruff server`: an older ruff (a project's pin) has no server lintel reads, or
        none at all, which is no failure to report but a project that lints with the CLI."""
        argv = (str(self.binary), "--version")
        try:
            result = await run_process(argv, cwd=self.key.root, env=self.env, timeout=START_TIMEOUT)
        except ProcessStartError as exc:
            raise WorkerError(f"cannot run {self.binary}: {exc}") from exc
        found = re.search(r"\d+\.\d+\S*", result.stdout)
        version = found.group() if found else ""
        if _version(version) < MIN_RUFF_VERSION:
            raise _too_old(version)

    def lint(self, file: Path, text: str, *, workspace: Path) -> Awaitable[list[Issue]]:
        """`file`'s findings with content `text`, as parse_ruff reads `ruff check --output-format=json`. The text
        and the request are written at the call, before anything is awaited: a lint started as a change arrives
        is under way before the next message is read (server/documents.py, linting ahead)."""
        if file.suffix == ".ipynb":
            raise WorkerError("notebooks are linted by the ruff CLI (the worker takes text documents)")
        self._check_alive()
        uri = file.as_uri()
        # ruff reads a file without its byte order mark (columns on line 1 do not count it); the server would.
        text = text.removeprefix("\ufeff")
        if file.parent not in self._folders:
            self._check_new_folder(file.parent)
            self._folders.add(file.parent)
        self._sync(uri, text)
        answer = self._request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        if self._conn is not None:
            self._conn.flush()  # now, not at the end of the loop's turn: ruff starts while lintel reads on
        return self._issues(answer, file, text, workspace)

    async def _issues(self, answer: Awaitable[Any], file: Path, text: str, workspace: Path) -> list[Issue]:
        report = json_object(await answer)
        if self._refusal is not None:  # said before the answer: ruff read the settings first
            raise WorkerError(self._refusal)
        items = report.get("items")
        if report.get("kind") != "full" or not isinstance(items, list):
            raise WorkerError(f"ruff server answered an unreadable diagnostic report: {str(report)[:200]}")
        diagnostics = [json_object(item) for item in items]
        rules = await self._cli_rules(diagnostics, file)
        relative = self._relative(file, workspace)
        lines = lines_of(text) if self.encoding != "utf-32" else None
        found = [
            (diagnostic_issue(d, file=relative, lines=lines, encoding=self.encoding, rule=rule), rule_name(d))
            for d, rule in zip(diagnostics, rules, strict=True)
        ]
        # The CLI's order: by start, then by the rule's name, then by message.
        found.sort(key=lambda pair: (pair[0].line or 0, pair[0].column or 0, pair[1], pair[0].message))
        return [issue for issue, _ in found]

    def _relative(self, file: Path, workspace: Path) -> str:
        """`file` as the CLI's JSON names it, run in the root with `workspace` as the findings' root (remembered for
        the open documents: a save would work it out again)."""
        key = (file, workspace)
        relative = self._relatives.get(key)
        if relative is None:
            if len(self._relatives) >= OPEN_DOCUMENTS:
                self._relatives.clear()
            relative = ParseContext(cwd=str(self.key.root), root=str(workspace)).relpath(str(file))
            self._relatives[key] = relative
        return relative

    async def _cli_rules(self, diagnostics: Sequence[Mapping[str, Any]], file: Path) -> list[str | None]:
        """The `code` the CLI's JSON gives each diagnostic. The server gives noqa codes, or rule names under
        preview, where the CLI's JSON has null for syntax errors (`invalid-syntax` otherwise)."""
        codes = [d.get("code") if isinstance(d.get("code"), str) else None for d in diagnostics]
        named = [code for code in codes if code is not None and code != SYNTAX_ERROR]
        if named:
            self._preview[file.parent] = needs_rule_codes(named[0])
        elif SYNTAX_ERROR not in codes:
            return codes
        elif file.parent not in self._preview:
            self._preview[file.parent] = await self._read_preview(file)
        preview = self._preview[file.parent]
        if preview and self._rule_codes is None:
            self._rule_codes = await self._read_rule_codes()
        return [cli_code(code, self._rule_codes if preview else None) for code in codes]

    def watched(self) -> Sequence[Path]:
        """ruff's configuration files that decide this root's files, and the binary. ruff takes each file's
        nearest configuration folder, up to the file system's root (from the file's own folder: those linted so
        far, up to `key.root`, then the root's parents), and the user's own `ruff/` config folder when none.
        Computed again only when a new folder was linted (asked before and after every lint); a file that does
        not exist is watched too (its creation is a change)."""
        if self._watched is not None and self._watched[0] == len(self._folders):
            return self._watched[1]
        folders: list[Path] = []
        for folder in sorted(self._folders):
            for above in (folder, *folder.parents):
                if above == self.key.root or not above.is_relative_to(self.key.root):
                    break
                folders.append(above)
        folders.extend((self.key.root, *self.key.root.parents))
        folders.append(_user_config_folder(self.env))
        seen = dict.fromkeys(folder / name for folder in folders for name in CONFIG_NAMES)
        watched = [*seen, self.binary]
        self._watched = (len(self._folders), watched)
        return watched

    async def stop(self) -> None:
        """`shutdown` and `exit`, then SIGTERM and SIGKILL to its process group; idempotent."""
        process = self._process
        if self._stopped or process is None:
            self._stopped = True
            return
        self._stopped = True
        process.stopping = True
        if process.returncode is None and self.failure is None:
            with contextlib.suppress(WorkerError):
                await self._request("shutdown", None, STOP_GRACE)
                self._notify("exit", None)
            await process.exited(STOP_GRACE)
        await process.stop()
        if self._conn is not None:
            self._conn.fail(self.failure or "ruff server was stopped")
            self._conn.close()
        await process.finish()
        log.info("ruff worker for %s: stopped", self.key.root)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _check_new_folder(self, folder: Path) -> None:
        """The server read the configuration files below the root once, when it started; one written since in a
        folder not linted before (so not yet watched) would be the CLI's and not the server's: restart."""
        for above in (folder, *folder.parents):
            if above == self.key.root or not above.is_relative_to(self.key.root):
                return
            for name in CONFIG_NAMES:
                with contextlib.suppress(OSError):
                    if (above / name).stat().st_mtime > self._started_at:
                        self._fail(f"{above / name} was written after ruff server started")
                        raise WorkerError(self.failure or "ruff's configuration changed")

    # -- documents ------------------------------------------------------------------------------------------

    def _sync(self, uri: str, text: str) -> None:
        """Give the server `text` as the document's content: open it, or change it when it differs."""
        known = self._documents.pop(uri, None)
        if known is None:
            version = 1
            document = {"uri": uri, "languageId": "python", "version": version, "text": text}
            self._notify("textDocument/didOpen", {"textDocument": document})
        elif known[1] == text:
            version = known[0]
        else:
            version = known[0] + 1
            change = self._change(known[1], text)
            self._notify(
                "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
            )
        self._documents[uri] = (version, text)
        while len(self._documents) > OPEN_DOCUMENTS:
            oldest, _ = self._documents.popitem(last=False)
            self._notify("textDocument/didClose", {"textDocument": {"uri": oldest}})

    def _change(self, old: str, new: str) -> dict[str, Any]:
        """The content change that makes `old` (the server's copy) `new`: the edit between their common start and
        common end, where positions are counted in code points (UTF-32) and neither text has a CR (LSP lines
        also end at a lone CR, which str.count would not see); the whole text otherwise. A keystroke in a 60 KB
        file sends a few bytes instead of 60 KB that lintel encodes and ruff decodes on every save."""
        if self.encoding != "utf-32" or "\r" in old or "\r" in new:
            return {"text": new}
        start, end_old, end_new = text_edit(old, new)
        return {
            "range": {"start": lf_position(old, start), "end": lf_position(old, end_old)},
            "text": new[start:end_new],
        }

    async def _read_preview(self, file: Path) -> bool:
        """Whether the open document `file` is linted with `lint.preview`, from the settings the server prints
        for it (`ruff.printDebugInformation`: `linter.preview = enabled`)."""
        command = {"command": "ruff.printDebugInformation", "arguments": [{"textDocument": {"uri": file.as_uri()}}]}
        printed = await self._request("workspace/executeCommand", command)
        found = _PREVIEW_SETTING.findall(printed) if isinstance(printed, str) else []
        if not found:
            raise WorkerError("cannot tell whether ruff lints with preview: ruff server did not print the setting")
        return bool(found[-1] == "enabled")

    async def _read_rule_codes(self) -> dict[str, str | None]:
        """Every rule's noqa code by its name, from `ruff rule --all` (the server names rules under preview);
        None for the (preview) rules that have no code, whose `code` is null in the CLI's JSON too."""
        argv = (str(self.binary), "rule", "--all", "--output-format=json")
        try:
            result = await run_process(
                argv, cwd=self.key.root, env=self.env, timeout=self.request_timeout, cap_bytes=PARSE_CAP_BYTES
            )
        except ProcessStartError as exc:
            raise WorkerError(f"cannot list ruff's rules: {exc}") from exc
        try:
            rules = json.loads(result.stdout) if result.exit_code == 0 else None
        except ValueError:
            rules = None
        if not isinstance(rules, list):
            raise WorkerError(f"cannot list ruff's rules: `ruff rule --all` exited {result.exit_code}")
        return {
            rule["name"]: rule["code"] if isinstance(rule.get("code"), str) else None
            for rule in rules
            if isinstance(rule, dict) and isinstance(rule.get("name"), str)
        }

    # -- the connection -------------------------------------------------------------------------------------

    def _check_alive(self) -> None:
        if self._refusal is not None:
            raise WorkerError(self._refusal)
        if not self.alive:
            raise WorkerError(self.failure or "ruff server is not running")

    def _request(self, method: str, params: Any, timeout: float | None = None) -> Awaitable[Any]:
        """Send a request at once; the awaitable is its result: WorkerError for an error answer, a timeout (the
        server is then stopped: it is stuck) or its end. Cancelling the waiting task cancels the request too."""
        if self.failure is not None or self._conn is None:
            raise WorkerError(self.failure or "ruff server is not running")
        answer = self._conn.request(method, params, self.request_timeout if timeout is None else timeout)
        return self._answer(answer)

    async def _answer(self, answer: Awaitable[Any]) -> Any:
        try:
            return await answer
        except RequestTimeout as exc:
            self._fail(f"ruff server did not answer {exc.method} within {exc.seconds:g}s")
            if self._process is not None:
                self._process.kill()  # stuck: the pool starts a fresh one
            raise WorkerError(self.failure or "ruff server timed out") from exc

    def _notify(self, method: str, params: Any) -> None:
        if self._conn is None:
            raise WorkerError("ruff server is not running")
        self._conn.notify(method, params)

    def _on_request(self, method: str, params: Any) -> Any:
        # A request of the server's: none is needed for diagnostics (no configuration, no registration).
        raise RemoteError(f"lintel's ruff worker does not handle {method}", METHOD_NOT_FOUND)

    def _on_notification(self, method: str | None, params: Any) -> None:
        if method == "window/showMessage":
            self._on_show_message(json_object(params))
        elif method == "window/logMessage":
            log.debug("ruff server: %s", json_object(params).get("message"))

    def _on_show_message(self, params: Mapping[str, Any]) -> None:
        text = str(params.get("message") or "")
        if params.get("type") == _MESSAGE_ERROR:
            # `Error while resolving settings from workspace …`: the CLI fails on the same files (exit 2).
            detail = telling_line("\n".join(self._stderr))
            self._refusal = f"ruff server: {text}" + (f" ({detail})" if detail else "")
            log.warning("%s", self._refusal)
        else:
            log.info("ruff server: %s", text)

    def _on_exit(self, how: str) -> None:
        """The server ended without `stop`: every waiting request fails, and so does every later one."""
        words = telling_line("\n".join(self._stderr))
        self._fail(f"ruff server {how}" + (f": {words}" if words else ""))

    def _fail(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason
            log.warning("ruff worker for %s: %s", self.key.root, reason)
        if self._conn is not None:
            self._conn.fail(self.failure)


def _too_old(version: str) -> WorkerUnsupported:
    wanted = ".".join(map(str, MIN_RUFF_VERSION))
    return WorkerUnsupported(f"ruff {version or '(no version)'} is older than the warm worker reads ({wanted})")


def _version(text: str) -> tuple[int, ...]:
    """`0.17.6` -> (0, 17, 6); () when it is no version."""
    numbers = re.match(r"^(\d+)\.(\d+)", text)
    return tuple(int(part) for part in numbers.groups()) if numbers else ()


def _user_config_folder(env: Mapping[str, str]) -> Path:
    """Where ruff (run with `env`) looks for the user's configuration when a project has none."""
    base = env.get("XDG_CONFIG_HOME")
    home = env.get("HOME")
    return (Path(base) if base else (Path(home) if home else Path.home()) / ".config") / "ruff"
