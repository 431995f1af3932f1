"""pytest's tests found statically (lintel.languages.python.testfind): which files, classes and functions pytest
collects by its defaults and by the project's python_files/python_classes/python_functions/testpaths, node ids,
and where each declaration is."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintel.core.testitems import FoundTest
from lintel.languages.python import testfind

from tests.helpers import make_project
from tests.helpers import write_source as write


def found(root: Path, *files: Path, texts: dict[Path, str] | None = None) -> list[FoundTest]:
    project = make_project("python", root.resolve(), ("pyproject.toml",))
    return testfind.discover(project, list(files), texts or {})


def ids(records: list[FoundTest]) -> list[str]:
    return [r.id for r in records]


SAMPLE = """
import unittest
import pytest


@pytest.fixture
def test_data():
    return 1


@pytest.mark.parametrize("x", [1, 2])
def test_p(x):
    assert x


def helper():
    pass


async def test_async():
    pass


class TestGroup:
    def test_a(self):
        pass

    def helper(self):
        pass

    class TestInner:
        def test_b(self):
            pass

    class NotATest:
        def test_c(self):
            pass


class TestWithInit:
    def __init__(self):
        pass

    def test_never(self):
        pass


class TestOff:
    __test__ = False

    def test_off(self):
        pass


class Checks(unittest.TestCase):
    def test_u(self):
        pass

    def check_not(self):
        pass


class Base:
    def test_inherited(self):
        pass


class TestChild(Base):
    def test_own(self):
        pass
"""


def test_what_pytest_collects_by_default(tmp_path: Path) -> None:
    file = write(tmp_path, "tests/test_sample.py", SAMPLE)
    records = found(tmp_path, file)
    assert ids(records) == [
        "tests/test_sample.py",
        "tests/test_sample.py::test_p",
        "tests/test_sample.py::test_async",
        "tests/test_sample.py::TestGroup",
        "tests/test_sample.py::TestGroup::test_a",
        "tests/test_sample.py::TestGroup::TestInner",
        "tests/test_sample.py::TestGroup::TestInner::test_b",
        "tests/test_sample.py::Checks",
        "tests/test_sample.py::Checks::test_u",
        "tests/test_sample.py::TestChild",
        "tests/test_sample.py::TestChild::test_own",
        "tests/test_sample.py::TestChild::test_inherited",
    ]
    kinds = {r.id.rsplit("::", 1)[-1]: (r.kind, r.parent) for r in records}
    assert (records[0].kind, records[0].parent) == ("file", None)
    assert kinds["TestInner"] == ("suite", "tests/test_sample.py::TestGroup")
    assert kinds["test_b"] == ("test", "tests/test_sample.py::TestGroup::TestInner")
    assert kinds["test_p"] == ("test", "tests/test_sample.py")


def test_files_by_default_and_by_the_projects_settings(tmp_path: Path) -> None:
    body = "def test_x():\n    pass\n\ndef check_y():\n    pass\n\n"
    body += "class CheckZ:\n    def check_w(self):\n        pass\n"
    names = ["test_a.py", "a_test.py", "check_a.py", "testa.py", "sub/test_b.py", "other/test_c.py"]
    files = [write(tmp_path, name, body) for name in names]
    by_default = {r.file.name for r in found(tmp_path, *files) if r.kind == "file"}
    assert by_default == {"test_a.py", "a_test.py", "test_b.py", "test_c.py"}

    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\npython_functions = "check"\n'
        'python_classes = "Check"\ntestpaths = ["."]\n',
        encoding="utf-8",
    )
    records = found(tmp_path, *files)
    assert ids(records) == [
        "check_a.py",
        "check_a.py::check_y",
        "check_a.py::CheckZ",
        "check_a.py::CheckZ::check_w",
    ]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\npython_files = check_*.py\ntestpaths = sub\n"),
        ("tox.ini", "[pytest]\npython_files = check_*.py\ntestpaths = sub\n"),
        ("setup.cfg", "[tool:pytest]\npython_files = check_*.py\ntestpaths = sub\n"),
        ("pyproject.toml", '[tool.pytest]\npython_files = ["check_*.py"]\ntestpaths = ["sub"]\n'),
    ],
)
def test_each_configuration_file_pytest_reads(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    files = [write(tmp_path, f, "def test_x():\n    pass\n") for f in ("check_a.py", "sub/check_b.py", "sub/test_c.py")]
    assert ids(found(tmp_path, *files)) == ["sub/check_b.py", "sub/check_b.py::test_x"]


def test_pytest_ini_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n')
    files = [write(tmp_path, f, "def test_x():\n    pass\n") for f in ("check_a.py", "test_b.py")]
    assert ids(found(tmp_path, *files)) == ["test_b.py", "test_b.py::test_x"]


def test_glob_patterns_for_classes_and_functions(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_classes = *Suite\npython_functions = *_should_*\n")
    file = write(
        tmp_path,
        "test_g.py",
        """
        def it_should_work():
            pass

        def test_not():
            pass

        class CartSuite:
            def total_should_add(self):
                pass
        """,
    )
    assert ids(found(tmp_path, file)) == [
        "test_g.py",
        "test_g.py::it_should_work",
        "test_g.py::CartSuite",
        "test_g.py::CartSuite::total_should_add",
    ]


def test_ranges_cover_the_decorators_and_count_characters(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        "test_r.py",
        """
        import pytest


        @pytest.mark.slow
        def test_é():
            assert "héllo" == "héllo"


        class TestA:
            def test_b(self):
                pass
        """,
    )
    records = {r.id: r for r in found(tmp_path, file)}
    test = records["test_r.py::test_é"]
    assert (test.line, test.column, test.end_line, test.end_column) == (4, 1, 6, 30)
    method = records["test_r.py::TestA::test_b"]
    assert (method.line, method.column, method.end_line, method.end_column) == (10, 5, 11, 13)
    head = records["test_r.py"]
    assert (head.kind, head.line, head.column, head.end_line, head.end_column) == ("file", 1, 1, 12, 1)
    assert test.file == file


def test_unsaved_text_is_read_instead_of_the_file(tmp_path: Path) -> None:
    file = write(tmp_path, "test_u.py", "def test_old():\n    pass\n")
    records = found(tmp_path, file, texts={file: "def test_new():\n    pass\n"})
    assert ids(records) == ["test_u.py", "test_u.py::test_new"]


def test_a_file_that_does_not_parse_has_no_tests(tmp_path: Path) -> None:
    broken = write(tmp_path, "test_broken.py", "def test_x(:\n")
    missing = (tmp_path / "test_gone.py").resolve()
    binary = tmp_path / "test_bin.py"
    binary.write_bytes(b"\xff\xfe\x00")
    assert found(tmp_path, broken, missing, binary.resolve()) == []


def test_a_module_switched_off_has_only_its_file_record(tmp_path: Path) -> None:
    file = write(tmp_path, "test_off.py", "__test__ = False\n\ndef test_x():\n    pass\n")
    assert ids(found(tmp_path, file)) == ["test_off.py"]


def test_the_collection_reader(tmp_path: Path) -> None:
    project = make_project("python", tmp_path.resolve(), ("pyproject.toml",))
    file = write(tmp_path, "tests/test_a.py", "")
    stdout = (
        "some warning\n"
        "tests/test_a.py::test_p[1-2]\n"
        "tests/test_a.py::TestA::test_q[x::y]\n"
        "tests/test_a.py::test_plain\n"
        "tests/missing.py::test_gone\n"
        "  tests/test_a.py::indented\n"
        "\n3 tests collected in 0.01s\n"
    )
    assert testfind.collected(project, stdout) == [
        ("tests/test_a.py::test_p[1-2]", file, "tests/test_a.py::test_p"),
        ("tests/test_a.py::TestA::test_q[x::y]", file, "tests/test_a.py::TestA::test_q"),
        ("tests/test_a.py::test_plain", file, "tests/test_a.py::test_plain"),
    ]
    assert testfind.collected(project, "no tests collected in 0.01s\n") == []
    assert testfind.collected(project, "ERROR: usage: pytest [options]\n") is None


def test_classes_imported_or_inherited_from_the_projects_modules(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(
        tmp_path,
        "tests/test_base.py",
        """
        class TestBase:
            def test_shared(self):
                pass


        class Mixin:
            def test_mixed(self):
                pass
        """,
    )
    file = write(
        tmp_path,
        "tests/test_child.py",
        """
        from tests.test_base import TestBase
        from .test_base import Mixin as M
        from os.path import join


        class TestChild(M, TestBase):
            def test_own(self):
                pass
        """,
    )
    records = {r.id: r for r in found(tmp_path, file)}
    assert list(records) == [
        "tests/test_child.py",
        "tests/test_child.py::TestBase",
        "tests/test_child.py::TestBase::test_shared",
        "tests/test_child.py::TestChild",
        "tests/test_child.py::TestChild::test_own",
        "tests/test_child.py::TestChild::test_mixed",
        "tests/test_child.py::TestChild::test_shared",
    ]
    # Declared elsewhere: placed at the statement of this file that brings them in.
    imported = records["tests/test_child.py::TestBase::test_shared"]
    assert (imported.file, imported.line, imported.end_line) == (file, 1, 1)
    inherited = records["tests/test_child.py::TestChild::test_mixed"]
    assert (inherited.line, inherited.end_line) == (6, 8)


def test_a_python_files_pattern_with_a_folder_matches_the_paths_end(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_files = checks/*.py\n", encoding="utf-8")
    files = [write(tmp_path, f, "def test_x():\n    pass\n") for f in ("a/checks/one.py", "checks/two.py", "three.py")]
    assert [r.id for r in found(tmp_path, *files) if r.kind == "file"] == ["a/checks/one.py", "checks/two.py"]
