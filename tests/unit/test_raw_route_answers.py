"""A raw route's answer goes out as JSON: a child's (RawJson, from a relayed follow-up such as codeLens/resolve or a
child's codeAction/resolve) as the child sent it, and lintel's own resolved code action unstructured. Both were
handed to the JSON encoder as Python objects, which failed: the editor never got an answer."""

from __future__ import annotations

import asyncio
from typing import Any

from lintel.frontends.lsp.advertised import Route
from lintel.frontends.lsp.codeactions import CodeActions
from lintel.frontends.lsp.shared import RawJson
from lsprotocol import types

from tests.unit.test_dispatch import serving


async def test_a_raw_route_sends_a_childs_json_as_it_is() -> None:
    _, table, out = serving([Route("test/follow", "test", raw=True)])
    child = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "data": None}

    async def follow(params: Any) -> Any:
        return RawJson(child)

    table.bind("test", {"test/follow": follow})
    table.serve({"jsonrpc": "2.0", "id": 3, "method": "test/follow", "params": {}}, "test/follow")
    for _ in range(100):
        if out.sent:
            break
        await asyncio.sleep(0.01)
    assert out.sent == [{"jsonrpc": "2.0", "id": 3, "result": child}]


async def test_lintels_own_code_action_resolves_to_json() -> None:
    server, _, _ = serving([])
    actions = CodeActions(server, None, None, None)  # type: ignore[arg-type]  # not reached for this action
    action = {"title": "Disable F401 for this line", "kind": "quickfix", "data": {"uri": "file:///x.py"}}
    resolved = await actions.resolve_json(action)
    assert resolved == action
    assert not isinstance(resolved, types.CodeAction)
