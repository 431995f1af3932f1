"""Per-file scopes and formatters (CONTRACT §6) run with the real tools on the fixture workspaces.

Each file scope is run the way the server runs it (the runner, the spec's parser, then only the file's findings
when the scope says so) and must find, for that file, what the project-wide `lintel check` finds there. Buffer
text sent on stdin must be what is checked (the file on disk stays as it was), and each formatter's output must
be clean by the file's own format check and unchanged when formatted again.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lintel.core.issues import Issue, ParseContext
from lintel.engine.checks import plan_spec, run_file_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.languages import FileCheckName, Project, ToolSpec
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.runtime.process import ProcessResult, run_process

from tests.helpers import (
    WORKSPACES,
    file_scope,
    formatter_for,
    lintel_json,
    missing_tool,
    require_path,
    require_tool,
    run_tool,
)

PYTHON = WORKSPACES / "python"
NODE = WORKSPACES / "node"
GO = WORKSPACES / "go"
RUST = WORKSPACES / "rust"
POLYGLOT = WORKSPACES / "polyglot"

Keys = set[tuple[Any, ...]]

# The fixture files with deliberate findings per (fixture, check); the others must come out clean, so a scope
# that silently checked nothing could not pass by matching an empty project run.
WITH_FINDINGS: dict[tuple[str, str], set[str]] = {
    ("python", "lint"): {"src/inventory/models.py", "src/inventory/pricing.py", "tests/test_pricing.py"},
    ("python", "format"): {"src/inventory/report.py"},
    ("node", "lint"): {"src/util.js", "src/api.ts"},
    ("node", "format"): {"src/messy.js"},
    ("go", "lint"): {"greet.go", "store.go", "sub/calc.go"},
    ("go", "format"): {"double.go"},
    ("rust", "lint"): {"src/lib.rs", "src/shapes.rs", "src/main.rs"},
    ("rust", "format"): {"src/shapes.rs", "src/main.rs", "tests/integration.rs"},
    ("polyglot", "lint"): {"ui/cart.js"},
}


# --------------------------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class Run:
    proc: ProcessResult
    issues: list[Issue]  # for the file only, as the server keeps them
    everything: list[Issue]  # all the run reported


def project_of(workspace: Path, language: str) -> Project:
    [project] = [p for p in detect(workspace) if p.language == language]
    return project


def run_spec(spec: ToolSpec, project: Project, workspace: Path, stdin: str | None = None) -> ProcessResult:
    """Run a spec as checks.py does: planned (binaries resolved, a node tool called in node_modules/.bin rather
    than through npx), the spec's env, cwd the project root."""
    planned = plan_spec(project, spec, LintelConfig(), workspace)
    if planned.missing is not None:
        missing_tool(f"{planned.missing.name} is not installed ({spec.install_hint})")
    binary = planned.binaries[0].path
    assert binary is not None
    return asyncio.run(
        run_process(
            [binary, *planned.spec.argv[1:]],
            cwd=project.root,
            env={**os.environ, "NO_COLOR": "1", **spec.env},
            timeout=600,
            stdin=stdin.encode("utf-8") if stdin is not None else None,
        )
    )


def run_file_scope(workspace: Path, language: str, check: FileCheckName, rel: str, *, text: str | None = None) -> Run:
    """The scope for `rel`, run, parsed, and kept to that file when the scope covers more."""
    project = project_of(workspace, language)
    file = workspace / rel
    scope = file_scope(project, check, file, use_stdin=text is not None)
    assert scope.stdin == (text is not None), "the fixtures' tools read stdin where the test sends it"
    proc = run_spec(scope.spec, project, workspace, text)
    parsed = get_parser(scope.spec.parser)(
        ToolOutput(proc.stdout, proc.stderr, proc.exit_code),
        ParseContext(cwd=str(project.root), root=str(workspace)),
    )
    assert parsed.recognized, f"{scope.spec.argv} exit {proc.exit_code}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    assert proc.exit_code in scope.spec.ok_codes | scope.spec.finding_codes, proc.stderr
    wanted = file.relative_to(workspace).as_posix()
    mine = [i for i in parsed.issues if i.file == wanted]
    if not scope.filter_to_file:
        assert mine == list(parsed.issues), "a one-file run reported other files"
    if workspace.parent == WORKSPACES and text is None:
        assert bool(mine) == (rel in WITH_FINDINGS[(workspace.name, check)]), [(i.line, i.rule) for i in mine]
    return Run(proc, mine, list(parsed.issues))


def keys(issues: list[Issue]) -> Keys:
    return {(i.line, i.rule) for i in issues}


def report_keys(report: dict[str, Any], rel: str, kind: str) -> Keys:
    """(line, rule) of what the project-wide `lintel check` reported for `rel`."""
    return {(i.get("line"), i.get("rule")) for i in report["issues"] if i.get("file") == rel and i["kind"] == kind}


def project_report(workspace: Path, checks: str) -> Callable[[], dict[str, Any]]:
    """The project-wide report, computed once per module and only by the tests that need it."""
    cache: dict[str, dict[str, Any]] = {}

    def get() -> dict[str, Any]:
        if "report" not in cache:
            _, cache["report"] = lintel_json("check", str(workspace), "--only", checks)
        return cache["report"]

    return get


def format_text(workspace: Path, language: str, rel: str, text: str) -> str:
    project = project_of(workspace, language)
    spec = formatter_for(project, workspace / rel)
    assert spec is not None
    proc = run_spec(spec, project, workspace, text)
    assert proc.exit_code == 0, proc.stderr
    parsed = get_parser(spec.parser)(
        ToolOutput(proc.stdout, proc.stderr, proc.exit_code), ParseContext(cwd=str(project.root), root=str(workspace))
    )
    assert parsed.recognized
    assert not parsed.issues
    return proc.stdout


@pytest.fixture
def unchanged_on_disk() -> Iterator[Callable[[Path], None]]:
    """Remember files' bytes; assert at the end that no run touched them."""
    before: dict[Path, bytes] = {}

    def watch(path: Path) -> None:
        before[path] = path.read_bytes()

    yield watch
    for path, content in before.items():
        assert path.read_bytes() == content, f"{path} changed on disk"


# ---------------------------------------------------------------------------------------------- python

python_report = project_report(PYTHON, "lint,format")


@pytest.mark.tool("ruff")
@pytest.mark.parametrize(
    "rel", ["src/inventory/models.py", "src/inventory/pricing.py", "src/inventory/report.py", "tests/test_pricing.py"]
)
@pytest.mark.parametrize("check", ["lint", "format"])
def test_python_file_scope_matches_the_project_run(check: FileCheckName, rel: str) -> None:
    require_tool("ruff", "pip install ruff")
    run = run_file_scope(PYTHON, "python", check, rel)
    assert keys(run.issues) == report_keys(python_report(), rel, check)
    on_stdin = run_file_scope(PYTHON, "python", check, rel, text=(PYTHON / rel).read_text(encoding="utf-8"))
    assert [(i.file, i.line, i.rule, i.message) for i in on_stdin.issues] == [
        (i.file, i.line, i.rule, i.message) for i in run.issues
    ]


@pytest.mark.tool("ruff")
def test_python_lint_reads_the_buffer_from_stdin(unchanged_on_disk: Callable[[Path], None]) -> None:
    require_tool("ruff", "pip install ruff")
    rel = "src/inventory/models.py"
    unchanged_on_disk(PYTHON / rel)
    saved = run_file_scope(PYTHON, "python", "lint", rel)
    assert {(3, "F401"), (24, "B006")} <= keys(saved.issues)
    text = (PYTHON / rel).read_text(encoding="utf-8").replace("import os\n", "# no os here\n", 1)
    edited = run_file_scope(PYTHON, "python", "lint", rel, text=text)
    assert keys(edited.issues) == keys(saved.issues) - {(3, "F401")}


@pytest.mark.tool("ruff")
def test_python_formatter_output_is_clean_and_stable(unchanged_on_disk: Callable[[Path], None]) -> None:
    require_tool("ruff", "pip install ruff")
    rel = "src/inventory/report.py"
    unchanged_on_disk(PYTHON / rel)
    original = (PYTHON / rel).read_text(encoding="utf-8")
    assert run_file_scope(PYTHON, "python", "format", rel).issues, "the fixture file is meant to be unformatted"
    formatted = format_text(PYTHON, "python", rel, original)
    assert formatted != original
    assert run_file_scope(PYTHON, "python", "format", rel, text=formatted).issues == []
    assert format_text(PYTHON, "python", rel, formatted) == formatted


# ------------------------------------------------------------------------------------------------ node

node_report = project_report(NODE, "lint,format")


def require_node(root: Path, *bins: str) -> None:
    require_tool("node", "install Node.js 20+")
    require_tool("npx", "install Node.js 20+ (npx ships with npm)")
    for name in bins:
        require_path(root / "node_modules" / ".bin" / name)


@pytest.mark.tool("node")
@pytest.mark.parametrize("rel", ["src/util.js", "src/api.ts", "src/math.js"])
def test_node_eslint_file_scope_matches_the_project_run(rel: str) -> None:
    require_node(NODE, "eslint")
    run = run_file_scope(NODE, "node", "lint", rel)
    assert keys(run.issues) == report_keys(node_report(), rel, "lint")
    on_stdin = run_file_scope(NODE, "node", "lint", rel, text=(NODE / rel).read_text(encoding="utf-8"))
    assert keys(on_stdin.issues) == keys(run.issues)


@pytest.mark.tool("node")
def test_node_eslint_reads_the_buffer_from_stdin(unchanged_on_disk: Callable[[Path], None]) -> None:
    require_node(NODE, "eslint")
    rel = "src/util.js"
    unchanged_on_disk(NODE / rel)
    saved = run_file_scope(NODE, "node", "lint", rel)
    assert (4, "eqeqeq") in keys(saved.issues)
    text = (NODE / rel).read_text(encoding="utf-8").replace("return a == b;", "return a === b;", 1)
    edited = run_file_scope(NODE, "node", "lint", rel, text=text)
    assert keys(edited.issues) == keys(saved.issues) - {(4, "eqeqeq")}


@pytest.mark.tool("node")
def test_node_file_checks_call_the_projects_own_tools() -> None:
    """The server's per-file runs (lint on open, save and change; the format check) call node_modules/.bin's
    eslint and prettier themselves, not through npx, and find what the project run finds."""
    require_node(NODE, "eslint", "prettier")
    project = project_of(NODE, "node")
    rel = "src/util.js"
    text = (NODE / rel).read_text(encoding="utf-8")
    runs: list[tuple[FileCheckName, str, str | None]] = [
        ("lint", "eslint", None),
        ("lint", "eslint", text),
        ("format", "prettier", None),
    ]
    for check, tool, buffer in runs:
        result = asyncio.run(
            run_file_check(project, check, NODE / rel, workspace=NODE, config=LintelConfig(), text=buffer)
        )
        assert result is not None
        assert result.argv[0] == str(NODE / "node_modules" / ".bin" / tool)
        assert keys(result.issues) == report_keys(node_report(), rel, check)
    assert report_keys(node_report(), rel, "lint")


@pytest.mark.tool("node")
@pytest.mark.parametrize("rel", ["src/messy.js", "src/util.js"])
def test_node_prettier_file_scope_matches_the_project_run(rel: str) -> None:
    require_node(NODE, "prettier")
    run = run_file_scope(NODE, "node", "format", rel)
    assert keys(run.issues) == report_keys(node_report(), rel, "format")


def node_copy(tmp_path: Path, fixture: Path) -> Path:
    """A scratch copy of a node fixture sharing its installed node_modules."""
    copy = tmp_path / fixture.name
    shutil.copytree(fixture, copy, ignore=shutil.ignore_patterns("node_modules"))
    (copy / "node_modules").symlink_to(fixture / "node_modules", target_is_directory=True)
    return copy


@pytest.mark.tool("node")
def test_node_prettier_passes_over_files_the_project_run_skips(tmp_path: Path) -> None:
    require_node(NODE, "prettier")
    copy = node_copy(tmp_path, NODE)
    (copy / "notes.txt").write_text("no   parser   for   this\n", encoding="utf-8")
    (copy / "vendor").mkdir()
    (copy / "vendor" / "lib.js").write_text("export const x = {a:1}\n", encoding="utf-8")
    (copy / ".prettierignore").write_text("vendor/\n", encoding="utf-8")
    # No parser for .txt; an ignored file; node_modules (ignored by default): clean, exit 0, like `prettier --check .`.
    for rel in ("notes.txt", "vendor/lib.js", "node_modules/eslint/package.json"):
        run = run_file_scope(copy, "node", "format", rel)
        assert (run.proc.exit_code, run.issues) == (0, [])


@pytest.mark.tool("node")
def test_node_formatter_output_is_clean_and_stable(tmp_path: Path) -> None:
    require_node(NODE, "prettier")
    copy = node_copy(tmp_path, NODE)
    rel = "src/messy.js"
    original = (copy / rel).read_text(encoding="utf-8")
    assert run_file_scope(copy, "node", "format", rel).issues
    formatted = format_text(copy, "node", rel, original)
    assert formatted != original
    assert (copy / rel).read_text(encoding="utf-8") == original
    (copy / rel).write_text(formatted, encoding="utf-8")
    assert run_file_scope(copy, "node", "format", rel).issues == []
    assert format_text(copy, "node", rel, formatted) == formatted


@pytest.mark.tool("node")
def test_node_lint_script_runs_whole_and_keeps_the_files_findings() -> None:
    require_node(POLYGLOT, "eslint")
    require_tool("yarn", "npm install -g yarn")
    rel = "ui/cart.js"
    run = run_file_scope(POLYGLOT, "node", "lint", rel)
    _, report = lintel_json("check", str(POLYGLOT), "--only", "lint", "--language", "node")
    assert keys(run.issues) == report_keys(report, rel, "lint")
    assert (8, "eqeqeq") in keys(run.issues)


# -------------------------------------------------------------------------------------------------- go

go_report = project_report(GO, "lint,format")


def require_go() -> None:
    require_tool("go", "install Go from https://go.dev/dl/")


@pytest.mark.tool("go")
@pytest.mark.parametrize("rel", ["greet.go", "store.go", "double.go", "sub/calc.go", "sub/calc_test.go"])
def test_go_package_scope_matches_the_module_run(rel: str) -> None:
    require_go()
    require_tool("golangci-lint")
    run = run_file_scope(GO, "go", "lint", rel)
    assert keys(run.issues) == report_keys(go_report(), rel, "lint")
    # The run covers the file's package, not the module.
    package = Path(rel).parent.as_posix()
    assert {Path(i.file or "").parent.as_posix() for i in run.everything} <= {package}


@pytest.mark.tool("go")
@pytest.mark.parametrize("rel", ["double.go", "greet.go", "sub/calc.go"])
def test_go_format_scope_matches_the_module_run(rel: str) -> None:
    require_go()
    run = run_file_scope(GO, "go", "format", rel)
    assert keys(run.issues) == report_keys(go_report(), rel, "format")


@pytest.mark.tool("go")
def test_go_formatter_output_is_clean_and_stable(tmp_path: Path) -> None:
    require_go()
    copy = tmp_path / "go"
    shutil.copytree(GO, copy)
    rel = "double.go"
    original = (copy / rel).read_text(encoding="utf-8")
    assert run_file_scope(copy, "go", "format", rel).issues
    formatted = format_text(copy, "go", rel, original)
    assert formatted != original
    (copy / rel).write_text(formatted, encoding="utf-8")
    assert run_file_scope(copy, "go", "format", rel).issues == []
    assert format_text(copy, "go", rel, formatted) == formatted


# ------------------------------------------------------------------------------------------------ rust

rust_report = project_report(RUST, "lint,format")


def require_component(component: str) -> None:
    require_tool("cargo", "install Rust with rustup")
    proc = run_tool(["cargo", component, "--version"], cwd=RUST, timeout=60)
    if proc.returncode != 0:
        missing_tool(f"cargo {component} is not installed (rustup component add {component})")


@pytest.mark.tool("cargo")
@pytest.mark.parametrize("rel", ["src/lib.rs", "src/shapes.rs", "src/main.rs", "tests/integration.rs"])
def test_rust_crate_scope_matches_the_project_run(rel: str) -> None:
    require_component("clippy")
    run = run_file_scope(RUST, "rust", "lint", rel)
    assert keys(run.issues) == report_keys(rust_report(), rel, "lint")


@pytest.mark.tool("cargo")
@pytest.mark.parametrize("rel", ["src/lib.rs", "src/shapes.rs", "src/main.rs", "tests/integration.rs"])
def test_rust_format_scope_matches_cargo_fmt(rel: str) -> None:
    require_component("fmt")
    run = run_file_scope(RUST, "rust", "format", rel)
    assert keys(run.issues) == report_keys(rust_report(), rel, "format")


@pytest.mark.tool("cargo")
def test_rust_format_scope_follows_modules_so_it_is_filtered() -> None:
    require_component("fmt")
    run = run_file_scope(RUST, "rust", "format", "src/lib.rs")
    # lib.rs is formatted; rustfmt also checked src/shapes.rs through `pub mod shapes;`.
    assert run.issues == []
    assert {i.file for i in run.everything} == {"src/shapes.rs"}


@pytest.mark.tool("cargo")
def test_rust_formatter_output_is_clean_and_stable(tmp_path: Path) -> None:
    require_component("fmt")
    copy = tmp_path / "rust"
    shutil.copytree(RUST, copy, ignore=shutil.ignore_patterns("target"))
    for rel in ("src/main.rs", "src/shapes.rs"):
        original = (copy / rel).read_text(encoding="utf-8")
        assert run_file_scope(copy, "rust", "format", rel).issues
        formatted = format_text(copy, "rust", rel, original)
        assert formatted != original
        (copy / rel).write_text(formatted, encoding="utf-8")
        assert run_file_scope(copy, "rust", "format", rel).issues == []
        assert format_text(copy, "rust", rel, formatted) == formatted
