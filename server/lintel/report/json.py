"""`check --format json`, version 1 (docs/design.md, README): projects with their markers and summary, each run
naming its project's root."""

from __future__ import annotations

import json

from lintel.report.model import CheckReport


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
        "issues": [i.to_json() for i in report.issues],
        "summary": report.summary(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
