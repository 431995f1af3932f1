"""lintel.runTests {tests} and lintel.runScript with the real runners and package managers: a
name that matches no test is an error, never a pass (go test passes when its `-run` matches nothing); a
parametrize id holding `::` is run (pytest); a script's name and arguments reach the script as given (npm,
pnpm)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lintel.core.errors import BadArgument
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.scripts import run_script
from lintel.engine.testruns import run_tests
from lintel.languages import Project

from tests.helpers import copy_workspace, require_tool


def project_of(tmp_path: Path, fixture: str) -> Project:
    root = copy_workspace(fixture, tmp_path / fixture)
    [project] = detect(root)
    return project


def go_started(output: str) -> list[str]:
    """The tests go test -json's `run` events name, in order."""
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return [e["Test"] for e in events if e.get("Test") and e["Action"] == "run"]


# --- go test ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "identity",
    ["TestGreeting/(", "example.com/lintelgo.TestGreeting/no_such_case", "TestGreeting/no_such_case/deeper"],
)
async def test_a_go_subtest_that_does_not_exist_is_an_error_not_a_pass(tmp_path: Path, identity: str) -> None:
    require_tool("go", "install Go from https://go.dev/dl/")
    project = project_of(tmp_path, "go")

    # go test -run '^TestGreeting$/^\($' runs TestGreeting alone, which passes: exit 0, nothing asked for ran.
    with pytest.raises(BadArgument, match=rf"^no go test matches {re.escape(repr(identity))}: go test ran no test"):
        await run_tests(project, [identity], workspace=project.root, config=LintelConfig())


async def test_a_go_subtest_beside_its_whole_parent_must_exist_too(tmp_path: Path) -> None:
    require_tool("go", "install Go from https://go.dev/dl/")
    project = project_of(tmp_path, "go")

    with pytest.raises(BadArgument, match=r"^no go test matches 'TestGreeting/nope': go test ran no test"):
        await run_tests(project, ["TestGreeting", "TestGreeting/nope"], workspace=project.root, config=LintelConfig())


async def test_a_go_subtest_that_exists_runs_and_answers(tmp_path: Path) -> None:
    require_tool("go", "install Go from https://go.dev/dl/")
    project = project_of(tmp_path, "go")
    (project.root / "cases_test.go").write_text(
        'package lintelgo\n\nimport "testing"\n\nfunc TestCases(t *testing.T) {\n'
        '\tt.Run("(", func(t *testing.T) {})\n\tt.Run("two words", func(t *testing.T) {})\n}\n',
        encoding="utf-8",
    )

    result = await run_tests(
        project, ["TestCases/(", "TestCases/two_words"], workspace=project.root, config=LintelConfig()
    )

    assert result.ok, result.output
    assert sorted(go_started(result.output)) == ["TestCases", "TestCases", "TestCases/(", "TestCases/two_words"]


# --- pytest -----------------------------------------------------------------------------------------------------


async def test_a_pytest_parametrize_id_holding_double_colons_runs(tmp_path: Path) -> None:
    require_tool("pytest")
    project = project_of(tmp_path, "python")
    (project.root / "tests" / "test_param.py").write_text(
        'import pytest\n\n\n@pytest.mark.parametrize("value", ["x::y", "z"])\n'
        "def test_param(value: str) -> None:\n    assert value\n",
        encoding="utf-8",
    )

    result = await run_tests(
        project, ["tests/test_param.py::test_param[x::y]"], workspace=project.root, config=LintelConfig()
    )

    assert result.ok, result.output
    assert result.argv[-1] == "tests/test_param.py::test_param[x::y]"
    assert re.search(r"^=*\s*1 passed in ", result.output, re.MULTILINE), result.output


# --- runScript --------------------------------------------------------------------------------------------------


def script_project(tmp_path: Path, manager: str, scripts: dict[str, str] | None = None) -> Project:
    """A copy of the scripts-<manager> fixture, with `scripts` added to its package.json."""
    require_tool(manager, "run scripts/setup-dev (scripts/setup.d/30-node.sh installs pnpm)")
    root = copy_workspace(f"scripts-{manager}", tmp_path / manager)
    if scripts:
        manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
        manifest["scripts"].update(scripts)
        (root / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    [project] = detect(root)
    return project


def greeted(output: str) -> list[str]:
    """The arguments greet.js printed (`greet: [...]`)."""
    [line] = [line for line in output.splitlines() if line.startswith("greet: ")]
    printed: list[str] = json.loads(line.removeprefix("greet: "))
    return printed


# What the attack passed, and what shell-quote's quoting (pnpm's) changes on the way: each must reach the script
# exactly, or not run at all.
AWKWARD = ["~", "~/x", "~root", "a b\\c", "it's a!"]
PLAIN = ["a~b", "~ x", "'~'", "$HOME", "a b", "*", "--", "it's", 'say "hi"', "C:\\x", ""]


@pytest.mark.parametrize("manager", ["npm", "pnpm"])
async def test_script_arguments_reach_the_script_verbatim_or_are_refused(tmp_path: Path, manager: str) -> None:
    project = script_project(tmp_path, manager)

    plain = await run_script(project, "greet", PLAIN, workspace=project.root, config=LintelConfig())
    assert plain.ok, plain.output
    assert greeted(plain.output) == PLAIN
    for arg in AWKWARD:
        if manager == "npm":  # npm quotes each argument for sh
            result = await run_script(project, "greet", [arg], workspace=project.root, config=LintelConfig())
            assert greeted(result.output) == [arg]
            continue
        with pytest.raises(BadArgument, match=r"^lintel.runScript: pnpm cannot pass the argument .* unchanged: "):
            await run_script(project, "greet", [arg], workspace=project.root, config=LintelConfig())


@pytest.mark.parametrize("manager", ["npm", "pnpm"])
@pytest.mark.parametrize("name", ["--help", "-s"])
async def test_a_script_named_like_an_option_is_refused_not_passed(tmp_path: Path, manager: str, name: str) -> None:
    project = script_project(tmp_path, manager, {name: "node greet.js ran"})

    # npm run --silent --help printed npm's help and exited 0: the script never ran and the run passed.
    with pytest.raises(
        BadArgument, match=rf"^lintel.runScript: cannot run the script '{name}': {manager} reads a name"
    ):
        await run_script(project, name, workspace=project.root, config=LintelConfig())
