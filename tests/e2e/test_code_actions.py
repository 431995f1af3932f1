"""Code actions through a real LSP client (both bundled capability sets): the tool's own fixes as quick fixes,
`source.fixAll.lintel` equal to the tool's own `--fix`, a rule disabled for a line, the rule's page, and no fix
offered for text that changed since its diagnostics."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.conftest import Editor, Start, read_exact
from tests.helpers import WORKSPACES, copy_workspace, require_path, require_tool, run_tool

FILE = "src/shop/labels.py"
FIX_ALL = "source.fixAll.lintel"


def _offset(text: str, position: types.Position, encoding: str) -> int:
    """The character offset of an LSP position (the tests' own arithmetic: lines end at \\n, \\r\\n or \\r)."""
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    count = 0
    for index, char in enumerate(line.rstrip("\r\n")):
        if count >= position.character:
            return start + index
        width = {"utf-8": len(char.encode()), "utf-16": len(char.encode("utf-16-le")) // 2}.get(encoding, 1)
        count += width
    return start + len(line.rstrip("\r\n"))


def apply_lsp_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    spans = sorted(
        ((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_for(edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    assert edit is not None
    if edit.document_changes is not None:
        found: list[types.TextEdit] = []
        for change in edit.document_changes:
            assert isinstance(change, types.TextDocumentEdit), change
            assert change.text_document.uri == uri, change
            found.extend(e for e in change.edits if isinstance(e, types.TextEdit))
        return found
    assert edit.changes is not None
    assert set(edit.changes) == {uri}
    return list(edit.changes[uri])


def ruff_fixed(root: Path, tmp: Path, *extra: str) -> str:
    """The file as `ruff check --fix` leaves it in a copy of the project: the reference."""
    copy = tmp / "by-hand"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy)
    run_tool(["ruff", "check", "--fix", "--no-cache", "--quiet", *extra, "."], cwd=copy, timeout=60)
    return (copy / FILE).read_text(encoding="utf-8")


def ruff_codes(root: Path, text: str) -> list[str]:
    """The rules ruff reports for `text` as the file's content, by hand."""
    proc = run_tool(
        ["ruff", "check", "--no-cache", "--output-format=concise", "--stdin-filename", FILE, "-"],
        cwd=root,
        timeout=60,
        stdin=text,
    )
    return sorted(line.split()[1] for line in proc.stdout.splitlines() if line.startswith(FILE))


def _action_or_command(value: Any, _: type) -> types.Command | types.CodeAction:
    """lsprotocol reads every answer item that has a `command` as a Command, a CodeAction's too: a Command's is a
    string, a CodeAction's an object."""
    converter = _CONVERTER
    read: types.Command | types.CodeAction
    if isinstance(value.get("command"), str):
        read = converter.structure(value, types.Command)
    else:
        read = converter.structure(value, types.CodeAction)
    return read


_CONVERTER: Any = None


def read_code_actions_as_clients_do(editor: Editor) -> None:
    global _CONVERTER
    _CONVERTER = editor.client.protocol._converter
    _CONVERTER.register_structure_hook(types.Command | types.CodeAction, _action_or_command)


async def actions_at(editor: Editor, uri: str, diagnostics: Sequence[types.Diagnostic], **context: Any) -> list[Any]:
    read_code_actions_as_clients_do(editor)
    rng = diagnostics[0].range if diagnostics else types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=rng,
        context=types.CodeActionContext(diagnostics=list(diagnostics), **context),
    )
    found = await asyncio.wait_for(editor.client.text_document_code_action_async(params), 120) or []
    assert all(isinstance(a, types.CodeAction) for a in found), found  # lintel's are CodeActions, never Commands
    return list(found)


async def fix_all_edit(editor: Editor, uri: str) -> types.WorkspaceEdit | None:
    found = await actions_at(editor, uri, [], only=[FIX_ALL])
    assert [a.kind for a in found] == [FIX_ALL], found
    action = found[0]
    if action.edit is None:
        action = await asyncio.wait_for(editor.client.code_action_resolve_async(action), 120)
    edit: types.WorkspaceEdit | None = action.edit
    return edit


def is_lint(diagnostic: types.Diagnostic) -> bool:
    """ruff's lint findings; its format check's has the same source and no rule code."""
    return diagnostic.source == "ruff" and diagnostic.code is not None


async def linted(editor: Editor, uri: str) -> list[types.Diagnostic]:
    return await editor.wait_for_diagnostics(uri, lambda ds: any(is_lint(d) for d in ds))


def lint_keys(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[int, int, str]]:
    """The lint findings shown. Not the format check's: a format publish after a save carries the lint findings
    of before it, and would otherwise pass for the save's lint."""
    return sorted((d.range.start.line, d.range.start.character, str(d.code)) for d in diagnostics if is_lint(d))


Keys = Callable[[Sequence[types.Diagnostic]], list[tuple[int, int, str]]]


async def preferred_fixes_one_by_one(
    editor: Editor, uri: str, text: str, diagnostics: Sequence[types.Diagnostic], keys: Keys
) -> tuple[str, int]:
    """What a user does: the preferred quick fix of the first finding that has one, applied and saved, then the
    next once the save's lint has landed — until no finding has one. The text, and how many were applied. The
    lint has landed when `keys` of the findings shown differ: the fix took one away."""
    applied = 0
    for _ in range(40):
        preferred = None
        for diagnostic in diagnostics:
            actions = await actions_at(editor, uri, [diagnostic], only=["quickfix"])
            preferred = next((a for a in actions if a.edit is not None and a.is_preferred), None)
            if preferred is not None:
                break
        if preferred is None:
            break
        text = apply_lsp_edits(text, edits_for(preferred.edit, uri), editor.encoding)
        applied += 1
        editor.save(uri, text)
        diagnostics = await editor.wait_for_diagnostics(uri, differs(keys, keys(diagnostics)), timeout=300)
    return text, applied


def differs(keys: Keys, shown: list[tuple[int, int, str]]) -> Callable[[Sequence[types.Diagnostic]], bool]:
    return lambda diagnostics: keys(diagnostics) != shown


@pytest.fixture
def ruff() -> None:
    require_tool("ruff")


async def test_fix_all_leaves_exactly_what_ruff_fix_leaves(start: Start, ruff: None, tmp_path: Path) -> None:
    editor = await start("fix-editor")
    uri = editor.open(FILE)
    before = await linted(editor, uri)
    text = editor.path(FILE).read_text(encoding="utf-8")
    fixed = apply_lsp_edits(text, edits_for(await fix_all_edit(editor, uri), uri), editor.encoding)
    expected = ruff_fixed(editor.root, tmp_path)
    assert fixed != text
    assert fixed == expected
    # Saved, the next publish holds only what ruff cannot fix safely: the rules ruff reports for that text.
    published = len(editor.client.published)
    editor.save(uri, fixed)
    after = await editor.wait_for_publish(uri, published)
    assert sorted(str(d.code) for d in after if d.source == "ruff") == ruff_codes(editor.root, fixed)
    assert len(after) < len(before)


@pytest.mark.parametrize("warm", [True, False], ids=["worker", "cli"])
async def test_quick_fixes_one_by_one_converge_to_ruff_fix(
    start: Start, ruff: None, tmp_path: Path, warm: bool
) -> None:
    """Through ruff's warm worker (`ruff server`) and through the CLI run (`ruff check --output-format=json`)."""
    editor = await start("fix-editor", init_options={"editor": {"warmWorkers": warm}})
    uri = editor.open(FILE)
    text = editor.path(FILE).read_text(encoding="utf-8")
    diagnostics = await linted(editor, uri)
    text, applied = await preferred_fixes_one_by_one(editor, uri, text, diagnostics, lint_keys)
    assert applied >= 5
    assert text == ruff_fixed(editor.root, tmp_path)


async def test_unsafe_and_display_fixes_are_named_and_never_preferred(start: Start, ruff: None) -> None:
    editor = await start("fix-editor")
    uri = editor.open(FILE)
    diagnostics = await linted(editor, uri)
    unused = next(d for d in diagnostics if d.code == "F841")
    found = await actions_at(editor, uri, [unused])
    titles = [a.title for a in found]
    fixes = [a for a in found if a.edit is not None and "noqa" not in a.title.lower() and "Disable" not in a.title]
    assert fixes, titles
    assert all(a.title.endswith("(unsafe)") and not a.is_preferred for a in fixes), titles


async def test_disable_rule_for_a_line_silences_that_finding_only(start: Start, ruff: None) -> None:
    editor = await start("fix-editor")
    uri = editor.open(FILE)
    diagnostics = await linted(editor, uri)
    ambiguous = next(d for d in diagnostics if d.code == "E741")
    found = await actions_at(editor, uri, [ambiguous], only=["quickfix"])
    disable = next(a for a in found if a.title.startswith("Disable"))
    text = editor.path(FILE).read_text(encoding="utf-8")
    changed = apply_lsp_edits(text, edits_for(disable.edit, uri), editor.encoding)
    assert "# noqa: E741" in changed.splitlines()[ambiguous.range.start.line]
    before = ruff_codes(editor.root, text)
    after = ruff_codes(editor.root, changed)
    before.remove("E741")
    assert after == before


async def test_rule_page_is_the_code_description_and_an_action(start: Start, ruff: None) -> None:
    editor = await start("fix-editor")
    uri = editor.open(FILE)
    diagnostics = await linted(editor, uri)
    first = next(d for d in diagnostics if d.code == "F401")
    assert first.code_description is not None
    assert first.code_description.href.startswith("https://docs.astral.sh/ruff/rules/")
    found = await actions_at(editor, uri, [first], only=["quickfix"])
    docs = [a for a in found if a.command is not None and a.command.command == "lintel.openDocumentation"]
    assert [list(a.command.arguments or ()) for a in docs] == [[first.code_description.href]]


async def test_no_fix_for_text_changed_since_its_diagnostics(start: Start, ruff: None) -> None:
    editor = await start("fix-editor")
    uri = editor.open(FILE)
    diagnostics = await linted(editor, uri)
    old = next(d for d in diagnostics if d.code == "F541")
    assert any(a.edit is not None for a in await actions_at(editor, uri, [old], only=["quickfix"]))
    # A line above it: the old diagnostic's positions now name other text.
    editor.change(uri, "# a new first line\n" + editor.path(FILE).read_text(encoding="utf-8"))
    stale = await actions_at(editor, uri, [old], only=["quickfix"])
    assert not [a for a in stale if a.edit is not None], [a.title for a in stale]


async def test_fix_all_is_offered_only_when_asked_or_invoked(start: Start, ruff: None) -> None:
    editor = await start("fix-editor")
    uri = editor.open(FILE)
    await linted(editor, uri)
    automatic = await actions_at(editor, uri, [], trigger_kind=types.CodeActionTriggerKind.Automatic)
    assert FIX_ALL not in [a.kind for a in automatic]
    invoked = await actions_at(editor, uri, [], trigger_kind=types.CodeActionTriggerKind.Invoked)
    assert FIX_ALL in [a.kind for a in invoked]
    options = editor.result.capabilities.code_action_provider
    assert isinstance(options, types.CodeActionOptions)
    assert set(options.code_action_kinds or []) >= {"quickfix", FIX_ALL}
    assert options.resolve_provider is True


async def test_open_documentation_asks_the_editor_to_show_the_page(start: Start) -> None:
    editor = await start("fix-editor")
    url = "https://docs.astral.sh/ruff/rules/unused-import"
    answer = await editor.execute("lintel.openDocumentation", url)
    assert answer == {"url": url}
    window = editor.client.capabilities.window if editor.client.capabilities else None
    if window is not None and window.show_document is not None and window.show_document.support:
        assert [(p.uri, p.external) for p in editor.client.shown_documents] == [(url, True)]
    else:  # a client without window/showDocument is told the address instead
        await editor.wait_for_message(url)
    with pytest.raises(Exception, match="takes the address of a page"):
        await editor.execute("lintel.openDocumentation", "not a url")
    await editor.alive()


# -- eslint -----------------------------------------------------------------------------------------------------

NODE_FILES = ("src/unicode.js", "src/crlf.js")


def eslint_fixed(root: Path, tmp: Path, file: str) -> str:
    """`eslint --fix <file>` in a copy of the project: the reference."""
    copy = tmp / f"by-hand-{Path(file).stem}"
    shutil.rmtree(copy, ignore_errors=True)
    copy_workspace("fix-node", copy)
    run_tool([str(copy / "node_modules/.bin/eslint"), "--fix", file], cwd=copy, timeout=120)
    return read_exact(copy / file)


@pytest.fixture
def eslint() -> None:
    require_tool("node", "install Node.js 20+")
    require_path(WORKSPACES / "fix-node" / "node_modules" / ".bin" / "eslint")


@pytest.mark.parametrize("warm", [True, False], ids=["worker", "cli"])
@pytest.mark.parametrize("file", NODE_FILES)
async def test_eslint_fix_all_leaves_what_eslint_fix_leaves(
    start: Start, eslint: None, tmp_path: Path, file: str, warm: bool
) -> None:
    """Through the warm eslint worker's fix request, and through `eslint --fix-dry-run --stdin`."""
    editor = await start("fix-node", init_options={"editor": {"warmWorkers": warm}})
    uri = editor.open(file)
    await editor.wait_for_diagnostics(uri, lambda ds: any(d.source == "eslint" for d in ds))
    text = read_exact(editor.path(file))
    fixed = apply_lsp_edits(text, edits_for(await fix_all_edit(editor, uri), uri), editor.encoding)
    assert fixed != text
    assert fixed == eslint_fixed(editor.root, tmp_path, file)


async def test_eslint_fixes_and_suggestions_as_quick_fixes(start: Start, eslint: None) -> None:
    editor = await start("fix-node")
    uri = editor.open("src/unicode.js")
    diagnostics = await editor.wait_for_diagnostics(uri, lambda ds: any(d.source == "eslint" for d in ds))
    offered: dict[str, list[tuple[str, bool]]] = {}
    for diagnostic in diagnostics:
        for action in await actions_at(editor, uri, [diagnostic], only=["quickfix"]):
            offered.setdefault(str(diagnostic.code), []).append((action.title, bool(action.is_preferred)))
    assert ("Fix this prefer-const problem", True) in offered["prefer-const"], offered
    # eqeqeq offers its change as a suggestion: unsafe, never preferred.
    assert any(title.endswith("(unsafe)") and not preferred for title, preferred in offered["eqeqeq"]), offered
    assert any(title.startswith("Disable no-var") for title, _ in offered["no-var"]), offered
