"""lintel.discoverTests through a real LSP client: the tests of every folder, of a folder or of a file, as records
the editor places (LSP ranges) and runs (`lintel.runTests {path, tests: [id]}`); refusals as other commands'."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start
from tests.e2e.test_faults import MARKER_TOOL, error_of
from tests.helpers import require_tool

PYTHON_TESTS = [
    ("tests/test_models.py", "file", None),
    ("tests/test_models.py::test_restock_adds_units", "test", "tests/test_models.py"),
    ("tests/test_models.py::test_total_value_counts_quantity", "test", "tests/test_models.py"),
    ("tests/test_pricing.py", "file", None),
    ("tests/test_pricing.py::test_label_mentions_note", "test", "tests/test_pricing.py"),
    ("tests/test_pricing.py::test_report_lists_items", "test", "tests/test_pricing.py"),
    ("tests/test_pricing.py::test_summary_counts_units", "test", "tests/test_pricing.py"),
]


def shape(records: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(r["id"], r["kind"], r.get("parent")) for r in records]


async def test_every_folders_tests_with_their_places(start: Start) -> None:
    require_tool("pytest")
    editor = await start("python", "go")
    python, go = editor.roots

    records = await editor.execute("lintel.discoverTests")

    in_python = [r for r in records if r["uri"].startswith(python.resolve().as_uri() + "/")]
    assert shape(in_python) == PYTHON_TESTS
    restock = in_python[1]
    assert restock == {
        "id": "tests/test_models.py::test_restock_adds_units",
        "label": "test_restock_adds_units",
        "kind": "test",
        "file": "tests/test_models.py",
        "uri": (python / "tests" / "test_models.py").resolve().as_uri(),
        "range": {"start": {"line": 3, "character": 0}, "end": {"line": 6, "character": 29}},
        "parent": "tests/test_models.py",
        "project": ".",
        "language": "python",
    }
    in_go = [r for r in records if r["language"] == "go"]
    assert [r["id"] for r in in_go if r["kind"] == "test"] == [
        "example.com/lintelgo.TestGreeting",
        "example.com/lintelgo.TestDouble",
        "example.com/lintelgo/sub.TestAdd",
        "example.com/lintelgo/sub.TestScale",
    ]
    assert {r["file"] for r in in_go} == {"greet_test.go", "sub/calc_test.go"}
    assert all(r["uri"].startswith(go.resolve().as_uri() + "/") for r in in_go)


async def test_a_path_or_a_file_narrows_the_list(start: Start) -> None:
    editor = await start("go", "python")
    go = editor.roots[0]

    sub = await editor.execute("lintel.discoverTests", {"path": "sub"})
    assert [r["id"] for r in sub] == [
        "sub/calc_test.go",
        "example.com/lintelgo/sub.TestAdd",
        "example.com/lintelgo/sub.TestScale",
    ]
    one = await editor.execute("lintel.discoverTests", {"path": str(go / "greet_test.go")})
    assert {r["file"] for r in one} == {"greet_test.go"}
    source = await editor.execute("lintel.discoverTests", {"path": "greet.go"})
    assert source == []
    python = await editor.execute("lintel.discoverTests", {"path": str(editor.roots[1] / "tests")})
    assert shape(python) == PYTHON_TESTS


async def test_bad_paths_are_refused_as_other_commands_refuse_them(start: Start, tmp_path: Path) -> None:
    editor = await start("python")
    outside = tmp_path / "outside"
    outside.mkdir()
    for path in (str(outside), "../outside", "tests/nope.py"):
        refused = await error_of(editor, "lintel.discoverTests", {"path": path})
        other = await error_of(editor, "lintel.lint", {"path": path})
        assert refused.message == other.message
        assert refused.code == other.code
    both = await error_of(editor, "lintel.discoverTests", {"path": "tests", "file": "tests/test_models.py"})
    assert both.message == "lintel.discoverTests: pass `file` or `path`, not both"


async def test_a_discovered_id_runs_that_test_and_its_failure_bears_the_id(start: Start) -> None:
    require_tool("pytest")
    editor = await start("python")
    records = await editor.execute("lintel.discoverTests", {"path": "tests/test_models.py"})
    failing = next(r for r in records if r["id"].endswith("::test_total_value_counts_quantity"))

    result = await editor.execute("lintel.runTests", {"path": failing["file"], "tests": [failing["id"]]})

    assert result["ok"] is False
    assert [f["name"] for f in result["failures"]] == [failing["id"]]
    assert result["scope"] == "the tests named in `tests`"


async def test_an_untrusted_workspace_still_lists_its_tests_and_runs_nothing(start: Start, tmp_path: Path) -> None:
    marker = tmp_path / "a-tool-ran"
    tool = [sys.executable, "-c", MARKER_TOOL, str(marker)]
    editor = await start("python", init_options={"trusted": False, "languages": {"python": {"test": tool}}})

    records = await editor.execute("lintel.discoverTests")

    assert shape(records) == PYTHON_TESTS
    assert not marker.exists(), "a tool ran in an untrusted workspace"
