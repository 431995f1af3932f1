"""Stat questions that answer instead of raising. Before Python 3.14, `Path.is_dir`/`is_file` raise
PermissionError for a path inside a folder lintel may not search (another user's, mode 000); where lintel only
asks what a path is, such a path is neither: it cannot be read, and whoever needs its content says so."""

from __future__ import annotations

import stat
from pathlib import Path


def is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False
