"""One huge single-line Python file opened in `lintel serve`: how long a request sent right after the
didOpen waits, and lintel's RSS before and after.

    python bench/huge_file.py [--mb 20] [--content statements|string] [--hover]

A raw stdio client (no pytest-lsp): initialize a temporary workspace (pyproject.toml), didOpen `huge.py` with the
text, then at once `lintel.detect` (answered by lintel itself) and, with `--hover`, a hover (forwarded to the
Python language server, whose own time on a 20 MB file is not lintel's). Prints the seconds to each answer, the
publishDiagnostics for the file (and when), lintel's log lines mentioning the file, and VmRSS before the didOpen,
the peak seen while waiting and at the end. Informational; nothing asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Client:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.answers: dict[Any, float] = {}
        self.published: list[tuple[float, int]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame({"jsonrpc": "2.0", **message}))
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = -1
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            message = json.loads(out.read(length))
            now = time.monotonic()
            if "id" in message and "method" in message:  # a request to the client: answer it plainly
                result: Any = (
                    [None] * len(message["params"]["items"]) if message["method"] == "workspace/configuration" else None
                )
                self.send({"id": message["id"], "result": result})
            elif "id" in message:
                with self.lock:
                    self.answers[message["id"]] = now
            elif message.get("method") == "textDocument/publishDiagnostics":
                with self.lock:
                    self.published.append((now, len(message["params"]["diagnostics"])))

    def wait(self, msg_id: int, timeout: float) -> float | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if msg_id in self.answers:
                    return self.answers[msg_id]
            time.sleep(0.005)
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--content", choices=("statements", "string"), default="statements")
    parser.add_argument("--hover", action="store_true")
    parser.add_argument("--wait", type=float, default=30, help="seconds to wait for each answer")
    args = parser.parse_args()
    size = int(args.mb * 1024 * 1024)
    text = ("x = 1; " * (size // 7 + 1))[:size] + "\n" if args.content == "statements" else f'x = "{"a" * size}"\n'

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text('[project]\nname = "huge"\nversion = "0"\n')
        (root / "huge.py").write_text(text)
        # BENCH_PROFILE=FILE: lintel runs under cProfile, its stats written to FILE at exit.
        profile = ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]] if os.environ.get("BENCH_PROFILE") else []
        log = open(root / "lintel.log", "w+b")  # noqa: SIM115 - read back at the end
        proc = subprocess.Popen(
            [sys.executable, *profile, "-m", "lintel", "--verbose", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(REPO / "server")},
        )
        client = Client(proc)
        client.send({"id": 1, "method": "initialize", "params": {"capabilities": {}, "rootUri": root.as_uri()}})
        client.wait(1, 30)
        client.send({"method": "initialized", "params": {}})
        client.send({"id": 2, "method": "workspace/executeCommand", "params": {"command": "lintel.detect"}})
        client.wait(2, 60)
        time.sleep(1)
        before = rss_mb(proc.pid)
        uri = (root / "huge.py").as_uri()
        opened = time.monotonic()
        client.send(
            {
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            }
        )
        sent = time.monotonic()
        client.send({"id": 3, "method": "workspace/executeCommand", "params": {"command": "lintel.detect"}})
        if args.hover:
            position = {"line": 0, "character": 0}
            client.send(
                {
                    "id": 4,
                    "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": uri}, "position": position},
                }
            )
        peak = before
        end = time.monotonic() + args.wait
        ids = [3, 4] if args.hover else [3]
        while time.monotonic() < end:
            peak = max(peak, rss_mb(proc.pid))
            with client.lock:
                if all(i in client.answers for i in ids) and client.published:
                    break
            time.sleep(0.02)
        time.sleep(1)
        peak = max(peak, rss_mb(proc.pid))
        after = rss_mb(proc.pid)
        print(f"text: {len(text) / 1e6:.1f} MB on one line ({args.content}); didOpen written in {sent - opened:.2f}s")
        for i, name in ((3, "lintel.detect"), (4, "hover")):
            if i in ids:
                at = client.answers.get(i)
                print(f"{name} answered after {at - opened:.2f}s" if at else f"{name}: no answer in {args.wait}s")
        for at, count in client.published:
            print(f"publishDiagnostics ({count} diagnostics) after {at - opened:.2f}s")
        print(f"VmRSS: {before:.0f} MB before didOpen, peak {peak:.0f} MB, {after:.0f} MB after")
        client.send({"id": 9, "method": "shutdown"})
        client.wait(9, 30)
        client.send({"method": "exit"})
        proc.wait(30)
        log.seek(0)
        for line in log.read().decode(errors="replace").splitlines():
            if ("huge.py" in line or "large" in line or "took" in line) and "Sending data" not in line:
                print("log:", line[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
