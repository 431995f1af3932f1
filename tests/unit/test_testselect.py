"""lintel.runTests {tests} and lintel.runFailingTests without running anything: test identities (names, files,
`file:line`, TestFailure objects) translated into each runner's filters, on copies of the fixtures; identities
that match nothing are errors (docs/agents.md, Running a subset of tests)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from lintel.core.errors import BadArgument, NothingToRun, NotSupported
from lintel.core.issues import TestFailure
from lintel.engine import actions
from lintel.engine.actions import CommandArgs
from lintel.engine.checks import RunResult
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.discover import discover
from lintel.engine.scripts import script_command
from lintel.engine.testruns import failing_selection, merge, path_selection, select_tests
from lintel.languages import LANGUAGES, Project, Registry

from tests.helpers import copy_workspace, make_project


def project_of(tmp_path: Path, fixture: str, language: str | None = None) -> Project:
    root = copy_workspace(fixture, tmp_path / fixture)
    found = [p for p in detect(root) if language is None or p.language == language]
    assert len(found) == 1, found
    return found[0]


def argvs(project: Project, tests: Sequence[object]) -> list[list[str]]:
    selection = select_tests(project, tests, workspace=project.root, config=LintelConfig())  # type: ignore[arg-type]
    return [list(spec.argv) for spec in selection.runs]


def after(argv: list[str], marker: str) -> list[str]:
    return argv[argv.index(marker) + 1 :]


# --- pytest -------------------------------------------------------------------------------------------------


def test_pytest_node_ids_files_and_lines_become_node_ids(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    [argv] = argvs(
        project,
        [
            "tests/test_models.py::test_total_value_counts_quantity",
            "tests/test_pricing.py:12",  # inside test_report_lists_items
            "tests/test_pricing.py",
            {"name": "tests/test_models.py::test_restock_adds_units", "message": "ignored"},
        ],
    )
    assert argv[0] == "pytest"
    assert after(argv, "--") == [
        "tests/test_models.py::test_total_value_counts_quantity",
        "tests/test_pricing.py::test_report_lists_items",
        "tests/test_pricing.py",
        "tests/test_models.py::test_restock_adds_units",
    ]


def test_pytest_a_line_in_a_test_class_is_that_method_and_its_decorators_count(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    test_file = project.root / "tests" / "test_grouped.py"
    test_file.write_text(
        "import pytest\n\n\nclass TestGroup:\n    @pytest.mark.slow\n    def test_one(self) -> None:\n"
        "        assert True\n\n    def helper(self) -> None:\n        pass\n",
        encoding="utf-8",
    )
    assert after(argvs(project, ["tests/test_grouped.py:5"])[0], "--") == ["tests/test_grouped.py::TestGroup::test_one"]
    assert after(argvs(project, ["tests/test_grouped.py:4"])[0], "--") == ["tests/test_grouped.py::TestGroup"]
    with pytest.raises(BadArgument, match=r"test_grouped.py:10 is in `TestGroup.helper`, which is not a test"):
        argvs(project, ["tests/test_grouped.py:10"])


def test_pytest_a_parametrize_id_may_hold_double_colons(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    (project.root / "tests" / "test_param.py").write_text(
        'import pytest\n\n\nclass TestGroup:\n    @pytest.mark.parametrize("v", ["x::y"])\n'
        "    def test_param(self, v: str) -> None:\n        assert v\n",
        encoding="utf-8",
    )
    ids = ["tests/test_param.py::TestGroup::test_param[x::y]", "tests/test_param.py::TestGroup::test_param[a[::]b]"]
    assert after(argvs(project, ids)[0], "--") == ids
    with pytest.raises(BadArgument, match=r"'test_nope' is not defined in tests/test_param.py::TestGroup$"):
        argvs(project, ["tests/test_param.py::TestGroup::test_nope[x::y]"])


@pytest.mark.parametrize(
    ("identity", "message"),
    [
        ("tests/test_models.py::test_missing", r"'test_missing' is not defined in tests/test_models.py"),
        ("tests/test_models.py:1", r"tests/test_models.py:1 is in no test function or class"),
        ("test_restock_adds_units", r"a pytest test is named `file::test`"),
    ],
)
def test_pytest_identities_that_match_nothing_are_errors_naming_them(
    tmp_path: Path, identity: str, message: str
) -> None:
    project = project_of(tmp_path, "python")
    with pytest.raises(BadArgument, match=rf"no python test matches {identity!r}: {message}"):
        argvs(project, [identity])


# --- go test ------------------------------------------------------------------------------------------------


def test_go_names_files_and_lines_share_one_run_when_the_union_picks_nothing_else(tmp_path: Path) -> None:
    project = project_of(tmp_path, "go")
    [argv] = argvs(project, ["example.com/lintelgo/sub.TestScale", "greet_test.go:12"])
    assert argv[:2] == ["go", "test"]
    assert "./..." not in argv
    assert after(argv, "-run") == ["^(TestDouble|TestScale)$", "./sub", "."]


def test_go_a_bare_name_is_found_in_the_packages_and_a_file_is_its_tests(tmp_path: Path) -> None:
    project = project_of(tmp_path, "go")
    assert after(argvs(project, ["TestAdd"])[0], "-run") == ["^(TestAdd)$", "./sub"]
    assert after(argvs(project, ["sub/calc_test.go"])[0], "-run") == ["^(TestAdd|TestScale)$", "./sub"]


def test_go_packages_whose_union_would_pick_another_test_run_apart(tmp_path: Path) -> None:
    project = project_of(tmp_path, "go")
    # sub declares TestAdd and TestScale; a TestAdd in the root too would make `^(TestAdd|TestScale)$` pick it.
    (project.root / "extra_test.go").write_text(
        'package lintelgo\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n}\n', encoding="utf-8"
    )
    runs = argvs(project, ["example.com/lintelgo/sub.TestScale", "example.com/lintelgo.TestAdd"])
    assert [after(a, "-run") for a in runs] == [["^(TestScale)$", "./sub"], ["^(TestAdd)$", "."]]


def test_go_subtests_get_level_patterns_and_a_package_failure_runs_the_package(tmp_path: Path) -> None:
    project = project_of(tmp_path, "go")
    runs = argvs(project, [{"name": "example.com/lintelgo/sub.TestScale/two_by_three"}, "example.com/lintelgo"])
    assert [a[a.index("-json") + 3 :] for a in runs] == [["-run", "^TestScale$/^two_by_three$", "./sub"], ["."]]


@pytest.mark.parametrize(
    ("identity", "message"),
    [
        ("TestNope", "no _test.go file in the project declares func TestNope"),
        ("example.com/lintelgo/sub.TestNope", "package example.com/lintelgo/sub declares no func TestNope"),
        ("example.com/other.TestAdd", "package example.com/other is not in this project's modules"),
        ("sub/calc_test.go:3", "sub/calc_test.go:3 is not inside a Test function"),
        ("sub/calc.go", "sub/calc.go is not a _test.go file"),
    ],
)
def test_go_identities_that_match_nothing_are_errors(tmp_path: Path, identity: str, message: str) -> None:
    project = project_of(tmp_path, "go")
    with pytest.raises(BadArgument, match=rf"no go test matches {identity!r}: {message}"):
        argvs(project, [identity])


def test_go_a_package_path_that_leads_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    """`../..` in an import path, or a symlinked folder, must not run a package outside."""
    project = project_of(tmp_path, "go")
    evil = tmp_path / "evil-go"
    evil.mkdir()
    (evil / "evil_test.go").write_text(
        'package evil\n\nimport "testing"\n\nfunc TestEvil(t *testing.T) {\n}\n', encoding="utf-8"
    )
    with pytest.raises(BadArgument, match=r"outside the workspace"):
        argvs(project, ["example.com/lintelgo/../../evil-go.TestEvil"])
    (project.root / "link").symlink_to(evil, target_is_directory=True)
    with pytest.raises(BadArgument, match=r"example.com/lintelgo/link is not in this project's modules"):
        argvs(project, ["example.com/lintelgo/link.TestEvil"])


# --- cargo test ---------------------------------------------------------------------------------------------


def test_cargo_exact_names_with_their_targets(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    [argv] = argvs(project, ["tests::adds_wrong", "tests/integration.rs:5", "src/shapes.rs:28"])
    assert argv[:3] == ["cargo", "test", "--no-fail-fast"]
    assert argv[3 : argv.index("--")] == ["--lib", "--test", "integration"]
    assert after(argv, "--") == [
        "--exact",
        "tests::adds_wrong",
        "empty_list_is_empty",
        "shapes::tests::makes_points",  # line 28 is inside `mod tests`: every test in it
        "shapes::tests::ranges",
    ]


def test_cargo_recorded_names_it_cannot_place_run_in_every_target(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    last = RunResult("rust", "test", "cargo test", [], project.root, "findings")
    last.failures = [TestFailure(name="src/lib.rs - add (line 7)", message="doc test failed")]
    selection = failing_selection(project, last, workspace=project.root, config=LintelConfig())
    assert selection is not None
    [spec] = selection.runs
    assert list(spec.argv) == ["cargo", "test", "--no-fail-fast", "--", "--exact", "src/lib.rs - add (line 7)"]


def test_cargo_unknown_names_and_lines_outside_tests_are_errors(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    with pytest.raises(BadArgument, match=r"no rust test matches 'adds_wrong': no #\[test\] function has that path"):
        argvs(project, ["adds_wrong"])  # the path is tests::adds_wrong
    with pytest.raises(BadArgument, match=r"src/lib.rs:11 is not inside a #\[test\] function"):
        argvs(project, ["src/lib.rs:11"])


# --- node: vitest, jest, mocha, node --test -----------------------------------------------------------------


def node_project(tmp_path: Path, test_script: str, files: dict[str, str], manager: str = "npm") -> Project:
    root = tmp_path / "web"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "package.json").write_text(json.dumps({"scripts": {"test": test_script}}), encoding="utf-8")
    return make_project("node", root, ("package.json",), package_manager=manager, scripts={"test": test_script})


SPEC = """import { describe, it } from "vitest";

describe("cart (v2)", () => {
  it("adds an item", () => {
    expect(1).toBe(1);
  });

  it("sums 2+2", () => {
    expect(2 + 2).toBe(4);
  });
});
"""


def test_vitest_script_gets_an_escaped_full_name_pattern_and_files_through_the_package_manager(tmp_path: Path) -> None:
    project = node_project(tmp_path, "vitest", {"test/cart.test.js": SPEC})
    [argv] = argvs(project, ["cart (v2) > sums 2+2", "test/cart.test.js:5"])
    assert argv == [
        "npm",
        "run",
        "--silent",
        "test",
        "--",
        "--run",
        "--reporter=json",
        "-t",
        r"^(?:cart \(v2\) sums 2\+2|cart \(v2\) adds an item)$",
    ]
    [argv] = argvs(project, [{"name": "cart (v2) > sums 2+2", "file": "test/cart.test.js"}, "test/cart.test.js:3"])
    assert after(argv, "-t") == [r"^(?:cart \(v2\) sums 2\+2|cart \(v2\)(?: .*)?)$", "test/cart.test.js"]


def test_jest_files_are_path_patterns_and_pnpm_forwards_without_a_separator(tmp_path: Path) -> None:
    project = node_project(tmp_path, "jest", {"src/cart.spec.js": SPEC}, manager="pnpm")
    [argv] = argvs(project, ["src/cart.spec.js"])
    assert argv == ["pnpm", "run", "test", "--json", "--testLocationInResults", r"src/cart\.spec\.js$"]


def test_whole_files_and_named_tests_run_apart(tmp_path: Path) -> None:
    project = node_project(tmp_path, "jest", {"src/cart.spec.js": SPEC, "src/other.spec.js": SPEC})
    runs = argvs(project, ["src/other.spec.js", {"name": "cart (v2) > adds an item", "file": "src/cart.spec.js"}])
    assert [a[a.index("--testLocationInResults") + 1 :] for a in runs] == [
        [r"src/other\.spec\.js$"],
        ["-t", r"^(?:cart \(v2\) adds an item)$", r"src/cart\.spec\.js$"],
    ]


def test_node_test_runs_node_directly_with_the_last_title_and_the_files_asked_for(tmp_path: Path) -> None:
    project = node_project(
        tmp_path, "NODE_ENV=test node --test --test-reporter tap test/a.test.js", {"test/cart.test.js": SPEC}
    )
    selection = select_tests(project, ["test/cart.test.js:9"], workspace=project.root, config=LintelConfig())
    [spec] = selection.runs
    assert list(spec.argv) == [
        "node",
        "--test",
        "--test-reporter",
        "tap",
        "--test-name-pattern=^(?:sums 2\\+2)$",
        "test/cart.test.js",
    ]
    assert dict(spec.env) == {"NODE_ENV": "test"}
    # A name without a file keeps the script's own files.
    assert argvs(project, ["cart (v2) > adds an item"])[0][-1] == "test/a.test.js"


def test_a_chained_script_runs_its_one_runner_step_directly(tmp_path: Path) -> None:
    project = node_project(tmp_path, "npm run lint && vitest run --config v.js", {"test/cart.test.js": SPEC})
    [argv] = argvs(project, ["test/cart.test.js"])
    assert argv == [
        "npx",
        "--no-install",
        "vitest",
        "run",
        "--config",
        "v.js",
        "--reporter=json",
        "test/cart.test.js",
    ]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("npm run lint && vitest run && jest", "calls more than one of vitest, jest, mocha, node --test"),
        ("./run-tests.sh", "calls none of vitest, jest, mocha, node --test"),
    ],
)
def test_a_script_whose_runner_cannot_be_told_is_an_error(tmp_path: Path, script: str, message: str) -> None:
    project = node_project(tmp_path, script, {"test/cart.test.js": SPEC})
    with pytest.raises(BadArgument, match=message):
        argvs(project, ["test/cart.test.js"])


def test_node_names_that_no_test_file_declares_are_errors(tmp_path: Path) -> None:
    project = node_project(tmp_path, "vitest", {"test/cart.test.js": SPEC})
    with pytest.raises(BadArgument, match=r"no node test matches 'cart \(v2\) > removes': no test or suite titled"):
        argvs(project, ["cart (v2) > removes"])
    with pytest.raises(BadArgument, match=r"test/cart.test.js:1 is not inside a describe/it/test call"):
        argvs(project, ["test/cart.test.js:1"])


# --- shared: empty lists, files outside, unsupported languages, the record -----------------------------------


def test_an_empty_list_and_a_file_outside_the_workspace_are_errors(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    with pytest.raises(BadArgument, match=r"`tests` is empty"):
        argvs(project, [])
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def test_x(): pass\n", encoding="utf-8")
    with pytest.raises(BadArgument, match=r"is outside the workspace"):
        argvs(project, [str(outside)])


def test_a_language_without_a_selector_is_not_supported(tmp_path: Path) -> None:
    from lintel.languages import LanguageSpec

    project = project_of(tmp_path, "python")
    declared = Project(
        LanguageSpec("shell", (), {}, project.spec.tool_for, project.spec.file_scope, project.spec.formatter_for),
        project.root,
        (),
    )
    with pytest.raises(NotSupported, match=r"^lintel.runTests is not supported for shell projects yet$"):
        argvs(declared, ["x"])


def test_failing_selection_needs_a_record_and_nothing_failed_is_no_selection(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    config = LintelConfig()
    with pytest.raises(NothingToRun, match=r"no test run recorded for the python project"):
        failing_selection(project, None, workspace=project.root, config=config)
    passed = RunResult("python", "test", "pytest", ["pytest"], project.root, "clean")
    assert failing_selection(project, passed, workspace=project.root, config=config) is None
    stopped = RunResult("python", "test", "pytest", ["pytest"], project.root, "not_checked", reason="timed out")
    with pytest.raises(NothingToRun, match=r"did not finish \(timed out\)"):
        failing_selection(project, stopped, workspace=project.root, config=config)


def test_merged_runs_join_argv_and_end_with_the_overall_exit(tmp_path: Path) -> None:
    one = RunResult(
        "go", "test", "go test", ["go", "test", "./a"], tmp_path, "clean", exit_code=0, output="ok\nexit: 0"
    )
    two = RunResult(
        "go", "test", "go test", ["go", "test", "./b"], tmp_path, "findings", exit_code=1, output="x\nexit: 1"
    )
    two.failures = [TestFailure(name="b.TestX", message="failed")]
    merged = merge([one, two])
    assert merged.argv == ["go", "test", "./a", ";", "go", "test", "./b"]
    assert (merged.exit_code, merged.status, merged.ok) == (1, "findings", False)
    assert merged.output.splitlines()[0] == "$ go test ./a"
    assert merged.output.splitlines()[-1] == "exit: 1"
    assert [f.name for f in merged.failures] == ["b.TestX"]


# --- runScript ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("manager", "argv"),
    [
        ("npm", ["npm", "run", "--silent", "greet", "--", "a b", "--flag"]),
        ("pnpm", ["pnpm", "run", "greet", "a b", "--flag"]),
        ("yarn", ["yarn", "--silent", "run", "greet", "a b", "--flag"]),
        ("bun", ["bun", "run", "--silent", "greet", "a b", "--flag"]),
    ],
)
def test_script_argv_per_package_manager(tmp_path: Path, manager: str, argv: list[str]) -> None:
    project = make_project("node", tmp_path, ("package.json",), package_manager=manager, scripts={"greet": "node g.js"})
    assert list(script_command(project, "greet", ["a b", "--flag"]).argv) == argv


def test_script_errors_list_the_scripts_and_name_the_language(tmp_path: Path) -> None:
    project = make_project("node", tmp_path, ("package.json",), package_manager="npm", scripts={"b": "x", "a": "y"})
    with pytest.raises(BadArgument, match=r"no script 'build' in .*package.json; available scripts: a, b$"):
        script_command(project, "build")
    python = make_project("python", tmp_path, ("pyproject.toml",))
    with pytest.raises(NotSupported, match=r"^lintel.runScript is not supported for python projects yet$"):
        script_command(python, "build")


def test_script_names_like_options_and_arguments_pnpm_would_change_are_refused(tmp_path: Path) -> None:
    scripts = {"--help": "x", "-s": "y", "greet": "node g.js"}
    for manager in ("npm", "pnpm", "yarn", "bun"):
        project = make_project("node", tmp_path, ("package.json",), package_manager=manager, scripts=scripts)
        for name in ("--help", "-s"):
            with pytest.raises(BadArgument, match=rf"cannot run the script '{name}': {manager} reads a name starting"):
                script_command(project, name)
    pnpm = make_project("node", tmp_path, ("package.json",), package_manager="pnpm", scripts=scripts)
    for changed in ("~", "~/x", "~root", "a b\\c", 'x"\\', "it's a!"):
        with pytest.raises(BadArgument, match=r"pnpm cannot pass the argument .* unchanged"):
            script_command(pnpm, "greet", [changed])
    kept = ["a~b", "~ x", "'~'", "$HOME", "C:\\x", "it's", "a b", "--", ""]
    assert list(script_command(pnpm, "greet", kept).argv) == ["pnpm", "run", "greet", *kept]
    npm = make_project("node", tmp_path, ("package.json",), package_manager="npm", scripts=scripts)
    assert list(script_command(npm, "greet", ["~"]).argv)[-1] == "~"  # npm quotes every argument for sh


def test_node_names_are_found_in_dunder_tests_folders_but_never_in_node_modules(tmp_path: Path) -> None:
    project = node_project(
        tmp_path, "jest", {"src/__tests__/cart.js": SPEC, "node_modules/x/y.test.js": SPEC.replace("cart", "dep")}
    )
    [argv] = argvs(project, ["cart (v2) > adds an item"])
    assert after(argv, "-t") == [r"^(?:cart \(v2\) adds an item)$"]
    with pytest.raises(BadArgument, match=r"no node test matches 'dep \(v2\) > adds an item'"):
        argvs(project, ["dep (v2) > adds an item"])


def test_a_recorded_node_failure_placed_in_the_code_under_test_is_run_by_name_alone(tmp_path: Path) -> None:
    project = node_project(tmp_path, "vitest", {"test/cart.test.js": SPEC, "src/cart.js": "export {};\n"})
    last = RunResult("node", "test", "vitest", [], project.root, "findings")
    last.failures = [TestFailure(name="cart (v2) > sums 2+2", message="x", file="src/cart.js", line=1)]
    selection = failing_selection(project, last, workspace=project.root, config=LintelConfig())
    assert selection is not None
    [spec] = selection.runs
    assert after(list(spec.argv), "-t") == [r"^(?:cart \(v2\) sums 2\+2)$"]


# --- runTests {path}: a test file or folder runs those tests ----------------------------------------------


def path_argvs(project: Project, path: str) -> list[list[str]] | None:
    selection = path_selection(project, project.root / path, workspace=project.root, config=LintelConfig())
    return None if selection is None else [list(spec.argv) for spec in selection.runs]


def test_a_path_naming_a_pytest_file_or_folder_is_given_to_pytest_and_sources_are_not(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    assert [after(a, "--") for a in path_argvs(project, "tests/test_models.py") or []] == [["tests/test_models.py"]]
    assert [after(a, "--") for a in path_argvs(project, "tests") or []] == [["tests"]]
    assert path_argvs(project, "src/inventory/models.py") is None  # a source file: the whole suite
    assert path_argvs(project, "src") is None  # a folder without test files
    assert path_argvs(project, ".") is None  # the project itself


def test_a_path_naming_a_go_test_file_runs_its_tests_and_a_folder_its_packages(tmp_path: Path) -> None:
    project = project_of(tmp_path, "go")
    assert [after(a, "-run") for a in path_argvs(project, "sub/calc_test.go") or []] == [
        ["^(TestAdd|TestScale)$", "./sub"]
    ]
    [argv] = path_argvs(project, "sub") or []
    assert argv[:2] == ["go", "test"]
    assert argv[-1] == "./sub/..."
    assert "./..." not in argv
    assert path_argvs(project, "sub/calc.go") is None


def test_a_path_naming_a_cargo_integration_file_runs_its_target_and_a_source_file_its_tests(tmp_path: Path) -> None:
    project = project_of(tmp_path, "rust")
    assert path_argvs(project, "tests/integration.rs") == [["cargo", "test", "--no-fail-fast", "--test", "integration"]]
    assert path_argvs(project, "tests") == [["cargo", "test", "--no-fail-fast", "--test", "integration"]]
    [argv] = path_argvs(project, "src/shapes.rs") or []
    assert argv[3 : argv.index("--")] == ["--lib"]
    assert after(argv, "--") == ["--exact", "shapes::tests::makes_points", "shapes::tests::ranges"]
    assert path_argvs(project, "src/main.rs") is None  # no #[test] in it


def test_a_path_naming_a_js_test_file_or_folder_runs_those_files(tmp_path: Path) -> None:
    files = {"test/cart.test.js": SPEC, "test/deep/total.test.js": SPEC, "src/cart.js": "export {};\n"}
    project = node_project(tmp_path, "vitest run", files)
    [argv] = path_argvs(project, "test/cart.test.js") or []
    assert argv[-1] == "test/cart.test.js"
    [argv] = path_argvs(project, "test") or []
    assert argv[-2:] == ["test/cart.test.js", "test/deep/total.test.js"]
    assert path_argvs(project, "src/cart.js") is None
    assert path_argvs(project, "src") is None


@dataclass
class _Folder:
    root: Path
    config: LintelConfig = field(default_factory=LintelConfig)
    languages: Registry = LANGUAGES
    last_tests: dict[tuple[Path, str], RunResult] = field(default_factory=dict)


def test_the_scope_says_what_a_path_runs(tmp_path: Path) -> None:
    project = project_of(tmp_path, "python")
    folder = _Folder(project.root)

    def scope(path: str) -> tuple[bool, str]:
        chosen = actions.test_scope("lintel.runTests", folder, project, CommandArgs(path=path), project.root / path)
        return chosen.selection is not None, chosen.text

    assert scope("tests/test_models.py") == (True, "the tests in tests/test_models.py (`path`)")
    assert scope(".") == (
        False,
        "the whole suite of the python project at . (`path` names the project; name a test file or folder to run "
        "only its tests)",
    )
    assert scope("src/inventory") == (
        False,
        "the whole suite of the python project at . (`path` src/inventory is not a test file or a folder holding "
        "tests)",
    )


def test_a_path_whose_tests_lintel_cannot_narrow_to_runs_the_whole_suite_and_says_why(tmp_path: Path) -> None:
    project = node_project(tmp_path, "eslint . && tsc", {"test/cart.test.js": SPEC})
    chosen = actions.test_scope(
        "lintel.runTests", _Folder(project.root), project, CommandArgs(path="test"), project.root / "test"
    )
    assert chosen.selection is None
    assert chosen.text.startswith("the whole suite of the node project at . (`path` test names tests, but ")
    assert "calls none of" in chosen.text


def test_a_relative_file_that_both_the_workspace_and_a_nested_project_hold_is_the_projects(tmp_path: Path) -> None:
    """Discovery names a nested project's test file from the project root (`tests/test_x.py`); a workspace-root
    file of the same name belongs to another project, whose runner this project's cannot be."""
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "package.json").write_text('{"name": "root", "scripts": {"test": "node --test"}}')
    (workspace / "sub" / "pyproject.toml").write_text('[project]\nname = "p"\n')
    for root in (workspace, workspace / "sub"):
        (root / "tests").mkdir()
        (root / "tests" / "test_x.py").write_text("def test_one():\n    assert True\n")
    (nested,) = [f.project for f in discover(workspace).found if f.project.language == "python"]
    assert nested.root.resolve() == (workspace / "sub").resolve()
    selection = select_tests(nested, ["tests/test_x.py"], workspace=workspace, config=LintelConfig())
    assert selection.files == ((workspace / "sub" / "tests" / "test_x.py").resolve(),)
    # A path relative to the workspace still names the nested project's file.
    selection = select_tests(nested, ["sub/tests/test_x.py"], workspace=workspace, config=LintelConfig())
    assert selection.files == ((workspace / "sub" / "tests" / "test_x.py").resolve(),)
