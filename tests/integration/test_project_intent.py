"""`lintel check` checks what the project checks, with the real tools: a check whose tool the
project does not use is `not configured` and leaves the exit code alone; mypy checks the files the project names;
example projects are left out; prettier checks the folders the project's own script names."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import WORKSPACES, lintel_json, require_path, require_tool, run_lintel

PLAIN_JS = "export function add(a, b) {\n  return a + b;\n}\n"
PLAIN_TEST = (
    'import test from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/add.js";\n\n'
    'test("add", () => assert.equal(add(1, 2), 3));\n'
)


def statuses(report: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {r["check"]: (r["status"], r["reason"]) for r in report["runs"]}


def plain_javascript(root: Path, **package: Any) -> Path:
    """A JavaScript package with no TypeScript, prettier or eslint: node's own test runner only."""
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    (root / ".git").mkdir()
    (root / "src/add.js").write_text(PLAIN_JS)
    (root / "test/add.test.js").write_text(PLAIN_TEST)
    data = {"name": "plain", "version": "1.0.0", "type": "module", "scripts": {"test": "node --test"}, **package}
    (root / "package.json").write_text(json.dumps(data, indent=2) + "\n")
    return root


@pytest.mark.tool("node")
def test_a_javascript_project_without_typescript_or_prettier_is_exit_0(tmp_path: Path) -> None:
    root = plain_javascript(tmp_path / "plain")
    code, report = lintel_json("check", str(root), "--only", "lint,typecheck,format,test")
    assert code == 0, report
    assert statuses(report) == {
        "lint": ("not_configured", "no eslint in this project (no eslint config, no eslint dependency)"),
        "typecheck": ("not_configured", "no TypeScript in this project (no tsconfig.json, no typescript dependency)"),
        "format": (
            "not_configured",
            "no prettier in this project (no prettier config, no prettier dependency or script)",
        ),
        "test": ("clean", None),
    }
    assert report["summary"]["notChecked"] == 0
    text = run_lintel("check", str(root), "--only", "typecheck,format", "-q")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines() == [
        "not configured: node typecheck: no TypeScript in this project (no tsconfig.json, no typescript dependency)",
        "not configured: node format: no prettier in this project (no prettier config, no prettier dependency or "
        "script)",
        "lintel: 0 errors, 0 warnings, 0 infos from 0 checks",
    ]


@pytest.mark.tool("node")
def test_installed_is_not_used_what_the_package_declares_decides(tmp_path: Path) -> None:
    """tsc, prettier and eslint in node_modules (hoisted there by something else) do not make them the project's."""
    modules = require_path(WORKSPACES / "node" / "node_modules" / ".bin" / "tsc").parents[1]
    root = plain_javascript(tmp_path / "plain")
    (root / "node_modules").symlink_to(modules)
    code, report = lintel_json("check", str(root), "--only", "typecheck,format")
    assert code == 0, report
    assert {c: s for c, (s, _) in statuses(report).items()} == {
        "typecheck": "not_configured",
        "format": "not_configured",
    }
    # Declared, it runs: a tsconfig.json makes tsc the project's, on the files its `include` names (src; the tests
    # would need @types/node).
    tsconfig = {"compilerOptions": {"allowJs": True, "checkJs": True, "noEmit": True}, "include": ["src"]}
    (root / "tsconfig.json").write_text(json.dumps(tsconfig))
    code, report = lintel_json("check", str(root), "--only", "typecheck")
    assert (code, statuses(report)["typecheck"]) == (0, ("clean", None)), report


@pytest.mark.tool("node")
def test_a_jsconfig_with_checkjs_is_type_checked_through_it(tmp_path: Path) -> None:
    """tsc reads only tsconfig.json by itself (without one it prints its help): lintel gives it the jsconfig."""
    modules = require_path(WORKSPACES / "node" / "node_modules" / ".bin" / "tsc").parents[1]
    root = plain_javascript(tmp_path / "checked")
    (root / "node_modules").symlink_to(modules)
    (root / "jsconfig.json").write_text('{"compilerOptions": {"checkJs": true}, "include": ["src"]}\n')
    (root / "src/twice.js").write_text(
        '/** @param {number} a */\nexport function twice(a) {\n  return a * 2;\n}\ntwice("x");\n'
    )
    code, report = lintel_json("check", str(root), "--only", "typecheck")
    assert code == 1, report
    [run] = report["runs"]
    assert run["argv"][-2:] == ["-p", "jsconfig.json"]
    assert [(i["file"], i["line"], i["rule"]) for i in report["issues"]] == [("src/twice.js", 5, "TS2345")]


@pytest.mark.tool("node")
def test_prettier_checks_the_folders_the_projects_script_names(tmp_path: Path) -> None:
    """`prettier -c src test` in the lint script: an unformatted CHANGELOG.md and a stray file at the root are not
    the project's to format; an unformatted file under src is."""
    modules = require_path(WORKSPACES / "node" / "node_modules" / ".bin" / "prettier").parents[1]
    root = plain_javascript(tmp_path / "app", scripts={"lint": "prettier -c src test", "test": "node --test"})
    (root / "node_modules").symlink_to(modules)
    (root / "CHANGELOG.md").write_text("#   Changes\n*  one\n")
    (root / "stray.js").write_text("const   x = {a:1}\n")
    code, report = lintel_json("check", str(root), "--only", "format", "--fail-level", "warning")
    assert code == 0, report
    [run] = report["runs"]
    assert (run["status"], run["argv"][-3:]) == ("clean", ["--check", "src", "test"])
    (root / "src/ugly.js").write_text("const   y = {b:2}\n")
    code, report = lintel_json("check", str(root), "--only", "format", "--fail-level", "warning")
    assert code == 1
    assert [i["file"] for i in report["issues"]] == ["src/ugly.js"]


EXAMPLE_ERROR = 'def greet(name: str) -> int:\n    return "hello " + name\n'


def python_with_examples(root: Path) -> Path:
    """A package whose mypy checks `src` (strict), beside an example project with type errors of its own."""
    (root / "src/pkg").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "pkg"\nversion = "0"\n\n[tool.mypy]\nfiles = ["src"]\nstrict = true\n'
    )
    (root / "src/pkg/__init__.py").write_text("def double(x: int) -> int:\n    return x * 2\n")
    example = root / "examples" / "hello"
    example.mkdir(parents=True)
    (example / "pyproject.toml").write_text('[project]\nname = "hello"\nversion = "0"\n')
    (example / "app.py").write_text(EXAMPLE_ERROR)
    return root


@pytest.mark.tool("ruff", "mypy")
def test_mypy_checks_the_projects_files_and_the_examples_are_left_out(tmp_path: Path) -> None:
    root = python_with_examples(tmp_path / "repo")
    code, report = lintel_json("check", str(root))
    assert code == 0, report
    assert [p["root"] for p in report["projects"]] == ["."]
    assert statuses(report) == {"lint": ("clean", None), "typecheck": ("clean", None)}
    # The project's own examples, when asked for: the example is a project of its own, checked as one.
    (root / "lintel.toml").write_text("[projects]\nexamples = true\n")
    code, report = lintel_json("check", str(root), "--only", "typecheck")
    assert [p["root"] for p in report["projects"]] == [".", "examples/hello"]
    # Checked on its own, an example folder is the project asked for.
    os.remove(root / "lintel.toml")
    code, report = lintel_json("check", str(root / "examples" / "hello"), "--only", "lint")
    assert (code, report["root"], [p["root"] for p in report["projects"]]) == (0, str(root / "examples/hello"), ["."])


@pytest.mark.tool("ruff")
def test_a_python_project_without_a_type_checker_is_not_type_checked(tmp_path: Path) -> None:
    require_tool("ruff")
    root = tmp_path / "plain"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "0"\n')
    (root / "plain.py").write_text('def f(x):\n    return x + "1"\n')
    code, report = lintel_json("check", str(root))
    assert code == 0, report
    assert statuses(report)["typecheck"] == (
        "not_configured",
        "no type checker in this project (no mypy or pyright config, dependency or pre-commit hook)",
    )
