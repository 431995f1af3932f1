#!/usr/bin/env python3
"""An agent driving lintel over LSP on stdio, with the standard library only.

It starts `lintel serve`, initializes it on a workspace folder, opens one file, prints the diagnostics
lintel publishes for it, runs the tests with `workspace/executeCommand lintel.runTests`, prints the
failures of the RunResult, and shuts the server down:

    python examples/agent_client.py tests/workspaces/python src/inventory/pricing.py

Without LSP, `lintel check --format json` gives the same issues in one report (see the README).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

LANGUAGE_IDS = {
    ".py": "python",
    ".go": "go",
    ".rs": "rust",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".ts": "typescript",
    ".tsx": "typescriptreact",
}
SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}


class LspConnection:
    """JSON-RPC over a child's stdin/stdout with LSP's `Content-Length` framing."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.next_id = 0
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self.published_at: dict[str, float] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            headers: dict[str, str] = {}
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:  # end of stream
                self.inbox.put(None)
                return
            self.inbox.put(json.loads(stream.read(int(headers["content-length"]))))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float) -> Any:
        self.next_id += 1
        request_id = self.next_id
        self.send({"id": request_id, "method": method, "params": params})
        response = self.pump(lambda m: m.get("id") == request_id and "method" not in m, timeout, method)
        if "error" in response:
            raise RuntimeError(f"{method}: {response['error'].get('message')}")
        return response.get("result")

    def pump(self, wanted: Any, timeout: float, what: str) -> dict[str, Any]:
        """Handle incoming messages until one satisfies `wanted`; return it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no answer to {what} within {timeout:g}s") from None
            if message is None:
                raise ConnectionError(f"the server exited (code {self.proc.wait()}) while waiting for {what}")
            self.handle(message)
            if wanted(message):
                return message

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "textDocument/publishDiagnostics":
            uri = message["params"]["uri"]
            self.diagnostics[uri] = message["params"]["diagnostics"]
            self.published_at[uri] = time.monotonic()
        elif method == "window/showMessage":
            print(f"[server] {message['params']['message']}", file=sys.stderr)
        elif method is not None and "id" in message:
            # Requests from the server: no settings of our own, accept registrations and progress tokens.
            items = message.get("params", {}).get("items", [])
            result = [None] * len(items) if method == "workspace/configuration" else None
            self.send({"id": message["id"], "result": result})

    def settle(self, uri: str, quiet: float, timeout: float) -> list[dict[str, Any]]:
        """The diagnostics of `uri` once some were published and no new publish came for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            last = self.published_at.get(uri)
            if last is not None and time.monotonic() - last >= quiet:
                return self.diagnostics[uri]
            with contextlib.suppress(TimeoutError):
                self.pump(lambda m: False, min(0.2, max(0.0, deadline - time.monotonic())), "diagnostics")
        raise TimeoutError(f"no diagnostics for {uri} within {timeout:g}s")


def default_server() -> list[str]:
    return ["lintel", "serve"] if shutil.which("lintel") else [sys.executable, "-m", "lintel", "serve"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("file", help="a file of the workspace to open, relative to it")
    parser.add_argument("--server", help="server command (default: lintel serve)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for any one answer")
    args = parser.parse_args(argv)

    root = args.workspace.resolve()
    path = root / args.file
    server = shlex.split(args.server) if args.server else default_server()
    lsp = LspConnection(server, cwd=root)

    lsp.request(
        "initialize",
        {
            "processId": None,
            "clientInfo": {"name": "lintel-agent-example"},
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {
                "textDocument": {"publishDiagnostics": {}, "synchronization": {"didSave": True}},
                "workspace": {"workspaceFolders": True, "configuration": True},
            },
        },
        args.timeout,
    )
    lsp.notify("initialized", {})

    uri = path.as_uri()
    lsp.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": LANGUAGE_IDS.get(path.suffix, "plaintext"),
                "version": 1,
                "text": path.read_text(encoding="utf-8"),
            }
        },
    )
    print(f"diagnostics of {args.file}:")
    for d in lsp.settle(uri, quiet=2.0, timeout=args.timeout):
        start = d["range"]["start"]
        severity = SEVERITIES.get(d.get("severity", 1), "error")
        code = f" {d['code']}" if d.get("code") else ""
        message = d["message"].splitlines()[0]
        print(f"  {start['line'] + 1}:{start['character'] + 1} {severity} [{d.get('source')}{code}] {message}")

    result = lsp.request("workspace/executeCommand", {"command": "lintel.runTests", "arguments": []}, args.timeout)
    verdict = "passed" if result["ok"] else "failed"
    print(f"tests ({' '.join(result['argv'])}): {verdict}, exit {result['exitCode']}, {result['durationMs']} ms")
    for failure in result.get("failures", []):
        where = f"{failure.get('file')}:{failure.get('line')}" if failure.get("file") else "?"
        print(f"  FAILED {failure['name']} at {where}: {failure['message'].splitlines()[0]}")

    lsp.request("shutdown", None, args.timeout)
    lsp.notify("exit", None)
    return lsp.proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
