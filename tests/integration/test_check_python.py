"""`lintel check` on the Python fixtures agrees with the real tools run by hand: nothing more, nothing less."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lintel.languages import CheckName

from tests.helpers import WORKSPACES, finding_keys, lintel_json, make_project, require_tool, run_tool, tool_for

FIXTURE = WORKSPACES / "python"
PYRIGHT_FIXTURE = WORKSPACES / "python-pyright"
Key = tuple[Any, ...]


def argv(root: Path, check: CheckName) -> list[str]:
    """The command lintel runs for this check, so the hand-run baseline is the same command."""
    spec = tool_for(make_project("python", root, ("pyproject.toml",)), check)
    return list(spec.argv)


def ruff_by_hand() -> Counter[Key]:
    proc = run_tool(argv(FIXTURE, "lint"), cwd=FIXTURE)
    assert proc.returncode == 1, proc.stderr
    return Counter(
        (Path(v["filename"]).relative_to(FIXTURE).as_posix(), v["location"]["row"], v["code"])
        for v in json.loads(proc.stdout)
    )


_MYPY_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+:\d+:\d+: error: .*  \[(?P<code>[\w-]+)\]$")


def mypy_by_hand() -> Counter[Key]:
    proc = run_tool(argv(FIXTURE, "typecheck"), cwd=FIXTURE)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    matches = [_MYPY_ERROR.match(line) for line in lines]
    assert all(matches), lines  # the fixture's mypy output has no notes: every line is one error
    return Counter((m.group("file"), int(m.group("line")), m.group("code")) for m in matches if m)


def test_lint_and_typecheck_match_the_tools() -> None:
    require_tool("ruff")
    require_tool("mypy")
    expected_ruff, expected_mypy = ruff_by_hand(), mypy_by_hand()
    assert sum(expected_ruff.values()) == 5
    assert sum(expected_mypy.values()) == 4

    code, report = lintel_json("check", str(FIXTURE), "--only", "lint,typecheck")

    assert code == 1, report
    runs = {run["check"]: run for run in report["runs"]}
    assert {c: (r["tool"], r["status"], r["exitCode"]) for c, r in runs.items()} == {
        "lint": ("ruff", "findings", 1),
        "typecheck": ("mypy", "findings", 1),
    }
    assert runs["lint"]["argv"] == argv(FIXTURE, "lint")
    assert runs["typecheck"]["argv"] == argv(FIXTURE, "typecheck")
    issues = report["issues"]
    assert finding_keys(i for i in issues if i["source"] == "ruff") == expected_ruff
    assert finding_keys(i for i in issues if i["source"] == "mypy") == expected_mypy
    assert finding_keys(issues) == expected_ruff + expected_mypy  # nothing else
    assert {(i["kind"], i["source"]) for i in issues} == {("lint", "ruff"), ("typecheck", "mypy")}
    assert all(i["severity"] == "error" and i["fingerprint"] for i in issues)


def test_failing_test_is_reported_with_file_and_line() -> None:
    require_tool("pytest")
    code, report = lintel_json("check", str(FIXTURE), "--only", "test")

    assert code == 1, report
    [run] = report["runs"]
    assert (run["tool"], run["status"], run["exitCode"]) == ("pytest", "findings", 1)
    [issue] = report["issues"]
    assert (issue["kind"], issue["source"], issue["severity"]) == ("test", "pytest", "error")
    assert (issue["file"], issue["line"]) == ("tests/test_models.py", 13)
    assert issue["message"] == (
        "test_total_value_counts_quantity: AssertionError: stock of 2 items should be worth 2.5"
    )


def test_format_check_matches_ruff_format() -> None:
    require_tool("ruff")
    by_hand = run_tool(argv(FIXTURE, "format"), cwd=FIXTURE)
    assert by_hand.returncode == 1
    changed = {line[len("+++ ") :] for line in by_hand.stdout.splitlines() if line.startswith("+++ ")}

    code, report = lintel_json("check", str(FIXTURE), "--only", "format")

    assert report["runs"][0]["status"] == "findings"
    issues = report["issues"]
    assert {i["file"] for i in issues} == changed == {"src/inventory/report.py"}
    assert [(i["line"], i["kind"], i["source"]) for i in issues] == [(7, "format", "ruff"), (12, "format", "ruff")]
    assert code == 0  # format findings are warnings; the default fail level is error


def test_pyright_project_is_typechecked_by_basedpyright() -> None:
    require_tool("basedpyright")
    proc = run_tool(["basedpyright", "--outputjson"], cwd=PYRIGHT_FIXTURE)
    assert proc.returncode == 1, proc.stderr
    diagnostics = json.loads(proc.stdout)["generalDiagnostics"]
    expected = Counter(
        (Path(d["file"]).relative_to(PYRIGHT_FIXTURE).as_posix(), d["range"]["start"]["line"] + 1, d["rule"])
        for d in diagnostics
    )

    code, report = lintel_json("check", str(PYRIGHT_FIXTURE), "--only", "typecheck")

    [run] = report["runs"]
    # pyright itself would win if the machine had it; these machines install only basedpyright.
    assert run["tool"] in ("basedpyright", "pyright")
    assert run["argv"] == [run["tool"], "--outputjson"]
    assert run["status"] == "findings"
    assert finding_keys(report["issues"]) == expected
    assert sum(expected.values()) == 6
    assert code == 1


def test_a_suite_without_tests_is_not_checked(tmp_path: Path) -> None:
    require_tool("pytest")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "empty"\nversion = "0"\n', encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "helper.py").write_text("VALUE = 1\n", encoding="utf-8")

    code, report = lintel_json("check", str(tmp_path), "--only", "test")

    [run] = report["runs"]
    assert (run["status"], run["exitCode"]) == ("not_checked", 5)  # pytest: no tests collected
    assert report["issues"] == []
    assert code == 3


def test_mypys_note_about_an_unused_config_section_leaves_the_typecheck_clean(tmp_path: Path) -> None:
    require_tool("mypy")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "noted"\nversion = "0"\n\n[tool.mypy]\nstrict = true\nfiles = ["pkg"]\n'
        'warn_unused_configs = true\n\n[[tool.mypy.overrides]]\nmodule = ["legacy.*"]\nignore_errors = true\n',
        encoding="utf-8",
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n", "utf-8")
    by_hand = run_tool(["mypy"], cwd=tmp_path)
    assert by_hand.returncode == 0
    assert "pyproject.toml: note: unused section(s): module = ['legacy.*']" in by_hand.stdout

    code, report = lintel_json("check", str(tmp_path), "--only", "typecheck")
    assert (code, report["issues"]) == (0, [])
    assert [(r["tool"], r["status"]) for r in report["runs"]] == [("mypy", "clean")]


def _project_with_a_venv_package(root: Path, config: str) -> None:
    """A project whose only dependency lives in its own .venv (a real virtualenv, without pip), as a user's
    project with its venv made by `python -m venv .venv` or uv."""
    root.mkdir()
    (root / "pyproject.toml").write_text(f'[project]\nname = "app"\nversion = "0"\n\n{config}\n')
    (root / "app.py").write_text("from venvonly import VALUE\n\nresult: int = VALUE\n")
    run_tool([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], cwd=root, timeout=120)
    [site] = (root / ".venv" / "lib").glob("python3*/site-packages")
    (site / "venvonly").mkdir()
    (site / "venvonly" / "__init__.py").write_text("VALUE: int = 1\n")
    (site / "venvonly" / "py.typed").write_text("")


@pytest.mark.parametrize(
    ("tool", "config"),
    [("basedpyright", '[tool.basedpyright]\ntypeCheckingMode = "standard"'), ("mypy", "[tool.mypy]\nstrict = true")],
)
def test_the_type_checker_sees_the_projects_venv(tmp_path: Path, tool: str, config: str) -> None:
    """Pyright took the first python on PATH (lintel's own), so every import from
    the project's venv "could not be resolved"; with the venv active, as the project's CI runs it, all is clean."""
    require_tool(tool)
    root = tmp_path / "app"
    _project_with_a_venv_package(root, config)
    code, report = lintel_json("check", str(root), "--only", "typecheck")
    [run] = report["runs"]
    assert run["tool"] == tool
    assert str(root / ".venv" / "bin" / "python") in run["argv"]
    assert report["issues"] == [], report["issues"]
    assert code == 0
