"""A stand-in navigation server for bench/soak.py: it offers hover and definition, so lintel forwards those
requests to it (lintel answers null itself for a method its child does not offer), and answers them after a
short pause, so a kill -9 often lands while a request is in flight. Cheap to start and to kill, unlike
basedpyright. Standard library only: JSON-RPC with Content-Length framing on stdin/stdout.

    python bench/soak_language_server.py
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, BinaryIO

ANSWER_DELAY = 0.05  # seconds before each hover/definition answer: the window a kill can hit

CAPABILITIES = {"textDocumentSync": 1, "hoverProvider": True, "definitionProvider": True}


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


def answer(method: str, params: Any) -> Any:
    if method == "initialize":
        return {"capabilities": CAPABILITIES, "serverInfo": {"name": "soak-language-server"}}
    if method in ("textDocument/hover", "textDocument/definition"):
        time.sleep(ANSWER_DELAY)
        position = params["position"]
        where = {"start": position, "end": position}
        if method == "textDocument/hover":
            return {"contents": {"kind": "plaintext", "value": f"soak {position['line']}"}, "range": where}
        return [{"uri": params["textDocument"]["uri"], "range": where}]
    return None  # shutdown and anything else


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (message := read_message(stdin)) is not None:
        method = message.get("method")
        if method == "exit":
            return 0
        if "id" in message and isinstance(method, str):
            write_message(
                stdout, {"jsonrpc": "2.0", "id": message["id"], "result": answer(method, message.get("params"))}
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
