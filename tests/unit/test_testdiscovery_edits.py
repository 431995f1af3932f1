"""file_tests after an edit: one file's tests as the editor shows them (lenses, lintel/testsChanged) take only that
file's part of the project's last collection, and none once the file changed since it ran."""

from __future__ import annotations

import os
from pathlib import Path

from lintel.engine.testdiscovery import TestIndex, file_tests

from tests.unit.test_testdiscovery import fake_config, python_project, run


def test_one_files_tests_take_only_its_part_of_the_collection(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    config, _ = fake_config(tmp_path)
    index = TestIndex()
    run(project, config, trusted=True, index=index)
    file = project.root / "tests" / "test_a.py"

    ids = [r.id for r in file_tests(project, file, index=index)]

    assert "tests/test_a.py::test_p[1]" in ids  # the collection applied
    assert all(i.startswith("tests/test_a.py") for i in ids), ids  # test_extra.py's test is not this file's


def test_a_test_added_since_the_collection_shows(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    config, _ = fake_config(tmp_path)
    index = TestIndex()
    run(project, config, trusted=True, index=index)
    file = project.root / "tests" / "test_a.py"
    stat = file.stat()

    file.write_text(file.read_text(encoding="utf-8") + "\n\ndef test_added():\n    pass\n", encoding="utf-8")
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a later save, whatever the clock

    ids = [r.id for r in file_tests(project, file, index=index)]
    assert "tests/test_a.py::test_added" in ids
    assert "tests/test_a.py::test_gone" in ids  # the source alone until the next collection
