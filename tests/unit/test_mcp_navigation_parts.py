"""The pure parts of the MCP navigation tools and of the overlay: a symbol name standing for a position, a
WorkspaceEdit applied or shown as a diff (and refused outside the workspace), a child's diagnostics for a proposed
text told from stale ones and held back from the front, and their conversion to Issue records."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lintel.engine.actions import ActionError
from lintel.frontends.lsp.bridge import EditorBridge
from lintel.frontends.lsp.navigation import Navigation
from lintel.frontends.mcp.navedit import apply_text_edits, plan_workspace_edit, unified_diff, write_changes
from lintel.frontends.mcp.navtools import NAV_BY_NAME, find_symbol, word_occurrence
from lintel.frontends.relay.overlay import VERSION_STEP, ServerFindings, Waiters, as_run_result, server_findings
from lintel.languages import LANGUAGES
from lsprotocol import types


def _range(line: int, start: int, end: int, end_line: int | None = None) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": end_line or line, "character": end}}


def _symbol(name: str, line: int, column: int, children: list[Any] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "kind": 12,
        "range": _range(line, 0, 10),
        "selectionRange": _range(line, column, column + len(name)),
        "children": children or [],
    }


# -- symbols ---------------------------------------------------------------------------------------------


def test_one_declaration_of_the_name_is_its_position() -> None:
    symbols = [_symbol("Store", 3, 5, [_symbol("Total", 7, 16)]), _symbol("main", 20, 5)]
    assert find_symbol(symbols, [], "Total", "store.go") == (7, 16)


def test_a_gopls_method_name_matches_its_bare_name() -> None:
    assert find_symbol([_symbol("(*Store).Total", 7, 16)], [], "Total", "store.go") == (7, 16)


def test_several_declarations_are_an_error_listing_them() -> None:
    symbols = [_symbol("A", 0, 6, [_symbol("size", 1, 8)]), _symbol("B", 5, 6, [_symbol("size", 6, 8)])]
    with pytest.raises(ActionError) as raised:
        find_symbol(symbols, [], "size", "twice.py")
    assert "twice.py:2:9" in raised.value.message
    assert "twice.py:7:9" in raised.value.message


def test_without_a_declaration_the_first_whole_word_occurrence_counts() -> None:
    lines = ["x = total_values", "y = é + total_value(items)"]
    assert find_symbol([], lines, "total_value", "a.py") == (1, 8)
    assert word_occurrence(lines, "total") is None
    with pytest.raises(ActionError, match="does not occur"):
        find_symbol([], lines, "nothing", "a.py")


# -- arguments -------------------------------------------------------------------------------------------


def test_arguments_are_checked_with_the_tools_name_first() -> None:
    tool = NAV_BY_NAME["find_definition"]
    with pytest.raises(ActionError, match=r"^find_definition: .*line: must be an integer"):
        tool.parse({"file": "a.py", "line": "3", "column": 1})
    with pytest.raises(ActionError, match="nope: Extra inputs"):
        tool.parse({"file": "a.py", "nope": 1})
    with pytest.raises(ActionError, match="file: Field required"):
        tool.parse({"line": 1})
    with pytest.raises(ActionError, match="at least 1"):
        tool.parse({"file": "a.py", "line": 0, "column": 1})
    assert tool.parse({"file": "a.py", "symbol": "x"}).get("symbol") == "x"


def test_every_navigation_tool_has_an_input_and_output_schema() -> None:
    for tool in NAV_BY_NAME.values():
        assert tool.input_schema()["type"] == "object"
        assert tool.output_schema()["type"] == "object"
        assert set(tool.required) <= set(tool.input_schema()["properties"])


# -- workspace edits -----------------------------------------------------------------------------------------


def test_text_edits_apply_in_code_points_and_keep_line_ends() -> None:
    text = "é 🍰 total\r\nnext total\n"
    edits = [
        {"range": _range(0, 4, 9), "newText": "stock"},
        {"range": _range(1, 5, 10), "newText": "stock"},
    ]
    assert apply_text_edits(text, edits) == "é 🍰 stock\r\nnext stock\n"


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(ActionError, match="overlap"):
        apply_text_edits(
            "abcdef", [{"range": _range(0, 0, 3), "newText": "x"}, {"range": _range(0, 2, 4), "newText": "y"}]
        )


def test_a_workspace_edit_is_planned_then_written_or_shown(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def old():\n    pass\n")
    b.write_text("from a import old\nold()\n")
    edit = {
        "documentChanges": [
            {"textDocument": {"uri": a.as_uri(), "version": 1}, "edits": [{"range": _range(0, 4, 7), "newText": "new"}]}
        ],
    }
    legacy = {
        "changes": {
            b.as_uri(): [{"range": _range(0, 14, 17), "newText": "new"}, {"range": _range(1, 0, 3), "newText": "new"}]
        }
    }
    planned = plan_workspace_edit(edit, [tmp_path]) + plan_workspace_edit(legacy, [tmp_path])
    assert [c.path for c in planned] == [a, b]
    diff = unified_diff(planned[1], "b.py")
    assert diff.startswith("--- a/b.py\n+++ b/b.py\n")
    assert "\n-old()\n" in diff
    assert "\n+new()\n" in diff
    assert a.read_text() == "def old():\n    pass\n"  # planning writes nothing
    write_changes(planned)
    assert a.read_text() == "def new():\n    pass\n"
    assert b.read_text() == "from a import new\nnew()\n"


def test_an_edit_outside_the_workspace_writes_nothing(tmp_path: Path) -> None:
    inside, outside = tmp_path / "ws" / "a.py", tmp_path / "lib.py"
    inside.parent.mkdir()
    inside.write_text("x = 1\n")
    outside.write_text("x = 1\n")
    edit = {
        "changes": {
            inside.as_uri(): [{"range": _range(0, 0, 1), "newText": "y"}],
            outside.as_uri(): [{"range": _range(0, 0, 1), "newText": "y"}],
        }
    }
    with pytest.raises(ActionError, match="outside the workspace"):
        plan_workspace_edit(edit, [inside.parent])
    assert inside.read_text() == outside.read_text() == "x = 1\n"


def test_a_file_operation_is_refused(tmp_path: Path) -> None:
    edit = {
        "documentChanges": [
            {"kind": "rename", "oldUri": (tmp_path / "a").as_uri(), "newUri": (tmp_path / "b").as_uri()}
        ]
    }
    with pytest.raises(ActionError, match="file operation"):
        plan_workspace_edit(edit, [tmp_path])


# -- overlays --------------------------------------------------------------------------------------------


class FakeChild:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.encoding = "utf-16"
        self.spec = type("Spec", (), {"id": "go:/ws", "language": "go", "saved_sources": ()})()
        self.name = "gopls"
        self.loading = False

    def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


class FakeManager:
    def __init__(self, child: FakeChild, open_: bool) -> None:
        self.child = child
        self.open = open_

    def running_child(self, uri: str) -> Any:
        return self.child if self.open else None

    async def child_for(self, uri: str) -> Any:
        return self.child

    def snapshot(self, uri: str) -> Any:
        return types.TextDocumentItem(uri=uri, language_id="go", version=4, text="package a\n")


URI = "file:///ws/a.go"


async def test_the_publish_for_the_proposed_version_answers_and_earlier_ones_are_held_back() -> None:
    child: Any = FakeChild()
    waiters = Waiters()
    task = asyncio.ensure_future(
        server_findings(FakeManager(child, True), waiters, URI, 'package a\nvar x int = "s"\n', timeout=5, quiet=0.05)  # type: ignore[arg-type]
    )
    for _ in range(3):  # the child asked for, then the text sent
        await asyncio.sleep(0)
    assert waiters.busy(URI)
    # Closed, then opened afresh at a version far above the front's (never a didChange: see overlay.py).
    assert [(m, getattr(p.text_document, "version", None)) for m, p in child.sent] == [
        (types.TEXT_DOCUMENT_DID_CLOSE, None),
        (types.TEXT_DOCUMENT_DID_OPEN, 4 + VERSION_STEP),
    ]
    stale = {"uri": URI, "version": 4, "diagnostics": [{"message": "old", "range": _range(0, 0, 1)}]}
    assert waiters.take(child, stale)
    edited_meanwhile = {**stale, "version": 5}  # the editor's next version, sent during the check
    assert waiters.take(child, edited_meanwhile)  # the editor does not see it, nor does the overlay count it
    new = {
        "uri": URI,
        "version": 4 + VERSION_STEP,
        "diagnostics": [{"message": "cannot use", "range": _range(1, 12, 15), "severity": 1}],
    }
    assert waiters.take(child, new)
    findings = await task
    assert findings is not None
    assert findings.state == "complete"
    assert [d["message"] for d in findings.diagnostics] == ["cannot use"]
    assert not waiters.busy(URI)
    assert not waiters.take(child, stale)  # after the overlay, publishes flow to the front again
    # The child got the real document back: closed and reopened as the front has it.
    assert [m for m, _ in child.sent[2:]] == [types.TEXT_DOCUMENT_DID_CLOSE, types.TEXT_DOCUMENT_DID_OPEN]


async def test_a_document_the_child_did_not_have_is_opened_then_closed_and_silence_times_out() -> None:
    child: Any = FakeChild()
    findings = await server_findings(FakeManager(child, False), Waiters(), URI, "package a\n", timeout=0.05)  # type: ignore[arg-type]
    assert findings is not None
    assert findings.state == "timed_out"
    assert findings.reason is not None
    assert [m for m, _ in child.sent] == [types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CLOSE]


async def _answered(child: Any, waiters: Waiters, text: str, publish: dict[str, Any]) -> Any:
    """server_findings on an open document, the child publishing `publish` once the text was sent."""
    task = asyncio.ensure_future(server_findings(FakeManager(child, True), waiters, URI, text, timeout=5, quiet=0.05))  # type: ignore[arg-type]
    for _ in range(3):
        await asyncio.sleep(0)
    assert waiters.take(child, {"uri": URI, "version": 4 + VERSION_STEP, **publish})
    return await task


async def test_the_text_the_child_has_is_sent_again_as_a_reopened_document_too() -> None:
    child: Any = FakeChild()
    found = await _answered(child, Waiters(), "package a\n", {"diagnostics": []})  # the snapshot's own text
    assert found.state == "complete"
    sent = [(m, getattr(p.text_document, "version", None)) for m, p in child.sent]
    assert sent == [
        (types.TEXT_DOCUMENT_DID_CLOSE, None),
        (types.TEXT_DOCUMENT_DID_OPEN, 4 + VERSION_STEP),
        (types.TEXT_DOCUMENT_DID_CLOSE, None),
        (types.TEXT_DOCUMENT_DID_OPEN, 4),
    ]


async def test_diagnostics_of_a_build_of_the_saved_files_are_left_out() -> None:
    child: Any = FakeChild()
    child.spec.saved_sources = ("rustc", "clippy")
    publish = {"diagnostics": [{"message": "native", "source": "gopls"}, {"message": "built", "source": "rustc"}]}
    found = await _answered(child, Waiters(), "package b\n", publish)
    assert [d["message"] for d in found.diagnostics] == ["native"]


async def test_a_child_that_never_published_is_not_waited_for_again() -> None:
    child: Any = FakeChild()
    waiters = Waiters()
    first = await server_findings(FakeManager(child, False), waiters, URI, "package a\n", timeout=0.05)  # type: ignore[arg-type]
    assert first is not None
    assert first.state == "timed_out"
    sent = len(child.sent)
    again = await server_findings(FakeManager(child, False), waiters, URI, "package a\n", timeout=5)  # type: ignore[arg-type]
    assert again is not None
    assert again.state == "not_run"
    assert again.reason == "gopls has published no diagnostics since it started: not asked again"
    assert len(child.sent) == sent  # nothing sent to it
    waiters.take(child, {"uri": "file:///ws/other.go", "diagnostics": []})  # it publishes after all
    assert (await _answered(child, waiters, "package c\n", {"diagnostics": []})).state == "complete"


def test_findings_become_a_typecheck_run_with_code_point_columns(tmp_path: Path) -> None:
    text = 'package a\nvar é🍰 int = "s"\n'
    findings = ServerFindings(
        "gopls",
        "complete",
        None,
        [{"message": "cannot use", "range": _range(1, 14, 17), "severity": 1, "code": "IncompatibleAssign"}],
        "utf-16",
    )
    result = as_run_result(findings, language="go", root=tmp_path, file=tmp_path / "a.go", text=text)
    [issue] = result.issues
    assert (result.check, result.tool, result.status, result.timed_out) == ("typecheck", "gopls", "findings", False)
    assert (issue.file, issue.line, issue.column, issue.end_column) == ("a.go", 2, 14, 17)
    assert (issue.severity, issue.rule, issue.source) == ("error", "IncompatibleAssign", "gopls")
    timed_out = ServerFindings("gopls", "timed_out", "no answer", [], "utf-16")
    result = as_run_result(timed_out, language="go", root=tmp_path, file=tmp_path / "a.go", text=text)
    assert result.timed_out
    assert result.status == "not_checked"


class Store:
    def __init__(self) -> None:
        self.put_calls: list[tuple[str, str, list[Any]]] = []

    def put(self, uri: str, channel: str, diagnostics: list[Any], **_: Any) -> None:
        self.put_calls.append((uri, channel, list(diagnostics)))


async def test_the_editor_gets_no_child_diagnostics_of_a_file_under_an_overlay() -> None:
    editor = SimpleNamespace(
        client_capabilities=types.ClientCapabilities(),
        session=SimpleNamespace(encoding="utf-16", folder_for=lambda path: None),
        workspace=SimpleNamespace(text_documents={}),
    )
    store = Store()
    bridge = EditorBridge(editor, store)  # type: ignore[arg-type]
    waiters = Waiters()
    bridge.overlays = waiters
    child: Any = FakeChild()
    child.spec.root = Path("/ws")
    published = {"uri": URI, "version": 5, "diagnostics": [{"message": "x", "range": _range(0, 0, 1)}]}
    with waiters.hold(URI, child) as overlay:
        overlay.version = 5
        bridge.diagnostics(child, published)
        assert store.put_calls == []
    bridge.diagnostics(child, published)  # the real content's next publish flows again
    assert [(uri, channel) for uri, channel, _ in store.put_calls] == [(URI, "server:go")]


async def test_the_lsp_navigation_answers_a_proposed_text_with_a_run_of_its_child() -> None:
    child: Any = FakeChild()
    navigation: Any = Navigation.__new__(Navigation)  # only what server_diagnostics uses
    navigation.hooks = SimpleNamespace(
        locate=lambda uri: ("go", Path("/ws")) if uri.endswith(".go") else None, plan=lambda key: None
    )
    navigation.manager = FakeManager(child, True)
    navigation.waiters = Waiters()
    navigation.overlay_timeout = 5.0
    folder: Any = SimpleNamespace(root=Path("/ws"), languages=LANGUAGES)
    proposed = 'package a\nvar x int = "s"\n'
    task = asyncio.ensure_future(Navigation.server_diagnostics(navigation, folder, Path("/ws/a.go"), proposed))
    await asyncio.sleep(0)
    error = {"message": "cannot use", "range": _range(1, 12, 15), "severity": 1, "code": "IncompatibleAssign"}
    navigation.waiters.take(child, {"uri": URI, "version": 4 + VERSION_STEP, "diagnostics": [error]})
    result = await task
    assert result is not None
    assert (result.check, result.tool, result.language, result.status) == ("typecheck", "gopls", "go", "findings")
    [issue] = result.issues
    assert (issue.file, issue.line, issue.column, issue.rule) == ("a.go", 2, 13, "IncompatibleAssign")
    assert await Navigation.server_diagnostics(navigation, folder, Path("/ws/notes.txt"), "x") is None
