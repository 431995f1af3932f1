"""`lintel check --changed-since` through the CLI: the projects a change reaches through the manifests are listed,
and the note says how many changed and how many depend on them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import WORKSPACES, run_lintel
from tests.unit.test_dependents import commit_all


def test_the_note_says_how_many_changed_and_how_many_depend(tmp_path: Path) -> None:
    root = tmp_path / "mono-uv"
    shutil.copytree(WORKSPACES / "mono-uv", root, ignore=shutil.ignore_patterns(".venv"))
    commit_all(root, "one")
    (root / "packages/core/src/core/__init__.py").write_text('"""core, changed."""\n')
    commit_all(root, "two")
    proc = run_lintel("check", str(root), "--changed-since", "HEAD~1", "--list-projects", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "1 files changed since HEAD~1: 2 projects (1 changed, 1 dependents)" in proc.stderr
    assert [p["root"] for p in json.loads(proc.stdout)["projects"]] == [".", "packages/core"]
