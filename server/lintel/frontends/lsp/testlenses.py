"""Code lenses above tests (docs/editors.md, Tests in the editor): "▶ Run test" on each test and suite, "▶ Run file"
on a file's first test, the last run's outcome beside them; merged with the child server's own lenses, minus its
run-test lenses where lintel has one (one runner, with structured results). Also `lintel/testsChanged`, told after
an open or a save changed a file's tests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

from lintel.core.positions import lines_of
from lintel.core.testitems import FoundTest
from lintel.engine.testdiscovery import file_lines, file_tests, test_record
from lintel.frontends.lsp.advertised import RUN_TESTS, TESTS_CHANGED
from lintel.frontends.lsp.commands import invalid
from lintel.frontends.lsp.diagnostics import line_reader
from lintel.frontends.lsp.shared import uri_path
from lintel.frontends.lsp.testresults import (
    Locate,
    Outcome,
    TestPublisher,
    TestResults,
    ancestors_of,
    declaration_range,
    relative,
)
from lintel.frontends.relay.marks import marker_of
from lintel.languages import Project

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer
    from lintel.frontends.lsp.commands import Commands
    from lintel.frontends.lsp.diagnostics import Diagnostics
    from lintel.frontends.lsp.documents import Documents

log = logging.getLogger(__name__)

# The child servers' lenses that run or debug a test, left out where lintel has its own lens on that test.
RUNNER_COMMANDS = frozenset(
    {
        "gopls.run_tests",  # gopls's "run test" / "run benchmark"
        "gopls.test",  # older gopls's
        "rust-analyzer.runSingle",  # rust-analyzer's "▶︎ Run Test" / "▶︎ Run Tests" runnables
        "rust-analyzer.debugSingle",  # its "⚙︎ Debug"
    }
)


class ChildLenses(Protocol):
    """The document's child server (navigation.Navigation)."""

    async def relay(self, method: str, params: Any, uri: str) -> Any: ...

    async def follow(self, method: str, params: dict[str, Any]) -> Any: ...


def _title(test: FoundTest) -> str:
    return "▶ Run tests" if test.kind == "suite" else "▶ Run test"


def outcome_title(outcome: Outcome) -> str:
    if outcome.state == "failed":
        return f"✗ failed: {outcome.message}" if outcome.message else "✗ failed"
    return f"✓ passed ({outcome.duration_ms} ms)" if outcome.duration_ms is not None else "✓ passed"


def _command(title: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"title": title, "command": RUN_TESTS, "arguments": [arguments]}


def _lens(where: types.Range, title: str, arguments: dict[str, Any]) -> dict[str, Any]:
    start, end = where.start, where.end
    return {
        "range": {
            "start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character},
        },
        "command": _command(title, arguments),
    }


def _runner_lens(lens: Any) -> int | None:
    """The line of a child's lens that runs or debugs a test; None for any other lens."""
    if not isinstance(lens, dict):
        return None
    command = lens.get("command")
    name = command.get("command") if isinstance(command, dict) else None
    start = lens.get("range", {}).get("start") if isinstance(lens.get("range"), dict) else None
    line = start.get("line") if isinstance(start, dict) else None
    return line if name in RUNNER_COMMANDS and isinstance(line, int) else None


def merge_lenses(own: Sequence[dict[str, Any]], tests: Sequence[FoundTest], theirs: Sequence[Any]) -> list[Any]:
    """lintel's lenses and the child's, but for the child's runner lenses on a line of a test or suite lintel has
    a lens for (its declaration, 0-based lines)."""
    covered = [(t.line - 1, t.end_line - 1) for t in tests if t.kind != "file"]
    kept = []
    for lens in theirs:
        line = _runner_lens(lens)
        if line is not None and any(first <= line <= last for first, last in covered):
            continue
        kept.append(lens)
    return [*own, *kept]


class TestLenses:
    """textDocument/codeLens and codeLens/resolve (raw routes), and the tests last told for each document."""

    __test__ = False

    def __init__(
        self,
        server: LintelServer,
        publisher: TestPublisher,
        locate: Locate,
        children: ChildLenses | None,
    ) -> None:
        self.server = server
        self.publisher = publisher
        self.locate = locate
        self.children = children
        self._told: dict[str, list[dict[str, Any]]] = {}  # by uri: the records last sent in lintel/testsChanged

    # -- textDocument/codeLens -----------------------------------------------------------------------------

    async def code_lens(self, params: Any) -> Any:
        document = params.get("textDocument") if isinstance(params, dict) else None
        uri = document.get("uri") if isinstance(document, dict) else None
        if not isinstance(uri, str):
            raise invalid(f"{types.TEXT_DOCUMENT_CODE_LENS}: params.textDocument.uri must be a string")
        child = asyncio.ensure_future(self._child_lenses(params, uri)) if self.children is not None else None
        try:
            tests = self._tests(uri)
            own = self.own_lenses(uri, tests)
        finally:
            theirs = await child if child is not None else None
        if not own and theirs is None:
            return None
        return merge_lenses(own, tests, theirs or [])

    async def _child_lenses(self, params: dict[str, Any], uri: str) -> list[Any] | None:
        assert self.children is not None
        try:
            answer = await self.children.relay(types.TEXT_DOCUMENT_CODE_LENS, params, uri)
        except Exception as exc:  # lintel's own lenses are still shown
            log.info("code lenses of %s's language server failed: %s", uri, exc)
            return None
        items = getattr(answer, "value", answer)
        return items if isinstance(items, list) else None

    def _tests(self, uri: str) -> list[FoundTest]:
        path = uri_path(uri)
        return self.publisher.tests_of(path) if path is not None else []

    def own_lenses(self, uri: str, tests: Sequence[FoundTest]) -> list[dict[str, Any]]:
        """ "▶ Run file" on the first test, "▶ Run test(s)" on each test and suite, and its last outcome."""
        located = self.locate(uri)
        runnable = [t for t in tests if t.kind != "file"]
        if located is None or not runnable:
            return []
        folder = located[0]
        document = self.server.workspace.text_documents.get(uri)
        read = line_reader(document, uri_path(uri))
        encoding = self.server.session.encoding
        file = relative(runnable[0].file, folder.root)
        by_id = {t.id: t for t in tests}
        lenses = [_lens(declaration_range(runnable[0], read, encoding), "▶ Run file", {"path": file})]
        for test in runnable:
            where = declaration_range(test, read, encoding)
            arguments = {"path": file, "tests": [test.id]}
            lenses.append(_lens(where, _title(test), arguments))
            outcome = self.publisher.results.outcome(folder.root, test, ancestors_of(test, by_id))
            if outcome is not None:
                lenses.append(_lens(where, outcome_title(outcome), arguments))
        return lenses

    # -- codeLens/resolve ----------------------------------------------------------------------------------

    async def resolve(self, params: Any) -> Any:
        """A child's lens goes back to the child that made it; lintel's own come resolved."""
        if marker_of(params) is not None and self.children is not None and isinstance(params, dict):
            return await self.children.follow(types.CODE_LENS_RESOLVE, params)
        return params

    # -- lintel/testsChanged -------------------------------------------------------------------------------

    def tests_changed(self, uri: str) -> None:
        """`lintel/testsChanged` when the document's tests differ from those last told (none at first)."""
        located = self.locate(uri)
        if located is None:
            return
        folder, project, path = located
        tests = self._tests(uri)
        document = self.server.workspace.text_documents.get(uri)
        lines = lines_of(document.source) if document is not None else file_lines(path)
        records = [test_record(t, folder.root, lines, project) for t in tests]
        if records == self._told.get(uri, []):
            return
        self._told[uri] = records
        self.server.send_json({"jsonrpc": "2.0", "method": TESTS_CHANGED, "params": {"uri": uri, "tests": records}})

    def following(self, handlers: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
        """The document routes, each open and save followed by `tests_changed` once lintel has handled it."""
        out = dict(handlers)
        for method in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_SAVE):
            if method in out:
                out[method] = self._then_tell(out[method])
        return out

    def _then_tell(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        async def told(awaitable: Any, uri: str) -> None:
            try:
                if awaitable is not None:
                    await awaitable
            finally:
                try:
                    self.tests_changed(uri)
                except Exception:  # the notification is a courtesy: the document's checks already ran
                    log.exception("lintel/testsChanged for %s failed", uri)

        def handle(params: Any) -> Any:
            return told(handler(params), params.text_document.uri)

        handle.__name__ = getattr(handler, "__name__", "document")
        return handle


def setup(
    server: LintelServer,
    diagnostics: Diagnostics,
    documents: Documents,
    commands: Commands,
    children: ChildLenses | None = None,
) -> TestLenses:
    """The lenses, and the publisher of test runs they read (commands.py hands it each run of the test channel)."""

    def tests_of(project: Project, file: Path, text: str | None) -> list[FoundTest]:
        return file_tests(project, file, text, index=server.session.tests)

    publisher = TestPublisher(server, diagnostics, TestResults(), tests_of, documents.locate)
    commands.test_runs = publisher
    return TestLenses(server, publisher, documents.locate, children)


def handlers(lenses: TestLenses) -> dict[str, Callable[..., Any]]:
    """The code lens routes (advertised.ROUTES)."""
    return {types.TEXT_DOCUMENT_CODE_LENS: lenses.code_lens, types.CODE_LENS_RESOLVE: lenses.resolve}
