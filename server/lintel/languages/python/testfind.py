"""pytest's tests found without running pytest: the test files, classes and functions its collection rules name
(the defaults, or `python_files`/`python_classes`/`python_functions`/`testpaths` where the project sets them),
read with `ast`, as node ids relative to the project root (what `pytest --collect-only -q` lists)."""

from __future__ import annotations

import ast
import configparser
import fnmatch
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.core.positions import split_lines
from lintel.core.testitems import FoundTest, TestKind
from lintel.core.tomlread import read_toml
from lintel.languages.base import Collected, Project
from lintel.languages.testselect.base import relative

_Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class PytestNames:
    """What pytest collects: file globs, class and function prefixes (or globs), and where it looks."""

    files: tuple[str, ...] = ("test_*.py", "*_test.py")
    classes: tuple[str, ...] = ("Test",)
    functions: tuple[str, ...] = ("test",)
    testpaths: tuple[str, ...] = ()

    def is_test_file(self, file: Path, root: Path) -> bool:
        if file.suffix != ".py":
            return False
        rel = relative_posix(file, root)
        if self.testpaths and not any(_under(rel, top) for top in self.testpaths):
            return False
        return any(fnmatch.fnmatch(file.name if "/" not in p else rel, p) for p in self.files)


def relative_posix(file: Path, root: Path) -> str:
    try:
        return file.relative_to(root).as_posix()
    except ValueError:
        return file.as_posix()


def _under(rel: str, top: str) -> bool:
    top = top.strip("/").removeprefix("./")
    if top in ("", "."):
        return True
    if any(c in top for c in "*?["):
        return any(fnmatch.fnmatch("/".join(rel.split("/")[:n]), top) for n in range(1, rel.count("/") + 2))
    return rel == top or rel.startswith(top + "/")


def _matches(name: str, options: Sequence[str]) -> bool:
    """pytest's rule for python_classes/python_functions: a prefix, or a glob when the option holds one."""
    return any(name.startswith(o) or (any(c in o for c in "*?[") and fnmatch.fnmatch(name, o)) for o in options)


def _words(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(w for v in value for w in v.split())
    return None


def _ini(path: Path, section: str) -> Mapping[str, str] | None:
    if not path.is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None
    return dict(parser.items(section)) if parser.has_section(section) else None


def _options(root: Path) -> Mapping[str, Any]:
    """The first pytest configuration pytest itself would read at the project root (its order of files)."""
    for name in ("pytest.ini", ".pytest.ini"):
        found = _ini(root / name, "pytest")
        if found is not None:
            return found
    document = read_toml(root / "pyproject.toml") or {}
    tool = document.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, Mapping) else None
    if isinstance(pytest, Mapping):
        legacy = pytest.get("ini_options")
        return legacy if isinstance(legacy, Mapping) else pytest
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        found = _ini(root / name, section)
        if found is not None:
            return found
    return {}


def pytest_names(root: Path) -> PytestNames:
    options = _options(root)
    default = PytestNames()
    return PytestNames(
        files=_words(options.get("python_files")) or default.files,
        classes=_words(options.get("python_classes")) or default.classes,
        functions=_words(options.get("python_functions")) or default.functions,
        testpaths=_words(options.get("testpaths")) or (),
    )


def discover(project: Project, files: Sequence[Path], texts: Mapping[Path, str]) -> list[FoundTest]:
    """LanguageSpec.tests.discover for pytest: each test file's record, its classes, then their tests."""
    root = project.root.resolve()
    names = pytest_names(root)
    found: list[FoundTest] = []
    for file in files:
        if names.is_test_file(file, root):
            found += file_tests(project, file, texts.get(file), names)
    return found


def file_tests(project: Project, file: Path, text: str | None, names: PytestNames) -> list[FoundTest]:
    """The records of one test file (no records when it cannot be read or parsed)."""
    try:
        source = text if text is not None else file.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(file))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    lines = split_lines(source)
    file_id = relative(project, file)
    head = FoundTest(file_id, file.name, file, 1, 1, len(lines), len(lines[-1]) + 1, "file")
    reader = _Reader(file, lines, names, _classes(tree.body))
    if _flag_false(tree.body):
        return [head]
    return [head, *reader.body(tree.body, file_id)]


def _classes(body: list[ast.stmt]) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in body if isinstance(n, ast.ClassDef)}


def _flag_false(body: list[ast.stmt]) -> bool:
    """`__test__ = False`: pytest leaves the module or class out."""
    for node in body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__test__" for t in node.targets):
            return isinstance(node.value, ast.Constant) and node.value.value is False
    return False


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


class _Reader:
    """One file's tree walked as pytest collects it."""

    def __init__(self, file: Path, lines: list[str], names: PytestNames, classes: dict[str, ast.ClassDef]) -> None:
        self.file = file
        self.lines = lines
        self.names = names
        self.classes = classes

    def body(self, body: list[ast.stmt], parent: str) -> Iterator[FoundTest]:
        for node in body:
            if isinstance(node, _Def) and self._is_test_function(node):
                yield self._record(node, f"{parent}::{node.name}", parent, "test")
            elif isinstance(node, ast.ClassDef):
                yield from self._class(node, parent)

    def _is_test_function(self, node: _Def) -> bool:
        """A function pytest collects: its name matches, and it is not a fixture."""
        decorators = (d.func if isinstance(d, ast.Call) else d for d in node.decorator_list)
        fixture = any((_base_name(d) or "").endswith("fixture") for d in decorators)
        return _matches(node.name, self.names.functions) and not fixture

    def _class(self, node: ast.ClassDef, parent: str) -> Iterator[FoundTest]:
        unittest = self._is_unittest(node, set())
        if not unittest and not _matches(node.name, self.names.classes):
            return
        if _flag_false(node.body) or (not unittest and self._has_init(node, set())):
            return
        suite = f"{parent}::{node.name}"
        yield self._record(node, suite, parent, "suite")
        for method in self._methods(node, set()):
            wanted = method.name.startswith("test") if unittest else self._is_test_function(method)
            if wanted:
                yield self._record(method, f"{suite}::{method.name}", suite, "test")
        if not unittest:
            for inner in node.body:
                if isinstance(inner, ast.ClassDef):
                    yield from self._class(inner, suite)

    def _bases(self, node: ast.ClassDef, seen: set[str]) -> Iterator[ast.ClassDef]:
        """The classes of this file `node` derives from (each once)."""
        for base in node.bases:
            name = _base_name(base)
            found = self.classes.get(name) if name is not None else None
            if found is not None and found is not node and found.name not in seen:
                seen.add(found.name)
                yield found

    def _is_unittest(self, node: ast.ClassDef, seen: set[str]) -> bool:
        """A unittest.TestCase subclass (any `*TestCase` base, or a class of this file that is one)."""
        if any((_base_name(b) or "").endswith("TestCase") for b in node.bases):
            return True
        return any(self._is_unittest(base, seen) for base in self._bases(node, seen))

    def _has_init(self, node: ast.ClassDef, seen: set[str]) -> bool:
        if any(isinstance(n, _Def) and n.name in ("__init__", "__new__") for n in node.body):
            return True
        return any(self._has_init(base, seen) for base in self._bases(node, seen))

    def _methods(self, node: ast.ClassDef, seen: set[str]) -> list[_Def]:
        """The class's functions, then those it inherits from this file's classes (a name once: the nearest)."""
        own = [n for n in node.body if isinstance(n, _Def)]
        names = {n.name for n in own}
        for base in self._bases(node, seen):
            for method in self._methods(base, seen):
                if method.name not in names:
                    names.add(method.name)
                    own.append(method)
        return own

    def _column(self, line: int, byte_offset: int) -> int:
        """A 1-based character column from ast's 0-based UTF-8 offset."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore")) + 1

    def _record(self, node: _Def | ast.ClassDef, test_id: str, parent: str, kind: TestKind) -> FoundTest:
        first: ast.expr | _Def | ast.ClassDef = min([node, *node.decorator_list], key=lambda n: n.lineno)
        # A decorator's expression starts after its `@`.
        start = first.col_offset - 1 if first is not node else node.col_offset
        end_line = node.end_lineno or node.lineno
        end_column = self._column(end_line, node.end_col_offset or 0)
        return FoundTest(
            test_id,
            node.name,
            self.file,
            first.lineno,
            self._column(first.lineno, max(start, 0)),
            end_line,
            end_column,
            kind,
            parent,
        )


# `--verbosity=-1` sets what `-q` gives however many `-q` or `-v` the command and addopts hold: one node id a line;
# without pytest-randomly (where installed) the cases come in their declared order.
COLLECT_ARGS = ("--collect-only", "--verbosity=-1", "-p", "no:randomly")


def collected(project: Project, stdout: str) -> list[Collected] | None:
    """The node ids `pytest --collect-only -q` printed (each under its function: `test_p[1]` is `test_p`'s);
    None when it printed none it could have."""
    root = project.root.resolve()
    found: list[Collected] = []
    files: dict[str, Path | None] = {}
    for line in stdout.splitlines():
        node_id = line.strip()
        file_part, sep, rest = node_id.partition("::")
        if not sep or not file_part.endswith(".py") or not rest or node_id != line.rstrip("\r"):
            continue
        if file_part not in files:
            candidate = root / file_part
            files[file_part] = candidate.resolve() if candidate.is_file() else None
        file = files[file_part]
        if file is not None:
            found.append((node_id, file, node_id.split("[", 1)[0]))
    if found or "no tests collected" in stdout or re.search(r"^collected 0 items", stdout, re.MULTILINE):
        return found
    return None
