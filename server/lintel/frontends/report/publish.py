"""A report as `lintel check` and `lintel merge` hand it out: the chosen format within GitHub's limits, what those
limits left out (for stderr), and for `--format github` the job summary and the job's annotation count."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lintel.frontends.report import RENDERERS
from lintel.frontends.report.limits import ANNOTATIONS_PER_JOB, SARIF_GZIP_BYTES, STEP_SUMMARY_BYTES, SUMMARY_BUDGET
from lintel.frontends.report.model import CheckReport

# Annotations lintel printed in this job, for GitHub's per-job limit: in RUNNER_TEMP, which the runner empties
# at the start and end of every job, and keyed by the job so a folder that was not emptied counts nothing.
COUNT_FILE = "lintel-annotations"


@dataclass(frozen=True)
class Presented:
    text: str
    notes: tuple[str, ...] = ()  # one line each, for stderr


def present(fmt: str, report: CheckReport, *, to_file: bool, env: Mapping[str, str]) -> Presented:
    """`to_file`: the report goes to `--output`, the file a CI step uploads, so a SARIF log also keeps its gzipped
    size within code scanning's. With `--format github` on a GitHub runner this also appends the job summary to
    `$GITHUB_STEP_SUMMARY` and counts the annotations printed."""
    # The SARIF and GitHub writers are imported only for their format (RENDERERS).
    if fmt == "sarif":
        from lintel.frontends.report.sarif import sarif_log

        log = sarif_log(report, SARIF_GZIP_BYTES if to_file else None)
        return Presented(log.text, log.notes)
    if fmt != "github":
        return Presented(RENDERERS[fmt](report))
    from lintel.frontends.report.github import github_annotations

    # Annotations written to a file are not the log's: GitHub never sees them, so they count nothing.
    counter, used = (None, 0) if to_file else _job_count(env)
    annotations = github_annotations(report, max(0, ANNOTATIONS_PER_JOB - used))
    notes: list[str] = []
    if counter is not None:
        _write_quietly(counter, f"{_job_key(env)} {used + annotations.printed}\n")
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        notes.extend(_append_summary(Path(summary_file), report, annotations.not_annotated))
    return Presented(annotations.text, tuple(notes))


def _job_key(env: Mapping[str, str]) -> str:
    return ":".join(env.get(k, "") for k in ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "GITHUB_JOB"))


def _job_count(env: Mapping[str, str]) -> tuple[Path | None, int]:
    """The count file and the annotations lintel already printed in this job (0 off GitHub's runners)."""
    temp = env.get("RUNNER_TEMP")
    if env.get("GITHUB_ACTIONS") != "true" or not temp:
        return None, 0
    counter = Path(temp) / COUNT_FILE
    try:
        key, count = counter.read_text(encoding="utf-8").split()
        return counter, int(count) if key == _job_key(env) else 0
    except (OSError, ValueError):
        return counter, 0


def _write_quietly(path: Path, text: str) -> None:
    # Without the count a later step of the job may print past the limit, and GitHub then drops the rest.
    with contextlib.suppress(OSError):
        path.write_text(text, encoding="utf-8")


def _append_summary(path: Path, report: CheckReport, not_annotated: int) -> list[str]:
    from lintel.frontends.report.summary import job_summary

    try:
        used = path.stat().st_size if path.exists() else 0
    except OSError:
        used = 0
    budget = min(SUMMARY_BUDGET, STEP_SUMMARY_BYTES - used - 1024)
    if budget < 1024:
        return [f"github: no job summary written: {path} already holds {used:,} bytes of the step's 1 MiB"]
    try:
        with path.open("a", encoding="utf-8", errors="surrogateescape") as out:
            out.write(job_summary(report, not_annotated, budget))
    except OSError as exc:
        return [f"github: no job summary written to {path}: {exc.strerror or exc}"]
    return []
