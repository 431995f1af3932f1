"""Go coverage: `go test -coverprofile` over the project's packages (granularity `package`), and, for one line,
each test of that line's package run alone from one test binary built with `-cover` (granularity `test`;
docs/architecture.md, Coverage). Only the toolchain is needed: coverage is part of `go test`."""

from __future__ import annotations

import posixpath
import re
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from lintel.languages.coverage.base import (
    CoverageHost,
    Measurement,
    Refined,
    covers,
    not_checked,
    read_text,
    run_tool,
)
from lintel.languages.coverage.data import CoverageDataError
from lintel.languages.coverage.model import CoverageIndex, FileCoverage, Files
from lintel.languages.manifests import go_work_members

# The most tests of one package run one by one for a line; a package with more is answered per package.
MAX_TEST_RUNS = 40
_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)
_RUNNABLE = re.compile(r"^(Test|Example|Fuzz)\w*$")


def modules(root: Path) -> dict[str, str]:
    """module path -> its folder relative to `root` ("" for the root): go.mod at the root and in the go.work
    modules."""
    folders = [root, *_work_members(root)]
    found: dict[str, str] = {}
    for folder in folders:
        try:
            text = (folder / "go.mod").read_text(encoding="utf-8")
        except OSError:
            continue
        match = _MODULE.search(text)
        if match:
            rel = folder.resolve().relative_to(root.resolve()).as_posix()
            found[match[1]] = "" if rel == "." else rel
    return found


def _work_members(root: Path) -> list[Path]:
    return list(go_work_members(root))


async def measure(request: CoverageHost) -> Measurement:
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="lintel-coverage-") as scratch:
        profile = Path(scratch) / "cover.out"
        # Flags after the packages are go test's too (`go test ./... -coverprofile=x`).
        result = await request.run_tests([f"-coverprofile={profile}"])
        if result.exit_code is None and not result.timed_out:
            return Measurement(result)
        text = read_text(profile)
    if text is None:
        if result.status == "not_checked":
            return Measurement(result)
        return not_checked(result, "coverage: go test wrote no coverage profile (no package compiled?)")
    try:
        files = parse_go_profile(text, modules(request.project.root))
    except CoverageDataError as exc:
        return not_checked(result, f"coverage: {exc}")
    index = CoverageIndex(
        language="go",
        root=str(request.project.root),
        tool="go test -coverprofile (per package)",
        granularity="package",
        measured_at=started,
        argv=result.argv,
        files=files,
    )
    return Measurement(result, index)


def _import_path(rel_dir: str, mods: Mapping[str, str]) -> str | None:
    """The import path of the package in `rel_dir` (relative to the project root)."""
    best: tuple[int, str] | None = None
    for module, folder in mods.items():
        inside = folder == "" or rel_dir == folder or rel_dir.startswith(f"{folder}/")
        if inside and (best is None or len(folder) > best[0]):
            inner = rel_dir[len(folder) :].lstrip("/") if folder else ("" if rel_dir == "." else rel_dir)
            best = (len(folder), f"{module}/{inner}".rstrip("/"))
    return best[1] if best else None


async def refine(request: CoverageHost, rel: str, line: int) -> Refined | None:
    """The tests of `rel`'s package that run `line`, each run alone (at most MAX_TEST_RUNS) from one test binary
    built with coverage; None when that cannot be done (the answer stays per package, with the reason logged)."""
    root = request.project.root
    rel_dir = posixpath.dirname(rel) or "."
    mods = modules(root)
    package = _import_path(rel_dir, mods)
    if package is None:
        return None
    package_dir = root / rel_dir
    go = request.test_binary() or "go"
    with tempfile.TemporaryDirectory(prefix="lintel-coverage-") as scratch:
        binary = Path(scratch) / "pkg.test"
        built = await run_tool(
            [go, "test", "-c", "-cover", "-covermode=set", "-o", str(binary), f"./{rel_dir}"], root, request
        )
        if isinstance(built, str) or built.exit_code != 0 or not binary.exists():
            output = built if isinstance(built, str) else (built.stdout + built.stderr).strip()
            if not isinstance(built, str) and built.exit_code == 0:
                return Refined("test", [], note=f"package {package} has no tests", runs=1)
            return Refined("package", [package], note=f"could not build {package}'s tests: {output[-300:]}", runs=1)
        listed = await run_tool([str(binary), "-test.list", "."], package_dir, request)
        names = [] if isinstance(listed, str) else [n for n in listed.stdout.split() if _RUNNABLE.match(n)]
        if len(names) > MAX_TEST_RUNS:
            return Refined(
                "package",
                [package],
                note=f"{package} has {len(names)} tests, more than the {MAX_TEST_RUNS} lintel runs one by one",
                runs=2,
            )
        tests: list[str] = []
        for number, name in enumerate(names):
            out = Path(scratch) / f"{number}.out"
            await run_tool(
                [str(binary), f"-test.run=^{name}$", "-test.count=1", f"-test.coverprofile={out}"],
                package_dir,
                request,
                env={"GOFLAGS": ""},
            )
            text = read_text(out)
            if text is None:
                continue
            try:
                files = parse_go_profile(text, mods, covered_by=name)
            except CoverageDataError:
                continue
            if covers(files, rel, line):
                tests.append(f"{package}.{name}")
        return Refined("test", tests, runs=2 + len(names))


# --- the coverage data go test writes ------------------------------------------------------------


# mode line, then `import/path/file.go:startLine.startCol,endLine.endCol numStatements count`.
_GO_BLOCK = re.compile(r"^(?P<file>.+):(?P<l1>\d+)\.(?P<c1>\d+),(?P<l2>\d+)\.(?P<c2>\d+) (?P<n>\d+) (?P<count>\d+)$")


def parse_go_profile(text: str, modules: Mapping[str, str], covered_by: str | None = None) -> Files:
    """A `go test -coverprofile` file:

        mode: set
        example.com/lintelgo/sub/calc.go:7.24,7.40 1 1
        example.com/lintelgo/sub/calc.go:10.31,13.2 2 0

    Files are named by import path: `modules` maps each module path to its folder relative to the project root
    ("" for the root), the longest match wins; a file of no listed module keeps its import path. A block covers
    every line from its start to its end; a line in a run block is covered (by `covered_by`, else the file's
    package), one only in blocks that never ran is missing. Statement counts are the profile's, as
    `go tool cover` counts them; a block listed twice (several packages' profiles) counts once, run if any ran.
    """
    lines = text.splitlines()
    if not lines or not lines[0].startswith("mode:"):
        raise CoverageDataError("not a Go coverage profile (no `mode:` line)")
    blocks: dict[tuple[str, str], tuple[int, int, int, int]] = {}
    for raw in lines[1:]:
        match = _GO_BLOCK.match(raw.strip())
        if match is None:
            continue
        key = (match["file"], raw.rsplit(" ", 2)[0])
        start, end, statements, count = int(match["l1"]), int(match["l2"]), int(match["n"]), int(match["count"])
        previous = blocks.get(key)
        blocks[key] = (start, end, statements, max(count, previous[3] if previous else 0))
    out: Files = {}
    for (import_path, _), (start, end, statements, count) in blocks.items():
        name = _module_relative(import_path, modules)
        coverage = out.setdefault(name, FileCoverage())
        coverage.statements += statements
        who = covered_by if covered_by is not None else posixpath.dirname(import_path)
        for line in range(start, end + 1):
            if count > 0:
                coverage.cover(line, (who,))
            else:
                coverage.miss(line)
        if count > 0:
            coverage.covered_statements += statements
    return out


def _module_relative(import_path: str, modules: Mapping[str, str]) -> str:
    best = max((m for m in modules if import_path.startswith(f"{m}/")), key=len, default=None)
    if best is None:
        return import_path
    return posixpath.join(modules[best], import_path[len(best) + 1 :])
