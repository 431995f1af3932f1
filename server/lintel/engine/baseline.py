"""Baselines: a recorded report whose issues are accepted, so CI fails only on new ones.

A baseline is a lintel JSON report (`issues[].fingerprint`) or a SARIF log (`partialFingerprints`). Matching is
by fingerprint, which hashes the flagged line's text rather than its number, so inserting lines above an issue
keeps it matched; counts are kept, so a second copy of an accepted finding is still new.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.core.issues import Issue

SARIF_FINGERPRINT_KEY = "lintel/v1"


class BaselineError(ValueError):
    """The baseline file cannot be read as a lintel JSON report or a SARIF log."""


@dataclass
class Baseline:
    fingerprints: Counter[str]

    def new_issues(self, issues: Iterable[Issue]) -> list[Issue]:
        remaining = Counter(self.fingerprints)
        fresh: list[Issue] = []
        for issue in issues:
            if remaining[issue.fingerprint] > 0:
                remaining[issue.fingerprint] -= 1
            else:
                fresh.append(issue)
        return fresh


def fingerprints_of(document: Any) -> Counter[str]:
    """The fingerprints a lintel JSON report (`issues[].fingerprint`) or a lintel SARIF log
    (`runs[].results[].partialFingerprints`) records; BaselineError naming the first thing that is not one."""
    if not isinstance(document, dict):
        raise BaselineError("expected a JSON object (a lintel JSON report or SARIF log)")
    if "issues" in document:
        return _report_fingerprints(document["issues"])
    if "runs" in document:
        return _sarif_fingerprints(document["runs"])
    raise BaselineError("neither a lintel JSON report (no `issues` list) nor a SARIF log (no `runs` list)")


def _report_fingerprints(issues: Any) -> Counter[str]:
    if not isinstance(issues, list):
        raise BaselineError("`issues` is not a list")
    found: Counter[str] = Counter()
    for index, issue in enumerate(issues):
        if not isinstance(issue, dict):
            raise BaselineError(f"issues[{index}] is not an object")
        fingerprint = issue.get("fingerprint")
        if not isinstance(fingerprint, str):
            raise BaselineError(f"issues[{index}] has no fingerprint (was the report written by lintel?)")
        found[fingerprint] += 1
    return found


def _sarif_fingerprints(runs: Any) -> Counter[str]:
    if not isinstance(runs, list):
        raise BaselineError("`runs` is not a list")
    found: Counter[str] = Counter()
    for r, run in enumerate(runs):
        results = run.get("results", []) if isinstance(run, dict) else None
        if not isinstance(results, list):
            raise BaselineError(f"runs[{r}] is not a SARIF run with a `results` list")
        for n, result in enumerate(results):
            prints = result.get("partialFingerprints") if isinstance(result, dict) else None
            value = prints.get(SARIF_FINGERPRINT_KEY) if isinstance(prints, dict) else None
            if not isinstance(value, str):
                raise BaselineError(
                    f"runs[{r}].results[{n}] has no partialFingerprints.{SARIF_FINGERPRINT_KEY} "
                    "(was the log written by lintel?)"
                )
            found[value] += 1
    return found


def load_baseline(path: Path) -> Baseline:
    """BaselineError, naming the file, when it cannot be read or is not a report."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return Baseline(fingerprints_of(document))
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{path}: {exc}") from exc
