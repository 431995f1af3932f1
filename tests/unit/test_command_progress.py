"""Work-done progress of lintel's commands: nothing is kept per token once a run ends, so a
thousand commands with tokens cost nothing afterwards, and a reused token starts afresh."""

from __future__ import annotations

import asyncio
from typing import Any

from lintel.frontends.lsp.commands import Progress
from pygls.progress import Progress as PyglsProgress


class Notes:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


class FakeServer:
    def __init__(self) -> None:
        self.lsp = Notes()
        self.work_done_progress = PyglsProgress(self.lsp)  # type: ignore[arg-type]


async def test_tokens_are_forgotten_when_a_run_ends_and_a_reused_one_starts_afresh() -> None:
    server = FakeServer()
    for n in range(1000):
        progress = Progress(server, f"token-{n % 3}", "lintel: python lint")  # type: ignore[arg-type]
        await progress.begin()
        progress.end()
    assert server.work_done_progress.tokens == {}
    assert len(server.lsp.sent) == 2000  # begin and end of each run reached the client

    # A cancelled token's future, left by a run cancelled through window/workDoneProgress/cancel.
    stale: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    stale.cancel()
    server.work_done_progress.tokens["token-0"] = stale  # type: ignore[assignment]
    cancelled = False

    async def run() -> None:
        nonlocal cancelled
        progress = Progress(server, "token-0", "lintel: python lint")  # type: ignore[arg-type]
        await progress.begin()
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            progress.end()

    await run()
    assert not cancelled
