"""`check --format text`: one line per issue, `file:line:col: severity rule message [tool]`, then a summary; with
several project roots, the lines under a `== root (language): counts ==` header per project."""

from __future__ import annotations

import re

from lintel.core.issues import Issue
from lintel.engine.checks import RunResult
from lintel.frontends.report.model import CheckReport, ProjectGroup

_WS = re.compile(r"\s+")
# Rule lines and banners around tools' messages (pytest's `=====`, `!!!!! Interrupted … !!!!!`).
_DECORATION = re.compile(r"^[=!*#~_-]+\s*|\s*[=!*#~_-]+$")
SHORT_REASON_CHARS = 300


def issue_line(issue: Issue) -> str:
    location = issue.file or "."
    if issue.line is not None:
        location += f":{issue.line}"
        if issue.column is not None:
            location += f":{issue.column}"
    rule = f" {issue.rule}" if issue.rule else ""
    message = _WS.sub(" ", issue.message).strip()
    return f"{location}: {issue.severity}{rule} {message} [{issue.source}]"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def short_reason(reason: str | None) -> str:
    """A not-checked run's reason on one line: its first line (what failed, how it exited) and, from a tool's
    output quoted after it (a traceback), the last line, where tools put the error that stopped them. The whole
    reason and output stay in `--format json`."""
    lines = [line for raw in (reason or "").splitlines() if (line := _DECORATION.sub("", raw.strip()))]
    if not lines:
        return "no reason given"
    text = lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}"
    text = _WS.sub(" ", text)
    if len(text) > SHORT_REASON_CHARS:
        text = text[: SHORT_REASON_CHARS - 2].rsplit(" ", 1)[0] + " …"
    shortened = len(lines) > 1 or text.endswith(" …")
    return f"{text} (whole: --format json)" if shortened else text


def _run_lines(runs: list[RunResult]) -> list[str]:
    lines = [f"not checked: {_what(r)}: {short_reason(r.reason)}" for r in runs if r.status == "not_checked"]
    # A check whose tool the project does not use: said once, counted neither as run nor as not checked.
    lines.extend(f"not configured: {_what(r)}: {short_reason(r.reason)}" for r in runs if r.status == "not_configured")
    # A success whose findings, if any, lintel could not read.
    lines.extend(f"passed (output not parsed): {r.language} {r.check}: {r.tool}" for r in runs if r.status == "passed")
    lines.extend(coverage_line(r) for r in runs if r.coverage is not None)
    return lines


def _what(run: RunResult) -> str:
    """`python lint`; a run of no language (a validator, discovery) by its check alone."""
    return f"{run.language} {run.check}" if run.language is not None else run.check


def coverage_line(run: RunResult) -> str:
    """A coverage run's totals (lintel check --only coverage); the per-file figures are in json and sarif."""
    coverage = run.coverage or {}
    totals = coverage.get("totals", {})
    return (
        f"coverage: {run.language} {run.cwd.name or run.cwd}: {totals.get('percent', 0):.2f}% of "
        f"{totals.get('statements', 0)} statements covered ({totals.get('covered', 0)}), "
        f"{len(coverage.get('files', []))} files [{coverage.get('tool', run.tool)}]"
    )


def _header(group: ProjectGroup) -> str:
    if group.project is None:
        return "== other =="
    summary = group.summary()
    counts = f"{_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}"
    if summary["infos"]:
        counts += f", {_plural(summary['infos'], 'info')}"
    if summary["notChecked"]:
        counts += f"; {summary['notChecked']} not checked"
    return f"== {group.project.root} ({group.project.language}): {counts} =="


def _grouped_lines(report: CheckReport) -> list[str]:
    lines: list[str] = []
    for group in report.groups():
        lines.append(_header(group))
        lines.extend(issue_line(i) for i in group.issues if i.kind != "timeout")
        lines.extend(_run_lines(group.runs))
    return lines


def render_text(report: CheckReport) -> str:
    # A timeout is told by its run's "not checked" line, like every check that did not run; it is not an error
    # the summary would then fail to count.
    if report.grouped:
        lines = _grouped_lines(report)
    else:
        lines = [issue_line(i) for i in report.counted()]
        lines.extend(_run_lines(report.runs))
    summary = report.summary()
    ran = len([r for r in report.runs if r.status != "not_configured"]) - summary["notChecked"]
    lines.append(
        f"lintel: {_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}, "
        f"{_plural(summary['infos'], 'info')} from {_plural(ran, 'check')}"
        + (f"; {summary['notChecked']} not checked" if summary["notChecked"] else "")
    )
    return "\n".join(lines) + "\n"
