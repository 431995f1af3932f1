"""SARIF 2.1.0 for code-scanning platforms: one run per tool with its rules, workspace-relative locations,
and the edit-stable fingerprint as `partialFingerprints` (so alerts follow code that moves).

Property bags carry what SARIF has no field for, so `lintel merge` can read a log back into a report
(lintel.frontends.report.read): each result's kind, signature and project, each invocation's check and status, the log's
root and projects."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lintel import __version__
from lintel.core.fsnames import json_text, uri_path
from lintel.core.issues import Issue
from lintel.engine.baseline import SARIF_FINGERPRINT_KEY
from lintel.engine.checks import RunResult
from lintel.frontends.report.model import CheckReport, ProjectEntry

# The key of the log's property bag that holds the report's root and projects.
LINTEL_PROPERTIES = "lintel"
SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_PLACE = ("file", "line", "column", "endLine", "endColumn")
_LEVEL = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def _location(issue: Issue) -> dict[str, Any]:
    uri = uri_path(issue.file) if issue.file is not None else None  # a name that is not UTF-8: its bytes, %XX
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
    if issue.line is not None:
        region: dict[str, Any] = {"startLine": issue.line}
        if issue.column is not None:
            region["startColumn"] = issue.column
        if issue.end_line is not None and issue.end_line >= issue.line:
            region["endLine"] = issue.end_line
            if issue.end_column is not None and (issue.end_line > issue.line or issue.end_column > (issue.column or 0)):
                region["endColumn"] = issue.end_column
        physical["region"] = region
    return {"physicalLocation": physical}


def _fixes(issue: Issue) -> list[dict[str, Any]]:
    """The tool's safe and unsafe fixes as SARIF fix objects (display-only ones are not fixes one may apply);
    columns in the issue's own unit, as its region's. A fix with an edit outside the root is left out."""
    out: list[dict[str, Any]] = []
    for fix in issue.fixes:
        if fix.applicability == "display" or any(edit.file.startswith("/") for edit in fix.edits):
            continue
        by_file: dict[str, list[dict[str, Any]]] = {}
        for edit in fix.edits:
            region = {
                "startLine": edit.line,
                "startColumn": edit.column,
                "endLine": edit.end_line,
                "endColumn": edit.end_column,
            }
            by_file.setdefault(edit.file, []).append(
                {"deletedRegion": region, "insertedContent": {"text": edit.new_text}}
            )
        changes = [
            {"artifactLocation": {"uri": uri_path(file), "uriBaseId": "%SRCROOT%"}, "replacements": replacements}
            for file, replacements in by_file.items()
        ]
        out.append(
            {
                "description": {"text": fix.title},
                "artifactChanges": changes,
                "properties": {"applicability": fix.applicability},
            }
        )
    return out


def _rule(rule: str, issues: Sequence[Issue]) -> dict[str, Any]:
    """A rule of the run, with the page documenting it where a finding of it names one."""
    entry: dict[str, Any] = {"id": rule, "name": rule}
    url = next((i.url for i in issues if i.url is not None and _rule_id(i) == rule), None)
    if url is not None:
        entry["helpUri"] = url
    return entry


def _rule_id(issue: Issue) -> str:
    return issue.rule or f"{issue.source}/{issue.kind}"


def _result(issue: Issue, rule_index: int, project: ProjectEntry | None) -> dict[str, Any]:
    properties: dict[str, Any] = {"kind": issue.kind, "signature": issue.signature}
    if project is not None:
        properties["project"] = project.root
    if issue.hint is not None:  # the message text ends with it; this says where the message stops
        properties["hint"] = issue.hint
    if issue.severity == "hint":  # "note" stands for info and hint alike
        properties["severity"] = issue.severity
    if issue.url is not None:  # also the rule's helpUri, which viewers show
        properties["url"] = issue.url
    if any(fix.applicability == "display" for fix in issue.fixes):
        # SARIF's fixes are for applying: a display-only one is kept here, with the others in their order.
        properties["fixes"] = [fix.to_json() for fix in issue.fixes]
    result: dict[str, Any] = {
        "ruleId": _rule_id(issue),
        "ruleIndex": rule_index,
        "level": _LEVEL[issue.severity],
        "message": {"text": issue.message if issue.hint is None else f"{issue.message}\n{issue.hint}"},
        "partialFingerprints": {SARIF_FINGERPRINT_KEY: issue.fingerprint},
        "properties": properties,
    }
    fixes = _fixes(issue)
    if fixes:
        result["fixes"] = fixes
    if issue.file is not None and not issue.file.startswith("/"):
        result["locations"] = [_location(issue)]
    elif issue.file is not None:  # outside the root: no location code scanning could show, but the place is known
        properties.update({k: v for k, v in issue.to_json().items() if k in _PLACE})
    return result


def _invocation(run: RunResult, report: CheckReport, project: ProjectEntry | None) -> dict[str, Any]:
    wire = run.run_json(report.root)
    properties = {key: wire[key] for key in ("language", "check", "status", "cwd", "timedOut", "durationMs")}
    if project is not None:
        properties["project"] = project.root
    invocation: dict[str, Any] = {
        "executionSuccessful": run.status != "not_checked",
        "arguments": run.argv,
        "properties": properties,
    }
    if run.exit_code is not None:
        invocation["exitCode"] = run.exit_code
    if run.status == "not_checked" and run.reason:
        invocation["toolExecutionNotifications"] = [{"level": "error", "message": {"text": run.reason}}]
    elif run.status == "not_configured" and run.reason:
        # Nothing ran and nothing failed: executionSuccessful stays true, the reason is a note.
        invocation["toolExecutionNotifications"] = [{"level": "note", "message": {"text": run.reason}}]
    if run.coverage is not None:
        # Coverage is a measurement, not a finding: the totals as a note a viewer shows, the per-file figures in
        # the property bag (lintel check --only coverage).
        properties["coverage"] = run.coverage
        totals = run.coverage.get("totals", {})
        note = f"coverage {totals.get('percent', 0):.2f}% of {totals.get('statements', 0)} statements"
        invocation.setdefault("toolExecutionNotifications", []).append({"level": "note", "message": {"text": note}})
    return invocation


def render_sarif(report: CheckReport) -> str:
    by_tool: dict[str, list[Issue]] = {}
    for run in report.runs:
        by_tool.setdefault(run.tool, [])
    for issue in report.issues:
        by_tool.setdefault(issue.source, []).append(issue)
    owner = {id(item): group.project for group in report.groups() for item in (*group.issues, *group.runs)}
    runs: list[dict[str, Any]] = []
    for tool, issues in by_tool.items():
        rule_ids = sorted({_rule_id(i) for i in issues})
        index = {rule: n for n, rule in enumerate(rule_ids)}
        invocations = [_invocation(r, report, owner[id(r)]) for r in report.runs if r.tool == tool]
        sarif_run: dict[str, Any] = {
            "tool": {
                "driver": {
                    "name": tool,
                    "informationUri": "https://pypi.org/project/lintel-lsp/",
                    "rules": [_rule(rule, issues) for rule in rule_ids],
                    "properties": {"reportedBy": f"lintel {__version__}"},
                }
            },
            "originalUriBaseIds": {"%SRCROOT%": {"uri": report.root.as_uri() + "/"}},
            "results": [_result(i, index[_rule_id(i)], owner[id(i)]) for i in issues],
        }
        if invocations:
            sarif_run["invocations"] = invocations
        runs.append(sarif_run)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": runs,
        "properties": {
            LINTEL_PROPERTIES: {"root": str(report.root), "projects": [p.to_json() for p in report.projects]}
        },
    }
    return json_text(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"
