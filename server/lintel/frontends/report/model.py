"""What one `lintel check` produced, independent of how it is written out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lintel.core.issues import SEVERITY_RANK, Issue, Severity
from lintel.engine.checks import RunResult
from lintel.languages import Project


def _relative(path: Path, root: Path) -> str:
    """POSIX, relative to the report root, "." for the root; a path outside it stays absolute."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return path.as_posix()
    return rel.as_posix() if rel.parts else "."


def _within(path: str, root: str) -> bool:
    return root == "." or path == root or path.startswith(root.rstrip("/") + "/")


@dataclass(frozen=True)
class ProjectEntry:
    """A project as a report names it: paths relative to the report root, so reports made on different machines
    (CI shards) can be merged."""

    language: str
    root: str
    markers: tuple[str, ...] = ()
    workspace: str | None = None  # the root of the workspace this project is a member of

    @classmethod
    def of(cls, project: Project, report_root: Path, workspace: Path | None = None) -> ProjectEntry:
        return cls(
            language=project.language,
            root=_relative(project.root, report_root),
            markers=project.markers,
            workspace=None if workspace is None else _relative(workspace, report_root),
        )

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"language": self.language, "root": self.root, "markers": list(self.markers)}
        if self.workspace is not None:
            out["workspace"] = self.workspace
        return out


def summarize(issues: Iterable[Issue], runs: Iterable[RunResult]) -> dict[str, int]:
    """{errors, warnings, infos, notChecked}; a timeout is a check that did not run, not a finding."""
    counted = [i for i in issues if i.kind != "timeout"]
    return {
        "errors": sum(1 for i in counted if i.severity == "error"),
        "warnings": sum(1 for i in counted if i.severity == "warning"),
        "infos": sum(1 for i in counted if i.severity in ("info", "hint")),
        "notChecked": sum(1 for r in runs if r.status == "not_checked"),
    }


@dataclass
class CheckReport:
    root: Path
    projects: list[ProjectEntry]
    runs: list[RunResult]
    issues: list[Issue] = field(default_factory=list)

    @property
    def not_checked(self) -> list[RunResult]:
        return [r for r in self.runs if r.status == "not_checked"]

    @property
    def not_configured(self) -> list[RunResult]:
        """Checks whose tool the project does not use: they ran nothing and change no exit code."""
        return [r for r in self.runs if r.status == "not_configured"]

    @property
    def grouped(self) -> bool:
        """Whether the report is shown per project: it holds more than one project root."""
        return len({p.root for p in self.projects}) > 1

    def counted(self) -> list[Issue]:
        """Issues that count towards severities; a timeout is a check that did not run, not a finding."""
        return [i for i in self.issues if i.kind != "timeout"]

    def summary(self) -> dict[str, int]:
        return summarize(self.issues, self.runs)

    def exit_code(self, fail_level: Severity) -> int:
        """docs/cli.md, Exit codes: 1 findings at/above the fail level, else 3 if a check could not run, else 0."""
        threshold = SEVERITY_RANK[fail_level]
        if any(SEVERITY_RANK[i.severity] >= threshold for i in self.counted()):
            return 1
        return 3 if self.not_checked else 0

    def project_of(self, issue: Issue) -> ProjectEntry | None:
        """The project whose root is the longest prefix of the issue's file (root "." holds every file). Of two
        projects at that root (a polyglot folder), the one whose language ran the issue's tool."""
        return self._owner(issue.file or ".", {r.language for r in self.runs if r.tool == issue.source})

    def run_project(self, run: RunResult) -> ProjectEntry | None:
        """The project a run belongs to: the one rooted at its cwd (or nearest above it), of the run's language."""
        # Resolved as `runs[].cwd` is (RunResult.run_json), so a symlinked root gives the same answer.
        return self._owner(_relative(run.cwd.resolve(), self.root.resolve()), {run.language})

    def groups(self) -> list[ProjectGroup]:
        """Issues and runs per project, projects in root order, then what belongs to none (if anything does)."""
        ran: dict[str, set[str | None]] = {}
        for run in self.runs:
            ran.setdefault(run.tool, set()).add(run.language)
        ordered = sorted(self.projects, key=lambda p: (p.root != ".", p.root))
        groups: dict[ProjectEntry | None, ProjectGroup] = {p: ProjectGroup(p) for p in ordered}
        groups[None] = ProjectGroup(None)
        for issue in self.issues:
            groups[self._owner(issue.file or ".", ran.get(issue.source, set()))].issues.append(issue)
        for run in self.runs:
            groups[self.run_project(run)].runs.append(run)
        other = groups.pop(None)
        return [*groups.values(), *([other] if other.issues or other.runs else [])]

    def _owner(self, path: str, languages: set[str | None]) -> ProjectEntry | None:
        candidates = [p for p in self.projects if _within(path, p.root)]
        if not candidates:
            return None
        depth = max(_depth(p.root) for p in candidates)
        nearest = [p for p in candidates if _depth(p.root) == depth]
        return next((p for p in nearest if p.language in languages), nearest[0])


def _depth(root: str) -> int:
    return 0 if root == "." else len(root.rstrip("/").split("/"))


@dataclass
class ProjectGroup:
    """One project's share of a report (`project` None: issues and runs outside every project)."""

    project: ProjectEntry | None
    issues: list[Issue] = field(default_factory=list)
    runs: list[RunResult] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        return summarize(self.issues, self.runs)
