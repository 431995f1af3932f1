"""How long a save waits before its lint, on the scheduler's clock (a fake one here): a save a running warm worker
answers is a request and is linted at once, however many come; CLI runs of a save storm wait saveDebounceMs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from lintel.engine.config import LintelConfig
from lintel.engine.workers.base import WorkerKey
from lintel.engine.workers.pool import WorkerPool
from lintel.engine.workers.warm import WarmTarget
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.documents import Documents
from lintel.frontends.lsp.scheduler import Scheduler
from lintel.frontends.lsp.session import Folder, Session
from lintel.runtime.clock import ManualClock
from lsprotocol import types


class Server:
    def __init__(self, session: Session) -> None:
        self.session = session


class Workers:
    def __init__(self, running: bool) -> None:
        self.is_running = running

    def running(self, key: WorkerKey) -> bool:
        return self.is_running


class Target:
    key = WorkerKey("ruff", Path("/w"))


def documents(tmp_path: Path, clock: ManualClock, *, warm: bool) -> tuple[Documents, list[str], str]:
    config = LintelConfig.model_validate({"editor": {"saveDebounceMs": 10_000, "formatCheck": False}})
    folder = Folder(root=tmp_path, uri=tmp_path.as_uri(), config=config)
    session = Session(folders=[folder], scheduler=Scheduler(clock))
    server = cast(LintelServer, Server(session))
    docs = Documents(server, diagnostics=cast(Any, None), reload=_nothing, workers=cast(WorkerPool, Workers(warm)))
    linted: list[str] = []

    async def check_file(uri: str, check: str, use_buffer: bool) -> None:
        linted.append(check)

    docs.check_file = check_file  # type: ignore[method-assign]
    uri = (tmp_path / "mod.py").as_uri()
    # Where its lint goes, as its last change found it: to the worker of Target.key.
    docs._located[uri] = (folder.generation, config, folder, cast(WarmTarget, Target()))
    return docs, linted, uri


async def _nothing() -> None:
    return None


async def _saves(docs: Documents, uri: str, count: int) -> None:
    for _ in range(count):
        params = types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        await docs.did_save(params)
        for _ in range(5):
            await asyncio.sleep(0)


async def test_saves_on_a_running_warm_worker_are_linted_at_once(tmp_path: Path) -> None:
    clock = ManualClock()
    docs, linted, uri = documents(tmp_path, clock, warm=True)
    await _saves(docs, uri, 6)
    assert linted == ["lint"] * 6  # and the clock never moved


async def test_a_storm_of_cli_saves_waits_the_save_debounce(tmp_path: Path) -> None:
    clock = ManualClock()
    docs, linted, uri = documents(tmp_path, clock, warm=False)
    await _saves(docs, uri, 3)
    assert linted == ["lint", "lint"]  # the third in the window waits
    await clock.advance(9.999)
    for _ in range(5):
        await asyncio.sleep(0)
    assert linted == ["lint", "lint"]
    await clock.advance(0.001)
    for _ in range(5):
        await asyncio.sleep(0)
    assert linted == ["lint"] * 3
