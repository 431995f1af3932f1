"""Colour decided as CLI libraries decide it: NO_COLOR wins, then FORCE_COLOR, then CLICOLOR_FORCE, then the
terminal (and CLICOLOR=0 turns it off there)."""

from __future__ import annotations

import os
from typing import TextIO


def wants_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force not in ("0", "false")
    if os.environ.get("CLICOLOR_FORCE", "0") != "0":
        return True
    return os.environ.get("CLICOLOR") != "0" and stream.isatty()


def green(text: str, stream: TextIO) -> str:
    return f"\x1b[32m{text}\x1b[0m" if wants_colour(stream) else text
