"""The tests of a workspace's projects without running them: each language's static finder
(`LanguageSpec.tests.discover`) over the project's files, remembered per file by its (mtime, size) in a `TestIndex`
the caller owns, refined where the workspace is trusted by what the runner itself lists (`tests.collect`: its ids
are the authority for which tests a file it listed holds, the sources for where)."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lintel.core.errors import NotSupported
from lintel.core.positions import convert_column, split_lines
from lintel.core.testitems import FoundTest
from lintel.engine.checks import plan_spec, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.engine.testruns import base_spec
from lintel.languages import Project
from lintel.languages.base import SKIPPED_DIRS, Collected, TestCollector

log = logging.getLogger(__name__)

# A collection is the runner importing every test module: a slow suite's may take a while, never a test run's time.
COLLECT_SECONDS = 120.0
# A walk of one project for its files stops after this many (a home folder opened as a workspace).
MAX_FILES = 50_000

Stamp = tuple[int, int]
_Key = tuple[str, Path]  # (language, project root)


@dataclass
class _Collection:
    stamp: str  # of the project's files when it ran
    tests: list[Collected] | None  # None: it could not run, or printed nothing readable (not tried again until then)
    # Each file's stamp when it ran: a file edited since is shown from its source alone (file_tests).
    files: dict[Path, Stamp | None] = field(default_factory=dict)


@dataclass
class TestIndex:
    """Each file's static records by its (mtime_ns, size), and each project's last collection by the runner, kept
    by whoever serves the tests (an editor session, an MCP workspace) for as long as it lives."""

    __test__ = False  # not a pytest test class

    files: dict[tuple[str, Path, Path], tuple[Stamp, list[FoundTest]]] = field(default_factory=dict)
    collections: dict[_Key, _Collection] = field(default_factory=dict)
    # Each project's root files (its configuration) when its records were made: a change forgets them.
    roots: dict[_Key, tuple[tuple[str, int, int], ...]] = field(default_factory=dict)
    parsed: int = 0  # files parsed (not answered from the index), for tests of the cache
    # One collection of a project at a time: a second request waits for the first's answer instead of another run.
    locks: dict[_Key, asyncio.Lock] = field(default_factory=dict)

    def forget(self, key: _Key) -> None:
        self.files = {k: v for k, v in self.files.items() if (k[0], k[1]) != key}
        self.collections.pop(key, None)


@dataclass(frozen=True)
class ProjectTests:
    """The tests found in one project."""

    __test__ = False  # not a pytest test class

    project: Project
    tests: list[FoundTest]


def _stamp(path: Path) -> Stamp | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _key(project: Project) -> _Key:
    return project.language, project.root.resolve()


def _root_stamp(root: Path) -> tuple[tuple[str, int, int], ...]:
    """The project root's own files: a configuration change there (pytest's python_files, go.mod) is seen."""
    out: list[tuple[str, int, int]] = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if entry.is_file():
                    stat = entry.stat()
                    out.append((entry.name, stat.st_mtime_ns, stat.st_size))
    except OSError:
        return ()
    return tuple(sorted(out))


def _check_root(project: Project, index: TestIndex) -> None:
    key = _key(project)
    stamp = _root_stamp(key[1])
    if index.roots.get(key) != stamp:
        index.forget(key)
        index.roots[key] = stamp


def _static(project: Project, files: Sequence[Path], index: TestIndex) -> list[FoundTest]:
    """The records of `files` (resolved, the project's), from the index where a file has not changed."""
    discover = project.spec.tests.discover if project.spec.tests is not None else None
    if discover is None:
        return []
    language, root = _key(project)
    stale: list[Path] = []
    stamps: dict[Path, Stamp] = {}
    for file in files:
        stamp = _stamp(file)
        if stamp is None:
            continue
        stamps[file] = stamp
        known = index.files.get((language, root, file))
        if known is None or known[0] != stamp:
            stale.append(file)
    if stale:
        found = _safe_discover(project, stale, {})
        by_file: dict[Path, list[FoundTest]] = {file: [] for file in stale}
        for record in found:
            by_file.setdefault(record.file, []).append(record)
        for file in stale:
            index.files[(language, root, file)] = (stamps[file], by_file[file])
        index.parsed += len(stale)
    return [r for file in files if file in stamps for r in index.files[(language, root, file)][1]]


def _safe_discover(project: Project, files: Sequence[Path], texts: dict[Path, str]) -> list[FoundTest]:
    """The language's finder, which must not raise; one that does finds nothing (and is logged)."""
    discover = project.spec.tests.discover if project.spec.tests is not None else None
    if discover is None:
        return []
    try:
        return discover(project, files, texts)
    except Exception:  # a finder's bug must not take the editor's request down with it
        log.exception("%s test discovery failed in %s", project.language, project.root)
        return []


def file_tests(
    project: Project, file: Path, text: str | None = None, index: TestIndex | None = None
) -> list[FoundTest]:
    """The tests `file` (of `project`) declares, from `text` when the editor has it unsaved; static, with the
    project's last collection applied when `index` holds one. Never raises: a file that cannot be read has none."""
    if project.spec.tests is None or project.spec.tests.discover is None:
        return []
    file = file.resolve()
    if text is not None:
        found = _safe_discover(project, [file], {file: text})
    elif index is not None:
        _check_root(project, index)
        found = _static(project, [file], index)
    else:
        found = _safe_discover(project, [file], {})
    collection = index.collections.get(_key(project)) if index is not None else None
    if collection is None or collection.tests is None or collection.files.get(file) != _stamp(file):
        return found  # the runner listed the file as it was before (a test added since would go)
    return refine(found, [item for item in collection.tests if item[1] == file])  # this file's items, no other's


def project_files(project: Project, under: Path, others: Iterable[Path]) -> list[Path]:
    """The project's files of its language at or below `under` (resolved, inside the project), not entering hidden
    folders, dependencies, build output or the roots of the `others` projects (of the same language)."""
    if under.is_file():
        return [under] if project.spec.owns(under) else []
    skipped = {o.resolve() for o in others} - {project.root.resolve()}
    found: list[Path] = []
    for current, dirs, names in os.walk(under):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS and here / d not in skipped)
        found += [here / n for n in sorted(names) if project.spec.owns(Path(n))]
        if len(found) >= MAX_FILES:
            log.warning("test discovery: more than %d files under %s; the rest are left out", MAX_FILES, under)
            break
    return found


def _scope(project: Project, path: Path | None) -> Path | None:
    """Where to look in the project for `path`: the path itself when it is inside, the whole project when the
    project is inside it, None when they do not meet."""
    root = project.root.resolve()
    if path is None or root.is_relative_to(path):
        return root
    return path if path.is_relative_to(root) else None


async def discover_projects(
    root: Path,
    projects: Sequence[Project],
    *,
    path: Path | None,
    trusted: bool,
    config: LintelConfig,
    index: TestIndex | None = None,
) -> list[ProjectTests]:
    """Each project's tests under `path` (a file or folder, resolved) or everywhere: static, and where `trusted`
    refined by the runner's own listing (run when the project's files changed since the last one)."""
    index = index if index is not None else TestIndex()
    path = path.resolve() if path is not None else None
    out: list[ProjectTests] = []
    for project in projects:
        where = _scope(project, path)
        tests = project.spec.tests
        if where is None or tests is None or tests.discover is None:
            continue
        _check_root(project, index)
        same = [p.root for p in projects if p.language == project.language]
        found = _static(project, project_files(project, where, same), index)
        if trusted and tests.collect is not None:
            everything = project_files(project, project.root.resolve(), same)
            collection = await _collect(project, tests.collect, everything, root, config, index)
            if collection is not None:
                found = refine(found, [c for c in collection if where == c[1] or c[1].is_relative_to(where)])
        out.append(ProjectTests(project, found))
    return out


async def discover_tests(
    root: Path,
    projects: Sequence[Project],
    *,
    path: Path | None,
    trusted: bool,
    config: LintelConfig,
    index: TestIndex | None = None,
) -> list[FoundTest]:
    """discover_projects' tests, one list."""
    found = await discover_projects(root, projects, path=path, trusted=trusted, config=config, index=index)
    return [test for one in found for test in one.tests]


def _files_stamp(files: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file}\0{_stamp(file)}\n".encode())
    return digest.hexdigest()


async def _collect(
    project: Project,
    collector: TestCollector,
    files: Sequence[Path],
    workspace: Path,
    config: LintelConfig,
    index: TestIndex,
) -> list[Collected] | None:
    """The runner's listing of the project (the test command, the user's override applied, with the collector's
    arguments); the last one again while no file changed. None when it could not run or said nothing readable."""
    key = _key(project)
    async with index.locks.setdefault(key, asyncio.Lock()):
        stamp = _files_stamp(files)
        known = index.collections.get(key)
        if known is not None and known.stamp == stamp:
            return known.tests
        tests = await _run_collector(project, collector, workspace, config)
        index.collections[key] = _Collection(stamp, tests, {file: _stamp(file) for file in files})
        return tests


async def _run_collector(
    project: Project, collector: TestCollector, workspace: Path, config: LintelConfig
) -> list[Collected] | None:
    try:
        spec = base_spec(project, config, "lintel.discoverTests")
    except NotSupported:
        return None
    spec = dataclasses.replace(spec, argv=(*spec.argv, *collector.args))
    seconds = min(timeout_for("test", config, None), COLLECT_SECONDS)
    try:
        result = await run_planned(
            plan_spec(project, spec, config, workspace), workspace=workspace, timeout=seconds, check="discover"
        )
    except OSError as exc:
        log.info("%s test collection could not run: %s", project.language, exc)
        return None
    if result.timed_out or result.exit_code is None:
        log.info("%s test collection did not finish: %s", project.language, result.reason)
        return None
    tests = collector.read(project, result.stdout)
    if tests is None:
        log.info("%s test collection printed nothing lintel reads (exit %s)", project.language, result.exit_code)
    return tests


def refine(found: Sequence[FoundTest], collected: Sequence[Collected]) -> list[FoundTest]:
    """The static records with a collection applied: in each file it listed, its ids are the tests (a static test
    it did not list goes; one it lists under a static function — a parametrised case — becomes that function's
    child, at its place, the function then a suite); files it did not list keep their static records."""
    listed: dict[Path, list[Collected]] = {}
    for item in collected:
        listed.setdefault(item[1], []).append(item)
    out: list[FoundTest] = []
    for file, records in _by_file(found):
        out += _refine_file(records, listed.pop(file)) if file in listed else records
    for file, items in listed.items():
        out += _unseen_file(file, items, found)
    return out


def _by_file(found: Sequence[FoundTest]) -> Iterator[tuple[Path, list[FoundTest]]]:
    groups: dict[Path, list[FoundTest]] = {}
    for record in found:
        groups.setdefault(record.file, []).append(record)
    return iter(groups.items())


def _refine_file(records: list[FoundTest], items: list[Collected]) -> list[FoundTest]:
    by_id = {r.id: r for r in records}
    children: dict[str, list[str]] = {}
    for test_id, _, under in items:
        children.setdefault(under if under in by_id else "", []).append(test_id)
    keep: set[str] = set()
    for under in children:
        at = by_id.get(under)
        while at is not None:
            keep.add(at.id)
            at = by_id.get(at.parent) if at.parent is not None else None
    out: list[FoundTest] = []
    head = next((r for r in records if r.kind == "file"), None)
    for record in records:
        if record.kind == "file" or record.id not in keep:
            if record.kind == "file":
                out.append(record)
            continue
        cases = [c for c in children.get(record.id, []) if c != record.id]
        if record.kind == "test" and cases:
            out.append(dataclasses.replace(record, kind="suite"))
            out += [_case(record, case, record) for case in cases]
        else:
            out.append(record)
    if head is not None:
        out += [_case(head, test_id, head) for test_id in children.get("", [])]
    return out


def _case(place: FoundTest, test_id: str, parent: FoundTest) -> FoundTest:
    """A listed test at the place of the record it falls under."""
    label = test_id[len(parent.id) :] if test_id.startswith(parent.id) and parent.kind != "file" else test_id
    label = label.rsplit("::", 1)[-1] if parent.kind == "file" else label
    return dataclasses.replace(place, id=test_id, label=label or test_id, kind="test", parent=parent.id)


def _unseen_file(file: Path, items: list[Collected], found: Sequence[FoundTest]) -> list[FoundTest]:
    """A file the runner lists tests in that the sources did not show as a test file (a doctest module, a
    configuration lintel did not read): its record, its tests at its top."""
    if any(r.file == file for r in found):
        return []
    name = items[0][0].split("::", 1)[0]
    head = FoundTest(name, file.name, file, 1, 1, 1, 1, "file")
    return [head, *(_case(head, test_id, head) for test_id, _, _ in items)]


# -- the command's JSON --------------------------------------------------------------------------------------------


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return path.as_posix()


def file_lines(file: Path) -> list[str]:
    """A file's lines (for UTF-16 columns); none when it cannot be read."""
    try:
        return split_lines(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return []


def _utf16(lines: Sequence[str], line: int, column: int) -> dict[str, int]:
    text = lines[line - 1] if 0 < line <= len(lines) else None
    return {"line": max(line - 1, 0), "character": convert_column(text, column - 1, "utf-32", "utf-16")}


def test_record(
    test: FoundTest,
    root: Path,
    lines: Sequence[str],
    project: Project | None = None,  # noqa: PT028 - not a test: the record of one (the rule reads the name)
) -> dict[str, Any]:
    """lintel.discoverTests' record of a test: `file` relative to the workspace folder `root`, an LSP range
    (0-based, UTF-16 columns from the file's `lines`), the project's root relative to `root` and its language."""
    record: dict[str, Any] = {
        "id": test.id,
        "label": test.label,
        "kind": test.kind,
        "file": _relative(test.file, root),
        "uri": test.file.as_uri(),
        "range": {
            "start": _utf16(lines, test.line, test.column),
            "end": _utf16(lines, test.end_line, test.end_column),
        },
    }
    if test.parent is not None:
        record["parent"] = test.parent
    if project is not None:
        record["project"] = project.relative_root(root.resolve())
        record["language"] = project.language
    return record


test_record.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, where a test module imports it


def agent_record(test: FoundTest, root: Path, language: str) -> dict[str, Any]:
    """MCP list_tests' record of a test: 1-based, columns in characters."""
    record: dict[str, Any] = {
        "id": test.id,
        "label": test.label,
        "kind": test.kind,
        "file": _relative(test.file, root),
        "line": test.line,
        "column": test.column,
        "endLine": test.end_line,
        "endColumn": test.end_column,
    }
    if test.parent is not None:
        record["parent"] = test.parent
    record["language"] = language
    return record
