"""A child language server's window/showMessage: a pop-up only for what the user can act on — an Error
or a Warning, at the child's own type — and never for its chatter (rust-analyzer's "overly long loop turn took
113ms", which builds from source send as an Error); Info, Log and the chatter go to the log (window/logMessage).

The child is a fake (a fault: a real rust-analyzer pokes its developers only when built with POKE_RA_DEVS, and a
slow turn cannot be ordered), configured as rust's server so that rust-analyzer's chatter patterns apply.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types

from tests.e2e.conftest import Start
from tests.e2e.nav_support import QUIET
from tests.e2e.test_raw_requests import FRAMING

# The texts rust-analyzer sends (ra_ap_rust-analyzer 0.0.348, main_loop.rs and global_state.rs), then the
# user's own kind of messages, then a marker that all were sent.
TOLD = [
    (1, "overly long loop turn took 113.22ms (event handling took 112.9ms): Task(FetchBuildData(Finished))"),
    (1, "server panicked: index out of bounds, check the log"),
    (1, "Failed to load workspaces: cargo metadata failed"),
    (2, "rust-analyzer failed to discover workspace"),
    (3, "indexing finished"),
    (4, "loaded 12 crates"),
    (4, "fake: all told"),
]

FAKE_SERVER = (
    FRAMING
    + f"""
TOLD = {TOLD!r}

while (message := read()) is not None:
    method, msg_id = message.get("method"), message.get("id")
    if method == "exit":
        break
    if method == "initialize":
        write({{"jsonrpc": "2.0", "id": msg_id, "result": {{"capabilities": {{"hoverProvider": True}}}}}})
    elif method == "initialized":
        for kind, text in TOLD:
            write({{"jsonrpc": "2.0", "method": "window/showMessage", "params": {{"type": kind, "message": text}}}})
    elif msg_id is not None and method is not None:
        write({{"jsonrpc": "2.0", "id": msg_id, "result": None}})
"""
)


async def test_only_errors_and_warnings_for_the_user_pop_up_at_their_own_type(start: Start, tmp_path: Path) -> None:
    script = tmp_path / "fake_rust_analyzer.py"
    script.write_text(FAKE_SERVER, encoding="utf-8")
    options = {**QUIET, "languages": {"rust": {"server": [sys.executable, str(script)]}}}
    editor = await start("rust", init_options=options)
    editor.open("src/lib.rs")
    deadline = asyncio.get_running_loop().time() + 60
    while not any("fake: all told" in m.message for m in editor.client.log_messages):
        assert asyncio.get_running_loop().time() < deadline, [m.message for m in editor.client.log_messages]
        await asyncio.sleep(0.05)

    popped = [(m.type, m.message) for m in editor.client.messages if "lintel: " in m.message]
    assert [(kind, text.split(": ", 2)[-1]) for kind, text in popped] == [
        (types.MessageType.Error, "Failed to load workspaces: cargo metadata failed"),
        (types.MessageType.Warning, "rust-analyzer failed to discover workspace"),
    ]
    logged = [m.message for m in editor.client.log_messages]
    for _, text in TOLD:
        assert any(text in line for line in logged), text  # everything reaches the log
