"""Semantic tokens through lintel's one legend: its contents, each child's arrays remapped onto it (full and delta
answers, dropped unknown types), and columns re-counted between encodings."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from lintel.core.positions import Unit, convert_column
from lintel.frontends.relay import tokens
from lintel.frontends.relay.tokens import Remap, recode_full, remap_delta, remap_full

# The legends the real servers answered `initialize` with (VS Code's client capabilities).
GOPLS = {
    "tokenTypes": [
        "namespace", "type", "typeParameter", "parameter", "property", "variable", "function", "method", "macro",
        "keyword", "comment", "string", "number", "operator", "label",
    ],
    "tokenModifiers": [
        "definition", "readonly", "defaultLibrary", "static", "array", "bool", "chan", "format", "interface", "map",
        "number", "pointer", "signature", "slice", "string", "struct", "shadowing",
    ],
}  # fmt: skip
BASEDPYRIGHT = {
    "tokenTypes": [
        "namespace", "type", "class", "enum", "typeParameter", "parameter", "variable", "property", "enumMember",
        "function", "method", "keyword", "decorator", "selfParameter", "clsParameter",
    ],
    "tokenModifiers": [
        "declaration", "definition", "readonly", "static", "async", "defaultLibrary", "builtin", "classMember",
        "parameter",
    ],
}  # fmt: skip
RUST_ANALYZER = {
    "tokenTypes": [
        "comment", "decorator", "enumMember", "enum", "function", "interface", "keyword", "macro", "method",
        "namespace", "number", "operator", "parameter", "property", "string", "struct", "typeParameter", "variable",
        "type", "label", "angle", "arithmetic", "attributeBracket", "attribute", "bitwise", "boolean", "brace",
        "bracket", "builtinAttribute", "builtinType", "character", "colon", "comma", "comparison", "constParameter",
        "const", "deriveHelper", "derive", "dot", "escapeSequence", "formatSpecifier", "generic",
        "invalidEscapeSequence", "lifetime", "logical", "macroBang", "negation", "parenthesis", "procMacro",
        "punctuation", "selfKeyword", "selfTypeKeyword", "semicolon", "static", "toolModule", "typeAlias", "union",
        "unresolvedReference",
    ],
    "tokenModifiers": [
        "async", "documentation", "declaration", "static", "defaultLibrary", "deprecated", "associated", "attribute",
        "callable", "constant", "consuming", "controlFlow", "crateRoot", "injected", "intraDocLink", "library",
        "macro", "mutable", "procMacro", "public", "reference", "trait", "unsafe",
    ],
}  # fmt: skip
TSLS = {
    "tokenTypes": [
        "class", "enum", "interface", "namespace", "typeParameter", "type", "parameter", "variable", "enumMember",
        "property", "function", "member",
    ],
    "tokenModifiers": ["declaration", "static", "async", "readonly", "defaultLibrary", "local"],
}  # fmt: skip
SERVERS = {"gopls": GOPLS, "basedpyright": BASEDPYRIGHT, "rust-analyzer": RUST_ANALYZER, "tsls": TSLS}
# A user-configured server with a type and a modifier of its own.
CUSTOM = {
    "tokenTypes": ["variable", "sparkle", "function", "glitter"],
    "tokenModifiers": ["readonly", "shiny", "static"],
}

Token = tuple[int, int, int, str, frozenset[str]]


def decode(data: list[int], legend: dict[str, list[str]]) -> list[Token]:
    """Absolute tokens, with their type and modifiers by name."""
    decoded: list[Token] = []
    line = start = 0
    for index in range(0, len(data), 5):
        delta_line, delta_start, length, kind, mask = data[index : index + 5]
        line += delta_line
        start = delta_start if delta_line else start + delta_start
        names = frozenset(name for bit, name in enumerate(legend["tokenModifiers"]) if mask >> bit & 1)
        decoded.append((line, start, length, legend["tokenTypes"][kind], names))
    return decoded


def random_tokens(rng: random.Random, count: int, legend: dict[str, list[str]]) -> list[int]:
    data: list[int] = []
    for _ in range(count):
        data += random_token(rng, legend)
    return data


def random_token(rng: random.Random, legend: dict[str, list[str]]) -> list[int]:
    delta_line = rng.choice((0, 0, 1, 2))
    mask = 0
    for bit in range(len(legend["tokenModifiers"])):
        if rng.random() < 0.2:
            mask |= 1 << bit
    return [delta_line, rng.randrange(1, 9), rng.randrange(1, 12), rng.randrange(len(legend["tokenTypes"])), mask]


def random_role_value(rng: random.Random, role: int, legend: dict[str, list[str]]) -> int:
    """A value fit for an element at index ≡ `role` (mod 5) of a token array."""
    return random_token(rng, legend)[role]


def apply_edits(data: list[int], edits: list[dict[str, Any]]) -> list[int]:
    """The array after a delta's edits, as an editor applies them (starts index the old array)."""
    result: list[int] = []
    position = 0
    for edit in sorted(edits, key=lambda edit: int(edit["start"])):
        result += data[position : edit["start"]]
        result += edit.get("data") or []
        position = edit["start"] + edit["deleteCount"]
    return result + data[position:]


def remapped(data: list[int], legend: dict[str, list[str]]) -> list[int]:
    result = remap_full({"data": list(data)}, Remap(legend))
    data_out: list[int] = result["data"]
    return data_out


def expected_names(token: Token) -> Token:
    """A child's token as it reads in lintel's legend: the same type, its modifiers less those lintel dropped."""
    return (*token[:4], token[4] - frozenset(tokens.DROPPED_MODIFIERS))


def test_the_legend_starts_with_the_standard_types_and_modifiers() -> None:
    assert tokens.TOKEN_TYPES[:24] == (
        "namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable",
        "property", "enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string",
        "number", "regexp", "operator", "decorator", "label",
    )  # fmt: skip
    assert tokens.TOKEN_MODIFIERS[:10] == (
        "declaration", "definition", "readonly", "static", "deprecated", "abstract", "async", "modification",
        "documentation", "defaultLibrary",
    )  # fmt: skip
    assert tokens.legend_json() == {
        "tokenTypes": list(tokens.TOKEN_TYPES),
        "tokenModifiers": list(tokens.TOKEN_MODIFIERS),
    }
    assert tokens.LEGEND == (tokens.TOKEN_TYPES, tokens.TOKEN_MODIFIERS)


@pytest.mark.parametrize("server", SERVERS)
def test_the_legend_names_every_type_and_kept_modifier_of_each_server(server: str) -> None:
    legend = SERVERS[server]
    assert set(legend["tokenTypes"]) <= set(tokens.TOKEN_TYPES)
    assert set(legend["tokenModifiers"]) <= set(tokens.TOKEN_MODIFIERS) | set(tokens.DROPPED_MODIFIERS)


def test_the_legend_has_no_duplicates_and_fits_31_modifier_bits() -> None:
    assert len(set(tokens.TOKEN_TYPES)) == len(tokens.TOKEN_TYPES)
    assert len(set(tokens.TOKEN_MODIFIERS)) == len(tokens.TOKEN_MODIFIERS)
    assert len(tokens.TOKEN_MODIFIERS) <= tokens.MAX_MODIFIERS == 31
    assert not set(tokens.DROPPED_MODIFIERS) & set(tokens.TOKEN_MODIFIERS)
    every = {name for legend in SERVERS.values() for name in legend["tokenModifiers"]}
    # Only what cannot fit is left out.
    assert len(tokens.TOKEN_MODIFIERS) == min(tokens.MAX_MODIFIERS, len(every | set(tokens.STANDARD_MODIFIERS)))
    assert set(tokens.DROPPED_MODIFIERS) <= every


def test_a_gopls_result_reads_the_same_in_lintels_legend() -> None:
    # func main: `main` a function definition; `x` a readonly variable with the pointer and format modifiers.
    data = [0, 5, 4, 6, 0b1, 1, 1, 1, 5, 0b10 | 0b10000000 | 0b100000000000, 0, 3, 2, 0, 0b100]
    result = remap_full({"resultId": "7", "data": list(data)}, Remap(GOPLS))
    assert result["resultId"] == "7"
    assert decode(result["data"], tokens.legend_json()) == [
        (0, 5, 4, "function", frozenset({"definition"})),
        (1, 1, 1, "variable", frozenset({"readonly", "format"})),  # pointer is dropped
        (1, 4, 2, "namespace", frozenset({"defaultLibrary"})),
    ]
    index = tokens.TOKEN_TYPES.index
    assert result["data"][3::5] == [index("function"), index("variable"), index("namespace")]


@pytest.mark.parametrize("server", SERVERS)
def test_every_servers_tokens_keep_their_names(server: str) -> None:
    legend = SERVERS[server]
    data = random_tokens(random.Random(server), 400, legend)
    assert decode(remapped(data, legend), tokens.legend_json()) == [
        expected_names(token) for token in decode(data, legend)
    ]


def test_unknown_modifier_bits_are_cleared() -> None:
    remap = Remap(CUSTOM)
    # shiny is unknown to lintel; bit 5 is past the child's own legend.
    result = remap_full({"data": [0, 0, 3, 0, 0b111 | 1 << 5]}, remap)
    assert decode(result["data"], tokens.legend_json()) == [(0, 0, 3, "variable", frozenset({"readonly", "static"}))]


def test_unknown_types_are_dropped_and_the_next_tokens_stay_in_place() -> None:
    rng = random.Random(3)
    data = random_tokens(rng, 300, CUSTOM)
    data[:5] = [2, 4, 3, 1, 0]  # the very first token dropped
    data[-5:] = [1, 0, 3, 3, 0]  # and the very last
    data += [0, 2, 1, 7, 0]  # a type index past the child's legend: dropped too
    result = remap_full({"resultId": "1", "data": list(data)}, Remap(CUSTOM))
    kept = [
        (*token[:4], token[4] - {"shiny"})
        for token in decode(data[:-5], CUSTOM)
        if token[3] not in {"sparkle", "glitter"}
    ]
    assert 0 < len(kept) < 300
    assert decode(result["data"], tokens.legend_json()) == kept
    # The editor's array no longer matches the child's element for element: no delta may be asked against it.
    assert "resultId" not in result


def test_identity_remap_returns_the_same_result() -> None:
    remap = Remap(tokens.legend_json())
    assert remap.identity
    data = random_tokens(random.Random(1), 50, tokens.legend_json())
    full = {"resultId": "2", "data": data}
    assert remap_full(full, remap) is full
    assert full["data"] is data
    delta = {"resultId": "3", "edits": [{"start": 2, "deleteCount": 1, "data": [9]}]}
    assert remap_delta(delta, remap) is delta
    assert delta["edits"] == [{"start": 2, "deleteCount": 1, "data": [9]}]
    prefix = Remap({"tokenTypes": list(tokens.TOKEN_TYPES[:5]), "tokenModifiers": list(tokens.TOKEN_MODIFIERS[:3])})
    assert prefix.identity
    assert not Remap(GOPLS).identity
    assert not Remap({"tokenTypes": ["type", "namespace"], "tokenModifiers": []}).identity


def test_empty_arrays() -> None:
    assert remap_full({"data": []}, Remap(GOPLS)) == {"data": []}
    assert remap_delta({"resultId": "4", "edits": []}, Remap(GOPLS)) == {"resultId": "4", "edits": []}
    assert remap_delta({"edits": [{"start": 5, "deleteCount": 5}]}, Remap(GOPLS)) == {
        "edits": [{"start": 5, "deleteCount": 5}]
    }
    assert recode_full([], lambda line: "é", "utf-16", "utf-8") == []


def aligned_edit(rng: random.Random, old_tokens: int, legend: dict[str, list[str]]) -> dict[str, Any]:
    """Whole tokens replaced by whole tokens."""
    first = rng.randrange(old_tokens + 1)
    deleted = rng.randrange(min(4, old_tokens - first) + 1)
    return {"start": first * 5, "deleteCount": deleted * 5, "data": random_tokens(rng, rng.randrange(4), legend)}


def unaligned_edits(
    rng: random.Random, old_length: int, legend: dict[str, list[str]], count: int
) -> list[dict[str, Any]]:
    """`count` edits starting and ending anywhere, each inserting as many elements as it deletes give or take whole
    tokens (so unchanged elements between them keep their role), with values fit for their roles in the new array."""
    starts = sorted(rng.sample(range(old_length + 1), count))
    edits: list[dict[str, Any]] = []
    shift = 0
    for number, start in enumerate(starts):
        limit = (starts[number + 1] if number + 1 < count else old_length) - start
        deleted = rng.randrange(min(limit, 12) + 1)
        inserted = deleted + 5 * rng.randrange(-1, 3)
        while inserted < 0:
            inserted += 5
        new_start = start + shift
        data = [random_role_value(rng, (new_start + offset) % 5, legend) for offset in range(inserted)]
        edits.append({"start": start, "deleteCount": deleted, "data": data})
        shift += inserted - deleted
    rng.shuffle(edits)  # the relay must not rely on their order
    return edits


def check_delta(old: list[int], edits: list[dict[str, Any]], legend: dict[str, list[str]]) -> None:
    new = apply_edits(old, edits)
    assert len(new) % 5 == 0
    editor_old = remapped(old, legend)
    delta = remap_delta({"resultId": "9", "edits": copy.deepcopy(edits)}, Remap(legend))
    assert delta is not None
    assert delta["resultId"] == "9"
    assert apply_edits(editor_old, delta["edits"]) == remapped(new, legend)


@pytest.mark.parametrize("server", SERVERS)
def test_a_delta_remapped_equals_the_new_array_remapped(server: str) -> None:
    legend = SERVERS[server]
    for seed in range(60):
        rng = random.Random(f"{server}-{seed}")
        count = rng.randrange(1, 40)
        old = random_tokens(rng, count, legend)
        check_delta(old, [aligned_edit(rng, count, legend)], legend)
        check_delta(old, unaligned_edits(rng, len(old), legend, 1), legend)
        check_delta(old, unaligned_edits(rng, len(old), legend, rng.randrange(2, 5)), legend)


def test_a_delta_whose_roles_shift_only_between_adjacent_edits_is_remapped() -> None:
    old = random_tokens(random.Random(5), 6, RUST_ANALYZER)
    new_values = [random_role_value(random.Random(6), role, RUST_ANALYZER) for role in (2, 3, 4, 0)]
    # +1 element after the first edit, back to whole tokens at once by the next: no unchanged element in between.
    edits = [{"start": 7, "deleteCount": 3, "data": new_values}, {"start": 10, "deleteCount": 1, "data": []}]
    check_delta(old, edits, RUST_ANALYZER)
    # Two more elements, then two fewer: the second edit's one element lands at a modifiers index (9), not at 7.
    rng = random.Random(7)
    first = [random_role_value(rng, role, RUST_ANALYZER) for role in (1, 2, 3)]
    edits = [{"start": 7, "deleteCount": 3, "data": [1 << 22]}, {"start": 6, "deleteCount": 1, "data": first}]
    check_delta(old, edits, RUST_ANALYZER)


def test_a_delta_with_a_dropped_type_or_shifted_roles_asks_for_full_tokens() -> None:
    known = [0, 1, 2, 2, 0b101]
    unknown = [0, 1, 2, 1, 0]  # sparkle
    assert remap_delta({"edits": [{"start": 5, "deleteCount": 0, "data": known}]}, Remap(CUSTOM)) is not None
    edits: list[dict[str, Any]] = [{"start": 5, "deleteCount": 0, "data": known + unknown}]
    original = copy.deepcopy(edits)
    assert remap_delta({"edits": edits}, Remap(CUSTOM)) is None
    assert edits == original  # left as the child sent it
    # An inserted type index past the child's legend.
    assert remap_delta({"edits": [{"start": 0, "deleteCount": 0, "data": [0, 0, 1, 99, 0]}]}, Remap(GOPLS)) is None
    # One element more, then one less further on: the unchanged elements between change role.
    shifted = [{"start": 2, "deleteCount": 0, "data": [4]}, {"start": 10, "deleteCount": 1}]
    assert remap_delta({"edits": shifted}, Remap(GOPLS)) is None
    # Arrays differing by other than whole tokens; overlapping edits; a malformed edit.
    assert remap_delta({"edits": [{"start": 2, "deleteCount": 1}]}, Remap(GOPLS)) is None
    overlapping = [{"start": 0, "deleteCount": 5, "data": []}, {"start": 3, "deleteCount": 5, "data": []}]
    assert remap_delta({"edits": overlapping}, Remap(GOPLS)) is None
    assert remap_delta({"edits": [{"deleteCount": 5}]}, Remap(GOPLS)) is None
    assert remap_delta({"resultId": "1"}, Remap(GOPLS)) is None


LINES = [
    'x = "é" + name',  # é: 1 UTF-16 unit, 2 UTF-8 bytes
    "🍰 = cake(🍰, é)",  # 🍰: 2 UTF-16 units, 4 UTF-8 bytes
    "plain ascii",
]


def line_of(row: int) -> str | None:
    return LINES[row] if row < len(LINES) else None


def columns(data: list[int]) -> list[tuple[int, int, int]]:
    return [token[:3] for token in decode(data, {"tokenTypes": ["t"], "tokenModifiers": []})]


@pytest.mark.parametrize(("source", "target"), [("utf-16", "utf-8"), ("utf-8", "utf-16"), ("utf-16", "utf-32")])
def test_columns_are_recounted_on_each_tokens_line(source: Unit, target: Unit) -> None:
    spans = {  # (line, start, end) of the same text in each encoding
        "utf-16": [(0, 4, 7), (0, 10, 14), (1, 0, 2), (1, 5, 9), (1, 10, 12), (1, 14, 15), (2, 6, 11), (3, 2, 4)],
        "utf-8": [(0, 4, 8), (0, 11, 15), (1, 0, 4), (1, 7, 11), (1, 12, 16), (1, 18, 20), (2, 6, 11), (3, 2, 4)],
        "utf-32": [(0, 4, 7), (0, 10, 14), (1, 0, 1), (1, 4, 8), (1, 9, 10), (1, 12, 13), (2, 6, 11), (3, 2, 4)],
    }

    def encode(found: list[tuple[int, int, int]]) -> list[int]:
        data: list[int] = []
        line = start = 0
        for row, first, end in found:
            data += [row - line, first - (start if row == line else 0), end - first, 0, 0]
            line, start = row, first
        return data

    recoded = recode_full(encode(spans[source]), line_of, source, target)
    assert columns(recoded) == [(row, first, end - first) for row, first, end in spans[target]]


def test_a_token_past_its_lines_end_keeps_the_overshoot() -> None:
    # From "é" to two units past the end of line 0 (a multi-line token): é counts twice in UTF-8, the rest once.
    data = [0, 5, 11, 0, 0, 1, 0, 2, 0, 0]
    assert columns(recode_full(data, line_of, "utf-16", "utf-8")) == [(0, 5, 12), (1, 0, 4)]
    assert recode_full(data, line_of, "utf-16", "utf-16") is data


@pytest.mark.parametrize("source", ["utf-8", "utf-16", "utf-32"])
@pytest.mark.parametrize("target", ["utf-8", "utf-16", "utf-32"])
def test_recounted_columns_are_convert_columns_at_every_column(source: Unit, target: Unit) -> None:
    # Every column of each line, inside a character and past the line's end too, as one token per column.
    lines = ["aé🍰b", "€x🍰🍰 é", "ascii", "", "中文 and ü"]
    found: list[tuple[int, int, int]] = []
    for row, text in enumerate(lines):
        width = len(text.encode({"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[source]))
        width //= {"utf-8": 1, "utf-16": 2, "utf-32": 4}[source]
        found += [(row, column, 2) for column in range(width + 3)]
    data: list[int] = []
    line = start = 0
    for row, column, length in found:
        data += [row - line, column - (start if row == line else 0), length, 0, 0]
        line, start = row, column
    recoded = columns(recode_full(data, lambda row: lines[row] if row < len(lines) else None, source, target))
    expected = []
    for row, column, length in found:
        first = convert_column(lines[row], column, source, target)
        expected.append((row, first, convert_column(lines[row], column + length, source, target) - first))
    assert recoded == expected


def test_a_token_array_going_back_a_line_is_left_as_it_is() -> None:
    data = [1, 2, 1, 0, 0, -1, 4, 1, 0, 0]
    assert recode_full(data, line_of, "utf-16", "utf-8") is data
