"""lintel.discoverTests and MCP `list_tests` without a protocol: the tests of the workspace, of a folder or of one file
(lintel.engine.testdiscovery), as the editor's records (LSP ranges) or the agent's (1-based, capped)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.engine import actions
from lintel.engine.actions import CommandArgs, Folder
from lintel.engine.detect import DetectionError, normalize_language
from lintel.engine.discover import discover, nearest_above
from lintel.engine.testdiscovery import (
    ProjectTests,
    TestIndex,
    agent_record,
    discover_projects,
    file_lines,
    test_record,
)
from lintel.languages import Project

# The tests an agent's answer lists at most; the rest are counted (`testsTotal`, `testsOmitted`): a `path` or `file`
# narrows the list.
AGENT_MAX_TESTS = 200
SHOWN_TESTS = 5


@dataclass(frozen=True)
class FolderTests:
    """The tests found in one workspace folder."""

    __test__ = False  # not a pytest test class

    root: Path
    projects: list[ProjectTests]


@dataclass(frozen=True)
class TestList:
    """What discoverTests found: per workspace folder, per project."""

    __test__ = False  # not a pytest test class

    folders: list[FolderTests]

    def to_json(self) -> list[dict[str, Any]]:
        """The editor's records: `{id, label, kind, file, uri, range, parent?, project, language}`."""
        out: list[dict[str, Any]] = []
        lines: dict[Path, list[str]] = {}
        for folder in self.folders:
            for found in folder.projects:
                for test in found.tests:
                    if test.file not in lines:
                        lines[test.file] = file_lines(test.file)
                    out.append(test_record(test, folder.root, lines[test.file], found.project))
        return out

    def agent_json(self, limit: int = AGENT_MAX_TESTS) -> dict[str, Any]:
        """The agent's answer: `{tests: [{id, label, kind, file, line, column, endLine, endColumn, parent?,
        language}]}`, at most `limit` of them (then `testsTotal` and `testsOmitted`)."""
        tests = [
            agent_record(test, folder.root, found.project.language)
            for folder in self.folders
            for found in folder.projects
            for test in found.tests
        ]
        answer: dict[str, Any] = {"tests": tests[:limit]}
        if len(tests) > limit:
            answer.update(testsTotal=len(tests), testsOmitted=len(tests) - limit)
        return answer

    def summary(self, limit: int = AGENT_MAX_TESTS) -> str:
        """`7 tests in 2 files (python 7)`, then the first ids and what the cap left out."""
        tests = [t for f in self.folders for p in f.projects for t in p.tests if t.kind == "test"]
        files = {t.file for f in self.folders for p in f.projects for t in p.tests}
        by = Counter(p.project.language for f in self.folders for p in f.projects for t in p.tests if t.kind == "test")
        head = f"{len(tests)} test{'' if len(tests) == 1 else 's'} in {len(files)} file{'' if len(files) == 1 else 's'}"
        if by:
            head += f" ({', '.join(f'{language} {count}' for language, count in by.items())})"
        shown = [t.id for t in tests[:SHOWN_TESTS]]
        lines = [head, *shown] + (["…"] if len(tests) > SHOWN_TESTS else [])
        total = sum(len(p.tests) for f in self.folders for p in f.projects)
        if total > limit:
            lines.append(f"the answer lists the first {limit} of {total} records: pass `path` or `file` to narrow it")
        return "\n".join(lines)


def _projects(folder: Folder, where: Path) -> list[Project]:
    """The projects `where` meets: the nearest at or above it (one per language), and those below it."""
    config = folder.config
    near = nearest_above(where, folder.languages, stop=folder.root.resolve())
    below: list[Project] = []
    if where.is_dir():
        found = discover(where, folder.languages, exclude=config.projects.exclude, examples=config.projects.examples)
        below = found.projects
    seen: dict[tuple[Path, str], Project] = {}
    for project in [*near, *below]:
        seen.setdefault((project.root.resolve(), project.language), project)
    return list(seen.values())


def _targets(command: str, folders: Sequence[Folder], args: CommandArgs) -> list[tuple[Folder, Path | None]]:
    """(folder, path or None for all of it) for `path` or `file`, or every folder."""
    if args.file is not None and args.path is not None:
        raise actions.invalid(f"{command}: pass `file` or `path`, not both")
    if args.file is not None:
        folder, file = actions.inside(folders, args.file, what="file")
        if not file.is_file():
            raise actions.invalid(f"{command}: {args.file!r} is not a file")
        return [(folder, file)]
    if args.path is not None:
        folder, where = actions.inside(folders, args.path)
        return [(folder, None if where == folder.root.resolve() else where)]
    if not folders:
        raise actions.failed("no workspace folder is open")
    return [(folder, None) for folder in folders]


async def list_tests(
    command: str, folders: Sequence[Folder], args: CommandArgs, *, trusted: bool, index: TestIndex
) -> TestList:
    """The tests under `args.path` or in `args.file` (every folder's without either): static, and refined by the
    runner's own listing where the workspace is trusted (nothing runs where it is not)."""
    found: list[FolderTests] = []
    for folder, where in _targets(command, folders, args):
        root = folder.root.resolve()
        try:
            projects = _projects(folder, where or root)
        except DetectionError as exc:
            raise actions.failed(str(exc)) from exc
        wanted = normalize_language(args.language)
        if wanted is not None:
            projects = [p for p in projects if p.language == wanted]
        tests = await discover_projects(root, projects, path=where, trusted=trusted, config=folder.config, index=index)
        found.append(FolderTests(root, tests))
    return TestList(found)
