"""A child server's diagnostics for a proposed text of a file, without writing it: the text is sent to the file's
child, its publishDiagnostics for that text awaited, and the child given back the real content. While this is in
flight the child's diagnostics for that file are held back from the front (`Waiters`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from lintel.core.issues import Issue, Severity, finalize_issues, make_issue
from lintel.core.positions import Unit, convert_column, split_lines
from lintel.core.results import RunResult
from lintel.engine.servers import Command
from lintel.frontends.relay.manager import Child, Manager

log = logging.getLogger(__name__)

QUIET = 0.3  # seconds without a further publish before an answer counts as settled (gopls publishes in waves)
# The same after a publish that says less: one without a version (typescript-language-server's syntactic, semantic
# and suggestion diagnostics come as separate publishes, the later ones after tsserver's slower passes), or an empty
# one (rust-analyzer clears a changed file's diagnostics first, then publishes its own checks of the text).
SLOW_QUIET = 1.0
# The proposed text's version is this far above the document's: a change the front sends meanwhile (its next
# version) is not mistaken for it. The document is reopened at the front's version afterwards.
VERSION_STEP = 1 << 20

__all__ = ["QUIET", "ServerFindings", "Waiters", "as_run_result", "missing_server", "server_findings"]


@dataclass(frozen=True)
class ServerFindings:
    server: str  # the child's name, e.g. "gopls"
    state: str  # complete | timed_out | tool_missing | not_run
    reason: str | None
    diagnostics: list[dict[str, Any]]  # raw LSP Diagnostic JSON, positions in the child's encoding
    encoding: str  # the child's position encoding


@dataclass
class _Overlay:
    child: str  # the child's id
    version: int | None = None  # what the proposed text was sent as; None until it is sent
    diagnostics: list[dict[str, Any]] | None = None  # the latest publish for the proposed text
    versioned: bool = True  # whether that publish said which version it describes
    arrived: asyncio.Event = field(default_factory=asyncio.Event)


class Waiters:
    """The overlays in flight, by uri. A front's ChildHost.diagnostics asks `take` first: a publish for a uri
    under an overlay is the overlay's (or stale), never the editor's."""

    def __init__(self) -> None:
        self._by_uri: dict[str, _Overlay] = {}
        self.published: set[str] = set()  # the children (ids) that have published diagnostics at all
        self.silent: set[str] = set()  # those that let an overlay time out without ever publishing

    def busy(self, uri: str) -> bool:
        return uri in self._by_uri

    def take(self, child: Child, params: dict[str, Any]) -> bool:
        """True when the publish was for an overlay in flight (consumed: the front must not pass it on)."""
        self.published.add(child.spec.id)
        uri = params.get("uri")
        overlay = self._by_uri.get(uri) if isinstance(uri, str) else None
        if overlay is None:
            return False
        if overlay.child != child.spec.id or overlay.version is None:
            return True  # another child's, or the content before the proposed text: not for anyone now
        version = params.get("version")
        if isinstance(version, int) and version != overlay.version:
            return True  # a publish for an earlier text
        overlay.versioned = isinstance(version, int)
        raw = params.get("diagnostics")
        overlay.diagnostics = [d for d in raw if isinstance(d, dict)] if isinstance(raw, list) else []
        overlay.arrived.set()
        return True

    @contextlib.contextmanager
    def hold(self, uri: str, child: Child) -> Any:
        overlay = _Overlay(child.spec.id)
        self._by_uri[uri] = overlay
        try:
            yield overlay
        finally:
            if self._by_uri.get(uri) is overlay:
                del self._by_uri[uri]


async def _settled(overlay: _Overlay, timeout: float, quiet: float) -> bool:
    """Wait for the first publish, then until none came for `quiet` seconds (later ones replace it); False when
    none came within `timeout`."""
    deadline = time.monotonic() + timeout
    try:
        await asyncio.wait_for(overlay.arrived.wait(), timeout)
    except (asyncio.TimeoutError, TimeoutError):
        return False
    while True:
        overlay.arrived.clear()
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        try:
            wait = quiet if overlay.versioned and overlay.diagnostics else max(quiet, SLOW_QUIET)
            await asyncio.wait_for(overlay.arrived.wait(), min(wait, left))
        except (asyncio.TimeoutError, TimeoutError):
            return True


async def server_findings(
    manager: Manager,
    waiters: Waiters,
    uri: str,
    text: str,
    *,
    timeout: float,
    quiet: float = QUIET,
    language_id: str = "plaintext",
) -> ServerFindings | None:
    """The child's diagnostics for `text` as the content of `uri`; None when no child serves the file. The child
    has the real content again afterwards (the document reopened as the front has it, or closed if it was not
    open)."""
    deadline = time.monotonic() + timeout
    child = await manager.child_for(uri)
    if child is None:
        return None
    # A server still loading its workspace answers for part of it (rust-analyzer before it is quiescent: nothing).
    if child.loading and not await child.wait_loaded(timeout):
        reason = f"{child.name} did not finish loading its workspace within {timeout:g} s"
        return ServerFindings(child.name, "timed_out", reason, [], child.encoding)
    # Asked after the start: a child that just started has had the front's open documents replayed to it.
    was_open = manager.running_child(uri) is child
    snapshot = manager.snapshot(uri) if was_open else None
    if child.spec.id in waiters.silent and child.spec.id not in waiters.published:
        # A server that pushes no diagnostics (some declared ones) would make every answer wait out the timeout.
        reason = f"{child.name} has published no diagnostics since it started: not asked again"
        return ServerFindings(child.name, "not_run", reason, [], child.encoding)
    if waiters.busy(uri):
        return ServerFindings(child.name, "not_run", "another check of this file is in flight", [], child.encoding)
    with waiters.hold(uri, child) as overlay:
        # Sent as a document opened afresh, never as a change: a server may publish nothing for a text whose
        # diagnostics did not change (pyright for the same text, rust-analyzer for an unchanged set), and a
        # closed-and-reopened document is always checked and published.
        if was_open and snapshot is not None:
            overlay.version = snapshot.version + VERSION_STEP
            language = snapshot.language_id
            closed = types.TextDocumentIdentifier(uri=uri)
            child.notify(types.TEXT_DOCUMENT_DID_CLOSE, types.DidCloseTextDocumentParams(text_document=closed))
        else:
            overlay.version = 1
            language = language_id
        item = types.TextDocumentItem(uri=uri, language_id=language, version=overlay.version, text=text)
        child.notify(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(text_document=item))
        try:
            done = await _settled(overlay, max(deadline - time.monotonic(), 0.1), quiet)
        finally:
            _restore(child, uri, manager.snapshot(uri) if was_open else None)
    if not done:
        if child.spec.id not in waiters.published:
            waiters.silent.add(child.spec.id)
        reason = f"{child.name} published no diagnostics for the proposed text within {timeout:g} s"
        return ServerFindings(child.name, "timed_out", reason, [], child.encoding)
    # What a build of the saved files found (rust-analyzer's cargo check) does not describe the proposed text.
    saved = child.spec.saved_sources
    found = [d for d in overlay.diagnostics or [] if d.get("source") not in saved]
    return ServerFindings(child.name, "complete", None, found, child.encoding)


def _restore(child: Child, uri: str, snapshot: types.TextDocumentItem | None) -> None:
    """Closed and reopened as the front has it: the front's next version follows on from its own, whatever
    version the proposed text went as."""
    identifier = types.TextDocumentIdentifier(uri=uri)
    child.notify(types.TEXT_DOCUMENT_DID_CLOSE, types.DidCloseTextDocumentParams(text_document=identifier))
    if snapshot is not None:
        child.notify(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(text_document=snapshot))


_SEVERITY: dict[Any, Severity] = {1: "error", 2: "warning", 3: "info", 4: "hint"}


def _issue(diagnostic: dict[str, Any], file: str, lines: list[str], encoding: Unit, source: str) -> Issue:
    span = diagnostic.get("range") if isinstance(diagnostic.get("range"), dict) else {}

    def at(key: str) -> tuple[int | None, int | None]:
        position = span.get(key) if isinstance(span, dict) else None
        if not isinstance(position, dict):
            return None, None
        line, character = position.get("line"), position.get("character")
        if not isinstance(line, int) or not isinstance(character, int):
            return None, None
        text = lines[line] if 0 <= line < len(lines) else None
        return line + 1, convert_column(text, character, encoding, "utf-32") + 1

    line, column = at("start")
    end_line, end_column = at("end")
    code = diagnostic.get("code")
    return make_issue(
        kind="typecheck",
        message=str(diagnostic.get("message") or ""),
        source=source,
        severity=_SEVERITY.get(diagnostic.get("severity"), "error"),
        file=file,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        rule=str(code) if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
    )


def missing_server(command: Command, language: str, root: Path) -> RunResult:
    """The run of a language server whose binary was not found: tool_missing, with how to install it."""
    return RunResult(
        language=language,
        check="typecheck",
        tool=command.display,
        argv=[],
        cwd=root,
        status="not_checked",
        reason=command.missing_message,
        binary=command.display,
        missing_binary=command.display,
    )


def as_run_result(
    findings: ServerFindings, *, language: str | None, root: Path, file: Path, text: str, duration_ms: int = 0
) -> RunResult:
    """The findings as a "typecheck" RunResult of the child (tool and source: its name), columns in code points
    counted on `text`."""
    try:
        relative = file.relative_to(root).as_posix()
    except ValueError:
        relative = file.as_posix()
    lines = split_lines(text)
    encoding: Unit = findings.encoding if findings.encoding in ("utf-8", "utf-32") else "utf-16"  # type: ignore[assignment]
    issues = [_issue(d, relative, lines, encoding, findings.server) for d in findings.diagnostics]

    def line_of(_file: str, number: int) -> str | None:
        return lines[number - 1] if 0 < number <= len(lines) else None

    issues = finalize_issues(issues, line_of)
    status = "not_checked" if findings.state != "complete" else "findings" if issues else "clean"
    return RunResult(
        language=language,
        check="typecheck",
        tool=findings.server,
        argv=[],
        cwd=root,
        status=status,  # type: ignore[arg-type]
        reason=findings.reason,
        timed_out=findings.state == "timed_out",
        duration_ms=duration_ms,
        issues=issues,
        binary=findings.server,
    )
