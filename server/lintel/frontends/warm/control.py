"""`lintel daemon start|stop|status|run`: the warm lintel by hand (clients start one on demand; docs/cli.md)."""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time

from lintel.frontends.warm.place import socket_path, start_zygote, zygote_command

START_WAIT = 60.0  # seconds `start` waits for the new warm lintel to answer (it imports all of lintel first)


def status() -> str | None:
    """The running warm lintel's `S pid version children` line, or None when none answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(2.0)
        sock.connect(socket_path(os.environ))
        sock.sendall(b"status\n")
        reply = sock.recv(256).decode(errors="replace").strip()
    except OSError:
        return None
    finally:
        sock.close()
    return reply if reply.startswith("S ") else None


def stop() -> bool:
    """Ask the warm lintel to stop (the commands it started run on); whether one was running."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(5.0)
        sock.connect(socket_path(os.environ))
        sock.sendall(b"stop\n")
        return sock.recv(64).startswith(b"K")
    except OSError:
        return False
    finally:
        sock.close()


def start() -> str | None:
    """Start a warm lintel unless one runs, and wait until it answers; its status line, None if it did not."""
    if (line := status()) is not None:
        return line
    if not start_zygote(os.environ):
        return None
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if (line := status()) is not None:
            return line
        time.sleep(0.05)
    return None


def run(args: argparse.Namespace) -> int:
    path = socket_path(os.environ)
    if args.action == "run":
        # Its own program (it imports this command line to run commands: importing it here would be a circle).
        command = zygote_command()
        os.execv(command[0], command)
    if args.action == "stop":
        print("lintel: warm lintel stopped" if stop() else "lintel: no warm lintel was running", file=sys.stderr)
        return 0
    line = start() if args.action == "start" else status()
    if line is None:
        what = "did not start" if args.action == "start" else "is not running"
        print(f"lintel: the warm lintel {what} ({path})", file=sys.stderr)
        return 1
    _, pid, version, running = line.split()
    print(f"warm lintel {version} running: pid {pid}, {running} commands running, socket {path}")
    return 0
