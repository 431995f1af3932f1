"""What the children ask of the editor (EditorBridge in lintel.frontends.lsp.bridge, ChildClient's requests) —
questions for the user, refreshes, log messages — and lintel's own features merged with the child's answers: code
actions (codeactions.py) and formatting where lintel has no formatter (documents.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lintel.core.issues import Issue
from lintel.frontends.lsp import documents as documents_module
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.bridge import EditorBridge
from lintel.frontends.lsp.codeactions import CodeActions
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.shared import RawJson
from lintel.frontends.relay.client import ChildClient, ChildSpec, child_capabilities
from lintel.frontends.relay.marks import MARKER
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pytest_lsp import client_capabilities

from tests.unit.fake_lsp import FRAMING
from tests.unit.test_proxy_client import Host, wait_for

# -- EditorBridge ------------------------------------------------------------------------------------------------


class Editor:
    """What EditorBridge uses of LintelServer: the editor's capabilities and its side of each request."""

    def __init__(self, capabilities: types.ClientCapabilities | None = None) -> None:
        self.client_capabilities = capabilities or types.ClientCapabilities()
        self.session = SimpleNamespace(encoding="utf-16")
        self.workspace = SimpleNamespace(text_documents={})
        self.protocol = self  # send_request_async, as pygls's protocol has it
        self.asked: list[types.ShowMessageRequestParams] = []
        self.answer: Any = None
        self.logged: list[types.LogMessageParams] = []
        self.refreshes: list[str] = []
        self.refreshed = asyncio.get_running_loop().create_future()

    async def window_show_message_request_async(self, params: types.ShowMessageRequestParams) -> Any:
        self.asked.append(params)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    def window_log_message(self, params: types.LogMessageParams) -> None:
        self.logged.append(params)

    async def send_request_async(self, method: str, params: Any) -> Any:
        self.refreshes.append(method)
        return await asyncio.shield(self.refreshed)


def child() -> Any:
    return SimpleNamespace(spec=SimpleNamespace(id="go:/w", chatter=()), name="gopls", encoding="utf-16")


def bridge_for(editor: Editor) -> EditorBridge:
    return EditorBridge(editor, Diagnostics(editor))  # type: ignore[arg-type]


UPGRADE = types.ShowMessageRequestParams(
    type=types.MessageType.Warning,
    message="upgrade golang.org/x/tools?",
    actions=[types.MessageActionItem(title="Yes"), types.MessageActionItem(title="No")],
)


async def test_a_childs_question_is_put_to_the_user_under_its_name_and_the_choice_returned() -> None:
    editor = Editor()
    editor.answer = types.MessageActionItem(title="No")
    chosen = await bridge_for(editor).ask_user(child(), UPGRADE)
    assert chosen == types.MessageActionItem(title="No")
    [asked] = editor.asked
    assert asked.message == "gopls: upgrade golang.org/x/tools?"
    assert asked.type == types.MessageType.Warning
    assert asked.actions == UPGRADE.actions


async def test_a_question_the_editor_fails_to_ask_is_answered_none() -> None:
    editor = Editor()
    editor.answer = JsonRpcException(message="no UI", code=-32603)
    assert await bridge_for(editor).ask_user(child(), UPGRADE) is None


async def test_log_messages_reach_the_editors_log_under_the_childs_name() -> None:
    editor = Editor()
    bridge_for(editor).log_message(child(), types.LogMessageParams(type=types.MessageType.Log, message="loaded 3"))
    assert editor.logged == [types.LogMessageParams(type=types.MessageType.Log, message="gopls: loaded 3")]


async def test_a_childs_info_message_is_shown_only_while_it_runs_a_command_of_the_editors() -> None:
    editor = Editor()
    shown: list[types.ShowMessageParams] = []
    editor.window_show_message = shown.append  # type: ignore[attr-defined]
    editor.notifier = SimpleNamespace(log=lambda message, kind: None, once=lambda *a: None)  # type: ignore[attr-defined]
    bridge = bridge_for(editor)
    passed = types.ShowMessageParams(type=types.MessageType.Info, message="all tests passed")
    bridge.show_message(child(), passed)  # no command running: the log only
    assert shown == []
    with bridge.running_command("go:/w"), bridge.running_command("go:/w"):
        bridge.show_message(child(), passed)
    with bridge.running_command("python:/w"):  # another child's command
        bridge.show_message(child(), passed)
    bridge.show_message(child(), passed)  # both commands over
    assert shown == [types.ShowMessageParams(type=types.MessageType.Info, message="gopls: all tests passed")]


async def settle() -> None:
    """Let the tasks started so far reach the editor (each a few turns of the loop)."""
    for _ in range(5):
        await asyncio.sleep(0)


def refreshing(**workspace: Any) -> types.ClientCapabilities:
    return types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(**workspace))


async def test_a_refresh_reaches_an_editor_that_takes_it_one_at_a_time_per_method() -> None:
    editor = Editor(
        refreshing(
            semantic_tokens=types.SemanticTokensWorkspaceClientCapabilities(refresh_support=True),
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
        )
    )
    bridge = bridge_for(editor)
    first = asyncio.ensure_future(bridge.refresh(child(), types.WORKSPACE_SEMANTIC_TOKENS_REFRESH))
    await settle()
    # A burst while the editor has not answered: dropped (the editor will ask for everything anyway).
    await asyncio.wait_for(bridge.refresh(child(), types.WORKSPACE_SEMANTIC_TOKENS_REFRESH), 1)
    lenses = asyncio.ensure_future(bridge.refresh(child(), types.WORKSPACE_CODE_LENS_REFRESH))
    await settle()
    assert editor.refreshes == [types.WORKSPACE_SEMANTIC_TOKENS_REFRESH, types.WORKSPACE_CODE_LENS_REFRESH]
    editor.refreshed.set_result(None)
    await asyncio.wait_for(asyncio.gather(first, lenses), 1)
    await asyncio.wait_for(bridge.refresh(child(), types.WORKSPACE_SEMANTIC_TOKENS_REFRESH), 1)  # a new one
    assert editor.refreshes.count(types.WORKSPACE_SEMANTIC_TOKENS_REFRESH) == 2


async def test_a_refresh_the_editor_does_not_take_is_not_sent() -> None:
    editor = Editor(
        refreshing(
            semantic_tokens=types.SemanticTokensWorkspaceClientCapabilities(refresh_support=False),
            inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True),
        )
    )
    editor.refreshed.set_result(None)
    bridge = bridge_for(editor)
    for method in (
        types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_FOLDING_RANGE_REFRESH,
        types.WORKSPACE_DIAGNOSTIC_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
    ):
        await asyncio.wait_for(bridge.refresh(child(), method), 1)
    assert editor.refreshes == [types.WORKSPACE_INLAY_HINT_REFRESH]
    assert not bridge._refreshing
    # Neovim takes semantic tokens' and inlay hints' refreshes, VS Code 1.65 semantic tokens' and code lenses'.
    neovim = Editor(client_capabilities("neovim"))
    neovim.refreshed.set_result(None)
    for method in (types.WORKSPACE_CODE_LENS_REFRESH, types.WORKSPACE_SEMANTIC_TOKENS_REFRESH):
        await asyncio.wait_for(bridge_for(neovim).refresh(child(), method), 1)
    assert neovim.refreshes == [types.WORKSPACE_SEMANTIC_TOKENS_REFRESH]


# -- a child's requests (ChildClient) ------------------------------------------------------------------------------

# A stdlib-only server that, once initialized, asks for refreshes and says on stderr how each was answered.
REFRESHING_SERVER = (
    r"""
import json, sys
out = sys.stdout.buffer
"""
    + FRAMING
    + r"""
while True:
    message = read()
    method, msg_id = message.get("method"), message.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"capabilities": {"textDocumentSync": 2}}})
    elif method == "initialized":
        for asked in ("workspace/semanticTokens/refresh", "workspace/diagnostic/refresh", "workspace/codeLens/refresh"):
            send({"jsonrpc": "2.0", "id": asked, "method": asked})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": msg_id, "result": None})
    elif method == "exit":
        sys.exit(0)
    elif msg_id is not None and "method" not in message:
        sys.stderr.write("answered %s %s\n" % (msg_id, json.dumps(message.get("result", message.get("error")))))
        sys.stderr.flush()
"""
)


async def test_a_childs_refreshes_reach_the_host_and_are_answered(tmp_path: Path) -> None:
    script = tmp_path / "refreshing_server.py"
    script.write_text(REFRESHING_SERVER)
    spec = ChildSpec(
        language="go", root=tmp_path, argv=(sys.executable, str(script)), name="fake", stop_grace=1.0, start_timeout=20
    )
    host = Host()
    client = ChildClient(spec, host)
    await client.start()
    try:
        await wait_for(lambda: client.stderr_tail().count("answered") == 3)
        tail = client.stderr_tail()
        for method in (
            types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
            types.WORKSPACE_DIAGNOSTIC_REFRESH,
            types.WORKSPACE_CODE_LENS_REFRESH,
        ):
            assert f"answered {method} null" in tail
        # Pull diagnostics' refresh is only acknowledged: lintel pulls nothing from the children.
        assert sorted(host.refreshes) == sorted(
            [types.WORKSPACE_SEMANTIC_TOKENS_REFRESH, types.WORKSPACE_CODE_LENS_REFRESH]
        )
    finally:
        await client.stop()


def test_children_keep_the_refreshes_lintel_relays_and_the_file_operations() -> None:
    editor = client_capabilities("visual-studio-code")
    assert editor.workspace is not None
    editor.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(refresh_support=True)
    editor.workspace.folding_range = types.FoldingRangeWorkspaceClientCapabilities(refresh_support=True)
    editor.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    editor.workspace.inline_value = types.InlineValueWorkspaceClientCapabilities(refresh_support=True)
    workspace = get_converter().unstructure(child_capabilities(editor, "utf-16"))["workspace"]
    for kept in ("semanticTokens", "codeLens", "inlayHint", "foldingRange"):
        assert workspace[kept] == {"refreshSupport": True}, kept
    assert workspace["fileOperations"]["willRename"] is True
    assert "dynamicRegistration" not in workspace["fileOperations"]
    assert "diagnostics" not in workspace
    assert "inlineValue" not in workspace


# -- code actions: lintel's and the child's ------------------------------------------------------------------------

URI = "file:///w/a.py"


def diagnostic(message: str, data: Any = None) -> types.Diagnostic:
    zero = types.Position(line=0, character=0)
    return types.Diagnostic(range=types.Range(start=zero, end=zero), message=message, data=data)


OWN = diagnostic("lintel's", {"signature": "ruff:E501:a.py:1"})
THEIRS = diagnostic("basedpyright's", {"rule": "reportMissingImports"})
BARE = diagnostic("the child's, without data")


class Children:
    """The document's child server as CodeActions sees it (navigation.Navigation)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.relayed: list[tuple[str, Any, str]] = []
        self.followed: list[tuple[str, Any]] = []

    async def relay(self, method: str, params: Any, uri: str) -> Any:
        self.relayed.append((method, params, uri))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    async def follow(self, method: str, params: dict[str, Any]) -> Any:
        self.followed.append((method, params))
        return RawJson({**params, "edit": {"changes": {}}})


class FoundIssues:
    """Diagnostics.issue_for: an Issue behind lintel's own diagnostic (one whose rule has a page)."""

    def __init__(self) -> None:
        self.asked: list[types.Diagnostic] = []

    def issue_for(self, uri: str, found: types.Diagnostic, text: str) -> Issue | None:
        self.asked.append(found)
        if found != OWN:
            return None
        return Issue("lint", "ruff:E501:a.py:1", "line too long", "warning", "ruff", url="https://docs.astral.sh/e501")


def code_actions(children: Children) -> tuple[CodeActions, FoundIssues]:
    server = SimpleNamespace(
        protocol=LintelServer().protocol,
        client_capabilities=types.ClientCapabilities(),
        workspace=SimpleNamespace(text_documents={URI: SimpleNamespace(source="x = 1\n", version=1)}),
        session=SimpleNamespace(trusted=False),
    )
    documents = SimpleNamespace(locate=lambda uri: (SimpleNamespace(root=Path("/w")), None, None))
    issues = FoundIssues()
    return CodeActions(server, issues, documents, children), issues  # type: ignore[arg-type]


def action_params(*diagnostics: types.Diagnostic) -> types.CodeActionParams:
    zero = types.Position(line=0, character=0)
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=URI),
        range=types.Range(start=zero, end=zero),
        context=types.CodeActionContext(diagnostics=list(diagnostics)),
    )


ORGANIZE = {"title": "Organize imports", "kind": "source.organizeImports", "data": {MARKER: {"child": "python:/w"}}}
QUICK = {"title": "Add import", "kind": "quickfix", "command": {"title": "x", "command": "basedpyright.x"}}


async def test_the_childs_actions_follow_lintels_and_it_gets_only_its_own_diagnostics() -> None:
    children = Children(RawJson([ORGANIZE, QUICK]))
    actions, issues = code_actions(children)
    answer = await actions.actions(action_params(OWN, THEIRS, BARE))
    assert answer is not None
    own, *theirs = answer
    assert isinstance(own, types.CodeAction)
    assert own.title == "Open the documentation of ruff"
    assert own.diagnostics == [OWN]
    assert [type(a) for a in theirs] == [RawJson, RawJson]
    assert [a.value for a in theirs] == [ORGANIZE, QUICK]  # as the child sent them
    [(method, sent, uri)] = children.relayed
    assert (method, uri) == (types.TEXT_DOCUMENT_CODE_ACTION, URI)
    assert [d["message"] for d in sent["context"]["diagnostics"]] == ["basedpyright's", "the child's, without data"]
    assert sent["context"]["diagnostics"][0]["data"] == {"rule": "reportMissingImports"}
    assert OWN in issues.asked


@pytest.mark.parametrize("answer", [JsonRpcException(message="gopls was killed", code=-32803), None, RawJson(None)])
async def test_a_failing_or_silent_child_leaves_lintels_actions(answer: Any) -> None:
    actions, _ = code_actions(Children(answer))
    answer = await actions.actions(action_params(OWN, THEIRS))
    assert answer is not None
    assert [a.title for a in answer] == ["Open the documentation of ruff"]


async def test_no_action_from_anyone_is_an_empty_list_or_null() -> None:
    actions, _ = code_actions(Children(RawJson([])))
    assert not await actions.actions(action_params(THEIRS))


async def test_a_childs_action_is_resolved_by_that_child_and_lintels_by_lintel() -> None:
    children = Children(None)
    actions, _ = code_actions(children)
    resolved = await actions.resolve_json(dict(ORGANIZE))
    assert children.followed == [(types.CODE_ACTION_RESOLVE, ORGANIZE)]
    assert isinstance(resolved, RawJson)
    own = {"title": "Fix all auto-fixable problems (lintel)", "kind": "source.fixAll.lintel", "data": {"x": 1}}
    # lintel's resolve (a raw route: JSON): not a fix-all it can still apply, so as it was.
    assert await actions.resolve_json(own) == own
    assert len(children.followed) == 1
    with pytest.raises(JsonRpcException):
        await actions.resolve_json({"kind": "no title"})


# -- formatting: the child's only where lintel has no formatter ----------------------------------------------------


async def test_formatting_falls_back_to_the_child_only_where_lintel_has_no_formatter() -> None:
    relayed: list[tuple[str, str]] = []
    lintel_formatted: list[str] = []

    async def relay(method: str, params: Any, uri: str) -> Any:
        relayed.append((method, uri))
        return RawJson([{"newText": "child"}])

    async def format_document(uri: str) -> Any:
        lintel_formatted.append(uri)
        return []

    documents = SimpleNamespace(
        server=SimpleNamespace(), formats=lambda uri: uri.endswith(".py"), format_document=format_document
    )
    routed = documents_module.handlers(documents, SimpleNamespace(), relay)  # type: ignore[arg-type]
    formatting = routed[types.TEXT_DOCUMENT_FORMATTING]

    def params(uri: str) -> types.DocumentFormattingParams:
        return types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )

    assert await formatting(params("file:///w/a.py")) == []
    answer = await formatting(params("file:///w/a.go"))
    assert answer.value == [{"newText": "child"}]
    assert relayed == [(types.TEXT_DOCUMENT_FORMATTING, "file:///w/a.go")]
    assert lintel_formatted == ["file:///w/a.py"]
    assert json.dumps(answer.value)  # plain JSON, sent on as it is
