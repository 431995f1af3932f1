"""Writers for `lintel check`: one module per format, each a pure function of a CheckReport."""

from __future__ import annotations

from collections.abc import Callable

from lintel.frontends.report.github import render_github
from lintel.frontends.report.json import render_json
from lintel.frontends.report.model import CheckReport, ProjectEntry
from lintel.frontends.report.rdjsonl import render_rdjsonl
from lintel.frontends.report.sarif import render_sarif
from lintel.frontends.report.text import render_text

Renderer = Callable[[CheckReport], str]

RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
    "rdjsonl": render_rdjsonl,
}

__all__ = ["RENDERERS", "CheckReport", "ProjectEntry", "Renderer"]
