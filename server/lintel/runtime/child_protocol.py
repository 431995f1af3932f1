"""pygls's side of the connection to a child language server: which of the child's messages stay plain JSON,
and which of its requests lintel acknowledges without reading."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)

# Messages from the child that lintel reads as raw JSON: their positions may need re-counting first.
RAW_PARAMS = frozenset({types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.WORKSPACE_APPLY_EDIT})

# Refresh requests for features lintel does not relay: acknowledged and dropped.
IGNORED_REQUESTS = (
    types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
    types.WORKSPACE_CODE_LENS_REFRESH,
    types.WORKSPACE_INLAY_HINT_REFRESH,
    types.WORKSPACE_INLINE_VALUE_REFRESH,
    types.WORKSPACE_DIAGNOSTIC_REFRESH,
    types.WORKSPACE_FOLDING_RANGE_REFRESH,
    types.WORKSPACE_TEXT_DOCUMENT_CONTENT_REFRESH,
)


class ChildProtocol(LanguageServerProtocol):
    """pygls's LSP protocol, with two incoming messages left as plain JSON. (lintel's requests to the child and
    their answers do not go through pygls: see ChildClient._send.)"""

    # The base class's two lookups are `functools.lru_cache`d methods: that cache is shared by every instance and
    # keys on `self`, so it kept each stopped child's protocol, and through its handlers the ChildClient with its
    # converter and generated code (~0.8 MB a minute of RSS with a child killed every 30 s, bench/soak.py). Plain
    # lookups in lsprotocol's table, as the base class does, are as cheap and keep nothing.
    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in RAW_PARAMS:
            return None
        return types.METHOD_TO_TYPES.get(method, (None,))[0]

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        return types.METHOD_TO_TYPES.get(method, (None, None))[1]


class ChildConnection(LanguageClient):
    """pygls's client, with errors in lintel's handlers for the child's messages logged, not swallowed."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("error handling a child's message (%s): %s", getattr(source, "__name__", source), error)
