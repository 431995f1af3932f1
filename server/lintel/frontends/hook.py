"""`lintel hook post-edit`: an agent harness's post-edit hook. The harness's payload on stdin names the file just
written; lintel checks it as MCP `diagnostics` does (lint and format of that file) and answers by exit code.

Exit 2 with the findings on stderr (harnesses such as Claude Code feed that back to the model); exit 0 and no
output when the file is clean or not one lintel checks (a Markdown file, a file in no project, a read-only tool's
payload, a deleted file). Lintel's own trouble never blocks: a payload it cannot read is exit 1 with one line, and
a tool that is missing, could not start or timed out is no finding — a line on stderr, exit 0 (the harness shows
it to the user, not the model), or a `partial:` first line above the other tools' findings."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from lintel.core.budget import AGENT_MAX_ISSUES, Budget
from lintel.core.issues import Issue, Severity
from lintel.engine import actions
from lintel.engine.actions import ActionError, CommandArgs, FileDiagnostics
from lintel.engine.checks import RunResult
from lintel.engine.detect import nearest_project
from lintel.engine.discover import nearest_above
from lintel.frontends.mcp.workspace import Workspace
from lintel.frontends.report.text import issue_line, short_reason

EXIT_CLEAN = 0
EXIT_BAD_PAYLOAD = 1
EXIT_FINDINGS = 2
# Tools that only read: their payloads name a file too, yet nothing was written.
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch", "read_file"})


class BadPayload(Exception):
    """stdin holds neither a hook payload lintel understands nor a path."""


@dataclass(frozen=True)
class Edited:
    """The file the payload names (absolute) and the folder the harness ran in."""

    file: Path
    cwd: Path


def edited_file(text: str, cwd: Path) -> Edited | None:
    """The file a payload names: a JSON object's `tool_input.file_path` (or `path`), or a bare path line. None: a
    payload of a tool that wrote no file."""
    stripped = text.strip()
    if not stripped:
        raise BadPayload("no hook payload on stdin (expected the harness's JSON or a path)")
    if not stripped.startswith(("{", "[")):
        return Edited(_absolute(stripped.splitlines()[0].strip(), cwd), cwd)
    try:
        payload = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise BadPayload(f"the hook payload is not JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(payload, dict):
        raise BadPayload("the hook payload is not a JSON object")
    if isinstance(payload.get("cwd"), str) and payload["cwd"]:
        cwd = _absolute(payload["cwd"], cwd)
    if payload.get("tool_name") in READ_ONLY_TOOLS:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    named = next((v for k in ("file_path", "path") if isinstance(v := tool_input.get(k), str) and v), None)
    return Edited(_absolute(named, cwd), cwd) if named is not None else None


def _absolute(name: str, cwd: Path) -> Path:
    path = Path(name).expanduser()
    return path if path.is_absolute() else cwd / path


def workspace_roots(edited: Edited) -> list[Path]:
    """Where the workspace may be, first choice first: the harness's folder when the file is in it, the git
    repository holding the file, the file's nearest project root."""
    file = edited.file.resolve()
    cwd = edited.cwd.resolve()
    roots = [cwd] if cwd.is_dir() and file.is_relative_to(cwd) else []
    roots += [folder for folder in file.parents if (folder / ".git").exists()][:1]
    near = nearest_above(file)
    return [*roots, near[0].root.resolve()] if near else roots


def workspace_for(edited: Edited) -> Workspace | None:
    """The first of the workspace roots in which a project of lintel's languages owns the file (a harness run
    from a subfolder of the project still finds it); None when none does (a Markdown file, a file in no project)."""
    for root in dict.fromkeys(workspace_roots(edited)):
        workspace = Workspace(root)
        workspace.refresh()
        if nearest_project(edited.file, root, languages=workspace.languages) is not None:
            return workspace
    return None


async def check(edited: Edited, timeout: float | None) -> FileDiagnostics | None:
    """The file's lint and format runs, as MCP `diagnostics`; None when lintel does not check it."""
    if not edited.file.is_file():
        return None  # deleted or moved since: nothing to check
    workspace = workspace_for(edited)
    if workspace is None:
        return None
    return await actions.file_diagnostics(
        "hook", [workspace], CommandArgs(file=str(edited.file), timeout=timeout), trusted=True
    )


def _complete(run: RunResult) -> bool:
    return run.status != "not_checked" and not run.timed_out


def _counts(issues: Sequence[Issue]) -> str:
    by = Counter(i.severity for i in issues)
    return ", ".join(f"{by[s]} {s}{'' if by[s] == 1 else 's'}" for s in ("error", "warning", "info", "hint") if by[s])


def report(found: FileDiagnostics, budget: Budget) -> tuple[int, list[str]]:
    """The exit code and the stderr lines for a file's runs: findings of the runs that completed, within the
    budget; a run that did not complete is said, never counted as clean or as a finding."""
    incomplete = [f"{run.tool} {short_reason(run.reason)}" for run in found.runs if not _complete(run)]
    issues = [i for run in found.runs if _complete(run) for i in run.issues]
    selected = budget.issues(issues)
    if not selected.shown:
        lines = [f"lintel: {found.file}: not checked: {'; '.join(incomplete)}"] if incomplete else []
        return EXIT_CLEAN, lines
    tools = ", ".join(dict.fromkeys(run.tool for run in found.runs if _complete(run)))
    head = f"lintel: {found.file}: {_counts(issues)} ({tools})"
    lines = [f"partial: {'; '.join(incomplete)}"] if incomplete else []
    lines += [head, *(issue_line(i) for i in selected.shown)]
    more = budget.more(selected)
    return EXIT_FINDINGS, [*lines, *([more] if more else [])]


def post_edit(stdin: TextIO, stderr: TextIO, *, severity: Severity, max_issues: int, timeout: float | None) -> int:
    """The hook: read the payload, check the file, say what was found; the exit code."""
    try:
        edited = edited_file(stdin.read(), Path(os.getcwd()))
    except (BadPayload, UnicodeDecodeError, ValueError) as exc:
        print(f"lintel hook post-edit: {exc}", file=stderr)
        return EXIT_BAD_PAYLOAD
    if edited is None:
        return EXIT_CLEAN
    try:
        found = asyncio.run(check(edited, timeout))
    except ActionError as exc:  # a tool missing or unable to start: lintel's trouble, not the model's
        print(f"lintel: {edited.file}: not checked: {exc.message}", file=stderr)
        return EXIT_CLEAN
    if found is None:
        return EXIT_CLEAN
    code, lines = report(found, Budget(max_issues, severity))
    for line in lines:
        print(line, file=stderr)
    return code


def run(args: Any) -> int:
    """`lintel hook <event>` from the parsed arguments."""
    assert args.event == "post-edit"  # argparse allows no other
    return post_edit(
        sys.stdin,
        sys.stderr,
        severity=args.severity,
        max_issues=args.max_issues or AGENT_MAX_ISSUES,
        timeout=args.timeout,
    )


__all__ = ["BadPayload", "Edited", "edited_file", "post_edit", "report", "run", "workspace_for"]
