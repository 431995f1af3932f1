"""Diagnostics kept per (uri, channel) and merged at publish time (docs/architecture.md, The language server).

A channel is one producer: `lint`, `typecheck`, `test`, `format`, `validator:<id>` or `server:<language>`.
A lint run replaces only the lint channel of the files it covered, so it never erases typecheck, test or
language-server diagnostics; a project-wide run also clears the files it covered before but not now.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence

from lsprotocol import types

from lintel.core.issues import without_path_qualifiers
from lintel.frontends.lsp.overlap import without_duplicates

RELAYED = "server:"  # the channels of diagnostics relayed from a language server (`server:<language>`)


class DiagnosticsStore:
    def __init__(self) -> None:
        self._by_uri: dict[str, dict[str, list[types.Diagnostic]]] = {}

    def get(self, uri: str, channel: str) -> list[types.Diagnostic]:
        return list(self._by_uri.get(uri, {}).get(channel, ()))

    def put(self, uri: str, channel: str, diagnostics: Sequence[types.Diagnostic]) -> bool:
        """Replace one file's diagnostics of one channel; True when something changed."""
        channels = self._by_uri.setdefault(uri, {})
        before = channels.get(channel, [])
        after = list(diagnostics)
        if after:
            channels[channel] = after
        else:
            channels.pop(channel, None)
        if not channels:
            self._by_uri.pop(uri, None)
        return before != after

    def replace_channel(
        self, channel: str, by_uri: Mapping[str, Sequence[types.Diagnostic]], scope: Iterable[str] | None = None
    ) -> builtins.set[str]:
        """Set `channel` for every uri in `by_uri` and clear it from uris in `scope` (default: every uri
        that had it) that are not in `by_uri`. Returns the uris whose merged list changed."""
        changed: set[str] = set()
        candidates = set(scope) if scope is not None else self.uris_with(channel)
        for uri in candidates - set(by_uri):
            if self.put(uri, channel, ()):
                changed.add(uri)
        for uri, diagnostics in by_uri.items():
            if self.put(uri, channel, diagnostics):
                changed.add(uri)
        return changed

    def uris_with(self, channel: str) -> builtins.set[str]:
        return {uri for uri, channels in self._by_uri.items() if channel in channels}

    def merged(self, uri: str, *, dedupe: bool = True) -> list[types.Diagnostic]:
        """All channels of a file, in a stable order (by channel name, then as produced). With `dedupe`, a
        language server's diagnostic for a problem lintel's own channels already report is left out."""
        channels = self._by_uri.get(uri, {})
        names = sorted(channels)
        own = once([d for name in names if not name.startswith(RELAYED) for d in channels[name]])
        shown = {id(d) for d in own}
        merged: list[types.Diagnostic] = []
        for name in names:
            if not name.startswith(RELAYED):
                merged.extend(d for d in channels[name] if id(d) in shown)
            else:
                merged.extend(without_duplicates(own, channels[name]) if dedupe and own else channels[name])
        return merged

    def uris(self) -> builtins.set[str]:
        return set(self._by_uri)

    def forget(self, uri: str) -> None:
        self._by_uri.pop(uri, None)


def once(diagnostics: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    """lintel's own diagnostics with one per finding across channels, as `lintel check` reports it once
    (`checks.dedupe_issues`): the same signature at the same column — a rustc error in clippy's and cargo check's
    wordings, a lint script's prettier failure and the format check — is shown once, at its highest severity."""
    kept: dict[tuple[str, int], int] = {}
    out: list[types.Diagnostic] = []
    for diagnostic in diagnostics:
        data = diagnostic.data
        signature = data.get("signature") if isinstance(data, dict) else None
        if not isinstance(signature, str):
            out.append(diagnostic)
            continue
        key = (without_path_qualifiers(signature), diagnostic.range.start.character)
        index = kept.get(key)
        if index is None:
            kept[key] = len(out)
            out.append(diagnostic)
        elif (diagnostic.severity or 4) < (out[index].severity or 4):  # LSP: 1 is an error
            out[index] = diagnostic
    return out
