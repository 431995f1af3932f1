"""One file's lint and format runs on a known content — the file on disk or a text given — each with its state, and
the content hash the answer describes: what every diagnostics-like answer (diagnostics, check_edit) is built on."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from lintel.core.results import RunResult, run_state
from lintel.engine.checks import file_scope, run_file_check
from lintel.engine.config import LintelConfig
from lintel.languages import FileCheckName, Project

# A file rewritten while its runs went on is checked again, at most this many times in all (an editor's autosave
# storm must not keep an answer from coming).
SETTLE_ATTEMPTS = 3

READS_FILES_ONLY = "reads files only"


def content_hash(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return content_hash(text.encode("utf-8"))


def file_checks(config: LintelConfig) -> list[FileCheckName]:
    """The checks the editor runs on a file: lint, and format with `editor.formatCheck` (on by default)."""
    return ["lint", "format"] if config.editor.format_check else ["lint"]


def not_run(project: Project, check: str, tool: str, reason: str) -> RunResult:
    """A run that did not happen, as a run entry: its state is `not_run` with `reason`."""
    return RunResult(
        language=project.language,
        check=check,
        tool=tool,
        argv=[],
        cwd=project.root,
        status="not_checked",
        reason=reason,
        output=reason,
    )


async def text_runs(
    project: Project,
    path: Path,
    text: str,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
) -> list[RunResult]:
    """The file's checks on `text` through stdin, never reading the file on disk; a tool that reads files only is a
    `not_run` entry saying so (a check the project does not use is left out)."""
    runs: list[RunResult] = []
    for check in file_checks(config):
        result = await run_file_check(
            project,
            check,
            path,
            workspace=workspace,
            config=config,
            text=text,
            timeout=timeout,
            on_start=on_start,
            require_stdin=True,
        )
        if result is not None:
            runs.append(result)
            continue
        scope = file_scope(project, check, path, config, buffered=True)
        if scope is not None:
            runs.append(not_run(project, check, scope.spec.tool, READS_FILES_ONLY))
    return runs


async def disk_runs(
    project: Project,
    path: Path,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
) -> tuple[list[RunResult], str]:
    """The file's checks on the file as it is on disk, and the hash of the bytes they saw: the runs are made again
    when the file changed while they ran, so the answer describes one content."""
    runs: list[RunResult] = []
    before = content_hash(path.read_bytes())
    for _ in range(SETTLE_ATTEMPTS):
        runs = []
        for check in file_checks(config):
            result = await run_file_check(
                project, check, path, workspace=workspace, config=config, timeout=timeout, on_start=on_start
            )
            if result is not None:
                runs.append(result)
        after = content_hash(path.read_bytes())
        if after == before:
            break
        before = after
    return runs, before


def incomplete(runs: Sequence[RunResult]) -> list[RunResult]:
    return [run for run in runs if run_state(run)[0] != "complete"]


def partial_head(runs: Sequence[RunResult], rest: str) -> str | None:
    """The first line of a summary whose runs are not all complete: `partial: ruff timed_out (…); <rest>`;
    None when every run is complete."""
    missing = incomplete(runs)
    if not missing:
        return None
    told = []
    for run in missing:
        state, reason = run_state(run)
        said = _short(reason.removeprefix(f"{run.tool} ")) if reason else ""
        told.append(f"{run.tool} {run.check} {state}" + (f" ({said})" if said else ""))
    return f"partial: {'; '.join(dict.fromkeys(told))}; {rest}"


def _short(reason: str, limit: int = 160) -> str:
    """A reason on one line of a summary: its first line, cut at `limit` characters."""
    line = reason.strip().splitlines()[0] if reason.strip() else ""
    return line if len(line) <= limit else f"{line[:limit]}…"
