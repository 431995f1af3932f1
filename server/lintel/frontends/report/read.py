"""Reading a report back: a lintel JSON report (`check --format json`) or a SARIF log lintel wrote, into the
CheckReport it was rendered from (`lintel merge`). Signatures and fingerprints are kept as recorded, never
recomputed: the files they were computed from may be on another machine."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast, get_args
from urllib.parse import unquote, urlparse

from lintel.core.fixes import Edit, Fix, make_fix
from lintel.core.issues import Issue, IssueKind, Severity
from lintel.engine.baseline import SARIF_FINGERPRINT_KEY
from lintel.engine.checks import RunResult, Status
from lintel.frontends.report.model import CheckReport, ProjectEntry
from lintel.frontends.report.sarif import LINTEL_PROPERTIES

InputFormat = Literal["json", "sarif"]
JSON_VERSION = 1
SARIF_VERSION = "2.1.0"
_SEVERITY_OF_LEVEL: Mapping[str, Severity] = {"error": "error", "warning": "warning", "note": "info", "none": "info"}


class ReportError(ValueError):
    """The file is not a report lintel can read back; the message names the file and says why, in one line."""


def read_report(path: Path) -> tuple[CheckReport, InputFormat]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot be read ({exc})") from exc
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ReportError(f"{path}: not JSON ({exc})") from exc
    try:
        return parse_report(document)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from exc
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReportError(f"{path}: a malformed lintel report ({type(exc).__name__}: {exc})") from exc


def parse_report(document: Any) -> tuple[CheckReport, InputFormat]:
    """The report a parsed JSON document holds, and which kind of document it was."""
    if not isinstance(document, dict):
        raise ReportError("not a lintel JSON report or SARIF log (expected a JSON object)")
    if "$schema" in document or isinstance(document.get("version"), str):
        if document.get("version") != SARIF_VERSION:
            raise ReportError(f"unsupported SARIF version {document.get('version')!r} (lintel writes {SARIF_VERSION})")
        return _from_sarif(document), "sarif"
    if isinstance(document.get("issues"), list) and "root" in document:
        if document.get("version") != JSON_VERSION:
            raise ReportError(f"unsupported lintel report version {document.get('version')!r} (expected 1)")
        return _from_json(document), "json"
    raise ReportError("not a lintel JSON report or SARIF log")


def _cwd(root: Path, cwd: Any) -> Path:
    return root / str(cwd) if cwd is not None else root


def _status(value: Any, fallback: Status) -> Status:
    return cast(Status, value) if value in get_args(Status) else fallback


def _project(data: Mapping[str, Any]) -> ProjectEntry:
    workspace = data.get("workspace")
    return ProjectEntry(
        language=str(data["language"]),
        root=str(data["root"]),
        markers=tuple(str(m) for m in data.get("markers") or ()),
        workspace=None if workspace is None else str(workspace),
    )


def _from_json(document: Mapping[str, Any]) -> CheckReport:
    root = Path(str(document["root"]))
    runs = [
        RunResult(
            language=run.get("language"),
            check=str(run["check"]),
            tool=str(run["tool"]),
            argv=[str(a) for a in run.get("argv") or []],
            cwd=_cwd(root, run.get("cwd")),
            status=_status(run.get("status"), "not_checked"),
            reason=run.get("reason"),
            exit_code=run.get("exitCode"),
            timed_out=bool(run.get("timedOut")),
            duration_ms=int(run.get("durationMs") or 0),
        )
        for run in document.get("runs") or []
    ]
    return CheckReport(
        root=root,
        projects=[_project(p) for p in document.get("projects") or []],
        runs=runs,
        issues=[Issue.from_json(i) for i in document["issues"]],
    )


def _sarif_root(document: Mapping[str, Any]) -> Path:
    recorded = (document.get("properties") or {}).get(LINTEL_PROPERTIES) or {}
    if isinstance(recorded.get("root"), str):
        return Path(recorded["root"])
    for run in document.get("runs") or []:
        uri = ((run.get("originalUriBaseIds") or {}).get("%SRCROOT%") or {}).get("uri")
        if isinstance(uri, str) and uri.startswith("file:"):
            return Path(unquote(urlparse(uri).path).rstrip("/") or "/")
    raise ReportError("not a SARIF log written by lintel (no root)")


def _from_sarif(document: Mapping[str, Any]) -> CheckReport:
    root = _sarif_root(document)
    runs: list[RunResult] = []
    issues: list[Issue] = []
    for sarif_run in document["runs"]:
        driver = sarif_run["tool"]["driver"]
        if not str((driver.get("properties") or {}).get("reportedBy", "")).startswith("lintel"):
            raise ReportError(f"not a SARIF log written by lintel (the run of {driver.get('name')!r})")
        tool = str(driver["name"])
        results = sarif_run.get("results") or []
        issues.extend(_sarif_issue(result, tool) for result in results)
        runs.extend(_sarif_invocation(inv, tool, root, bool(results)) for inv in sarif_run.get("invocations") or [])
    recorded = (document.get("properties") or {}).get(LINTEL_PROPERTIES) or {}
    return CheckReport(
        root=root, projects=[_project(p) for p in recorded.get("projects") or []], runs=runs, issues=issues
    )


def _sarif_invocation(invocation: Mapping[str, Any], tool: str, root: Path, found: bool) -> RunResult:
    properties = invocation.get("properties") or {}
    notes = invocation.get("toolExecutionNotifications") or []
    ran = bool(invocation.get("executionSuccessful"))
    # A log from a lintel without these properties still says whether the tool ran and whether it found anything.
    fallback: Status = "not_checked" if not ran else ("findings" if found else "clean")
    return RunResult(
        language=properties.get("language"),
        check=str(properties.get("check", "unknown")),
        tool=tool,
        argv=[str(a) for a in invocation.get("arguments") or []],
        cwd=_cwd(root, properties.get("cwd")),
        status=_status(properties.get("status"), fallback),
        reason=str(notes[0]["message"]["text"]) if notes else None,
        exit_code=invocation.get("exitCode"),
        timed_out=bool(properties.get("timedOut")),
        duration_ms=int(properties.get("durationMs") or 0),
    )


def _sarif_issue(result: Mapping[str, Any], tool: str) -> Issue:
    properties = result.get("properties") or {}
    fingerprint = (result.get("partialFingerprints") or {}).get(SARIF_FINGERPRINT_KEY)
    if not isinstance(properties.get("signature"), str) or not isinstance(fingerprint, str):
        raise ReportError(f"not a SARIF log written by lintel (a result of {tool!r} has no lintel signature)")
    kind = properties.get("kind")
    kind = cast(IssueKind, kind) if kind in get_args(IssueKind) else "custom"
    severity = properties.get("severity")
    if severity not in get_args(Severity):
        severity = _SEVERITY_OF_LEVEL.get(str(result.get("level", "warning")), "warning")
    hint = properties.get("hint")
    text = str((result.get("message") or {}).get("text", ""))
    message = text[: -len(hint) - 1] if isinstance(hint, str) and text.endswith(f"\n{hint}") else text
    rule = result.get("ruleId")
    return Issue(
        kind=kind,
        signature=properties["signature"],
        fingerprint=fingerprint,
        message=message,
        severity=cast(Severity, severity),
        source=tool,
        rule=None if rule in (None, f"{tool}/{kind}") else str(rule),
        hint=hint if isinstance(hint, str) else None,
        fixes=_issue_fixes(properties["fixes"]) if "fixes" in properties else _sarif_fixes(result.get("fixes")),
        url=properties["url"] if isinstance(properties.get("url"), str) else None,
        **_sarif_place(result, properties),
    )


def _issue_fixes(value: Any) -> tuple[Fix, ...]:
    """Fixes as the JSON report writes them (kept in a SARIF result's properties when one is display-only)."""
    return Issue.from_json({"fixes": value}).fixes


def _sarif_fixes(value: Any) -> tuple[Fix, ...]:
    """The fixes lintel wrote into a result (report.sarif); one it cannot read back whole is left out."""
    fixes: list[Fix] = []
    for item in value if isinstance(value, list) else []:
        try:
            applicability = item.get("properties", {}).get("applicability", "safe")
            edits = [
                Edit.from_json(
                    {
                        "file": change["artifactLocation"]["uri"],
                        "line": replacement["deletedRegion"]["startLine"],
                        "column": replacement["deletedRegion"]["startColumn"],
                        "endLine": replacement["deletedRegion"]["endLine"],
                        "endColumn": replacement["deletedRegion"]["endColumn"],
                        "newText": replacement["insertedContent"]["text"],
                    }
                )
                for change in item["artifactChanges"]
                for replacement in change["replacements"]
            ]
        except (AttributeError, KeyError, TypeError):
            continue
        if applicability in ("safe", "unsafe") and edits and all(edits):
            fix = make_fix(str(item.get("description", {}).get("text", "")), applicability, filter(None, edits))
            fixes += [fix] if fix is not None else []
    return tuple(fixes)


def _sarif_place(result: Mapping[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    locations = result.get("locations") or []
    if not locations:  # a file outside the root: its place is in the properties (report.sarif)
        keys = {"file": "file", "line": "line", "column": "column", "end_line": "endLine", "end_column": "endColumn"}
        return {field: properties.get(key) for field, key in keys.items()}
    physical = locations[0].get("physicalLocation") or {}
    region = physical.get("region") or {}
    uri = (physical.get("artifactLocation") or {}).get("uri")
    return {
        "file": None if uri is None else str(uri),  # written as the issue's file, unescaped (report.sarif)
        "line": region.get("startLine"),
        "column": region.get("startColumn"),
        "end_line": region.get("endLine"),
        "end_column": region.get("endColumn"),
    }
