"""The same code gives the same verdict: two `lintel check` runs of every check on an unchanged fixture report
identical issues (signatures, fingerprints, messages, positions) and statuses. A tool that samples its findings
(golangci-lint's default caps kept 3 issues of a kind, a different 3 each run) makes baselines report "new"
issues in code nobody touched."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import WORKSPACES, lintel_json

FIXTURES = sorted(p.name for p in WORKSPACES.iterdir() if p.is_dir() and p.name != "no-markers")
# Fixtures of the agent commands (coverage, package scripts) and of the environment tests (env-*): clean code on
# purpose; their verdicts must still agree.
CLEAN = {"env-go", "env-node", "env-python", "env-rust", "node-coverage", "scripts-npm", "scripts-pnpm", "scripts-yarn"}


def _verdict(report: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    # Not the reasons: a not-run check's tail of output may carry a duration ("no tests ran in 1.02s").
    runs = [(r["language"], r["check"], r["status"], r["exitCode"]) for r in report["runs"]]
    return runs, report["issues"]


def _difference(first: dict[str, Any], second: dict[str, Any]) -> str:
    """What differs between the runs, in full (pytest cuts a long comparison short before the part that differs)."""
    runs = [(a, b) for a, b in zip(_verdict(first)[0], _verdict(second)[0], strict=False) if a != b]
    one = [i for i in first["issues"] if i not in second["issues"]]
    two = [i for i in second["issues"] if i not in first["issues"]]
    return f"runs that differ: {runs}\nonly in the first run: {one}\nonly in the second run: {two}"


@pytest.mark.parametrize("fixture", FIXTURES)
def test_two_runs_on_unchanged_code_give_the_same_issues(fixture: str) -> None:
    root = WORKSPACES / fixture
    first_code, first = lintel_json("check", str(root), "--only", "lint,typecheck,test,format", "-q")
    second_code, second = lintel_json("check", str(root), "--only", "lint,typecheck,test,format", "-q")
    if fixture not in CLEAN:
        assert first["issues"], f"{fixture}: no issues at all — the fixture is meant to have findings"
    assert _verdict(first) == _verdict(second), _difference(first, second)
    assert first_code == second_code
