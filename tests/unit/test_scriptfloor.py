"""lintel.engine.scriptfloor on real script output (tests/captures/npm-script, from tests/workspaces/node-chained): a
script that exits non-zero is never left without an error or a `not_checked`, and the step that failed is named.
"""

from __future__ import annotations

import json
from pathlib import Path

from lintel.core.issues import ParseContext
from lintel.engine.detect import detect
from lintel.engine.scriptfloor import ScriptVerdict, failed_script
from lintel.languages import Project, ToolSpec
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput

from tests.helpers import load_capture, tool_for

CTX = ParseContext(cwd="/w", root="/w")


def project_with(tmp_path: Path, **scripts: str) -> Project:
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": scripts}), encoding="utf-8")
    [project] = detect(tmp_path)
    return project


def verdict(spec: ToolSpec, output: ToolOutput, ctx: ParseContext = CTX, tail: str = "the end") -> ScriptVerdict | None:
    parsed = get_parser(spec.parser)(output, ctx)
    return failed_script(spec, spec.check, output, ctx, issues=parsed.issues, failures=parsed.failures, tail=tail)


def test_the_prettier_step_of_a_lint_script_failed(tmp_path: Path) -> None:
    output, ctx, _ = load_capture("npm-script", "chained-lint")
    spec = tool_for(project_with(tmp_path, lint="eslint . && prettier -c src test"), "lint")
    floor = verdict(spec, output, ctx)
    assert floor is not None
    assert (floor.status, floor.reason) == (
        "findings",
        "`prettier -c src test` failed (the `lint` script exited 1): its findings fail the script",
    )
    found = {(i.source, i.file, i.severity) for i in floor.issues}
    assert found == {("eslint", "src/cart.js", "warning"), ("prettier", "src/labels.js", "error")}


def test_a_test_script_names_the_step_of_the_script_it_runs(tmp_path: Path) -> None:
    """The test check's parser reads no lint output: the step's own parser finds why it failed."""
    output, ctx, _ = load_capture("npm-script", "chained-test")
    project = project_with(tmp_path, lint="eslint . && prettier -c src test", test="npm run lint && node --test")
    floor = verdict(tool_for(project, "test"), output, ctx)
    assert floor is not None
    assert floor.reason.startswith("`prettier -c src test` (of `npm run lint`) failed")
    [issue] = floor.issues
    assert (issue.kind, issue.file, issue.severity) == ("format", "src/labels.js", "error")


def test_a_clean_chain_is_understood() -> None:
    output, ctx, meta = load_capture("npm-script", "chained-lint-clean")
    assert meta["exit_code"] == 0
    result = get_parser("node-lint-auto")(output, ctx)
    assert (result.recognized, result.issues) == (True, [])


def test_a_script_lintel_cannot_split_gets_an_error_quoting_it(tmp_path: Path) -> None:
    spec = tool_for(project_with(tmp_path, lint="eslint . ; ./check.sh"), "lint")
    assert spec.steps == ()
    floor = verdict(spec, ToolOutput("", "check.sh: 2 files lack a header\n", 1), tail="check.sh: 2 files lack")
    assert floor is not None
    [issue] = floor.issues
    assert (issue.kind, issue.severity, issue.source) == ("lint", "error", "npm run lint")
    assert issue.message == "`eslint . ; ./check.sh` failed: the `lint` script exited 1"
    assert issue.hint == "check.sh: 2 files lack"


def test_an_error_already_found_is_the_verdict(tmp_path: Path) -> None:
    spec = tool_for(project_with(tmp_path, typecheck="tsc --noEmit && vue-tsc"), "typecheck")
    output = ToolOutput("src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n", "", 2)
    assert verdict(spec, output) is None


def test_a_command_the_shell_cannot_find_is_not_checked(tmp_path: Path) -> None:
    spec = tool_for(project_with(tmp_path, test="vitest run"), "test")
    floor = verdict(spec, ToolOutput("", "sh: 1: vitest: not found\n", 127), tail="sh: 1: vitest: not found")
    assert floor is not None
    assert (floor.status, floor.reason) == (
        "not_checked",
        "`vitest run` could not run (the `test` script exited 127): sh: 1: vitest: not found",
    )


def test_a_known_tool_whose_output_lintel_cannot_read_is_not_checked(tmp_path: Path) -> None:
    """tsc without a tsconfig.json prints its help and exits 1: lintel knows tsc but read nothing of it."""
    output, ctx, meta = load_capture("tsc", "no-tsconfig")
    assert meta["exit_code"] == 1
    spec = tool_for(project_with(tmp_path, typecheck="tsc --noEmit"), "typecheck")
    floor = verdict(spec, output, ctx, tail="Version 5.9.3")
    assert floor is not None
    assert (floor.status, floor.reason) == (
        "not_checked",
        "`tsc --noEmit` failed with output lintel could not read (the `typecheck` script exited 1): Version 5.9.3",
    )
