"""One document's text with its safe fixes applied, as the tool's own fix mode leaves it (docs/fixes.md, In the editor).

The editor's fix-all and the agents' `lintel.fixAll` of one open file come here. Where the file's linter fixes text
from stdin (`ruff check --fix --stdin-filename`, `eslint --fix-dry-run --stdin`), its answer is the result: byte
for byte what the tool's own `--fix` writes. Otherwise the fixes the tool gave with its findings are applied
(lintel.core.fixes.fix_all), one round.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from lintel.core.fixes import chosen_fix, fix_all
from lintel.core.issues import Issue
from lintel.engine.checks import plan_spec, run_planned, timeout_for, unused_tool
from lintel.engine.config import LintelConfig
from lintel.languages import Project
from lintel.languages.base import FILE_PLACEHOLDER, FixMode, ToolSpec
from lintel.languages.sources import unit_for

log = logging.getLogger(__name__)


async def fixed_document_text(
    project: Project,
    file: Path,
    text: str,
    *,
    workspace: Path,
    config: LintelConfig,
    issues: Sequence[Issue],
    unsafe: bool = False,
) -> str | None:
    """`text` (the content of `file`) with the safe fixes (and unsafe ones, with `unsafe`) applied; None when the
    linter could not fix it (it failed, or timed out: the document is left as it is, and the log says why)."""
    spec = stdin_lint_spec(project, file, workspace, config)
    mode = spec.fix_mode if spec is not None else None
    if spec is not None and mode is not None and mode.stdin_argv:
        return await _tool_fixed(project, spec, mode, file, text, workspace, config, unsafe)
    fixed, _ = issues_fixed(text, _issue_name(file, workspace), issues, unsafe=unsafe)
    return fixed


def issues_fixed(text: str, rel: str, issues: Sequence[Issue], *, unsafe: bool) -> tuple[str, int]:
    """`text` (the file `rel`, as issues name it) with the fixes its `issues` carry applied, one round
    (lintel.core.fixes.fix_all), and how many were applied."""
    chosen = [(issue, chosen_fix(issue.fixes, unsafe=unsafe)) for issue in issues if issue.file == rel]
    fixable = [(issue, fix) for issue, fix in chosen if fix is not None]
    if not fixable:
        return text, 0
    # Fixes counted in different units cannot be placed together: the first tool's now, the others next time.
    unit = unit_for(fixable[0][0].source)
    return fix_all(text, rel, [fix for issue, fix in fixable if unit_for(issue.source) == unit], unit)


def stdin_lint_spec(project: Project, file: Path, workspace: Path, config: LintelConfig) -> ToolSpec | None:
    """The file's lint tool as the editor's lint on change runs it (from stdin), when it is the language's own."""
    if "lint" not in project.spec.checks or config.languages.get(project.language).argv_for("lint"):
        return None  # the user's own lint command: lintel does not know its fix mode
    if project.problem is not None or unused_tool(project, "lint"):
        return None
    try:
        scope = project.spec.file_scope(project, "lint", file, True)
        if scope.stdin:
            return scope.spec
        # A run that cannot take the one file (a package.json `lint` script runs whole) may still have a tool that
        # fixes one text from stdin (the script's eslint): the document's fix is that tool's.
        whole = project.spec.tool_for(project, "lint")
    except (ValueError, OSError):
        return None
    return whole if whole.fix_mode is not None and whole.fix_mode.stdin_argv else None


async def _tool_fixed(
    project: Project,
    spec: ToolSpec,
    mode: FixMode,
    file: Path,
    text: str,
    workspace: Path,
    config: LintelConfig,
    unsafe: bool,
) -> str | None:
    name = _project_name(project, file)
    argv = tuple(name if part == FILE_PLACEHOLDER else part for part in mode.stdin_argv)
    if unsafe:
        argv = (*argv, *mode.stdin_unsafe_args)
    # The fix run reads as the lint run does (the same binary and environment), its stdout taken as it is.
    fix_spec = replace(spec, argv=argv, parser="custom", ok_codes=frozenset({0, 1}), finding_codes=frozenset())
    result = await run_planned(
        plan_spec(project, fix_spec, config, workspace),
        workspace=workspace,
        timeout=timeout_for("lint", config, None),
        stdin=text.encode("utf-8"),
    )
    if result.status == "not_checked" or result.exit_code not in (0, 1) or result.truncated:
        log.info("fix-all: %s could not fix %s (%s)", spec.tool, name, result.reason or f"exit {result.exit_code}")
        return None
    if mode.stdin_output == "text":
        return result.stdout
    return _eslint_output(result.stdout, text)


def _eslint_output(stdout: str, text: str) -> str | None:
    """The `output` of eslint's JSON report for the one file it read (absent: nothing to fix)."""
    try:
        report = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(report, list) or len(report) != 1 or not isinstance(report[0], dict):
        return None
    output = report[0].get("output", text)
    return output if isinstance(output, str) else None


def _project_name(project: Project, file: Path) -> str:
    try:
        return file.relative_to(project.root).as_posix()
    except ValueError:
        return str(file)


def _issue_name(file: Path, workspace: Path) -> str:
    try:
        return file.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return str(file)
