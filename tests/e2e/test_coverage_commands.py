"""lintel.coverage and lintel.testsCovering over LSP with the real tools: per test for Python
(coverage.py contexts) and Go (each test run alone), per test file for node's own runner."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.conftest import Start, tool_env
from tests.helpers import missing_tool, require_tool


@pytest.fixture
def server_env(cargo_target_dir: Path, tmp_path: Path) -> dict[str, str]:
    # The coverage index goes to the user cache: a private one per test.
    return {**tool_env(cargo_target_dir), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def require_pytest_cov() -> None:
    require_tool("pytest")
    if importlib.util.find_spec("pytest_cov") is None or importlib.util.find_spec("coverage") is None:
        missing_tool("coverage and pytest-cov are not installed (pip install coverage pytest-cov)")


async def test_python_tests_covering_names_the_one_test_that_calls_the_function(start: Start) -> None:
    require_pytest_cov()
    editor = await start("python")

    result = await editor.execute("lintel.coverage")
    assert (result["check"], result["status"], result["ok"]) == ("coverage", "findings", False)
    assert [f["name"] for f in result["failures"]] == ["tests/test_models.py::test_total_value_counts_quantity"]
    files = {f["file"]: f for f in result["coverage"]["files"]}
    assert files["src/inventory/models.py"]["percent"] == 87.5

    # restock's body (models.py:20) runs in one test only; label's (pricing.py:13) in another.
    restock = await editor.execute("lintel.testsCovering", {"file": "src/inventory/models.py", "line": 20})
    assert restock["tests"] == ["tests/test_models.py::test_restock_adds_units"]
    assert (restock["granularity"], restock["covered"], restock["ranCoverage"]) == ("test", True, False)
    label = await editor.execute(
        "lintel.testsCovering", {"file": str(editor.path("src/inventory/pricing.py")), "line": 13}
    )
    assert label["tests"] == ["tests/test_pricing.py::test_label_mentions_note"]

    # A line no test runs: an empty list, said plainly.
    never = await editor.execute("lintel.testsCovering", {"file": "src/inventory/models.py", "line": 25})
    assert (never["tests"], never["covered"], never["executable"]) == ([], False, True)
    assert never["note"] == "no test runs this line"


async def test_go_tests_covering_runs_each_test_of_the_package_alone(start: Start) -> None:
    require_tool("go", "install Go from https://go.dev/dl/")
    editor = await start("go")

    # No coverage run yet: testsCovering runs one first.
    add = await editor.execute("lintel.testsCovering", {"file": "sub/calc.go", "line": 7})
    assert add["ranCoverage"] is True
    assert (add["granularity"], add["tests"]) == ("test", ["example.com/lintelgo/sub.TestAdd"])
    greeting = await editor.execute("lintel.testsCovering", {"file": "greet.go", "line": 11})
    assert greeting["ranCoverage"] is False
    assert greeting["tests"] == ["example.com/lintelgo.TestGreeting"]


async def test_node_tests_covering_names_test_files(start: Start) -> None:
    require_tool("node", "install Node.js 20+")
    editor = await start("node-coverage")

    result = await editor.execute("lintel.coverage")
    assert result["ok"] is True
    assert result["coverage"]["granularity"] == "project"
    assert [f["file"] for f in result["coverage"]["files"]] == ["src/cart.js"]

    discount = await editor.execute("lintel.testsCovering", {"file": "src/cart.js", "line": 11})
    assert (discount["granularity"], discount["tests"]) == ("file", ["test/discount.test.js"])
    total = await editor.execute("lintel.testsCovering", {"file": "src/cart.js", "line": 4})
    assert total["tests"] == ["test/total.test.js"]


async def test_coverage_errors(start: Start, tmp_path: Path) -> None:
    editor = await start("rust")
    with pytest.raises(JsonRpcException, match=r"lintel.coverage is not supported for rust projects yet"):
        await editor.execute("lintel.coverage")
    with pytest.raises(JsonRpcException, match=r"outside the workspace"):
        await editor.execute("lintel.testsCovering", {"file": str(tmp_path / "elsewhere.rs"), "line": 1})
    with pytest.raises(JsonRpcException, match=r"expected \{file, line\}"):
        await editor.execute("lintel.testsCovering", {"file": "src/lib.rs"})
    with pytest.raises(JsonRpcException, match=r"line"):
        await editor.execute("lintel.testsCovering", {"file": "src/lib.rs", "line": 0})
