"""`lintel check --changed-since` through the CLI: the projects a change reaches through the manifests are listed,
and the note says how many changed and how many depend on them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import WORKSPACES, require_tool, run_lintel
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


def test_go_vet_runs_in_the_changed_module_and_the_module_requiring_it(tmp_path: Path) -> None:
    require_tool("go")
    root = tmp_path / "mono-gowork"
    shutil.copytree(WORKSPACES / "mono-gowork", root)
    (root / "worker/go.mod").write_text(
        (root / "worker/go.mod").read_text() + "\nrequire example.com/mono/api v0.0.0\n"
    )
    (root / "clock").mkdir()
    (root / "clock/go.mod").write_text("module example.com/mono/clock\n\ngo 1.25\n")
    (root / "clock/clock.go").write_text("package clock\n\nfunc Tick(n int) int {\n\tn = n\n\treturn n\n}\n")
    (root / "go.work").write_text((root / "go.work").read_text().replace("\n)", "\n\t./clock\n)"))
    commit_all(root, "one")
    (root / "api/route.go").write_text((root / "api/route.go").read_text() + "\n// changed\n")
    commit_all(root, "two")
    proc = run_lintel("check", str(root), "--changed-since", "HEAD~1", "--only", "typecheck", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    # Without the go.work root, each selected module is vetted on its own; clock (a finding of its own) is not.
    assert sorted((r["cwd"], r["tool"]) for r in report["runs"]) == [("api", "go vet"), ("worker", "go vet")]
    assert any(i["file"] == "worker/job.go" for i in report["issues"])
    assert not any(i["file"].startswith("clock/") for i in report["issues"])
    assert "2 projects (1 changed, 1 dependents)" in proc.stderr
