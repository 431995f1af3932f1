"""Placeholder until the gitignore matcher lands: nothing is ignored."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path


class IgnoreRules:
    @classmethod
    def at_root(cls, root: Path) -> IgnoreRules:
        return cls()

    def descend(self, directory: Path, rel: str, names: Collection[str]) -> IgnoreRules:
        return self

    def ignored(self, rel: str, is_dir: bool) -> bool:
        return False
