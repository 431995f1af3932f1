"""`lintel check --format github` on a GitHub runner, through the real CLI and ruff: annotations within the
step's and the job's limits, and the job summary appended to `$GITHUB_STEP_SUMMARY`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import require_tool, run_lintel


def many_findings(tmp_path: Path, count: int) -> Path:
    root = tmp_path / "many"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname='many'\nversion='0'\n[tool.ruff.lint]\nselect=['F401']\n")
    (root / "m.py").write_text("".join(f"import mod{n}\n" for n in range(count)))
    return root


def test_a_job_summary_and_annotations_within_the_jobs_limit(tmp_path: Path) -> None:
    require_tool("ruff")
    root = many_findings(tmp_path, 14)
    temp, summary = tmp_path / "runner-temp", tmp_path / "summary.md"
    temp.mkdir()
    env = {
        "GITHUB_ACTIONS": "true",
        "RUNNER_TEMP": str(temp),
        "GITHUB_RUN_ID": "1",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_JOB": "lint",
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    annotated = []
    for _ in range(6):  # six steps of one job
        proc = run_lintel("check", str(root), "--format", "github", "--only", "lint", env=env)
        assert proc.returncode == 1, proc.stderr
        annotated.append(sum(line.startswith("::error ") for line in proc.stdout.splitlines()))
    assert annotated == [10, 10, 10, 10, 10, 0]
    assert "0 annotated, 14 not annotated" in proc.stdout
    text = summary.read_text()
    assert text.count("## lintel check") == 6
    assert "**14 errors, 0 warnings, 0 infos** in 1 project" in text
    assert "| . \\(python\\) | ruff | 14 | 0 | 0 |" in text
    assert "| error | m.py:1 | ruff | F401 | \\`mod0\\` imported but unused |" in text


def test_an_uploaded_sarif_log_is_the_whole_report_when_within_the_limits(tmp_path: Path) -> None:
    require_tool("ruff")
    root = many_findings(tmp_path, 30)
    out = tmp_path / "out.sarif"
    proc = run_lintel("check", str(root), "--format", "sarif", "--only", "lint", "--output", str(out))
    assert proc.returncode == 1
    assert "left out" not in proc.stderr
    log = json.loads(out.read_text())
    assert [len(run["results"]) for run in log["runs"]] == [30]
