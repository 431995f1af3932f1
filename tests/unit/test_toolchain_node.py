"""The node toolchain: package.json scripts through the detected package manager, else npx defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintel.engine.detect import detect
from lintel.languages import CHECKS, Project
from lintel.languages.binaries import not_found_message
from lintel.languages.node import tools as node_toolchain
from lintel.languages.parsers import is_known_parser

from tests.helpers import WORKSPACES, tool_for

LOCK_FILES = {
    "npm": "package-lock.json",
    "yarn": "yarn.lock",
    "pnpm": "pnpm-lock.yaml",
    "bun": "bun.lock",
}


def make_project(
    tmp_path: Path,
    manager: str | None,
    scripts: dict[str, str] | None = None,
    **package: object,
) -> Project:
    """A real package.json (and lock file) on disk, detected as lintel detects it."""
    data: dict[str, object] = {"name": "p", "version": "1.0.0", **package}
    if scripts is not None:
        data["scripts"] = scripts
    (tmp_path / "package.json").write_text(json.dumps(data), encoding="utf-8")
    if manager is not None:
        (tmp_path / LOCK_FILES[manager]).write_text("", encoding="utf-8")
    [project] = detect(tmp_path)
    assert project.package_manager == (manager or "npm")
    return project


# --- npx defaults (no scripts) --------------------------------------------------------------------


@pytest.mark.parametrize("manager", ["npm", "yarn", "pnpm", "bun"])
def test_defaults_use_npx_without_install_whatever_the_manager(tmp_path: Path, manager: str) -> None:
    project = make_project(tmp_path, manager)
    lint = tool_for(project, "lint")
    assert lint.argv == ("npx", "--no-install", "eslint", "--format", "json-with-metadata", ".")
    assert (lint.tool, lint.parser, lint.requires) == ("eslint", "eslint", ("eslint",))
    typecheck = tool_for(project, "typecheck")
    assert typecheck.argv == ("npx", "--no-install", "tsc", "--noEmit", "--pretty", "false")
    assert (typecheck.tool, typecheck.parser, typecheck.requires) == ("tsc", "tsc", ("tsc",))
    fmt = tool_for(project, "format")
    assert fmt.argv == ("npx", "--no-install", "prettier", "--check", ".")
    assert (fmt.tool, fmt.parser, fmt.requires) == ("prettier", "prettier", ("prettier",))
    test = tool_for(project, "test")
    assert test.argv == ("npm", "test", "--silent")
    assert test.parser == "node-test-auto"


@pytest.mark.parametrize(
    ("manager", "hint"),
    [
        ("npm", "npm install --save-dev eslint"),
        ("yarn", "yarn add --dev eslint"),
        ("pnpm", "pnpm add --save-dev eslint"),
        ("bun", "bun add --dev eslint"),
    ],
)
def test_install_hints_follow_the_package_manager(tmp_path: Path, manager: str, hint: str) -> None:
    spec = tool_for(make_project(tmp_path, manager), "lint")
    assert spec.install_hint == hint
    assert not_found_message("lint", "eslint", spec.install_hint) == (
        f"lint: eslint: not found on PATH — install it with: {hint}"
    )
    assert tool_for(make_project(tmp_path, manager), "typecheck").install_hint.endswith(" typescript")


def test_exit_codes_measured_on_the_real_tools(tmp_path: Path) -> None:
    project = make_project(tmp_path, "npm")
    assert tool_for(project, "lint").finding_codes == frozenset({1})  # 2: eslint failed
    assert tool_for(project, "typecheck").finding_codes == frozenset({1, 2})  # 2: errors with --noEmit
    assert tool_for(project, "format").finding_codes == frozenset({1})  # 2: prettier failed
    assert tool_for(project, "test").finding_codes == frozenset({1})
    for check in CHECKS:
        spec = tool_for(project, check)
        assert spec.ok_codes == frozenset({0})
        assert spec.check == check
        assert is_known_parser(spec.parser)


# --- scripts --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("manager", "argv"),
    [
        ("npm", ("npm", "run", "--silent", "lint", "--", "--format", "json-with-metadata")),
        ("yarn", ("yarn", "--silent", "run", "lint", "--format", "json-with-metadata")),
        ("pnpm", ("pnpm", "run", "lint", "--format", "json-with-metadata")),
        ("bun", ("bun", "run", "--silent", "lint", "--format", "json-with-metadata")),
    ],
)
def test_eslint_script_asked_for_json(tmp_path: Path, manager: str, argv: tuple[str, ...]) -> None:
    project = make_project(tmp_path, manager, {"lint": "eslint ."})
    spec = tool_for(project, "lint")
    assert spec.argv == argv
    assert spec.binary == manager
    assert (spec.tool, spec.parser) == ("eslint", "node-lint-auto")
    assert spec.requires == ("eslint",)
    assert spec.finding_codes == frozenset({1})
    assert spec.install_hint.startswith(f"{manager} install (installs the project's devDependencies)")
    if manager != "npm":
        assert spec.install_hint.endswith(f"; to get {manager}: npm install -g {manager}")


@pytest.mark.parametrize(
    ("manager", "argv"),
    [
        ("npm", ("npm", "run", "--silent", "typecheck")),
        ("yarn", ("yarn", "--silent", "run", "typecheck")),
        ("pnpm", ("pnpm", "run", "typecheck")),
        ("bun", ("bun", "run", "--silent", "typecheck")),
    ],
)
def test_scripts_without_extra_flags(tmp_path: Path, manager: str, argv: tuple[str, ...]) -> None:
    project = make_project(tmp_path, manager, {"typecheck": "tsc --noEmit --pretty false"})
    spec = tool_for(project, "typecheck")
    assert spec.argv == argv
    assert (spec.tool, spec.requires) == ("tsc", ("tsc",))
    assert spec.finding_codes == frozenset({1, 2})


def test_tsc_script_gets_plain_output(tmp_path: Path) -> None:
    project = make_project(tmp_path, "npm", {"typecheck": "tsc --noEmit"})
    assert tool_for(project, "typecheck").argv == (
        "npm",
        "run",
        "--silent",
        "typecheck",
        "--",
        "--pretty",
        "false",
    )


@pytest.mark.parametrize(
    ("script", "extra"),
    [
        ("jest", ("--json", "--testLocationInResults")),
        ("NODE_ENV=test jest --coverage", ("--json", "--testLocationInResults")),
        ("vitest run", ("--run", "--reporter=json")),
        ("jest --json", ()),
        ("vitest --reporter=verbose", ()),
        ("node --test --test-reporter=tap", ()),
    ],
)
def test_test_scripts(tmp_path: Path, script: str, extra: tuple[str, ...]) -> None:
    project = make_project(tmp_path, "yarn", {"test": script})
    spec = tool_for(project, "test")
    assert spec.argv == ("yarn", "--silent", "run", "test", *extra)
    assert spec.parser == "node-test-auto"
    # No watch mode, no snapshot writing, unless the user's environment sets CI itself.
    assert spec.env_defaults.get("CI") == "true"
    assert "CI" not in spec.env


def test_script_tool_names(tmp_path: Path) -> None:
    project = make_project(
        tmp_path,
        "pnpm",
        {"lint": "eslint . && prettier --check .", "test": "node --test", "typecheck": "vue-tsc --noEmit"},
    )
    lint = tool_for(project, "lint")
    # a chain of commands is run as written: flags would go to its last command
    assert lint.argv == ("pnpm", "run", "lint")
    assert (lint.tool, lint.parser, lint.requires) == ("pnpm run lint", "node-lint-auto", ())
    assert lint.finding_codes == frozenset({1, 2})
    test = tool_for(project, "test")
    assert (test.tool, test.requires) == ("node --test", ())
    assert tool_for(project, "typecheck").tool == "pnpm run typecheck"


def test_eslint_script_with_its_own_format_is_left_alone(tmp_path: Path) -> None:
    project = make_project(tmp_path, "npm", {"lint": "eslint -f json src"})
    assert tool_for(project, "lint").argv == ("npm", "run", "--silent", "lint")


def test_only_lint_test_typecheck_scripts_count(tmp_path: Path) -> None:
    project = make_project(tmp_path, "yarn", {"format": "prettier --write .", "lint:fix": "eslint --fix ."})
    assert tool_for(project, "format").argv[:3] == ("npx", "--no-install", "prettier")
    assert tool_for(project, "lint").argv[:3] == ("npx", "--no-install", "eslint")


@pytest.mark.parametrize(
    ("marker", "package"),
    [(".yarnrc.yml", {}), (None, {"packageManager": "yarn@4.5.0"})],
)
def test_yarn_berry_has_no_silent_flag(tmp_path: Path, marker: str | None, package: dict[str, str]) -> None:
    if marker is not None:
        (tmp_path / marker).write_text("nodeLinker: node-modules\n", encoding="utf-8")
    project = make_project(tmp_path, "yarn", {"lint": "eslint ."}, **package)
    assert tool_for(project, "lint").argv == ("yarn", "run", "lint", "--format", "json-with-metadata")


def test_yarn_classic_pinned_in_package_json(tmp_path: Path) -> None:
    project = make_project(tmp_path, "yarn", {"lint": "eslint ."}, packageManager="yarn@1.22.22")
    assert tool_for(project, "lint").argv[:2] == ("yarn", "--silent")


def test_known_tool_detection() -> None:
    known = node_toolchain.known_tool
    assert known("eslint .") is not None
    assert known("./node_modules/.bin/eslint src") is not None
    assert known("eslint . | tee out") is None
    assert known("eslint $DIRS") is None

    def tool_of(script: str) -> str | None:
        found = known(script)
        return None if found is None else found.tool

    assert {tool_of(script) for script in ("mocha", "oxlint src", "biome lint src", "xo", "vitest run", "jest")} == {
        "mocha",
        "oxlint",
        "biome",
        "xo",
        "vitest",
        "jest",
    }
    assert known("ava") is None
    assert known("node scripts/lint.js") is None
    assert known("echo 'unbalanced") is None


# --- the fixtures ---------------------------------------------------------------------------------


def test_node_fixture_uses_npx_defaults_and_its_test_script() -> None:
    [project] = detect(WORKSPACES / "node")
    assert project.package_manager == "npm"
    assert set(project.scripts) == {"test"}
    assert tool_for(project, "lint").argv[:3] == ("npx", "--no-install", "eslint")
    assert tool_for(project, "typecheck").argv[:3] == ("npx", "--no-install", "tsc")
    test = tool_for(project, "test")
    assert test.argv == ("npm", "run", "--silent", "test")
    assert test.tool == "node --test"


def test_polyglot_fixture_runs_yarn_scripts() -> None:
    projects = {p.language: p for p in detect(WORKSPACES / "polyglot")}
    project = projects["node"]
    assert project.package_manager == "yarn"
    assert tool_for(project, "lint").argv == ("yarn", "--silent", "run", "lint", "--format", "json-with-metadata")
    assert tool_for(project, "typecheck").argv == ("yarn", "--silent", "run", "typecheck")
    assert tool_for(project, "test").argv == ("yarn", "--silent", "run", "test")


def test_unknown_check_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown check"):
        node_toolchain.tool_for(make_project(tmp_path, "npm"), "deploy")  # type: ignore[arg-type]


# -- a script's steps (lintel.engine.scriptfloor tells which one failed) -----------------------------------------------


def _steps(project: Project, check: str = "lint") -> list[tuple[str, str | None, str | None]]:
    spec = tool_for(project, check)  # type: ignore[arg-type]
    return [(step.text, step.tool, step.script) for step in spec.steps]


def test_a_chained_script_is_split_into_its_steps(tmp_path: Path) -> None:
    project = make_project(tmp_path, "npm", {"lint": "eslint . && prettier -c 'src' test && node check.js"})
    assert tool_for(project, "lint").script == "eslint . && prettier -c 'src' test && node check.js"
    assert _steps(project) == [
        ("eslint .", "eslint", None),
        ("prettier -c 'src' test", "prettier", None),
        ("node check.js", None, None),
    ]


def test_a_step_that_runs_another_script_stands_for_its_steps(tmp_path: Path) -> None:
    scripts = {
        "lint": "npm run lint:js && npm run --silent lint:format",
        "lint:js": "eslint .",
        "lint:format": "prettier -c . && tsc --noEmit",
        "test": "npm run lint && node --test",
    }
    project = make_project(tmp_path, "npm", scripts)
    assert _steps(project, "test") == [
        ("eslint .", "eslint", "npm run lint:js"),
        ("prettier -c .", "prettier", "npm run --silent lint:format"),
        ("tsc --noEmit", "tsc", "npm run --silent lint:format"),
        ("node --test", "node --test", None),
    ]


@pytest.mark.parametrize(
    "script",
    [
        "eslint . || true",
        "eslint . ; prettier -c .",
        "eslint . | tee out.txt",
        "eslint . > out.txt && prettier -c .",
        "(eslint .) && prettier -c .",
        "eslint $DIRS && prettier -c .",
        "eslint . &",
        "eslint . &&",
    ],
)
def test_a_script_that_is_more_than_a_chain_is_not_split(tmp_path: Path, script: str) -> None:
    project = make_project(tmp_path, "npm", {"lint": script})
    assert tool_for(project, "lint").steps == ()
    assert tool_for(project, "lint").script == script  # its exit code is still the floor


def test_a_quoted_and_is_part_of_its_step(tmp_path: Path) -> None:
    project = make_project(tmp_path, "npm", {"lint": 'eslint --rule "x && y" . && prettier -c .'})
    # The step is kept as written; shell characters, even quoted, keep it from being taken for a bare eslint call.
    assert _steps(project) == [('eslint --rule "x && y" .', None, None), ("prettier -c .", "prettier", None)]


def test_scripts_that_run_each_other_in_a_circle_are_bounded(tmp_path: Path) -> None:
    project = make_project(tmp_path, "npm", {"lint": "npm run lint && eslint ."})
    steps = _steps(project)
    assert steps[-1] == ("eslint .", "eslint", None)
    assert len(steps) <= 8


def test_eslint_dot_leaves_out_the_folders_git_ignores(tmp_path: Path) -> None:
    """`eslint .` with a flat config reads no .gitignore: tree-sitter-json's Python `.venv` at its polyglot root
    was linted as the project's JavaScript. node_modules is eslint's own to skip."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(".venv/\ndist\nnode_modules/\n*.log\n")
    for folder in (".venv", "dist", "node_modules", "src", "web/dist", "web/src"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    root = make_project(tmp_path, None)
    web = make_project(tmp_path / "web", None)
    argv = tool_for(root, "lint").argv
    assert argv[argv.index("--format") :] == (
        "--format",
        "json-with-metadata",
        ".",
        "--ignore-pattern=.venv/",
        "--ignore-pattern=dist/",
    )
    web_argv = tool_for(web, "lint").argv
    assert web_argv[web_argv.index("--format") :] == ("--format", "json-with-metadata", ".", "--ignore-pattern=dist/")
