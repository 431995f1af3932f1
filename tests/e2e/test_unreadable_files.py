"""A file in a folder lintel may not read, opened in the editor, with `lintel serve` run as a user
that may not read it: one message saying so, and no traceback (Python before 3.14 raises PermissionError from
`Path.is_dir` there, in the project and language-server lookups)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lintel.runtime.wire import encode

from tests.helpers import AnotherUser

TIMEOUT = 60
SILENT = Path(__file__).with_name("silent_language_server.py")


@pytest.fixture
def other_user() -> Iterator[AnotherUser]:
    user = AnotherUser.find()
    yield user
    user.clean()


class Session:
    """The editor's end of a `lintel serve` over stdio, as JSON messages; every message it sent is kept."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdin is not None
        assert proc.stdout is not None
        self.proc = proc
        self.reader = proc.stdout
        self.writer = proc.stdin
        self.received: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode({"jsonrpc": "2.0", **message}))

    async def until(self, wanted: Any) -> dict[str, Any]:
        """Read (answering the server's requests with null) until a message for which `wanted` holds."""
        while True:
            headers = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), TIMEOUT)
            length = int(headers.split(b":")[1].split(b"\r\n")[0])
            message: dict[str, Any] = json.loads(await self.reader.readexactly(length))
            self.received.append(message)
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
            if wanted(message):
                return message


def shown(message: dict[str, Any]) -> str | None:
    return message["params"]["message"] if message.get("method") == "window/showMessage" else None


async def test_opening_a_file_in_an_unreadable_folder_says_so_once_without_a_traceback(
    other_user: AnotherUser,
) -> None:
    root = other_user.folder()
    (root / "pyproject.toml").write_text('[project]\nname = "w"\nversion = "0.1.0"\n', encoding="utf-8")
    secret = root / "secret"
    secret.mkdir(mode=0o777)
    (secret / "hidden.py").write_text("import os\n", encoding="utf-8")
    secret.chmod(0)
    stderr = root / "server.stderr"
    with stderr.open("wb") as errors:
        proc = await asyncio.create_subprocess_exec(
            *other_user.argv("-m", "lintel", "serve"),
            cwd=root,
            env=other_user.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
    session = Session(proc)
    try:
        options = {"languages": {"python": {"server": [other_user.python, str(SILENT)]}}}
        session.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": None,
                    "rootUri": root.as_uri(),
                    "capabilities": {},
                    "initializationOptions": options,
                },
            }
        )
        await session.until(lambda m: m.get("id") == 1)
        session.send({"method": "initialized", "params": {}})
        uri = (secret / "hidden.py").as_uri()
        document = {"uri": uri, "languageId": "python", "version": 1, "text": "import os\n"}
        session.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
        told = await session.until(lambda m: "cannot read" in (shown(m) or ""))
        # The server is still there and well: it answers a command.
        session.send({"id": 2, "method": "workspace/executeCommand", "params": {"command": "lintel.detect"}})
        detected = await session.until(lambda m: m.get("id") == 2)
        session.send({"id": 3, "method": "shutdown"})
        await session.until(lambda m: m.get("id") == 3)
        session.send({"method": "exit"})
        await asyncio.wait_for(proc.wait(), TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    assert shown(told) == f"lintel: cannot read {secret / 'hidden.py'}: Permission denied; lintel does not check it"
    assert [shown(m) for m in session.received if shown(m) and "cannot read" in (shown(m) or "")] == [shown(told)]
    assert [p["language"] for p in detected["result"]["projects"]] == ["python"]
    log = stderr.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log
    assert "PermissionError" not in log, log
    assert not [m for m in session.received if "Error in server" in (shown(m) or "")]
