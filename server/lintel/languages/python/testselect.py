"""pytest: identities as node ids (`tests/test_x.py::TestGroup::test_y`), appended to the test command.

A `file:line` is the test function (or test class) around that line, found by parsing the file with `ast`;
a name is checked the same way, so a misspelt test is an error rather than pytest's exit 4.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from lintel.core.errors import BadArgument
from lintel.languages.base import Project, ToolSpec
from lintel.languages.testselect.base import (
    Selection,
    TestRef,
    no_test,
    project_folders,
    relative,
    resolve_file,
    unique,
)

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def select(project: Project, refs: Sequence[TestRef], base: ToolSpec, workspace: Path) -> Selection:
    ids: list[str] = []
    files: list[Path] = []
    for ref in refs:
        node_id, file = node_id_for(ref, project, workspace)
        ids.append(node_id)
        files.append(file)
    # `--` keeps a node id that starts with `-` from being read as an option.
    argv = (*base.argv, "--", *unique(ids))
    return Selection((dataclasses.replace(base, argv=argv),), tuple(dict.fromkeys(files)))


def select_path(project: Project, path: Path, base: ToolSpec, workspace: Path) -> Selection | None:
    """runTests {path}: a test file or a folder given to pytest as it is (pytest collects what is below);
    None when it holds no test file (a source file, a folder of sources)."""
    candidates = [path] if path.is_file() else [f for d in project_folders(path) for f in sorted(d.glob("*.py"))]
    files = [f for f in candidates if is_test_file(f)]
    if not files:
        return None
    argv = (*base.argv, "--", relative(project, path))
    return Selection((dataclasses.replace(base, argv=argv),), tuple(files))


def is_test_file(file: Path) -> bool:
    """pytest's default `python_files`: `test_*.py` and `*_test.py`."""
    return file.suffix == ".py" and (file.name.startswith("test_") or file.stem.endswith("_test"))


def node_id_for(ref: TestRef, project: Project, workspace: Path) -> tuple[str, Path]:
    """The pytest node id for an identity, relative to the project root (pytest runs there), and its file."""
    if ref.name is None:
        assert ref.file is not None
        if ref.line is None:
            return relative(project, ref.file), ref.file
        path = _at_line(ref, project)
        return "::".join([relative(project, ref.file), *path]), ref.file
    file_part, sep, rest = ref.name.partition("::")
    # A node id names its file from the project root (where pytest runs), before the workspace's.
    file = _in_project(file_part, project) or resolve_file(file_part, project, workspace)
    if file is None or not sep:
        raise no_test(ref, project, "a pytest test is named `file::test` or `file::Class::test`, a file or `file:line`")
    parts = _parts(rest)
    if not ref.recorded:
        _check_defined(ref, file, project, parts)
    return "::".join([relative(project, file), *parts]), file


def _in_project(file_part: str, project: Project) -> Path | None:
    root = project.root.resolve()
    try:
        candidate = (root / file_part).resolve()
        return candidate if candidate.is_relative_to(root) and candidate.is_file() else None
    except (OSError, ValueError):
        return None


def _parts(rest: str) -> list[str]:
    """`Class::test[id]` -> [`Class`, `test[id]`]. A parametrize id may itself hold `::` (`test_p[x::y]`):
    as pytest reads its arguments, the parametrization starts at the first `[` and is not split."""
    names, bracket, params = rest.partition("[")
    parts = names.split("::")
    parts[-1] += bracket + params
    return parts


def _tree(file: Path, ref: TestRef, project: Project) -> ast.Module:
    try:
        return ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        raise BadArgument(f"tests: {ref.shown!r}: cannot read {relative(project, file)}: {exc}") from exc


def _check_defined(ref: TestRef, file: Path, project: Project, parts: list[str]) -> None:
    """Each part of the node id (classes, then the function, `[params]` left out) is defined where it says."""
    body: list[ast.stmt] = _tree(file, ref, project).body
    for index, part in enumerate(parts):
        wanted = part.split("[", 1)[0]
        found = next((n for n in body if isinstance(n, Scope) and n.name == wanted), None)
        if found is None:
            where = "::".join([relative(project, file), *parts[:index]])
            raise no_test(ref, project, f"{wanted!r} is not defined in {where}")
        body = found.body


def _at_line(ref: TestRef, project: Project) -> list[str]:
    """The classes and test function enclosing the line (decorators count as part of what they decorate)."""
    assert ref.file is not None
    assert ref.line is not None
    line = ref.line
    body: list[ast.stmt] = _tree(ref.file, ref, project).body
    path: list[str] = []
    while True:
        inner = next((n for n in body if isinstance(n, Scope) and _spans(n, line)), None)
        if inner is None:
            break
        path.append(inner.name)
        if isinstance(inner, ast.ClassDef):
            body = inner.body
            continue
        break
    if not path or not _is_test(path):
        at = f"{relative(project, ref.file)}:{line}"
        what = f"`{'.'.join(path)}`, which is not a test" if path else "no test function or class"
        raise no_test(ref, project, f"{at} is in {what}")
    return path


def _spans(node: Scope, line: int) -> bool:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first <= line <= (node.end_lineno or node.lineno)


def _is_test(path: list[str]) -> bool:
    """pytest's default collection: `test*` functions, in `Test*` classes if any (a class alone is all its tests)."""
    *classes, last = path
    if not all(c.startswith("Test") for c in classes):
        return False
    return last.startswith("test") or last.startswith("Test")
