"""SARIF 2.1.0 for code-scanning platforms: one run per tool with its rules, workspace-relative locations,
and the edit-stable fingerprint as `partialFingerprints` (so alerts follow code that moves)."""

from __future__ import annotations

import json
from typing import Any

from lintel import __version__
from lintel.baseline import SARIF_FINGERPRINT_KEY
from lintel.issues import Issue
from lintel.report.model import CheckReport

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def _location(issue: Issue) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": issue.file, "uriBaseId": "%SRCROOT%"}}
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


def _rule_id(issue: Issue) -> str:
    return issue.rule or f"{issue.source}/{issue.kind}"


def _result(issue: Issue, rule_index: int) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": _rule_id(issue),
        "ruleIndex": rule_index,
        "level": _LEVEL[issue.severity],
        "message": {"text": issue.message if issue.hint is None else f"{issue.message}\n{issue.hint}"},
        "partialFingerprints": {SARIF_FINGERPRINT_KEY: issue.fingerprint},
        "properties": {"kind": issue.kind, "signature": issue.signature},
    }
    if issue.file is not None and not issue.file.startswith("/"):
        result["locations"] = [_location(issue)]
    return result


def render_sarif(report: CheckReport) -> str:
    by_tool: dict[str, list[Issue]] = {}
    for run in report.runs:
        by_tool.setdefault(run.tool, [])
    for issue in report.issues:
        by_tool.setdefault(issue.source, []).append(issue)
    runs: list[dict[str, Any]] = []
    for tool, issues in by_tool.items():
        rule_ids = sorted({_rule_id(i) for i in issues})
        index = {rule: n for n, rule in enumerate(rule_ids)}
        tool_runs = [r for r in report.runs if r.tool == tool]
        invocations = [
            {
                "executionSuccessful": r.status != "not_checked",
                **({"exitCode": r.exit_code} if r.exit_code is not None else {}),
                **(
                    {"toolExecutionNotifications": [{"level": "error", "message": {"text": r.reason}}]}
                    if r.status == "not_checked" and r.reason
                    else {}
                ),
            }
            for r in tool_runs
        ]
        sarif_run: dict[str, Any] = {
            "tool": {
                "driver": {
                    "name": tool,
                    "informationUri": "https://pypi.org/project/lintel-lsp/",
                    "rules": [{"id": rule, "name": rule} for rule in rule_ids],
                    "properties": {"reportedBy": f"lintel {__version__}"},
                }
            },
            "originalUriBaseIds": {"%SRCROOT%": {"uri": report.root.as_uri() + "/"}},
            "results": [_result(i, index[_rule_id(i)]) for i in issues],
        }
        if invocations:
            sarif_run["invocations"] = invocations
        runs.append(sarif_run)
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": runs}, indent=2, ensure_ascii=False) + "\n"
