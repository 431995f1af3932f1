"""The coverage data parsers on data captured from the real tools (tests/captures/coverage), the index's JSON
round trip and its store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintel.engine.coverage import CoverageIndex, CoverageStore
from lintel.languages.coverage.data import CoverageDataError
from lintel.languages.go.coverage import parse_go_profile
from lintel.languages.node.coverage import parse_istanbul_json, parse_lcov
from lintel.languages.python.coverage import parse_coveragepy_json

from tests.helpers import load_capture

GO_MODULES = {"example.com/lintelgo": ""}


def report(case: str) -> tuple[str, dict[str, object]]:
    output, _, meta = load_capture("coverage", case)
    assert output.report is not None
    return output.report, meta


def test_coveragepy_contexts_name_the_tests_that_ran_each_line() -> None:
    files = parse_coveragepy_json(report("python-contexts")[0])
    models = files["src/inventory/models.py"]
    # restock's body runs only in the test that calls it; the phase suffix (`|run`) is dropped.
    assert models.lines[20] == {"tests/test_models.py::test_restock_adds_units"}
    assert models.lines[16] == {"tests/test_models.py::test_total_value_counts_quantity"}
    # A def line runs at import (the empty context): covered, by no test.
    assert models.lines[3] == set()
    assert models.missing == {25, 26}
    assert (models.statements, models.covered_statements) == (16, 14)
    assert models.percent == pytest.approx(87.5)


def test_coveragepy_without_contexts_covers_lines_by_no_one() -> None:
    text = json.dumps(
        {"files": {"a.py": {"executed_lines": [1], "missing_lines": [2], "summary": {"num_statements": 2}}}}
    )
    files = parse_coveragepy_json(text)
    assert files["a.py"].lines == {1: set()}
    assert files["a.py"].missing == {2}


def test_go_profile_maps_import_paths_to_files_and_blocks_to_lines() -> None:
    files = parse_go_profile(report("go-aggregate")[0], GO_MODULES)
    assert set(files) == {"double.go", "greet.go", "label.go", "store.go", "sub/calc.go"}
    calc = files["sub/calc.go"]
    # The aggregate run names the package: the finest a whole-module profile tells.
    assert calc.lines[7] == {"example.com/lintelgo/sub"}
    assert {11, 12} <= set(calc.lines)  # Scale ran (TestScale fails, but runs it)
    assert {16, 17} <= calc.missing  # Home never ran
    assert (calc.statements, calc.covered_statements) == (4, 3)


def test_go_profile_of_one_test_names_it() -> None:
    files = parse_go_profile(report("go-one-test")[0], GO_MODULES, covered_by="TestAdd")
    calc = files["sub/calc.go"]
    assert calc.lines[7] == {"TestAdd"}
    assert 11 in calc.missing  # Scale is not run by TestAdd


def test_go_profile_counts_a_block_listed_twice_once() -> None:
    text = "mode: set\nm/a.go:1.1,2.2 1 0\nm/a.go:1.1,2.2 1 1\n"
    files = parse_go_profile(text, {"m": ""})
    assert (files["a.go"].statements, files["a.go"].covered_statements) == (1, 1)


def test_go_profile_must_start_with_its_mode_line() -> None:
    with pytest.raises(CoverageDataError):
        parse_go_profile("not a profile\n", GO_MODULES)


def test_istanbul_json_counts_statements_at_their_first_line() -> None:
    text, meta = report("jest-istanbul")
    files = parse_istanbul_json(text, str(meta["root"]), covered_by="jest")
    cart = files["src/cart.cjs"]
    assert cart.lines[4] == {"jest"}  # total's loop body
    assert {10, 11} <= cart.missing  # discount never called
    assert (cart.statements, cart.covered_statements) == (7, 5)


def test_lcov_reads_line_hits() -> None:
    text, meta = report("node-lcov")
    files = parse_lcov(text, str(meta["root"]), covered_by="node --test")
    cart = files["src/cart.js"]
    assert cart.lines[4] == {"node --test"}
    assert 15 in cart.missing  # unused() is never called
    assert "test/total.test.js" in files  # node counts the test files too (the engine drops them)


def test_lcov_rejects_what_is_not_a_tracefile() -> None:
    with pytest.raises(CoverageDataError):
        parse_lcov("hello\n", "/root")


def test_the_index_survives_the_store(tmp_path: Path) -> None:
    files = parse_go_profile(report("go-aggregate")[0], GO_MODULES)
    index = CoverageIndex("go", str(tmp_path), "go test", "package", 1.5, ["go", "test"], files)
    CoverageStore(tmp_path / "cache").put(index)
    # A new store (another process) reads it back from the file.
    again = CoverageStore(tmp_path / "cache").get(tmp_path, "go")
    assert again is not None
    assert again.to_json() == index.to_json()
    assert again.totals() == {"statements": 17, "covered": 5, "percent": 29.41}
    assert CoverageStore(tmp_path / "cache").get(tmp_path, "python") is None


def test_a_corrupt_index_file_is_ignored(tmp_path: Path) -> None:
    store = CoverageStore(tmp_path)
    path = store.path_for(tmp_path, "go")
    path.write_text("{not json", encoding="utf-8")
    assert store.get(tmp_path, "go") is None
