"""JavaScript and TypeScript test discovery without running a runner: nested suites and their ids (` > `, mocha's
space-joined suites), literal titles only, the tokenizer's traps (strings, templates with `${}`, comments, regular
expressions), ranges of whole calls, and every discovered id accepted by runTests on the fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintel.core.testitems import FoundTest
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.testruns import select_tests
from lintel.languages import Project
from lintel.languages.node.jsnames import at_line, scan_text, tokenize

from tests.helpers import copy_workspace

TRAPS = r"""// describe("in a line comment", () => {})
/* it("in a block comment") */
const pattern = /it\("in a regex"\)[/]/g;
const quoted = "describe('in a string', () => {";
const template = `test("in a template") ${`nested ${x}`} }`;
describe('outer', () => {
  it.only("it's \"quoted\"", async () => {
    const ratio = a / b / c;
  });
  describe.skip(`inner`, function () {
    test(`dynamic ${x}`, () => {});
    test.each([1])("each %i", () => {});
    test("deep", () => {
      expect(/\)/.test("x")).toBe(true);
    });
  });
  it("caf\u00e9 ☕", () => {});
});
test("top", () => {}); helper.test("a method"); function test(a) {}
test("a" + b, () => {});
"""


def project_of(tmp_path: Path, fixture: str) -> list[Project]:
    root = copy_workspace(fixture, tmp_path / fixture)
    return [p for p in detect(root) if p.language == "node"]


def discovered(project: Project, texts: dict[Path, str] | None = None) -> list[FoundTest]:
    assert project.spec.tests is not None
    assert project.spec.tests.discover is not None
    files = sorted(f.resolve() for f in project.root.rglob("*") if f.is_file() and "node_modules" not in f.parts)
    return project.spec.tests.discover(project, files, texts or {})


def test_literal_titles_nest_and_traps_are_skipped() -> None:
    assert [(c.path, c.suite) for c in scan_text(TRAPS)] == [
        (("outer",), True),
        (("outer", 'it\'s "quoted"'), False),
        (("outer", "inner"), True),
        (("outer", "inner", "deep"), False),
        (("outer", "café ☕"), False),
        (("top",), False),
    ]


def test_tokens_keep_regex_and_division_apart() -> None:
    kinds = [(t.kind, t.text) for t in tokenize("x = a / b / c; y = /\\/[/]/g.test(s); z = (1) / 2")]
    assert ("regex", "/\\/[/]/g") in kinds
    assert [text for kind, text in kinds if text == "/"] == ["/", "/", "/"]


def test_ranges_span_the_call(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "vitest run"}}), encoding="utf-8")
    (root / "test" / "a.test.ts").write_text(TRAPS, encoding="utf-8")
    [project] = [p for p in detect(root) if p.language == "node"]
    records = {r.id: r for r in discovered(project)}
    outer = records["outer"]
    lines = TRAPS.splitlines()
    assert (outer.line, outer.column, outer.end_line) == (6, 1, 18)
    assert lines[17] == "});"
    assert outer.end_column == 3
    cafe = records["outer > café ☕"]
    assert (cafe.line, cafe.column, cafe.end_line, cafe.end_column) == (17, 3, 17, 30)
    assert cafe.parent == "outer"
    assert records["outer > inner > deep"].parent == "outer > inner"
    assert records["test/a.test.ts"].kind == "file"
    assert records["outer"].parent == "test/a.test.ts"
    assert at_line(root / "test" / "a.test.ts", 14) is not None


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("vitest run", ["outer", "outer > inner", "outer > inner > deep"]),
        ("mocha", ["outer", "outer inner", "outer inner > deep"]),  # mocha's JSON joins the suites with spaces
    ],
)
def test_ids_are_the_runners_failure_names(tmp_path: Path, script: str, expected: list[str]) -> None:
    root = tmp_path / "p"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"scripts": {"test": script}}), encoding="utf-8")
    (root / "test" / "nested.test.js").write_text(
        'describe("outer", () => {\n  describe("inner", () => {\n    it("deep", () => {});\n  });\n});\n',
        encoding="utf-8",
    )
    [project] = [p for p in detect(root) if p.language == "node"]
    records = [r for r in discovered(project) if r.kind != "file"]
    assert [r.id for r in records] == expected
    for record in records:
        assert select_tests(project, [record.id], workspace=root, config=LintelConfig()).runs


def test_only_test_files_and_unsaved_text(tmp_path: Path) -> None:
    [project] = project_of(tmp_path, "node")
    test_file = (project.root / "src" / "math.test.js").resolve()
    records = discovered(project)
    assert {r.file.name for r in records} == {"math.test.js"}
    edited = discovered(project, {test_file: 'test("only in the editor", () => {});\n'})
    assert [r.id for r in edited] == ["src/math.test.js", "only in the editor"]


def test_a_script_lintel_cannot_narrow_lists_no_tests(tmp_path: Path) -> None:
    [project] = project_of(tmp_path, "mono-pnpm")  # `pnpm -r test`: no id could be run on its own
    assert discovered(project) == []


@pytest.mark.parametrize("fixture", ["node", "node-tests", "node-chained", "node-coverage", "polyglot"])
def test_every_discovered_id_is_accepted_by_run_tests(tmp_path: Path, fixture: str) -> None:
    projects = project_of(tmp_path, fixture)
    checked = 0
    for project in projects:
        if "test" not in project.scripts:
            continue
        for record in discovered(project):
            selection = select_tests(project, [record.id], workspace=project.root, config=LintelConfig())
            assert selection.runs, record
            checked += 1
    assert checked


def test_node_fixture_ids(tmp_path: Path) -> None:
    [project] = project_of(tmp_path, "node")
    assert [(r.kind, r.id, r.parent) for r in discovered(project)] == [
        ("file", "src/math.test.js", None),
        ("test", "add sums two numbers", "src/math.test.js"),
        ("test", "multiply multiplies two numbers", "src/math.test.js"),
        ("suite", "clamp", "src/math.test.js"),
        ("test", "clamp > keeps values below the upper bound", "clamp"),
        ("test", "clamp > keeps values above the lower bound", "clamp"),
    ]


def test_what_a_computed_title_or_a_table_holds_is_left_out() -> None:
    text = """describe("kept", () => {
  for (const mode of ["a", "b"]) {
    describe(`in ${mode}`, () => {
      test("unknown parent", () => {});
    });
  }
  describe.each([1, 2])("case %i", (n) => {
    it("inside a table", () => {});
  });
  describe.each`
    a
    ${1}
  `("tagged $a", () => { it("inside a tagged table", () => {}); });
  test.skipIf(process.env.CI)("conditional", () => {});
  it("after them", () => {});
});
"""
    assert [c.path for c in scan_text(text)] == [("kept",), ("kept", "after them")]


def test_a_projects_own_name_for_a_suite_is_a_suite() -> None:
    text = """const describeOrSkipOnWindows = win ? describe.skip : describe;
describeOrSkipOnWindows("not on windows", () => {
  test("spawns", () => {});
});
maybeDescribe("maybe", () => {});
describer("no", () => {});
"""
    calls = [(c.path, c.suite) for c in scan_text(text)]
    assert calls == [(("not on windows",), True), (("not on windows", "spawns"), False), (("maybe",), True)]
