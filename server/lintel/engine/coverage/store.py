"""Where coverage indexes live between calls: in memory for the process, and a JSON file per project in the user's
cache folder (`$XDG_CACHE_HOME/lintel/coverage`, else ~/.cache/lintel/coverage) so another lintel process —
`lintel check --only coverage`, `lintel mcp`, a restarted server — answers from the same run. Nothing is
written into the project."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from lintel.languages.coverage.model import CoverageIndex

log = logging.getLogger(__name__)


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lintel" / "coverage"


class CoverageStore:
    """The last coverage index of each (project root, language)."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
        self._indexes: dict[tuple[str, str], CoverageIndex] = {}

    def path_for(self, root: Path, language: str) -> Path:
        digest = hashlib.sha256(f"{root.resolve()}\0{language}".encode()).hexdigest()[:20]
        return self.cache_dir / f"{language}-{digest}.json"

    def get(self, root: Path, language: str) -> CoverageIndex | None:
        key = (str(root.resolve()), language)
        index = self._indexes.get(key)
        if index is not None:
            return index
        path = self.path_for(root, language)
        try:
            index = CoverageIndex.from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring the coverage index %s: %s", path, exc)
            return None
        self._indexes[key] = index
        return index

    def put(self, index: CoverageIndex) -> None:
        root = Path(index.root)
        self._indexes[(str(root.resolve()), index.language)] = index
        path = self.path_for(root, index.language)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(index.to_json()), encoding="utf-8")
            temporary.replace(path)
        except OSError as exc:
            # Kept in memory all the same: this process still answers from it.
            log.warning("could not save the coverage index to %s: %s", path, exc)
