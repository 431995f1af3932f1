#!/usr/bin/env python3
"""Fault: floods stdout with STDOUT_MB MiB and stderr with STDERR_MB MiB, as fast as it can."""

import sys

stdout_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 200
stderr_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 5
line = b"flood " * 10 + b"\n"
chunk = line * (1024 * 1024 // len(line))
chunk += b"x" * (1024 * 1024 - len(chunk))
for i in range(max(stdout_mb, stderr_mb)):
    if i < stdout_mb:
        sys.stdout.buffer.write(chunk)
    if i < stderr_mb:
        sys.stderr.buffer.write(chunk)
sys.stdout.buffer.flush()
