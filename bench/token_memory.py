"""What a command's work-done token costs lintel's memory: the server's RSS after 1,000
`lintel.detect` commands that each carry a fresh `workDoneToken`, next to 1,000 without a token in the same run.
(A reused token string after a cancel is tested in tests/e2e, not here.)

    .venv/bin/python bench/token_memory.py [--commands 1000]

Informational (nothing asserts): it prints both growths, which are alike when each token is forgotten as its run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).parent))
from harness import proc_status, start_lintel, stop_server

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "workspaces" / "python"


def rss_mb(pid: int) -> float:
    return proc_status(pid)["VmRSS"] / 1024


async def commands(server: object, count: int, token: bool) -> int:
    """`count` detects one after another, each with a fresh token or none. Returns how many were refused."""
    client = server.client  # type: ignore[attr-defined]
    refused = 0
    for _ in range(count):
        work = str(uuid.uuid4()) if token else None
        params = types.ExecuteCommandParams(command="lintel.detect", arguments=[], work_done_token=work)
        try:
            await client.workspace_execute_command_async(params)
        except Exception:  # counted: a refusal is what this looks for
            refused += 1
    return refused


async def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "python"
        shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(".venv", ".mypy_cache", ".ruff_cache"))
        server = await start_lintel(root)
        pid = server.pid
        try:
            await commands(server, 100, True)  # warm-up: imports, caches, allocator arenas
            await commands(server, 100, False)
            base = rss_mb(pid)
            refused = await commands(server, count, False)
            plain = rss_mb(pid)
            refused += await commands(server, count, True)
            tokens = rss_mb(pid)
        finally:
            await stop_server(server)
    print(f"lintel RSS after warm-up: {base:.1f} MB")
    print(f"+{count} commands without a token: {plain - base:+.1f} MB")
    print(f"+{count} commands, each with a fresh workDoneToken: {tokens - plain:+.1f} MB")
    print(f"commands refused: {refused} of {2 * count} (expect 0)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=1000)
    asyncio.run(main(parser.parse_args().commands))
