"""`lintel check` over monorepos: every project under PATH, the nearest one above it, --project,
--list-projects, --shard K/N with `lintel merge`, --changed-since — with the real ruff and go vet."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import require_tool, run_lintel

MAIN_GO = 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Printf("%d\\n", "x") }\n'


def services(root: Path) -> Path:
    """api/ (go, a vet finding), tools/ (python, an unused import), web/ (node), nothing at the root."""
    (root / "api/internal/auth").mkdir(parents=True)
    (root / "api/go.mod").write_text("module example.com/api\n\ngo 1.22\n")
    (root / "api/main.go").write_text(MAIN_GO)
    (root / "api/internal/auth/auth.go").write_text("package auth\n\nfunc OK() bool { return true }\n")
    (root / "tools/src").mkdir(parents=True)
    (root / "tools/pyproject.toml").write_text('[project]\nname = "tools"\nversion = "0"\n')
    (root / "tools/src/cli.py").write_text("import os\n")
    (root / "web").mkdir()
    (root / "web/package.json").write_text('{"name": "web", "private": true}\n')
    return root


def check(*args: str, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    proc = run_lintel("check", *args, "--format", "json", "-q", cwd=cwd)
    assert proc.returncode in (0, 1, 3), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def findings(report: dict[str, Any]) -> set[tuple[str, str | None]]:
    return {(i["file"], i.get("rule")) for i in report["issues"]}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e", *args], check=True, capture_output=True
    )


def test_a_folder_of_side_by_side_services_checks_each_of_them(tmp_path: Path) -> None:
    require_tool("go")
    require_tool("ruff")
    root = services(tmp_path / "repo")
    _, report = check(str(root), "--only", "typecheck,lint", "--language", "python")
    assert [p["root"] for p in report["projects"]] == ["tools"]
    assert findings(report) >= {("tools/src/cli.py", "F401")}

    _, report = check(str(root), "--only", "typecheck")
    assert [(p["root"], p["language"]) for p in report["projects"]] == [
        ("api", "go"),
        ("tools", "python"),
        ("web", "node"),
    ]
    assert {(r["cwd"], r["check"]) for r in report["runs"]} == {
        ("api", "typecheck"),
        ("tools", "typecheck"),
        ("web", "typecheck"),
    }
    assert ("api/main.go", None) in {(i["file"], None) for i in report["issues"] if i["source"] == "go vet"}


def test_a_path_inside_a_project_checks_that_project_relative_to_the_repository(tmp_path: Path) -> None:
    require_tool("go")
    root = services(tmp_path / "repo")
    git(root, "init", "-q")
    code, report = check(str(root / "api/internal"), "--only", "typecheck")
    assert code == 1
    assert [p["root"] for p in report["projects"]] == ["api"]
    assert report["root"] == str(root)
    assert [i["file"] for i in report["issues"]] == ["api/main.go"]
    # A file: its project, the same paths.
    _, by_file = check(str(root / "api/internal/auth/auth.go"), "--only", "typecheck")
    assert [i["file"] for i in by_file["issues"]] == ["api/main.go"]


def test_project_globs_and_the_project_list(tmp_path: Path) -> None:
    root = services(tmp_path / "repo")
    proc = run_lintel("check", str(root), "--list-projects", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert [(p["root"], p["language"], p["files"]) for p in listed["projects"]] == [
        ("api", "go", 3),
        ("tools", "python", 2),
        ("web", "node", 1),
    ]
    proc = run_lintel("check", str(root), "--list-projects", "--project", "t*", "--project", "web")
    assert [line.split("\t")[0] for line in proc.stdout.splitlines()] == ["tools", "web"]
    proc = run_lintel("check", str(root), "--project", "nope/*")
    assert proc.returncode == 2
    assert "--project nope/* matches no project; projects: api: go, tools: python, web: node" in proc.stderr


def twelve_python_projects(root: Path) -> Path:
    for i in range(12):
        folder = root / ("apps" if i % 3 else "libs") / f"p{i:02d}"
        folder.mkdir(parents=True)
        (folder / "pyproject.toml").write_text(f'[project]\nname = "p{i}"\nversion = "0"\n')
        for j in range(i % 4 + 1):
            (folder / f"m{j}.py").write_text("import os\nimport sys\n" if (i + j) % 2 else "x = 1\n")
    return root


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_shards_are_disjoint_complete_and_merge_into_the_unsharded_report(tmp_path: Path, n: int) -> None:
    require_tool("ruff")
    root = twelve_python_projects(tmp_path / "repo")
    _, whole = check(str(root), "--only", "lint")
    shard_files = []
    seen: list[str] = []
    for k in range(1, n + 1):
        out = tmp_path / f"shard{k}.{'sarif' if k % 2 == 0 else 'json'}"
        proc = run_lintel(
            "check",
            str(root),
            "--only",
            "lint",
            "--shard",
            f"{k}/{n}",
            "--format",
            out.suffix[1:],
            "--output",
            str(out),
        )
        assert proc.returncode in (0, 1), proc.stderr
        shard_files.append(str(out))
        listed = run_lintel("check", str(root), "--list-projects", "--shard", f"{k}/{n}")
        seen += [line.split("\t")[0] for line in listed.stdout.splitlines()]
    assert sorted(seen) == sorted(p["root"] for p in whole["projects"])
    assert len(seen) == len(set(seen)) == 12

    merged = tmp_path / "merged.json"
    proc = run_lintel("merge", *shard_files, "--format", "json", "--output", str(merged))
    assert proc.returncode == 1, proc.stderr  # F401 is an error: the merged report fails like the whole one
    document = json.loads(merged.read_text())
    key = ("fingerprint", "signature", "severity", "file", "line", "rule")
    assert sorted(tuple(i.get(k) for k in key) for i in document["issues"]) == sorted(
        tuple(i.get(k) for k in key) for i in whole["issues"]
    )
    assert document["summary"] == whole["summary"]
    # The merged report is a baseline: nothing is new on a re-check.
    proc = run_lintel("check", str(root), "--only", "lint", "--baseline", str(merged))
    assert proc.returncode == 0, proc.stdout


def test_changed_since_checks_exactly_the_projects_a_commit_touched(tmp_path: Path) -> None:
    require_tool("ruff")
    root = twelve_python_projects(tmp_path / "repo")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "apps/p05/m0.py").write_text("import json\n")
    (root / "libs/p09/new.py").write_text("import re\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two")
    _, report = check(str(root), "--only", "lint", "--changed-since", "HEAD~1")
    assert [p["root"] for p in report["projects"]] == ["apps/p05", "libs/p09"]
    assert {r["cwd"] for r in report["runs"]} == {"apps/p05", "libs/p09"}
    proc = run_lintel("check", str(root), "--changed-since", "not-a-ref")
    assert proc.returncode == 2
    assert "--changed-since: git merge-base failed" in proc.stderr
