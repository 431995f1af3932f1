"""Tests found without running them (lintel.engine.testdiscovery) compared with the runners' own lists: `pytest
--collect-only -q` and `go test -list '.*' ./...` (and the subtests a `go test -json` run starts) on the fixtures;
and the failures of a real failing run named as the discovered tests are."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from lintel.core.testitems import FoundTest
from lintel.engine.config import LintelConfig
from lintel.engine.discover import discover
from lintel.engine.testdiscovery import TestIndex, discover_tests
from lintel.engine.testruns import run_tests
from lintel.languages import LANGUAGES

from tests.helpers import copy_workspace, run_tool

PYTEST = ["pytest", "--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]


def found(root: Path, *, trusted: bool = False, language: str | None = None) -> list[FoundTest]:
    projects = [p for p in discover(root, LANGUAGES).projects if language in (None, p.language)]
    return asyncio.run(
        discover_tests(root, projects, path=None, trusted=trusted, config=LintelConfig(), index=TestIndex())
    )


def test_ids(records: list[FoundTest]) -> set[str]:
    return {r.id for r in records if r.kind == "test"}


test_ids.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def collected(root: Path) -> set[str]:
    proc = run_tool(PYTEST, cwd=root)
    return {line for line in proc.stdout.splitlines() if "::" in line and not line.startswith(" ")}


# -- python ----------------------------------------------------------------------------------------------------


PARAMETRISED = """
import unittest

import pytest


@pytest.mark.parametrize("x", [1, 2, 3])
def test_p(x):
    assert x


class TestGroup:
    @pytest.mark.parametrize("y", ["a b", "c"], ids=["first", "second"])
    def test_q(self, y):
        pass

    def test_r(self):
        pass

    class TestInner:
        async def test_s(self):
            pass


class Checks(unittest.TestCase):
    def test_u(self):
        pass


class TestWithInit:
    def __init__(self):
        pass

    def test_never(self):
        pass


class Base:
    def test_inherited(self):
        pass


class TestChild(Base):
    def test_own(self):
        pass
"""


@pytest.mark.tool("pytest")
def test_python_fixture_ids_are_pytests_own(tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    assert test_ids(found(root)) == collected(root)
    assert test_ids(found(root, trusted=True)) == collected(root)


@pytest.mark.tool("pytest")
def test_parametrised_cases_come_from_the_collection(tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    (root / "tests" / "test_cases.py").write_text(textwrap.dedent(PARAMETRISED).lstrip(), encoding="utf-8")
    # A class imported from another test module is collected here too, as are the tests a subclass inherits.
    reuse = "from test_cases import TestGroup\n\n\nclass TestMore(TestGroup):\n"
    reuse += "    def test_extra(self):\n        pass\n"
    (root / "tests" / "test_reuse.py").write_text(reuse, encoding="utf-8")
    by_pytest = collected(root)
    assert "tests/test_cases.py::TestGroup::test_q[first]" in by_pytest
    assert "tests/test_reuse.py::TestMore::test_q[second]" in by_pytest

    static = found(root)
    assert test_ids(static) == {node_id.split("[", 1)[0] for node_id in by_pytest}

    trusted = found(root, trusted=True)
    assert test_ids(trusted) == by_pytest
    by_id = {r.id: r for r in trusted}
    function = by_id["tests/test_cases.py::test_p"]
    assert function.kind == "suite"
    case = by_id["tests/test_cases.py::test_p[2]"]
    assert (case.parent, case.label, case.line, case.end_line) == (function.id, "[2]", function.line, function.end_line)
    assert [r.id for r in trusted if r.parent == function.id] == [f"{function.id}[{n}]" for n in (1, 2, 3)]


@pytest.mark.tool("pytest")
def test_a_python_failure_is_named_as_its_discovered_test(tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    [project] = discover(root, LANGUAGES).projects
    result = asyncio.run(run_tests(project, None, workspace=root, config=LintelConfig()))
    assert result.failures, "the python fixture has a failing test"
    assert {f.name for f in result.failures} <= test_ids(found(root))


@pytest.mark.tool("pytest")
def test_a_nested_projects_failures_are_named_from_its_root(tmp_path: Path) -> None:
    """A project below the workspace root: pytest's node ids (and the discovered ids) start at the project's root,
    even where the workspace's own project has a file of the same relative name."""
    root = tmp_path / "ws"
    for folder, body in (
        (root, "def test_fine():\n    pass\n"),
        (root / "pkg", "def test_bad():\n    assert 1 == 2\n"),
    ):
        (folder / "tests").mkdir(parents=True)
        (folder / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
        (folder / "tests" / "test_x.py").write_text(body, encoding="utf-8")
    nested = next(p for p in discover(root, LANGUAGES).projects if p.root.name == "pkg")
    result = asyncio.run(run_tests(nested, None, workspace=root, config=LintelConfig()))
    assert [(f.name, f.file) for f in result.failures] == [("tests/test_x.py::test_bad", "pkg/tests/test_x.py")]
    ids = test_ids(asyncio.run(discover_tests(root, [nested], path=None, trusted=False, config=LintelConfig())))
    assert ids == {"tests/test_x.py::test_bad"}
    rerun = asyncio.run(run_tests(nested, ["tests/test_x.py::test_bad"], workspace=root, config=LintelConfig()))
    assert [f.name for f in rerun.failures] == ["tests/test_x.py::test_bad"]


# -- go --------------------------------------------------------------------------------------------------------


def go_listed(module: Path) -> set[str]:
    """`go test -list '.*' ./...` as `<import path>.<Name>`: each package's names precede its `ok` line."""
    proc = run_tool(["go", "test", "-list", ".*", "./..."], cwd=module)
    names: list[str] = []
    listed: set[str] = set()
    for line in proc.stdout.splitlines():
        if line.startswith(("ok ", "ok\t")):
            package = line.split()[1]
            listed |= {f"{package}.{name}" for name in names}
            names = []
        elif line and not line.startswith(("?", "FAIL", "#")):
            names.append(line.strip())
    assert proc.returncode == 0, proc.stderr
    return listed


@pytest.mark.tool("go")
@pytest.mark.parametrize(
    ("workspace", "modules"),
    [
        ("go", ["."]),
        ("go-many", ["."]),
        ("mono-gowork", ["api", "worker"]),
        ("mono-services", ["api"]),
        ("polyglot", ["."]),
    ],
)
def test_go_fixture_ids_are_go_tests_own(tmp_path: Path, workspace: str, modules: list[str]) -> None:
    root = copy_workspace(workspace, tmp_path / workspace)
    expected = set().union(*(go_listed(root / module) for module in modules))
    assert expected
    assert test_ids(found(root, language="go")) == expected


SUBTESTS = """
package m

import (
	"fmt"
	"testing"
)

func TestTable(t *testing.T) {
	t.Run("adds two", func(t *testing.T) {
		t.Run("inner\\tcase", func(t *testing.T) {})
		t.Run("inner\\tcase", func(t *testing.T) {})
		t.Run("", func(t *testing.T) {})
	})
	for _, name := range []string{"dynamic"} {
		t.Run(name, func(t *testing.T) {})
	}
	t.Run(`raw name`, check)
	t.Run("zero\\u200bwidth é", check)
}

func check(t *testing.T) {}

func FuzzF(f *testing.F) {
	f.Add(1)
	f.Fuzz(func(t *testing.T, n int) {})
}

func BenchmarkB(b *testing.B) {}

func Example() {
	fmt.Println("x")
	// Output: x
}

func Example_silent() {}
"""


@pytest.mark.tool("go")
def test_go_subtests_are_named_as_a_run_names_them(tmp_path: Path) -> None:
    root = tmp_path / "m"
    (root / "inner").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/m\n\ngo 1.22\n", encoding="utf-8")
    (root / "inner" / "table_test.go").write_text(textwrap.dedent(SUBTESTS).lstrip(), encoding="utf-8")
    proc = run_tool(["go", "test", "-json", "-count=1", "./..."], cwd=root)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    ran = {f"{e['Package']}.{e['Test']}" for e in events if e.get("Action") == "run"}
    assert "example.com/m/inner.TestTable/adds_two/inner_case#01" in ran, proc.stdout

    discovered = test_ids(found(root))
    # Not run without -bench; a subtest named at run time only (a fuzz test's seeds too) is not found statically.
    assert discovered - ran == {"example.com/m/inner.BenchmarkB"}
    assert ran - discovered == {"example.com/m/inner.TestTable/dynamic", "example.com/m/inner.FuzzF/seed#0"}
    package = "example.com/m/inner."
    assert {n for n in discovered if "/" not in n.removeprefix(package)} == go_listed(root)


@pytest.mark.tool("go")
@pytest.mark.parametrize("workspace", ["go", "go-many"])
def test_a_go_failure_is_named_as_its_discovered_test(tmp_path: Path, workspace: str) -> None:
    root = copy_workspace(workspace, tmp_path / workspace)
    [project] = discover(root, LANGUAGES).projects
    result = asyncio.run(run_tests(project, None, workspace=root, config=LintelConfig()))
    assert result.failures, f"the {workspace} fixture has a failing test"
    assert {f.name for f in result.failures} <= test_ids(found(root))
