"""Where initializationOptions grant trust: `trusted` and `settings.trusted` (the nesting of VS Code's
python-tools template) both count; only `true`, or no value at all, grants it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.lsp.wiring import create_server
from lsprotocol import types

from tests.helpers import MessageRecorder


async def trusted_after_initialize(tmp_path: Path, options: Any) -> bool:
    server = create_server()
    server.protocol.set_writer(MessageRecorder(), include_headers=False)
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": types.INITIALIZE,
        "params": {"capabilities": {}, "rootUri": tmp_path.as_uri(), "initializationOptions": options},
    }
    server._on_message(json.dumps(message).encode())
    server._on_message(json.dumps({"jsonrpc": "2.0", "method": types.INITIALIZED, "params": {}}).encode())
    for _ in range(20):
        await asyncio.sleep(0)
    return server.session.trusted


@pytest.mark.parametrize(
    "options",
    [
        {"settings": {"trusted": False}},
        {"settings": {"trusted": "false"}},
        {"settings": {"trusted": None}},
        {"trusted": True, "settings": {"trusted": False}},
        {"trusted": False, "settings": {"trusted": True}},
        {"trusted": False},
    ],
)
async def test_trust_is_withheld_by_anything_but_true(tmp_path: Path, options: Any) -> None:
    assert not await trusted_after_initialize(tmp_path, options)


@pytest.mark.parametrize(
    "options",
    [None, {}, {"settings": {}}, {"settings": {"trusted": True}}, {"trusted": True}, {"settings": 5}],
)
async def test_true_or_no_value_grants_trust(tmp_path: Path, options: Any) -> None:
    assert await trusted_after_initialize(tmp_path, options)
