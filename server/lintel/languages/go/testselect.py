"""go test: identities as `-run` patterns, one per package (`go test -run '^(TestA|TestB)$' ./sub`).

go's `-run` applies to every package of one invocation, so packages share an invocation only when the union of
their patterns picks no other test in any of them (checked against the Test functions their `_test.go` files
declare); a subtest (`TestX/case`) gets the level patterns `^TestX$/^case$` in an invocation of its own.
Names come from the failure (`<import path>.<Test>`) or, bare (`TestX`), from scanning the project's packages.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lintel.core.errors import BadArgument
from lintel.languages.base import Project, ToolSpec
from lintel.languages.go.gotests import tests_run
from lintel.languages.manifests import go_work_uses
from lintel.languages.testselect.base import Expected, Selection, TestRef, no_test, project_folders, relative

_MODULE = re.compile(r"^module\s+\"?(?P<path>[^\s\"]+)\"?", re.MULTILINE)
# A top-level test function as gofmt writes it: `func TestX(t *testing.T) {`; TestMain runs the others.
_TEST_FUNC = re.compile(r"^func (?P<name>(?:Test|Example|Fuzz)\w*)\(")
_KINDS = ("Test", "Example", "Fuzz")


@dataclass
class _Package:
    folder: Path  # resolved
    whole: bool = False  # the package's every test (a file-less package failure, say)
    tests: list[str] = field(default_factory=list)  # top-level functions
    subtests: list[list[str]] = field(default_factory=list)  # [TestX, case, ...]
    asked: dict[str, TestRef] = field(default_factory=dict)  # each test or subtest named, by the identity naming it


def select(project: Project, refs: Sequence[TestRef], base: ToolSpec, workspace: Path) -> Selection:
    packages: dict[Path, _Package] = {}
    files: list[Path] = []
    modules = _modules(project.root.resolve())
    for ref in refs:
        for folder, test in _targets(ref, project, modules):
            package = packages.setdefault(folder, _Package(folder))
            if test is None:
                package.whole = True
                continue
            package.asked.setdefault(test, ref)
            if "/" in test:
                package.subtests.append(test.split("/"))
            else:
                package.tests.append(test)
        if ref.file is not None:
            files.append(ref.file)
    invocations = _invocations(list(packages.values()))
    return Selection(
        tuple(_spec(base, project, folders, pattern) for folders, pattern, _ in invocations),
        tuple(dict.fromkeys(files)),
        # A subtest name is only known once it runs (t.Run's argument), and `-run` matching nothing passes.
        expected=tuple(expected for _, _, expected in invocations),
        started=tests_run,
    )


def select_path(project: Project, path: Path, base: ToolSpec, workspace: Path) -> Selection | None:
    """runTests {path}: a `_test.go` file's Test functions (`-run`), or a folder's packages (`./dir/...`, as
    go names a folder and those below it); None for a source file or a folder without `_test.go` files."""
    if path.is_file():
        if not path.name.endswith("_test.go"):
            return None
        return select(project, [TestRef(relative(project, path), file=path)], base, workspace)
    files = [f for d in project_folders(path, (".", "_")) for f in sorted(d.glob("*_test.go"))]
    if not files:
        return None
    kept = [a for a in base.argv if not (a == "./..." or a.endswith("/..."))]
    spec = dataclasses.replace(base, argv=(*kept, f"./{relative(project, path)}/..."))
    return Selection((spec,), tuple(files))


def _modules(root: Path) -> list[tuple[str, Path]]:
    """(module path, folder) of the project's module and the modules its go.work uses, longest path first."""
    folders = [root, *(root / use for use in go_work_uses(root) or ())]
    found: list[tuple[str, Path]] = []
    for folder in folders:
        try:
            match = _MODULE.search((folder / "go.mod").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if match:
            found.append((match.group("path"), folder.resolve()))
    return sorted(found, key=lambda m: len(m[0]), reverse=True)


def import_path(folder: Path, root: Path) -> str | None:
    """The import path of the package in `folder` (resolved), from the module of the project at `root` (or of its
    go.work) that holds it; None outside them."""
    holders = [(module, f) for module, f in _modules(root) if folder.is_relative_to(f)]
    if not holders:
        return None
    module, where = max(holders, key=lambda m: len(m[1].parts))
    rest = folder.relative_to(where).as_posix()
    return module if rest == "." else f"{module}/{rest}"


def _targets(ref: TestRef, project: Project, modules: list[tuple[str, Path]]) -> list[tuple[Path, str | None]]:
    """(package folder, test or None for the whole package) for one identity."""
    if ref.name is None:
        assert ref.file is not None
        return [(ref.file.parent, name) for name in _in_file(ref, project)]
    package, test = _split_name(ref.name)
    if package is None:
        folders = [p for p in _package_folders(project.root.resolve()) if test.split("/")[0] in declared_tests(p)]
        if not folders:
            raise no_test(ref, project, f"no _test.go file in the project declares func {test.split('/')[0]}")
        return [(folder, test) for folder in folders]
    if any(part in (".", "..", "") for part in package.split("/")):
        # An import path has no such element; as a folder it would lead out of the module.
        raise BadArgument(f"test {ref.shown!r} names a package outside the workspace; lintel only runs inside it")
    folder = _folder_of(package, modules)
    if folder is None:
        raise no_test(ref, project, f"package {package} is not in this project's modules")
    if test and not ref.recorded and test.split("/")[0] not in declared_tests(folder):
        raise no_test(ref, project, f"package {package} declares no func {test.split('/')[0]}")
    return [(folder, test or None)]


def _split_name(name: str) -> tuple[str | None, str]:
    """`example.com/m/sub.TestX/case` -> (`example.com/m/sub`, `TestX/case`); `TestX` -> (None, `TestX`); an
    import path alone (a package that failed without a test) -> (path, ``)."""
    if name.startswith(_KINDS):
        return None, name
    for match in re.finditer(r"\.", name):
        rest = name[match.end() :]
        head = rest.split("/", 1)[0]
        if head.startswith(_KINDS) and re.fullmatch(r"\w+", head):
            return name[: match.start()], rest
    return name, ""


def _folder_of(package: str, modules: list[tuple[str, Path]]) -> Path | None:
    for module, folder in modules:
        if package == module:
            return folder
        if package.startswith(module + "/"):
            candidate = (folder / package[len(module) + 1 :]).resolve()
            # A symlink inside the module may point anywhere: the package must stay in the module's folder.
            return candidate if candidate.is_dir() and candidate.is_relative_to(folder) else None
    return None


def _in_file(ref: TestRef, project: Project) -> list[str]:
    """The tests of a `_test.go` file, or the one around `line`."""
    assert ref.file is not None
    if not ref.file.name.endswith("_test.go"):
        raise no_test(ref, project, f"{relative(project, ref.file)} is not a _test.go file")
    spans = list(_func_spans(ref.file))
    if ref.line is None:
        if not spans:
            raise no_test(ref, project, f"{relative(project, ref.file)} declares no Test function")
        return [name for name, _, _ in spans]
    inside = [name for name, first, last in spans if first <= ref.line <= last]
    if not inside:
        raise no_test(ref, project, f"{relative(project, ref.file)}:{ref.line} is not inside a Test function")
    return inside


def _func_spans(file: Path) -> Iterator[tuple[str, int, int]]:
    """(name, first line, last line) of each top-level test function (gofmt'd: its body ends at a `}` line)."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return
    for index, line in enumerate(lines):
        match = _TEST_FUNC.match(line)
        if match is None or match.group("name") == "TestMain":
            continue
        end = next((j for j in range(index, len(lines)) if lines[j].startswith("}")), len(lines) - 1)
        yield match.group("name"), index + 1, end + 1


def declared_tests(folder: Path) -> set[str]:
    """The test functions the package in `folder` declares."""
    try:
        files = sorted(folder.glob("*_test.go"))
    except OSError:
        return set()
    return {name for file in files for name, _, _ in _func_spans(file)}


def _package_folders(root: Path) -> list[Path]:
    """Folders under the project holding `_test.go` files (not dependencies, test data or hidden folders)."""
    # go itself ignores folders whose names start with `.` or `_`.
    return [folder for folder in project_folders(root, (".", "_")) if any(folder.glob("*_test.go"))]


_Invocation = tuple[list[Path], str | None, tuple[Expected, ...]]


def _invocations(packages: list[_Package]) -> list[_Invocation]:
    """(package folders, -run pattern or None, the tests it must start) for each go test to run."""
    out: list[_Invocation] = []
    shared: list[_Package] = []
    for package in packages:
        if package.whole:
            out.append(([package.folder], None, ()))
            continue
        wanted = set(package.tests)
        if wanted:
            shared.append(package)
        for path in _unique_paths(package.subtests):
            if path[0] not in wanted:
                name = "/".join(path)
                pattern = "/".join(f"^{re.escape(level)}$" for level in path)
                out.append(([package.folder], pattern, (Expected(name, package.asked[name]),)))
    out[:0] = _shared_invocations(shared)
    return out


def _unique_paths(paths: list[list[str]]) -> list[list[str]]:
    return [list(p) for p in dict.fromkeys(tuple(p) for p in paths)]


def _shared_invocations(packages: list[_Package]) -> list[_Invocation]:
    """Packages whose whole tests can share one `-run`: the union picks nothing else in any of them."""
    groups: list[list[_Package]] = []
    for package in packages:
        for group in groups:
            union = {t for p in [*group, package] for t in p.tests}
            if all(declared_tests(p.folder) & union <= set(p.tests) for p in [*group, package]):
                group.append(package)
                break
        else:
            groups.append([package])
    out: list[_Invocation] = []
    for group in groups:
        names = sorted({t for p in group for t in p.tests})
        # The whole tests, and the subtests asked for beside them (their parent's run runs them, if they exist).
        expected = tuple(
            Expected(name, ref) for p in group for name, ref in p.asked.items() if name.split("/")[0] in p.tests
        )
        out.append(([p.folder for p in group], f"^({'|'.join(re.escape(n) for n in names)})$", expected))
    return out


def _spec(base: ToolSpec, project: Project, folders: list[Path], pattern: str | None) -> ToolSpec:
    """The test command with its package patterns (`./...`) replaced by the packages, `-run` before them."""
    root = project.root.resolve()
    kept = [a for a in base.argv if not (a == "./..." or a.endswith("/..."))]
    targets = ["." if f == root else f"./{relative(project, f)}" for f in folders]
    run = ("-run", pattern) if pattern is not None else ()
    return dataclasses.replace(base, argv=(*kept, *run, *targets))
