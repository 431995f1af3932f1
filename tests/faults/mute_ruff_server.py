#!/usr/bin/env python3
"""Fault: a `ruff server` that answers `initialize` (positions in UTF-32, the version in $FAKE_RUFF_VERSION, else
0.17.6) and then nothing, ever; it ignores `exit` and SIGTERM, so only SIGKILL ends it. Called as
`mute_ruff_server.py server` (and `--version`, answered with that version)."""

import json
import os
import signal
import sys

if sys.argv[1:] == ["--version"]:
    sys.stdout.write(f"ruff {os.environ.get('FAKE_RUFF_VERSION', '0.17.6')}\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
while True:
    length = 0
    while True:
        line = stdin.readline()
        if not line:
            signal.pause()  # input closed: still does not exit
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message = json.loads(stdin.read(length))
    if message.get("method") == "initialize":
        version = os.environ.get("FAKE_RUFF_VERSION", "0.17.6")
        result = {"capabilities": {"positionEncoding": "utf-32"}, "serverInfo": {"name": "ruff", "version": version}}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
        stdout.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode()))
        stdout.flush()
