"""Checks the project does not use are `not_configured`, and the project's own targets are followed
(docs/architecture.md, "Checks the project does not use"): the rules read from files, and the status through every
report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lintel.engine.checks import RunResult, plan_check, run_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.detect_report import detect_document
from lintel.engine.discover import discover
from lintel.frontends.merge import merge_reports
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry
from lintel.frontends.report.read import read_report
from lintel.languages import Project
from lintel.languages.node.intent import prettier_targets
from lintel.languages.python.intent import typecheckers_used
from lintel.languages.python.tools import typechecker


def node(root: Path, scripts: dict[str, str] | None = None, **package: object) -> Project:
    (root / ".git").mkdir(exist_ok=True)  # the repository's top: the rules look no higher
    data: dict[str, object] = {"name": "p", "version": "1.0.0", "scripts": scripts or {}, **package}
    (root / "package.json").write_text(json.dumps(data), encoding="utf-8")
    [project] = detect(root)
    return project


def python(root: Path, pyproject: str = "") -> Project:
    (root / ".git").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    [project] = detect(root)
    return project


def unused(project: Project, check: str) -> str | None:
    return plan_check(project, check, LintelConfig(), project.root).not_configured  # type: ignore[arg-type]


def test_a_javascript_project_without_typescript_prettier_eslint_or_tests_uses_none_of_them(tmp_path: Path) -> None:
    project = node(tmp_path)
    assert unused(project, "typecheck") == "no TypeScript in this project (no tsconfig.json, no typescript dependency)"
    assert unused(project, "format") == (
        "no prettier in this project (no prettier config, no prettier dependency or script)"
    )
    assert unused(project, "lint") == "no eslint in this project (no eslint config, no eslint dependency)"
    assert unused(project, "test") == "no test script in package.json"


@pytest.mark.parametrize(
    ("files", "package"),
    [
        ({"tsconfig.json": "{}"}, {}),
        ({"jsconfig.json": '{"compilerOptions": {"checkJs": true}}'}, {}),
        ({}, {"devDependencies": {"typescript": "^5"}}),
        ({}, {"scripts": {"typecheck": "node check.js"}}),
    ],
)
def test_typescript_is_used(tmp_path: Path, files: dict[str, str], package: dict[str, object]) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    scripts = package.pop("scripts", None)
    assert unused(node(tmp_path, scripts, **package), "typecheck") is None  # type: ignore[arg-type]


def test_tsc_is_given_the_jsconfig_only_without_a_tsconfig(tmp_path: Path) -> None:
    (tmp_path / "jsconfig.json").write_text('{"compilerOptions": {"checkJs": true}}', encoding="utf-8")
    project = node(tmp_path)
    assert plan_check(project, "typecheck", LintelConfig(), tmp_path).spec.argv[-2:] == ("-p", "jsconfig.json")
    (tmp_path / "tsconfig.json").write_text("{}", encoding="utf-8")
    assert plan_check(project, "typecheck", LintelConfig(), tmp_path).spec.argv[-2:] == ("--pretty", "false")


def test_a_jsconfig_without_checkjs_is_no_type_check(tmp_path: Path) -> None:
    (tmp_path / "jsconfig.json").write_text('{"compilerOptions": {"checkJs": false}}', encoding="utf-8")
    assert unused(node(tmp_path), "typecheck") is not None


@pytest.mark.parametrize("config", [".prettierrc", ".prettierrc.yaml", "prettier.config.mjs", ".prettierrc.toml"])
def test_every_prettier_config_file_means_prettier(tmp_path: Path, config: str) -> None:
    (tmp_path / config).write_text("", encoding="utf-8")
    assert unused(node(tmp_path), "format") is None


@pytest.mark.parametrize(
    ("scripts", "package"),
    [
        (None, {"prettier": {"semi": False}}),
        (None, {"devDependencies": {"prettier": "^3"}}),
        ({"lint": "eslint . && npx prettier -c src"}, {}),
    ],
)
def test_prettier_in_package_json_or_a_script_means_prettier(
    tmp_path: Path, scripts: dict[str, str] | None, package: dict[str, object]
) -> None:
    assert unused(node(tmp_path, scripts, **package), "format") is None


def test_a_workspace_roots_config_and_dependencies_serve_its_packages(tmp_path: Path) -> None:
    node(tmp_path, devDependencies={"typescript": "^5"})
    (tmp_path / ".prettierrc").write_text("{}", encoding="utf-8")
    member = tmp_path / "packages" / "a"
    member.mkdir(parents=True)
    (member / "package.json").write_text('{"name": "a"}', encoding="utf-8")
    [project] = detect(member)
    assert unused(project, "typecheck") is None
    assert unused(project, "format") is None


def test_lintel_detect_says_which_checks_are_not_configured(tmp_path: Path) -> None:
    node(tmp_path, devDependencies={"prettier": "^3"})
    [project] = detect_document(tmp_path, LintelConfig())["projects"]
    assert {check: entry.get("notConfigured") for check, entry in project["checks"].items()} == {
        "lint": "no eslint in this project (no eslint config, no eslint dependency)",
        "typecheck": "no TypeScript in this project (no tsconfig.json, no typescript dependency)",
        "test": "no test script in package.json",
        "format": None,
    }


def test_the_users_own_command_is_always_configured(tmp_path: Path) -> None:
    project = node(tmp_path)
    config = LintelConfig.model_validate({"languages": {"node": {"typecheck": ["flow", "check"]}}})
    assert plan_check(project, "typecheck", config, tmp_path).not_configured is None


@pytest.mark.parametrize(
    ("scripts", "targets"),
    [
        ({"lint": "eslint . && prettier -c src test", "format": "prettier --write ."}, ("src", "test")),
        ({"format": "prettier --write 'src/**/*.ts' --config .prettierrc.json"}, ("src/**/*.ts",)),
        ({"format:check": "prettier --check lib", "lint": "prettier -c src"}, ("lib",)),
        ({"fmt": "prettier --write ."}, (".",)),
        ({"fmt": "prettier --version"}, None),
        ({"build": "tsc"}, None),
    ],
)
def test_prettier_targets_are_the_scripts_own(scripts: dict[str, str], targets: tuple[str, ...] | None) -> None:
    assert prettier_targets(scripts) == targets


def test_the_format_check_runs_on_the_scripts_targets(tmp_path: Path) -> None:
    project = node(tmp_path, {"lint": "eslint . && prettier -c src test"})
    assert plan_check(project, "format", LintelConfig(), tmp_path).spec.argv[-3:] == ("--check", "src", "test")
    assert plan_check(node(tmp_path), "format", LintelConfig(), tmp_path).spec.argv[-2:] == ("--check", ".")


def test_python_without_any_type_checker_has_no_type_check(tmp_path: Path) -> None:
    project = python(tmp_path, '[project]\nname = "p"\ndependencies = ["mypy-extensions"]\n')
    assert unused(project, "typecheck") == (
        "no type checker in this project (no mypy or pyright config, dependency or pre-commit hook)"
    )
    assert unused(project, "lint") is None  # ruff lints every Python project
    assert unused(project, "test") is None


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"pyproject.toml": "[tool.mypy]\nstrict = true\n"}, {"mypy"}),
        ({"mypy.ini": "[mypy]\n"}, {"mypy"}),
        ({"pyrightconfig.json": "{}"}, {"pyright"}),
        ({"pyproject.toml": '[dependency-groups]\nlint = ["mypy>=1.11", "ruff"]\n'}, {"mypy"}),
        ({"pyproject.toml": '[project.optional-dependencies]\ndev = ["basedpyright"]\n'}, {"basedpyright"}),
        ({"pyproject.toml": '[tool.poetry.group.dev.dependencies]\npyright = "*"\n'}, {"pyright"}),
        ({"requirements-dev.txt": "pytest\nmypy==1.13\n"}, {"mypy"}),
        ({".pre-commit-config.yaml": "repos:\n- repo: https://github.com/pre-commit/mirrors-mypy\n"}, {"mypy"}),
        ({".venv/bin/mypy": ""}, {"mypy"}),
        ({"pyproject.toml": '[project]\ndependencies = ["mypy-extensions", "types-mypy"]\n'}, set()),
    ],
)
def test_type_checkers_the_project_uses(tmp_path: Path, files: dict[str, str], found: set[str]) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert typecheckers_used(tmp_path) == found


def test_python_without_ruff_or_black_has_no_format_check(tmp_path: Path) -> None:
    assert unused(python(tmp_path, '[project]\nname = "p"\n'), "format") == (
        "no formatter in this project (no ruff or black config, dependency or pre-commit hook)"
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", "[tool.black]\nline-length = 100\n"),
        ("pyproject.toml", "[tool.ruff]\n"),
        ("ruff.toml", ""),
        ("pyproject.toml", '[dependency-groups]\ndev = ["ruff==0.15.1"]\n'),
        (".pre-commit-config.yaml", "repos:\n- repo: https://github.com/psf/black\n  hooks:\n  - id: black\n"),
    ],
)
def test_ruff_or_black_means_a_format_check(tmp_path: Path, name: str, text: str) -> None:
    project = python(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert unused(project, "format") is None


def test_a_workspace_roots_ruff_config_formats_its_members(tmp_path: Path) -> None:
    python(tmp_path, "[tool.ruff]\nline-length = 100\n")
    member = tmp_path / "packages" / "core"
    member.mkdir(parents=True)
    (member / "pyproject.toml").write_text('[project]\nname = "core"\n', encoding="utf-8")
    [project] = detect(member)
    assert unused(project, "format") is None


def test_pyright_in_the_dev_dependencies_picks_pyright(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[dependency-groups]\ndev = ["pyright"]\n', encoding="utf-8")
    assert typechecker(tmp_path) == "pyright"


def test_a_not_configured_check_runs_nothing_and_is_ok(tmp_path: Path) -> None:
    project = node(tmp_path)
    result = asyncio.run(run_check(project, "typecheck", workspace=tmp_path, config=LintelConfig()))
    assert (result.status, result.argv, result.exit_code, result.ok) == ("not_configured", [], None, True)
    assert result.reason is not None
    assert result.reason.startswith("no TypeScript")
    assert result.result_json()["status"] == "not_configured"


def test_example_projects_are_left_out_unless_asked_for(tmp_path: Path) -> None:
    for folder in ("", "examples/chat", "_examples/cli", "demo/web", "docs"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "pyproject.toml").write_text("", encoding="utf-8")
    found = discover(tmp_path)
    assert [found.relative(f.root) for f in found.found] == [".", "docs"]
    everything = discover(tmp_path, examples=True)
    assert [everything.relative(f.root) for f in everything.found] == [
        ".",
        "_examples/cli",
        "demo/web",
        "docs",
        "examples/chat",
    ]
    # An example folder checked on its own is the project asked for.
    assert [f.root for f in discover(tmp_path / "examples" / "chat").found] == [(tmp_path / "examples/chat").resolve()]


def test_a_workspace_member_in_an_example_folder_is_still_checked(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["examples/*"]\n', encoding="utf-8")
    (tmp_path / "examples" / "hello").mkdir(parents=True)
    (tmp_path / "examples" / "hello" / "Cargo.toml").write_text('[package]\nname = "hello"\n', encoding="utf-8")
    found = discover(tmp_path)
    assert [found.relative(f.root) for f in found.found] == [".", "examples/hello"]


def reported(tmp_path: Path) -> CheckReport:
    project = python(tmp_path)
    runs = [
        RunResult("python", "lint", "ruff", ["ruff"], tmp_path, "clean", exit_code=0),
        RunResult("python", "typecheck", "mypy", [], tmp_path, "not_configured", reason="no type checker here"),
    ]
    return CheckReport(tmp_path, [ProjectEntry.of(project, tmp_path)], runs, [])


def test_not_configured_changes_no_exit_code_and_is_said_in_every_format(tmp_path: Path) -> None:
    report = reported(tmp_path)
    assert report.exit_code("error") == 0
    assert report.summary()["notChecked"] == 0
    text = RENDERERS["text"](report)
    assert "not configured: python typecheck: no type checker here" in text
    assert text.splitlines()[-1] == "lintel: 0 errors, 0 warnings, 0 infos from 1 check"
    assert "::notice title=lintel%3A not configured::python typecheck: no type checker here" in RENDERERS["github"](
        report
    )
    sarif = json.loads(RENDERERS["sarif"](report))
    [invocation] = next(r for r in sarif["runs"] if r["tool"]["driver"]["name"] == "mypy")["invocations"]
    assert invocation["executionSuccessful"] is True
    assert invocation["properties"]["status"] == "not_configured"
    assert invocation["toolExecutionNotifications"] == [{"level": "note", "message": {"text": "no type checker here"}}]
    as_json = json.loads(RENDERERS["json"](report))
    assert [r["status"] for r in as_json["runs"]] == ["clean", "not_configured"]


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_merge_keeps_not_configured(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"report.{fmt}"
    path.write_text(RENDERERS[fmt](reported(tmp_path)), encoding="utf-8")
    merged = merge_reports([read_report(path)[0], read_report(path)[0]])
    assert [r.status for r in merged.runs] == ["clean", "not_configured"] * 2
    assert merged.exit_code("error") == 0
