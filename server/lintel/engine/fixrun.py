"""Fix what the linters found, for `lintel check --fix`, the MCP tool `apply_fixes` and the command `lintel.fixAll`
(docs/fixes.md, `lintel check --fix`): the one engine function every front end calls.

Writing, a project checked whole runs its lint tool's own fix mode (`ruff check --fix`, …) where the tool has one,
with the check's cwd, targets, environment and timeout; a narrower scope (a file, a folder, some rules) and
`dry_run` work file by file: the tool's stdin fix mode where it has one, else the fixes the findings carry
(lintel.engine.fixdoc). Every file lintel itself reads or writes is resolved, symlinks too, and must be inside the
workspace. Then the scope is checked again and what is left is reported.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lintel.core.fixes import chosen_fix, unified_diff
from lintel.core.issues import Issue
from lintel.engine.checks import (
    RunResult,
    dedupe_issues,
    plan_spec,
    run_file_check,
    run_pairs,
    run_planned,
    sort_issues,
    timeout_for,
    unused_tool,
)
from lintel.engine.config import LintelConfig
from lintel.engine.fixdoc import fixed_document_text, issues_fixed, stdin_lint_spec
from lintel.languages import CheckName, Project

log = logging.getLogger(__name__)

OnBegin = Callable[[Project, CheckName], None]
OnDone = Callable[[RunResult], None]


@dataclass(frozen=True)
class FixScope:
    """What to fix: the projects' lint findings, only in files at or under `paths` (absolute; none: all of
    them) and only of `rules` (none: every rule)."""

    projects: Sequence[Project]
    paths: Sequence[Path] = ()
    rules: Collection[str] = ()
    unsafe: bool = False
    dry_run: bool = False


@dataclass
class FixedFile:
    """One file's text before and after; `fixes`: how many findings the change fixed."""

    file: str  # relative to the workspace, with `/`, as issues name it
    old: str
    new: str
    fixes: int = 0

    @property
    def diff(self) -> str:
        return unified_diff(self.file, self.old, self.new)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "diff": self.diff, "fixes": self.fixes}


@dataclass
class FixOutcome:
    """What a fix run did (or, with dry_run, would do) and what is left in its scope."""

    files: list[FixedFile]
    remaining: list[Issue]
    dry_run: bool
    runs: list[RunResult] = field(default_factory=list)  # the lint runs that found what is left
    problems: list[str] = field(default_factory=list)  # a tool that could not run or fix, said once each

    @property
    def applied(self) -> int:
        return sum(f.fixes for f in self.files)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "applied": self.applied,
            "files": [f.to_json() for f in self.files],
            "remaining": [i.to_json() for i in self.remaining],
            "dryRun": self.dry_run,
        }
        if self.problems:
            out["problems"] = self.problems
        return out


@dataclass
class _Target:
    """One file with findings in scope, and the project whose lint run reported it."""

    project: Project
    rel: str
    path: Path
    issues: list[Issue]


async def apply_fixes(
    scope: FixScope,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_begin: OnBegin | None = None,
    on_done: OnDone | None = None,
) -> FixOutcome:
    """Fix the findings in `scope` (dry_run: compute the fixed texts, write nothing); see the module's doc."""
    workspace = workspace.resolve()
    projects = [p for p in scope.projects if "lint" in p.spec.checks]
    lint = _Lint(projects, workspace, config, timeout, on_begin, on_done)
    before = await lint.run()
    problems = [f"{r.language} lint ({r.tool}): {r.reason}" for r in before if r.status == "not_checked"]
    targets = _targets(projects, before, scope, workspace)
    # A project with a finding in a file outside the workspace (a symlink out of it) is fixed file by file: the
    # tool's own fix mode would write through the link.
    escapes = [any(_outside(i, workspace) for i in run.issues) for run in before]
    whole = [
        p
        for p, escaping in zip(projects, escapes, strict=True)
        if not scope.dry_run and not escaping and _runs_own_fix_mode(p, scope, config)
    ]
    files: dict[str, FixedFile] = {}
    for project in whole:
        mine = [t for t in targets if t.project is project]
        problem = await _own_fix_mode(project, mine, scope.unsafe, workspace, config, timeout, files)
        problems += [problem] if problem else []
    rechecked: dict[str, list[Issue]] = {}
    # A few files at a time (the cores), as checks run: each is a tool run or two.
    limit = asyncio.Semaphore(max(1, os.cpu_count() or 2))

    async def one(target: _Target) -> None:
        async with limit:
            await _fix_file(target, scope, workspace, config, files, rechecked)

    await asyncio.gather(*(one(t) for t in _fixable(targets, before, scope.unsafe) if t.project not in whole))
    if scope.dry_run:
        remaining = [i for t in targets for i in rechecked.get(t.rel, t.issues)]
        runs = before
    else:
        runs = await lint.run() if files else before
        after = _targets(projects, runs, scope, workspace)
        rechecked = {t.rel: t.issues for t in after}
        remaining = [i for t in after for i in t.issues]
    _count(files, targets, rechecked)
    return FixOutcome(sorted(files.values(), key=lambda f: f.file), remaining, scope.dry_run, runs, problems)


@dataclass
class _Lint:
    projects: list[Project]
    workspace: Path
    config: LintelConfig
    timeout: float | None
    on_begin: OnBegin | None
    on_done: OnDone | None

    async def run(self) -> list[RunResult]:
        pairs: list[tuple[Project, CheckName]] = [(p, "lint") for p in self.projects]
        return await run_pairs(
            pairs,
            workspace=self.workspace,
            config=self.config,
            timeout=self.timeout,
            on_begin=self.on_begin,
            on_done=self.on_done,
        )


def _targets(projects: Sequence[Project], runs: Sequence[RunResult], scope: FixScope, workspace: Path) -> list[_Target]:
    """The files with findings in scope, each once (with the first project that reported it), in order."""
    owner: dict[str, Project] = {}
    for project, run in zip(projects, runs, strict=True):
        for issue in run.issues:
            if issue.file is not None:
                owner.setdefault(issue.file, project)
    found: dict[str, _Target] = {}
    for issue in dedupe_issues(sort_issues(i for run in runs for i in run.issues)):
        if issue.file is None or (scope.rules and issue.rule not in scope.rules):
            continue
        target = found.get(issue.file)
        if target is None:
            path = inside_workspace(workspace, issue.file)
            if path is None or not _in_paths(path, scope.paths):
                continue
            target = found[issue.file] = _Target(owner[issue.file], issue.file, path, [])
        target.issues.append(issue)
    return list(found.values())


def inside_workspace(workspace: Path, rel: str) -> Path | None:
    """The file `rel` (relative to the resolved `workspace`) resolved, symlinks too; None when that is not a file
    inside the workspace (lintel neither reads nor writes it)."""
    if Path(rel).is_absolute():
        return None
    try:
        path = (workspace / rel).resolve()
    except (OSError, RuntimeError):
        return None
    return path if path.is_relative_to(workspace) and path.is_file() else None


def _fixable(targets: Sequence[_Target], runs: Sequence[RunResult], unsafe: bool) -> list[_Target]:
    """The files worth a fix run: those with a finding that carries a fix it may apply, and those with a finding
    of a tool whose findings carry no fix anywhere in the runs (its parser may not read fixes: its own fix mode
    decides)."""
    informed = {i.source for run in runs for i in run.issues if i.fixes}
    return [
        t
        for t in targets
        if any(i.source not in informed or chosen_fix(i.fixes, unsafe=unsafe) is not None for i in t.issues)
    ]


def _outside(issue: Issue, workspace: Path) -> bool:
    return issue.file is not None and inside_workspace(workspace, issue.file) is None


def _in_paths(path: Path, paths: Sequence[Path]) -> bool:
    return not paths or any(path == p or path.is_relative_to(p) for p in paths)


def _runs_own_fix_mode(project: Project, scope: FixScope, config: LintelConfig) -> bool:
    """Whether the project's lint tool's own fix mode runs on it: it has one, the lint command is lintel's (not
    the user's), the scope covers the whole project and every rule (the fix mode has no way to narrow either)."""
    spec = project.spec.tool_for(project, "lint")
    if spec.fix_mode is None or scope.rules or config.languages.get(project.language).argv_for("lint"):
        return False
    if project.problem is not None or unused_tool(project, "lint"):
        return False
    root = project.root.resolve()
    return _in_paths(root, scope.paths)


async def _own_fix_mode(
    project: Project,
    targets: Sequence[_Target],
    unsafe: bool,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None,
    files: dict[str, FixedFile],
) -> str | None:
    """The tool's own fix mode over the project, as its check runs (same cwd, targets, environment, timeout); the
    files with findings are read before and after. Returns what went wrong, if anything."""
    base = project.spec.tool_for(project, "lint")
    mode = base.fix_mode
    if mode is None or not project.root.resolve().is_relative_to(workspace):
        return None
    before = {t.rel: text for t in targets if (text := read_text(t.path)) is not None}
    argv = (*mode.argv, *(mode.unsafe_args if unsafe else ()))
    # Its output is not read (what is left is found by checking again): any parser will do.
    codes = base.ok_codes | base.finding_codes
    spec = replace(base, argv=argv, parser="custom", ok_codes=codes, finding_codes=frozenset())
    result = await run_planned(
        plan_spec(project, spec, config, workspace),
        workspace=workspace,
        timeout=timeout_for("lint", config, timeout, builds=base.builds),
    )
    for target in targets:
        new = read_text(target.path)
        if target.rel in before and new is not None and new != before[target.rel]:
            files[target.rel] = FixedFile(target.rel, before[target.rel], new)
    if result.timed_out or result.exit_code not in codes:
        why = result.reason or f"exit {result.exit_code}"
        log.warning("%s fix mode failed in %s: %s", base.tool, project.root, why)
        return f"{project.language} lint ({base.tool} fix mode): {why}"
    return None


async def _fix_file(
    target: _Target,
    scope: FixScope,
    workspace: Path,
    config: LintelConfig,
    files: dict[str, FixedFile],
    rechecked: dict[str, list[Issue]],
) -> None:
    """One file: its fixed text from the tool's stdin fix mode (no `rules`) or from its findings' fixes; written
    unless dry_run; with dry_run, checked again from the new text where the linter reads stdin."""
    old = read_text(target.path)
    if old is None:
        return
    spec = stdin_lint_spec(target.project, target.path, workspace, config)
    count: int | None = None
    if not scope.rules and spec is not None and spec.fix_mode is not None and spec.fix_mode.stdin_argv:
        new = await fixed_document_text(
            target.project,
            target.path,
            old,
            workspace=workspace,
            config=config,
            issues=target.issues,
            unsafe=scope.unsafe,
        )
    else:
        new, count = issues_fixed(old, target.rel, target.issues, unsafe=scope.unsafe)
    if new is None or new == old:
        return
    if not scope.dry_run and not write_text(target.path, workspace, old, new):
        return
    # Without a look at the new text (below), the findings that carried a fix it applied: an estimate.
    estimate = count if count is not None else sum(1 for i in target.issues if chosen_fix(i.fixes, unsafe=scope.unsafe))
    files[target.rel] = FixedFile(target.rel, old, new, estimate)
    if scope.dry_run and spec is not None:
        result = await run_file_check(
            target.project, "lint", target.path, workspace=workspace, config=config, text=new, require_stdin=True
        )
        if result is not None and result.status != "not_checked":
            left = [i for i in result.issues if not scope.rules or i.rule in scope.rules]
            rechecked[target.rel] = left
            if count is None:
                files[target.rel].fixes = max(0, len(target.issues) - len(left))
    elif scope.dry_run and count is not None:
        rechecked[target.rel] = _left_after(target.issues, count)


def _left_after(issues: Sequence[Issue], count: int) -> list[Issue]:
    """Without a second look at the fixed text: the findings that carried no fix stay, and as many of the others
    as were not applied (those later in the file, the ones an overlap left for the next round)."""
    fixable = [i for i in issues if i.fixes]
    return [i for i in issues if not i.fixes] + fixable[count:]


def _count(files: dict[str, FixedFile], targets: Sequence[_Target], after: dict[str, list[Issue]]) -> None:
    """A file's fixes, where nothing counted them: its findings before less those left after."""
    before = {t.rel: len(t.issues) for t in targets}
    for fixed in files.values():
        if not fixed.fixes:
            fixed.fixes = max(0, before.get(fixed.file, 0) - len(after.get(fixed.file, [])))


def read_text(path: Path) -> str | None:
    """A file's text exactly (line ends kept); None when it cannot be read or is not UTF-8 (left alone)."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.info("fix: %s left alone: %s", path, exc)
        return None


def write_text(path: Path, workspace: Path, old: str, new: str) -> bool:
    """`new` written over `path`, only when it is inside the workspace (symlinks resolved) and still holds
    `old` (a file changed since it was read is left as it is)."""
    resolved = path.resolve()
    if not resolved.is_relative_to(workspace.resolve()):
        log.warning("fix: %s is outside the workspace; not written", path)
        return False
    if read_text(resolved) != old:
        log.warning("fix: %s changed while it was being fixed; not written", path)
        return False
    try:
        resolved.write_bytes(new.encode("utf-8"))
    except OSError as exc:
        log.warning("fix: %s could not be written: %s", path, exc)
        return False
    return True
