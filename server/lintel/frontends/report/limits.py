"""GitHub's limits on what a CI job hands it (code scanning's SARIF limits, workflow-command annotations, the job
summary), in one place so each report format keeps within them and says what it left out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Code scanning rejects a SARIF upload over these (its "SARIF results exceed one or more limits" page).
SARIF_RESULTS_PER_RUN = 25_000
SARIF_RUNS_PER_LOG = 20
# The gzipped log; decimal megabytes, the stricter reading of "10 MB".
SARIF_GZIP_BYTES = 10_000_000
# Measured at zlib's default level, the one upload tools use; a higher level would understate the size.
SARIF_GZIP_LEVEL = 6

# Annotations GitHub keeps from workflow commands: per type (error, warning, notice) per step, and per job.
ANNOTATIONS_PER_TYPE = 10
ANNOTATIONS_PER_JOB = 50

# A step's `$GITHUB_STEP_SUMMARY` over 1 MiB is dropped whole, so the summary stays well under it.
STEP_SUMMARY_BYTES = 1024 * 1024
SUMMARY_BUDGET = STEP_SUMMARY_BYTES // 2

LEVELS = ("error", "warning", "note")


def by_level(levels: Iterable[str]) -> dict[str, int]:
    """Counts per SARIF level, in severity order, the levels of none left out."""
    counts = dict.fromkeys(LEVELS, 0)
    for level in levels:
        counts[level] = counts.get(level, 0) + 1
    return {level: n for level, n in counts.items() if n}


def counted(counts: Mapping[str, int]) -> str:
    """`3 errors, 12 notes`: the nonzero counts in words."""
    words = {"error": "error", "warning": "warning", "note": "note"}
    return ", ".join(f"{n:,} {words.get(level, level)}{'' if n == 1 else 's'}" for level, n in counts.items() if n)
