"""Test identities and what a subset of tests runs as (docs/agents.md, Running a subset of tests).

An identity is what an agent names a test by: the `name` a TestFailure carries, a test file, or `file:line`.
Each runner's module (`testselect.python`, `go`, `rust`, `node`) turns identities into the runner's own
filters; the result is one or more commands, each a ToolSpec the check layer runs as it runs a whole suite.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from lintel.core.errors import BadArgument
from lintel.languages.base import SKIPPED_DIRS, Project
from lintel.languages.base import Discoverer as Discoverer

# Declared beside LanguageSpec, which holds a TestSelection; named here too, where the runners look for them.
from lintel.languages.base import Expected as Expected
from lintel.languages.base import PathSelector as PathSelector
from lintel.languages.base import Selection as Selection
from lintel.languages.base import Selector as Selector
from lintel.languages.base import TestRef as TestRef
from lintel.languages.base import TestSelection as TestSelection

_FILE_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def resolve_file(text: str, project: Project, workspace: Path) -> Path | None:
    """An existing file named absolute, relative to the workspace folder (as Issues and TestFailures name
    files) or to the project root; None when it names no file. A file outside the workspace is refused."""
    if "\0" in text:
        raise BadArgument(f"tests: {text!r} contains a NUL byte: it names no file and no test")
    raw = Path(text).expanduser()
    # The project's own file first: a relative name that exists in both is the project's (a nested project's
    # `tests/test_x.py`, as discovery names it), since the project's runner could not run the other.
    candidates = [raw] if raw.is_absolute() else [project.root / raw, workspace / raw]
    for candidate in candidates:
        try:
            if not candidate.is_file():
                continue
            resolved = candidate.resolve()
        except (OSError, ValueError):
            continue
        if not resolved.is_relative_to(workspace.resolve()):
            raise BadArgument(f"test file {text!r} is outside the workspace; lintel only runs inside it")
        return resolved
    return None


def parse_identity(entry: str | Mapping[str, object], project: Project, workspace: Path) -> TestRef:
    """A string (a name, a file, `file:line`) or a TestFailure-shaped object `{name, file?, line?}`."""
    if isinstance(entry, Mapping):
        return _from_failure(entry, project, workspace, recorded=False)
    text = entry.strip()
    if not text:
        raise BadArgument("tests: an empty test identity")
    located = _FILE_LINE.match(text)
    if located:
        file = resolve_file(located.group("file"), project, workspace)
        if file is not None:
            line = int(located.group("line"))
            if line < 1:
                raise BadArgument(f"tests: {text!r}: lines start at 1")
            return TestRef(text, file=file, line=line)
    file = resolve_file(text, project, workspace)
    if file is not None:
        return TestRef(text, file=file)
    return TestRef(text, name=text)


def recorded_ref(name: str, file: str | None, line: int | None, project: Project, workspace: Path) -> TestRef:
    """A failure of the last run as an identity: its name as the runner reported it."""
    return _from_failure({"name": name, "file": file, "line": line}, project, workspace, recorded=True)


def _from_failure(entry: Mapping[str, object], project: Project, workspace: Path, *, recorded: bool) -> TestRef:
    name, file, line = entry.get("name"), entry.get("file"), entry.get("line")
    if not isinstance(name, str) or not name.strip():
        raise BadArgument("tests: an object identity needs `name` (the name a TestFailure carries)")
    if file is not None and not isinstance(file, str):
        raise BadArgument(f"tests: {name!r}: `file` must be a string")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
        raise BadArgument(f"tests: {name!r}: `line` must be an integer")
    resolved = resolve_file(file, project, workspace) if file else None
    # A failure named after its file (a module that failed to import, a suite that failed to run) is that file.
    as_file = resolve_file(name, project, workspace)
    if as_file is not None:
        return TestRef(name, file=as_file, recorded=recorded)
    return TestRef(name, name=name, file=resolved, line=line if resolved is not None else None, recorded=recorded)


def relative(project: Project, file: Path) -> str:
    """`file` as the runner is given it: relative to the project root, where it runs."""
    try:
        return file.relative_to(project.root.resolve()).as_posix()
    except ValueError:
        return file.as_posix()


def no_test(ref: TestRef, project: Project, detail: str) -> BadArgument:
    """The error for an identity that names nothing the runner would run: never a silent full run."""
    return BadArgument(f"no {project.language} test matches {ref.shown!r}: {detail}")


def unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def project_folders(root: Path, skipped_prefixes: tuple[str, ...] = (".",)) -> Iterator[Path]:
    """The project's folders, top-down, without dependencies, build output, test data or hidden folders (never
    entered, so a large node_modules costs nothing)."""
    for current, dirs, _ in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(skipped_prefixes))
        yield Path(current)
