"""`lintel check --only coverage` with the real tools: totals in text, per file in json and sarif, exit codes
per the contract (a failing test 1, a missing coverage tool or an unsupported language 3)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies

from tests.helpers import copy_workspace, lintel_json, missing_tool, require_tool, run_lintel
from tests.integration.test_ci_output import sarif_schema


def require_pytest_cov() -> None:
    require_tool("pytest")
    if importlib.util.find_spec("pytest_cov") is None or importlib.util.find_spec("coverage") is None:
        missing_tool("coverage and pytest-cov are not installed (pip install coverage pytest-cov)")


def cache_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # The index goes to the user cache: a private one per test.
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), **extra}


def coverage_run(report: dict[str, Any]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = [r for r in report["runs"] if r["check"] == "coverage"]
    assert len(runs) == 1
    return runs[0]


def test_python_coverage_per_file_in_json(tmp_path: Path) -> None:
    require_pytest_cov()
    root = copy_workspace("python", tmp_path / "python")
    code, report = lintel_json("check", str(root), "--only", "coverage", env=cache_env(tmp_path))
    assert code == 1  # the fixture's failing test is a finding, as in `--only test`
    run = coverage_run(report)
    assert run["status"] == "findings"
    files = {f["file"]: f for f in run["coverage"]["files"]}
    assert files["src/inventory/models.py"]["statements"] == 16
    assert files["src/inventory/models.py"]["covered"] == 14
    assert run["coverage"]["granularity"] == "test"
    totals = run["coverage"]["totals"]
    assert totals["statements"] == sum(f["statements"] for f in files.values())
    # The index is kept for testsCovering, in the cache given, and nothing is written into the project.
    assert list((tmp_path / "cache" / "lintel" / "coverage").glob("python-*.json"))
    assert not (root / ".coverage").exists()


def test_python_coverage_totals_in_text_and_sarif(tmp_path: Path) -> None:
    require_pytest_cov()
    root = copy_workspace("python", tmp_path / "python")
    proc = run_lintel("check", str(root), "--only", "coverage", "-q", env=cache_env(tmp_path))
    [line] = [line for line in proc.stdout.splitlines() if line.startswith("coverage: python")]
    assert re.match(r"coverage: python python: \d+\.\d\d% of \d+ statements covered", line), line
    sarif = run_lintel("check", str(root), "--only", "coverage", "--format", "sarif", "-q", env=cache_env(tmp_path))
    log = json.loads(sarif.stdout)
    jsonschema.validate(log, sarif_schema())
    [invocation] = [i for r in log["runs"] for i in r.get("invocations", []) if i["properties"]["check"] == "coverage"]
    files = {f["file"] for f in invocation["properties"]["coverage"]["files"]}
    assert "src/inventory/models.py" in files


def test_missing_pytest_cov_is_not_checked_with_the_install_hint(tmp_path: Path) -> None:
    require_tool("pytest")
    root = copy_workspace("python", tmp_path / "python")
    # The real pytest without its coverage plugin (blocked), as in an environment that lacks it.
    env = cache_env(tmp_path, PYTEST_ADDOPTS="-p no:pytest_cov -p no:pytest_cov.plugin")
    code, report = lintel_json("check", str(root), "--only", "coverage", env=env)
    assert code == 3
    run = coverage_run(report)
    assert run["status"] == "not_checked"
    assert "pip install coverage pytest-cov" in run["reason"]
    assert "coverage" not in run


def test_rust_coverage_is_not_supported_yet(tmp_path: Path) -> None:
    root = copy_workspace("rust", tmp_path / "rust")
    code, report = lintel_json("check", str(root), "--only", "coverage", env=cache_env(tmp_path))
    assert code == 3
    run = coverage_run(report)
    assert run["status"] == "not_checked"
    assert run["reason"].startswith("coverage is not supported for rust projects yet")


def test_go_coverage_per_package_file(tmp_path: Path) -> None:
    require_tool("go", "install Go from https://go.dev/dl/")
    root = copy_workspace("go", tmp_path / "go")
    code, report = lintel_json("check", str(root), "--only", "coverage", env=cache_env(tmp_path))
    assert code == 1  # TestScale fails
    run = coverage_run(report)
    files = {f["file"]: f for f in run["coverage"]["files"]}
    assert (files["sub/calc.go"]["statements"], files["sub/calc.go"]["covered"]) == (4, 3)
    assert run["coverage"]["granularity"] == "package"
