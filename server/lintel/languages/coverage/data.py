"""What the coverage data readers of the language folders share (`parse_*` in lintel.languages.<name>.coverage:
coverage data as the tools write it -> `Files`, pure functions, no I/O): their error, and paths and JSON read
the same way. tests/unit/test_coverage_parsers.py runs each reader on output captured from the real tool."""

from __future__ import annotations

import json
import posixpath
from typing import Any


class CoverageDataError(ValueError):
    """The coverage data could not be read: the run is reported not_checked with this message."""


def relative_path(path: str, root: str) -> str:
    """A data file's path relative to `root` (the project root) when it lies below it; `file://` URLs read."""
    path = path.replace("\\", "/")
    if path.startswith("file://"):
        path = path[len("file://") :]
    base = root.rstrip("/") + "/"
    if path.startswith(base):
        return path[len(base) :]
    return posixpath.normpath(path) if not path.startswith("/") else path


def read_json(text: str, what: str) -> dict[str, Any]:
    """The JSON object `text` holds; CoverageDataError naming `what` when it holds none."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise CoverageDataError(f"{what} could not be read: {exc}") from exc
    if not isinstance(document, dict):
        raise CoverageDataError(f"{what} is not an object")
    return document
