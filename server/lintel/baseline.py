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

from lintel.issues import Issue

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
    if not isinstance(document, dict):
        raise BaselineError("expected a JSON object")
    found: Counter[str] = Counter()
    if isinstance(document.get("issues"), list):
        for issue in document["issues"]:
            if isinstance(issue, dict) and isinstance(issue.get("fingerprint"), str):
                found[issue["fingerprint"]] += 1
        return found
    if (isinstance(document.get("runs"), list) and "$schema" in document) or "version" in document:
        for run in document.get("runs") or []:
            for result in (run or {}).get("results") or []:
                prints = (result or {}).get("partialFingerprints") or {}
                value = prints.get(SARIF_FINGERPRINT_KEY)
                if isinstance(value, str):
                    found[value] += 1
        return found
    raise BaselineError("neither a lintel JSON report (issues) nor a SARIF log (runs)")


def load_baseline(path: Path) -> Baseline:
    """BaselineError, naming the file, when it cannot be read or is not a report."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return Baseline(fingerprints_of(document))
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{path}: {exc}") from exc
