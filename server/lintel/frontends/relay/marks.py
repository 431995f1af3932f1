"""Which child made an item: the items of an answer (completion items, code actions, code lenses, inlay hints, links,
symbols, hierarchy items) carry it in their `data`, so the request that comes back with one of them (a resolve, a
hierarchy's next step) goes to that child, with the child's own `data` restored.

An item's data becomes {"lintel": {"child": <id>, "uri": <the document asked about>}, "data": <the child's data>};
"data" is absent when the child's item had none."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

MARKER = "lintel"
Marker = dict[str, str]


def mark(item: Any, marker: Marker) -> None:
    if isinstance(item, dict):
        item["data"] = {MARKER: marker, "data": item["data"]} if "data" in item else {MARKER: marker}


def marker_of(item: Any) -> Marker | None:
    data = item.get("data") if isinstance(item, dict) else None
    found = data.get(MARKER) if isinstance(data, dict) else None
    return found if isinstance(found, dict) else None


def unmarked(item: dict[str, Any]) -> dict[str, Any]:
    """The item as its child made it (a copy: the editor's stays as it is)."""
    data = item.get("data")
    original = {k: v for k, v in item.items() if k != "data"}
    if isinstance(data, dict) and "data" in data:
        original["data"] = data["data"]
    return original


def _is_command(item: Any) -> bool:
    """A bare Command among code actions: it has no `data` to carry a mark (and needs none: it is executed)."""
    return isinstance(item, dict) and isinstance(item.get("command"), str)


def mark_answer(method: str, result: Any, marker: Marker) -> None:
    """Mark the items of a child's answer to `method`, in place."""
    if method == types.TEXT_DOCUMENT_COMPLETION:
        _mark_completion(result, marker)
        return
    items = result if isinstance(result, list) else [result]
    for entry in items:
        if method == types.CALL_HIERARCHY_INCOMING_CALLS and isinstance(entry, dict):
            mark(entry.get("from"), marker)
        elif method == types.CALL_HIERARCHY_OUTGOING_CALLS and isinstance(entry, dict):
            mark(entry.get("to"), marker)
        elif not _is_command(entry):
            mark(entry, marker)


def _mark_completion(result: Any, marker: Marker) -> None:
    items = result.get("items") if isinstance(result, dict) else result
    defaults = result.get("itemDefaults") if isinstance(result, dict) else None
    shared = isinstance(defaults, dict) and "data" in defaults
    if shared:
        # Items without their own data take the list's: marked there, once.
        assert isinstance(defaults, dict)
        defaults["data"] = {MARKER: marker, "data": defaults["data"]}
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and ("data" in item or not shared):
            mark(item, marker)
