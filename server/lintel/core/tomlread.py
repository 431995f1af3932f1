"""The one TOML reader: lintel's configuration and the manifests it reads (Cargo.toml, pyproject.toml)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

log = logging.getLogger(__name__)

# What reading a TOML file can raise besides FileNotFoundError (an OSError too).
TOML_ERRORS: tuple[type[Exception], ...] = (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError)


def parse_toml(path: Path) -> dict[str, Any]:
    """The document; raises one of TOML_ERRORS for a file that is missing, unreadable or not TOML."""
    document: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    return document


def read_toml(path: Path) -> Mapping[str, Any] | None:
    """The document, or None when it is absent or unreadable (a broken manifest is its tool's to report)."""
    try:
        return parse_toml(path)
    except FileNotFoundError:
        return None
    except TOML_ERRORS as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
