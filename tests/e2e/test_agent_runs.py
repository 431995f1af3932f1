"""The agent's loop over LSP: lintel.runTests {tests} runs only the tests named, counted in the
runner's own output; lintel.runFailingTests reruns exactly the last run's failures; lintel.runScript runs a
package.json script through npm, pnpm and yarn; and each refuses what it cannot do with an error naming why."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.e2e.conftest import Editor, Start
from tests.e2e.test_project_commands import require_toolchain
from tests.helpers import WORKSPACES, require_path, require_tool

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803


@pytest.fixture
def client_name() -> str:
    """Commands answer every client alike: one capability set keeps these real test runs to one pass."""
    return "neovim"


def pytest_counts(output: str) -> tuple[int, int]:
    """(ran, failed) from pytest's summary line (`1 failed, 1 passed in 0.03s`)."""
    failed = sum(int(n) for n in re.findall(r"(\d+) failed", output))
    passed = sum(int(n) for n in re.findall(r"(\d+) passed", output))
    return passed + failed, failed


def go_counts(output: str) -> tuple[int, int]:
    """(ran, failed) from go test -json's `run` and `fail` events of tests."""
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    tests = [e for e in events if e.get("Test")]
    return sum(e["Action"] == "run" for e in tests), sum(e["Action"] == "fail" for e in tests)


def cargo_counts(output: str) -> tuple[int, int]:
    """(ran, failed) from libtest's `running N tests` and `test result: … N failed` lines, every target."""
    ran = sum(int(n) for n in re.findall(r"^running (\d+) tests?$", output, re.MULTILINE))
    failed = sum(int(n) for n in re.findall(r"^test result: \w+\. \d+ passed; (\d+) failed", output, re.MULTILINE))
    return ran, failed


def tap_counts(output: str) -> tuple[int, int]:
    """(ran, failed) from node --test's TAP totals (tests not matching the pattern are counted as skipped)."""
    passed = int(re.search(r"^# pass (\d+)$", output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    failed = int(re.search(r"^# fail (\d+)$", output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    return passed + failed, failed


def vitest_counts(output: str) -> tuple[int, int]:
    """(ran, failed) from vitest's JSON report."""
    passed = int(re.search(r'"numPassedTests":(\d+)', output).group(1))  # type: ignore[union-attr]
    failed = int(re.search(r'"numFailedTests":(\d+)', output).group(1))  # type: ignore[union-attr]
    return passed + failed, failed


# language -> (fixture, the subset: one failing and one passing test, the failure's name, how to count)
SUBSETS: dict[str, tuple[str, list[Any], str, Callable[[str], tuple[int, int]]]] = {
    "python": (
        "python",
        ["tests/test_models.py::test_total_value_counts_quantity", "tests/test_pricing.py:12"],
        "tests/test_models.py::test_total_value_counts_quantity",
        pytest_counts,
    ),
    "go": (
        "go",
        ["example.com/lintelgo/sub.TestScale", "greet_test.go:12"],
        "example.com/lintelgo/sub.TestScale",
        go_counts,
    ),
    "rust": ("rust", ["tests::adds_wrong", "tests/integration.rs:5"], "tests::adds_wrong", cargo_counts),
    "node": (
        "node",
        ["multiply multiplies two numbers", "src/math.test.js:19"],
        "multiply multiplies two numbers",
        tap_counts,
    ),
}


@pytest.mark.parametrize("language", ["python", "go", "rust", "node"])
async def test_run_tests_runs_only_the_subset_and_run_failing_tests_reruns_its_failure(
    start: Start, language: str
) -> None:
    require_toolchain(language)
    fixture, subset, failing, count = SUBSETS[language]
    editor = await start(fixture)

    result = await editor.execute("lintel.runTests", {"tests": subset})

    assert (result["language"], result["check"], result["ok"]) == (language, "test", False)
    assert count(result["output"]) == (2, 1), result["output"]
    assert [f["name"] for f in result["failures"]] == [failing]
    recorded = await editor.execute("lintel.lastTestFailures")
    assert recorded["failures"] == result["failures"]
    [failure] = result["failures"]
    diagnostics = await editor.wait_for_diagnostics(editor.uri(failure["file"]), lambda ds: len(ds) > 0)
    runner = result["issues"][0]["source"]
    assert [d.range.start.line + 1 for d in diagnostics if (d.source, d.code) == ("lintel-test", runner)] == [
        failure["line"]
    ]

    rerun = await editor.execute("lintel.runFailingTests")

    assert count(rerun["output"]) == (1, 1), rerun["output"]
    assert [f["name"] for f in rerun["failures"]] == [failing]
    assert rerun["argv"] != result["argv"]


async def test_vitest_subset_and_rerun_through_a_chained_test_script(start: Start) -> None:
    require_tool("npm", "install Node.js 20+")
    require_path(WORKSPACES / "node-tests" / "node_modules" / ".bin" / "vitest")
    editor = await start("node-tests")

    result = await editor.execute("lintel.runTests", {"tests": ["add > adds to five", "test/math.test.js:19"]})

    assert vitest_counts(result["output"]) == (2, 1), result["output"]
    assert [f["name"] for f in result["failures"]] == ["add > adds to five"]
    assert result["argv"][0].endswith("node_modules/.bin/vitest")  # the script's vitest step, run on its own
    rerun = await editor.execute("lintel.runFailingTests")
    assert vitest_counts(rerun["output"]) == (1, 1), rerun["output"]


async def test_run_failing_tests_after_a_passing_subset_runs_nothing(start: Start) -> None:
    require_toolchain("python")
    editor = await start("python")
    passed = await editor.execute("lintel.runTests", {"tests": ["tests/test_pricing.py"]})
    assert (passed["ok"], pytest_counts(passed["output"])) == (True, (3, 0))

    rerun = await editor.execute("lintel.runFailingTests")

    assert (rerun["ok"], rerun["argv"], rerun["failures"]) == (True, [], [])
    assert rerun["output"].startswith("nothing to rerun: the last test run (")


@pytest.mark.parametrize("manager", ["npm", "pnpm", "yarn"])
async def test_run_script_through_the_lock_files_package_manager(start: Start, manager: str) -> None:
    require_tool(manager, "run scripts/setup-dev (scripts/setup.d/30-node.sh installs pnpm and yarn)")
    editor = await start(f"scripts-{manager}")

    result = await editor.execute("lintel.runScript", {"script": "greet", "args": ["a b", "--flag"]})

    assert (result["ok"], result["check"], result["exitCode"]) == (True, "script", 0)
    assert result["argv"][0] == manager
    assert 'greet: ["a b","--flag"]' in result["output"]
    assert result["output"].splitlines()[-1] == "exit: 0"
    failed = await editor.execute("lintel.runScript", {"script": "fail"})
    assert (failed["ok"], failed["exitCode"]) == (False, 3)
    assert "greet: asked to fail" in failed["output"]


async def error_of(editor: Editor, command: str, *arguments: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as caught:
        await editor.execute(command, *arguments, timeout=120)
    return caught.value


async def test_errors_name_the_script_the_test_and_the_language(start: Start) -> None:
    require_tool("npm", "install Node.js 20+")
    require_toolchain("python")
    editor = await start("scripts-npm", "python")
    python = str(editor.roots[1])

    unknown = await error_of(editor, "lintel.runScript", {"script": "deploy"})
    assert unknown.code == INVALID_PARAMS
    assert unknown.message.endswith("available scripts: build, fail, greet")
    not_node = await error_of(editor, "lintel.runScript", {"script": "build", "path": python})
    assert (not_node.code, not_node.message) == (
        REQUEST_FAILED,
        "lintel.runScript is not supported for python projects yet",
    )
    no_test = await error_of(editor, "lintel.runTests", {"tests": ["tests/test_models.py::test_nope"], "path": python})
    assert no_test.code == INVALID_PARAMS
    assert no_test.message.startswith("no python test matches 'tests/test_models.py::test_nope'")
    nothing = await error_of(editor, "lintel.runFailingTests", {"path": python})
    assert nothing.code == REQUEST_FAILED
    assert "no test run recorded for the python project" in nothing.message
    await editor.alive()


async def test_a_go_subtest_that_does_not_exist_is_refused_and_not_recorded(start: Start) -> None:
    require_toolchain("go")
    editor = await start("go")

    # go test -run '^TestGreeting$/^\($' passes, running TestGreeting alone (it answered ok: true).
    refused = await error_of(editor, "lintel.runTests", {"tests": ["TestGreeting/("]})

    assert (refused.code, refused.message) == (
        INVALID_PARAMS,
        "no go test matches 'TestGreeting/(': go test ran no test named 'TestGreeting/('",
    )
    nothing = await error_of(editor, "lintel.runFailingTests")
    assert "no test run recorded for the go project" in nothing.message


async def test_an_untrusted_workspace_runs_no_script_and_no_test(start: Start) -> None:
    editor = await start("scripts-npm", init_options={"trusted": False})

    for command, arguments in (("lintel.runScript", {"script": "greet"}), ("lintel.runTests", {"tests": ["x"]})):
        refused = await error_of(editor, command, arguments)
        assert (refused.code, refused.message) == (
            REQUEST_FAILED,
            "this workspace is not trusted: lintel runs no tools here",
        )
    refused = await error_of(editor, "lintel.runFailingTests")
    assert refused.message == "this workspace is not trusted: lintel runs no tools here"
