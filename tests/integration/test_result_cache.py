"""The result cache with the real ruff: a second `lintel check` of unchanged files starts no tool process and reports
what the first did (durations aside); an edit runs the tool again."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lintel.engine import checks
from lintel.engine.checks import RunResult, run_checks
from lintel.engine.config import LintelConfig
from lintel.engine.resultcache import ResultCache

from tests.helpers import copy_workspace, make_project, require_tool, run_lintel, tool_path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    require_tool("ruff")
    root = copy_workspace("python", tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    commit = ["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "fixture"]
    subprocess.run(commit, cwd=root, check=True)
    return root


def _run(root: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch) -> tuple[list[RunResult], int]:
    """lint and format of the fixture through `cache`; the results and how many processes the checks started."""
    started: list[list[str]] = []
    real = checks.run_process  # type: ignore[attr-defined]  # the name checks.py calls, spied on

    async def counting(argv: Any, **kwargs: Any) -> Any:
        started.append(list(argv))
        return await real(argv, **kwargs)

    monkeypatch.setattr(checks, "run_process", counting)
    monkeypatch.setenv("PATH", tool_path())
    project = make_project("python", root, ("pyproject.toml",))
    results = asyncio.run(run_checks([project], ["lint", "format"], workspace=root, config=LintelConfig(), cache=cache))
    return results, len(started)


def test_second_run_starts_no_tool(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache_dir = tmp_path / "cache"
    first, started = _run(repo, ResultCache(cache_dir), monkeypatch)
    assert started == 2
    assert {r.status for r in first} <= {"findings", "clean"}
    assert any(r.issues for r in first)
    second_cache = ResultCache(cache_dir)
    second, started = _run(repo, second_cache, monkeypatch)
    assert started == 0
    assert second_cache.counts.hits == 2
    assert [r.result_json() | {"durationMs": 0} for r in second] == [r.result_json() | {"durationMs": 0} for r in first]
    (next(repo.rglob("*.py"))).write_text("import os\n", encoding="utf-8")
    third, started = _run(repo, ResultCache(cache_dir), monkeypatch)
    assert started == 2
    assert third[0].issues != first[0].issues


def _report(root: Path, *flags: str) -> dict[str, Any]:
    proc = run_lintel("check", str(root), "--only", "lint,format", "--format", "json", "-q", *flags)
    assert proc.returncode in (0, 1), proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    for run in report["runs"]:
        run["durationMs"] = 0
    return report


def test_cli_reports_equal_with_and_without_cache(repo: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cli-cache")
    uncached = _report(repo, "--no-cache")
    assert not (tmp_path / "cli-cache").exists()
    cold = _report(repo, "--cache-dir", cache)
    warm = _report(repo, "--cache-dir", cache)
    assert cold == uncached
    assert warm == uncached
    stats = run_lintel("cache", "stats", "--json", "--cache-dir", cache)
    assert json.loads(stats.stdout)["entries"] == 2
    cleared = run_lintel("cache", "clear", "--cache-dir", cache)
    assert cleared.returncode == 0
    assert json.loads(run_lintel("cache", "stats", "--json", "--cache-dir", cache).stdout)["entries"] == 0
