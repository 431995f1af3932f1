"""cargo test: identities as exact libtest names (`cargo test --lib -- --exact tests::adds`), with the targets
(`--lib`, `--bin x`, `--test x`) and, in a workspace, the packages (`-p x`) that hold them.

The tests are found by reading the sources (`testscan`): each `#[test]` function (also `#[tokio::test]` and the
like) under its module path — the file's place in `src/` (`src/a/b.rs` is `a::b`) and the inline `mod x { … }`
around it; a module's path names every test in it. Tests that macros generate are not found this way; recorded
failures (runFailingTests) are run by name anyway.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from lintel.languages.base import Project, ToolSpec
from lintel.languages.rust.testscan import RustTest, crate_tests
from lintel.languages.testselect.base import Selection, TestRef, no_test, relative, unique


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
        # A module of tests (a suite lintel.discoverTests lists) stands for each test in it.
        found = found or [t for t in tests if t.name.startswith(f"{ref.name}::") and not ref.recorded]
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
