"""Files of the languages users declare reach lintel: the editor only sends the documents its selector names
(VS Code's is fixed when the client starts), so lintel asks it, by dynamic registration, to sync the declared
languages' files as well (`**/*.{sh,bash}`), and asks again when the configuration changes them."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lsprotocol import types

from lintel.languages import LanguageSpec

if TYPE_CHECKING:
    from lintel.frontends.lsp.app import LintelServer

log = logging.getLogger(__name__)

_SYNC_METHODS = (
    types.TEXT_DOCUMENT_DID_OPEN,
    types.TEXT_DOCUMENT_DID_CHANGE,
    types.TEXT_DOCUMENT_DID_SAVE,
    types.TEXT_DOCUMENT_DID_CLOSE,
)


def file_pattern(languages: Iterable[LanguageSpec]) -> str | None:
    """One glob for the declared languages' files (`**/*.{bash,sh}`), or None when there are none."""
    suffixes = sorted({suffix.lstrip(".") for spec in languages if not spec.builtin for suffix in spec.extensions})
    if not suffixes:
        return None
    return f"**/*.{suffixes[0]}" if len(suffixes) == 1 else f"**/*.{{{','.join(suffixes)}}}"


def registrations(pattern: str, generation: int) -> list[types.Registration]:
    selector: list[types.TextDocumentFilter] = [types.TextDocumentFilterPattern(pattern=pattern, scheme="file")]
    options: dict[str, object] = {
        types.TEXT_DOCUMENT_DID_OPEN: types.TextDocumentRegistrationOptions(document_selector=selector),
        types.TEXT_DOCUMENT_DID_CHANGE: types.TextDocumentChangeRegistrationOptions(
            sync_kind=types.TextDocumentSyncKind.Incremental, document_selector=selector
        ),
        types.TEXT_DOCUMENT_DID_SAVE: types.TextDocumentSaveRegistrationOptions(
            document_selector=selector, include_text=False
        ),
        types.TEXT_DOCUMENT_DID_CLOSE: types.TextDocumentRegistrationOptions(document_selector=selector),
    }
    return [
        types.Registration(id=f"lintel-declared-{generation}-{method}", method=method, register_options=options[method])
        for method in _SYNC_METHODS
    ]


class DeclaredFiles:
    """What the editor has been asked to sync for declared languages; kept in step with the configuration."""

    def __init__(self) -> None:
        self.pattern: str | None = None
        self._registered: list[types.Registration] = []
        self._generation = 0

    async def update(self, server: LintelServer) -> None:
        sync = getattr(server.client_capabilities.text_document, "synchronization", None)
        if not getattr(sync, "dynamic_registration", False):
            return  # the editor picks documents itself (Neovim: by file type; the plugin attaches declared ones)
        pattern = file_pattern(spec for folder in server.session.folders for spec in folder.languages)
        if pattern == self.pattern:
            return
        old, self._registered = self._registered, []
        self.pattern = pattern
        try:
            if old:
                unregister = [types.Unregistration(id=r.id, method=r.method) for r in old]
                await server.client_unregister_capability_async(types.UnregistrationParams(unregisterations=unregister))
            if pattern is not None:
                self._generation += 1
                new = registrations(pattern, self._generation)
                await server.client_register_capability_async(types.RegistrationParams(registrations=new))
                self._registered = new
        except Exception as exc:  # an editor that refuses: its own selector still applies
            log.info("the editor did not register the declared languages' files (%s): %s", pattern, exc)
