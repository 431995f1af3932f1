"""Lint one file through its tool's warm worker, where the CLI run it stands for is the tool's own built-in
command on that file; the result is the RunResult run_file_check would give (docs/design.md, "Warm workers")."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from lintel.checks import QUIET_ENV, RunResult, keep_file_issues, plan_spec, sort_issues, timeout_for
from lintel.config import LintelConfig
from lintel.issues import SourceLines, finalize_issues
from lintel.languages import Project, project_relpath
from lintel.languages.binaries import resolve_binary
from lintel.workers.base import WorkerKey
from lintel.workers.pool import WorkerPool

log = logging.getLogger(__name__)


async def warm_file_lint(
    pool: WorkerPool, project: Project, file: Path, *, workspace: Path, config: LintelConfig, text: str | None
) -> RunResult | None:
    """`file`'s lint from the warm worker, with the content `text` (None: the file on disk); None when the CLI
    must run instead: no worker for the tool, a command that is not the tool's built-in one on this file (the
    user's argv, a package.json `lint` script, which runs whole), a binary missing (the CLI run says which), or
    the worker could not answer (the pool has reported why)."""
    if "lint" not in project.spec.checks or config.languages.get(project.language).argv_for("lint"):
        return None
    scope = project.spec.file_scope(project, "lint", file, text is not None)
    kind = pool.kind(scope.spec.tool)
    if kind is None or scope.filter_to_file:
        return None
    declined = kind.declines(project.root)
    if declined is not None:
        log.debug("%s: no warm worker: %s", project.root, declined)
        return None
    workspace = workspace.resolve()
    if plan_spec(project, scope.spec, config, workspace).missing is not None:
        return None
    program = resolve_binary(
        kind.binary,
        project_root=project.root,
        workspace_root=workspace,
        setting=config.languages.get(project.language).binaries.get(kind.binary),
        install_dirs=project.spec.install_dirs(),
    )
    if program.path is None:
        log.info(
            "%s: no warm %s worker: %s not found (tried %s)", project.root, scope.spec.tool, kind.binary, program.tried
        )
        return None
    if text is None:
        try:
            # As the tool reads it: undecodable bytes become U+FFFD (node's utf8 decoding does the same).
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            log.info("cannot read %s for the warm worker: %s", file, exc)
            return None
    spec = scope.spec
    started = time.monotonic()
    issues = await pool.lint(
        WorkerKey(spec.tool, project.root),
        # The path the CLI run names, made absolute against its cwd as the tool does.
        project.root / project_relpath(project, file),
        text,
        workspace=workspace,
        binary=Path(program.path),
        env={**spec.env_defaults, **os.environ, **QUIET_ENV, **spec.env},
        timeout=timeout_for("lint", config, None),
        idle_seconds=config.editor.worker_idle_seconds,
    )
    if issues is None:
        return None
    # As a CLI run's: the file's own, fingerprinted from the file on disk, in report order.
    kept = sort_issues(finalize_issues(keep_file_issues(issues, file, workspace), SourceLines(workspace)))
    return RunResult(
        language=project.language,
        check="lint",
        tool=spec.tool,
        argv=[program.path, f"(warm {spec.tool} worker)"],
        cwd=project.root,
        status="findings" if kept else "clean",
        duration_ms=round((time.monotonic() - started) * 1000),
        issues=kept,
        binary=program.path,
    )
