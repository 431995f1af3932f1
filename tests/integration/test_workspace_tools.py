"""The monorepo fixtures, checked the way their ecosystems check them: the real tools run by hand in the right
folders are the baseline, and `run_check` on the workspace root and on each member must find the same
(file, line, rule). A root's covered check must see every member's findings (what `Workspace.covers` promises);
a check it does not cover must be one that a run from the root would get wrong.

tests/workspaces/mono-gowork: a go.work (no go.mod at its root) using two modules, each with its own .golangci.yml,
go vet and golangci-lint findings, a file gofmt would change (api) and a failing test (worker).
tests/workspaces/mono-pnpm: a pnpm workspace whose root's `test` script is `pnpm -r test`; two packages with eslint
findings and node --test tests, one failing (count). tests/workspaces/mono-uv: a uv workspace root with a package of
its own and two members, one with its own ruff configuration. tests/workspaces/mono-services: three projects of
three languages and no workspace file. tests/workspaces/rust-workspace: a Cargo workspace (root package + `impl`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from lintel.engine.checks import RunResult, run_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.languages import CheckName, Project, Workspace

from tests.helpers import WORKSPACES, require_path, require_tool, run_tool

GOWORK = WORKSPACES / "mono-gowork"
PNPM = WORKSPACES / "mono-pnpm"
UV = WORKSPACES / "mono-uv"
SERVICES = WORKSPACES / "mono-services"
CARGO = WORKSPACES / "rust-workspace"

GOLANGCI = [
    "golangci-lint",
    "run",
    "--output.json.path=stdout",
    "--show-stats=false",
    "--path-mode=abs",
    "--issues-exit-code=1",
    "--allow-parallel-runners",
    "--max-issues-per-linter=0",
    "--max-same-issues=0",
]
VET_LINE = re.compile(r"^(?:vet: )?(?:\./)?(?P<file>[^\s:]+\.go):(?P<line>\d+):\d+: ", re.M)
GO_TEST_LOCATION = re.compile(r"(?P<file>\S+_test\.go):(?P<line>\d+): ")
# A node --test failure's frame in the test file: `(file:///…/count.test.js:10:10)`.
NODE_FRAME = re.compile(r"\(file://(?P<file>[^:)]+\.test\.js):(?P<line>\d+):\d+\)")
NOT_OK = re.compile(r"not ok \d+ - (?P<name>.+)$", re.M)
QUIET = {"NO_COLOR": "1", "FORCE_COLOR": "0", "CI": "true"}

Key = tuple[Any, ...]


def project_at(folder: Path, language: str) -> Project:
    [project] = [p for p in detect(folder) if p.language == language]
    return project


def workspace_of(project: Project) -> Workspace:
    work = project.spec.workspace(project)
    assert work is not None
    return work


async def check(project: Project, name: CheckName, root: Path) -> RunResult:
    """`run_check` with the fixture's root as the workspace, so every file is named from there."""
    result = await run_check(project, name, workspace=root, config=LintelConfig())
    assert result.status in ("findings", "clean"), (result.status, result.reason, result.output[-2000:])
    return result


def keys(result: RunResult) -> Counter[Key]:
    return Counter((i.file, i.line, i.rule) for i in result.issues)


def failures(result: RunResult) -> set[Key]:
    return {(f.file, f.line) for f in result.failures}


def total(counters: Iterable[Counter[Key]]) -> Counter[Key]:
    out: Counter[Key] = Counter()
    for counter in counters:
        out += counter
    return out


def relative(path: str, cwd: Path, root: Path) -> str:
    return (cwd / path).resolve().relative_to(root.resolve()).as_posix()


# --- go.work --------------------------------------------------------------------------------------------------


def require_go() -> None:
    require_tool("go", "install Go from https://go.dev/dl/")


def vet_by_hand(args: list[str], cwd: Path) -> Counter[Key]:
    proc = run_tool(["go", "vet", *args], cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return Counter((relative(m["file"], cwd, GOWORK), int(m["line"]), None) for m in VET_LINE.finditer(proc.stderr))


def go_test_by_hand(args: list[str], cwd: Path) -> tuple[set[str], set[Key]]:
    """The tests that ran, and (file, line) of each `t.Errorf` of a failed one, from `go test -json`'s events."""
    proc = run_tool(["go", "test", "-json", "-count=1", "-fullpath", *args], cwd=cwd)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    ran = {f"{e['Package']}.{e['Test']}" for e in events if e.get("Action") in ("pass", "fail") and e.get("Test")}
    failed = {(e["Package"], e["Test"]) for e in events if e.get("Action") == "fail" and e.get("Test")}
    assert failed, proc.stdout[-2000:]
    out = "".join(e.get("Output", "") for e in events if (e.get("Package"), e.get("Test")) in failed)
    return ran, {(relative(m["file"], cwd, GOWORK), int(m["line"])) for m in GO_TEST_LOCATION.finditer(out)}


def gofmt_by_hand(args: list[str], cwd: Path) -> Counter[Key]:
    proc = run_tool(["gofmt", "-l", *args], cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return Counter((relative(line, cwd, GOWORK), None, None) for line in proc.stdout.split())


def golangci_by_hand(args: list[str], cwd: Path) -> tuple[int, Counter[Key], str]:
    proc = run_tool([*GOLANGCI, *args], cwd=cwd)
    report = json.loads(proc.stdout.splitlines()[0]) if proc.stdout.strip() else {}
    found = Counter(
        (relative(i["Pos"]["Filename"], cwd, GOWORK), i["Pos"]["Line"], i["FromLinter"])
        for i in report.get("Issues") or []
    )
    return proc.returncode, found, proc.stderr


def test_the_go_work_root_is_a_workspace_of_both_modules() -> None:
    root = project_at(GOWORK, "go")
    assert root.markers == ("go.work",)
    work = workspace_of(root)
    assert [m.name for m in work.members] == ["api", "worker"]
    assert (set(work.covers), work.own) == ({"typecheck", "test", "format"}, False)


@pytest.mark.tool("go")
async def test_go_vet_from_the_go_work_root_sees_both_modules_findings() -> None:
    require_go()
    root, api, worker = project_at(GOWORK, "go"), project_at(GOWORK / "api", "go"), project_at(GOWORK / "worker", "go")
    expected = Counter({("api/handler.go", 12, None): 1, ("worker/job.go", 8, None): 1})
    assert vet_by_hand(["./api/...", "./worker/..."], GOWORK) == expected
    assert vet_by_hand(["./..."], GOWORK / "api") + vet_by_hand(["./..."], GOWORK / "worker") == expected
    # A bare `./...` in the go.work root matches nothing: why the root's command names each module.
    bare = run_tool(["go", "vet", "./..."], cwd=GOWORK)
    assert bare.returncode == 1
    assert "directory prefix . does not contain modules listed in go.work" in bare.stderr

    result = await check(root, "typecheck", GOWORK)
    assert result.argv == ["go", "vet", "./api/...", "./worker/..."]
    assert keys(result) == expected
    members = [keys(await check(member, "typecheck", GOWORK)) for member in (api, worker)]
    assert total(members) == expected


@pytest.mark.tool("go")
async def test_go_test_from_the_go_work_root_runs_both_modules_tests() -> None:
    require_go()
    root, api, worker = project_at(GOWORK, "go"), project_at(GOWORK / "api", "go"), project_at(GOWORK / "worker", "go")
    expected = {("worker/job_test.go", 13)}
    ran, failed = go_test_by_hand(["./api/...", "./worker/..."], GOWORK)
    assert ran == {
        "example.com/mono/api.TestStatus",
        "example.com/mono/worker.TestTotal",
        "example.com/mono/worker.TestRetry",
    }
    assert failed == expected
    assert go_test_by_hand(["./..."], GOWORK / "worker")[1] == expected

    result = await check(root, "test", GOWORK)
    assert result.argv[-2:] == ["./api/...", "./worker/..."]
    assert failures(result) == expected
    assert [f.name for f in result.failures] == ["example.com/mono/worker.TestRetry"]
    assert (await check(api, "test", GOWORK)).status == "clean"
    assert failures(await check(worker, "test", GOWORK)) == expected


@pytest.mark.tool("gofmt")
async def test_gofmt_from_the_go_work_root_lists_both_modules_files() -> None:
    require_tool("gofmt", "install Go from https://go.dev/dl/")
    root, api = project_at(GOWORK, "go"), project_at(GOWORK / "api", "go")
    expected = Counter({("api/route.go", None, None): 1})
    assert gofmt_by_hand(["api", "worker"], GOWORK) == expected
    assert gofmt_by_hand(["."], GOWORK / "api") + gofmt_by_hand(["."], GOWORK / "worker") == expected

    result = await check(root, "format", GOWORK)
    assert result.argv == ["gofmt", "-l", "api", "worker"]
    assert keys(result) == expected
    assert keys(await check(api, "format", GOWORK)) == expected


@pytest.mark.tool("go", "golangci-lint")
async def test_golangci_lint_runs_in_each_module_because_a_root_run_takes_one_modules_config() -> None:
    require_go()
    require_tool("golangci-lint")
    api, worker = project_at(GOWORK / "api", "go"), project_at(GOWORK / "worker", "go")
    code, in_api, _ = golangci_by_hand([], GOWORK / "api")
    assert (code, in_api) == (1, Counter({("api/handler.go", 12, "govet"): 1, ("api/handler.go", 17, "errcheck"): 1}))
    code, in_worker, _ = golangci_by_hand([], GOWORK / "worker")
    assert (code, in_worker) == (
        1,
        Counter({("worker/job.go", 8, "govet"): 1, ("worker/job.go", 14, "ineffassign"): 1}),
    )

    # From the root: without patterns golangci-lint fails (exit 7, "an error was logged") and reports nothing;
    # with them it lints both modules, but with the first pattern's module's .golangci.yml for all of them:
    # worker gets api's errcheck and loses its own ineffassign.
    code, bare, stderr = golangci_by_hand([], GOWORK)
    assert (code, bare) == (7, Counter())
    assert "does not contain modules listed in go.work" in stderr
    code, across, _ = golangci_by_hand(["./api/...", "./worker/..."], GOWORK)
    assert code == 1
    assert across != in_api + in_worker
    assert ("worker/job.go", 24, "errcheck") in across
    assert ("worker/job.go", 14, "ineffassign") not in across
    assert "lint" not in workspace_of(project_at(GOWORK, "go")).covers

    assert keys(await check(api, "lint", GOWORK)) == in_api
    assert keys(await check(worker, "lint", GOWORK)) == in_worker


# --- pnpm -----------------------------------------------------------------------------------------------------


def require_pnpm_fixture() -> None:
    require_tool("node", "install Node.js 20+")
    require_tool("pnpm", "run scripts/setup-dev (installs pnpm 9 into the tools cache)")
    for package in ("count", "greet"):
        require_path(PNPM / "packages" / package / "node_modules" / ".bin" / "eslint")


def node_tests_by_hand(argv: list[str], cwd: Path, root: Path) -> tuple[set[str], set[Key]]:
    """The names of the failed tests and the (file from `root`, line) of their frames in test files, from node's
    TAP (`pnpm -r` puts the package's folder before each line)."""
    proc = run_tool(argv, cwd=cwd, env=QUIET)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    names = {m["name"].strip() for m in NOT_OK.finditer(proc.stdout)}
    frames = {(relative(m["file"], cwd, root), int(m["line"])) for m in NODE_FRAME.finditer(proc.stdout)}
    return names, frames


def eslint_by_hand(cwd: Path) -> Counter[Key]:
    proc = run_tool(["npx", "--no-install", "eslint", ".", "--format", "json"], cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return Counter(
        (relative(f["filePath"], cwd, PNPM), m["line"], m["ruleId"])
        for f in json.loads(proc.stdout)
        for m in f["messages"]
    )


def test_the_pnpm_root_covers_test_only_and_is_no_package() -> None:
    work = workspace_of(project_at(PNPM, "node"))
    assert [m.relative_to(PNPM.resolve()).as_posix() for m in work.members] == ["packages/count", "packages/greet"]
    assert (work.file, set(work.covers), work.own) == ("pnpm-workspace.yaml", {"test"}, False)


@pytest.mark.tool("node", "pnpm")
async def test_the_pnpm_roots_test_script_runs_every_packages_tests() -> None:
    require_pnpm_fixture()
    root = project_at(PNPM, "node")
    count, greet = project_at(PNPM / "packages" / "count", "node"), project_at(PNPM / "packages" / "greet", "node")
    expected = {("packages/count/test/count.test.js", 10)}
    assert node_tests_by_hand(["pnpm", "run", "test"], PNPM, PNPM) == ({"double doubles"}, expected)
    assert node_tests_by_hand(["node", "--test"], PNPM / "packages" / "count", PNPM) == ({"double doubles"}, expected)

    result = await check(root, "test", PNPM)
    assert result.argv == ["pnpm", "run", "test"]
    assert failures(result) == expected
    assert [f.name for f in result.failures] == ["double doubles"]
    assert failures(await check(count, "test", PNPM)) == expected
    assert (await check(greet, "test", PNPM)).status == "clean"


@pytest.mark.tool("node", "pnpm")
async def test_each_pnpm_package_is_linted_with_its_own_eslint() -> None:
    require_pnpm_fixture()
    expected = {
        "count": Counter(
            {("packages/count/src/count.js", 5, "eqeqeq"): 1, ("packages/count/src/count.js", 11, "prefer-const"): 1}
        ),
        "greet": Counter(
            {
                ("packages/greet/src/greet.js", 3, "prefer-const"): 1,
                ("packages/greet/src/greet.js", 8, "no-unused-vars"): 1,
                ("packages/greet/src/greet.js", 9, "eqeqeq"): 1,
            }
        ),
    }
    for name, findings in expected.items():
        folder = PNPM / "packages" / name
        assert eslint_by_hand(folder) == findings
        result = await check(project_at(folder, "node"), "lint", PNPM)
        assert (result.tool, keys(result)) == ("eslint", findings)
    assert "lint" not in workspace_of(project_at(PNPM, "node")).covers  # the root has no lint script


# --- uv -------------------------------------------------------------------------------------------------------


def ruff_by_hand(cwd: Path) -> Counter[Key]:
    proc = run_tool(["ruff", "check", "--output-format=json", "--no-cache", "--no-fix"], cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return Counter((relative(i["filename"], cwd, UV), i["location"]["row"], i["code"]) for i in json.loads(proc.stdout))


def ruff_format_by_hand(cwd: Path) -> set[Key]:
    """(file, line) of each hunk `ruff format` would change, from its JSON."""
    proc = run_tool(["ruff", "format", "--check", "--no-cache", "--output-format=json"], cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return {(relative(i["filename"], cwd, UV), i["location"]["row"]) for i in json.loads(proc.stdout)}


def test_the_uv_root_covers_lint_and_format_and_is_a_package_of_its_own() -> None:
    work = workspace_of(project_at(UV, "python"))
    assert [m.relative_to(UV.resolve()).as_posix() for m in work.members] == ["packages/cli", "packages/core"]
    assert (set(work.covers), work.own) == ({"lint", "format"}, True)


@pytest.mark.tool("ruff")
async def test_ruff_from_the_uv_root_finds_what_each_member_run_finds() -> None:
    require_tool("ruff", "pip install ruff")
    root = project_at(UV, "python")
    members = {name: project_at(UV / "packages" / name, "python") for name in ("cli", "core")}
    by_member = {name: ruff_by_hand(UV / "packages" / name) for name in members}
    # core's own [tool.ruff] selects bugbear: its B006 is reported from the root too, cli's files get the root's.
    assert by_member == {
        "cli": Counter({("packages/cli/src/cli/__init__.py", 5, "F841"): 1}),
        "core": Counter({("packages/core/src/core/__init__.py", 4, "B006"): 1}),
    }
    own = Counter({("src/mono_uv/__init__.py", 3, "F401"): 1})
    assert ruff_by_hand(UV) == own + total(by_member.values())

    assert keys(await check(root, "lint", UV)) == own + total(by_member.values())
    for name, project in members.items():
        assert keys(await check(project, "lint", UV)) == by_member[name]

    formatted = {name: ruff_format_by_hand(UV / "packages" / name) for name in members}
    assert formatted == {
        "cli": {("packages/cli/src/cli/__init__.py", 6)},
        "core": {("packages/core/src/core/__init__.py", 7)},
    }
    assert ruff_format_by_hand(UV) == formatted["cli"] | formatted["core"]
    assert {(i.file, i.line) for i in (await check(root, "format", UV)).issues} == formatted["cli"] | formatted["core"]
    for name, project in members.items():
        assert {(i.file, i.line) for i in (await check(project, "format", UV)).issues} == formatted[name]


# --- Cargo ----------------------------------------------------------------------------------------------------


@pytest.mark.tool("cargo")
async def test_the_cargo_roots_checks_cover_the_member_crate() -> None:
    require_tool("cargo", "install Rust with rustup")
    root, member = project_at(CARGO, "rust"), project_at(CARGO / "impl", "rust")
    work = workspace_of(root)
    assert ([m.name for m in work.members], work.own, set(work.covers)) == (["impl"], True, set(root.spec.checks))
    proc = run_tool(["cargo", "test", "--workspace", "--no-fail-fast"], cwd=CARGO)
    assert proc.returncode == 101
    assert "impl/src/lib.rs:17" in proc.stdout

    from_root = await check(root, "test", CARGO)
    from_member = await check(member, "test", CARGO)
    assert failures(from_root) == failures(from_member) == {("impl/src/lib.rs", 17)}
    lint_root, lint_member = keys(await check(root, "lint", CARGO)), keys(await check(member, "lint", CARGO))
    assert lint_root == lint_member == Counter({("impl/src/lib.rs", 8, "clippy::len_zero"): 1})


# --- three projects, no workspace file ------------------------------------------------------------------------


def test_the_services_fixture_holds_three_projects_and_no_root_project() -> None:
    assert detect(SERVICES) == []
    for name, language in (("api", "go"), ("web", "node"), ("tools", "python")):
        project = project_at(SERVICES / name, language)
        assert project.spec.workspace(project) is None


@pytest.mark.tool("go", "golangci-lint", "node", "ruff")
async def test_each_service_is_checked_in_its_own_folder() -> None:
    require_go()
    require_tool("golangci-lint")
    require_tool("node", "install Node.js 20+")
    require_tool("ruff", "pip install ruff")
    api, web, tools = (
        project_at(SERVICES / n, lang) for n, lang in (("api", "go"), ("web", "node"), ("tools", "python"))
    )

    vet = run_tool(["go", "vet", "./..."], cwd=SERVICES / "api")
    assert [(m["file"], int(m["line"])) for m in VET_LINE.finditer(vet.stderr)] == [("server.go", 8)]
    assert keys(await check(api, "typecheck", SERVICES)) == Counter({("api/server.go", 8, None): 1})
    proc = run_tool(GOLANGCI, cwd=SERVICES / "api")
    assert proc.returncode == 1, proc.stderr
    lint = Counter(
        (relative(i["Pos"]["Filename"], SERVICES, SERVICES), i["Pos"]["Line"], i["FromLinter"])
        for i in json.loads(proc.stdout)["Issues"]
    )
    assert lint == Counter({("api/server.go", 8, "govet"): 1, ("api/server.go", 14, "errcheck"): 1})
    assert keys(await check(api, "lint", SERVICES)) == lint

    names, frames = node_tests_by_hand(["node", "--test"], SERVICES / "web", SERVICES)
    assert names == {"slug drops punctuation"}
    assert frames == {("web/test/slug.test.js", 10)}
    result = await check(web, "test", SERVICES)
    assert (failures(result), [f.name for f in result.failures]) == (frames, ["slug drops punctuation"])

    proc = run_tool(["ruff", "check", "--output-format=json", "--no-cache", "--no-fix"], cwd=SERVICES / "tools")
    assert proc.returncode == 1, proc.stderr
    ruff = Counter(
        (relative(i["filename"], SERVICES, SERVICES), i["location"]["row"], i["code"]) for i in json.loads(proc.stdout)
    )
    assert sorted(code for _, _, code in ruff) == ["B006", "F401", "F401", "F841"]
    assert keys(await check(tools, "lint", SERVICES)) == ruff
