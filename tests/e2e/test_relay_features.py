"""Every class of relayed request answered as the child language server answers it: lintel and the same server
started directly (same capabilities, settings and encoding offer) on copies of one fixture workspace are asked the
same request on the same document, and their answers compared as JSON, after lintel's marks are removed and columns
counted alike (relay_support.Normal). gopls, basedpyright, rust-analyzer and typescript-language-server, each with
VS Code's (UTF-16) and Neovim's (UTF-8) capabilities; one lintel and one direct server per pair, for the module."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lintel.frontends.lsp.testlenses import RUNNER_COMMANDS
from lintel.frontends.relay.methods import RELAYED
from lintel.frontends.relay.router import empty_answer
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.nav_support import CLIENTS, CONTENT_MODIFIED
from tests.e2e.relay_support import (
    SERVERS,
    Normal,
    Pair,
    Side,
    document,
    each,
    note,
    notify,
    position,
    start_direct,
    start_lintel,
    stop,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Files the fixtures lack, added to both copies: a Go interface and its implementation (type hierarchy), a JSX tag
# (linked editing), a go.mod gofmt would not leave as it is (no formatter of lintel's, no child: formatting is null).
EXTRA_FILES = {
    "gopls": {
        "shapes.go": (
            "package lintelgo\n\n// Shape has an area.\ntype Shape interface {\n\tArea() float64\n}\n\n"
            "// Square is a Shape.\ntype Square struct{ Side float64 }\n\n"
            "// Area is the square's.\nfunc (s Square) Area() float64 { return s.Side * s.Side }\n"
        ),
        "go.mod": "module example.com/lintelgo\n\n\n\ngo    1.25\n",
    },
    "tsls": {
        "src/view.tsx": 'export function View() {\n  return <div title="é 🍰">é 🍰</div>;\n}\n',
        # Parameter names, a variable's type and a return type to hint, after é and 🍰.
        "src/hints.ts": (
            "export function total(count: number, price: number) {\n  return count * price;\n}\n"
            'export const label = "é 🍰"; export const sum = total(2, 3);\n'
        ),
    },
}

# Per server: (file, text on the line, symbol) of functions with callers or callees.
HIERARCHY = {
    "gopls": [("label.go", "func Label", "Label"), ("greet.go", "func Greeting", "Greeting")],
    "basedpyright": [
        ("src/inventory/models.py", "def total_value", "total_value"),
        ("src/inventory/labels.py", "def shelf_label", "shelf_label"),
    ],
    "rust-analyzer": [("src/lib.rs", "pub fn add", "add"), ("src/main.rs", "fn main", "main")],
    "tsls": [
        ("src/api.ts", "export function describe", "describe"),
        ("src/labels.ts", "function shelfLabel", "shelfLabel"),
    ],
}
# Per server: the file of lines with é and 🍰 (semantic tokens, inlay hints, selection ranges there).
ACCENTED = {
    "gopls": ("label.go", "é 🍰", "Greeting"),
    "basedpyright": ("src/inventory/pricing.py", "café", "discounted"),
    "rust-analyzer": ("src/shapes.rs", "let accent", "format"),
    "tsls": ("src/labels.ts", "é 🍰", "describe"),
}
# Per server: a range with refactorings on offer (code actions), as (file, text on the line, from, to).
ACTION_RANGE = {
    "gopls": ("label.go", "é 🍰", "Greeting", ")"),
    "basedpyright": ("src/inventory/pricing.py", "rate = percent", "percent", "100"),
    "rust-analyzer": ("src/main.rs", "let total", "add", ";"),
    "tsls": ("src/api.ts", "return `${greeting}", "`", ";"),
}
# rust-analyzer's lenses (run, references, implementations) name commands of its VS Code extension, which it offers
# only to clients announcing them (experimental capabilities, which lintel does not pass on): [] on both sides.
LENSES = {"gopls": "greet_test.go", "rust-analyzer": "src/shapes.rs", "tsls": "src/api.ts"}
# Per server: a file to rename and its new name (workspace/willRenameFiles: the imports that follow it).
RENAMES = {
    "basedpyright": ("src/inventory/models.py", "src/inventory/goods.py"),
    "rust-analyzer": ("src/shapes.rs", "src/figures.rs"),
    "tsls": ("src/api.ts", "src/client.ts"),
}
PAIRS = [(server, client) for server in SERVERS for client in CLIENTS]
# typescript-language-server reads its preferences (inlay hints, reference lenses) only from the settings the
# editor pushes (workspace/didChangeConfiguration), never asks for them.
PUSHED = {
    "tsls": {
        "typescript": {
            "inlayHints": {
                "includeInlayParameterNameHints": "all",
                "includeInlayVariableTypeHints": True,
                "includeInlayFunctionLikeReturnTypeHints": True,
            },
            "referencesCodeLens": {"enabled": True},
        }
    }
}


def _extra_files(server: str) -> Any:
    def prepare(root: Path) -> None:
        for relative, text in EXTRA_FILES.get(server, {}).items():
            (root / relative).write_text(text, encoding="utf-8")

    return prepare


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=PAIRS, ids=[f"{s}-{c}" for s, c in PAIRS])
async def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Pair]:
    name, client_name = request.param
    server = SERVERS[name]
    server.require()
    tmp_path = tmp_path_factory.mktemp(f"{name}-{client_name}")
    lintel = await start_lintel(tmp_path, client_name, server, _extra_files(name))
    direct: Side | None = None
    try:
        direct = await start_direct(tmp_path, client_name, server, lintel.encoding, _extra_files(name))
        note(f"{name} for {client_name}: lintel answers in {lintel.encoding}, the child itself in {direct.encoding}")
        for side in (lintel, direct) if name in PUSHED else ():
            # Settings the editor pushes: lintel passes them on to its child as the editor does to the direct one.
            notify(side.client, types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": PUSHED[name]})
        yield Pair(name, lintel, direct, tmp_path)
    finally:
        if direct is not None:
            await stop(direct)
        await stop(lintel)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def _is_list(answer: Any) -> bool:
    return isinstance(answer, list)


def _only(*servers: str, clients: tuple[str, ...] = CLIENTS) -> pytest.MarkDecorator:
    """The pairs of a test about what only these servers offer (or have something in their fixture to ask about):
    the others are not collected, rather than skipped."""
    chosen = [(s, c) for s, c in PAIRS if s in servers and c in clients]
    return pytest.mark.parametrize("pair", chosen, indirect=True, ids=[f"{s}-{c}" for s, c in chosen])


# -- document requests ------------------------------------------------------------------------------------------


@_only(*LENSES)
async def test_code_lenses_and_their_resolve(pair: Pair) -> None:
    file = LENSES[pair.server]
    # rust-analyzer's lenses need its VS Code extension's commands: [] on both sides.
    ready = _is_list if pair.server == "rust-analyzer" else bool
    mine, theirs = await pair.agree(types.TEXT_DOCUMENT_CODE_LENS, document(file), file, ready, compared=_child_lenses)
    note(f"{pair.server}: {len(mine or [])} code lenses")
    for index, lens in enumerate(mine or []):
        if "command" in lens or not pair.direct.capabilities["codeLensProvider"].get("resolveProvider"):
            continue
        await pair.agree(types.CODE_LENS_RESOLVE, each(lens, theirs[index]), file)


def _child_lenses(mine: Any, theirs: Any) -> tuple[Any, Any]:
    """The child's lenses in lintel's answer (lintel's own "▶ Run test" lenses left out), and the child's own answer
    without the run-test lenses lintel's replace (testlenses.RUNNER_COMMANDS, on the lines of lintel's)."""
    if not isinstance(mine, list) or not isinstance(theirs, list):
        return mine, theirs
    ours = [lens for lens in mine if lens.get("command", {}).get("command") == "lintel.runTests"]
    lines = {lens["range"]["start"]["line"] for lens in ours}

    def replaced(lens: Any) -> bool:
        return lens.get("command", {}).get("command") in RUNNER_COMMANDS and lens["range"]["start"]["line"] in lines

    return [lens for lens in mine if lens not in ours], [lens for lens in theirs if not replaced(lens)]


async def test_inlay_hints(pair: Pair) -> None:
    # Where each server has hints: gopls the types of `étiquette, total :=`, rust-analyzer `let` types and argument
    # names (gopls leaves out an argument named as its parameter: label.go has none).
    hinted = {"gopls": "store.go", "rust-analyzer": "src/main.rs", "tsls": "src/hints.ts"}
    file = hinted.get(pair.server, ACCENTED[pair.server][0])
    mine, _ = await pair.agree(
        types.TEXT_DOCUMENT_INLAY_HINT, lambda s: {"textDocument": s.doc(file), "range": s.whole(file)}, file, bool
    )
    note(f"{pair.server}: {len(mine or [])} inlay hints in {file}")


async def _tokens(pair: Pair, method: str, file: str, extra: dict[str, Any]) -> None:
    def decoded(side: Side, answer: Any) -> Any:
        data = answer.get("data") if isinstance(answer, dict) else None
        return Normal(side).tokens(data, side.uri(file)) if data else None

    last: tuple[Any, Any] = (None, None)
    for _ in range(240):
        mine, theirs = await pair.settled(method, lambda s: {"textDocument": s.doc(file), **extra.get(s.name, {})})
        last = (decoded(pair.lintel, mine), decoded(pair.direct, theirs))
        if last[0] and last[0] == last[1]:
            note(f"{pair.server} {method}: {len(last[0])} tokens alike")
            return
        await _pause()
    assert last[0] == last[1], f"{pair.server} {method}: lintel's tokens differ from the child's"
    raise AssertionError(f"{pair.server} {method}: no tokens")


async def _pause() -> None:
    await asyncio.sleep(0.5)


async def test_semantic_tokens_full_and_range(pair: Pair) -> None:
    file, _, _ = ACCENTED[pair.server]
    await _tokens(pair, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, file, {})
    if not pair.direct.capabilities["semanticTokensProvider"].get("range"):
        note(f"{pair.server}: no semanticTokens/range")
        return
    ranges = {side.name: {"range": side.whole(file)} for side in (pair.lintel, pair.direct)}
    await _tokens(pair, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, file, ranges)


def _applied(data: list[int], delta: dict[str, Any]) -> list[int]:
    """The editor's array after a semanticTokens/full/delta answer (its edits are on the old array's indexes)."""
    if "data" in delta:
        return list(delta["data"])
    result = list(data)
    for edit in sorted(delta["edits"], key=lambda e: e["start"], reverse=True):
        result[edit["start"] : edit["start"] + edit["deleteCount"]] = edit.get("data") or []
    return result


@_only("rust-analyzer")
async def test_semantic_token_deltas(pair: Pair) -> None:
    """After an edit, the editor's tokens with lintel's delta applied are lintel's full tokens of the new text."""
    file, side = "src/shapes.rs", pair.lintel
    document = side.doc(file)
    original = side.text(file)
    edited = "// é 🍰 ajouté\n" + original.replace("let spare = p.x;", "let spare = p.x + 1;")
    full, delta, after = types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, None
    for version in range(2, 240, 2):
        before = await _settled(side, full, {"textDocument": document})
        if not (before or {}).get("data") or "resultId" not in before:
            await _pause()
            continue
        _edit(pair, file, version, edited)
        answer = await _settled(side, delta, {"textDocument": document, "previousResultId": before["resultId"]})
        after = await _settled(side, full, {"textDocument": document})
        _edit(pair, file, version + 1, original)
        if answer and after and _applied(before["data"], answer) == after["data"]:
            note(f"rust-analyzer: {'edits' if 'edits' in answer else 'full'} delta answer, {len(after['data'])} values")
            return
        await _pause()
    raise AssertionError(f"the delta never gave lintel's full tokens: {after!r}")


async def _settled(side: Side, method: str, params: Any) -> Any:
    """The answer, or None when rust-analyzer answered ContentModified (reloading its workspace)."""
    try:
        return await side.ask(method, params)
    except JsonRpcException as error:
        if error.code != CONTENT_MODIFIED:
            raise
        return None


def _edit(pair: Pair, file: str, version: int, text: str) -> None:
    """The document's new text, on both sides (their versions stay alike: edits name them)."""
    for side in (pair.lintel, pair.direct):
        change = {"textDocument": {**side.doc(file), "version": version}, "contentChanges": [{"text": text}]}
        notify(side.client, types.TEXT_DOCUMENT_DID_CHANGE, change)


@_only("gopls", "rust-analyzer", "tsls")
async def test_folding_and_selection_ranges(pair: Pair) -> None:
    file, line, symbol = ACCENTED[pair.server]
    await pair.agree(types.TEXT_DOCUMENT_FOLDING_RANGE, document(file), file)
    await pair.agree(
        types.TEXT_DOCUMENT_SELECTION_RANGE,
        lambda s: {"textDocument": s.doc(file), "positions": [s.at(file, line, symbol), s.at(file, line, line[-1])]},
        file,
    )


@_only("gopls")
async def test_document_links(pair: Pair) -> None:
    links, _ = await pair.agree(types.TEXT_DOCUMENT_DOCUMENT_LINK, document("greet.go"), "greet.go")
    note(f"gopls: {len(links)} links in greet.go")


async def test_call_hierarchy(pair: Pair) -> None:
    calls = 0
    for file, line, symbol in HIERARCHY[pair.server]:
        items, theirs = await pair.agree(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, position(file, line, symbol), file)
        for method in (types.CALL_HIERARCHY_INCOMING_CALLS, types.CALL_HIERARCHY_OUTGOING_CALLS):
            # null where there are none (basedpyright), as well as []
            found, _ = await pair.agree(method, each(items[0], theirs[0], "item"), file, lambda _: True, unordered=True)
            calls += len(found or ())
    assert calls, f"{pair.server}: no calls into or out of {[symbol for _, _, symbol in HIERARCHY[pair.server]]}"


@_only("gopls")
async def test_type_hierarchy(pair: Pair) -> None:
    for symbol, method in (("Square", types.TYPE_HIERARCHY_SUPERTYPES), ("Shape", types.TYPE_HIERARCHY_SUBTYPES)):
        items, theirs = await pair.agree(
            types.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY, position("shapes.go", f"type {symbol}", symbol), "shapes.go"
        )
        related, _ = await pair.agree(method, each(items[0], theirs[0], "item"), "shapes.go")
        names = {item["name"] for item in related}
        assert names & {"Shape", "Square"}, f"{symbol} {method}: {related!r}"


# typescript-language-server offers linked editing only to editors that have it (VS Code's capabilities).
@_only("tsls", clients=("visual-studio-code",))
async def test_linked_editing_ranges(pair: Pair) -> None:
    assert pair.offers("linkedEditingRangeProvider")
    file = "src/view.tsx"
    await pair.agree(types.TEXT_DOCUMENT_LINKED_EDITING_RANGE, position(file, "<div", "div"), file)


# -- code actions -----------------------------------------------------------------------------------------------


def _lintels_own(action: dict[str, Any]) -> bool:
    return isinstance(action.get("title"), str) and action["title"].endswith("(lintel)")


async def test_code_actions_and_their_resolve(pair: Pair) -> None:
    file, line, start, end = ACTION_RANGE[pair.server]

    def params(side: Side) -> dict[str, Any]:
        first = side.at(file, line, start)
        last = side.at(file, line, end)
        span = {"start": first, "end": {"line": last["line"], "character": last["character"] + 1}}
        return {"textDocument": side.doc(file), "range": span, "context": {"diagnostics": [], "triggerKind": 1}}

    def children(answer: Any) -> list[Any]:
        return [a for a in answer or () if not _lintels_own(a)]

    mine: list[Any] = []
    theirs: list[Any] = []
    for _ in range(240):
        answer, direct = await pair.settled(types.TEXT_DOCUMENT_CODE_ACTION, params)
        mine, theirs = children(answer), list(direct or ())
        same = Normal(pair.lintel)(mine, pair.lintel.uri(file)) == Normal(pair.direct)(theirs, pair.direct.uri(file))
        if same and (mine or pair.server == "basedpyright"):  # basedpyright's are quick fixes of its diagnostics
            break
        await _pause()
    else:
        assert Normal(pair.lintel)(mine, "") == Normal(pair.direct)(theirs, ""), f"{pair.server}: actions differ"
    note(f"{pair.server}: {len(mine)} code actions: {[a.get('title') for a in mine]}")
    resolvable = [i for i, a in enumerate(theirs) if "data" in a and "edit" not in a and "command" not in a]
    if not resolvable or not pair.direct.capabilities["codeActionProvider"].get("resolveProvider"):
        return
    index = resolvable[0]
    resolved, _ = await pair.agree(types.CODE_ACTION_RESOLVE, each(mine[index], theirs[index]), file)
    assert resolved.get("edit") or resolved.get("command"), resolved
    note(f"{pair.server}: resolved {resolved.get('title')!r} alike")


# -- files, formatting, what a child lacks ----------------------------------------------------------------------


@_only(*RENAMES)
async def test_will_rename_files(pair: Pair) -> None:
    old, new = RENAMES[pair.server]
    for side in (pair.lintel, pair.direct):
        side.open(old)
    edit, _ = await pair.agree(
        types.WORKSPACE_WILL_RENAME_FILES,
        lambda s: {"files": [{"oldUri": s.uri(old), "newUri": s.uri(new)}]},
        old,
        unordered=True,
    )
    note(f"{pair.server}: renaming {old} edits {sorted(edit.get('changes') or {})}")


@_only("gopls")
async def test_formatting_a_document_no_child_serves_is_null(pair: Pair) -> None:
    """go.mod: lintel has no formatter for it (gofmt formats .go files) and does not give it to gopls (Go's files
    are .go files), so formatting it answers null, not an error."""
    params = {"textDocument": pair.lintel.doc("go.mod"), "options": {"tabSize": 4, "insertSpaces": False}}
    assert await pair.lintel.ask(types.TEXT_DOCUMENT_FORMATTING, params) is None


@_only("tsls")
async def test_range_formatting_where_lintel_formats_is_not_the_childs(pair: Pair) -> None:
    file = "src/api.ts"
    params = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 5, "character": 0}}}
    options = {"tabSize": 8, "insertSpaces": True}
    answer = await pair.lintel.ask(
        types.TEXT_DOCUMENT_RANGE_FORMATTING, {"textDocument": pair.lintel.doc(file), "options": options, **params}
    )
    assert answer is None  # prettier formats the file; tsserver's own formatting would fight it


async def test_methods_the_child_lacks_answer_empty(pair: Pair) -> None:
    file, _, _ = ACCENTED[pair.server]
    lacking = [
        r
        for r in RELAYED
        if r.scope in ("position", "document") and not r.merged and not r.formats
        if pair.direct.capabilities.get(_camel(r.provider)) in (None, False)  # {} offers it, with no options
    ]
    for relayed in lacking:
        side = pair.lintel
        params = {
            "textDocument": side.doc(file),
            "position": {"line": 0, "character": 0},
            "range": side.whole(file),
            "positions": [{"line": 0, "character": 0}],
            "color": {"red": 0, "green": 0, "blue": 0, "alpha": 1},
            "context": {"stoppedLocation": side.whole(file)},
        }
        answer = await side.ask(relayed.method, params)
        assert answer == empty_answer(relayed.method), f"{pair.server} {relayed.method}: {answer!r}"
    note(f"{pair.server}: empty answers for {[r.method for r in lacking]}")
