"""lintel's static test discovery against the runners' own lists, on copies of the fixtures with trap files added:
`cargo test -- --list`, `vitest list --json`, jest's and mocha's JSON (mocha `--dry-run`), node's TAP. The ids
must be the names the runners list, and the names a real run's failures carry (run through lintel's engine)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lintel.core.issues import ParseContext
from lintel.core.testitems import FoundTest
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.testruns import run_tests
from lintel.languages import Project
from lintel.languages.parsers.jstests import mocha_report_failures

from tests.helpers import WORKSPACES, copy_workspace, require_path, require_tool, run_tool

QUIET = {"CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0"}


def project_in(root: Path, language: str) -> Project:
    [project] = [p for p in detect(root) if p.language == language]
    return project


def discovered(project: Project, suffixes: tuple[str, ...]) -> list[FoundTest]:
    assert project.spec.tests is not None
    assert project.spec.tests.discover is not None
    files = sorted(
        f.resolve()
        for f in project.root.rglob("*")
        if f.suffix in suffixes and not {"node_modules", "target"} & set(f.parts)
    )
    return project.spec.tests.discover(project, files, {})


async def failure_names(project: Project) -> set[str]:
    result = await run_tests(project, None, workspace=project.root, config=LintelConfig())
    return {f.name for f in result.failures}


# --- rust ---------------------------------------------------------------------------------------------------

RUST_NESTED = """
mod inner {
    #[test]
    #[ignore = "listed all the same"]
    fn ignored() {}

    pub(crate) mod deeper {
        #[test]
        fn deep() {
            let _ = "}#[test] fn in_a_string() {";
            let _ = r#"} " #[test] fn in_a_raw_string"#;
        }
    }

    fn helper() {
        /* #[test] fn in_a_comment() { /* nested */ } */
        let _ = '}';
    }
}
"""


def rust_project(tmp_path: Path) -> Project:
    root = copy_workspace("rust", tmp_path / "rust")
    with (root / "src" / "lib.rs").open("a", encoding="utf-8") as lib:
        lib.write("\n#[cfg(test)]\nmod nested;\n")
    (root / "src" / "nested").mkdir()
    (root / "src" / "nested" / "mod.rs").write_text(RUST_NESTED, encoding="utf-8")
    (root / "src" / "bin").mkdir()
    (root / "src" / "bin" / "tool.rs").write_text("fn main() {}\n#[test]\nfn tool_works() {}\n", encoding="utf-8")
    (root / "tests" / "suite").mkdir()
    (root / "tests" / "suite" / "main.rs").write_text("mod parts;\n#[test]\nfn in_main() {}\n", encoding="utf-8")
    (root / "tests" / "suite" / "parts.rs").write_text("#[test]\nfn in_parts() {}\n", encoding="utf-8")
    return project_in(root, "rust")


def cargo_list(root: Path, *args: str) -> Counter[str]:
    """The libtest names `cargo test -- --list` prints, doc tests left out (lintel does not list those)."""
    proc = run_tool(["cargo", "test", "-q", *args, "--", "--list"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    names = [line.removesuffix(": test") for line in proc.stdout.splitlines() if line.endswith(": test")]
    return Counter(n for n in names if not re.search(r" - .* \(line \d+\)$", n))


@pytest.mark.tool("cargo")
async def test_rust_ids_are_cargos_list_and_failure_names(tmp_path: Path) -> None:
    require_tool("cargo", "install Rust with rustup")
    project = rust_project(tmp_path)
    records = discovered(project, (".rs",))
    tests = Counter(r.id for r in records if r.kind == "test")
    assert tests == cargo_list(project.root)
    assert "nested::inner::deeper::deep" in tests
    assert {r.id for r in records if r.kind == "suite"} == {
        "tests",
        "shapes::tests",
        "nested::inner",
        "nested::inner::deeper",
    }
    failed = await failure_names(project)
    assert failed == {"tests::adds_wrong", "addition_is_wrong_here"}
    assert failed <= set(tests)


@pytest.mark.tool("cargo")
async def test_rust_workspace_ids_are_cargos_list(tmp_path: Path) -> None:
    require_tool("cargo", "install Rust with rustup")
    project = project_in(copy_workspace("rust-workspace", tmp_path / "ws"), "rust")
    tests = Counter(r.id for r in discovered(project, (".rs",)) if r.kind == "test")
    assert tests == cargo_list(project.root, "--workspace")


# --- node ---------------------------------------------------------------------------------------------------

JS_TRAPS = r"""import { describe, expect, it, test } from "vitest";

// it("in a comment", () => {});
const pattern = /describe\("in a regex"\)[/]/;
const text = `test("in a template") ${`nested ${pattern}`}`;

describe("traps", () => {
  it("it's \"quoted\" and {braced}", () => {
    expect(pattern.test(text) / 1).toBe(0);
  });
  describe.skip(`a template title`, () => {
    test.todo("to do");
  });
  describe("deeper", function () {
    test("fails here", () => {
      expect(1).toBe(2);
    });
  });
});
"""

MOCHA_NESTED = """const assert = require("node:assert");

describe("outer", function () {
  describe("inner", function () {
    it("fails deep down", function () {
      assert.strictEqual(1, 2);
    });
    it.skip("is skipped", function () {});
  });
});
"""


def node_project(tmp_path: Path, fixture: str, script: str | None = None) -> Project:
    root = copy_workspace(fixture, tmp_path / fixture)
    if script is not None:
        manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
        manifest["scripts"]["test"] = script
        (root / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return project_in(root, "node")


def ids_in(records: list[FoundTest], folder: str) -> Counter[str]:
    return Counter(r.id for r in records if r.kind == "test" and f"/{folder}/" in r.file.as_posix())


def report_names(report: dict[str, Any]) -> Counter[str]:
    """Every test of a jest or vitest JSON report (skipped and todo ones too), named as its failures are."""
    results = [a for suite in report["testResults"] for a in suite["assertionResults"]]
    return Counter(" > ".join([*a["ancestorTitles"], a["title"]]) for a in results)


def bin_of(name: str) -> Path:
    return require_path(WORKSPACES / "node-tests" / "node_modules" / ".bin" / name, "run scripts/setup-dev")


@pytest.mark.tool("node")
async def test_vitest_ids_are_its_list_and_failure_names(tmp_path: Path) -> None:
    vitest = bin_of("vitest")
    project = node_project(tmp_path, "node-tests", "vitest run")
    (project.root / "test" / "traps.test.js").write_text(JS_TRAPS, encoding="utf-8")
    records = discovered(project, (".js", ".cjs"))
    report = json.loads(run_tool([str(vitest), "run", "--reporter=json"], cwd=project.root, env=QUIET).stdout)
    assert ids_in(records, "test") == report_names(report)
    # `vitest list` leaves out skipped and todo tests; its JSON report has them.
    listed = json.loads(run_tool([str(vitest), "list", "--json"], cwd=project.root, env=QUIET).stdout)
    assert set(ids_in(records, "test")) - {entry["name"] for entry in listed} == {"traps > a template title > to do"}
    failed = await failure_names(project)
    assert "traps > deeper > fails here" in failed
    assert failed <= {r.id for r in records}


@pytest.mark.tool("node")
async def test_jest_ids_are_its_report_names(tmp_path: Path) -> None:
    jest = bin_of("jest")
    project = node_project(tmp_path, "node-tests", "jest")
    report = json.loads(run_tool([str(jest), "--json"], cwd=project.root, env=QUIET).stdout)
    records = discovered(project, (".js", ".cjs"))
    assert ids_in(records, "jest") == report_names(report)
    failed = await failure_names(project)
    assert failed == {"multiply > two by three", "a thrown error"}
    assert failed <= {r.id for r in records}


@pytest.mark.tool("node")
async def test_mocha_ids_are_the_names_its_json_report_gives(tmp_path: Path) -> None:
    mocha = bin_of("mocha")
    project = node_project(tmp_path, "node-tests", "mocha mocha/")
    (project.root / "mocha" / "nested.test.cjs").write_text(MOCHA_NESTED, encoding="utf-8")
    proc = run_tool([str(mocha), "--dry-run", "--reporter", "json", "mocha/"], cwd=project.root, env=QUIET)
    report = json.loads(proc.stdout)
    listed = [*report["tests"]]
    # Named as lintel's parser names a failure of the same report entry.
    ctx = ParseContext(cwd=str(project.root), root=str(project.root))
    names = Counter(f.name for f in mocha_report_failures({"failures": listed}, ctx))
    records = discovered(project, (".cjs",))
    assert ids_in(records, "mocha") == names
    assert "outer inner > fails deep down" in names
    failed = await failure_names(project)
    assert failed == {"restock > never goes below zero", "outer inner > fails deep down"}


_SUBTEST = re.compile(r"^(?P<indent> *)# Subtest: (?P<name>.*)$")


@pytest.mark.tool("node")
async def test_node_test_ids_are_its_tap_names(tmp_path: Path) -> None:
    require_tool("node", "install Node.js")
    project = node_project(tmp_path, "node")
    proc = run_tool(["node", "--test", "--test-reporter=tap"], cwd=project.root, env=QUIET)
    names: list[str] = []
    scope: dict[int, str] = {}
    for line in proc.stdout.splitlines():
        subtest = _SUBTEST.match(line)
        if subtest is None:
            continue
        depth = len(subtest.group("indent"))
        scope = {d: n for d, n in scope.items() if d < depth}
        scope[depth] = subtest.group("name")
        names.append(" > ".join(scope[d] for d in sorted(scope)))
    records = discovered(project, (".js",))
    assert Counter(r.id for r in records if r.kind != "file") == Counter(names)
    failed = await failure_names(project)
    assert failed
    assert failed <= {r.id for r in records}
