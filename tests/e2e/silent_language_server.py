"""A language server that knows nothing: it answers `initialize` with no capabilities, every other request
with null, and exits on `exit`. The checks' tests configure it as each language's navigation server
(`languages.<lang>.server`), so rust-analyzer, gopls, tsserver and basedpyright don't start for every opened
file, compete for the CPU and the cargo target dir, or add diagnostics of their own; navigation through the
real servers is tested in test_navigation.py, and one coexistence test keeps the real basedpyright.

Standard library only (fast to start): JSON-RPC with Content-Length framing on stdin/stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return None
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (message := read_message(stdin)) is not None:
        method = message.get("method")
        if method == "exit":
            return 0
        if "id" in message and method is not None:
            result: Any = {"capabilities": {}} if method == "initialize" else None
            write_message(stdout, {"jsonrpc": "2.0", "id": message["id"], "result": result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
