"""Static test discovery (`lintel.engine.testdiscovery.discover_tests`, untrusted: no runner runs) against each
runner's own list of the same project, for the four languages: lintel's fixtures and one real repository per
language, cloned from the local mirrors into a temporary folder.

    python bench/test_discovery.py [--only python,go,rust,node] [--repeats 5] [--mirror /work/.mirror]
                                   [--pythonpath DIR] [--json FILE]

Informational only: not part of the test suite, nothing here asserts on time.

Per project: the tests the runner lists and the tests lintel lists (records of kind `test`), precision (lintel's
tests the runner lists too) and recall (the runner's tests lintel lists), both over multisets of ids; lintel's
discovery time (median of `--repeats` runs, each with a fresh index, so every file is read and parsed) and that
time per 1,000 tests; the runner's listing time (its second run: builds and caches warm) for comparison.

The runners' lists: `pytest --collect-only -q` (parametrised cases count as their function, which is what static
discovery lists), `go test -list '.*' ./...` (names mapped to `<import path>.<name>`; lintel's subtests are left
out, go lists none), `cargo test -- --list` (doc tests left out; `--workspace` in a workspace), `vitest list
--json` (it leaves out skipped and todo tests), jest's `--json` report and mocha's `--dry-run` JSON, and for
`node --test` (node 20 has no list mode) the names in the TAP of a real run (suites and tests: TAP lists both).
A project whose runner is missing, or whose language has no static finder, prints why instead of its numbers.
`--pythonpath` is added to PYTHONPATH of pytest runs (a repository's test dependencies installed with
`pip install --target DIR`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.testdiscovery import TestIndex, discover_tests
from lintel.languages import Project
from lintel.languages.node.testselect import test_runner

REPO = Path(__file__).resolve().parent.parent
WORKSPACES = REPO / "tests" / "workspaces"
QUIET = {"CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0"}


@dataclass(frozen=True)
class Source:
    name: str
    language: str
    fixture: str | None = None  # under tests/workspaces
    mirror: str | None = None  # owner+name under --mirror


SOURCES = (
    Source("python fixture", "python", fixture="python"),
    Source("pallets/itsdangerous", "python", mirror="pallets+itsdangerous"),
    Source("go fixture", "go", fixture="go"),
    Source("go-many fixture", "go", fixture="go-many"),
    Source("google/uuid", "go", mirror="google+uuid"),
    Source("rust fixture", "rust", fixture="rust"),
    Source("rust-workspace fixture", "rust", fixture="rust-workspace"),
    Source("matklad/xshell", "rust", mirror="matklad+xshell"),
    Source("node fixture (node --test)", "node", fixture="node"),
    Source("node-tests fixture (vitest)", "node", fixture="node-tests"),
    Source("tj/commander.js (node --test)", "node", mirror="tj+commander.js"),
)


@dataclass
class Row:
    source: str
    language: str
    runner: str = ""
    runner_tests: int = 0
    lintel_tests: int = 0
    precision: float = 0.0
    recall: float = 0.0
    lintel_ms: float = 0.0
    runner_ms: float = 0.0
    note: str = ""
    missing: list[str] | None = None  # a few runner ids lintel did not list
    extra: list[str] | None = None  # a few lintel ids the runner did not list


class NotRun(Exception):
    """Why a row has no numbers (a missing tool, a failing listing)."""


def tool_path() -> str:
    tools = Path(os.environ.get("LINTEL_TOOLS_DIR", Path.home() / ".cache" / "lintel-tools"))
    extra = [tools / "go" / "bin", tools / "rust" / "bin", Path.home() / ".cargo" / "bin", Path("/usr/local/go/bin")]
    return os.pathsep.join([*(str(p) for p in extra if p.is_dir()), os.environ.get("PATH", "")])


def timed(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    """The command's stdout from its second run and that run's wall time in ms (the first warms caches)."""
    full = {**os.environ, **QUIET, "PATH": tool_path(), **(env or {})}
    if shutil.which(argv[0], path=full["PATH"]) is None:
        raise NotRun(f"{argv[0]} is not installed")
    for attempt in range(2):
        started = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=full, capture_output=True, text=True, timeout=900, check=False)
        elapsed = (time.perf_counter() - started) * 1000
        if attempt == 0 and not proc.stdout.strip():
            raise NotRun(f"`{' '.join(argv)}` printed nothing: {proc.stderr.strip()[-300:]}")
    return elapsed, proc.stdout


# --------------------------------------------------------------------------------------------------
# The runners' lists


def pytest_list(project: Project, args: argparse.Namespace) -> tuple[str, float, Counter[str]]:
    paths = [str(project.root / "src"), *([args.pythonpath] if args.pythonpath else [])]
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += ["-p", "no:asyncio"]
    ms, out = timed(argv, project.root, {"PYTHONPATH": os.pathsep.join(paths)})
    ids = {re.sub(r"\[.*\]$", "", line.strip()) for line in out.splitlines() if "::" in line}
    return "pytest --collect-only", ms, Counter(ids)


def go_list(project: Project, args: argparse.Namespace) -> tuple[str, float, Counter[str]]:
    ms, out = timed(["go", "test", "-list", ".*", "./..."], project.root)
    names: Counter[str] = Counter()
    pending: list[str] = []
    for line in out.splitlines():
        done = re.match(r"^(?:ok|\?|FAIL)\s+(\S+)", line)
        if done is not None:
            names.update(f"{done.group(1)}.{name}" for name in pending)
            pending = []
        elif re.match(r"^(?:Test|Benchmark|Example|Fuzz)\w*$", line):
            pending.append(line)
    return "go test -list", ms, names


def cargo_list(project: Project, args: argparse.Namespace) -> tuple[str, float, Counter[str]]:
    workspace = "[workspace]" in (project.root / "Cargo.toml").read_text(encoding="utf-8")
    flags = ["--workspace"] if workspace else []
    ms, out = timed(["cargo", "test", "-q", *flags, "--", "--list"], project.root)
    names = [line.removesuffix(": test") for line in out.splitlines() if line.endswith(": test")]
    return "cargo test -- --list", ms, Counter(n for n in names if not re.search(r" - .*\(line \d+\)$", n))


def node_list(project: Project, args: argparse.Namespace) -> tuple[str, float, Counter[str]]:
    kind = test_runner(project).kind
    modules = project.root / "node_modules" / ".bin"
    if kind == "vitest":
        ms, out = timed([str(modules / "vitest"), "list", "--json"], project.root)
        return "vitest list", ms, Counter(entry["name"] for entry in json.loads(out))
    if kind == "jest":
        ms, out = timed([str(modules / "jest"), "--json"], project.root)
        results = [a for suite in json.loads(out)["testResults"] for a in suite["assertionResults"]]
        return "jest --json", ms, Counter(" > ".join([*a["ancestorTitles"], a["title"]]) for a in results)
    if kind == "node --test":
        ms, out = timed(["node", "--test", "--test-reporter=tap"], project.root)
        return "node --test (TAP of a run)", ms, Counter(tap_names(out))
    raise NotRun(f"no listing for {kind}")


def tap_names(text: str) -> list[str]:
    names: list[str] = []
    scope: dict[int, str] = {}
    for line in text.splitlines():
        subtest = re.match(r"^(?P<indent> *)# Subtest: (?P<name>.*)$", line)
        if subtest is None:
            continue
        depth = len(subtest.group("indent"))
        scope = {d: n for d, n in scope.items() if d < depth}
        scope[depth] = subtest.group("name")
        names.append(" > ".join(scope[d] for d in sorted(scope)))
    return names


LISTERS: dict[str, Callable[[Project, argparse.Namespace], tuple[str, float, Counter[str]]]] = {
    "python": pytest_list,
    "go": go_list,
    "rust": cargo_list,
    "node": node_list,
}


# --------------------------------------------------------------------------------------------------
# A row


def lintel_tests(
    root: Path, projects: list[Project], repeats: int, kinds: frozenset[str]
) -> tuple[float, Counter[str], int]:
    """lintel's median discovery time in ms, its records of those kinds, and its go subtests (left out of the
    comparison)."""

    async def once() -> list[Any]:
        return await discover_tests(root, projects, path=None, trusted=False, config=LintelConfig(), index=TestIndex())

    asyncio.run(once())  # imports and first-use costs are not the discovery's
    samples: list[float] = []
    found: list[Any] = []
    for _ in range(repeats):
        started = time.perf_counter()
        found = asyncio.run(once())
        samples.append((time.perf_counter() - started) * 1000)
    tests = [t.id for t in found if t.kind in kinds]
    go = bool(projects) and projects[0].language == "go"
    subtests = [t for t in tests if re.search(r"\.(?:Test|Benchmark|Example|Fuzz)\w*/", t)] if go else []
    return statistics.median(samples), Counter(t for t in tests if t not in subtests), len(subtests)


def measure(source: Source, root: Path, args: argparse.Namespace) -> Row:
    row = Row(source.name, source.language)
    projects = [p for p in detect(root) if p.language == source.language]
    if not projects:
        raise NotRun(f"no {source.language} project detected")
    if not any(p.spec.tests is not None and p.spec.tests.discover is not None for p in projects):
        raise NotRun("no discoverer")
    # node's TAP has a subtest for each suite too: suites are compared there.
    tap = source.language == "node" and _node_kind(projects) == "node --test"
    kinds = frozenset({"test", "suite"} if tap else {"test"})
    row.lintel_ms, ours, subtests = lintel_tests(root, projects, args.repeats, kinds)
    runner_project = min(projects, key=lambda p: len(p.root.parts))
    row.runner, row.runner_ms, theirs = LISTERS[source.language](runner_project, args)
    both = sum((ours & theirs).values())
    row.runner_tests, row.lintel_tests = sum(theirs.values()), sum(ours.values())
    row.precision = both / row.lintel_tests if row.lintel_tests else 0.0
    row.recall = both / row.runner_tests if row.runner_tests else 0.0
    row.missing = sorted((theirs - ours).elements())[:5]
    row.extra = sorted((ours - theirs).elements())[:5]
    if subtests:
        row.note = f"{subtests} subtests not compared"
    return row


def _node_kind(projects: list[Project]) -> str:
    try:
        return test_runner(min(projects, key=lambda p: len(p.root.parts))).kind
    except ValueError:
        return ""


def prepare(source: Source, scratch: Path, args: argparse.Namespace) -> Path:
    """A private copy of the fixture (its node_modules linked) or a clone of the mirror."""
    dest = scratch / source.name.split(" ")[0].replace("/", "+")
    if dest.exists():
        return dest
    if source.fixture is not None:
        shutil.copytree(WORKSPACES / source.fixture, dest, symlinks=True, ignore=shutil.ignore_patterns("target"))
        return dest
    assert source.mirror is not None
    repo = Path(args.mirror) / source.mirror
    repo = repo / "repo" if (repo / "repo").is_dir() else repo
    if not repo.is_dir():
        raise NotRun(f"{repo} is not there")
    subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True, capture_output=True)
    return dest


def print_table(rows: list[Row], skipped: list[tuple[Source, str]]) -> None:
    header = ["source", "runner", "by runner", "by lintel", "precision", "recall", "lintel ms", "ms/1k tests"]
    table = [[*header, "runner ms"]]
    for r in rows:
        per_thousand = r.lintel_ms / r.lintel_tests * 1000 if r.lintel_tests else 0.0
        table.append(
            [
                r.source,
                r.runner,
                f"{r.runner_tests:,}",
                f"{r.lintel_tests:,}",
                f"{r.precision:.3f}",
                f"{r.recall:.3f}",
                f"{r.lintel_ms:.1f}",
                f"{per_thousand:.1f}",
                f"{r.runner_ms:,.0f}",
            ]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for line in table:
        print("  ".join(cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) for i, cell in enumerate(line)))
    for r in rows:
        for label, ids in (("missed", r.missing), ("not listed by the runner", r.extra)):
            if ids:
                print(f"  {r.source}: {label}: {', '.join(ids)}{' …' if len(ids) == 5 else ''}")
        if r.note:
            print(f"  {r.source}: {r.note}")
    for source, reason in skipped:
        print(f"  {source.name}: not run: {reason}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", default="python,go,rust,node", help="languages, comma-separated")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--mirror", default="/work/.mirror", help="folder of owner+name mirrors (bare git repos)")
    parser.add_argument("--pythonpath", default="", help="added to PYTHONPATH for pytest (test dependencies)")
    parser.add_argument("--json", default="", help="also write the rows to this file")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(","))
    rows: list[Row] = []
    skipped: list[tuple[Source, str]] = []
    with tempfile.TemporaryDirectory(prefix="lintel-test-discovery-") as scratch:
        for source in SOURCES:
            if source.language not in wanted:
                continue
            try:
                rows.append(measure(source, prepare(source, Path(scratch), args), args))
            except (NotRun, subprocess.SubprocessError, ValueError, KeyError) as error:
                skipped.append((source, str(error) or type(error).__name__))
            print(f"measured {source.name}", file=sys.stderr)
    print_table(rows, skipped)
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in rows], indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
