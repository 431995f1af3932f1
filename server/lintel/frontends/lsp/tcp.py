"""`lintel serve --tcp`: a listener only the user who started lintel can drive (docs/editors.md, "Serving over TCP").

A TCP port on this machine is open to every local user, and an LSP session can make lintel run programs (the
workspace's configured commands, `initializationOptions` included). So a connection is nobody's until its first
request, `initialize`, carries the server's token in `initializationOptions.token`; the token is a secret only
the server's user can read (an environment variable, or a file in a 0700 folder). Before that, a connection
gets nothing but refusals, is closed when it does not authenticate within HANDSHAKE_SECONDS, and its closing
leaves the listener serving: only the authenticated editor's connection ends the session.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.runtime.wire import BatchWriter, MessageReader, encode

log = logging.getLogger(__name__)

TOKEN_ENV = "LINTEL_TOKEN"
HANDSHAKE_SECONDS = 10.0
# Connections still to authenticate at once: past this, new ones are closed (a local user opening sockets
# in a loop must not exhaust lintel's file descriptors).
MAX_PENDING = 16
_HANG_UP_SECONDS = 1.0
_INVALID_REQUEST = -32600
_NOT_INITIALIZED = -32002


class TokenError(Exception):
    """The token cannot be had safely: the message says which file or setting and why."""


@dataclass(frozen=True)
class Token:
    value: str
    # The file lintel wrote the token to (removed when the server stops); None when the caller supplied it.
    written: Path | None
    where: str  # how a client finds it, for the listening message


def runtime_dir(env: dict[str, str] | None = None) -> Path:
    """Where lintel keeps its per-user runtime files: $XDG_RUNTIME_DIR/lintel, else ~/.cache/lintel/run."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_RUNTIME_DIR")
    return Path(base) / "lintel" if base else Path.home() / ".cache" / "lintel" / "run"


def private_dir(path: Path) -> Path:
    """`path` as a folder only its owner (this user) can enter: made 0700, or refused when it exists with other
    rights or another owner (a folder another user made first could be read by them)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise TokenError(f"{path} is not a folder of this user's: refusing to keep the token there")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise TokenError(f"{path} can be read by other users (mode {stat.S_IMODE(info.st_mode):o}); make it 0700")
    return path


def obtain_token(token_file: str | None, env: dict[str, str] | None = None) -> Token:
    """The token clients must present: $LINTEL_TOKEN (the editor that started lintel chose it), else the one in
    `token_file` (made, 0600, when the file does not exist), else a new one written to a 0600 file in the
    user's runtime folder."""
    env = dict(os.environ) if env is None else env
    supplied = env.get(TOKEN_ENV, "").strip()
    if supplied:
        return Token(supplied, None, f"${TOKEN_ENV}")
    if token_file is not None:
        path = Path(token_file).expanduser()
        if path.exists():
            return Token(_read_private(path), None, str(path))
        return Token(_write_private(path), path, str(path))
    path = private_dir(runtime_dir(env)) / f"serve-{os.getpid()}.token"
    return Token(_write_private(path), path, str(path))


def _read_private(path: Path) -> str:
    info = path.stat()
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise TokenError(f"{path} can be read by other users (mode {stat.S_IMODE(info.st_mode):o}); make it 0600")
    value = path.read_text(encoding="utf-8").strip()
    if len(value) < 16:
        raise TokenError(f"{path}: a token must be at least 16 characters")
    return value


def _write_private(path: Path) -> str:
    value = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(value + "\n")
    return value


def check_host(host: str, *, allow_remote: bool) -> str | None:
    """None when lintel may listen on `host`; else why not. Only loopback addresses unless asked for: any other
    address is reachable from other machines."""
    if allow_remote or host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        return f"{host!r} is not an IP address (use 127.0.0.1, ::1 or localhost)"
    return f"{host} is not a loopback address: other machines could connect (add --allow-remote to mean it)"


class Gate:
    """Hands the server the one connection that authenticated, and keeps every other one out."""

    def __init__(self, token: str, on_message: Callable[[bytes], None], session: MessageReader) -> None:
        self._token = token.encode("utf-8")
        self._on_message = on_message
        self._session = session  # its connection_lost ends the session
        self._pending = 0
        self.editor: Connection | None = None
        self.set_writer: Callable[[BatchWriter], None] = lambda writer: None

    def connection(self) -> Connection:
        return Connection(self)

    def admit(self, connection: Connection, message: dict[str, Any]) -> str | None:
        """None when `message` (an `initialize` request) authenticates `connection`; else why not."""
        params = message.get("params")
        options = params.get("initializationOptions") if isinstance(params, dict) else None
        token = options.get("token") if isinstance(options, dict) else None
        if not isinstance(token, str) or not hmac.compare_digest(token.encode("utf-8"), self._token):
            return (
                "lintel serve --tcp: initialize must carry the server's token as initializationOptions.token "
                "(see `lintel serve --help`)"
            )
        if self.editor is not None:
            return "lintel serves one editor, and one is connected"
        assert isinstance(options, dict)
        del options["token"]  # not a setting: the configuration must not see it
        self.editor = connection
        return None


class Connection(asyncio.Protocol):
    """One TCP connection: refused answers until it authenticates, then the server's editor connection."""

    def __init__(self, gate: Gate) -> None:
        self._gate = gate
        self._transport: asyncio.Transport | None = None
        self._reader = MessageReader(self._first_messages, "a TCP client")
        self._timer: asyncio.TimerHandle | None = None
        self._authenticated = False
        self._refused = False
        self._counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        gate = self._gate
        if gate._pending >= MAX_PENDING:
            log.warning("TCP: %d connections are waiting to authenticate; refusing another", gate._pending)
            transport.close()
            return
        gate._pending += 1
        self._counted = True
        self._timer = asyncio.get_running_loop().call_later(HANDSHAKE_SECONDS, self._too_slow)

    def data_received(self, data: bytes) -> None:
        if not self._refused:
            self._reader.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._settle()
        if self._authenticated:
            self._gate._session.connection_lost(exc)

    def _settle(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._counted:
            self._counted = False
            self._gate._pending -= 1

    def _too_slow(self) -> None:
        log.warning("TCP: a client sent no valid initialize within %gs: closed", HANDSHAKE_SECONDS)
        self._close()

    def _close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _hang_up(self) -> None:
        """Close after the refusal has reached the client: closing a socket whose input is unread (the client's
        next messages) resets the connection, and a reset can drop the answer before the client reads it. So:
        no more writes (EOF), the client's further bytes ignored, the socket closed a moment later."""
        self._refused = True
        transport = self._transport
        if transport is None:
            return
        if transport.can_write_eof():
            transport.write_eof()
        asyncio.get_running_loop().call_later(_HANG_UP_SECONDS, transport.close)

    def _answer(self, msg_id: Any, code: int, message: str) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(encode({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}))

    def _first_messages(self, body: bytes) -> None:
        if self._authenticated:
            self._gate._on_message(body)
            return
        try:
            data = json.loads(body)
        except ValueError:
            log.warning("TCP: a client sent a message that is not JSON before authenticating: closed")
            self._close()
            return
        if not isinstance(data, dict):
            self._close()
            return
        method, msg_id = data.get("method"), data.get("id")
        is_request = isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)
        if not is_request:
            return  # a notification before initialize: dropped, as on stdio
        if data.get("jsonrpc") != "2.0":
            self._answer(msg_id, _INVALID_REQUEST, "not a JSON-RPC 2.0 message")
            return
        if method != "initialize":
            self._answer(msg_id, _NOT_INITIALIZED, f"{method}: the server is not initialized yet (send initialize)")
            return
        refusal = self._gate.admit(self, data)
        if refusal is not None:
            peer = self._transport.get_extra_info("peername") if self._transport is not None else None
            log.warning("TCP: refused a client (%s): %s", peer, refusal)
            self._answer(msg_id, _INVALID_REQUEST, refusal)
            self._hang_up()
            return
        self._authenticated = True
        self._settle()
        assert self._transport is not None
        self._gate.set_writer(BatchWriter(self._transport.write, "the editor"))
        log.info("TCP: the editor authenticated (%s)", self._transport.get_extra_info("peername"))
        self._gate._on_message(json.dumps(data).encode("utf-8"))
