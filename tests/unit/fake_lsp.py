"""Pieces of the stdlib-only LSP servers the unit tests run as child processes."""

# Content-Length framing on stdin/stdout: `send(message)` and `read()` (exits when stdin closes). Needs `json`, `sys`
# and `out = sys.stdout.buffer` before it.
FRAMING = r"""
def send(message):
    body = json.dumps(message).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out.flush()
def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line == b"\r\n":
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))
"""
