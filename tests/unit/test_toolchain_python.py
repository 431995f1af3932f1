"""The Python toolchain: the argv of each check, the exit codes' meaning, and which type checker a project gets."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from lintel.languages import CHECKS, REPORT_PLACEHOLDER, Project
from lintel.languages.parsers import is_known_parser
from lintel.languages.python.tools import MYPY_OUTPUT_FLAGS, typechecker

from tests.helpers import make_project, tool_for

WORKSPACES = Path(__file__).resolve().parent.parent / "workspaces"


def project(root: Path) -> Project:
    return make_project("python", root, ("pyproject.toml",))


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def no_pyright_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No pyright on PATH nor beside lintel's interpreter, so only what the project itself holds counts."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(sys, "executable", str(empty / "python"))


def test_lint_argv_and_exit_codes(tmp_path: Path) -> None:
    spec = tool_for(project(tmp_path), "lint")
    assert spec.argv == ("ruff", "check", "--output-format=json", "--no-fix", "--no-cache", "--force-exclude")
    assert (spec.tool, spec.parser) == ("ruff", "ruff")
    assert (spec.ok_codes, spec.finding_codes) == (frozenset({0}), frozenset({1}))
    assert spec.install_hint == "pip install ruff"


def test_format_argv_and_exit_codes(tmp_path: Path) -> None:
    spec = tool_for(project(tmp_path), "format")
    assert spec.argv == ("ruff", "format", "--diff", "--no-cache", "--force-exclude")
    assert (spec.tool, spec.parser) == ("ruff", "ruff-format")
    assert (spec.ok_codes, spec.finding_codes) == (frozenset({0}), frozenset({1}))


def test_test_argv_writes_a_junit_report(tmp_path: Path) -> None:
    spec = tool_for(project(tmp_path), "test")
    assert spec.argv[0] == "pytest"
    assert spec.argv[spec.argv.index("--junitxml") + 1] == REPORT_PLACEHOLDER
    assert spec.argv[spec.argv.index("-o") + 1] == "junit_family=xunit1"
    assert {"-q", "--tb=short", "--color=no", "--continue-on-collection-errors"} <= set(spec.argv)
    assert (spec.tool, spec.parser) == ("pytest", "pytest")
    # 5 (no test collected) is neither ok nor findings: a suite that tests nothing is not clean.
    assert (spec.ok_codes, spec.finding_codes) == (frozenset({0}), frozenset({1}))
    assert 5 not in spec.ok_codes | spec.finding_codes
    assert spec.install_hint == "pip install pytest"


def test_mypy_by_default_with_a_target(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n')
    spec = tool_for(project(tmp_path), "typecheck")
    assert spec.argv == ("mypy", *MYPY_OUTPUT_FLAGS, ".")
    assert (spec.tool, spec.parser) == ("mypy", "mypy")
    assert (spec.ok_codes, spec.finding_codes) == (frozenset({0}), frozenset({1}))
    assert spec.install_hint == "pip install mypy"
    assert {"--show-column-numbers", "--show-error-end", "--no-pretty", "--no-error-summary"} <= set(spec.argv)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[tool.mypy]\nfiles = ["src"]\n'),
        ("pyproject.toml", '[tool.mypy]\npackages = ["app"]\n'),
        ("mypy.ini", "[mypy]\nfiles = src, tests\n"),
        (".mypy.ini", "[mypy]\nmodules = app\n"),
        ("setup.cfg", "[metadata]\nname = x\n\n[mypy]\nfiles = src\n"),
    ],
)
def test_configured_mypy_targets_are_left_to_mypy(tmp_path: Path, name: str, text: str) -> None:
    write(tmp_path, name, text)
    spec = tool_for(project(tmp_path), "typecheck")
    assert spec.argv == ("mypy", *MYPY_OUTPUT_FLAGS)


def test_the_mypy_config_mypy_reads_decides_the_target(tmp_path: Path) -> None:
    # mypy.ini comes first in mypy's search, so pyproject's `files` is not what mypy uses.
    write(tmp_path, "mypy.ini", "[mypy]\nstrict = True\n")
    write(tmp_path, "pyproject.toml", '[tool.mypy]\nfiles = ["src"]\n')
    assert tool_for(project(tmp_path), "typecheck").argv[-1] == "."


@pytest.mark.usefixtures("no_pyright_on_path")
@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[tool.pyright]\ninclude = ["src"]\n'),
        ("pyrightconfig.json", '{"include": ["src"]}\n'),
    ],
)
def test_pyright_config_uses_basedpyright_when_pyright_is_absent(tmp_path: Path, name: str, text: str) -> None:
    write(tmp_path, name, text)
    assert typechecker(tmp_path) == "pyright"
    spec = tool_for(project(tmp_path), "typecheck")
    assert spec.argv == ("basedpyright", "--outputjson")
    assert (spec.tool, spec.parser) == ("basedpyright", "pyright")
    assert (spec.ok_codes, spec.finding_codes) == (frozenset({0}), frozenset({1}))
    assert spec.install_hint == "pip install basedpyright"


@pytest.mark.usefixtures("no_pyright_on_path")
def test_pyright_config_uses_the_projects_pyright(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.pyright]\n")
    fake = tmp_path / "node_modules" / ".bin" / "pyright"
    write(tmp_path, "node_modules/.bin/pyright", "#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    spec = tool_for(project(tmp_path), "typecheck")
    assert spec.argv == ("pyright", "--outputjson")
    assert spec.tool == "pyright"
    assert "npm install" in spec.install_hint


def test_basedpyright_config_always_uses_basedpyright(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.basedpyright]\ntypeCheckingMode = 'standard'\n")
    write(tmp_path, "node_modules/.bin/pyright", "#!/bin/sh\n")
    os.chmod(tmp_path / "node_modules/.bin/pyright", 0o755)
    assert tool_for(project(tmp_path), "typecheck").argv == ("basedpyright", "--outputjson")


@pytest.mark.parametrize(
    "files",
    [
        {"pyproject.toml": "[tool.pyright]\n\n[tool.mypy]\nstrict = true\n"},
        {"pyproject.toml": "[tool.basedpyright]\n", "mypy.ini": "[mypy]\n"},
        {"pyrightconfig.json": "{}", "setup.cfg": "[mypy]\nstrict = True\n"},
    ],
)
def test_mypy_wins_when_both_are_configured(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        write(tmp_path, name, text)
    assert tool_for(project(tmp_path), "typecheck").tool == "mypy"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("pyproject.toml", b"[tool.mypy\nbroken = "),
        ("setup.cfg", b"[mypy\nfiles"),
        ("pyproject.toml", b"\xff\xfe[tool.pyright]\n"),  # not UTF-8
    ],
)
def test_unreadable_config_falls_back_to_mypy(tmp_path: Path, name: str, content: bytes) -> None:
    (tmp_path / name).write_bytes(content)
    assert tool_for(project(tmp_path), "typecheck").tool == "mypy"


def test_setup_cfg_without_mypy_section_is_not_mypy_config(tmp_path: Path) -> None:
    write(tmp_path, "setup.cfg", "[flake8]\nmax-line-length = 100\n")
    write(tmp_path, "pyrightconfig.json", "{}")
    assert typechecker(tmp_path) == "pyright"


def test_fixture_workspaces() -> None:
    main = tool_for(project(WORKSPACES / "python"), "typecheck")
    assert main.argv == ("mypy", *MYPY_OUTPUT_FLAGS, ".")  # [tool.mypy] without `files`
    assert typechecker(WORKSPACES / "python-pyright") == "pyright"


def test_every_check_names_a_registered_parser(tmp_path: Path) -> None:
    for check in CHECKS:
        spec = tool_for(project(tmp_path), check)
        assert spec.check == check
        assert is_known_parser(spec.parser)
        assert spec.install_hint
