"""Writers for `lintel check`: one module per format, each a pure function of a CheckReport."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping

from lintel.frontends.report.model import CheckReport, ProjectEntry

Renderer = Callable[[CheckReport], str]

# Each writer is imported when its format is asked for: a check prints one format, and the others (SARIF's and
# GitHub's limits and encoders) would cost every `lintel check` their import.
_WRITERS = {
    "text": ("text", "render_text"),
    "json": ("json", "render_json"),
    "sarif": ("sarif", "render_sarif"),
    "github": ("github", "render_github"),
    "rdjsonl": ("rdjsonl", "render_rdjsonl"),
}


class _Renderers(Mapping[str, Renderer]):
    """The writers by format name, each imported on first use."""

    def __getitem__(self, fmt: str) -> Renderer:
        module, name = _WRITERS[fmt]
        writer: Renderer = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        return writer

    def __iter__(self) -> Iterator[str]:
        return iter(_WRITERS)

    def __len__(self) -> int:
        return len(_WRITERS)


RENDERERS: Mapping[str, Renderer] = _Renderers()

__all__ = ["RENDERERS", "CheckReport", "ProjectEntry", "Renderer"]
