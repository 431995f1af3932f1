#!/usr/bin/env python3
"""An agent's loop over LSP: `lintel serve` driven on stdio, with the standard library only.

It opens a file and prints the diagnostics lintel publishes for it; asks `lintel.testsCovering` which tests run
a line of it and runs just those with `lintel.runTests {tests}` (with no `--line`: the whole suite); reads the
failures back with `lintel.lastTestFailures`; then applies the fix it is given, saves (didChange + didSave, and
waits for the new diagnostics) and reruns what failed with `lintel.runFailingTests`. The fix edits the file, so
run it on a copy of the fixture:

    cp -r tests/workspaces/python /tmp/inventory
    python examples/agent_client.py /tmp/inventory src/inventory/models.py --line 16 \\
        --replace 'item.price for' 'item.price * item.quantity for'

The fix is the agent's part: here `--replace OLD NEW` (OLD must occur exactly once) or `--fix-from FILE` (the
file's new content). With neither, the loop stops after the failures. Exit status: 0 when the last test run
passed (or no test runs the line: nothing to run), 1 when it failed, 2 when lintel refused a request (its
ResponseError is printed), went away or did not answer in time. `examples/mcp_agent.py` is the same loop over MCP.
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
PUBLISH = "textDocument/publishDiagnostics"


class ResponseError(Exception):
    """The server answered a request with an error (a refusal: bad argument, nothing to rerun, untrusted…)."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        self.error = error
        message = str(error.get("message"))
        # lintel's messages mostly lead with the command already; say it once.
        named = message if message.startswith(method) else f"{method}: {message}"
        super().__init__(f"{named} (code {error.get('code')})")


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
            raise ResponseError(method, response["error"])
        return response.get("result")

    def command(self, name: str, arguments: dict[str, Any] | None, timeout: float) -> Any:
        """`workspace/executeCommand`: lintel's commands take one object (or nothing)."""
        params = {"command": name, "arguments": [arguments] if arguments is not None else []}
        try:
            return self.request("workspace/executeCommand", params, timeout)
        except ResponseError as exc:  # name the command, not the LSP method, in what the user reads
            raise ResponseError(name, exc.error) from None

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
        if method == PUBLISH:
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

    def close(self, timeout: float) -> None:
        """shutdown + exit; a server that does not answer (or already died) is killed."""
        try:
            self.request("shutdown", None, timeout)
            self.notify("exit", None)
            self.proc.wait(timeout=timeout)
        except (ResponseError, TimeoutError, ConnectionError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def default_server() -> list[str]:
    return ["lintel", "serve"] if shutil.which("lintel") else [sys.executable, "-m", "lintel", "serve"]


def fixed_text(args: argparse.Namespace, original: str) -> str | None:
    """The file's content after the agent's fix, worked out before anything runs so a bad fix fails fast."""
    if args.fix_from is not None:
        return Path(args.fix_from).read_text(encoding="utf-8")
    if args.replace is not None:
        old, new = args.replace
        found = original.count(old)
        if found != 1:
            raise ValueError(f"--replace: {old!r} occurs {found} times in {args.file}, not once")
        return original.replace(old, new)
    return None


def print_diagnostics(title: str, diagnostics: list[dict[str, Any]]) -> None:
    print(f"{title}: {len(diagnostics)}")
    for d in diagnostics:
        start = d["range"]["start"]
        severity = SEVERITIES.get(d.get("severity", 1), "error")
        code = f" {d['code']}" if d.get("code") else ""
        message = d["message"].splitlines()[0]
        print(f"  {start['line'] + 1}:{start['character'] + 1} {severity} [{d.get('source')}{code}] {message}")


def runner_says(result: dict[str, Any]) -> str:
    """The test runner's own last word (pytest's `1 failed in 0.8s`): how many tests really ran."""
    stdout = result["output"].split("--- stderr ---")[0]
    lines = [line.strip() for line in stdout.splitlines() if line.strip() and not line.startswith("exit: ")]
    return lines[-1] if lines else "(no output)"


def print_run(step: str, result: dict[str, Any]) -> None:
    """One line per test run: what ran, the verdict, and the runner's count."""
    if not result["argv"]:  # runFailingTests after a run that passed: nothing ran
        print(f"{step}: nothing ran — {result.get('reason')}")
        return
    verdict = "passed" if result["ok"] else "failed"
    print(
        f"{step} ({shlex.join(result['argv'])}): {verdict}, exit {result['exitCode']}, {result['durationMs']} ms"
        f" — {result['language']} runner: {runner_says(result)}"
    )


def print_failures(failures: list[dict[str, Any]]) -> None:
    for failure in failures:
        where = f"{failure.get('file')}:{failure.get('line')}" if failure.get("file") else "?"
        print(f"  FAILED {failure['name']} at {where}: {failure['message'].splitlines()[0]}")


def open_file(lsp: LspConnection, path: Path) -> str:
    uri = path.as_uri()
    document = {
        "uri": uri,
        "languageId": LANGUAGE_IDS.get(path.suffix, "plaintext"),
        "version": 1,
        "text": path.read_text(encoding="utf-8"),
    }
    lsp.notify("textDocument/didOpen", {"textDocument": document})
    return uri


def save_fix(lsp: LspConnection, path: Path, text: str, version: int, timeout: float) -> list[dict[str, Any]]:
    """Write the file as an agent does, tell the server (the whole text, then the save) and wait for the
    diagnostics of that version."""
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    lsp.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    )
    lsp.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    lsp.pump(
        lambda m: m.get("method") == PUBLISH and m["params"]["uri"] == uri and m["params"].get("version") == version,
        timeout,
        "the diagnostics after the save",
    )
    return lsp.settle(uri, quiet=1.0, timeout=timeout)


def agent_loop(lsp: LspConnection, root: Path, args: argparse.Namespace, fix: str | None) -> bool:
    """The loop; True when the last test run passed."""
    path = root / args.file
    uri = open_file(lsp, path)
    print_diagnostics(f"diagnostics of {args.file}", lsp.settle(uri, quiet=2.0, timeout=args.timeout))

    if args.line is None:  # no line named: the whole suite
        result = lsp.command("lintel.runTests", None, args.timeout)
        print_run("tests", result)
    else:
        where = {"file": args.file, "line": args.line}
        covering = lsp.command("lintel.testsCovering", where, args.timeout)
        tests = covering["tests"]
        print(f"tests covering {args.file}:{args.line} ({covering['granularity']}): {len(tests)}")
        for test in tests:
            print(f"  {test}")
        if not tests:
            print(f"  none — {covering.get('note') or 'no test runs that line'}: nothing to run")
            return True
        result = lsp.command("lintel.runTests", {"tests": tests}, args.timeout)
        print_run("subset", result)

    last = lsp.command("lintel.lastTestFailures", None, args.timeout)
    failures = (last or {}).get("failures", [])
    print(f"last test failures: {len(failures)}")
    print_failures(failures)

    if fix is None:
        print("no fix given (--replace or --fix-from): stopping here")
        return bool(result["ok"])
    how = f"--fix-from {args.fix_from}" if args.fix_from is not None else "--replace"
    print(f"fix: {args.file} rewritten ({how}), saved")
    print_diagnostics("diagnostics after the save", save_fix(lsp, path, fix, 2, args.timeout))

    rerun = lsp.command("lintel.runFailingTests", None, args.timeout)
    print_run("rerun of the failures", rerun)
    print_failures(rerun.get("failures", []))
    return bool(rerun["ok"])


def initialize(lsp: LspConnection, root: Path, timeout: float) -> None:
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
        timeout,
    )
    lsp.notify("initialized", {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("file", help="a file of the workspace to open, relative to it")
    parser.add_argument("--line", type=int, help="a line of the file (1-based) whose tests to run (default: all tests)")
    fixes = parser.add_mutually_exclusive_group()
    fixes.add_argument("--replace", nargs=2, metavar=("OLD", "NEW"), help="the fix: OLD (once in the file) → NEW")
    fixes.add_argument("--fix-from", metavar="FILE", help="the fix: the file's new content")
    parser.add_argument("--server", help="server command (default: lintel serve)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for any one answer")
    args = parser.parse_args(argv)

    root = args.workspace.resolve()
    try:
        fix = fixed_text(args, (root / args.file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    server = shlex.split(args.server) if args.server else default_server()
    try:
        lsp = LspConnection(server, cwd=root)
    except OSError as exc:
        print(f"error: cannot start {shlex.join(server)}: {exc}", file=sys.stderr)
        return 2
    try:
        initialize(lsp, root, args.timeout)
        passed = agent_loop(lsp, root, args, fix)
    except (ResponseError, TimeoutError, ConnectionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        lsp.close(timeout=30)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
