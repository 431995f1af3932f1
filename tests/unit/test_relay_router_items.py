"""The router on scripted children (test_proxy_router.py's): which child answers what (`supports`, trigger
characters, lintel's own formatting), the empty answers of a child that lacks a method, the items of an answer
marked so that their resolve or hierarchy step goes back to the child that made them, and semantic tokens (deltas
asked as full tokens where they cannot be carried)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from lintel.frontends.relay.encoding import Recoder
from lintel.frontends.relay.marks import MARKER
from lintel.frontends.relay.router import empty_answer, supports
from lintel.frontends.relay.tokens import TOKEN_TYPES
from lsprotocol import types

from tests.unit.test_proxy_manager import ROOT
from tests.unit.test_proxy_router import ScriptedChild, Setup

GO = (ROOT / "api/a.go").as_uri()
TS = (ROOT / "web/a.ts").as_uri()
PY = (ROOT / "py/a.py").as_uri()


def span(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def document(uri: str, **more: Any) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, **more}


def at(uri: str, character: int = 0, **more: Any) -> dict[str, Any]:
    return document(uri, position={"line": 0, "character": character}, **more)


# -- supports ---------------------------------------------------------------------------------------------------


class Offering:
    def __init__(self, **capabilities: Any) -> None:
        self.capabilities = types.ServerCapabilities(**capabilities)
        self.registered: set[str] = set()


def test_supports_reads_the_option_a_method_needs() -> None:
    plain = Offering(
        rename_provider=True,
        code_lens_provider=types.CodeLensOptions(),
        semantic_tokens_provider=types.SemanticTokensOptions(
            legend=types.SemanticTokensLegend(token_types=[], token_modifiers=[]), full=True
        ),
    )
    rich = Offering(
        rename_provider=types.RenameOptions(prepare_provider=True),
        code_lens_provider=types.CodeLensOptions(resolve_provider=True),
        semantic_tokens_provider=types.SemanticTokensOptions(
            legend=types.SemanticTokensLegend(token_types=[], token_modifiers=[]),
            full=types.SemanticTokensFullDelta(delta=True),
            range=True,
        ),
    )
    assert supports(plain, types.TEXT_DOCUMENT_RENAME)  # type: ignore[arg-type]
    for method in (
        types.TEXT_DOCUMENT_PREPARE_RENAME,
        types.CODE_LENS_RESOLVE,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE,
        types.TEXT_DOCUMENT_HOVER,
    ):
        assert not supports(plain, method), method  # type: ignore[arg-type]
        assert supports(rich, method) or method == types.TEXT_DOCUMENT_HOVER, method  # type: ignore[arg-type]
    assert supports(plain, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL)  # type: ignore[arg-type]
    assert supports(rich, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL)  # type: ignore[arg-type]
    no_delta = Offering(
        semantic_tokens_provider=types.SemanticTokensOptions(
            legend=types.SemanticTokensLegend(token_types=[], token_modifiers=[]),
            full=types.SemanticTokensFullDelta(delta=False),
        )
    )
    assert supports(no_delta, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL)  # type: ignore[arg-type]
    assert not supports(no_delta, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA)  # type: ignore[arg-type]
    assert not supports(Offering(hover_provider=False), types.TEXT_DOCUMENT_HOVER)  # type: ignore[arg-type]


def test_a_method_the_child_registered_is_supported() -> None:
    child = Offering()
    assert not supports(child, types.TEXT_DOCUMENT_INLAY_HINT)  # type: ignore[arg-type]
    child.registered.add(types.TEXT_DOCUMENT_INLAY_HINT)
    assert supports(child, types.TEXT_DOCUMENT_INLAY_HINT)  # type: ignore[arg-type]
    assert not supports(child, "custom/unknown")  # type: ignore[arg-type]


def test_file_operations_are_supported_where_the_child_has_filters() -> None:
    filters = types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.go"))]
    )
    child = Offering(workspace=types.WorkspaceOptions(file_operations=types.FileOperationOptions(will_rename=filters)))
    assert supports(child, types.WORKSPACE_WILL_RENAME_FILES)  # type: ignore[arg-type]
    assert not supports(child, types.WORKSPACE_DID_RENAME_FILES)  # type: ignore[arg-type]
    assert not supports(Offering(), types.WORKSPACE_WILL_RENAME_FILES)  # type: ignore[arg-type]


def test_the_empty_answer_is_a_list_only_where_null_is_not_allowed() -> None:
    assert empty_answer(types.TEXT_DOCUMENT_DOCUMENT_COLOR) == []
    assert empty_answer(types.TEXT_DOCUMENT_COLOR_PRESENTATION) == []
    first = empty_answer(types.TEXT_DOCUMENT_DOCUMENT_COLOR)
    first.append("x")
    assert empty_answer(types.TEXT_DOCUMENT_DOCUMENT_COLOR) == []  # a fresh list each time
    for method in (
        types.TEXT_DOCUMENT_CODE_LENS,
        types.TEXT_DOCUMENT_INLAY_HINT,
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
        types.TEXT_DOCUMENT_FOLDING_RANGE,
        types.TEXT_DOCUMENT_HOVER,
        "custom/unknown",
    ):
        assert empty_answer(method) is None, method


# -- document requests the child does not answer ---------------------------------------------------------------


async def both_paths(setup: Setup, method: str, params: dict[str, Any], uri: str) -> tuple[Any, Any]:
    """The answer through forward() and through forward_now() (the reader's fast path)."""
    replies: list[tuple[Any, Any]] = []
    setup.router.forward_now(method, dict(params), uri, lambda result, error: replies.append((result, error)))
    [(now, error)] = replies
    assert error is None
    return await setup.router.forward(method, dict(params), uri), now


@pytest.mark.parametrize(
    ("method", "params", "empty"),
    [
        (types.TEXT_DOCUMENT_DOCUMENT_COLOR, document(GO), []),
        (types.TEXT_DOCUMENT_COLOR_PRESENTATION, document(GO, color={}, range=span(0, 0, 1)), []),
        (types.TEXT_DOCUMENT_CODE_LENS, document(GO), None),
        (types.TEXT_DOCUMENT_INLAY_HINT, document(GO, range=span(0, 0, 1)), None),
        (types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, document(GO), None),
        (types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, document(GO, previousResultId="1"), None),
        (types.TEXT_DOCUMENT_FOLDING_RANGE, document(GO), None),
        (types.TEXT_DOCUMENT_MONIKER, at(GO), None),
        (types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, at(GO), None),
    ],
)
async def test_a_method_the_child_lacks_is_answered_empty_without_asking_it(
    method: str, params: dict[str, Any], empty: Any
) -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    assert await both_paths(setup, method, params, GO) == (empty, empty)
    assert go.asked == []


def on_type(ch: str) -> dict[str, Any]:
    return at(GO, 1, ch=ch, options={"tabSize": 4, "insertSpaces": True})


async def test_on_type_formatting_is_asked_only_for_the_childs_own_characters() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    go._capabilities = types.ServerCapabilities(
        document_on_type_formatting_provider=types.DocumentOnTypeFormattingOptions(
            first_trigger_character="}", more_trigger_character=[";"]
        )
    )
    edits = [{"range": span(0, 0, 1), "newText": "x"}]
    go.answers[types.TEXT_DOCUMENT_ON_TYPE_FORMATTING] = edits
    for foreign in (".", "{", "\n"):  # lintel advertises these for other servers
        assert await both_paths(setup, types.TEXT_DOCUMENT_ON_TYPE_FORMATTING, on_type(foreign), GO) == (None, None)
    assert go.asked == []
    for own in ("}", ";"):
        assert await both_paths(setup, types.TEXT_DOCUMENT_ON_TYPE_FORMATTING, on_type(own), GO) == (edits, edits)
    assert [p["ch"] for _, p in go.asked] == ["}", "}", ";", ";"]


async def test_formatting_requests_are_not_relayed_where_lintel_formats_the_document() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    go._capabilities = types.ServerCapabilities(
        hover_provider=True,
        document_range_formatting_provider=True,
        document_on_type_formatting_provider=types.DocumentOnTypeFormattingOptions(first_trigger_character="}"),
    )
    edits = [{"range": span(0, 0, 1), "newText": "x"}]
    go.answers[types.TEXT_DOCUMENT_RANGE_FORMATTING] = edits
    go.answers[types.TEXT_DOCUMENT_ON_TYPE_FORMATTING] = edits
    ranged = document(GO, range=span(0, 0, 1), options={"tabSize": 4, "insertSpaces": True})
    formatted: set[str] = set()
    setup.router.formats = lambda uri: uri in formatted
    assert await both_paths(setup, types.TEXT_DOCUMENT_RANGE_FORMATTING, ranged, GO) == (edits, edits)
    formatted.add(GO)
    assert await both_paths(setup, types.TEXT_DOCUMENT_RANGE_FORMATTING, ranged, GO) == (None, None)
    assert await both_paths(setup, types.TEXT_DOCUMENT_ON_TYPE_FORMATTING, on_type("}"), GO) == (None, None)
    assert len(go.asked) == 2  # only while lintel had no formatter for the document
    go.answers[types.TEXT_DOCUMENT_HOVER] = {"contents": "x"}  # the others are not held back
    assert await both_paths(setup, types.TEXT_DOCUMENT_HOVER, at(GO), GO) == ({"contents": "x"}, {"contents": "x"})


# -- items that come back: resolves and hierarchies ---------------------------------------------------------------


def marked(child: ScriptedChild, uri: str, data: Any = None, *, has_data: bool = True) -> dict[str, Any]:
    marker = {MARKER: {"child": child.spec.id, "uri": uri}}
    return {**marker, "data": data} if has_data else marker


@pytest.mark.parametrize(
    ("method", "resolve", "option"),
    [
        (types.TEXT_DOCUMENT_CODE_LENS, types.CODE_LENS_RESOLVE, "code_lens_provider"),
        (types.TEXT_DOCUMENT_INLAY_HINT, types.INLAY_HINT_RESOLVE, "inlay_hint_provider"),
        (types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DOCUMENT_LINK_RESOLVE, "document_link_provider"),
    ],
)
async def test_a_resolve_goes_to_the_child_named_by_the_marker_with_its_data(
    method: str, resolve: str, option: str
) -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    web = await setup.child("web/a.ts")
    options: dict[str, Any] = {
        "code_lens_provider": types.CodeLensOptions(resolve_provider=True),
        "inlay_hint_provider": types.InlayHintOptions(resolve_provider=True),
        "document_link_provider": types.DocumentLinkOptions(resolve_provider=True),
    }
    go._capabilities = types.ServerCapabilities(**{option: options[option]})
    web._capabilities = types.ServerCapabilities(**{option: options[option]})
    go.answers[method] = lambda: [
        {"range": span(0, 0, 1), "position": {"line": 0, "character": 1}, "label": "a", "data": {"id": 7}},
        {"range": span(0, 2, 3), "position": {"line": 0, "character": 3}, "label": "b"},
    ]
    params = document(GO, range=span(0, 0, 5))
    items = await setup.router.forward(method, params, GO)
    assert items[0]["data"] == marked(go, GO, {"id": 7})
    assert items[1]["data"] == marked(go, GO, has_data=False)

    go.answers[resolve] = lambda: {**go.asked[-1][1], "tooltip": "resolved"}
    first = await setup.router.follow(resolve, items[0])
    assert go.asked[-1] == (resolve, {**items[0], "data": {"id": 7}})  # the child's own data restored
    assert first["tooltip"] == "resolved"
    assert first["data"] == marked(go, GO, {"id": 7})  # marked again: a later resolve finds the child too
    second = await setup.router.follow(resolve, items[1])
    assert "data" not in go.asked[-1][1]
    assert second["data"] == marked(go, GO, has_data=False)
    assert [m for m, _ in web.asked] == []


async def test_an_item_of_no_running_child_comes_back_as_it_is() -> None:
    setup = Setup()
    await setup.child("api/a.go")
    lens = {"range": span(0, 0, 1), "data": {MARKER: {"child": "go:/elsewhere", "uri": GO}, "data": {"id": 7}}}
    assert await setup.router.follow(types.CODE_LENS_RESOLVE, lens) == lens
    hint = {"position": {"line": 0, "character": 0}, "label": "x", "data": 3}  # no marker: not a child's
    assert await setup.router.follow(types.INLAY_HINT_RESOLVE, hint) == hint


def hierarchy_item(uri: str, name: str = "f", data: Any = None) -> dict[str, Any]:
    item = {"name": name, "kind": 12, "uri": uri, "range": span(0, 0, 4), "selectionRange": span(0, 0, 1)}
    if data is not None:
        item["data"] = data
    return item


async def test_a_hierarchys_next_step_goes_to_the_child_that_made_the_item() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    web = await setup.child("web/a.ts")
    for child in (go, web):
        child._capabilities = types.ServerCapabilities(call_hierarchy_provider=True)
    go.answers[types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY] = lambda: [hierarchy_item(GO, data={"n": 1})]
    [item] = await setup.router.forward(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, at(GO), GO)
    assert item["data"] == marked(go, GO, {"n": 1})

    caller = hierarchy_item(TS, "caller", data=5)
    go.answers[types.CALL_HIERARCHY_INCOMING_CALLS] = lambda: [{"from": dict(caller), "fromRanges": [span(0, 0, 1)]}]
    # The item names a document of web's child; the marker says go's child made it.
    calls = await setup.router.follow(types.CALL_HIERARCHY_INCOMING_CALLS, {"item": {**item, "uri": TS}})
    assert web.asked == []
    assert go.asked[-1][1]["item"]["data"] == {"n": 1}
    assert calls[0]["from"]["data"][MARKER]["child"] == go.spec.id
    assert calls[0]["from"]["data"]["data"] == 5
    assert calls[0]["from"]["name"] == "caller"

    callee = hierarchy_item(GO, "callee")
    go.answers[types.CALL_HIERARCHY_OUTGOING_CALLS] = lambda: [{"to": dict(callee), "fromRanges": [span(0, 0, 1)]}]
    outgoing = await setup.router.follow(types.CALL_HIERARCHY_OUTGOING_CALLS, {"item": item})
    assert outgoing[0]["to"]["data"] == marked(go, GO, has_data=False)

    # An unmarked item (another editor session's, or made before the child ran): the child of its document.
    web.answers[types.CALL_HIERARCHY_INCOMING_CALLS] = lambda: [{"from": hierarchy_item(TS), "fromRanges": []}]
    from_web = await setup.router.follow(types.CALL_HIERARCHY_INCOMING_CALLS, {"item": hierarchy_item(TS)})
    assert [m for m, _ in web.asked] == [types.CALL_HIERARCHY_INCOMING_CALLS]
    assert from_web[0]["from"]["data"] == marked(web, TS, has_data=False)


async def test_a_type_hierarchy_step_marks_its_items() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    go._capabilities = types.ServerCapabilities(type_hierarchy_provider=True)
    go.answers[types.TYPE_HIERARCHY_SUPERTYPES] = lambda: [hierarchy_item(GO, "Base", data="b")]
    supertypes = await setup.router.follow(types.TYPE_HIERARCHY_SUPERTYPES, {"item": hierarchy_item(GO, "T")})
    assert supertypes[0]["data"] == marked(go, GO, "b")


async def test_a_hierarchy_item_of_no_running_child_is_answered_null() -> None:
    setup = Setup()
    await setup.child("api/a.go")
    item = hierarchy_item("file:///nowhere/x.txt", data={MARKER: {"child": "go:/gone", "uri": GO}})
    assert await setup.router.follow(types.CALL_HIERARCHY_INCOMING_CALLS, {"item": item}) is None
    assert await setup.router.follow(types.TYPE_HIERARCHY_SUBTYPES, {"item": hierarchy_item("file:///x.txt")}) is None


# -- semantic tokens ---------------------------------------------------------------------------------------------

# A child whose legend is not the start of lintel's: its answers are re-counted to lintel's indexes.
CHILD_TYPES = ["function", "variable"]
FUNCTION, VARIABLE = TOKEN_TYPES.index("function"), TOKEN_TYPES.index("variable")


def tokens_child(child: ScriptedChild, *, delta: bool) -> None:
    child._capabilities = types.ServerCapabilities(
        semantic_tokens_provider=types.SemanticTokensOptions(
            legend=types.SemanticTokensLegend(token_types=CHILD_TYPES, token_modifiers=[]),
            full=types.SemanticTokensFullDelta(delta=delta),
        )
    )


DELTA_PARAMS = document(GO, previousResultId="1")


async def test_a_delta_to_a_child_without_deltas_is_asked_as_full_tokens() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    tokens_child(go, delta=False)
    go.answers[types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL] = lambda: {"resultId": "2", "data": [0, 0, 1, 1, 0]}
    forwarded, now = await both_paths(setup, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, DELTA_PARAMS, GO)
    assert forwarded == now == {"resultId": "2", "data": [0, 0, 1, VARIABLE, 0]}
    for method, sent in go.asked:
        assert method == types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL
        assert "previousResultId" not in sent


async def test_with_other_encodings_a_delta_is_asked_as_full_and_the_columns_recounted() -> None:
    setup = Setup(editor="utf-8", child="utf-16")
    go = await setup.child("api/a.go")
    tokens_child(go, delta=True)
    # On 'x = "é🍰" name': "é🍰" at UTF-16 5 (3 units), name at 10 (4); in UTF-8 at 5 (6 bytes) and 13 (4).
    go.answers[types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL] = lambda: {
        "resultId": "2",
        "data": [0, 5, 3, 1, 0, 0, 5, 4, 0, 0],
    }
    forwarded, now = await both_paths(setup, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, DELTA_PARAMS, GO)
    assert forwarded == now == {"resultId": "2", "data": [0, 5, 6, VARIABLE, 0, 0, 8, 4, FUNCTION, 0]}
    assert [m for m, _ in go.asked] == [types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL] * 2
    assert all("previousResultId" not in sent for _, sent in go.asked)


async def test_a_delta_that_cannot_be_carried_is_followed_by_full_tokens() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    tokens_child(go, delta=True)
    # Two elements removed: what stays after them changes role (type, modifiers) in the array.
    go.answers[types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA] = lambda: {
        "resultId": "3",
        "edits": [{"start": 2, "deleteCount": 2}],
    }
    go.answers[types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL] = lambda: {"resultId": "3", "data": [0, 0, 1, 0, 0]}
    forwarded, now = await both_paths(setup, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, DELTA_PARAMS, GO)
    assert forwarded == now == {"resultId": "3", "data": [0, 0, 1, FUNCTION, 0]}
    asked = [m for m, _ in go.asked]
    assert asked == [types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL] * 2
    assert go.asked[0][1]["previousResultId"] == "1"
    assert "previousResultId" not in go.asked[1][1]


async def test_a_delta_that_can_be_carried_is_remapped() -> None:
    setup = Setup()
    go = await setup.child("api/a.go")
    tokens_child(go, delta=True)
    go.answers[types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA] = lambda: {
        "resultId": "3",
        "edits": [{"start": 5, "deleteCount": 0, "data": [0, 2, 1, 0, 0]}],
    }
    forwarded, now = await both_paths(setup, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, DELTA_PARAMS, GO)
    expected = {"resultId": "3", "edits": [{"start": 5, "deleteCount": 0, "data": [0, 2, 1, FUNCTION, 0]}]}
    assert forwarded == now == expected
    assert [m for m, _ in go.asked] == [types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA] * 2


# -- columns of the newer shapes (encoding.Recoder) --------------------------------------------------------------

# UTF-16 columns -> UTF-8: in GO's line, é is 5 (2 bytes), 🍰 6-7 (4 bytes), name 10 -> 13;
# in TS's, 🍰 0-1 and 2-3 (4 bytes each), "=" 5 -> 9, é 7 -> 11.
LINES = {GO: ['x = "é🍰" name'], TS: ["🍰🍰 = é"]}


def utf8(value: Any, uri: str = GO) -> Any:
    return Recoder("utf-16", "utf-8", LINES.get).walk(copy.deepcopy(value), uri, uri)


def test_folding_ranges_columns_are_recounted() -> None:
    ranges = [{"startLine": 0, "startCharacter": 6, "endLine": 0, "endCharacter": 8, "kind": "region"}]
    assert utf8(ranges) == [{"startLine": 0, "startCharacter": 7, "endLine": 0, "endCharacter": 11, "kind": "region"}]
    assert utf8([{"startLine": 0, "endLine": 0}]) == [{"startLine": 0, "endLine": 0}]  # lines only


def test_an_incoming_calls_ranges_are_counted_in_the_callers_document() -> None:
    caller = {"name": "f", "uri": TS, "range": span(0, 2, 4), "selectionRange": span(0, 5, 7)}
    calls = [{"from": caller, "fromRanges": [span(0, 2, 4)]}]
    [call] = utf8(calls)
    assert call["from"]["range"] == span(0, 4, 8)
    assert call["from"]["selectionRange"] == span(0, 9, 11)
    assert call["fromRanges"] == [span(0, 4, 8)]  # in TS, not in GO (the document asked about)


def test_an_outgoing_calls_ranges_are_counted_in_the_requesting_document() -> None:
    [call] = utf8([{"to": {"name": "g", "uri": TS, "range": span(0, 2, 4)}, "fromRanges": [span(0, 6, 8)]}])
    assert call["to"]["range"] == span(0, 4, 8)
    assert call["fromRanges"] == [span(0, 7, 11)]  # in GO, where the calls are made


def test_selection_range_positions_and_linked_editing_ranges() -> None:
    params = {"textDocument": {"uri": GO}, "positions": [{"line": 0, "character": 13}, {"line": 0, "character": 7}]}
    to_child = Recoder("utf-8", "utf-16", LINES.get).walk(params, GO, GO)
    assert to_child["positions"] == [{"line": 0, "character": 10}, {"line": 0, "character": 6}]
    assert utf8({"ranges": [span(0, 10, 14), span(0, 5, 8)], "wordPattern": "x"}) == {
        "ranges": [span(0, 13, 17), span(0, 5, 11)],
        "wordPattern": "x",
    }


def test_inlay_hint_label_parts_locations_are_counted_in_their_document() -> None:
    hints = [
        {
            "position": {"line": 0, "character": 10},
            "label": [{"value": "T", "location": {"uri": TS, "range": span(0, 4, 5)}}, {"value": "é🍰"}],
            "textEdits": [{"range": span(0, 8, 8), "newText": ": é🍰"}],
        },
        {"position": {"line": 0, "character": 8}, "label": "a string is not walked"},
    ]
    first, second = utf8(hints)
    assert first["position"] == {"line": 0, "character": 13}
    assert first["label"][0]["location"]["range"] == span(0, 8, 9)
    assert first["textEdits"][0]["range"] == span(0, 11, 11)
    assert second == {"position": {"line": 0, "character": 11}, "label": "a string is not walked"}


def test_utf16_and_utf8_columns_round_trip_on_multibyte_lines() -> None:
    value = {
        "uri": GO,
        "range": span(0, 5, 10),
        "children": [{"uri": TS, "range": span(0, 2, 7)}],
    }
    there = utf8(value)
    assert there["range"] == span(0, 5, 13)
    assert there["children"][0]["range"] == span(0, 4, 11)
    back = Recoder("utf-8", "utf-16", LINES.get).walk(there, GO, GO)
    assert back == value


async def test_a_bare_range_answer_is_recounted() -> None:
    """prepareRename may answer a Range itself (no `range` key around it)."""
    setup = Setup(editor="utf-8", child="utf-16")
    go = await setup.child("api/a.go")
    go._capabilities = types.ServerCapabilities(rename_provider=types.RenameOptions(prepare_provider=True))
    go.answers[types.TEXT_DOCUMENT_PREPARE_RENAME] = lambda: span(0, 10, 14)
    assert await setup.router.forward(types.TEXT_DOCUMENT_PREPARE_RENAME, at(GO, 13), GO) == span(0, 13, 17)
    assert go.asked[0][1]["position"] == {"line": 0, "character": 10}
    go.answers[types.TEXT_DOCUMENT_PREPARE_RENAME] = lambda: {"range": span(0, 10, 14), "placeholder": "name"}
    wrapped = await setup.router.forward(types.TEXT_DOCUMENT_PREPARE_RENAME, at(GO, 13), GO)
    assert wrapped == {"range": span(0, 13, 17), "placeholder": "name"}
