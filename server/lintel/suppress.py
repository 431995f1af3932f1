from __future__ import annotations

from lintel.fixes import Fix
from lintel.issues import Issue


def suppression(issue: Issue, text: str) -> Fix | None:
    return None
