"""cargo test: identities as exact libtest names (`cargo test --lib -- --exact tests::adds`), with the targets
(`--lib`, `--bin x`, `--test x`) and, in a workspace, the packages (`-p x`) that hold them.

The tests are found by reading the sources: each `#[test]` function (also `#[tokio::test]` and the like) under
its module path — the file's place in `src/` (`src/a/b.rs` is `a::b`) and the inline `mod x { … }` around it.
Tests that macros generate are not found this way; recorded failures (runFailingTests) are run by name anyway.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lintel.core.tomlread import read_toml
from lintel.languages.base import Project, ToolSpec
from lintel.languages.rust.tools import workspace as cargo_workspace
from lintel.languages.testselect.base import Selection, TestRef, no_test, relative, unique

_TEST_ATTR = re.compile(r"^\s*#\[(?:\w+::)*test(?:\(.*\))?\]")
_FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(?P<name>\w+)")
_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?P<name>\w+)\s*\{")
# What braces inside cannot count: strings, char literals, line comments.
_NOISE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\\\'])\'|//.*$')


@dataclass(frozen=True)
class RustTest:
    crate: str  # the package name (`-p`)
    target: tuple[str, ...]  # `--lib`, `--bin x`, `--test x`
    name: str  # the libtest name: module path and function
    file: Path
    first: int  # the attribute's line
    last: int  # the closing brace's line
    modules: tuple[tuple[str, int, int], ...] = ()  # inline modules around it: (name, first, last)


def select(project: Project, refs: Sequence[TestRef], base: ToolSpec, workspace: Path) -> Selection:
    tests = list(crate_tests(project))
    hits: list[tuple[RustTest | None, str]] = []
    files: list[Path] = []
    for ref in refs:
        hits.extend(_hits(ref, project, tests))
        if ref.file is not None:
            files.append(ref.file)
    crates = unique([t.crate for t, _ in hits if t is not None])
    known = all(t is not None for t, _ in hits)
    kept = [a for a in base.argv if a != "--"]
    flags: list[str] = []
    if "--workspace" in kept and known:
        kept.remove("--workspace")
        flags += [arg for crate in crates for arg in ("-p", crate)]
    if known and len(crates) == 1:
        flags += [arg for target in unique([" ".join(t.target) for t, _ in hits if t]) for arg in target.split(" ")]
    names = unique([name for _, name in hits])
    argv = (*kept, *flags, "--", "--exact", *names)
    return Selection((dataclasses.replace(base, argv=argv),), tuple(dict.fromkeys(files)))


def select_path(project: Project, path: Path, base: ToolSpec, workspace: Path) -> Selection | None:
    """runTests {path}: the tests in a file or under a folder; None when there are none. Integration test files
    (`tests/x.rs`) run as their whole targets (`--test x`); tests in `src/` by their exact names."""
    tests = [t for t in crate_tests(project) if t.file.is_relative_to(path)]
    if not tests:
        return None
    files = tuple(dict.fromkeys(t.file for t in tests))
    if any(t.target[0] != "--test" for t in tests):
        return select(project, [TestRef(relative(project, f), file=f) for f in files], base, workspace)
    kept = [a for a in base.argv if a != "--"]
    flags: list[str] = []
    if "--workspace" in kept:
        kept.remove("--workspace")
        flags += [arg for crate in unique([t.crate for t in tests]) for arg in ("-p", crate)]
    flags += [arg for target in unique([" ".join(t.target) for t in tests]) for arg in target.split(" ")]
    return Selection((dataclasses.replace(base, argv=(*kept, *flags)),), files)


def _hits(ref: TestRef, project: Project, tests: list[RustTest]) -> list[tuple[RustTest | None, str]]:
    if ref.name is not None:
        found = [t for t in tests if t.name == ref.name]
        if not found and not ref.recorded:
            raise no_test(
                ref, project, "no #[test] function has that path (`module::function`, as cargo test names it)"
            )
        return [(t, t.name) for t in found] or [(None, ref.name)]
    assert ref.file is not None
    in_file = [t for t in tests if t.file == ref.file]
    where = relative(project, ref.file)
    if ref.line is None:
        if not in_file:
            raise no_test(ref, project, f"{where} has no #[test] function lintel can find")
        return [(t, t.name) for t in in_file]
    line = ref.line
    around = [t for t in in_file if t.first <= line <= t.last]
    around = around or [t for t in in_file if any(first <= line <= last for _, first, last in t.modules)]
    if not around:
        raise no_test(ref, project, f"{where}:{line} is not inside a #[test] function or a module of tests")
    return [(t, t.name) for t in around]


def crate_tests(project: Project) -> Iterator[RustTest]:
    """Every test function of the project's packages (a workspace's members too)."""
    root = project.root.resolve()
    work = cargo_workspace(project)
    for crate in [root, *(work.members if work is not None else ())]:
        manifest = read_toml(crate / "Cargo.toml") or {}
        package = manifest.get("package")
        name = package.get("name") if isinstance(package, dict) else None
        if isinstance(name, str):
            for target, file, modules in _targets(crate, name):
                yield from _scan(name, target, file, modules)


def _targets(crate: Path, package: str) -> Iterator[tuple[tuple[str, ...], Path, tuple[str, ...]]]:
    """(target flags, source file, module path of the file) for the crate's conventional layout."""
    src = crate / "src"
    lib = (src / "lib.rs").is_file()
    for file in sorted(src.rglob("*.rs")) if src.is_dir() else []:
        rel = file.relative_to(src)
        if rel.parts[0] == "bin":
            stem = rel.parts[1] if len(rel.parts) > 2 else file.stem
            yield ("--bin", stem), file.resolve(), ()
        elif rel == Path("main.rs") or (not lib and rel != Path("main.rs")):
            yield ("--bin", package), file.resolve(), _module_path(rel) if rel != Path("main.rs") else ()
        else:
            yield ("--lib",), file.resolve(), _module_path(rel)
    tests = crate / "tests"
    for file in sorted(tests.glob("*.rs")) if tests.is_dir() else []:
        yield ("--test", file.stem), file.resolve(), ()
    for file in sorted(tests.glob("*/main.rs")) if tests.is_dir() else []:
        yield ("--test", file.parent.name), file.resolve(), ()


def _module_path(rel: Path) -> tuple[str, ...]:
    """`lib.rs` -> (); `a.rs`, `a/mod.rs` -> (a,); `a/b.rs` -> (a, b)."""
    parts = list(rel.with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def _scan(crate: str, target: tuple[str, ...], file: Path, base: tuple[str, ...]) -> Iterator[RustTest]:
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return
    depth = 0
    modules: list[tuple[str, int, int]] = []  # (name, depth inside, first line)
    closed: dict[int, int] = {}  # first line of a module -> its last line
    pending: int | None = None  # the line of a test attribute waiting for its fn
    open_tests: list[tuple[str, int, int, tuple[tuple[str, int], ...]]] = []  # name, first, depth, modules
    found: list[tuple[str, int, int, tuple[tuple[str, int], ...]]] = []
    for number, raw in enumerate(lines, 1):
        code = _NOISE.sub("", raw)
        if _TEST_ATTR.match(code):
            pending = pending or number
        fn = _FN.match(code)
        if fn and pending is not None:
            path = "::".join([*base, *(m[0] for m in modules), fn.group("name")])
            open_tests.append((path, pending, depth, tuple((m[0], m[2]) for m in modules)))
            pending = None
        mod = _MOD.match(code)
        depth += code.count("{") - code.count("}")
        if mod:
            modules.append((mod.group("name"), depth, number))
        while modules and depth < modules[-1][1]:
            closed[modules.pop()[2]] = number
        while open_tests and depth <= open_tests[-1][2] and "}" in code:
            name, first, _, around = open_tests.pop()
            found.append((name, first, number, around))
    for name, first, last, around in found:
        spans = tuple((m, start, closed.get(start, len(lines))) for m, start in around)
        yield RustTest(crate, target, name, file, first, last, spans)
