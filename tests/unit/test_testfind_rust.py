"""Rust test discovery without building: libtest names from the file's place and its inline modules, ranges of
whole declarations, traps (strings, raw strings, nested comments, chars and lifetimes, tests inside functions),
and every discovered id accepted by runTests on the fixtures."""

from __future__ import annotations

from pathlib import Path

from lintel.core.testitems import FoundTest
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.testruns import select_tests
from lintel.languages import Project
from lintel.languages.rust.testscan import scan_text

from tests.helpers import copy_workspace


def project_of(tmp_path: Path, fixture: str) -> Project:
    root = copy_workspace(fixture, tmp_path / fixture)
    [project] = [p for p in detect(root) if p.language == "rust"]
    return project


def discovered(project: Project, texts: dict[Path, str] | None = None) -> list[FoundTest]:
    assert project.spec.tests is not None
    assert project.spec.tests.discover is not None
    files = sorted(f.resolve() for f in project.root.rglob("*.rs") if "target" not in f.parts)
    return project.spec.tests.discover(project, files, texts or {})


TRAPS = r"""//! #[test] fn in_a_doc_comment() {}
/* #[test] fn in_a_comment() { /* nested */ } #[test] fn still_comment() {} */
const S: &str = "}#[test] fn in_a_string() {";
const R: &str = r#"} " #[test] fn in_a_raw_string"#;
fn lifetimes<'a>(x: &'a str) -> char { '}' }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "slow"]
    fn ignored_but_listed() {
        let s = "{";
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn on_tokio() {}

    fn helper() {
        #[test]
        fn inside_a_function() {}
    }

    pub(crate) mod deeper {
        #[rstest]
        #[case(1)]
        #[case::big(10)]
        fn cases(#[case] x: u32) {}

        #[rstest]
        fn with_fixtures(x: u32) {}

        #[rstest]
        fn with_values(#[values(1, 2)] x: u32) {}

        #[async_std::test]
        async fn on_async_std() {}
    }

    impl Thing {
        #[test]
        fn in_an_impl() {}
    }
}
"""


def test_names_follow_modules_and_skip_what_is_not_code() -> None:
    names = [found.name for found in scan_text(TRAPS, ("shapes",))]
    assert names == [
        "shapes::tests::ignored_but_listed",
        "shapes::tests::on_tokio",
        "shapes::tests::deeper::cases::case_1",
        "shapes::tests::deeper::cases::case_2_big",
        "shapes::tests::deeper::with_fixtures",
        "shapes::tests::deeper::on_async_std",
    ]


def line_of(snippet: str) -> int:
    return next(n for n, line in enumerate(TRAPS.splitlines(), 1) if snippet in line)


def test_ranges_cover_attributes_through_the_closing_brace() -> None:
    found = {f.name: f for f in scan_text(TRAPS)}
    first = line_of("#[ignore") - 1
    assert found["tests::ignored_but_listed"].span == (first, 5, first + 4, 6)
    assert TRAPS.splitlines()[first + 3] == "    }"
    big = line_of("#[case::big(10)]")
    assert found["tests::deeper::cases::case_2_big"].span == (big, 9, big, 25)  # the case's own attribute
    module, deeper, cases = found["tests::deeper::cases::case_1"].suites
    last = len(TRAPS.splitlines())
    assert (module.name, module.span) == ("tests", (line_of("#[cfg(test)]"), 1, last, 2))  # attributes included
    assert (deeper.name, deeper.span[:2]) == ("tests::deeper", (line_of("pub(crate) mod deeper"), 5))
    assert (cases.name, cases.span) == ("tests::deeper::cases", (big - 2, 9, big + 1, 36))


def test_case_names_are_padded_as_rstest_pads_them() -> None:
    cases = "\n".join(f"#[case({n})]" for n in range(10))
    names = [f.name for f in scan_text(f"#[rstest]\n{cases}\nfn many(#[case] x: u32) {{}}\n")]
    assert names[0] == "many::case_01"
    assert names[-1] == "many::case_10"


def test_unreadable_or_unbalanced_files_have_no_tests() -> None:
    assert scan_text("#[test]\nfn never_closed() {\n") == []
    assert scan_text("") == []


def test_fixture_records_file_then_suites_then_tests(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    records = discovered(project)
    shapes = [(r.kind, r.id, r.parent) for r in records if r.file.name == "shapes.rs"]
    assert shapes == [
        ("file", "src/shapes.rs", None),
        ("suite", "shapes::tests", "src/shapes.rs"),
        ("test", "shapes::tests::makes_points", "shapes::tests"),
        ("test", "shapes::tests::ranges", "shapes::tests"),
    ]
    integration = [(r.kind, r.id, r.parent, r.line, r.end_line) for r in records if r.file.name == "integration.rs"]
    assert integration == [
        ("file", "tests/integration.rs", None, 1, 11),
        ("test", "empty_list_is_empty", "tests/integration.rs", 3, 6),
        ("test", "addition_is_wrong_here", "tests/integration.rs", 8, 11),
    ]
    assert not [r for r in records if r.file.name == "main.rs"]  # no tests there: no record


def test_unsaved_text_is_read_instead_of_the_file(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    lib = (project.root / "src" / "lib.rs").resolve()
    records = discovered(project, {lib: "#[test]\nfn only_in_the_editor() {}\n"})
    assert [r.id for r in records if r.file == lib] == ["src/lib.rs", "only_in_the_editor"]


def test_workspace_members_are_discovered(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust-workspace")
    ids = [(r.id, r.file.relative_to(project.root.resolve()).as_posix()) for r in discovered(project)]
    assert ids == [
        ("impl/src/lib.rs", "impl/src/lib.rs"),
        ("tests", "impl/src/lib.rs"),
        ("tests::doubles_two", "impl/src/lib.rs"),
        ("tests::empty_is_nothing", "impl/src/lib.rs"),
        ("src/main.rs", "src/main.rs"),
        ("tests", "src/main.rs"),
        ("tests::the_app_doubles", "src/main.rs"),
    ]


def test_every_discovered_id_is_accepted_by_run_tests(tmp_path: Path) -> None:
    for fixture in ("rust", "rust-workspace"):
        project = project_of(tmp_path, fixture)
        for record in discovered(project):
            selection = select_tests(project, [record.id], workspace=project.root, config=LintelConfig())
            assert selection.runs, record


def test_a_suite_id_runs_each_test_in_it(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    selection = select_tests(project, ["shapes::tests"], workspace=project.root, config=LintelConfig())
    [run] = selection.runs
    assert run.argv[run.argv.index("--") + 1 :] == ("--exact", "shapes::tests::makes_points", "shapes::tests::ranges")
