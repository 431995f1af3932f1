"""SARIF 2.1.0 for code-scanning platforms: one run per tool with its rules, workspace-relative locations,
and the edit-stable fingerprint as `partialFingerprints` (so alerts follow code that moves). Within code
scanning's limits (lintel.frontends.report.limits): results most severe first, what a limit left out counted in
the run's property bag (a whole run, in the log's lintel bag) and told on stderr.

Property bags carry what SARIF has no field for, so `lintel merge` can read a log back into a report
(lintel.frontends.report.read): each result's kind, signature and project, each invocation's check and status, the log's
root and projects."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lintel import __version__
from lintel.core.fsnames import json_text, uri_path
from lintel.core.issues import SEVERITY_RANK, Issue
from lintel.engine.baseline import SARIF_FINGERPRINT_KEY
from lintel.engine.checks import RunResult
from lintel.frontends.report.limits import (
    SARIF_GZIP_LEVEL,
    SARIF_RESULTS_PER_RUN,
    SARIF_RUNS_PER_LOG,
    by_level,
    counted,
)
from lintel.frontends.report.model import CheckReport, ProjectEntry

# The key of the log's property bag that holds the report's root and projects.
LINTEL_PROPERTIES = "lintel"
# The key, in a run's property bag (and in the log's lintel bag, for whole runs), that counts what was left out.
LEFT_OUT = "leftOut"
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


def _rules(rule_ids: list[str], issues: Sequence[Issue]) -> list[dict[str, Any]]:
    """The rules of the run, each with the page documenting it where a finding of it names one (the first)."""
    urls: dict[str, str] = {}
    for issue in issues:
        if issue.url is not None:
            urls.setdefault(_rule_id(issue), issue.url)
    entries: list[dict[str, Any]] = []
    for rule in rule_ids:
        entry: dict[str, Any] = {"id": rule, "name": rule}
        if rule in urls:
            entry["helpUri"] = urls[rule]
        entries.append(entry)
    return entries


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


@dataclass(frozen=True)
class SarifLog:
    """A rendered log and, one line each, what GitHub's limits made it leave out (for stderr)."""

    text: str
    notes: tuple[str, ...] = ()


@dataclass
class _Run:
    tool: str
    issues: list[Issue]  # most severe first
    left_out: list[Issue] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def _level(issue: Issue) -> str:
    return _LEVEL[issue.severity]


def _weight(run: _Run) -> tuple[int, ...]:
    """Runs compare by their count of errors, then warnings, infos, hints: the most severe run first."""
    return tuple(sum(1 for i in run.issues if i.severity == s) for s in ("error", "warning", "info", "hint"))


def _plan(report: CheckReport) -> tuple[list[_Run], list[_Run]]:
    """One run per tool, results most severe first (code scanning shows the first thousands and cuts by
    severity), each within the results a run may hold; and the runs a log may not hold, the least severe."""
    by_tool: dict[str, list[Issue]] = {}
    for run in report.runs:
        by_tool.setdefault(run.tool, [])
    for issue in report.issues:
        by_tool.setdefault(issue.source, []).append(issue)
    runs: list[_Run] = []
    for tool, issues in by_tool.items():
        ordered = sorted(issues, key=lambda i: -SEVERITY_RANK[i.severity])
        planned = _Run(tool, ordered[:SARIF_RESULTS_PER_RUN], ordered[SARIF_RESULTS_PER_RUN:])
        if planned.left_out:
            planned.reasons.append(f"GitHub accepts {SARIF_RESULTS_PER_RUN:,} results per run")
        runs.append(planned)
    if len(runs) <= SARIF_RUNS_PER_LOG:
        return runs, []
    kept = {id(r) for r in sorted(runs, key=_weight, reverse=True)[:SARIF_RUNS_PER_LOG]}
    return [r for r in runs if id(r) in kept], [r for r in runs if id(r) not in kept]


def _document(report: CheckReport, runs: list[_Run], dropped: list[_Run]) -> dict[str, Any]:
    owner = {id(item): group.project for group in report.groups() for item in (*group.issues, *group.runs)}
    sarif_runs: list[dict[str, Any]] = []
    for planned in runs:
        tool, issues = planned.tool, planned.issues
        rule_ids = sorted({_rule_id(i) for i in issues})
        index = {rule: n for n, rule in enumerate(rule_ids)}
        invocations = [_invocation(r, report, owner[id(r)]) for r in report.runs if r.tool == tool]
        sarif_run: dict[str, Any] = {
            "tool": {
                "driver": {
                    "name": tool,
                    "informationUri": "https://pypi.org/project/lintel-lsp/",
                    "rules": _rules(rule_ids, issues),
                    "properties": {"reportedBy": f"lintel {__version__}"},
                }
            },
            "originalUriBaseIds": {"%SRCROOT%": {"uri": report.root.as_uri() + "/"}},
            "results": [_result(i, index[_rule_id(i)], owner[id(i)]) for i in issues],
        }
        if invocations:
            sarif_run["invocations"] = invocations
        if planned.left_out:
            sarif_run["properties"] = {LEFT_OUT: _left_out(planned.left_out, planned.reasons)}
        sarif_runs.append(sarif_run)
    recorded: dict[str, Any] = {"root": str(report.root), "projects": [p.to_json() for p in report.projects]}
    if dropped:
        left = [i for r in dropped for i in r.issues]
        recorded[LEFT_OUT] = {
            **_left_out(left, [f"GitHub accepts {SARIF_RUNS_PER_LOG} runs per log"]),
            "tools": [r.tool for r in dropped],
        }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": sarif_runs, "properties": {LINTEL_PROPERTIES: recorded}}


def _left_out(issues: list[Issue], reasons: list[str]) -> dict[str, Any]:
    return {"results": len(issues), "byLevel": by_level(_level(i) for i in issues), "why": reasons}


def _text(document: dict[str, Any]) -> str:
    return json_text(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def _gzipped_size(text: str) -> int:
    return len(gzip.compress(text.encode("utf-8", "surrogateescape"), compresslevel=SARIF_GZIP_LEVEL, mtime=0))


def _shed(runs: list[_Run], keep: int, reason: str) -> None:
    """Keeps the `keep` most severe results of the log, leaving out the rest (of equal severity, later runs'
    and later results first)."""
    ranked = sorted(
        ((n, k, i) for n, r in enumerate(runs) for k, i in enumerate(r.issues)),
        key=lambda t: -SEVERITY_RANK[t[2].severity],
    )
    kept = {(n, k) for n, k, _ in ranked[:keep]}
    for n, planned in enumerate(runs):
        shed = [i for k, i in enumerate(planned.issues) if (n, k) not in kept]
        if shed:
            planned.issues = [i for k, i in enumerate(planned.issues) if (n, k) in kept]
            planned.left_out = [*shed, *planned.left_out]
            planned.reasons.append(reason)


def sarif_log(report: CheckReport, max_gzip_bytes: int | None = None) -> SarifLog:
    """The log within code scanning's limits on runs and results; with `max_gzip_bytes` (a file to upload),
    least severe results also left out until the gzipped log is no bigger."""
    runs, dropped = _plan(report)
    text = _text(_document(report, runs, dropped))
    if max_gzip_bytes is not None:
        size = _gzipped_size(text)
        reason = f"the gzipped log must stay under {max_gzip_bytes:,} bytes"
        while size > max_gzip_bytes and (total := sum(len(r.issues) for r in runs)):
            # Sizes scale about with the result count; aim a little under, and always shed at least one.
            _shed(runs, min(total - 1, int(total * max_gzip_bytes / size * 0.97)), reason)
            text = _text(_document(report, runs, dropped))
            size = _gzipped_size(text)
        if size > max_gzip_bytes:  # the runs' invocations alone are too big: nothing more to leave out
            over = f"sarif: still {size:,} bytes gzipped with every result left out, over {max_gzip_bytes:,}"
            return SarifLog(text, (*_notes(runs, dropped), over))
    return SarifLog(text, _notes(runs, dropped))


def _notes(runs: list[_Run], dropped: list[_Run]) -> tuple[str, ...]:
    notes = [
        f"sarif: {r.tool}: {len(r.left_out):,} of {len(r.issues) + len(r.left_out):,} results left out, the least "
        f"severe ({counted(by_level(_level(i) for i in r.left_out))}): {'; '.join(dict.fromkeys(r.reasons))}"
        for r in runs
        if r.left_out
    ]
    if dropped:
        left = [i for r in dropped for i in r.issues]
        notes.append(
            f"sarif: {len(dropped)} tools left out, those with the least severe findings (GitHub accepts "
            f"{SARIF_RUNS_PER_LOG} runs per log): {', '.join(r.tool for r in dropped)}"
            + (f" ({counted(by_level(_level(i) for i in left))})" if left else "")
        )
    return tuple(notes)


def render_sarif(report: CheckReport) -> str:
    return sarif_log(report).text
