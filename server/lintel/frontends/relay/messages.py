"""Which of a child server's window/showMessage notifications the user sees (docs/architecture.md, Errors users see):
pop-ups only for what the user can act on, at the child's own type; the rest goes to the log."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

# Info and Log are progress and state ("indexing done"); a server says what needs the user as Error or Warning.
_SHOWN = (types.MessageType.Error, types.MessageType.Warning)


def shown(kind: types.MessageType, message: str, chatter: Sequence[str]) -> bool:
    """Whether a child's message is a pop-up: an Error or a Warning that is not the server's chatter for its own
    developers (rust-analyzer's "overly long loop turn took 113ms", at type Error)."""
    return kind in _SHOWN and not any(re.search(pattern, message) for pattern in chatter)
