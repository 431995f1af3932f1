"""`check --format json`, version 1 (docs/design.md)."""

from __future__ import annotations

import json

from lintel.report.model import CheckReport


def render_json(report: CheckReport) -> str:
    document = {
        "version": 1,
        "root": str(report.root),
        "projects": [{"language": p.language, "root": p.relative_root(report.root)} for p in report.projects],
        "runs": [r.run_json(report.root) for r in report.runs],
        "issues": [i.to_json() for i in report.issues],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
