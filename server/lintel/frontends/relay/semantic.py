"""Semantic tokens from every child through lintel's one legend (tokens.py): each child's answer re-counted to it,
deltas carried exactly or replaced by the whole tokens, columns re-counted when the child counts in another
encoding than the editor."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lintel.core.positions import Unit
from lintel.frontends.relay.encoding import LinesSource
from lintel.frontends.relay.tokens import Remap, recode_full, remap_delta, remap_full

if TYPE_CHECKING:
    from lintel.frontends.relay.manager import Child

FULL = types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL
DELTA = types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA
RANGE = types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE
TOKEN_METHODS = frozenset({FULL, DELTA, RANGE})


class _FullNeeded:
    """The answer to a delta that cannot be carried to the editor exactly: ask the child for full tokens."""


FULL_NEEDED: Any = _FullNeeded()


class TokenRelay:
    def __init__(self, encoding: Callable[[], Unit]) -> None:
        self._encoding = encoding
        self._remaps: dict[str, tuple[Any, Remap]] = {}  # by child id: (the legend it was built from, remap)

    def remap(self, child: Child) -> Remap:
        provider = child.capabilities.semantic_tokens_provider
        legend = getattr(provider, "legend", None)
        cached = self._remaps.get(child.spec.id)
        if cached is not None and cached[0] is legend:
            return cached[1]
        types_ = list(getattr(legend, "token_types", None) or [])
        modifiers = list(getattr(legend, "token_modifiers", None) or [])
        remap = Remap({"tokenTypes": types_, "tokenModifiers": modifiers})
        self._remaps[child.spec.id] = (legend, remap)
        return remap

    def _same_columns(self, child: Child) -> bool:
        return child.encoding == self._encoding()

    def to_child(self, child: Child, method: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The request the child gets: a delta is asked as full tokens of a child that keeps no deltas, or whose
        columns must be re-counted (a delta's numbers cannot be)."""
        if method != DELTA:
            return method, params
        full = getattr(child.capabilities.semantic_tokens_provider, "full", None)
        if getattr(full, "delta", False) and self._same_columns(child):
            return method, params
        return self.full_instead(params)

    @staticmethod
    def full_instead(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return FULL, {k: v for k, v in params.items() if k != "previousResultId"}

    def to_editor(self, child: Child, result: Any, uri: str, lines: LinesSource) -> Any:
        if not isinstance(result, dict):
            return result
        remap = self.remap(child)
        if "edits" in result:
            if remap.identity:
                return result
            carried = remap_delta(result, remap)
            return FULL_NEEDED if carried is None else carried
        data = result.get("data")
        if not isinstance(data, list):
            return result
        if not remap.identity:
            result = remap_full(result, remap)
        if not self._same_columns(child):
            document = lines(uri)

            def line(number: int) -> str | None:
                return document[number] if document is not None and 0 <= number < len(document) else None

            result["data"] = recode_full(result["data"], line, child.encoding, self._encoding())
        return result
