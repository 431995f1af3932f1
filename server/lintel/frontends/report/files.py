"""Report files the user names (`--output`, `--write-baseline`): checked before any tool runs, so a typo costs
a second instead of a whole check, and written with a one-line error instead of a traceback."""

from __future__ import annotations

from pathlib import Path


class OutputError(ValueError):
    """A report file that cannot be written: a usage error (exit code 2)."""


def writable(value: str, flag: str) -> Path:
    """`value` as a file lintel can create or replace, else OutputError naming the flag and what is wrong."""
    path = Path(value).expanduser()
    if path.is_dir():
        raise OutputError(f"{flag} {value}: is a folder; name a file")
    parent = path.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise OutputError(f"{flag} {value}: the folder {parent} {what}")
    return path


def write(path: Path, text: str, flag: str) -> None:
    try:
        # A file name that is not UTF-8 is written as its bytes (lintel.core.fsnames).
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise OutputError(f"{flag} {path}: {exc.strerror or exc}") from exc
