"""`check --format json`, version 1 (docs/cli.md, JSON report): projects with their markers and summary, each run
naming its project's root."""

from __future__ import annotations

import json
from typing import Any

from lintel.core.fsnames import json_text
from lintel.frontends.report.model import CheckReport


def render_json(report: CheckReport) -> str:
    groups = {group.project: group for group in report.groups()}
    run_project = {
        id(run): project.root for project, group in groups.items() if project is not None for run in group.runs
    }
    projects = [{**p.to_json(), "summary": groups[p].summary()} for p in report.projects]
    document = {
        "version": 1,
        "root": str(report.root),
        "projects": projects,
        "runs": [{**r.run_json(report.root), "project": run_project.get(id(r))} for r in report.runs],
        "issues": _ISSUES,
        "summary": report.summary(),
    }
    # json_text: a file name that is not UTF-8 is written with \udcXX escapes (lintel.core.fsnames).
    head, tail = json_text(json.dumps(document, indent=2, ensure_ascii=False)).split(json.dumps(_ISSUES), 1)
    if not report.issues:
        return f"{head}[]{tail}\n"
    # Issue by issue, laid out as json.dumps(indent=2) would at this depth: a dump with an indent goes through the
    # pure-Python encoder, whose millions of small chunks fill memory and take seconds on a large report.
    items = ",\n    ".join(json_text(indented(issue.to_json(), 2)) for issue in report.issues)
    return f"{head}[\n    {items}\n  ]{tail}\n"


_scalar = json.JSONEncoder(ensure_ascii=False).encode  # C-accelerated for strings and numbers


def indented(value: Any, depth: int = 0) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` at `depth` levels in, byte for byte: the containers laid out
    here, each leaf by the C encoder."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        pad = "\n" + "  " * (depth + 1)
        inner = f",{pad}".join(f"{_scalar(str(k))}: {indented(v, depth + 1)}" for k, v in value.items())
        return f"{{{pad}{inner}\n{'  ' * depth}}}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        pad = "\n" + "  " * (depth + 1)
        inner = f",{pad}".join(indented(v, depth + 1) for v in value)
        return f"[{pad}{inner}\n{'  ' * depth}]"
    return _scalar(value)


_ISSUES = "\x00lintel-issues\x00"  # stands in for the list while the rest of the document is laid out
