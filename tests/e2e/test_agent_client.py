"""examples/agent_client.py, the README's LSP-speaking agent, run against a copy of the python fixture: the whole
loop (diagnostics → testsCovering → runTests {tests} → lastTestFailures → fix → save → runFailingTests) with the
real ruff, pytest and coverage.py."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.e2e.conftest import tool_env
from tests.helpers import REPO, copy_workspace, lintel_json, missing_tool, require_tool

EXAMPLE = REPO / "examples" / "agent_client.py"
FAILING = "tests/test_models.py::test_total_value_counts_quantity"
# The fixture's bug: total_value forgets the quantity.
BUG = ("item.price for", "item.price * item.quantity for")


@pytest.fixture
def server_env(cargo_target_dir: Path, tmp_path: Path) -> dict[str, str]:
    # The coverage index goes to the user cache: a private one per test.
    return {**tool_env(cargo_target_dir), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def run_agent(root: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), str(root), *args, "--server", f"{sys.executable} -m lintel serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )


def ruff_lines(text: str) -> set[tuple[int, str]]:
    return {(int(line), rule) for line, rule in re.findall(r"^  (\d+):\d+ \w+ \[ruff (\w+)\]", text, re.M)}


def lint_of(root: Path, file: str) -> set[tuple[int, str]]:
    _, report = lintel_json("check", str(root), "--only", "lint")
    return {(i["line"], i["rule"]) for i in report["issues"] if i["file"] == file}


def test_agent_runs_the_loop_to_a_passing_rerun(server_env: dict[str, str], tmp_path: Path) -> None:
    require_tool("pytest")
    if importlib.util.find_spec("pytest_cov") is None or importlib.util.find_spec("coverage") is None:
        missing_tool("coverage and pytest-cov are not installed (pip install coverage pytest-cov)")
    root = copy_workspace("python", tmp_path / "python")
    before = lint_of(root, "src/inventory/models.py")
    assert before

    proc = run_agent(root, "src/inventory/models.py", "--line", "16", "--replace", *BUG, env=server_env)

    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    steps = [line.split(" (")[0].split(":")[0] for line in out.splitlines() if not line.startswith("  ")]
    assert steps == [
        "diagnostics of src/inventory/models.py",
        "tests covering src/inventory/models.py",
        "subset",
        "last test failures",
        "fix",
        "diagnostics after the save",
        "rerun of the failures",
    ], out
    # diagnostics: ruff's findings of the file, before and after the fix (which touches neither).
    before_save, after_save = out.split("diagnostics after the save")
    assert ruff_lines(before_save) == before, out
    assert ruff_lines(after_save) == lint_of(root, "src/inventory/models.py") == before, out
    # testsCovering: the one test that calls total_value, by the node id coverage.py's context gives.
    assert f"tests covering src/inventory/models.py:16 (test): 1\n  {FAILING}\n" in out
    # runTests {tests}: pytest ran that test alone (its own count: the whole suite is 1 failed, 4 passed).
    assert re.search(rf"^subset \(pytest .* -- {re.escape(FAILING)}\): failed, exit 1, ", out, re.M), out
    assert re.search(r"^subset .* — python runner: 1 failed in [\d.]+s$", out, re.M), out
    # lastTestFailures: the failure, where and why.
    assert f"last test failures: 1\n  FAILED {FAILING} at tests/test_models.py:13: AssertionError" in out
    # the fix is on disk, and runFailingTests reran exactly the failure, which now passes.
    assert BUG[1] in (root / "src/inventory/models.py").read_text(encoding="utf-8")
    assert re.search(rf"^rerun of the failures \(pytest .* -- {re.escape(FAILING)}\): passed, exit 0, ", out, re.M)
    assert re.search(r"^rerun of the failures .* — python runner: 1 passed in [\d.]+s$", out, re.M), out


def test_agent_without_a_line_or_fix_runs_the_suite_and_stops(server_env: dict[str, str], tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    expected = lint_of(root, "src/inventory/pricing.py")
    assert expected

    proc = run_agent(root, "src/inventory/pricing.py", env=server_env)

    assert proc.returncode == 1, proc.stdout + proc.stderr  # the last run (the suite) failed
    assert ruff_lines(proc.stdout) == expected, proc.stdout
    assert re.search(r"^tests \(pytest .*\): failed, exit 1, .* — python runner: 1 failed, 4 passed", proc.stdout, re.M)
    assert f"  FAILED {FAILING} at tests/test_models.py:13: AssertionError" in proc.stdout
    assert "no fix given (--replace or --fix-from): stopping here" in proc.stdout
    assert "rerun" not in proc.stdout


def test_a_refused_request_is_printed_and_exits_2(server_env: dict[str, str], tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")

    proc = run_agent(root, "src/inventory/models.py", "--line", "0", env=server_env)

    assert proc.returncode == 2, proc.stdout + proc.stderr
    error = "error: lintel.testsCovering: line: Input should be greater than or equal to 1 (code -32602)"
    assert error in proc.stderr.splitlines(), proc.stderr
    assert "subset" not in proc.stdout


def test_a_fix_that_does_not_apply_stops_before_the_server_starts(tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    # A server that cannot start: had the example tried, stderr would say "cannot start".
    server = ["--server", str(tmp_path / "no-such-server")]
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), str(root), "src/inventory/models.py", "--replace", "return ", "x", *server],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == "error: --replace: 'return ' occurs 3 times in src/inventory/models.py, not once\n"
    assert proc.stdout == ""


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_client", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fix_is_a_replacement_or_a_file(tmp_path: Path) -> None:
    example = load_example()
    fixed = tmp_path / "fixed.py"
    fixed.write_text("new\n", encoding="utf-8")

    def fix(fix_from: str | None = None, replace: tuple[str, str] | None = None) -> str | None:
        args = argparse.Namespace(file="f.py", fix_from=fix_from, replace=replace)
        return example.fixed_text(args, "a = 1\nb = 1\n")  # type: ignore[no-any-return]

    assert fix() is None
    assert fix(fix_from=str(fixed)) == "new\n"
    assert fix(replace=("a = 1", "a = 2")) == "a = 2\nb = 1\n"
    with pytest.raises(ValueError, match=r"'= 1' occurs 2 times in f.py, not once"):
        fix(replace=("= 1", "= 2"))
    with pytest.raises(ValueError, match=r"'c' occurs 0 times"):
        fix(replace=("c", "d"))


def test_agent_needs_only_the_standard_library() -> None:
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)
