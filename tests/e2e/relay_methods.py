"""What a child language server advertises, method by method (its `initialize` answer as JSON and the registrations
it sends), and how lintel serves each method: relayed (lintel.frontends.relay.methods.RELAYED), one of lintel's own
routes (advertised.ROUTES), or not at all. Shared by tests/e2e/test_relay_capabilities.py and bench/relay_table.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.frontends.lsp.advertised import ROUTES
from lintel.frontends.relay.methods import BY_METHOD, RELAYED
from lsprotocol import types

from tests.e2e.relay_support import SERVERS, Side, start_direct, stop

# Providers no RELAYED entry stands for, with the methods they announce and why lintel serves them as it does.
OTHER_PROVIDERS: Mapping[str, tuple[tuple[str, ...], str]] = {
    "textDocumentSync": (
        (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_CLOSE),
        "lintel's own, passed on to the document's child",
    ),
    "executeCommandProvider": (
        (types.WORKSPACE_EXECUTE_COMMAND,),
        "lintel's own route: a child's command is run by that child",
    ),
    "diagnosticProvider": (
        (types.TEXT_DOCUMENT_DIAGNOSTIC,),
        "not relayed: children push diagnostics (child_capabilities offers no pull), merged into lintel's",
    ),
    "notebookDocumentSync": (("notebookDocument/didOpen",), "not relayed: lintel serves no notebooks"),
    "positionEncoding": ((), "negotiated: lintel re-counts positions where the child's differs from the editor's"),
    "experimental": ((), "not relayed: the server's own extensions"),
    "workspace": ((), "workspace folders and file operations (the file operation methods are listed apart)"),
}


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def _option(provider: Any, option: str | None) -> bool:
    """Whether a provider's JSON has `option` ("resolve_provider", "full.delta") on."""
    if option is None:
        return provider not in (None, False)
    value = provider
    for part in option.split("."):
        if not isinstance(value, dict):
            return False
        value = value.get(camel(part))
    return value not in (None, False)


def _file_operations(capabilities: Mapping[str, Any]) -> Mapping[str, Any]:
    workspace = capabilities.get("workspace")
    operations = workspace.get("fileOperations") if isinstance(workspace, dict) else None
    return operations if isinstance(operations, dict) else {}


def advertised_methods(capabilities: Mapping[str, Any]) -> dict[str, str]:
    """method -> the capability that announces it, for every relayed method the server's answer announces."""
    found: dict[str, str] = {}
    operations = _file_operations(capabilities)
    for relayed in RELAYED:
        key = camel(relayed.provider)
        if relayed.scope == "files":
            if _option(operations.get(key), None):
                found[relayed.method] = f"workspace.fileOperations.{key}"
        elif _option(capabilities.get(key), relayed.option):
            found[relayed.method] = key + (f".{camel(relayed.option)}" if relayed.option else "")
    return found


def unknown_providers(capabilities: Mapping[str, Any]) -> list[str]:
    """The answer's capabilities that neither a RELAYED entry nor OTHER_PROVIDERS accounts for."""
    known = {camel(r.provider) for r in RELAYED} | set(OTHER_PROVIDERS)
    return sorted(key for key, value in capabilities.items() if value not in (None, False) and key not in known)


def lintel_serves(method: str) -> str:
    """How lintel serves `method`: relayed (advertised or registered), merged, lintel's own, or not."""
    routes = {route.method for route in ROUTES}
    relayed = BY_METHOD.get(method)
    if relayed is not None:
        if method not in routes:
            return "NO ROUTE (in RELAYED but not in advertised.ROUTES)"
        how = "merged with lintel's own" if relayed.merged else "relayed"
        if relayed.formats:
            how += " where lintel has no formatter of its own"
        return f"{how}, {'advertised at initialize' if relayed.static else 'registered per language'}"
    for methods, why in OTHER_PROVIDERS.values():
        if method in methods:
            return why
    return "lintel's own" if method in routes else "not relayed"


@dataclass
class ServerTable:
    server: str
    capabilities: dict[str, Any]
    registered: list[str]  # methods of the client/registerCapability requests it sent

    def rows(self) -> list[tuple[str, str, str]]:
        """(method, how the server announces it, how lintel serves it)."""
        rows = [(m, f"`{how}`", lintel_serves(m)) for m, how in advertised_methods(self.capabilities).items()]
        for key, (methods, _) in OTHER_PROVIDERS.items():
            if self.capabilities.get(key) not in (None, False):
                rows += [(m, f"`{key}`", lintel_serves(m)) for m in methods]
        rows += [(m, "registered", lintel_serves(m)) for m in self.registered]
        return rows

    def markdown(self) -> str:
        lines = [f"### {self.server}", "", "| method | announced by | lintel |", "| --- | --- | --- |"]
        lines += [f"| {method} | {how} | {lintel} |" for method, how, lintel in self.rows()]
        strays = unknown_providers(self.capabilities)
        if strays:
            lines += ["", f"Capabilities not accounted for: {', '.join(strays)}"]
        return "\n".join(lines)


async def probe(server: str, tmp_path: Path, client_name: str = "visual-studio-code", wait: float = 3.0) -> ServerTable:
    """Start the server directly as lintel starts its child (UTF-16, `client_name`'s capabilities), read its
    `initialize` answer and the registrations it sends in the next `wait` seconds, and stop it."""
    side: Side = await start_direct(tmp_path, client_name, SERVERS[server], "utf-16")
    try:
        await asyncio.sleep(wait)  # registrations follow `initialized`
        registered = list(dict.fromkeys(r.method for r in side.client.registrations))
        return ServerTable(server, side.capabilities, registered)
    finally:
        await stop(side)


def commands(capabilities: Mapping[str, Any]) -> list[str]:
    provider = capabilities.get("executeCommandProvider")
    return list(provider.get("commands") or ()) if isinstance(provider, dict) else []


def strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, Iterable) else []
