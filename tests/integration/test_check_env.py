"""lintel's own environment never reaches the code under test: the env-python, env-node, env-go and
env-rust fixtures' tests check colour behaviour (FORCE_COLOR, CLICOLOR_FORCE) and that NO_COLOR / FORCE_COLOR /
CLICOLOR / CI are what their runner was started with. They pass under lintel's test run (the CLI, lintel.runTests
whole and a subset, lintel.runScript) exactly as under the tool run by hand. Before, lintel added NO_COLOR=1,
FORCE_COLOR=0 and CLICOLOR=0 to every run (and CARGO_TERM_COLOR=never): failing tests in each fixture.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.scripts import run_script
from lintel.engine.testruns import run_tests

from tests.helpers import REPO, WORKSPACES, require_tool, tool_path

PYTHON = WORKSPACES / "env-python"
NODE = WORKSPACES / "env-node"
GO = WORKSPACES / "env-go"
RUST = WORKSPACES / "env-rust"
# The variables the fixtures' tests look at; each case sets some and leaves the others unset.
FORCED = "test_force_color_colours_a_pipe"
WATCHED = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CARGO_TERM_COLOR", "CI")


def user_env(values: Mapping[str, str], expected: Mapping[str, str | None]) -> dict[str, str]:
    """The user's environment: the watched variables as `values` says (the others unset), the dev tools on PATH,
    and the fixture's expectation of what its runner sees."""
    env = {k: v for k, v in os.environ.items() if k not in WATCHED}
    env.update(values, PATH=tool_path(), ENV_FIXTURE_EXPECT=json.dumps(dict(expected)))
    return env


def seen(values: Mapping[str, str]) -> dict[str, str | None]:
    return {name: values.get(name) for name in WATCHED}


def check_tests(root: Path, env: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "lintel", "check", str(root), "--only", "test", "--format", "json"],
        cwd=REPO,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return proc.returncode, json.loads(proc.stdout)


def by_hand(argv: list[str], root: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=root, env=dict(env), capture_output=True, text=True, timeout=600, check=False)


def assert_clean(code: int, report: dict[str, Any]) -> None:
    [run] = report["runs"]
    assert (code, run["status"], report["issues"]) == (0, "clean", []), run


@pytest.mark.tool("pytest")
@pytest.mark.parametrize("values", [{}, {"FORCE_COLOR": "1", "CI": "true"}, {"CLICOLOR": "0"}])
def test_pytest_sees_the_users_environment(values: dict[str, str]) -> None:
    env = user_env(values, seen(values))
    hand = by_hand([require_tool("pytest"), "-q", "-p", "no:cacheprovider"], PYTHON, env)
    assert hand.returncode == 0, hand.stdout
    assert "3 passed" in hand.stdout
    assert_clean(*check_tests(PYTHON, env))


@pytest.mark.tool("node")
@pytest.mark.parametrize(
    ("values", "lintel_adds"),
    [
        ({}, {"CI": "true"}),  # the one default of a node test run, only where the user has none
        ({"CI": "false", "FORCE_COLOR": "1"}, {}),
        ({"CLICOLOR": "0", "CI": "1"}, {}),
    ],
)
def test_node_test_sees_the_users_environment(values: dict[str, str], lintel_adds: dict[str, str]) -> None:
    hand = by_hand(["node", "--test"], NODE, user_env(values, seen(values)))
    assert hand.returncode == 0, hand.stdout
    assert "# pass 3" in hand.stdout
    assert_clean(*check_tests(NODE, user_env(values, seen({**values, **lintel_adds}))))


@pytest.mark.tool("go")
@pytest.mark.parametrize("values", [{}, {"FORCE_COLOR": "1", "CI": "true"}])
def test_go_test_sees_the_users_environment(values: dict[str, str]) -> None:
    env = user_env(values, seen(values))
    hand = by_hand(["go", "test", "-count=1", "./..."], GO, env)
    assert hand.returncode == 0, hand.stdout
    assert_clean(*check_tests(GO, env))


@pytest.mark.tool("cargo")
@pytest.mark.parametrize("values", [{}, {"CARGO_TERM_COLOR": "always", "FORCE_COLOR": "1"}])
def test_cargo_test_sees_the_users_environment(values: dict[str, str]) -> None:
    """cargo test runs the crate's own code; CARGO_TERM_COLOR=always colours cargo's own output, which the parser
    reads all the same. The Rust fixture reads its expectation as `NAME=value` / `NAME` lines."""
    env = user_env(values, {})
    expected = seen(values)
    env["ENV_FIXTURE_EXPECT"] = "\n".join(name if v is None else f"{name}={v}" for name, v in expected.items())
    hand = by_hand(["cargo", "test"], RUST, env)
    assert hand.returncode == 0, hand.stdout + hand.stderr
    assert_clean(*check_tests(RUST, env))


@pytest.mark.tool("pytest", "node")
async def test_run_tests_and_run_script_see_the_users_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """lintel.runTests (whole and a subset) and lintel.runScript: the engine the LSP commands and MCP tools call."""
    values = {"FORCE_COLOR": "1"}
    for name, value in user_env(values, seen({**values, "CI": "true"})).items():
        monkeypatch.setenv(name, value)
    for name in WATCHED:
        if name not in values:
            monkeypatch.delenv(name, raising=False)
    config = LintelConfig()
    [node] = detect(NODE)
    for result in (
        await run_tests(node, None, workspace=NODE, config=config),
        await run_tests(node, ["test/paint.test.js"], workspace=NODE, config=config),
        await run_script(node, "test", workspace=NODE, config=config),
    ):
        assert (result.exit_code, result.failures, result.ok) == (0, [], True), result.output
    monkeypatch.setenv("ENV_FIXTURE_EXPECT", json.dumps(seen(values)))  # pytest gets no CI
    [python] = detect(PYTHON)
    for result in (
        await run_tests(python, None, workspace=PYTHON, config=config),
        await run_tests(python, ["tests/test_paint.py"], workspace=PYTHON, config=config),
        await run_tests(
            python, ["tests/test_paint.py::test_force_color_colours_a_pipe"], workspace=PYTHON, config=config
        ),
    ):
        assert (result.status, result.failures, result.ok) == ("clean", [], True), result.output
