"""What the user is told: pop-ups only for what they can act on, once per cause; the rest to the log."""

from __future__ import annotations

import logging
from typing import Protocol

from lsprotocol import types

log = logging.getLogger(__name__)


class _Client(Protocol):
    def window_show_message(self, params: types.ShowMessageParams) -> None: ...

    def window_log_message(self, params: types.LogMessageParams) -> None: ...


class Notifier:
    def __init__(self, client: _Client) -> None:
        self._client = client
        self._told: set[str] = set()

    def once(self, cause: str, message: str, kind: types.MessageType = types.MessageType.Warning) -> bool:
        """Show `message` unless this cause was shown before; always log it. True when shown."""
        self.log(message, kind)
        if cause in self._told:
            return False
        self._told.add(cause)
        self._client.window_show_message(types.ShowMessageParams(type=kind, message=f"lintel: {message}"))
        return True

    def forget(self, prefix: str = "") -> None:
        """Allow causes to be shown again (after the configuration changed, say)."""
        self._told = {cause for cause in self._told if not cause.startswith(prefix)}

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        log.info("%s", message)
        self._client.window_log_message(types.LogMessageParams(type=kind, message=message))
