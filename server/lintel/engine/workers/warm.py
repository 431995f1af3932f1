"""Lint one file through its tool's warm worker, where the CLI run it stands for is the tool's own built-in
command on that file; the result is the RunResult run_file_check would give (docs/architecture.md, "Warm workers").

Three steps, so that the server can lint a buffer ahead of its save and finish on the save (server/documents.py):
`warm_target` (may this file go to a worker, and with which program), `warm_issues` (the worker's answer for a
text), `warm_result` (finalized from the file on disk, as a CLI run's)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from weakref import WeakKeyDictionary

from lintel.core.issues import SOURCE_LINES_MAX_BYTES, Issue, LineReader, SourceLines, finalize_issues
from lintel.core.positions import lines_of
from lintel.core.runenv import run_environment
from lintel.engine.checks import RunResult, issue_file_name, plan_spec, sort_issues, timeout_for, unused_tool
from lintel.engine.config import LintelConfig
from lintel.engine.workers.base import LintWorker, WorkerKey
from lintel.engine.workers.pool import WorkerPool
from lintel.languages import Project, project_relpath
from lintel.languages.binaries import resolve_binary

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WarmTarget:
    """How one file is linted warm: its worker, the path the CLI run names (absolute against the run's cwd, as
    the tool makes it), the program and its environment."""

    project: Project
    tool: str
    key: WorkerKey
    path: Path
    workspace: Path  # resolved: the root the findings' paths are relative to
    file_name: str  # the linted file as the findings name it (relative to the workspace)
    binary: str
    env: Mapping[str, str]
    timeout: float
    idle_seconds: float

    def same_run(self, other: WarmTarget) -> bool:
        """Whether `other` sends the same file to the same worker program."""
        return (self.key, self.path, self.binary) == (other.key, other.path, other.binary)


@dataclass(frozen=True)
class _Program:
    """A project's tool program as found for a configuration."""

    config: LintelConfig
    binary: str
    env: Mapping[str, str]


@dataclass
class _Found:
    """What warm_target has read from a pool's projects' files, kept until those files change (`forget`): a save
    must not re-read pyproject.toml and the CI files, nor stat a dozen paths for the binary. A program not found
    is looked for again each time (the CLI run that follows costs far more): a tool installed anywhere, PATH
    included, is used from the next lint on."""

    # By (project root, language, tool): replaced, never grown per save.
    programs: dict[tuple[Path, str, str], _Program]
    # By (project root, language): whether the project does not use its linter, for a configuration.
    unused: dict[tuple[Path, str], tuple[LintelConfig, bool]]


# Per pool (one per server).
_found: WeakKeyDictionary[WorkerPool, _Found] = WeakKeyDictionary()


def _of(pool: WorkerPool) -> _Found:
    found = _found.get(pool)
    if found is None:
        found = _found[pool] = _Found({}, {})
    return found


def forget(pool: WorkerPool, under: Path) -> None:
    """The watched files of the projects at or under `under` changed: their programs and whether they lint are
    read again when next asked."""
    found = _of(pool)
    found.programs = {key: kept for key, kept in found.programs.items() if not key[0].is_relative_to(under)}
    found.unused = {key: kept for key, kept in found.unused.items() if not key[0].is_relative_to(under)}


def _unused_lint(pool: WorkerPool, project: Project, config: LintelConfig) -> bool:
    """Whether the project does not use its language's linter, as read from its files since they last changed."""
    memo = _of(pool).unused
    key = (project.root, project.language)
    known = memo.get(key)
    if known is None or known[0] is not config:
        known = memo[key] = (config, unused_tool(project, "lint") is not None)
    return known[1]


def warm_target(
    pool: WorkerPool, project: Project, file: Path, *, workspace: Path, config: LintelConfig, from_buffer: bool
) -> WarmTarget | None:
    """Where `file`'s lint goes warm; None when the CLI must run instead: no worker for the tool, a command that is
    not the tool's built-in one on this file (the user's argv, a package.json `lint` script, which runs whole),
    or a binary missing (the CLI run says which)."""
    if (
        "lint" not in project.spec.checks
        or config.languages.get(project.language).argv_for("lint")
        or project.problem is not None  # the CLI run reports it
        or _unused_lint(
            pool, project, config
        )  # the project does not use the linter: no lint at all (the CLI path says so)
    ):
        return None
    scope = project.spec.file_scope(project, "lint", file, from_buffer)
    spec = scope.spec
    kind = pool.kind(spec.tool)
    if kind is None or scope.filter_to_file:
        return None
    declined = kind.declines(project.root)
    if declined is not None:
        log.debug("%s: no warm worker: %s", project.root, declined)
        return None
    workspace = workspace.resolve()
    programs = _of(pool).programs
    cache_key = (project.root, project.language, spec.tool)
    program = programs.get(cache_key)
    if program is None or program.config is not config:
        programs.pop(cache_key, None)
        if plan_spec(project, spec, config, workspace).missing is not None:
            return None
        resolved = resolve_binary(
            kind.binary,
            project_root=project.root,
            workspace_root=workspace,
            setting=config.languages.get(project.language).binaries.get(kind.binary),
            install_dirs=project.spec.install_dirs(),
        )
        if resolved.path is None:
            log.info(
                "%s: no warm %s worker: %s not found (tried %s)", project.root, spec.tool, kind.binary, resolved.tried
            )
            return None
        program = programs[cache_key] = _Program(config, resolved.path, run_environment(spec.env_defaults, spec.env))
    return WarmTarget(
        project=project,
        tool=spec.tool,
        key=WorkerKey(spec.tool, project.root),
        path=project.root / project_relpath(project, file),
        workspace=workspace,
        file_name=issue_file_name(file, workspace),
        binary=program.binary,
        env=program.env,
        timeout=timeout_for("lint", config, None),
        idle_seconds=config.editor.worker_idle_seconds,
    )


async def prestart(pool: WorkerPool, project: Project, *, workspace: Path, config: LintelConfig) -> None:
    """The project's lint worker started before any file of it is linted (WorkerPool.prestart), when its files'
    lint goes warm; the same program and key a lint of one of its files would use."""
    # The key and program are the project's, whatever the file: a name in its root stands for any of them.
    target = warm_target(
        pool, project, project.root / "__lintel__", workspace=workspace, config=config, from_buffer=False
    )
    if target is not None:
        await pool.prestart(
            target.key,
            binary=Path(target.binary),
            env=target.env,
            timeout=target.timeout,
            idle_seconds=target.idle_seconds,
        )


async def warm_issues(pool: WorkerPool, target: WarmTarget, text: str) -> list[Issue] | None:
    """The worker's findings for the target file with content `text`, not finalized; None when it could not
    answer (the pool has reported why)."""
    return await pool.lint(
        target.key,
        target.path,
        text,
        workspace=target.workspace,
        binary=Path(target.binary),
        env=target.env,
        timeout=target.timeout,
        idle_seconds=target.idle_seconds,
    )


def warm_issues_now(
    pool: WorkerPool, target: WarmTarget, text: str
) -> asyncio.Task[tuple[list[Issue], LintWorker] | None] | None:
    """`warm_issues` sent before this returns, when the worker is ready for it (WorkerPool.lint_now); None
    otherwise. The answer names the worker that gave it."""
    return pool.lint_now(
        target.key,
        target.path,
        text,
        workspace=target.workspace,
        timeout=target.timeout,
        idle_seconds=target.idle_seconds,
    )


def warm_result(target: WarmTarget, issues: list[Issue], *, started: float, text: str | None = None) -> RunResult:
    """As a CLI run's result: the target file's own findings, fingerprinted from the file on disk (`text`: its
    content, just read), in report order."""
    workspace = target.workspace
    kept = [issue for issue in issues if issue.file == target.file_name]
    lines: LineReader = SourceLines(workspace)
    # SourceLines leaves files over 5 MB unread; a text of fewer characters than a quarter of that is under it.
    if text is not None and len(text) * 4 <= SOURCE_LINES_MAX_BYTES:
        split = lines_of(text)
        lines = lambda _file, line: split[line - 1] if 1 <= line <= len(split) else None  # noqa: E731
    kept = sort_issues(finalize_issues(kept, lines))
    return RunResult(
        language=target.project.language,
        check="lint",
        tool=target.tool,
        argv=[target.binary, f"(warm {target.tool} worker)"],
        cwd=target.project.root,
        status="findings" if kept else "clean",
        duration_ms=round((time.monotonic() - started) * 1000),
        issues=kept,
        binary=target.binary,
    )


def read_as_tool(file: Path) -> str | None:
    """The file's text as the tool reads it: undecodable bytes become U+FFFD (node's utf8 decoding does the
    same); None when it cannot be read."""
    try:
        return file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        log.info("cannot read %s for the warm worker: %s", file, exc)
        return None


async def warm_file_lint(
    pool: WorkerPool, project: Project, file: Path, *, workspace: Path, config: LintelConfig, text: str | None
) -> RunResult | None:
    """`file`'s lint from the warm worker, with the content `text` (None: the file on disk); None when the CLI
    must run instead (see warm_target), or the worker could not answer (the pool has reported why)."""
    target = warm_target(pool, project, file, workspace=workspace, config=config, from_buffer=text is not None)
    if target is None:
        return None
    disk = read_as_tool(file) if text is None else None
    if text is None and (text := disk) is None:
        return None
    started = time.monotonic()
    issues = await warm_issues(pool, target, text)
    if issues is None:
        return None
    return warm_result(target, issues, started=started, text=disk)
