"""lintel.engine.testdiscovery: which files each project's finder is given, the index that remembers each file's
records by its stamp, the runner's collection (through the project's test command, the user's override applied)
and how it refines the static records; the ids round-trip into runTests' selection; the command's JSON."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest
from lintel.core.testitems import FoundTest
from lintel.engine.config import LintelConfig
from lintel.engine.discover import discover
from lintel.engine.testdiscovery import (
    TestIndex,
    discover_projects,
    discover_tests,
    file_tests,
    refine,
    test_record,
)
from lintel.engine.testruns import select_tests
from lintel.languages import LANGUAGES, Project

from tests.helpers import copy_workspace, make_project

# A stand-in for pytest: prints node ids as `pytest --collect-only -q` does, and counts its runs.
FAKE_PYTEST = """
import pathlib, sys
runs = pathlib.Path(sys.argv[1])
runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
assert "--collect-only" in sys.argv and "--verbosity=-1" in sys.argv, sys.argv
print("tests/test_a.py::test_p[1]")
print("tests/test_a.py::test_p[2]")
print("tests/test_a.py::TestA::test_b")
print("tests/test_extra.py::test_generated")
print()
print("4 tests collected in 0.01s")
"""

TEST_A = """
import pytest


@pytest.mark.parametrize("x", [1, 2])
def test_p(x):
    pass


def test_gone():
    pass


class TestA:
    def test_b(self):
        pass

    def test_c(self):
        pass


class TestEmpty:
    def test_d(self):
        pass
"""


def python_project(root: Path) -> Project:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_a.py").write_text(textwrap.dedent(TEST_A).lstrip(), encoding="utf-8")
    (root / "tests" / "test_extra.py").write_text("", encoding="utf-8")
    return make_project("python", root.resolve(), ("pyproject.toml",))


def fake_config(tmp_path: Path) -> tuple[LintelConfig, Path]:
    script = tmp_path / "fake_pytest.py"
    script.write_text(FAKE_PYTEST, encoding="utf-8")
    runs = tmp_path / "runs"
    config = LintelConfig.model_validate({"languages": {"python": {"test": [sys.executable, str(script), str(runs)]}}})
    return config, runs


def run(
    project: Project, config: LintelConfig, *, trusted: bool, index: TestIndex, path: Path | None = None
) -> list[FoundTest]:
    return asyncio.run(discover_tests(project.root, [project], path=path, trusted=trusted, config=config, index=index))


def shape(records: list[FoundTest]) -> list[tuple[str, str, str | None]]:
    return [(r.id, r.kind, r.parent) for r in records]


def test_the_collection_is_the_authority_in_the_files_it_lists(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    config, runs = fake_config(tmp_path)
    index = TestIndex()
    records = run(project, config, trusted=True, index=index)
    file = "tests/test_a.py"
    assert shape(records) == [
        (file, "file", None),
        (f"{file}::test_p", "suite", file),
        (f"{file}::test_p[1]", "test", f"{file}::test_p"),
        (f"{file}::test_p[2]", "test", f"{file}::test_p"),
        (f"{file}::TestA", "suite", file),
        (f"{file}::TestA::test_b", "test", f"{file}::TestA"),
        ("tests/test_extra.py", "file", None),
        ("tests/test_extra.py::test_generated", "test", "tests/test_extra.py"),
    ]
    by_id = {r.id: r for r in records}
    case, function = by_id[f"{file}::test_p[2]"], by_id[f"{file}::test_p"]
    assert (case.label, case.line, case.end_line) == ("[2]", function.line, function.end_line)
    assert runs.read_text() == "x"

    # Nothing changed: the last collection again, no run.
    assert run(project, config, trusted=True, index=index) == records
    assert runs.read_text() == "x"
    # A file changed: collected again.
    test_a = project.root / file
    test_a.write_text(test_a.read_text() + "\n\ndef test_new():\n    pass\n", encoding="utf-8")
    run(project, config, trusted=True, index=index)
    assert runs.read_text() == "xx"


def test_concurrent_requests_share_one_collection(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    config, runs = fake_config(tmp_path)
    index = TestIndex()

    async def both() -> list[list[FoundTest]]:
        one = discover_tests(project.root, [project], path=None, trusted=True, config=config, index=index)
        two = discover_tests(project.root, [project], path=None, trusted=True, config=config, index=index)
        return list(await asyncio.gather(one, two))

    first, second = asyncio.run(both())
    assert first == second
    assert runs.read_text() == "x"


def test_untrusted_runs_nothing_and_keeps_the_static_records(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    config, runs = fake_config(tmp_path)
    records = run(project, config, trusted=False, index=TestIndex())
    assert f"{'tests/test_a.py'}::test_gone" in {r.id for r in records}
    assert not runs.exists()


def test_a_collection_that_cannot_run_keeps_the_static_records(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    static = run(project, LintelConfig(), trusted=False, index=TestIndex())
    for argv in (["no-such-pytest-binary"], [sys.executable, "-c", "print('not pytest')"]):
        config = LintelConfig.model_validate({"languages": {"python": {"test": argv}}})
        index = TestIndex()
        assert run(project, config, trusted=True, index=index) == static
        assert run(project, config, trusted=True, index=index) == static  # not tried again while nothing changed


def test_the_index_parses_a_file_again_only_when_it_changed(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    index = TestIndex()
    first = run(project, LintelConfig(), trusted=False, index=index)
    assert index.parsed == 2  # test_a.py and test_extra.py
    assert run(project, LintelConfig(), trusted=False, index=index) == first
    assert index.parsed == 2

    test_a = project.root / "tests" / "test_a.py"
    test_a.write_text("def test_only():\n    pass\n", encoding="utf-8")
    later = run(project, LintelConfig(), trusted=False, index=index)
    assert index.parsed == 3
    assert [r.id for r in later if r.file == test_a.resolve()] == ["tests/test_a.py", "tests/test_a.py::test_only"]

    # The project's configuration changed: every record is made again (python_files may say otherwise now).
    pyproject = project.root / "pyproject.toml"
    pyproject.write_text('[tool.pytest.ini_options]\npython_files = ["*_check.py"]\n', encoding="utf-8")
    assert run(project, LintelConfig(), trusted=False, index=index) == []
    assert index.parsed == 5


def test_file_tests_reads_unsaved_text_and_applies_the_last_collection(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    file = project.root / "tests" / "test_a.py"
    assert [r.id for r in file_tests(project, file, "def test_typed():\n    pass\n")] == [
        "tests/test_a.py",
        "tests/test_a.py::test_typed",
    ]
    config, _ = fake_config(tmp_path)
    index = TestIndex()
    run(project, config, trusted=True, index=index)
    assert "tests/test_a.py::test_p[1]" in {r.id for r in file_tests(project, file, index=index)}
    assert file_tests(project, project.root / "pyproject.toml") == []


def test_a_path_narrows_to_its_files_and_nested_projects_keep_their_own(tmp_path: Path) -> None:
    root = copy_workspace("mono-gowork", tmp_path / "ws")
    projects = discover(root, LANGUAGES).projects
    everything = asyncio.run(discover_projects(root, projects, path=None, trusted=False, config=LintelConfig()))
    assert {(p.project.root.name, r.id) for p in everything for r in p.tests if r.kind == "test"} == {
        ("api", "example.com/mono/api.TestStatus"),
        ("worker", "example.com/mono/worker.TestTotal"),
        ("worker", "example.com/mono/worker.TestRetry"),
    }
    job = root / "worker" / "job_test.go"
    narrowed = asyncio.run(discover_tests(root, projects, path=job, trusted=False, config=LintelConfig()))
    assert {r.file for r in narrowed} == {job.resolve()}


def test_refine_leaves_files_the_collection_did_not_list(tmp_path: Path) -> None:
    file = tmp_path / "t.py"
    records = [
        FoundTest("t.py", "t.py", file, 1, 1, 9, 1, "file"),
        FoundTest("t.py::test_a", "test_a", file, 1, 1, 2, 9, "test", "t.py"),
    ]
    assert refine(records, []) == records
    other = tmp_path / "u.py"
    assert refine(records, [("u.py::test_b", other, "u.py::test_b")])[2:] == [
        FoundTest("u.py", "u.py", other, 1, 1, 1, 1, "file"),
        FoundTest("u.py::test_b", "test_b", other, 1, 1, 1, 1, "test", "u.py"),
    ]


@pytest.mark.parametrize("workspace", ["python", "go", "go-many", "mono-gowork", "polyglot"])
def test_every_discovered_id_is_accepted_by_run_tests(tmp_path: Path, workspace: str) -> None:
    root = copy_workspace(workspace, tmp_path / workspace)
    projects = discover(root, LANGUAGES).projects
    found = asyncio.run(discover_projects(root, projects, path=None, trusted=False, config=LintelConfig()))
    assert any(r.kind == "test" for p in found for r in p.tests)
    for one in found:
        for record in one.tests:
            selection = select_tests(one.project, [record.id], workspace=root, config=LintelConfig())
            assert selection.runs, record.id


def test_the_editor_record_counts_utf16_and_names_the_project(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    project = make_project("python", root / "pkg", ("pyproject.toml",))
    file = root / "pkg" / "tests" / "test_x.py"
    lines = ["def test_😀():", "    pass"]
    test = FoundTest("tests/test_x.py::test_😀", "test_😀", file, 1, 1, 2, 9, "test", "tests/test_x.py")
    assert test_record(test, root, lines, project) == {
        "id": "tests/test_x.py::test_😀",
        "label": "test_😀",
        "kind": "test",
        "file": "pkg/tests/test_x.py",
        "uri": file.as_uri(),
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 8}},
        "parent": "tests/test_x.py",
        "project": "pkg",
        "language": "python",
    }
    end_of_emoji = FoundTest("x", "x", file, 1, 11, 1, 12, "test")
    assert test_record(end_of_emoji, root, lines, None)["range"]["end"] == {"line": 0, "character": 12}
