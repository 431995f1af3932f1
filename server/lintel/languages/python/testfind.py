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
        # As pytest's fnmatch_ex: a pattern without a `/` matches the name; one with, the path's end.
        return any(
            fnmatch.fnmatch(file.name, p) if "/" not in p else fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel, f"*/{p}")
            for p in self.files
        )


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
    module = _Module.read(file, text)
    if module is None:
        return []
    lines = module.lines
    file_id = relative(project, file)
    head = FoundTest(file_id, file.name, file, 1, 1, len(lines), len(lines[-1]) + 1, "file")
    if _flag_false(module.body):
        return [head]
    reader = _Reader(module, names, _Modules(project.root.resolve(), file))
    return [head, *reader.body(file_id)]


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


_Node = ast.ClassDef | _Def
_NODES = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class _Module:
    """A parsed module: where a test module's names (its own, or imported from the project's modules) are defined."""

    file: Path
    lines: list[str]
    body: list[ast.stmt]

    @staticmethod
    def read(file: Path, text: str | None = None) -> _Module | None:
        try:
            source = text if text is not None else file.read_text(encoding="utf-8")
            tree = ast.parse(source, filename=str(file))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None
        return _Module(file, split_lines(source), tree.body)


_Found = tuple[_Node, _Module]


class _Modules:
    """The project's modules a test module imports classes and functions from (`from .base import TestBase`),
    found where pytest's default import mode puts them on sys.path: the test file's first folder up that is not a
    package, the project root, its `src`."""

    DEPTH = 4

    def __init__(self, root: Path, file: Path) -> None:
        self.root = root
        base = file.parent
        while (base / "__init__.py").is_file() and base != root and root in base.parents:
            base = base.parent
        self.roots = list(dict.fromkeys([base, root, root / "src"]))
        self.read: dict[Path, _Module | None] = {}

    def _load(self, path: Path) -> _Module | None:
        for candidate in (path.with_suffix(".py"), path / "__init__.py"):
            if candidate not in self.read:
                self.read[candidate] = _Module.read(candidate) if candidate.is_file() else None
            if self.read[candidate] is not None:
                return self.read[candidate]
        return None

    def imported(self, module: _Module, node: ast.ImportFrom) -> _Module | None:
        parts = (node.module or "").split(".") if node.module else []
        if node.level:
            folder = module.file.parent
            for _ in range(node.level - 1):
                folder = folder.parent
            return self._load(folder.joinpath(*parts)) if parts else None
        for root in self.roots:
            found = self._load(root.joinpath(*parts)) if parts else None
            if found is not None:
                return found
        return None

    def lookup(self, module: _Module, name: str, depth: int = 0) -> _Found | None:
        """Where `name` (a class or function) of `module` is defined: the last statement binding it wins."""
        found: _Found | None = None
        for node in module.body:
            if isinstance(node, _NODES) and node.name == name:
                found = (node, module)
            elif isinstance(node, ast.ImportFrom) and depth < self.DEPTH:
                alias = next((a for a in node.names if (a.asname or a.name) == name), None)
                if alias is not None:
                    source = self.imported(module, node)
                    found = self.lookup(source, alias.name, depth + 1) if source is not None else None
        return found


class _Reader:
    """One test module walked as pytest collects it. A test declared in another module (an imported class, a
    method inherited from one) is placed at the statement of this module that brings it in."""

    def __init__(self, module: _Module, names: PytestNames, modules: _Modules) -> None:
        self.module = module
        self.names = names
        self.modules = modules

    def body(self, parent: str) -> Iterator[FoundTest]:
        for statement in self.module.body:
            for node, where in self._bound(statement):
                anchor = None if where is self.module else statement
                if isinstance(node, _Def) and self._is_test_function(node):
                    yield self._record(node, f"{parent}::{node.name}", parent, "test", anchor)
                elif isinstance(node, ast.ClassDef):
                    yield from self._class(node, where, parent, anchor)

    def _bound(self, statement: ast.stmt) -> Iterator[_Found]:
        """What a top-level statement binds that pytest may collect: its class or function, or the project's
        classes and functions it imports."""
        if isinstance(statement, _NODES):
            yield statement, self.module
        elif isinstance(statement, ast.ImportFrom) and any(
            _matches(a.asname or a.name, (*self.names.classes, *self.names.functions)) for a in statement.names
        ):
            source = self.modules.imported(self.module, statement)
            for alias in statement.names if source is not None else ():
                found = self.modules.lookup(source, alias.name) if source is not None else None
                if found is not None and (alias.asname or alias.name) == found[0].name:
                    yield found

    def _is_test_function(self, node: _Def) -> bool:
        """A function pytest collects: its name matches, and it is not a fixture."""
        decorators = (d.func if isinstance(d, ast.Call) else d for d in node.decorator_list)
        fixture = any((_base_name(d) or "").endswith("fixture") for d in decorators)
        return _matches(node.name, self.names.functions) and not fixture

    def _class(self, node: ast.ClassDef, where: _Module, parent: str, anchor: ast.stmt | None) -> Iterator[FoundTest]:
        unittest = self._is_unittest(node, where, set())
        if not unittest and not _matches(node.name, self.names.classes):
            return
        if _flag_false(node.body) or (not unittest and self._has_init(node, where, set())):
            return
        suite = f"{parent}::{node.name}"
        yield self._record(node, suite, parent, "suite", anchor)
        members = self._members(node, where, set())
        for method, owner in members:
            if not isinstance(method, _Def):
                continue
            if method.name.startswith("test") if unittest else self._is_test_function(method):
                # A method of another module is placed at the class that inherits it (or at the import).
                at = None if owner is self.module else anchor or node
                yield self._record(method, f"{suite}::{method.name}", suite, "test", at)
        for inner, owner in members if not unittest else ():
            if isinstance(inner, ast.ClassDef):
                yield from self._class(inner, owner, suite, None if owner is self.module else anchor or node)

    def _bases(self, node: ast.ClassDef, where: _Module, seen: set[int]) -> Iterator[_Found]:
        """The project's classes `node` derives from (each once)."""
        for base in node.bases:
            name = _base_name(base)
            found = self.modules.lookup(where, name) if name is not None else None
            usable = found is not None and isinstance(found[0], ast.ClassDef) and found[0] is not node
            if found is not None and usable and id(found[0]) not in seen:
                seen.add(id(found[0]))
                yield found

    def _is_unittest(self, node: ast.ClassDef, where: _Module, seen: set[int]) -> bool:
        """A unittest.TestCase subclass (any `*TestCase` base, or a project class that is one)."""
        if any((_base_name(b) or "").endswith("TestCase") for b in node.bases):
            return True
        return any(self._is_unittest(base, at, seen) for base, at in self._bases(node, where, seen))  # type: ignore[arg-type]

    def _has_init(self, node: ast.ClassDef, where: _Module, seen: set[int]) -> bool:
        if any(isinstance(n, _Def) and n.name in ("__init__", "__new__") for n in node.body):
            return True
        return any(self._has_init(base, at, seen) for base, at in self._bases(node, where, seen))  # type: ignore[arg-type]

    def _members(self, node: ast.ClassDef, where: _Module, seen: set[int]) -> list[_Found]:
        """The class's functions and classes, then those it inherits from the project's classes (a name once: the
        nearest), each with the module it is written in."""
        own: list[_Found] = [(n, where) for n in node.body if isinstance(n, _NODES)]
        names = {n.name for n, _ in own}
        for base, at in self._bases(node, where, seen):
            for member, owner in self._members(base, at, seen):  # type: ignore[arg-type]
                if member.name not in names:
                    names.add(member.name)
                    own.append((member, owner))
        return own

    def _column(self, line: int, byte_offset: int) -> int:
        """A 1-based character column from ast's 0-based UTF-8 offset."""
        lines = self.module.lines
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore")) + 1

    def _record(
        self, node: _Node, test_id: str, parent: str, kind: TestKind, anchor: ast.stmt | None = None
    ) -> FoundTest:
        place: ast.stmt = anchor if anchor is not None else node
        decorators: list[ast.expr] = place.decorator_list if isinstance(place, _NODES) else []
        first: ast.expr | ast.stmt = place
        for decorator in decorators:
            first = decorator if decorator.lineno < first.lineno else first
        # A decorator's expression starts after its `@`.
        start = first.col_offset - 1 if first is not place else place.col_offset
        end_line = place.end_lineno or place.lineno
        return FoundTest(
            test_id,
            node.name,
            self.module.file,
            first.lineno,
            self._column(first.lineno, max(start, 0)),
            end_line,
            self._column(end_line, place.end_col_offset or 0),
            kind,
            parent,
        )


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
