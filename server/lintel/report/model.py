"""What one `lintel check` produced, independent of how it is written out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lintel.checks import RunResult
from lintel.issues import SEVERITY_RANK, Issue, Severity
from lintel.languages import Project


@dataclass
class CheckReport:
    root: Path
    projects: list[Project]
    runs: list[RunResult]
    issues: list[Issue] = field(default_factory=list)

    @property
    def not_checked(self) -> list[RunResult]:
        return [r for r in self.runs if r.status == "not_checked"]

    def counted(self) -> list[Issue]:
        """Issues that count towards severities; a timeout is a check that did not run, not a finding."""
        return [i for i in self.issues if i.kind != "timeout"]

    def summary(self) -> dict[str, int]:
        counted = self.counted()
        return {
            "errors": sum(1 for i in counted if i.severity == "error"),
            "warnings": sum(1 for i in counted if i.severity == "warning"),
            "infos": sum(1 for i in counted if i.severity in ("info", "hint")),
            "notChecked": len(self.not_checked),
        }

    def exit_code(self, fail_level: Severity) -> int:
        """docs/design.md: 1 findings at/above the fail level, else 3 if a check could not run, else 0."""
        threshold = SEVERITY_RANK[fail_level]
        if any(SEVERITY_RANK[i.severity] >= threshold for i in self.counted()):
            return 1
        return 3 if self.not_checked else 0
