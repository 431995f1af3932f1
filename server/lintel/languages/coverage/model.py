"""What a coverage run measured, per file and line, and who covered each line: the index `lintel.testsCovering`
answers from (docs/architecture.md, Coverage). Pure data: no I/O, no processes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# What the names covering a line are: single tests (coverage.py contexts, a Go test run alone), test files
# (one node test file run alone), packages (Go's aggregate profile), or the whole suite (an aggregate run).
Granularity = Literal["test", "file", "package", "project"]
INDEX_VERSION = 1


@dataclass
class FileCoverage:
    """One source file: its executable lines and, for each covered line, who covered it (empty: covered, but the
    tool could not say by whom — module import time for coverage.py)."""

    statements: int = 0  # as the tool counts them (Go and istanbul count statements, not lines)
    covered_statements: int = 0
    lines: dict[int, set[str]] = field(default_factory=dict)  # covered line -> covering names
    missing: set[int] = field(default_factory=set)  # executable, never run

    @property
    def percent(self) -> float:
        return 100.0 * self.covered_statements / self.statements if self.statements else 100.0

    def cover(self, line: int, names: Iterable[str] = ()) -> None:
        self.lines.setdefault(line, set()).update(names)
        self.missing.discard(line)

    def miss(self, line: int) -> None:
        if line not in self.lines:
            self.missing.add(line)

    def to_json(self) -> dict[str, Any]:
        return {
            "statements": self.statements,
            "coveredStatements": self.covered_statements,
            "lines": {str(n): sorted(names) for n, names in sorted(self.lines.items())},
            "missing": sorted(self.missing),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FileCoverage:
        return cls(
            statements=int(data["statements"]),
            covered_statements=int(data["coveredStatements"]),
            lines={int(n): set(names) for n, names in data["lines"].items()},
            missing={int(n) for n in data["missing"]},
        )


# Files keyed by their path relative to the project root, `/`-separated (the parsers' job).
Files = dict[str, FileCoverage]


@dataclass
class CoverageIndex:
    """One project's last coverage run: what ran, when, and every file's lines."""

    language: str
    root: str  # the project root, absolute
    tool: str  # "coverage.py 7.17.4", "go test -coverprofile", "node --test (lcov)"…
    granularity: Granularity
    measured_at: float  # seconds since the epoch, when the run started
    argv: list[str]
    files: Files

    def totals(self) -> dict[str, Any]:
        statements = sum(f.statements for f in self.files.values())
        covered = sum(f.covered_statements for f in self.files.values())
        return {
            "statements": statements,
            "covered": covered,
            "percent": round(100.0 * covered / statements, 2) if statements else 100.0,
        }

    def summary(self, prefix: str = "") -> dict[str, Any]:
        """The coverage field of a RunResult: totals and each file's percentage; `prefix` (the project root
        relative to the report root, with `/`) makes the file paths the report's."""
        return {
            "tool": self.tool,
            "granularity": self.granularity,
            "totals": self.totals(),
            "files": [
                {
                    "file": f"{prefix}{name}",
                    "statements": f.statements,
                    "covered": f.covered_statements,
                    "percent": round(f.percent, 2),
                }
                for name, f in sorted(self.files.items())
            ],
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "version": INDEX_VERSION,
            "language": self.language,
            "root": self.root,
            "tool": self.tool,
            "granularity": self.granularity,
            "measuredAt": self.measured_at,
            "argv": self.argv,
            "files": {name: f.to_json() for name, f in sorted(self.files.items())},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CoverageIndex:
        if data.get("version") != INDEX_VERSION:
            raise ValueError(f"coverage index version {data.get('version')!r}, expected {INDEX_VERSION}")
        return cls(
            language=str(data["language"]),
            root=str(data["root"]),
            tool=str(data["tool"]),
            granularity=data["granularity"],
            measured_at=float(data["measuredAt"]),
            argv=[str(a) for a in data["argv"]],
            files={name: FileCoverage.from_json(f) for name, f in data["files"].items()},
        )
