"""Semantic tokens from every child through one legend: the legend lintel advertises before any child runs, and the
translation of each child's token arrays (full, range and delta answers) and columns onto it, on the raw JSON.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from itertools import accumulate
from typing import Any, NamedTuple

from lintel.core.positions import Unit


class Legend(NamedTuple):
    token_types: tuple[str, ...]
    token_modifiers: tuple[str, ...]


# LSP 3.17's predefined types and modifiers, in the specification's order.
STANDARD_TYPES: tuple[str, ...] = (
    "namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable", "property",
    "enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string", "number",
    "regexp", "operator", "decorator", "label",
)  # fmt: skip
STANDARD_MODIFIERS: tuple[str, ...] = (
    "declaration", "definition", "readonly", "static", "deprecated", "abstract", "async", "modification",
    "documentation", "defaultLibrary",
)  # fmt: skip

# The children's own types, server by server (gopls has none of its own), each in its server's legend order.
_CUSTOM_TYPES: tuple[str, ...] = (
    # basedpyright
    "selfParameter", "clsParameter",
    # rust-analyzer
    "angle", "arithmetic", "attributeBracket", "attribute", "bitwise", "boolean", "brace", "bracket",
    "builtinAttribute", "builtinType", "character", "colon", "comma", "comparison", "constParameter", "const",
    "deriveHelper", "derive", "dot", "escapeSequence", "formatSpecifier", "generic", "invalidEscapeSequence",
    "lifetime", "logical", "macroBang", "negation", "parenthesis", "procMacro", "punctuation", "selfKeyword",
    "selfTypeKeyword", "semicolon", "static", "toolModule", "typeAlias", "union", "unresolvedReference",
    # typescript-language-server
    "member",
)  # fmt: skip

# Modifiers are a bitmask, and editors read it with 32-bit signed integer arithmetic (VS Code shifts it right with
# `>>` and stops at a negative value; LuaJIT's bit library is 32-bit): bit 31 and above are never seen. The children
# name 44 modifiers together, so 13 are left out: gopls' top-level type constructor modifiers (which no theme
# styles; the token's type already says type, variable or parameter) and rust-analyzer's crateRoot and procMacro
# (a crate name in a path; an item a procedural macro expanded to). Their bits are cleared.
MAX_MODIFIERS = 31
_CUSTOM_MODIFIERS: tuple[str, ...] = (
    # gopls
    "format", "shadowing",
    # basedpyright
    "builtin", "classMember", "parameter",
    # rust-analyzer
    "associated", "attribute", "callable", "constant", "consuming", "controlFlow", "injected", "intraDocLink",
    "library", "macro", "mutable", "public", "reference", "trait", "unsafe",
    # typescript-language-server
    "local",
)  # fmt: skip
DROPPED_MODIFIERS: tuple[str, ...] = (
    # gopls
    "array", "bool", "chan", "interface", "map", "number", "pointer", "signature", "slice", "string", "struct",
    # rust-analyzer
    "crateRoot", "procMacro",
)  # fmt: skip

TOKEN_TYPES: tuple[str, ...] = STANDARD_TYPES + _CUSTOM_TYPES
TOKEN_MODIFIERS: tuple[str, ...] = STANDARD_MODIFIERS + _CUSTOM_MODIFIERS
LEGEND = Legend(TOKEN_TYPES, TOKEN_MODIFIERS)

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_DROP = -1  # a child's type lintel's legend lacks: its tokens are left out, never shown as another type
_MEMO_MAX = 4096  # modifier masks remembered per child; a child uses a few dozen combinations


def legend_json() -> dict[str, list[str]]:
    """LEGEND as the `legend` of lintel's semanticTokensProvider."""
    return {"tokenTypes": list(TOKEN_TYPES), "tokenModifiers": list(TOKEN_MODIFIERS)}


def _names(legend: Mapping[str, Any] | None, key: str) -> list[str]:
    values = legend.get(key) if legend is not None else None
    return [str(name) for name in values] if isinstance(values, list) else []


class Remap:
    """One child's legend (its semanticTokensProvider.legend JSON) translated onto `legend`: a type index for each
    of the child's, a bit for each of its modifiers (0 when lintel's legend lacks it)."""

    def __init__(self, child_legend: Mapping[str, Any] | None, legend: Legend = LEGEND) -> None:
        types = _names(child_legend, "tokenTypes")
        modifiers = _names(child_legend, "tokenModifiers")
        type_index = {name: index for index, name in enumerate(legend.token_types)}
        bits = {name: 1 << index for index, name in enumerate(legend.token_modifiers)}
        self._types: tuple[int, ...] = tuple(type_index.get(name, _DROP) for name in types)
        self._bits: tuple[int, ...] = tuple(bits.get(name, 0) for name in modifiers)
        self._child_mask = (1 << len(modifiers)) - 1
        self._types_same = self._types == tuple(range(len(types)))
        self._modifiers_same = self._bits == tuple(1 << index for index in range(len(modifiers)))
        self._masks: dict[int, int] = {}

    @property
    def identity(self) -> bool:
        """The child's legend is the start of lintel's: its arrays need no change."""
        return self._types_same and self._modifiers_same

    @property
    def may_drop(self) -> bool:
        """Some of the child's types are not in lintel's legend."""
        return _DROP in self._types

    def type_of(self, child_type: int) -> int:
        """lintel's index for a child's type index; -1 when its tokens must be dropped."""
        return self._types[child_type] if 0 <= child_type < len(self._types) else _DROP

    def types(self, values: list[int]) -> list[int] | None:
        """lintel's index for each child type index, or None when some token must be dropped."""
        if not values:
            return []
        table = self._types
        if min(values) < 0 or max(values) >= len(table):
            return None
        if self._types_same:
            return values
        mapped = list(map(table.__getitem__, values))
        if _DROP in table and _DROP in mapped:
            return None
        return mapped

    def modifiers(self, masks: list[int]) -> list[int]:
        """lintel's bitmask for each child bitmask; bits of modifiers lintel's legend lacks are cleared."""
        if not masks:
            return []
        if self._modifiers_same and min(masks) >= 0 and max(masks) <= self._child_mask:
            return masks
        memo = self._masks
        missing = set(masks).difference(memo)
        if missing:
            if len(memo) + len(missing) > _MEMO_MAX:
                memo.clear()
            for mask in missing:
                memo[mask] = self._translate(mask)
        return list(map(memo.__getitem__, masks))

    def _translate(self, mask: int) -> int:
        mask &= self._child_mask
        translated = 0
        index = 0
        while mask:
            if mask & 1:
                translated |= self._bits[index]
            mask >>= 1
            index += 1
        return translated


def remap_full(result: dict[str, Any], remap: Remap) -> dict[str, Any]:
    """A SemanticTokens answer (full or range) translated onto lintel's legend, in place. When tokens of a type
    lintel's legend lacks are dropped, the resultId goes too: the editor's array no longer matches the child's
    index for index, so the editor must not ask for a delta against it (without a resultId it asks for all)."""
    data = result.get("data")
    if remap.identity or not isinstance(data, list) or not data:
        return result
    if len(data) % 5:  # a partial last token cannot be shown
        del data[len(data) - len(data) % 5 :]
    types = remap.types(data[3::5])
    if types is None:
        result["data"] = _drop_unknown(data, remap)
        result.pop("resultId", None)
        return result
    data[3::5] = types
    data[4::5] = remap.modifiers(data[4::5])
    return result


def _drop_unknown(data: list[int], remap: Remap) -> list[int]:
    """`data` without the tokens whose type lintel's legend lacks; a dropped token's relative position is folded
    into the next token's, so every kept token stays where it was."""
    kept: list[int] = []
    pending_line = pending_start = 0  # the dropped tokens' offset since the last kept token
    for index in range(0, len(data), 5):
        delta_line, delta_start, length, child_type, mask = data[index : index + 5]
        if delta_line == 0:
            delta_line, delta_start = pending_line, pending_start + delta_start
        else:
            delta_line += pending_line
        kind = remap.type_of(child_type)
        if kind == _DROP:
            pending_line, pending_start = delta_line, delta_start
            continue
        pending_line = pending_start = 0
        kept += (delta_line, delta_start, length, kind, mask)
    kept[4::5] = remap.modifiers(kept[4::5])
    return kept


def remap_delta(result: dict[str, Any], remap: Remap) -> dict[str, Any] | None:
    """A SemanticTokensDelta translated onto lintel's legend, in place, so that the editor's array after the edits
    is remap_full of the child's new array. None when that cannot be done edit by edit (an unchanged element would
    change role between type and modifiers, or a token must be dropped): the caller then asks the child for all
    tokens. The edits keep their order; each inserted element is translated by its index in the new array."""
    if remap.identity:
        return result
    edits = result.get("edits")
    if not isinstance(edits, list) or not all(isinstance(edit, dict) for edit in edits):
        return None
    try:
        ordered = sorted(edits, key=lambda edit: int(edit["start"]))
        plan = _plan(ordered)
    except (KeyError, TypeError, ValueError):
        return None
    if plan is None:
        return None
    translated: list[tuple[dict[str, Any], list[int]]] = []
    for edit, new_start, inserted in plan:
        values = list(inserted)
        at_type = (3 - new_start) % 5
        types = remap.types(values[at_type::5])
        if types is None:
            return None
        values[at_type::5] = types
        at_modifiers = (4 - new_start) % 5
        values[at_modifiers::5] = remap.modifiers(values[at_modifiers::5])
        translated.append((edit, values))
    for edit, values in translated:  # only once every edit could be translated: None leaves `result` as it was
        edit["data"] = values
    return result


def _plan(ordered: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int, list[int]]] | None:
    """Each edit with inserted data, the index of its first inserted element in the new array, and that data;
    None when edits overlap or an unchanged element would move by other than whole tokens."""
    plan: list[tuple[dict[str, Any], int, list[int]]] = []
    shift = 0  # new index - old index of the unchanged elements after the edits so far
    old_end = 0  # old index where the previous edit's deletion ends
    for edit in ordered:
        start, deleted = int(edit["start"]), int(edit.get("deleteCount") or 0)
        inserted = edit.get("data") or []
        if start < old_end or deleted < 0 or not isinstance(inserted, list):
            return None
        if start > old_end and shift % 5:
            return None
        if inserted:
            plan.append((edit, start + shift, inserted))
        shift += len(inserted) - deleted
        old_end = start + deleted
    if shift % 5:  # the unchanged elements after the last edit (and two whole arrays differ by whole tokens)
        return None
    return plan


def _width(point: int, unit: Unit) -> int:
    """How many `unit` units the code point takes."""
    if unit == "utf-8":
        return 1 if point < 0x80 else 2 if point < 0x800 else 3 if point < 0x10000 else 4
    if unit == "utf-16":
        return 2 if point > 0xFFFF else 1
    return 1


class _LineColumns:
    """convert_column on one line, for many columns: the line's non-ASCII characters located once (a long file's
    tokens were re-counted each by encoding its line's prefix twice), each column then found by bisection."""

    def __init__(self, text: str, source: Unit, target: Unit) -> None:
        self._starts: list[int] = []  # each non-ASCII character's first column, in source units
        self._ends: list[tuple[int, int, int]] = []  # (its end in source units, its start and end in target units)
        extra_source = extra_target = 0
        for found in _NON_ASCII.finditer(text):
            point = ord(found.group())
            start, at = found.start() + extra_source, found.start() + extra_target
            width_source, width_target = _width(point, source), _width(point, target)
            self._starts.append(start)
            self._ends.append((start + width_source, at, at + width_target))
            extra_source += width_source - 1
            extra_target += width_target - 1

    def __call__(self, column: int) -> int:
        count = bisect_right(self._starts, column - 1)  # the non-ASCII characters that start before `column`
        if count == 0 or column <= 0:
            return max(column, 0)
        end, start_target, end_target = self._ends[count - 1]
        # Inside a character: its start (as a prefix cut there counts); after it (past the line's end too): ASCII.
        return start_target if column < end else end_target + column - end


def recode_full(data: list[int], lines: Callable[[int], str | None], source: Unit, target: Unit) -> list[int]:
    """A token array with its columns (deltaStart, length) re-counted from the child's encoding to the editor's
    on each token's line (`lines(n)`: line n's text, None when unknown: columns kept). A token running past its
    line's end keeps the overshoot as it is (convert_column), so its length is converted on its own line only.
    Only the tokens of non-ASCII lines change (a column is relative to the token before it on its line)."""
    end = len(data) - len(data) % 5
    if source == target or not data or min(data[0:end:5], default=0) < 0:
        return data  # a line going back: not a token array lintel can place
    recoded = list(data)
    rows = list(accumulate(data[0:end:5]))  # each token's line, in order
    for row in dict.fromkeys(rows):
        text = lines(row)
        if text is None or text.isascii():
            continue
        convert = _LineColumns(text, source, target)
        first = bisect_left(rows, row)
        start = new_previous = 0
        for index in range(first * 5, bisect_right(rows, row, first) * 5, 5):
            start += data[index + 1]  # the line's first token: from 0
            new_start = convert(start)
            recoded[index + 1] = new_start - new_previous
            recoded[index + 2] = convert(start + data[index + 2]) - new_start
            new_previous = new_start
    return recoded
